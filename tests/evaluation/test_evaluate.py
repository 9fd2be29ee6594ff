"""The seven categories: exact sums, colour symmetry, zero start, intended signs."""
import random

import chess
import pytest

from evaluation.evaluate import evaluate, new_scratch
from evaluation.params import DEFAULT_PARAMS
from evaluation.spec import CATEGORIES, EvalSpec
from players.trace import trace
from players.position import Position


def _positions(data_dir, limit=1200):
    boards = []
    for name in ("openings/8moves_v3-1000.epd", "suites/wac.epd", "suites/sts-1-10.epd"):
        for line in (data_dir / name).read_text(errors="replace").splitlines():
            line = line.replace("\x00", "").strip()
            if line:  # the first four EPD fields are the position; the operations do not matter here
                boards.append(chess.Board(" ".join(line.split()[:4]) + " 0 1"))
    return boards[:limit]


def _category_terms(board, spec=EvalSpec()):
    t = trace(Position(board), spec)
    return t, {c.letter: (c.white, c.black) for c in t.categories}


def test_nets_sum_exactly_to_total_for_any_mask_and_weights(data_dir):
    rng = random.Random(7)
    for board in _positions(data_dir, 300):
        mask = rng.randrange(1, 128)
        weights = [round(rng.uniform(0, 3), 2) for _ in range(7)]
        t = trace(Position(board), EvalSpec(mask, tuple(weights)))
        assert sum(c.net for c in t.categories) == t.total_white


def test_colour_symmetry_per_category(data_dir):
    boards = _positions(data_dir)
    assert len(boards) >= 1000
    for board in boards:
        t, terms = _category_terms(board)
        tm, mirrored = _category_terms(board.mirror())
        for letter in CATEGORIES:
            w, b = terms[letter]
            assert mirrored[letter] == (b, w), (board.fen(), letter)
        assert t.total == tm.total


def test_start_position_is_zero_in_every_category():
    t, terms = _category_terms(chess.Board())
    assert all(w == b for w, b in terms.values())
    assert all(c.net == 0 for c in t.categories) and t.total == 0


def _net(fen, letter):
    t = trace(Position.from_fen(fen), EvalSpec())
    return next(c.net for c in t.categories if c.letter == letter)


@pytest.mark.parametrize("letter, worse, better", [
    # P: an isolated pawn costs (White's a/c pawns vs connected b/c pawns)
    ("P", "4k3/pp6/8/8/8/8/P1P5/4K3 w - - 0 1", "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1"),
    # P: doubled pawns cost
    ("P", "4k3/pp6/8/8/8/1P6/1P6/4K3 w - - 0 1", "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1"),
    # P: a passed pawn earns more the further it stands
    ("P", "4k3/8/8/8/8/8/P7/4K3 w - - 0 1", "4k3/8/P7/8/8/8/8/4K3 w - - 0 1"),
    # R: a rook on an open file earns over one on a closed file
    ("R", "4k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1", "4k3/ppp5/8/8/8/8/PPP5/3RK3 w - - 0 1"),
    # A: a hanging knight costs (attacked by a rook, undefended)
    ("A", "3rk3/8/8/8/3N4/8/8/4K3 w - - 0 1", "3rk3/8/8/8/3N4/4P3/8/4K3 w - - 0 1"),
    # A: a queen attacked by a pawn costs even when defended
    ("A", "4k3/8/2p5/3Q4/8/8/8/3RK3 w - - 0 1", "4k3/8/8/3Q4/8/8/8/3RK3 w - - 0 1"),
    # K: a king stripped of its pawn shelter costs
    ("K", "r5k1/5ppp/8/8/8/8/8/3QK2R w - - 0 1", "r5k1/5ppp/8/8/8/8/5PPP/3Q2KR w - - 0 1"),
    # X: a bishop with more scope earns mobility
    ("X", "4k3/8/8/8/8/8/1P6/B3K3 w - - 0 1", "4k3/8/8/8/3B4/8/8/4K3 w - - 0 1"),
    # X: a bishop pinning a knight to the king earns
    ("X", "4k3/8/2n5/8/8/8/8/B3K3 w - - 0 1", "4k3/8/2n5/8/B7/8/8/4K3 w - - 0 1"),
    # B: a centralised knight earns over one on the rim
    ("B", "4k3/8/8/8/8/8/8/N3K3 w - - 0 1", "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1"),
    # M: an extra pawn
    ("M", "4k3/p7/8/8/8/8/P7/4K3 w - - 0 1", "4k3/8/8/8/8/8/P7/4K3 w - - 0 1"),
])
def test_each_category_has_its_intended_sign(letter, worse, better):
    assert _net(worse, letter) < _net(better, letter)


def test_bare_king_bonus_drives_to_the_right_corner():
    # KBNK with a light-squared bishop: mate happens on a8/h1, so the black king there is worse for Black.
    near_right = _net("k7/8/8/8/8/8/8/1B1NK3 w - - 0 1", "M")
    near_wrong = _net("7k/8/8/8/8/8/8/1B1NK3 w - - 0 1", "M")
    assert near_right > near_wrong


def test_masked_out_categories_are_not_computed():
    pos = Position.from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    terms, attacks, counts = new_scratch()
    attacks[:] = 12345
    spec = EvalSpec.parse("MP")
    evaluate(pos.arrays, spec.mask, spec.weight_array(), DEFAULT_PARAMS, terms, attacks, counts)
    assert (terms[[1, 2, 3, 5, 6]] == 0).all() and (terms[[0, 4]] != 0).any()
    assert (attacks == 12345).all()  # no attack pass without X, K or A


def test_weights_scale_the_net():
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    one = trace(Position.from_fen(fen), EvalSpec.parse("MB"))
    two = trace(Position.from_fen(fen), EvalSpec.parse("MB", [1, 2, 1, 1, 1, 1, 1]))
    assert two.categories[1].net == 2 * one.categories[1].net


def test_total_is_from_side_to_move():
    white = trace(Position.from_fen("4k3/8/8/8/8/8/P7/4K3 w - - 0 1"), EvalSpec())
    black = trace(Position.from_fen("4k3/8/8/8/8/8/P7/4K3 b - - 0 1"), EvalSpec())
    assert white.total > 0 and black.total == -white.total
