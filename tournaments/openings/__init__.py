"""Where games start: opening books (EPD, PGN, Polyglot, engine-made), which of a book's
openings a match plays, the self-play opening draw, and whether a position can follow
from an opening."""
