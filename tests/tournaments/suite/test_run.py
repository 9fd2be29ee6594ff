"""Suite runs: metrics on a hand-made suite and store whose answers are known;
a killed phase 1 resumes without losing or duplicating searches."""
import dataclasses
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import chess
import pytest

from ensemble.ballot import Evidence
from players.result import SearchResult
from players.trace import PositionTerms
from tournaments.suite.store import SearchStore, StoredSearch
from tournaments.suite.config import instance_key, load_suite
from tournaments.suite.run import read_suites, run_suite

START = chess.STARTING_FEN


def fen_after(*moves):
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    return board.fen()


P1, P2, P3, P4 = START, fen_after("e2e4"), fen_after("d2d4"), fen_after("c2c4")
EPD = f"""{P1.rsplit(' ', 2)[0]} bm e4; id "p1"; c0 "e4=10, d4=5";
{P2.rsplit(' ', 2)[0]} bm c5; id "p2";
{P3.rsplit(' ', 2)[0]} bm Nf6; id "p3";
{P4.rsplit(' ', 2)[0]} bm e5; id "p4";
"""
# (move, depth) per instance and position.
VOTES = {
    "MB": {P1: ("e2e4", 8), P2: ("c7c5", 8), P3: ("d7d5", 8), P4: ("e7e5", 10)},
    "MX": {P1: ("d2d4", 8), P2: ("c7c5", 8), P3: ("d7d5", 8), P4: ("c7c5", 8)},
    "MK": {P1: ("d2d4", 8), P2: ("e7e5", 8), P3: ("d7d5", 8), P4: ("g8f6", 8)},
    "MBXKPAR": {P1: ("e2e4", 8), P2: ("e7e5", 8), P3: ("g8f6", 8), P4: ("e7e5", 8)},
}


def write_config(tmp_path, budget="nodes: 400", criteria="[depth_confidence, weighted_majority]", suite="tiny.epd"):
    (tmp_path / "tiny.epd").write_text(EPD)
    (tmp_path / "trio.yaml").write_text("name: trio\ninstances: [MB, MX, MK]\n")
    (tmp_path / "run.yaml").write_text(textwrap.dedent(f"""
        name: tiny
        suites: [{{path: {suite}}}]
        players: {{ensembles: ['{tmp_path / "trio.yaml"}'], full: true}}
        budget: {{{budget}}}
        criteria: {criteria}
        store: {tmp_path / "store.sqlite"}
        report: {tmp_path / "report"}
        workers: 1
    """))
    return load_suite(tmp_path / "run.yaml")


def fill_store(config):
    with SearchStore(config.store) as store:
        for key, inst in config.instances().items():
            rows = []
            for fen, (move, depth) in VOTES[inst.spec.letters].items():
                result = SearchResult(move, 0, None, (move,), depth, 0, 20, depth, 400, 0.01, (), fen)
                rows.append(StoredSearch(fen, key, config.budget_key, result, PositionTerms((0,) * 7)))
            store.add_searches(rows)
        for fen in (P1, P2, P3, P4):
            store.add_position(fen, PositionTerms((0,) * 7))


def test_metrics_on_a_hand_made_suite(tmp_path):
    config = write_config(tmp_path)
    fill_store(config)
    outcome = run_suite(config, search=False, progress=False)
    scores = {(s.player, s.criterion): s for s in outcome.scores}
    full = scores[("(MBXKPAR)", "")]
    assert (full.val.successes, full.n, full.points, full.max_points) == (3, 4, 10, 10)
    depth = scores[("trio", "depth_confidence")]
    # C_D: e4 (p1), c5 (p2), e5 (p4) are among the candidates; nobody proposed Nf6 (p3).
    assert depth.cd.successes == 3
    # Depth confidence: p1 d4 (2 × 800 > 800) wrong, p2 c5 right, p3 wrong, p4 e5 (1000 > 800) right.
    assert depth.val.successes == 2 and depth.cs == pytest.approx(2 / 3)
    assert (depth.points, depth.max_points) == (5, 10)
    assert (depth.versus_full.only_a, depth.versus_full.only_b) == (1, 2)
    weighted = scores[("trio", "weighted_majority")]
    # Generalised weights: p1 (MX)+(MK) 22.5 + 20 beat (MB) 25.5; p4 (MB) 25.5 beats 22.5 and 20.
    assert weighted.val.successes == 2
    files = {p.name for p in outcome.report_files}
    assert files == {"scores.csv", "sts_themes.csv", "report.md", "val_vs_cd.png"}
    report = (tmp_path / "report" / "report.md").read_text()
    assert "| tiny | trio | depth_confidence | 0.500 [" in report


def test_phase1_searches_each_distinct_instance_once_and_reuses_the_store(tmp_path):
    config = write_config(tmp_path)
    first = run_suite(config, progress=False)
    assert first.searches_added == 4 * 4  # 3 ensemble instances + the full engine, 4 positions
    again = run_suite(config, progress=False)
    assert again.searches_added == 0
    assert [(s.player, s.criterion, s.val.successes) for s in again.scores] == \
           [(s.player, s.criterion, s.val.successes) for s in first.scores]


def test_a_killed_run_resumes_without_losing_or_duplicating(tmp_path, data_dir):
    config = write_config(tmp_path, budget="nodes: 60000",
                          suite=str(data_dir / "suites" / "wac.epd"), criteria="[majority]")
    run = [sys.executable, "-m", "concilio", "suite", str(tmp_path / "run.yaml"), "--quiet", "--workers", "1"]
    proc = subprocess.Popen(run, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    store_path = tmp_path / "store.sqlite"
    deadline = time.time() + 120
    count = 0
    while time.time() < deadline:
        time.sleep(0.5)
        if store_path.exists():
            try:
                count = sqlite3.connect(store_path).execute("SELECT COUNT(*) FROM searches").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if count >= 16:
                break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    total = 299 * 4
    assert 16 <= count < total
    with SearchStore(store_path) as store:
        before = store.count()
    # Resume only a slice, to keep the test short: the first 40 positions.
    (tmp_path / "run.yaml").write_text((tmp_path / "run.yaml").read_text().replace(
        f"path: {data_dir / 'suites' / 'wac.epd'}", f"path: {data_dir / 'suites' / 'wac.epd'}, first: 40"))
    resumed = run_suite(load_suite(tmp_path / "run.yaml"), progress=False)
    with SearchStore(store_path) as store:
        after = store.count()
        rows = store.db.execute("SELECT COUNT(*), COUNT(DISTINCT fen || instance || budget) FROM searches").fetchone()
        keys = [instance_key(i) for i in config.instances().values()]
        for key in keys:
            assert store.done(key, config.budget_key) >= {p.fen for p in resumed.suites[0].positions}
    assert rows[0] == rows[1] == after  # no duplicates
    assert after == before + resumed.searches_added  # nothing finished was redone
    assert resumed.searches_added <= 40 * 4 - 16 + 8 * 4  # at most the batches in flight were lost


def test_each_suite_role_is_its_own_family_of_comparisons():
    from tournaments.statistics.stats import mcnemar, proportion
    from tournaments.suite.metrics import Score, adjust_comparisons

    def score(suite, player, wins, losses):
        s = Score(suite, player, "majority", 500, proportion(1, 2), proportion(1, 2), 0, 0)
        s.versus_full = mcnemar([True] * wins + [False] * losses, [False] * wins + [True] * losses)
        return s
    chosen = [score("train", f"p{i}", 60, 40) for i in range(20)]  # p = 0.057 each, twenty of them
    confirmed = [score("held-out", "p0", 60, 40)]
    families = adjust_comparisons(chosen + confirmed, {"train": "choose", "held-out": "confirm"})
    assert families == {"choose": 20, "confirm": 1}
    assert confirmed[0].versus_full.p_holm == pytest.approx(confirmed[0].versus_full.p_value)  # alone
    assert chosen[0].versus_full.p_holm == pytest.approx(1.0)


def test_a_suite_role_must_be_known(tmp_path):
    from base.config import ConfigError
    (tmp_path / "s.epd").write_text(EPD)
    text = (f"name: roles\nsuites:\n  - {{path: {tmp_path / 's.epd'}, role: train}}\n"
            "players: {instances: [MB]}\nbudget: {nodes: 500}\n")
    with pytest.raises(ConfigError, match=r"suites\[0\]\.role: role 'train' is not one of explore, choose, confirm"):
        load_suite(text=text)


def test_the_learned_criterion_never_trains_on_a_confirm_suite(tmp_path):
    from base.config import ConfigError
    (tmp_path / "s.epd").write_text(EPD)
    head = (f"name: learn\nsuites:\n  - {{path: {tmp_path / 's.epd'}, name: a, role: choose}}\n"
            f"  - {{path: {tmp_path / 's.epd'}, name: b, role: confirm}}\n"
            "players: {ensembles: [3b]}\nbudget: {nodes: 500}\ncriteria: [majority, learned]\n")
    with pytest.raises(ConfigError, match="suite 'b' confirms choices: it cannot also train the model"):
        load_suite(text=head + "learn: {suites: [b]}\n")
    with pytest.raises(ConfigError, match=r"(?s)no suite named 'c'.*no ensemble named '6b'"):
        load_suite(text=head + "learn: {suites: [c], players: [6b]}\n")
    with pytest.raises(ConfigError, match=r"criteria\[1\]: learned: give model: FILE, or a learn block"):
        load_suite(text=head)
    with pytest.raises(ConfigError, match=r"learn.model: the trained model is saved as plain JSON"):
        load_suite(text=head + "learn: {suites: [a], model: out/m.joblib}\n")
    config = load_suite(text=head + "learn: {suites: [a], model: out/m.json}\n")
    assert config.learn.suites == ("a",) and str(config.learn.model) == "out/m.json"


def _learning_positions(n_games=15, per_game=4, seed=1):
    """Positions of ``n_games`` self-play games (``c1``-style sources, ``per_game`` each), two
    candidates apiece, and every position's three ballots: the instance whose search gained
    most found the best move, in every position."""
    import random

    from tournaments.records.epd import SuitePosition

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
    from ensemble.ballot import Ballot
    from tournaments.suite import metrics as suite_metrics
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
    from tournaments.suite import learning as suite_learning
    from tournaments.suite import metrics as suite_metrics
    from tournaments.records.epd import Suite

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


def test_unreadable_suite_lines_are_named_in_one_warning(tmp_path):
    suite = tmp_path / "mixed.epd"
    suite.write_text(EPD + "not epd\n" + f"{P2.rsplit(' ', 2)[0]} bm Ke2;\n")
    config = write_config(tmp_path, suite="mixed.epd")
    warnings = []
    suites = read_suites(config, warnings.append)
    assert len(suites[0].positions) == 4
    assert len(warnings) == 1 and warnings[0].startswith(f"{suite}: 2 unreadable lines left out: ")
    assert "line 5: not an EPD record" in warnings[0] and "line 6: illegal san: 'Ke2'" in warnings[0]


def test_cross_validation_never_puts_one_game_on_both_sides_of_a_fold(tmp_path, monkeypatch):
    """The training set's games reach both fits: in every fold of the learned and the
    dynamic criterion, a game's positions are all trained on or all held out.  (Grouped
    by position, as before, a game's four positions fell into different folds.)"""
    from ensemble import dynamic, learned
    from ensemble.features import feature_matrix
    from tournaments.suite import learning as suite_learning
    from tournaments.records.epd import Suite

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
