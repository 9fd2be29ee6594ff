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
  fresh-cluster: {nps_kept: 0.5, round_trip_ms: 1.0}
"""
S100, S200 = (1 / (1 + 10 ** (-elo / 400)) for elo in (100, 200))  # the scores of +100 and +200 Elo


def sweep(workers: str = "[2, 4]"):
    """A sweep at 10,000 nodes whose ceiling F starts at k = 2 (at k = 1 it is the baseline)."""
    text = TEXT.format(name="small", nodes=10_000).replace("workers: [4]", f"ceiling: F\nworkers: {workers}")
    return load_sweep(text=text.replace("way: ceiling}", "way: ceiling, from: 2}"))


def test_the_ceilings_slope_is_its_elo_per_doubling_with_k_1_at_0():
    assert ceiling_slope(sweep(), [point("F", S100, k=2), point("F", S200, k=4)]) == pytest.approx(100)
    # The map plays no k = 1: its one finished ceiling point, F4 at +200, still gives 100 a doubling.
    assert ceiling_slope(sweep("[4, 16]"), [point("F", S200, k=4)]) == pytest.approx(100)
    assert ceiling_slope(sweep(), [point("C", 0.6, k=2)]) is None  # no ceiling point: no slope, no charge


def test_an_ensemble_keeps_the_move_less_its_coordination_over_its_slowdown():
    costs = load_costs(text=COSTS)
    # A 5 ms move at 2 M nodes/s; k = 2: (1 - 1.0 / 5) / 1.25 = 0.64 of its nodes.
    kept, in_time, why = kept_fraction(2, "ensemble", "scaling-c-2", 10_000, costs, nps=2e6)
    assert kept == pytest.approx(0.64) and in_time and "1.0 / 5.0 ms" in why
    # k = 4: 6 ms of coordination is longer than the move.
    assert kept_fraction(4, "ensemble", "scaling-c-4", 10_000, costs, nps=2e6)[:2] == (None, False)
    # The fresh cluster: (1 - 1.0 / 5) x 0.5 = 0.4.
    kept, in_time, _ = kept_fraction(2, "message_passing", "fresh-cluster", 10_000, costs, nps=2e6)
    assert kept == pytest.approx(0.4) and in_time
    # Unmeasured budget, unmeasured player, the ceiling: no fraction at all.
    assert kept_fraction(4, "ensemble", "x", 100_000, costs)[:2] == (None, True)
    assert kept_fraction(2, "message_passing", "lazy-cluster-in-process", 10_000, costs)[2] == "not measured"
    assert kept_fraction(2, "ceiling", "MBXKPAR", 10_000, costs) == (None, True, "not charged")


def test_charges_and_the_charged_gap_by_hand():
    from dataclasses import replace

    from tournaments.scaling.budgets import Gap
    s, costs = sweep(), load_costs(text=COSTS)
    n2 = replace(point("N", 0.60, k=2), pairs=tuple(enumerate([1, 0.5, 0.75, 0.5])))
    c2 = replace(point("C", 0.70, k=2), pairs=tuple(enumerate([0.75, 0.5, 0.5, 0.25])))
    points = [point("F", S100, k=2), point("F", S200, k=4), c2, n2, point("L", 0.65, k=2), point("C", 0.70, k=4),
              point("N", 0.55, k=4)]
    found = {(c.point.arm, c.point.k): c for c in charges(s, points, costs, nps=2e6)}
    # C2: 100 × log2 0.64 = -64.39; N2: 100 × log2 0.4 = -132.19.
    assert found["C", 2].elo == pytest.approx(-64.386, abs=0.001)
    assert found["N", 2].elo == pytest.approx(-132.193, abs=0.001)
    assert found["N", 2].charged == pytest.approx(elo_from_score(0.60) - 132.193, abs=0.001)
    assert found["L", 2].charged is None  # its costs were never measured: it is not taken to pay nothing
    assert found["C", 4].charged is None and not found["C", 4].in_time
    g = charged_gap(list(found.values()), s, 2)
    assert (g.decomposition.point.arm, g.ensemble.point.arm) == ("N", "C")  # L left out, its Elo higher
    assert g.elo == pytest.approx(elo_from_score(0.60) - 132.193 - (elo_from_score(0.70) - 64.386), abs=0.001)
    # The interval is the node-only pair's, taken opening by opening.
    assert g.half_width() == Gap(10_000, 2, n2, c2).half_width
    late = charged_gap(list(found.values()), s, 4)
    assert late.ensemble is None and late.late == ("ensemble",) and late.elo is None
    assert late.decomposition.point.arm == "N"


def test_the_table_shows_both_and_says_when_a_player_cannot_move():
    s, costs = sweep(), load_costs(text=COSTS)
    points = [point("F", S100, k=2), point("F", S200, k=4), point("C", 0.70, k=2), point("N", 0.60, k=2),
              point("C", 0.70, k=4), point("N", 0.55, k=4), point("L", 0.6, k=2)]
    lines = table([s], [points], costs, nps=2e6)
    c2 = next(line for line in lines if "| C2 |" in line)
    e = point("C", 0.70, k=2).elo
    assert "| 0.64 |" in c2 and "| -64 |" in c2
    assert c2.endswith(f"| {e.elo - 64.386:+.0f} [{e.low - 64.386:+.0f}, {e.high - 64.386:+.0f}] |")
    assert "cannot move in its time" in next(line for line in lines if "| C4 |" in line)
    assert any(line.startswith("| 10,000 (5 ms) | 2 | +100 | N2 ") for line in lines)
    assert any(line.startswith("| 10,000 (5 ms) | 4 | +100 | N4 ") and "no ensemble moves in time" in line
               for line in lines)
    assert any("no cost measured" in line and "L2 at 5 ms" in line for line in lines)


@pytest.mark.parametrize("text, where", [
    ("ensemble: {}\nplayers:\n  fresh-cluster: {nps_kept: 1.5, round_trip_ms: 1}\n",
     "<text>:3: players.fresh-cluster.nps_kept"),
    ("ensemble: {}\nplayers:\n  fresh-cluster: {kept: 0.5}\n", "<text>:3: players.fresh-cluster.kept"),
    ("ensemble: {}\nplayers:\n  fresh-cluster: {nps_kept: .nan, round_trip_ms: 1}\n", "nps_kept: expected a number"),
    ("players: {}\nensemble:\n  budgets:\n    10000: {slowdown: 1.2}\n", "<text>:4: ensemble.budgets.10000: needs both"),
    ("players: {}\nensemble:\n  budgets:\n    10000: {slowdown: 0.9, coordination_ms: {2: 1}}\n",
     "<text>:4: ensemble.budgets.10000.slowdown: expected a number at least 1.0"),
    ("players: {}\nensemble:\n  budgets:\n    10000: {slowdown: 1.2, coordination_ms: {2: -1}}\n",
     "<text>:4: ensemble.budgets.10000.coordination_ms.2"),
    ("players: {}\nensemble: [1, 2]\n", "<text>:2: ensemble: expected a mapping"),
    ("players: {}\n", "no 'ensemble:' section"),
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
    trip = float(re.search(r"job round trip, 16 entries[^|]*\| ([\d.]+)", realtime)[1])
    n, w = costs.exchange_of("fresh-cluster"), costs.exchange_of("fresh-cluster-10ms")
    assert n.nps_kept == w.nps_kept == pytest.approx(on / off, abs=5e-5) and n.round_trip_ms == trip
    assert w.round_trip_ms == 10.0  # the round trip W's games model, not a measurement
    assert costs.source == "data/calibration/realtime-costs.yaml"


def test_the_budgets_command_refuses_bad_costs_or_a_page_without_markers_before_writing(tmp_path, monkeypatch,
                                                                                       capsys):
    from concilio.cli import main
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(TEXT.format(name="s", nodes=1000))
    (tmp_path / "bad.yaml").write_text("ensemble: {}\nplayers:\n  fresh-cluster: {nps_kept: 2, round_trip_ms: 1}\n")
    assert main(["scaling", "budgets", "s.yaml", "--output", "out", "--costs", "bad.yaml"]) == 2
    assert "bad.yaml:3: players.fresh-cluster.nps_kept" in capsys.readouterr().err
    page = tmp_path / "page.md"
    page.write_text("<!-- budgets: begin -->\n<!-- budgets: end -->\n")  # no realtime region
    assert main(["scaling", "budgets", "s.yaml", "--output", "out", "--document", "page.md"]) == 2
    assert "<!-- realtime: begin -->" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and page.read_text().count("\n") == 2  # nothing written
    page.write_text("<!-- budgets: begin -->\n<!-- budgets: end -->\n<!-- realtime: begin -->\n<!-- realtime: end -->\n")
    assert main(["scaling", "budgets", "s.yaml", "--output", "out", "--document", "page.md"]) == 0
    assert (tmp_path / "out" / "realtime.md").read_text().startswith("# Real time charged: `s`")
    assert "The gap with real time charged" in page.read_text()
