"""Node-clock rows of ``concilio speedup``: the metrics from a hand-made clock, and the rows of a
tiny file end to end."""
import pytest

from base.config import ConfigError
from players.decomposition.aspiration import NodeClock
from players.decomposition.options import SplitClockConfig
from tournaments.speedup.nodes import NodeRow, node_row
from tournaments.speedup.run import load_speedup, run_speedup, write_csv


def test_node_clock_metrics_from_a_hand_made_tally():
    clocks = [NodeClock(4, time=100, nodes=250, messages=10, overruns=1),
              NodeClock(4, time=50, nodes=150, messages=6)]
    r = node_row("x", 4, 300, clocks, agree=2, own_t1=240)
    assert (r.T, r.N, r.messages, r.positions, r.overruns) == (150, 400, 16, 2, 1)
    assert r.S == pytest.approx(2.0)  # N_1 / T_k = 300 / 150
    assert r.E == pytest.approx(0.5)
    assert r.SO == pytest.approx(400 / 300 - 1)
    assert r.production == pytest.approx(400 / (4 * 150))
    assert r.S_own == pytest.approx(1.6)


CONFIG = """
name: tiny-nodes
positions: {positions}
depth: 4
limit: 3
workers: []
node_workers: []
clock_workers: [1, 2, 4]
search: {{exact: true, null_move: false, lmr: false, futility: false}}
algorithms:
  - {{name: aspiration, algorithm: aspiration, margin: 20}}
  - {{name: root-split, algorithm: root_split}}
"""


def test_node_clock_rows_of_a_speedup_file(tmp_path, data_dir):
    path = tmp_path / "tiny.yaml"
    path.write_text(CONFIG.format(positions=data_dir / "suites" / "bratko-kopec.epd"))
    settings, variants = load_speedup(path)
    assert settings["clock_workers"] == [1, 2, 4] and variants[0].margin == 20
    lines: list[str] = []
    rows = run_speedup(settings, variants, out=lines.append)
    assert all(isinstance(r, NodeRow) for r in rows)
    assert [(r.algorithm, r.workers) for r in rows] == [("aspiration", k) for k in (1, 2, 4)]  # no clock in root_split
    for r in rows:
        assert r.agree == r.positions == 3
        assert r.S == pytest.approx(r.E * r.workers) and 0 < r.production <= 1
    one = rows[0]  # one worker, one full window: T = N, so S = 1 / (1 + SO)
    assert one.production == 1 and one.S == pytest.approx(1 / (1 + one.SO)) and one.S_own == pytest.approx(1.0)
    assert any(line.startswith("| aspiration | 4 |") for line in lines)  # the Markdown table
    write_csv(rows, tmp_path / "out.csv")
    assert (tmp_path / "out-nodes.csv").read_text().count("\n") == 4


def test_more_than_sixteen_clock_workers_is_refused(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nclock_workers: [2, 32]\nalgorithms:\n  - {name: a, algorithm: aspiration}\n")
    with pytest.raises(ConfigError, match="clock_workers"):
        load_speedup(path)


TREE_CONFIG = """
name: tiny-tree
positions: {positions}
depth: 4
limit: 3
workers: [1]
node_workers: []
clock_workers: [1, 2, 4]
search: {{exact: true, null_move: false, lmr: false, futility: false, hash_mb: 2}}
algorithms:
  - {{name: master-tree, algorithm: master_tree, min_split_depth: 3, slice: 300}}
"""


def test_master_tree_rows_on_the_node_clock(tmp_path, data_dir):
    """Jurčovič's master tree has node-clock rows only (none time-based), every answer the
    sequential one, its messages counted."""
    path = tmp_path / "tree.yaml"
    path.write_text(TREE_CONFIG.format(positions=data_dir / "suites" / "bratko-kopec.epd"))
    settings, variants = load_speedup(path)
    assert variants[0].options.sequential_depth == 3 and variants[0].options.slice == 300
    lines: list[str] = []
    rows = run_speedup(settings, variants, out=lines.append)
    assert [(r.algorithm, r.workers) for r in rows] == [("master-tree", k) for k in (1, 2, 4)]
    for r in rows:
        assert isinstance(r, NodeRow) and r.agree == r.positions == 3
        assert r.T % 300 == 0 and 0 < r.production <= 1 and r.messages > 0
    assert rows[0].S_own == pytest.approx(1.0) and rows[2].S_own > 1  # four workers beat one on the clock


def test_lazy_cluster_rows_on_the_node_clock(tmp_path, data_dir):
    """The lazy cluster to a fixed depth: every worker's table its own, the vote's score the
    sequential one (exact mode), T_k a whole number of slices, the exchange's messages counted
    only where there are other workers to send to."""
    path = tmp_path / "lazy.yaml"
    path.write_text(TREE_CONFIG.format(positions=data_dir / "suites" / "bratko-kopec.epd").replace(
        "{name: master-tree, algorithm: master_tree, min_split_depth: 3, slice: 300}",
        "{name: lazy-cluster, algorithm: lazy_cluster, slice: 300, exchange_depth: 2, exchange_size: 64}"))
    settings, variants = load_speedup(path)
    rows = run_speedup(settings, variants, out=lambda _: None)
    assert [(r.algorithm, r.workers) for r in rows] == [("lazy-cluster", k) for k in (1, 2, 4)]
    for r in rows:
        assert isinstance(r, NodeRow) and r.agree == r.positions == 3 and r.T % 300 == 0
    assert rows[0].messages == 0 and rows[1].messages > 0 and rows[2].messages > rows[1].messages


SPLIT_CONFIG = """
name: tiny-split
positions: {positions}
depth: 4
limit: 3
workers: [1]
node_workers: []
clock_workers: [1, 4, 16]
search: {{exact: true, null_move: false, lmr: false, futility: false, hash_mb: 2}}
algorithms:
  - {{name: root-split+pvs, algorithm: root_split, node_clock: true, min_split_depth: 3, slice: 300}}
  - {{name: pv-split+pvs, algorithm: pv_split, node_clock: true, min_split_depth: 3, slice: 300}}
  - {{name: dynamic-split+pvs, algorithm: dynamic_split, node_clock: true, min_split_depth: 3, slice: 300}}
"""


def test_splitting_rows_on_the_node_clock(tmp_path, data_dir):
    """Root, PV and dynamic splitting with node_clock: true have node-clock rows only (none
    time-based, though the file asks for one worker's), every answer the sequential one."""
    path = tmp_path / "split.yaml"
    path.write_text(SPLIT_CONFIG.format(positions=data_dir / "suites" / "bratko-kopec.epd"))
    settings, variants = load_speedup(path)
    assert [v.options.algorithm for v in variants] == ["root_split", "pv_split", "dynamic_split"]
    rows = run_speedup(settings, variants, out=lambda line: None)
    assert [(r.algorithm, r.workers) for r in rows] == [(v.name, k) for v in variants for k in (1, 4, 16)]
    for r in rows:
        assert isinstance(r, NodeRow) and r.agree == r.positions == 3
        assert r.T % 300 == 0 and 0 < r.production <= 1 and r.messages > 0
    assert all(r.S_own > 1 for r in rows if r.workers > 1)


def test_the_shipped_cluster_file_lists_every_node_clock_algorithm():
    settings, variants = load_speedup("speedup-cluster")
    assert settings["clock_workers"] == [1, 2, 4, 8, 16] and settings["depth"] == 6
    assert {v.algorithm for v in variants} == {"aspiration", "lazy_cluster", "master_tree", "tree_split",
                                               "mandatory_first", "root_split", "pv_split", "dynamic_split",
                                               "uidpabs", "mixed"}
    assert all(isinstance(v.options, SplitClockConfig) for v in variants
               if v.algorithm in ("root_split", "pv_split", "dynamic_split"))
    assert {v.name for v in variants} >= {"root-split", "root-split+sharing", "root-split+pvs",
                                          "root-split+speculative", "pv-split+pvs", "dynamic-split+pvs"}


FRESH_CONFIG = """
name: tiny-fresh
positions: {positions}
depth: 4
limit: 2
workers: []
node_workers: []
clock_workers: [1, 4]
search: {{exact: true, null_move: false, lmr: false, futility: false, hash_mb: 2}}
algorithms:
  - {{name: fresh-cluster, algorithm: fresh_cluster, batch: 300, latency: 300, threshold: 2}}
"""


def test_fresh_cluster_rows_on_the_node_clock(tmp_path, data_dir):
    """The fresh cluster to a fixed depth has node-clock rows only: T_k whole checkpoints, every
    answer the sequential score (exact mode), one worker the plain searcher node for node (its
    N is N_1: no search overhead) and done within a batch of its T, four workers exchanging."""
    path = tmp_path / "fresh.yaml"
    path.write_text(FRESH_CONFIG.format(positions=data_dir / "suites" / "bratko-kopec.epd"))
    settings, variants = load_speedup(path)
    lines: list[str] = []
    rows = run_speedup(settings, variants, out=lines.append)
    assert [(r.algorithm, r.workers) for r in rows] == [("fresh-cluster", 1), ("fresh-cluster", 4)]
    n1 = int(lines[0].split("N ")[1].split()[0])  # "sequential: T ... s  N <n1>  VR ..."
    one, four = rows
    for r in rows:
        assert isinstance(r, NodeRow) and r.agree == r.positions == 2
        assert r.T % 300 == 0 and r.N > 0 and r.S == pytest.approx(n1 / r.T) and 0 < r.production <= 1
    assert one.N == n1 and one.SO == 0 and n1 <= one.T <= n1 + 2 * 300 and one.messages == 0
    assert four.messages > 0 and four.N > n1


def test_the_deep_file_measures_the_fresh_cluster_with_stockfish_defaults():
    settings, variants = load_speedup("speedup-deep")
    fresh = next(v for v in variants if v.algorithm == "fresh_cluster")
    o = fresh.options
    assert (fresh.name, o.batch, o.threshold, o.adaptive, o.buffer, o.topology, o.latency, o.carry, o.realtime) == \
        ("fresh-cluster", 1000, 4, False, 16, "ring", 1000, True, False)
