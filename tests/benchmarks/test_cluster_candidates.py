"""benchmarks/cluster_candidates.py: the yardstick (one worker alone) and the spread it reports."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.cluster_candidates import CANDIDATES, measure, spread  # noqa: E402

FEN = "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10"


def test_spread_is_median_and_the_5_and_95_percent_points():
    assert spread([5.0]) == "5 [5, 5]"
    assert spread([float(v) for v in range(1, 22)]) == "11 [1.1, 20.9]"


def test_one_lazy_worker_is_the_yardstick_itself():
    # The lazy cluster with one worker is the full engine alone at N: no depth gained, N spent.
    row = measure("lazy-cluster-in-process", {}, 1, [FEN], 3000)
    assert row["gain"] == "0 [0, 0]" and row["nodes"] == "3000 [3000, 3000]" and row["shallower"] == 0


def test_a_master_worker_candidate_spends_no_more_than_its_clock():
    label, name, overrides = next(c for c in CANDIDATES if c[1] == "root-split")
    row = measure(name, overrides, 2, [FEN], 3000)
    assert float(row["nodes"].split()[0]) <= 2 * 3000 + 2 * 1000  # k × N, and at most a slice's overrun each
