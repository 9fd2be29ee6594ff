"""Training the learned and dynamic criteria inside a suite run: held out on the training
suite, applied to another, and cross-validated by game, never by position."""
import dataclasses
import random

import chess

from ensemble import dynamic, learned
from ensemble.ballot import Ballot, Evidence
from ensemble.features import feature_matrix
from players.result import SearchResult
from tests.tournaments.suite.suite_files import EPD
from tournaments.records.epd import Suite, SuitePosition
from tournaments.suite import learning as suite_learning
from tournaments.suite import metrics as suite_metrics
from tournaments.suite.config import load_suite
from tournaments.suite.store import SearchStore


def _learning_positions(n_games=15, per_game=4, seed=1):
    """Positions of ``n_games`` self-play games (``c1``-style sources, ``per_game`` each), two
    candidates apiece, and every position's three ballots: the instance whose search gained
    most found the best move, in every position."""
    rng = random.Random(seed)
    positions, decisions, seen = [], {}, set()
    for game in range(n_games):
        board, ply = chess.Board(), 0
        while sum(p.game == f"selfplay:{game}" for p in positions) < per_game:
            board.push(rng.choice(list(board.legal_moves)))
            ply += 1
            if board.is_game_over():
                board = chess.Board()
            elif board.legal_moves.count() >= 3 and board.fen() not in seen:
                seen.add(board.fen())
                moves = [m.uci() for m in list(board.legal_moves)[:2]]
                best = rng.choice(moves)
                positions.append(SuitePosition(board.fen(), (best,), source=f"selfplay:{game}:{ply}"))
                decisions[board.fen()] = [(m, 300 if m == best else 0) for m in moves] + [(moves[0], 0)]
    return positions, decisions


def _stub_store_view(monkeypatch, decisions):
    """Stored searches answer from ``decisions`` (fen -> (move, score) per instance)."""
    def result(move, score):
        return SearchResult(move, score, None, (move,), 6, 20, 20, 6, 500, 0.01, (), "", None)

    def fake_decisions(self, player, suite):
        ballots = [tuple(Ballot(inst.label, inst.spec, result(move, score))
                         for inst, (move, score) in zip(player.instances, decisions[p.fen])) for p in suite.positions]
        return suite.positions, ballots, [{} for _ in player.instances]

    monkeypatch.setattr(suite_metrics.StoreView, "decisions", fake_decisions)
    monkeypatch.setattr(suite_metrics.StoreView, "evidence", lambda self, fen, ballots, stored: Evidence())


def _learning_config(tmp_path, criteria="majority, learned, dynamic"):
    (tmp_path / "s.epd").write_text(EPD)
    return load_suite(text=(
        f"name: t\nsuites:\n  - {{path: {tmp_path / 's.epd'}, name: train, role: choose}}\n"
        f"  - {{path: {tmp_path / 's.epd'}, name: other, role: confirm}}\n"
        f"players: {{ensembles: [3b], full: false}}\nbudget: {{nodes: 500}}\ncriteria: [{criteria}]\n"
        f"learn: {{suites: [train], model: {tmp_path / 'm.json'}}}\n"))


def test_a_learned_criterion_is_trained_and_held_out_on_its_training_suite(tmp_path, monkeypatch):
    """The whole path on a stubbed store: train on one suite, score held-out there and
    with the saved model on another."""
    positions, decisions = _learning_positions()
    train = Suite("train", "", positions[:40], [])
    other = Suite("other", "", positions[40:], [])
    config = _learning_config(tmp_path)
    _stub_store_view(monkeypatch, decisions)
    with SearchStore(tmp_path / "store.sqlite") as store:
        training = suite_learning.train_selection(config, [train, other], store)
        assert training.decisions == 40 and training.path.exists() and training.dynamic_path.exists()
        assert training.model.games == 10 and training.model.positions == 40
        assert set(training.held_out) == {(c, "train", "3b", p.fen) for p in train.positions
                                          for c in ("learned", "dynamic")}
        files = {k: str(v) for k, v in training.files.items()}
        config = dataclasses.replace(config, criteria=tuple(
            dataclasses.replace(c, params={**c.params, "model": files[c.name]}) if c.name in files else c
            for c in config.criteria))
        scores = {(s.suite, s.criterion.split("(")[0]): s for suite in (train, other)
                  for s in suite_metrics.score_suite(config, suite, store, trained=files,
                                                     held_out=training.held_out)}
    # majority follows the two votes for the first move; the learned criterion the gain
    assert scores["other", "learned"].val.value == 1.0
    assert scores["other", "majority"].val.value < 0.8
    for criterion in ("learned", "dynamic"):
        held = [training.held_out[criterion, "train", "3b", p.fen] for p in train.positions]
        assert scores["train", criterion].val.value == sum(p.solved_by(m) for p, m in zip(train.positions, held)) / 40


def test_cross_validation_never_puts_one_game_on_both_sides_of_a_fold(tmp_path, monkeypatch):
    """The training set's games reach both fits: in every fold of the learned and the
    dynamic criterion, a game's positions are all trained on or all held out.  (Grouped
    by position, a game's four positions would fall into different folds.)"""
    positions, decisions = _learning_positions()
    game_of = {p.fen: p.game for p in positions}
    _stub_store_view(monkeypatch, decisions)
    seen, folds_used = {}, []

    def spy_features(inputs):
        rows, groups, moves = feature_matrix(inputs)
        seen.update(inputs=inputs, groups=groups)
        return rows, groups, moves

    def spy_folds(games, n=learned.FOLDS):
        folds = real_folds(games, n)
        folds_used.append(folds)
        return folds

    real_folds = learned.grouped_folds
    monkeypatch.setattr(suite_learning, "feature_matrix", spy_features)
    monkeypatch.setattr(learned, "grouped_folds", spy_folds)
    monkeypatch.setattr(dynamic, "grouped_folds", spy_folds)
    with SearchStore(tmp_path / "store.sqlite") as store:
        suite_learning.train_selection(_learning_config(tmp_path), [Suite("train", "", positions, [])], store)
    decision_games = [game_of[inp.key] for inp in seen["inputs"]]
    row_games = [decision_games[g] for g in seen["groups"]]
    assert len(folds_used) == 2  # the learned criterion's rows, then the dynamic criterion's decisions
    for games, folds in zip((row_games, decision_games), folds_used):
        assert len(folds) == learned.FOLDS and sorted(i for _, test in folds for i in test) == list(range(len(games)))
        for train, test in folds:
            assert not {games[i] for i in train} & {games[i] for i in test}
