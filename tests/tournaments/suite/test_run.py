"""Suite runs: metrics on a hand-made suite and store whose answers are known; phase 1
searches each instance once; a killed phase 1 resumes without losing or duplicating
searches; unreadable suite lines named."""
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from players.result import SearchResult
from players.trace import PositionTerms
from tournaments.suite.store import SearchStore, StoredSearch
from tournaments.suite.config import instance_key, load_suite
from tournaments.suite.run import read_suites, run_suite
from tests.tournaments.suite.suite_files import EPD, P1, P2, P3, P4

# (move, depth) per instance and position.
VOTES = {
    "MB": {P1: ("e2e4", 8), P2: ("c7c5", 8), P3: ("d7d5", 8), P4: ("e7e5", 10)},
    "MX": {P1: ("d2d4", 8), P2: ("c7c5", 8), P3: ("d7d5", 8), P4: ("c7c5", 8)},
    "MK": {P1: ("d2d4", 8), P2: ("e7e5", 8), P3: ("d7d5", 8), P4: ("g8f6", 8)},
    "MBXKPAR": {P1: ("e2e4", 8), P2: ("e7e5", 8), P3: ("g8f6", 8), P4: ("e7e5", 8)},
}


def write_config(tmp_path, budget="nodes: 400", criteria="[depth_confidence, weighted_majority]", suite="tiny.epd",
                 extra=""):
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
    """) + extra)
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
    # 3 ensemble instances + the full engine, and the full engine at the trio's 3 × 400 nodes; 4 positions
    assert first.searches_added == 4 * 4 + 4
    again = run_suite(config, progress=False)
    assert again.searches_added == 0
    assert [(s.player, s.criterion, s.val.successes) for s in again.scores] == \
           [(s.player, s.criterion, s.val.successes) for s in first.scores]


def test_a_killed_run_resumes_without_losing_or_duplicating(tmp_path, data_dir):
    config = write_config(tmp_path, budget="nodes: 60000", suite=str(data_dir / "suites" / "wac.epd"),
                          criteria="[majority]", extra="full_at_total: false\n")  # resuming, not the total
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


def test_unreadable_suite_lines_are_named_in_one_warning(tmp_path):
    suite = tmp_path / "mixed.epd"
    suite.write_text(EPD + "not epd\n" + f"{P2.rsplit(' ', 2)[0]} bm Ke2;\n")
    config = write_config(tmp_path, suite="mixed.epd")
    warnings = []
    suites = read_suites(config, warnings.append)
    assert len(suites[0].positions) == 4
    assert len(warnings) == 1 and warnings[0].startswith(f"{suite}: 2 unreadable lines left out: ")
    assert "line 5: not an EPD record" in warnings[0] and "line 6: illegal san: 'Ke2'" in warnings[0]
