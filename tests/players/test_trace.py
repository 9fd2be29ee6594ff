"""The evaluation category by category: the trace's table, and the static value of a
python-chess board that adjudication, the selection criteria and the suite store use."""
import random

import chess

from evaluation.spec import FULL_ENGINE, EvalSpec
from players.position import Position
from players.result import MATE_CP
from players.trace import PositionTerms, position_terms, static_value, trace

MIDDLEGAME = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def test_the_table_shows_every_category_and_marks_those_left_out():
    text = trace(Position.from_fen(MIDDLEGAME), EvalSpec.parse("MKP")).format().splitlines()
    rows = {line[0]: line for line in text if line[:2] in {f"{c} " for c in "MBXKPAR"}}
    assert set(rows) == set("MBXKPAR")
    assert all(rows[c].endswith("(off)") for c in "BXAR") and not any(rows[c].endswith("(off)") for c in "MKP")
    assert text[-1].startswith("Total: ") and text[-1].endswith("(side to move, white)")


def test_one_evaluation_gives_every_instance_the_value_the_search_sees(data_dir):
    """The nets are taken once, with the full engine; an instance's value from them must be
    the jitted evaluation's own total for that mask and those weights."""
    rng = random.Random(3)
    lines = (data_dir / "suites" / "wac.epd").read_text().splitlines()[:60]
    for line in lines:
        board = chess.Board(" ".join(line.split()[:4]) + " 0 1")
        terms = position_terms(board)
        for _ in range(3):
            spec = EvalSpec(rng.randrange(1, 128), tuple(round(rng.uniform(0, 2), 2) for _ in range(7)))
            white = trace(Position(board), spec).total_white
            assert terms.value(spec, chess.WHITE) == white, (board.fen(), spec)
            assert terms.value(spec, chess.BLACK) == -white


def test_mirrored_colours_negate_every_net():
    board = chess.Board(MIDDLEGAME)
    assert position_terms(board.mirror()).nets == tuple(-n for n in position_terms(board).nets)
    assert position_terms(chess.Board()).nets == (0,) * 7


def test_a_finished_game_counts_its_result_not_its_material():
    mated = chess.Board()
    for san in ("f3", "e5", "g4", "Qh4#"):
        mated.push_san(san)
    assert position_terms(mated) == PositionTerms((0,) * 7, -1)  # Black has mated
    assert static_value(mated, FULL_ENGINE, chess.WHITE) == -MATE_CP
    assert static_value(mated, EvalSpec.parse("P"), chess.BLACK) == MATE_CP
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")  # Black to move has no move, not in check
    assert stalemate.is_stalemate() and position_terms(stalemate).result == 0
    assert static_value(stalemate, FULL_ENGINE, chess.WHITE) == 0  # a queen up, and a draw
    assert position_terms(chess.Board("8/8/4k3/8/8/3NK3/8/8 w - - 0 1")).result == 0  # K+N against K


def test_static_value_is_from_the_root_side():
    queen_up = chess.Board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")
    assert static_value(queen_up, EvalSpec.parse("M"), chess.WHITE) > 800
    assert static_value(queen_up, EvalSpec.parse("M"), chess.BLACK) == -static_value(queen_up, EvalSpec.parse("M"),
                                                                                     chess.WHITE)
    assert static_value(queen_up, EvalSpec.parse("M", [2, 1, 1, 1, 1, 1, 1]), chess.WHITE) == \
        2 * position_terms(queen_up).nets[0]
