"""Where games start: opening books (EPD, PGN, Polyglot, engine-made), the self-play opening
draw, and whether a position can follow from an opening."""
