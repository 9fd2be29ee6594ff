"""The answer with real time charged: what each player pays in a real move beyond its nodes,
converted to nodes lost and then to Elo.

Why: every point is played on the node clock, where an ensemble's coordination and its
instances' slowdown inside a worker, and a cluster's exchange, cost nothing.  A cluster user
pays them.  At the move's time T = N / nps an ensemble keeps (1 − c_k / T) / s of its nodes
(c_k: coordination a move at k instances, s: an instance's slowdown in a worker), a cluster
that exchanges while it searches keeps the nodes per second it measured with the exchange on.
A fraction f of the nodes is worth slope × log2 f Elo, the slope the ceiling's (F: one search
of k × N) Elo per doubling at that budget, an extrapolation: doubling one search's nodes is
taken to be worth what doubling each worker's is.  Where c_k alone is longer than the move the
player cannot move in its time at all, and no charge is given.

The inputs are measurements (``data/calibration/realtime-costs.yaml``, each with its command);
the charged Elo moves the point's interval by the charge, whose own error is not in it."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from base.config import ConfigError, YamlSource, as_mapping, check_keys, load_yaml
from base.resources import data_file
from tournaments.scaling.budgets import ENGINE_NPS, Gap, milliseconds
from tournaments.scaling.config import SweepConfig
from tournaments.scaling.report import PointResult, between, trends

COSTS_FILE = "calibration/realtime-costs.yaml"
MARKERS = ("<!-- realtime: begin -->", "<!-- realtime: end -->")


@dataclass(frozen=True)
class EnsembleCost:
    """An ensemble's measured costs at one node budget an instance."""

    slowdown: float  # an instance's search inside a worker against alone (same work)
    coordination_ms: tuple[tuple[int, float], ...]  # (k, ms a move outside the slowest search)

    def coordination(self, k: int) -> float | None:
        return dict(self.coordination_ms).get(k)


@dataclass(frozen=True)
class RealTimeCosts:
    """Everything the charge reads, as measured (``data/calibration/realtime-costs.yaml``)."""

    ensemble: tuple[tuple[int, EnsembleCost], ...]  # (N, costs at N)
    nps_kept: tuple[tuple[str, float], ...]  # (player, fraction of nodes per second kept)
    source: str = ""

    def ensemble_at(self, nodes: int) -> EnsembleCost | None:
        return dict(self.ensemble).get(nodes)

    def kept_by(self, player: str) -> float | None:
        return dict(self.nps_kept).get(player)


def _positive(src: YamlSource, value: object, path: tuple, ceiling: float | None = None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0 \
            or (ceiling is not None and value > ceiling):
        bound = f" and at most {ceiling}" if ceiling is not None else ""
        src.problem(path, f"expected a number above 0{bound}, got {value!r}")
        return None
    return float(value)


def _count(src: YamlSource, key: object, path: tuple) -> int | None:
    if isinstance(key, bool) or not isinstance(key, int) or key < 1:
        src.problem(path, f"expected a positive whole number as the key, got {key!r}")
        return None
    return key


def load_costs(path: str | Path | None = None, text: str | None = None) -> RealTimeCosts:
    """Read the measured costs; every problem is raised at once with its file, line and field."""
    shipped = path is None and text is None
    src = load_yaml(data_file(COSTS_FILE) if shipped else path, text)
    data = as_mapping(src, src.data, ()) or {}
    check_keys(src, data, (), {"ensemble", "players"})
    ensemble: list[tuple[int, EnsembleCost]] = []
    section = as_mapping(src, data.get("ensemble"), ("ensemble",)) or {}
    check_keys(src, section, ("ensemble",), {"source", "budgets"})
    for nodes, entry in (as_mapping(src, section.get("budgets"), ("ensemble", "budgets")) or {}).items():
        where = ("ensemble", "budgets", str(nodes))  # as the YAML index spells keys
        n = _count(src, nodes, where)
        entry = as_mapping(src, entry, where) or {}
        check_keys(src, entry, where, {"slowdown", "coordination_ms"})
        if "slowdown" not in entry or "coordination_ms" not in entry:
            src.problem(where, "needs both slowdown and coordination_ms")
            continue
        slowdown = _positive(src, entry["slowdown"], where + ("slowdown",))
        rows = []
        for k, ms in (as_mapping(src, entry["coordination_ms"], where + ("coordination_ms",)) or {}).items():
            kk = _count(src, k, where + ("coordination_ms", str(k)))
            value = _positive(src, ms, where + ("coordination_ms", str(k)))
            if kk is not None and value is not None:
                rows.append((kk, value))
        if n is not None and slowdown is not None:
            ensemble.append((n, EnsembleCost(slowdown, tuple(sorted(rows)))))
    kept: list[tuple[str, float]] = []
    for player, entry in (as_mapping(src, data.get("players"), ("players",)) or {}).items():
        where = ("players", player)
        entry = as_mapping(src, entry, where) or {}
        check_keys(src, entry, where, {"nps_kept", "source"})
        if "nps_kept" not in entry:
            src.problem(where, "needs nps_kept (the fraction of a worker's nodes per second the exchange leaves)")
            continue
        value = _positive(src, entry["nps_kept"], where + ("nps_kept",), ceiling=1.0)
        if value is not None:
            kept.append((str(player), value))
    if src.problems:
        raise ConfigError(src.problems)
    return RealTimeCosts(tuple(sorted(ensemble)), tuple(sorted(kept)), f"data/{COSTS_FILE}" if shipped else src.name)


@dataclass(frozen=True)
class Charge:
    """One point in real time: the fraction of its nodes it keeps and what that costs in Elo."""

    point: PointResult
    nodes: int  # N, the budget of a worker
    kept: float | None  # None: no cost measured for this player; <= 0: cannot move in its time
    slope: float | None  # the ceiling's Elo per doubling at this budget
    why: str  # where the fraction comes from, in a few words

    @property
    def elo(self) -> float | None:
        """The charge (<= 0), or None where the fraction or the slope is missing or the move is lost."""
        if self.kept is None or self.kept <= 0 or self.slope is None:
            return None
        return self.slope * math.log2(min(self.kept, 1.0))

    @property
    def charged(self) -> float | None:
        """The point's Elo with the charge taken off; None where no cost was measured (a player
        whose costs are unknown is not taken to pay nothing) or where it cannot move in time."""
        charge = self.elo
        return None if charge is None or self.point.elo is None else self.point.elo.elo + charge


def kept_fraction(point: PointResult, way: str | None, player: str | None, nodes: int, costs: RealTimeCosts,
                  nps: float = ENGINE_NPS) -> tuple[float | None, str]:
    """The fraction of its nodes a point's player keeps in a real move of N / nps, and why."""
    if way == "ensemble":
        cost = costs.ensemble_at(nodes)
        c = None if cost is None else cost.coordination(point.k)
        if cost is None or c is None:
            return None, f"ensemble costs not measured at {nodes:,} nodes and k = {point.k}"
        move = milliseconds(nodes, nps)
        return (1 - c / move) / cost.slowdown, f"(1 − {c:.1f} / {move:.1f} ms) / {cost.slowdown:.2f}"
    if way == "message_passing" and player is not None:
        kept = costs.kept_by(player)
        if kept is not None:
            return kept, f"exchange keeps {kept:.3f} of the nodes a second"
        return None, "not measured"
    return None, "not charged" if way in ("ceiling", None) else "not measured"


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
        kept, why = kept_fraction(p, arm.way, arm.player(p.k), sweep.nodes, costs, nps)
        out.append(Charge(p, sweep.nodes, kept, slope, why))
    return out


def charged_gap(found: list[Charge], sweep: SweepConfig, k: int) -> tuple[Charge, Charge, float, float] | None:
    """(best charged decomposition without shared memory, best charged ensemble, gap, 1.96 se):
    each the best of its way by charged Elo; the interval is the node-only pair's, opening by
    opening (the charges are constants)."""
    ways = {a.key: a.way for a in sweep.arms}
    best: dict[str, Charge] = {}
    for c in found:
        way = ways.get(c.point.arm)
        if c.point.k != k or way not in ("message_passing", "ensemble") or c.charged is None:
            continue
        if way not in best or c.charged > best[way].charged:  # type: ignore[operator]
            best[way] = c
    if len(best) < 2:
        return None
    d, e = best["message_passing"], best["ensemble"]
    return d, e, d.charged - e.charged, Gap(sweep.nodes, k, d.point, e.point).half_width  # type: ignore[operator]


def _elo(value: float | None) -> str:
    return "—" if value is None else f"{value:+.0f}"


def table(sweeps: list[SweepConfig], collected: list[list[PointResult]], costs: RealTimeCosts,
          nps: float = ENGINE_NPS) -> list[str]:
    """Markdown: every charged point beside its node-only Elo, then the gap with real time charged."""
    lines = [f"Real time charged ({costs.source}; move times at {nps / 1e6:.2f} M nodes/s): the fraction of its "
             "nodes a player keeps in a real move, worth the ceiling's Elo per doubling × log2 of it (an "
             "extrapolation); the interval is the point's, moved by the charge. Measured on 2 cores over loopback.",
             "", "| N (time a move) | k | point | node-only Elo [95%] | nodes kept | from | charge | charged Elo [95%] |",
             "|---|---|---|---|---|---|---|---|"]
    gap_rows = []
    for sweep, points in zip(sweeps, collected):
        found = charges(sweep, points, costs, nps)
        slope = ceiling_slope(sweep, points)
        ms = milliseconds(sweep.nodes, nps)
        for c in sorted(found, key=lambda c: (c.point.k, c.point.arm)):
            if c.kept is None:
                continue
            e = c.point.elo
            running = "" if c.point.finished else f" ({c.point.games} games so far)"
            if c.kept <= 0:
                kept, charge, charged = "none", "cannot move in its time", "—"
            else:
                kept, charge = f"{c.kept:.2f}", _elo(c.elo)
                charged = "—" if c.charged is None else \
                    f"{c.charged:+.0f} [{e.low + c.elo:+.0f}, {e.high + c.elo:+.0f}]"  # type: ignore[operator]
            lines.append(f"| {sweep.nodes:,} ({ms:.0f} ms) | {c.point.k} | {c.point.arm}{c.point.k}{running} | "
                         f"{e.elo:+.0f} [{e.low:+.0f}, {e.high:+.0f}] | {kept} | {c.why} | {charge} | {charged} |")
        for k in sweep.workers:
            g = charged_gap(found, sweep, k)
            if g is None:
                continue
            d, e, gap, half = g
            slope_text = "—" if slope is None else f"{slope:+.0f}"
            gap_rows.append(f"| {sweep.nodes:,} ({ms:.0f} ms) | {k} | {slope_text} | {d.point.arm}{k} {_elo(d.charged)} | "
                            f"{e.point.arm}{k} {_elo(e.charged)} | {gap:+.0f} [{gap - half:+.0f}, {gap + half:+.0f}] |")
    lines += ["", "The gap with real time charged (each way's best by charged Elo; the interval the node-only pair's, "
              "opening by opening; a running point's estimate as it stands):", "",
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
        text = document.read_text()
        if MARKERS[0] not in text or MARKERS[1] not in text:
            raise ValueError(f"{document}: no '{MARKERS[0]}' … '{MARKERS[1]}' markers to put the tables between")
        document.write_text(between(text, *MARKERS, lines))
    return path
