"""The answer with real time charged: what each player pays in a real move beyond its nodes,
converted to nodes lost and then to Elo.

Why: every point is played on the node clock, where an ensemble's coordination and its
instances' slowdown inside a worker, and a cluster's exchange, cost nothing.  A cluster user
pays them.  At the move's time T = N / nps an ensemble keeps (1 − c_k / T) / s of its nodes
(c_k: coordination a move at k instances, s: an instance's slowdown in a worker), a cluster
that exchanges while it searches keeps (1 − r / T) × e, r one round trip a move to send the
position out and take the votes back, e the nodes per second it kept with the exchange on.
A fraction f of the nodes is worth slope × log2 f Elo, the slope the ceiling's (F: one search
of k × N) Elo per doubling at that budget, an extrapolation: doubling one search's nodes is
taken to be worth what doubling each worker's is.  Where c_k alone is longer than the move the
player cannot move in its time at all, and no charge is given.

The inputs are measurements (``data/calibration/realtime-costs.yaml``, each with its command and
its limits); the charged Elo moves the point's interval by the charge, whose own error is not in
it.  A point whose costs were never measured gets no charged Elo: it is not taken to pay nothing."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from base.config import ConfigError, FieldPath, YamlSource, as_mapping, check_keys, load_yaml
from base.resources import data_file
from tournaments.scaling.budgets import ENGINE_NPS, Gap, milliseconds
from tournaments.scaling.config import SweepConfig
from tournaments.scaling.report import PointResult, between, require_regions, trends

COSTS_FILE = "calibration/realtime-costs.yaml"
MARKERS = ("<!-- realtime: begin -->", "<!-- realtime: end -->")
CAVEATS = ("Measured on 2 cores over loopback: c_k at k > 2 with more instances than cores (time-sharing in it, "
           "no network), the exchange's e with 2 workers at 200,000 nodes; the fresh cluster's slowdown inside a "
           "worker is not charged (measured only on a loaded machine), its round trip r is loopback's measured "
           "0.25 ms for N and the modelled 10 ms for W.")


@dataclass(frozen=True)
class EnsembleCost:
    """An ensemble's measured costs at one node budget an instance."""

    slowdown: float  # an instance's search inside a worker against alone (same work)
    coordination_ms: tuple[tuple[int, float], ...]  # (k, ms a move outside the slowest search)

    def coordination(self, k: int) -> float | None:
        return dict(self.coordination_ms).get(k)


@dataclass(frozen=True)
class ExchangeCost:
    """A decomposition without shared memory: what its exchange and its move's round trip cost."""

    nps_kept: float  # nodes per second with the exchange on / off, the same workers
    round_trip_ms: float  # sending the position out and the answers back, once a move


@dataclass(frozen=True)
class RealTimeCosts:
    """Everything the charge reads, as measured (``data/calibration/realtime-costs.yaml``)."""

    ensemble: tuple[tuple[int, EnsembleCost], ...]  # (N, costs at N)
    players: tuple[tuple[str, ExchangeCost], ...]  # (player, its costs)
    source: str = ""

    def ensemble_at(self, nodes: int) -> EnsembleCost | None:
        return dict(self.ensemble).get(nodes)

    def exchange_of(self, player: str) -> ExchangeCost | None:
        return dict(self.players).get(player)


def _number(src: YamlSource, value: object, path: FieldPath, low: float, high: float = math.inf,
            above: bool = False) -> float | None:
    """A finite number in [low, high] (above low, with ``above``), else a problem at ``path``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and (value > low if above else value >= low) and value <= high
    if not ok:
        bound = f"above {low}" if above else f"at least {low}"
        src.problem(path, f"expected a number {bound}{'' if high == math.inf else f' and at most {high}'}, "
                          f"got {value!r}")
        return None
    return float(value)  # type: ignore[arg-type]


def _count(src: YamlSource, key: object, path: FieldPath) -> int | None:
    if isinstance(key, bool) or not isinstance(key, int) or key < 1:
        src.problem(path, f"expected a positive whole number as the key, got {key!r}")
        return None
    return key


def _ensemble(src: YamlSource, section: dict) -> list[tuple[int, EnsembleCost]]:
    check_keys(src, section, ("ensemble",), {"source", "budgets"})
    out = []
    for nodes, entry in (as_mapping(src, section.get("budgets"), ("ensemble", "budgets")) or {}).items():
        where = ("ensemble", "budgets", str(nodes))  # as the YAML index spells keys
        n = _count(src, nodes, where)
        entry = as_mapping(src, entry, where) or {}
        check_keys(src, entry, where, {"slowdown", "coordination_ms"})
        if "slowdown" not in entry or "coordination_ms" not in entry:
            src.problem(where, "needs both slowdown and coordination_ms")
            continue
        # Below 1 a worker would search faster than the process alone: a measurement to repeat.
        slowdown = _number(src, entry["slowdown"], where + ("slowdown",), 1.0)
        rows = []
        for k, ms in (as_mapping(src, entry["coordination_ms"], where + ("coordination_ms",)) or {}).items():
            kk = _count(src, k, where + ("coordination_ms", str(k)))
            value = _number(src, ms, where + ("coordination_ms", str(k)), 0.0)
            if kk is not None and value is not None:
                rows.append((kk, value))
        if n is not None and slowdown is not None:
            out.append((n, EnsembleCost(slowdown, tuple(sorted(rows)))))
    return out


def _players(src: YamlSource, section: dict) -> list[tuple[str, ExchangeCost]]:
    out = []
    for player, entry in section.items():
        where = ("players", str(player))
        entry = as_mapping(src, entry, where) or {}
        check_keys(src, entry, where, {"nps_kept", "round_trip_ms", "source"})
        if "nps_kept" not in entry or "round_trip_ms" not in entry:
            src.problem(where, "needs nps_kept (the fraction of a worker's nodes per second the exchange leaves) "
                               "and round_trip_ms (a move's dispatch and answers)")
            continue
        kept = _number(src, entry["nps_kept"], where + ("nps_kept",), 0.0, 1.0, above=True)
        trip = _number(src, entry["round_trip_ms"], where + ("round_trip_ms",), 0.0)
        if kept is not None and trip is not None:
            out.append((str(player), ExchangeCost(kept, trip)))
    return out


def load_costs(path: str | Path | None = None, text: str | None = None) -> RealTimeCosts:
    """Read the measured costs; every problem is raised at once with its file, line and field."""
    shipped = path is None and text is None
    src = load_yaml(data_file(COSTS_FILE) if shipped else path, text)
    data = as_mapping(src, src.data, ()) or {}
    check_keys(src, data, (), {"ensemble", "players"})
    for key in ("ensemble", "players"):
        if key not in data:
            src.problem((), f"no '{key}:' section: a charge without it would leave its players out unsaid")
    ensemble = _ensemble(src, as_mapping(src, data.get("ensemble"), ("ensemble",)) or {})
    players = _players(src, as_mapping(src, data.get("players"), ("players",)) or {})
    if src.problems:
        raise ConfigError(src.problems)
    return RealTimeCosts(tuple(sorted(ensemble)), tuple(sorted(players)),
                         f"data/{COSTS_FILE}" if shipped else src.name)


@dataclass(frozen=True)
class Charge:
    """One point in real time: the fraction of its nodes it keeps and what that costs in Elo."""

    point: PointResult
    nodes: int  # N, the budget of a worker
    kept: float | None  # None: no cost measured for this player, or it cannot move in its time
    in_time: bool  # False: its fixed costs alone are longer than the move
    slope: float | None  # the ceiling's Elo per doubling at this budget
    why: str  # where the fraction comes from, in a few words

    @property
    def elo(self) -> float | None:
        """The charge (<= 0), or None where the fraction or a positive slope is missing."""
        if self.kept is None or self.slope is None or self.slope <= 0:
            return None
        return self.slope * math.log2(self.kept)

    @property
    def charged(self) -> float | None:
        """The point's Elo with the charge taken off, or None (nothing measured, no move in time)."""
        charge = self.elo
        return None if charge is None or self.point.elo is None else self.point.elo.elo + charge


def kept_fraction(k: int, way: str | None, player: str | None, nodes: int, costs: RealTimeCosts,
                  nps: float = ENGINE_NPS) -> tuple[float | None, bool, str]:
    """(the fraction of its nodes a player at k keeps in a real move of N / nps, whether it can
    move in that time at all, why) for the way it spends its workers."""
    move = milliseconds(nodes, nps)
    if way == "ensemble":
        cost = costs.ensemble_at(nodes)
        c = None if cost is None else cost.coordination(k)
        if cost is None or c is None:
            return None, True, f"ensemble costs not measured at {nodes:,} nodes and k = {k}"
        why = f"(1 − {c:.1f} / {move:.1f} ms) / {cost.slowdown:.2f}"
        return ((1 - c / move) / cost.slowdown, True, why) if c < move else (None, False, why)
    exchange = costs.exchange_of(player) if way == "message_passing" and player is not None else None
    if exchange is not None:
        r, e = exchange.round_trip_ms, exchange.nps_kept
        why = f"(1 − {r:g} / {move:.1f} ms) × {e:.3f}"
        return ((1 - r / move) * e, True, why) if r < move else (None, False, why)
    return None, True, "not charged" if way in ("ceiling", None) else "not measured"


def ceiling_slope(sweep: SweepConfig, points: list[PointResult]) -> float | None:
    """The ceiling's Elo per doubling of k at this budget (its finished points, k = 1 at 0)."""
    if sweep.ceiling is None:
        return None
    found = [t for t in trends(sweep, points, min_points=2, baseline_at_one=True) if t.arm == sweep.ceiling]
    return found[0].per_doubling if found else None


def charges(sweep: SweepConfig, points: list[PointResult], costs: RealTimeCosts,
            nps: float = ENGINE_NPS) -> list[Charge]:
    """Every point with a way, charged at this sweep's budget."""
    ways = {a.key: a for a in sweep.arms if a.way}
    slope = ceiling_slope(sweep, points)
    out = []
    for p in points:
        arm = ways.get(p.arm)
        if arm is None or p.elo is None or not math.isfinite(p.elo.elo):
            continue
        kept, in_time, why = kept_fraction(p.k, arm.way, arm.player(p.k), sweep.nodes, costs, nps)
        out.append(Charge(p, sweep.nodes, kept, in_time, slope, why))
    return out


SIDES = ("message_passing", "ensemble")  # the two ways the question compares


@dataclass(frozen=True)
class ChargedGap:
    """At one budget and k: the best charged point of each side (None: no charged point), and
    the sides whose every measured player cannot move in its time."""

    decomposition: Charge | None
    ensemble: Charge | None
    late: tuple[str, ...] = ()

    @property
    def elo(self) -> float | None:
        d = None if self.decomposition is None else self.decomposition.charged
        e = None if self.ensemble is None else self.ensemble.charged
        return None if d is None or e is None else d - e

    def half_width(self) -> float:
        """1.96 × the gap's se: the node-only pair's, opening by opening (the charges are constants)."""
        assert self.decomposition is not None and self.ensemble is not None
        return Gap(self.decomposition.nodes, self.decomposition.point.k, self.decomposition.point,
                   self.ensemble.point).half_width


def charged_gap(found: list[Charge], sweep: SweepConfig, k: int) -> ChargedGap | None:
    """Each side's best point at k by charged Elo (with the shipped costs every ensemble at one N
    and k keeps the same fraction, so this is also its best by node-only Elo); None where no point
    at k has a measured cost."""
    ways = {a.key: a.way for a in sweep.arms}
    best: dict[str, tuple[float, Charge]] = {}
    late: set[str] = set()
    for c in found:
        way = ways.get(c.point.arm)
        if c.point.k != k or way is None or way not in SIDES:
            continue
        value = c.charged
        if not c.in_time:
            late.add(way)
        elif value is not None and (way not in best or value > best[way][0]):
            best[way] = (value, c)
    if not best and not late:
        return None
    side = {way: c for way, (_, c) in best.items()}
    return ChargedGap(side.get("message_passing"), side.get("ensemble"), tuple(sorted(late - side.keys())))


def _elo(value: float | None) -> str:
    return "—" if value is None else f"{value:+.0f}"


def _point_row(c: Charge, ms: float) -> str:
    e, p = c.point.elo, c.point
    assert e is not None
    running = "" if p.finished else f" ({p.games} games so far)"
    if not c.in_time:
        kept, charge, charged = "none", "cannot move in its time", "—"
    else:
        kept, charge, charged = f"{c.kept:.2f}", _elo(c.elo), "—"
        if c.charged is not None and c.elo is not None:
            charged = f"{c.charged:+.0f} [{e.low + c.elo:+.0f}, {e.high + c.elo:+.0f}]"
    return (f"| {c.nodes:,} ({ms:.0f} ms) | {p.k} | {p.arm}{p.k}{running} | {e.elo:+.0f} [{e.low:+.0f}, "
            f"{e.high:+.0f}] | {kept} | {c.why} | {charge} | {charged} |")


def _gap_row(g: ChargedGap, nodes: int, k: int, ms: float, slope: float | None) -> str:
    def side(c: Charge | None, way: str) -> str:
        if c is not None:
            return f"{c.point.arm}{k} {_elo(c.charged)}"
        return "cannot move in its time" if way in g.late else "—"
    gap = "—"
    if g.elo is not None:
        half = g.half_width()
        gap = f"{g.elo:+.0f} [{g.elo - half:+.0f}, {g.elo + half:+.0f}]"
    elif g.decomposition is not None and "ensemble" in g.late:
        gap = "decompose: no ensemble moves in time"
    return (f"| {nodes:,} ({ms:.0f} ms) | {k} | {_elo(slope)} | {side(g.decomposition, 'message_passing')} | "
            f"{side(g.ensemble, 'ensemble')} | {gap} |")


def table(sweeps: list[SweepConfig], collected: list[list[PointResult]], costs: RealTimeCosts,
          nps: float = ENGINE_NPS) -> list[str]:
    """Markdown: every charged point beside its node-only Elo, the points left uncharged, then the
    gap with real time charged."""
    lines = [f"Real time charged ({costs.source}; move times at {nps / 1e6:.2f} M nodes/s): the fraction of its "
             "nodes a player keeps in a real move, worth the ceiling's Elo per doubling × log2 of it (an "
             "extrapolation, furthest where little is kept); the interval is the point's moved by the charge, "
             "whose own error is not in it. " + CAVEATS, "",
             "| N (time a move) | k | point | node-only Elo [95%] | nodes kept | from | charge | charged Elo [95%] |",
             "|---|---|---|---|---|---|---|---|"]
    gap_rows, uncharged = [], []
    for sweep, points in zip(sweeps, collected):
        found = charges(sweep, points, costs, nps)
        ms = milliseconds(sweep.nodes, nps)
        for c in sorted(found, key=lambda c: (c.point.k, c.point.arm)):
            if c.kept is None and c.in_time:
                if c.why == "not measured":
                    uncharged.append(f"{c.point.arm}{c.point.k} at {ms:.0f} ms")
                continue
            lines.append(_point_row(c, ms))
        slope = found[0].slope if found else None
        for k in sweep.workers:
            g = charged_gap(found, sweep, k)
            if g is not None:
                gap_rows.append(_gap_row(g, sweep.nodes, k, ms, slope))
    if uncharged:
        lines += ["", "Not charged, no cost measured (so no charged Elo, not a free pass): "
                  + ", ".join(uncharged) + "."]
    lines += ["", "The gap with real time charged (each side's best by charged Elo; the interval the node-only "
              "pair's, opening by opening; a running point's estimate as it stands):", "",
              "| N (time a move) | k | ceiling's Elo per doubling | no shared memory, charged | ensemble, charged | "
              "gap, charged |", "|---|---|---|---|---|---|"] + gap_rows
    return lines


def write_realtime(sweeps: list[SweepConfig], collected: list[list[PointResult]], folder: Path,
                   document: Path | None = None, costs: RealTimeCosts | None = None,
                   nps: float = ENGINE_NPS) -> Path:
    """``folder``/realtime.md from the points collected; with ``document``, the tables also go
    between its realtime markers."""
    costs = costs or load_costs()
    lines = table(sweeps, collected, costs, nps)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "realtime.md"
    names = ", ".join(f"`{s.name}` ({s.source})" for s in sweeps)
    path.write_text("\n".join([f"# Real time charged: {names}", ""] + lines) + "\n")
    if document is not None:
        document.write_text(between(require_regions(document, MARKERS), *MARKERS, lines))
    return path
