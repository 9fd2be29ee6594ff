"""The answer across budgets: sweeps that differ only in N (``sweep`` at 10,000 nodes a worker,
``map`` at 100,000), read side by side by time per move.

Each arm says how it spends its workers (``way`` in the sweep file).  At every budget and k
this takes the best arm of each way by its point estimate and reports, for the question a
cluster user asks, the gap (best decomposition without shared memory) − (best ensemble), with
an interval taken opening by opening (both points played the same openings).  Picking the best by its own estimate
favours it a little (a winner's curse): the duels, not this table, settle a close pair.

Node budgets become milliseconds at one measured speed, stated wherever a time is printed."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tournaments.scaling.config import SweepConfig
from tournaments.scaling.report import PointResult, between, collect, require_regions
from tournaments.statistics.elo import Z95, EloEstimate
from tournaments.statistics.stats import mean_se

# The full engine's speed on one core of the machine the points were played on (``concilio
# bench``; 1.86-1.95 M nodes/s on the bench positions, docs/results/strength.md).
ENGINE_NPS = 1_900_000
MARKERS = ("<!-- budgets: begin -->", "<!-- budgets: end -->")
WAY_LABELS = {"ceiling": "ceiling (one search of k × N)", "shared_memory": "decomposition, shared memory",
              "message_passing": "decomposition, no shared memory", "ensemble": "ensemble (knowledge)"}


def _slope(score: float) -> float:
    """d Elo / d score at ``score`` (kept off 0 and 1, where it is infinite)."""
    s = min(max(score, 1e-3), 1 - 1e-3)
    return 400 / (math.log(10) * s * (1 - s))


def elo_se(e: EloEstimate) -> float:
    """A point's standard error in Elo (the delta method at its score)."""
    return e.se * _slope(e.score)


@dataclass(frozen=True)
class Gap:
    """(best decomposition without shared memory) − (best ensemble) at one budget and k: each the
    best point of its way, with an estimate."""

    nodes: int
    k: int
    decomposition: PointResult
    ensemble: PointResult

    @property
    def elo(self) -> float:
        return self.decomposition.elo.elo - self.ensemble.elo.elo

    @property
    def half_width(self) -> float:
        """1.96 × the gap's standard error: opening by opening where both points carry their
        openings' scores (they played the same openings, so what an opening gives both cancels;
        each score's Elo linearised at its point, the delta method), else the two errors combined
        as if independent."""
        shared = self.decomposition.shared_openings(self.ensemble)
        if len(shared) < 2:
            return Z95 * math.hypot(elo_se(self.decomposition.elo), elo_se(self.ensemble.elo))
        slope_a, slope_b = _slope(self.decomposition.elo.score), _slope(self.ensemble.elo.score)
        return Z95 * mean_se([slope_a * a - slope_b * b for a, b in shared])[1]


def milliseconds(nodes: int, nps: float = ENGINE_NPS) -> float:
    return 1000.0 * nodes / nps


def best_by_way(sweep: SweepConfig, points: list[PointResult]) -> dict[tuple[int, str], PointResult]:
    """(k, way) -> the best point of that way at k (points without an estimate left out)."""
    ways = {a.key: a.way for a in sweep.arms if a.way}
    best: dict[tuple[int, str], PointResult] = {}
    for p in points:
        way = ways.get(p.arm)
        if way is None or p.elo is None or not math.isfinite(p.elo.elo):
            continue
        here = best.get((p.k, way))
        if here is None or p.elo.elo > here.elo.elo:
            best[(p.k, way)] = p
    return best


def gap_at(nodes: int, k: int, best: dict[tuple[int, str], PointResult]) -> Gap | None:
    d, e = best.get((k, "message_passing")), best.get((k, "ensemble"))
    return None if d is None or e is None else Gap(nodes, k, d, e)


def gaps(sweeps: list[SweepConfig], collected: list[list[PointResult]]) -> list[Gap]:
    found = []
    for sweep, points in zip(sweeps, collected):
        best = best_by_way(sweep, points)
        found += [g for k in sweep.workers if (g := gap_at(sweep.nodes, k, best)) is not None]
    return found


def _cell(b: PointResult | None) -> str:
    if b is None:
        return "—"
    e = b.elo
    games = "" if b.finished else f", {b.games} games so far"
    return f"{b.arm} {e.elo:+.0f} [{e.low:+.0f}, {e.high:+.0f}]{games}"


def table(sweeps: list[SweepConfig], collected: list[list[PointResult]], nps: float = ENGINE_NPS) -> list[str]:
    """Markdown: one row per budget and k, the best point of each way and the gap."""
    lines = [f"Times per move at {nps / 1e6:.2f} M nodes/s (the full engine on one core). Each cell: the best "
             "point of that way (arm, Elo against the full engine at N, 95% interval); the gap: its "
             "estimate ± 1.96 × its standard error, opening by opening (the same openings, so what an opening "
             "gives both cancels).", "",
             "| N (time a move) | k | " + " | ".join(WAY_LABELS.values()) + " | gap: no shared memory − ensemble |",
             "|---|---|" + "---|" * (len(WAY_LABELS) + 1)]
    for sweep, points in zip(sweeps, collected):
        best = best_by_way(sweep, points)
        for k in sweep.workers:
            cells = [_cell(best.get((k, way))) for way in WAY_LABELS]
            if all(c == "—" for c in cells):
                continue
            g = gap_at(sweep.nodes, k, best)
            gap = "—" if g is None else f"{g.elo:+.0f} [{g.elo - g.half_width:+.0f}, {g.elo + g.half_width:+.0f}]"
            lines.append(f"| {sweep.nodes:,} ({milliseconds(sweep.nodes, nps):.0f} ms) | {k} | "
                         + " | ".join(cells) + f" | {gap} |")
    return lines


def plot_elo_by_k(sweeps: list[SweepConfig], collected: list[list[PointResult]], path: Path,
                  nps: float = ENGINE_NPS) -> Path | None:
    """Elo against k, one panel per budget, every arm with a way (95% intervals; hollow: running)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(sweeps), figsize=(5.2 * len(sweeps), 5.0), sharey=True, squeeze=False)
    drawn = False
    order = list(WAY_LABELS)
    every = {a.key: a.way for s in sweeps for a in s.arms if a.way}
    colour = {key: f"C{i}" for i, key in enumerate(sorted(every, key=lambda a: (order.index(every[a]), a)))}
    for ax, sweep, points in zip(axes[0], sweeps, collected):
        ways = {a.key: a.way for a in sweep.arms if a.way}
        for i, key in enumerate(sorted(ways, key=lambda a: (order.index(ways[a]), a))):
            mine = sorted((p for p in points if p.arm == key and p.elo is not None and math.isfinite(p.elo.elo)),
                          key=lambda p: p.k)
            if not mine:
                continue
            ks = [p.k * (1 + 0.03 * (i - 3)) for p in mine]
            elo = [p.elo.elo for p in mine]
            err = [[max(0.0, p.elo.elo - max(p.elo.low, -1000)) for p in mine],
                   [max(0.0, min(p.elo.high, 1000) - p.elo.elo) for p in mine]]
            style = {"ceiling": ":", "shared_memory": "--", "message_passing": "-", "ensemble": "-."}[ways[key]]
            bars = ax.errorbar(ks, elo, yerr=err, marker="o", capsize=3, linestyle=style, color=colour[key],
                               label=f"{key}: {WAY_LABELS[ways[key]]}")
            running = [j for j, p in enumerate(mine) if not p.finished]
            ax.plot([ks[j] for j in running], [elo[j] for j in running], "o", markerfacecolor="white", zorder=5,
                    color=bars[0].get_color())
            drawn = True
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(sweep.workers), [str(k) for k in sweep.workers])
        ax.set_xlabel("workers k")
        ax.set_title(f"N = {sweep.nodes:,} a worker, about {milliseconds(sweep.nodes, nps):.0f} ms a move",
                     fontsize=10)
        if ax.get_legend_handles_labels()[0]:  # a budget with no point yet draws an empty panel
            ax.legend(fontsize=7, loc="upper left")
    if not drawn:
        plt.close(fig)
        return None
    axes[0][0].set_ylabel("Elo against the full engine at N (95% intervals; hollow: still running)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_gap(found: list[Gap], path: Path, nps: float = ENGINE_NPS) -> Path | None:
    """The gap against time per move (log scale), one line per k."""
    if not found:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for i, k in enumerate(sorted({g.k for g in found})):
        mine = sorted((g for g in found if g.k == k), key=lambda g: g.nodes)
        ms = [milliseconds(g.nodes, nps) * (1 + 0.04 * i) for g in mine]
        bars = ax.errorbar(ms, [g.elo for g in mine], yerr=[g.half_width for g in mine], marker="o", capsize=3,
                           label=f"k = {k}")
        running = [j for j, g in enumerate(mine) if not (g.decomposition.finished and g.ensemble.finished)]
        ax.plot([ms[j] for j in running], [mine[j].elo for j in running], "o", markerfacecolor="white", zorder=5,
                color=bars[0].get_color())
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xscale("log")
    budgets = sorted({milliseconds(g.nodes, nps) for g in found})
    ax.set_xlim(budgets[0] / 1.8, budgets[-1] * 1.8)  # a budget or two: keep the axis about a decade wide
    ax.set_xticks(budgets, [f"{ms:.0f}" for ms in budgets])
    ax.minorticks_off()
    ax.set_xlabel(f"time per move, ms (N nodes a worker at {nps / 1e6:.2f} M nodes/s)")
    ax.set_ylabel("Elo: best decomposition without\nshared memory − best ensemble", fontsize=9)
    ax.set_title("Above 0: decompose; below 0: distribute knowledge (hollow: a point still running)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_budgets(sweeps: list[SweepConfig], folder: Path, document: Path | None = None,
                  nps: float = ENGINE_NPS, collected: list[list[PointResult]] | None = None) -> tuple[Path, list[Path]]:
    """``folder``/budgets.md, elo-by-k.png and gap.png from the games so far (or the points
    ``collected`` from them); with ``document``, the table also goes between its budgets markers."""
    collected = collected if collected is not None else [collect(s) for s in sweeps]
    lines = table(sweeps, collected, nps)
    folder.mkdir(parents=True, exist_ok=True)
    text_path = folder / "budgets.md"
    names = ", ".join(f"`{s.name}` ({s.source})" for s in sweeps)
    text_path.write_text("\n".join([f"# Across budgets: {names}", ""] + lines) + "\n")
    images = [p for p in (plot_elo_by_k(sweeps, collected, folder / "elo-by-k.png", nps),
                          plot_gap(gaps(sweeps, collected), folder / "gap.png", nps)) if p is not None]
    if document is not None:
        document.write_text(between(require_regions(document, MARKERS), *MARKERS, lines))
    return text_path, images
