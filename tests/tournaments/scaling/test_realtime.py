"""The real-time charge: nodes a real move leaves each player, and their price in Elo at the
ceiling's slope, checked by hand; the shipped costs against the documents that measured them."""
import math
import re
from pathlib import Path

import pytest

from base.config import ConfigError
from tests.tournaments.scaling.points import TEXT, point
from tournaments.scaling.config import load_sweep
from tournaments.scaling.realtime import (ceiling_slope, charged_gap, charges, kept_fraction, load_costs,
                                          table)
from tournaments.statistics.elo import elo_from_score

ROOT = Path(__file__).resolve().parents[3]
COSTS = """\
ensemble:
  budgets:
    10000: {slowdown: 1.25, coordination_ms: {2: 1.0, 4: 6.0}}
players:
  fresh-cluster: {nps_kept: 0.5}
"""


S100, S200 = (1 / (1 + 10 ** (-elo / 400)) for elo in (100, 200))  # the scores of +100 and +200 Elo


def sweep():
    """A sweep at 10,000 nodes with its ceiling F, at 2 and 4 workers."""
    return load_sweep(text=TEXT.format(name="small", nodes=10_000).replace("workers: [4]",
                                                                             "ceiling: F\nworkers: [2, 4]"))


def test_the_ceilings_slope_is_its_elo_per_doubling_with_k_1_at_0():
    s = sweep()
    # F at +100 (k = 2) and +200 (k = 4) lie on one line with k = 1 at 0: 100 Elo a doubling.
    assert ceiling_slope(s, [point("F", S100, k=2), point("F", S200, k=4)]) == pytest.approx(100)
    assert ceiling_slope(s, [point("C", 0.6, k=2)]) is None  # no ceiling point: no slope, no charge


def test_an_ensemble_keeps_the_move_less_its_coordination_over_its_slowdown():
    costs = load_costs(text=COSTS)
    # A 5 ms move at 2 M nodes/s; k = 2: (1 - 1.0 / 5) / 1.25 = 0.64 of its nodes.
    kept, why = kept_fraction(point("C", 0.6, k=2), "ensemble", "scaling-c-2", 10_000, costs, nps=2e6)
    assert kept == pytest.approx(0.64) and "1.0 / 5.0 ms" in why
    # k = 4: 6 ms of coordination is longer than the move: nothing left.
    kept, _ = kept_fraction(point("C", 0.6, k=4), "ensemble", "scaling-c-4", 10_000, costs, nps=2e6)
    assert kept < 0
    # Unmeasured budget, unmeasured player, the ceiling: no fraction at all.
    assert kept_fraction(point("C", 0.6), "ensemble", "x", 100_000, costs)[0] is None
    assert kept_fraction(point("L", 0.6), "message_passing", "lazy-cluster-in-process", 10_000, costs)[0] is None
    assert kept_fraction(point("F", 0.6), "ceiling", "MBXKPAR", 10_000, costs) == (None, "not charged")
    assert kept_fraction(point("N", 0.6), "message_passing", "fresh-cluster", 10_000, costs)[0] == 0.5


def test_charges_and_the_charged_gap_by_hand():
    s, costs = sweep(), load_costs(text=COSTS)
    points = [point("F", S100, k=2), point("F", S200, k=4), point("C", 0.70, k=2), point("N", 0.60, k=2),
              point("L", 0.65, k=2), point("C", 0.70, k=4), point("N", 0.55, k=4)]
    found = {(c.point.arm, c.point.k): c for c in charges(s, points, costs, nps=2e6)}
    # C2: 100 × log2 0.64 = -64.39; N2: 100 × log2 0.5 = -100.
    assert found["C", 2].elo == pytest.approx(100 * math.log2(0.64), abs=0.05)
    assert found["N", 2].elo == pytest.approx(-100, abs=0.05)
    assert found["N", 2].charged == pytest.approx(elo_from_score(0.60) - 100, abs=0.05)
    assert found["L", 2].charged is None  # its costs were never measured: it is not taken to pay nothing
    assert found["C", 4].charged is None  # cannot move in its time
    d, e, gap, half = charged_gap(list(found.values()), s, 2)
    assert (d.point.arm, e.point.arm) == ("N", "C")  # L left out, although its node-only Elo is higher
    assert gap == pytest.approx(elo_from_score(0.60) - 100 - (elo_from_score(0.70) - 64.386), abs=0.05)
    assert half > 0
    assert charged_gap(list(found.values()), s, 4) is None  # C4 has no charged Elo: no ensemble to compare


def test_the_table_shows_both_and_says_when_a_player_cannot_move():
    s, costs = sweep(), load_costs(text=COSTS)
    points = [point("F", S100, k=2), point("F", S200, k=4), point("C", 0.70, k=2), point("N", 0.60, k=2),
              point("C", 0.70, k=4)]
    lines = table([s], [points], costs, nps=2e6)
    c2 = next(line for line in lines if "| C2 |" in line)
    assert "| 0.64 |" in c2 and "| -64 |" in c2 and f"| {elo_from_score(0.70) - 64.39:+.0f} [" in c2
    assert "cannot move in its time" in next(line for line in lines if "| C4 |" in line)
    assert any(line.startswith("| 10,000 (5 ms) | 2 | +100 | N2 ") for line in lines)


@pytest.mark.parametrize("text, where", [
    ("players:\n  fresh-cluster: {nps_kept: 1.5}\n", "<text>:2: players.fresh-cluster.nps_kept"),
    ("players:\n  fresh-cluster: {kept: 0.5}\n", "<text>:2: players.fresh-cluster.kept"),
    ("ensemble:\n  budgets:\n    10000: {slowdown: 1.2}\n", "<text>:3: ensemble.budgets.10000: needs both"),
    ("ensemble:\n  budgets:\n    10000: {slowdown: 1.2, coordination_ms: {2: -1}}\n",
     "<text>:3: ensemble.budgets.10000.coordination_ms.2"),
    ("ensemble: [1, 2]\n", "<text>:1: ensemble: expected a mapping"),
])
def test_a_bad_costs_file_names_its_line_and_field(text, where):
    with pytest.raises(ConfigError) as error:
        load_costs(text=text)
    assert where in str(error.value)


def test_the_shipped_costs_are_the_numbers_the_benchmarks_printed():
    """data/calibration/realtime-costs.yaml copies the measured columns of two result pages:
    a re-measurement that updates one and not the other fails here."""
    costs = load_costs()
    page = (ROOT / "docs/results/scaling/overhead.md").read_text()
    for nodes in (100_000, 10_000):
        block = page.split(f"## N = {nodes:,} nodes an instance")[1].split("```")[1]
        rows = {int(m[0]): (float(m[1]), float(m[2])) for m in
                re.findall(r"^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+%\s+([\d.]+)\s+[\d.]+\s+([\d.]+)", block, re.M)}
        cost = costs.ensemble_at(nodes)
        assert {k: ms for k, (ms, _) in rows.items()} == dict(cost.coordination_ms)
        assert cost.slowdown == rows[2][1]  # two instances: the size that does not oversubscribe 2 cores
    realtime = (ROOT / "docs/results/fresh-cluster/realtime.md").read_text()
    on, off = (int(re.search(rf"worker nps, exchange {state}[^|]*\| ([\d,]+)", realtime)[1].replace(",", ""))
               for state in ("on", "off"))
    assert costs.kept_by("fresh-cluster") == pytest.approx(on / off, abs=5e-5)
    assert costs.kept_by("fresh-cluster-10ms") == costs.kept_by("fresh-cluster")
    assert costs.source == "data/calibration/realtime-costs.yaml"
