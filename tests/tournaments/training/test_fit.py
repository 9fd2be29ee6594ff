"""The term-value fit: the linear model it fits (against the real evaluation), the fit
itself on a known target, and the rewrite of evaluation/params.py and evaluation/tables.py."""
import chess
import numpy as np
import pytest

from evaluation.evaluate import new_scratch
from evaluation.fitting import LN10_400, term_coefficients, white_scores
from evaluation.params import DEFAULT_PARAMS, PARAM_NAMES, TERMS
from evaluation.tables import PST
from players.position import Position
from tests.tournaments.training.fit_files import FENS
from tournaments.training import fit as tuning
from tournaments.training.fit_positions import FitGame, append_game


def _fit_set(tmp_path, labels):
    path = tmp_path / "p.txt"
    for seed, (fen, cp) in enumerate(zip(FENS, labels)):
        append_game(path, FitGame(seed, ((fen, int(cp)),), 0.5))
    return tuning.load_fit_set(path)


def test_fit_arrays_are_the_engines_own(tmp_path):
    data = _fit_set(tmp_path, [0] * len(FENS))
    bbs, boards, sts, _, _ = data.arrays
    for i, fen in enumerate(FENS):
        own = Position.from_fen(fen).arrays
        assert (bbs[i] == own[0]).all() and (boards[i] == own[1]).all() and sts[i][0] == own[2][0]


def test_the_evaluation_is_linear_in_the_term_values(tmp_path):
    """What the fit relies on: coefficients measured at one set of values predict the real
    evaluation at another within the taper's rounding (a centipawn per category and side)."""
    data = _fit_set(tmp_path, [0] * len(FENS))
    rng = np.random.default_rng(5)
    other = DEFAULT_PARAMS + rng.integers(-20, 21, DEFAULT_PARAMS.shape) * np.sign(DEFAULT_PARAMS)
    scores, coefficients = term_coefficients(*data.arrays, DEFAULT_PARAMS, *new_scratch())
    predicted = tuning.LinearModel.measure(data, DEFAULT_PARAMS).white_scores(other)
    real = white_scores(*data.arrays, other, *new_scratch())
    assert np.abs(predicted - real).max() <= 14
    assert np.abs(coefficients).sum() > 0
    # The start position is symmetric: every coefficient is zero there.
    assert np.abs(coefficients[0]).max() == 0
    # A pawn ending (phase 0): two extra white pawns count in the endgame value only.
    pawn = 2 * PARAM_NAMES.index("pawn_value")
    assert (coefficients[3, pawn], coefficients[3, pawn + 1]) == (0.0, 2.0)
    # Black's queen against White's rook, phase 2 + 4 = 6 of 24: a quarter middlegame.
    queen, rook = 2 * PARAM_NAMES.index("queen_value"), 2 * PARAM_NAMES.index("rook_value")
    assert (coefficients[5, queen], coefficients[5, queen + 1]) == (-0.25, -0.75)
    assert (coefficients[5, rook], coefficients[5, rook + 1]) == (0.25, 0.75)


def test_the_fit_recovers_values_that_made_the_labels(tmp_path):
    """Labels made by our own evaluation at known values: the fit, started elsewhere and
    at the same logistic scale, lands near them on the terms these positions exercise."""
    rng = np.random.default_rng(11)
    fens = []
    board = chess.Board()
    for _ in range(600):
        moves = list(board.legal_moves)
        if board.is_game_over() or board.ply() > 80:
            board = chess.Board()
            continue
        board.push(moves[rng.integers(len(moves))])
        if not board.is_check():
            fens.append(board.fen())
    truth = DEFAULT_PARAMS.copy()
    truth[PARAM_NAMES.index("knight_value")] = (330, 300)
    truth[PARAM_NAMES.index("rook_value")] = (560, 640)
    path = tmp_path / "p.txt"
    data0 = None
    for seed, fen in enumerate(fens):
        append_game(path, FitGame(seed, ((fen, 0),), 0.5))
    data0 = tuning.load_fit_set(path)
    cps = white_scores(*data0.arrays, truth, *new_scratch())
    data0.targets = 1.0 / (1.0 + np.exp(-cps * LN10_400))
    model = tuning.LinearModel.measure(data0, DEFAULT_PARAMS)
    fitted, tables = tuning.fit(model, data0.targets, LN10_400, log=lambda *_: None)
    assert tables is None
    assert tuning.error(data0, fitted, LN10_400) < tuning.error(data0, DEFAULT_PARAMS, LN10_400) / 10
    knight = fitted[PARAM_NAMES.index("knight_value")]
    assert abs(knight[0] + knight[1] - 630) <= 40  # the mix of phases these positions have
    assert tuning.fit_scale(data0, truth) == pytest.approx(LN10_400, rel=0.02)
    # With the tables free too: the error still falls, a table's average has moved into
    # its piece's value (pawns over ranks 2-7), and the pawns' back ranks stay as they were.
    model = tuning.LinearModel.measure(data0, DEFAULT_PARAMS, PST)
    fitted, tables = tuning.fit(model, data0.targets, LN10_400, log=lambda *_: None)
    assert model.error(data0.targets, fitted, LN10_400, tables) < tuning.error(data0, DEFAULT_PARAMS, LN10_400) / 5
    for phase in range(2):
        assert abs(np.mean(tables[phase, 0, 8:56] - PST[phase, 0, 8:56])) <= 0.5
        assert abs(np.mean(tables[phase, 1] - PST[phase, 1])) <= 0.5
        assert (tables[phase, 0, :8] == PST[phase, 0, :8]).all() and (tables[phase, 0, 56:] == 0).all()


def test_apply_tables_rewrites_one_table(tmp_path):
    path = tmp_path / "tables.py"
    path.write_text(tuning.TABLES_FILE.read_text())
    new = PST.copy()
    new[1, 2, chess.C4] += 7  # the endgame bishop table, c4: rank 4, third column
    assert tuning.apply_tables(new, path) == 1
    namespace = {}
    exec(path.read_text(), namespace)
    assert (namespace["PST"] == new).all()


def test_apply_params_rewrites_only_the_numbers(tmp_path):
    params_file = tmp_path / "params.py"
    original = tuning.PARAMS_FILE.read_text()
    params_file.write_text(original)
    new = DEFAULT_PARAMS.copy()
    new[PARAM_NAMES.index("pin")] = (31, 77)
    assert tuning.apply_params(new, params_file) == 2
    text = params_file.read_text()
    assert '("pin", "X", 31, 77),' in text
    assert "# enemy piece pinned by our bishop or rook" in text
    assert sum(a != b for a, b in zip(original.splitlines(), text.splitlines())) == 1
    assert len(TERMS) == len(PARAM_NAMES)


def test_the_command_names_a_missing_or_empty_positions_file(tmp_path, capsys):
    from concilio.cli import main
    assert main(["fit", "terms", "--positions", str(tmp_path / "none.txt")]) == 2
    assert "none.txt: no positions file (make one with 'concilio fit positions')" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    append_game(empty, FitGame(1, (), 0.5))
    assert main(["fit", "terms", "--positions", str(empty)]) == 2
    assert "empty.txt: no finished game with a position in it" in capsys.readouterr().err
