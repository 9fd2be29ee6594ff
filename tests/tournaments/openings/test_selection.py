"""Which openings a match plays: one key per starting position whatever the book's form,
a seeded order that does not change between runs, exclusions counted before the limit."""
import chess

from tournaments.openings.selection import book_keys, opening_key, select_openings

OPEN_GAME = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
SICILIAN = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"


def book(n):
    """``n`` distinct entries named a, b, c, ...: the start position after a different first move."""
    moves = [m.uci() for m in chess.Board().legal_moves][:n]
    return [(chess.STARTING_FEN, (m,), chr(ord("a") + i)) for i, m in enumerate(moves)]


def names(selection):
    return "".join(name for _, _, name in selection.openings)


def test_an_epd_position_and_a_pgn_line_that_reaches_it_are_one_opening():
    epd = opening_key(OPEN_GAME.replace(" 0 2", " 7 30"))  # other move counters
    pgn = opening_key(chess.STARTING_FEN, ("e2e4", "e7e5"))
    assert epd == pgn == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"
    # an en passant square no pawn can take on is not part of the position
    assert opening_key(SICILIAN) == opening_key(SICILIAN.replace(" c6 ", " - "))
    assert book_keys([(OPEN_GAME, (), "x"), (chess.STARTING_FEN, ("e2e4", "e7e5"), "y")]) == {epd}


def test_the_seed_fixes_the_order_so_a_resumed_match_plays_the_same_games():
    assert names(select_openings(book(6), seed=1)) == "cdfaeb"
    assert names(select_openings(book(6), seed=2)) == "cdbefa"
    assert names(select_openings(book(6), seed=1)) == "cdfaeb"


def test_excluded_openings_are_counted_before_the_limit():
    entries = book(6)
    leave_out = {opening_key(fen, moves) for fen, moves, name in entries if name in "ab"}
    chosen = select_openings(entries, seed=1, limit=3, exclude=leave_out)
    assert len(chosen.openings) == 3
    assert not set(names(chosen)) & set("ab") and chosen.excluded == 2
    everything = select_openings(entries, seed=1, exclude=leave_out)
    assert names(everything)[:3] == names(chosen) and sorted(names(everything)) == list("cdef")


def test_a_line_excluded_by_its_end_position_goes_whatever_its_spelling():
    entries = [(chess.STARTING_FEN, ("e2e4", "e7e5"), "pgn"), (OPEN_GAME, (), "epd"), (SICILIAN, (), "other")]
    chosen = select_openings(entries, seed=5, exclude={opening_key(OPEN_GAME)})
    assert names(chosen) == "other" and chosen.excluded == 2
