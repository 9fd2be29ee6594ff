"""A sweep's results: one row per point (pentanomial Elo against the full engine at N, and what
the arm's player spent per move), and Elo against k for every arm in one plot.

Read from the points' game records only, so the report can be rewritten at any time, also
while points are still being played."""
from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from scipy.stats import norm

from tournaments.match.report import MoveBudgets, move_budgets
from tournaments.match.run import read_records, summarise
from base.config import ConfigError
from tournaments.scaling.config import SweepConfig
from tournaments.match.config import MatchConfig
from tournaments.statistics.elo import EloEstimate, SprtState
from tournaments.statistics.stats import holm, mean_se



def markers(sweep: SweepConfig, part: str) -> tuple[str, str]:
    """A document's markers around a sweep's ``part`` ("table", or the optional "by k": the points
    read across, k by k), named by the sweep's ``name`` (``scaling``, ``map``) so that one page
    can hold several sweeps."""
    return f"<!-- {sweep.name} {part}: begin -->", f"<!-- {sweep.name} {part}: end -->"


@dataclass(frozen=True)
class PointResult:
    arm: str
    label: str
    k: int
    nodes_budget: int
    games: int
    planned: int
    wdl: tuple[int, int, int]
    elo: EloEstimate | None  # pentanomial, on finished opening pairs; None before the first pair
    nodes: str  # the arm's player per move: median [5%, 95%]
    depth: str
    pairs: tuple[tuple[int, float], ...] = ()  # (opening, the pair's score 0..1) for every finished pair

    def shared_openings(self, other: PointResult) -> list[tuple[float, float]]:
        """(this point's pair score, the other's) on every opening both finished, in opening order."""
        theirs = dict(other.pairs)
        return [(mine, theirs[i]) for i, mine in self.pairs if i in theirs]

    @property
    def finished(self) -> bool:
        """Every planned game played: only then is a point in the trend, the shares and the pairs."""
        return self.games >= self.planned


def collect(sweep: SweepConfig) -> list[PointResult]:
    """Every point of the sweep that has games, k by k."""
    out = []
    for arm, k in sweep.points():
        match = sweep.point_match(arm, k)
        records = read_records(match.output)
        if not records:
            continue
        summary = summarise(match, records)[0]
        budget = move_budgets(records).get(summary.player, MoveBudgets(summary.player))
        elo = summary.pentanomial()
        if elo is not None and summary.games < match.games and not math.isfinite(elo.low + elo.high):
            elo = None  # a running point's first pairs all won (or lost): no interval yet, not an infinite one
        out.append(PointResult(arm.key, arm.label, k, arm.nodes(k, sweep.nodes), summary.games, match.games,
                               summary.wdl, elo, MoveBudgets.spread(budget.nodes), MoveBudgets.spread(budget.depths),
                               tuple(sorted((i, pts / 2) for i, pts in summary.pairs.items() if summary.pair_games[i] == 2))))
    return out


def table(sweep: SweepConfig, points: list[PointResult]) -> list[str]:
    """The sweep's table in Markdown (a point still running says how far it is).  With a
    ceiling arm (the full engine at k × N), each other point's Elo is also shown as a share of
    the ceiling's gain at the same k."""
    ceiling = {p.k: p.elo.elo for p in points if p.arm == sweep.ceiling and p.elo is not None and p.elo.elo > 0}
    share_head = f" share of {sweep.ceiling}'s gain |" if sweep.ceiling else ""
    lines = [f"N = {sweep.nodes:,} nodes (the baseline's budget and each worker's); Elo: pentanomial over "
             "finished opening pairs, 95% interval, against the full engine at N.", "",
             "| arm | k | player's budget | games | W-D-L | Elo [95%] |" + share_head + " nodes per move, median [5%, 95%] | "
             "depth, median [5%, 95%] |", "|---|---|---|---|---|---|" + ("---|" if sweep.ceiling else "") + "---|---|"]
    for p in points:
        games = f"{p.games}" + ("" if p.finished else f" of {p.planned} (running)")
        elo = "-" if p.elo is None else _interval(p.elo)
        share = ""
        if sweep.ceiling:
            top = ceiling.get(p.k)
            share = " - |" if p.arm == sweep.ceiling or top is None or p.elo is None else f" {100 * p.elo.elo / top:.0f}% |"
        lines.append(f"| {p.arm} | {p.k} | {p.nodes_budget:,} | {games} | {'-'.join(map(str, p.wdl))} | {elo} |{share} "
                     f"{p.nodes} | {p.depth} |")
    return lines


def by_k(sweep: SweepConfig, points: list[PointResult]) -> list[str]:
    """The points read across: one row per k, one column per arm, as a cluster user asks the
    question ("with k machines, which way?").  A point still running shows how far it is, one
    not started a dash; with a ceiling arm, a last column gives each arm's share of its gain."""
    found = {(p.arm, p.k): p for p in points}
    arms = [a.key for a in sweep.arms]
    ceiling = sweep.ceiling

    def cell(p: PointResult | None) -> str:
        if p is None or p.elo is None:
            return "-" if p is None else f"({p.games} of {p.planned})"
        return _interval(p.elo) + ("" if p.finished else f" ({p.games} of {p.planned})")

    def shares(k: int) -> str:
        top = found.get((ceiling, k))
        if top is None or top.elo is None or top.elo.elo <= 0 or not top.finished:
            return "-"
        done = [(a, found[(a, k)]) for a in arms if a != ceiling and (a, k) in found]
        return ", ".join(f"{a} {100 * p.elo.elo / top.elo.elo:.0f}%" for a, p in done
                         if p.elo is not None and p.finished) or "-"
    share_head = f" share of {ceiling}'s gain |" if ceiling else ""
    lines = ["| k | " + " | ".join(arms) + " |" + share_head,
             "|---|" + "---|" * len(arms) + ("---|" if ceiling else "")]
    for k in sweep.workers:
        if not any(a.player(k) for a in sweep.arms):
            continue
        row = [cell(found.get((a, k))) for a in arms]
        lines.append(f"| {k} | " + " | ".join(row) + " |" + (f" {shares(k)} |" if ceiling else ""))
    return lines


@dataclass(frozen=True)
class Trend:
    """Elo against log2 k for one arm: a weighted least-squares line through its points."""
    arm: str
    points: int
    per_doubling: float
    per_doubling_se: float
    at: dict[int, float]  # the line's value at these k (the sweep's largest k, and twice it)


def trends(sweep: SweepConfig, points: list[PointResult], min_points: int = 3,
           baseline_at_one: bool = False) -> list[Trend]:
    """Each arm's Elo per doubling of k from its finished points (weights 1 / variance, the
    variance read off the 95% interval), and where the line reaches at the largest k and at
    twice it: the trend the issue asks for where no k shows a crossover.  A straight line in
    log k is a description of the points measured, not a model of what lies beyond them.
    ``baseline_at_one``: k = 1 at 0 Elo also where the sweep plays no k = 1 (the map)."""
    import numpy as np
    out = []
    top = max(sweep.workers)
    for arm in sweep.arms:
        mine = [p for p in points if p.arm == arm.key and p.elo is not None and p.finished
                and math.isfinite(p.elo.low) and math.isfinite(p.elo.high)]
        rows = [(p.k, p.elo.elo, max(1.0, (p.elo.high - p.elo.low) / (2 * 1.96))) for p in mine]
        if arm.first > 1 and (1 in sweep.workers or baseline_at_one):
            rows.append((1, 0.0, 1.0))  # at k = 1 the arm is the baseline itself: 0 Elo by construction
        if len(rows) < min_points:
            continue
        x = np.array([math.log2(k) for k, _, _ in rows])
        y = np.array([elo for _, elo, _ in rows])
        se = np.array([s for _, _, s in rows])
        design = np.column_stack([np.ones_like(x), x]) / se[:, None]
        coef, *_ = np.linalg.lstsq(design, y / se, rcond=None)
        cov = np.linalg.inv(design.T @ design)
        out.append(Trend(arm.key, len(rows), float(coef[1]), float(math.sqrt(cov[1, 1])),
                         {k: float(coef[0] + coef[1] * math.log2(k)) for k in (top, 2 * top)}))
    return out


def trend_table(sweep: SweepConfig, points: list[PointResult]) -> list[str]:
    found = trends(sweep, points)
    if not found:
        return []
    ks = sorted(found[0].at)
    lines = ["", "Trend (finished points only, and k = 1 at 0 Elo for the arms that are the baseline there; a "
             "weighted least-squares line of Elo against log2 k, a description of the points measured, not a "
             "prediction with a guarantee):", "",
             "| arm | points | Elo per doubling of k [95%] | " + " | ".join(f"line at k = {k}" for k in ks) + " |",
             "|---|---|---|" + "---|" * len(ks)]
    for t in found:
        lines.append(f"| {t.arm} | {t.points} | {t.per_doubling:+.0f} [{t.per_doubling - 1.96 * t.per_doubling_se:+.0f}, "
                     f"{t.per_doubling + 1.96 * t.per_doubling_se:+.0f}] | "
                     + " | ".join(f"{t.at[k]:+.0f}" for k in ks) + " |")
    return lines


@dataclass(frozen=True)
class DuelResult:
    """One duel's games so far: the first point's score against the second and its SPRT."""

    first: str
    second: str
    games: int
    wdl: tuple[int, int, int]  # of the first
    elo: EloEstimate | None  # of the first, pentanomial; None before the first pair
    sprt: SprtState | None
    finished: bool  # decided with its minimum played, or at its most games (``duel_finished``)

    def status(self) -> str:
        """A few words for the overlap list: where the duel stands, so the list is the queue."""
        if self.finished:
            decision = self.sprt.decision if self.sprt is not None else None
            return (f"{self.first} {_interval(self.elo)}, {decision or 'undecided at its most games'}"
                    if self.elo is not None else "stopped")
        llr = f", LLR {self.sprt.llr:.2f}" if self.sprt is not None else ""
        return f"running: {self.games} games{llr}"


def read_duel(sweep: SweepConfig, first: str, second: str) -> tuple[DuelResult | None, list]:
    """One duel's result from its folder (None before its first game), with its game records."""
    match = sweep.duel_match(first, second)
    records = read_records(match.output)
    if not records:
        return None, records
    summary = summarise(match, records)[0]
    state = summary.sprt(match)
    return DuelResult(first, second, summary.games, summary.wdl, summary.pentanomial(), state,
                      duel_finished(summary.games, state, match)), records


def duel_results(sweep: SweepConfig) -> list[DuelResult]:
    """Every duel with games, in its folder's order (a folder of a point the file no longer
    defines is passed over)."""
    found = []
    for first, second in sweep.duels():
        try:
            result, _ = read_duel(sweep, first, second)
        except ConfigError:
            continue
        if result is not None:
            found.append(result)
    return found


def duel_table(duels: list[DuelResult], family: int = 0) -> list[str]:
    """The duels played so far: the first point's score against the second, and the SPRT's state.

    Holm runs over ``family`` duels, declared before they finish (every overlapping pair, and any other duel played), the
    unfinished counted at p = 1: a duel that finishes later can then only lower the others'
    adjusted p, so a claim made on a finished duel is never taken back by the next one."""
    if not duels:
        return []
    tested = [d.elo.p_value for d in duels if d.finished and d.elo is not None]
    adjusted = iter(holm(tested + [1.0] * max(0, family - len(tested))))
    rows = []
    for d in duels:
        row = (f"| {d.first} against {d.second} | {d.games}{'' if d.finished else ' (running)'} | "
               f"{'-'.join(map(str, d.wdl))} | {'-' if d.elo is None else _interval(d.elo)} | "
               f"{'-' if d.sprt is None else d.sprt.format()} | ")
        tested_here = d.finished and d.elo is not None
        rows.append(row + (f"{d.elo.p_value:.2g} | {next(adjusted):.2g} |" if tested_here else "- | - |"))
    return ["", "Duels (two points whose intervals overlapped, played against each other; SPRT H0: the first "
            "is no stronger than the second, H1: 20 Elo stronger; each SPRT errs with α = β = 0.05 on its own, "
            "so each finished duel's result is also tested on its pentanomial score, two-sided, and "
            f"Holm-adjusted over the family of {max(family, len(tested))} duels (every overlapping pair's and any "
            "other duel played), the "
            "unfinished counted at p = 1 (a later duel can only lower a finished one's Holm p); a running duel "
            "gets no p. The SPRT reads the thesis adjudication's points (a game cut at the ply limit scored by the full "
            "engine's evaluation, each pair rounded to half points), the Elo and p the PGN results (such a game a "
            "draw): the two differ in a few pairs of a duel. The SPRT's decision is the test "
            "of record: a duel stops where its score crossed a bound, so a fixed-sample p taken there is "
            "approximate, somewhat too small where H1 was accepted):", "",
            "| duel | games | W-D-L of the first | Elo of the first [95%] | SPRT | p | Holm p |",
            "|---|---|---|---|---|---|---|"] + rows


def duel_finished(games: int, state: SprtState | None, match: MatchConfig) -> bool:
    """A duel is over once its SPRT has decided and it has played the minimum, or at its
    most games: only then is its score tested (the test is made once, where the duel stopped)."""
    decided = state is not None and state.decision is not None
    least = match.sprt.min_games if match.sprt is not None else 0
    return (decided and games >= least) or games >= match.games


def overlapping(points: list[PointResult], ceiling: str | None = None,
                variants: Collection[frozenset[str]] = ()) -> list[tuple[str, str]]:
    """The pairs of finished points at the same k whose 95% intervals overlap: the pairs the
    points alone do not order, which a duel settles (the ceiling arm is not a player, and an
    arm and its variant are one algorithm under two rules: no pair)."""
    return [(f"{a.arm}{a.k}", f"{b.arm}{b.k}") for a, b in _pairs_at_one_k(points, ceiling)
            if a.elo.low <= b.elo.high and b.elo.low <= a.elo.high and frozenset((a.arm, b.arm)) not in variants]


def _pairs_at_one_k(points: list[PointResult], ceiling: str | None) -> list[tuple[PointResult, PointResult]]:
    """Every pair of finished points at the same k, the higher point estimate first (the
    ceiling arm is not a player)."""
    done = [p for p in points if p.elo is not None and p.finished and p.arm != ceiling]
    return [(a, b) if a.elo.elo >= b.elo.elo else (b, a)
            for i, a in enumerate(done) for b in done[i + 1:] if a.k == b.k]


@dataclass(frozen=True)
class PairTest:
    """Two finished points at one k, compared through their scores against the same baseline."""

    first: str  # the higher point estimate
    second: str
    apart: float  # Elo, first minus second
    p: float  # two-sided, "the two score alike against the baseline"
    holm: float  # p adjusted over the family: every pair at one k the sweep defines


def declared_pairs(sweep: SweepConfig) -> set[frozenset[str]]:
    """Every pair of points at one k the sweep's file defines, the ceiling left out: the family
    of the pair tests, fixed before the points finish, so that a claim made on finished points
    is never taken back when the next point finishes."""
    named = [(f"{arm.key}{k}", k) for arm, k in sweep.points() if arm.key != sweep.ceiling]
    return {frozenset((a, b)) for i, (a, k) in enumerate(named) for b, j in named[i + 1:] if k == j}


def pair_tests(points: list[PointResult], ceiling: str | None = None,
               declared: Collection[frozenset[str]] = ()) -> list[PairTest]:
    """Every pair of finished points at the same k (the ceiling is not a player), tested opening
    by opening: both points played the same openings, each with both colours, against the same
    baseline, so each shared opening gives one difference (the first's pair score minus the
    second's) and the test is the mean difference over its standard error, normal, two-sided.
    Pairing takes out what an opening gives both points alike, whatever the two points'
    correlation (near 0 in the sweep, and negative for some pairs: adding the two points' errors
    as if independent is not always conservative).  Holm's adjustment runs over the tested pairs
    and every ``declared`` one not yet tested (counted at p = 1), at every k: the family of "this
    arm beats that one" claims the sweep can make."""
    raw = []
    for first, second in _pairs_at_one_k(points, ceiling):
        raw.append((first, second, _paired_p(first.shared_openings(second))))
    tested = {frozenset((f"{a.arm}{a.k}", f"{b.arm}{b.k}")) for a, b, _ in raw}
    adjusted = holm([p for _, _, p in raw] + [1.0] * len(set(declared) - tested))
    return [PairTest(f"{a.arm}{a.k}", f"{b.arm}{b.k}", a.elo.elo - b.elo.elo, p, h)
            for (a, b, p), h in zip(raw, adjusted)]


def _paired_p(shared: list[tuple[float, float]]) -> float:
    """Two-sided p of "the two score alike" from the differences on the openings both finished
    (the variance as the pentanomial's, over the n differences); fewer than two: p 1."""
    if len(shared) < 2:
        return 1.0
    mean, se = mean_se([a - b for a, b in shared])
    z = mean / se if se > 0 else (math.inf if mean else 0.0)
    return float(2 * norm.sf(abs(z)))


def pair_lines(sweep: SweepConfig, points: list[PointResult]) -> list[str]:
    """The pair tests as a table, k by k, each with its duel if one was played."""
    declared = declared_pairs(sweep)
    tests = pair_tests(points, sweep.ceiling, declared)
    if not tests:
        return []
    played = {frozenset(d) for d in sweep.duels()}
    family = len(declared | {frozenset((t.first, t.second)) for t in tests})
    rows = [f"| {t.first}–{t.second} | {t.apart:+.0f} | {t.p:.2g} | {t.holm:.2g} | "
            f"{'played' if frozenset((t.first, t.second)) in played else '-'} |" for t in tests]
    return ["", f"Every pair of finished points at one k ({len(tests)} of the {family} pairs the sweep defines, the "
            "ceiling left out): the two points' scores compared opening by opening (on each shared opening, the "
            "first's pair score minus the second's; the mean difference over its standard error); p two-sided, then "
            f"Holm-adjusted over all {family} pairs, those not yet finished counted at p = 1 (a pair ordered now "
            "stays ordered when the next point finishes). A pair with Holm p < 0.05 is ordered by the points "
            "alone; the others are what the duels are for.", "",
            "| pair | Elo apart | p | Holm p | duel |", "|---|---|---|---|---|"] + rows


def overlap_lines(sweep: SweepConfig, points: list[PointResult], duels: list[DuelResult]) -> list[str]:
    """The overlapping pairs, each with where its duel stands (played in either order): the
    queue of duels and their verdicts in one line, never stale."""
    pairs = overlapping(points, sweep.ceiling, sweep.variants())
    if not pairs:
        return []
    by_pair = {frozenset((d.first, d.second)): d for d in duels}
    said, owed = [], 0
    for a, b in pairs:
        duel = by_pair.get(frozenset((a, b)))
        said.append(f"{a}–{b} ({'owed' if duel is None else duel.status()})")
        owed += duel is None or not duel.finished
    same = sorted("–".join(sorted(v)) for v in sweep.variants())
    standing = ("every duel finished" if not owed
                else "its duel not finished; `concilio scaling duels` plays it" if len(pairs) == 1
                else f"{owed} of their duels not finished; `concilio scaling duels` plays them")
    return ["", f"Finished points at one k whose intervals overlap ({len(pairs)} pair{'s' if len(pairs) != 1 else ''}, {standing}; a finished "
            f"duel shows its first point's Elo against the second and the SPRT's decision): " + ", ".join(said) + "."
            + (f" Not paired: {', '.join(same)}, one algorithm under two rules (`variant_of`)." if same else "")]


def _interval(e: EloEstimate) -> str:
    def fmt(x: float) -> str:
        return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{round(x) + 0:+d}"
    return f"{fmt(e.elo)} [{fmt(e.low)}, {fmt(e.high)}]"


def plot(sweep: SweepConfig, points: list[PointResult], path: Path) -> Path | None:
    """Elo against k (log scale) for every arm, with 95% intervals."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 6.4))
    drawn = False
    lines = {t.arm: t for t in trends(sweep, points)}
    for i, arm in enumerate(sweep.arms):
        mine = [p for p in points if p.arm == arm.key and p.elo is not None]
        if not mine:
            continue
        ks = [p.k * (1 + 0.03 * (i - len(sweep.arms) / 2)) for p in mine]  # side by side, not on top
        elo = [p.elo.elo for p in mine]
        low = [max(0.0, p.elo.elo - max(p.elo.low, -1000)) for p in mine]
        high = [max(0.0, min(p.elo.high, 1000) - p.elo.elo) for p in mine]
        bars = ax.errorbar(ks, elo, yerr=[low, high], marker="o", capsize=3, label=arm.label)
        running = [j for j, p in enumerate(mine) if not p.finished]
        if running:  # a point still being played: a hollow marker
            ax.plot([ks[j] for j in running], [elo[j] for j in running], "o", markerfacecolor="white", zorder=5,
                    color=bars[0].get_color())
        trend = lines.get(arm.key)
        if trend is not None:  # the trend, dashed, over the k measured (the table says where it leads)
            top, last = max(sweep.workers), max(p.k for p in mine if p.finished)
            origin = trend.at[top] - trend.per_doubling * math.log2(top)
            ax.plot([1, last], [origin, origin + trend.per_doubling * math.log2(last)], linestyle="--",
                    linewidth=0.8, color=bars[0].get_color())
        drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(sweep.workers), [str(k) for k in sweep.workers])
    ax.set_xlabel("workers k")
    ax.set_ylabel(f"Elo against the full engine at {sweep.nodes:,} nodes")
    ax.set_title(f"Sweep {sweep.name}: Elo against k (95% intervals; hollow: still running; dashed: trend)",
                 fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12))  # below: the points keep the axes
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(sweep: SweepConfig, folder: Path, document: Path | None = None) -> tuple[Path, Path | None]:
    """``folder``/table.md and ``folder``/elo.png; with ``document``, its text between the sweep
    table's markers is replaced by the table (the rest of the document is the author's)."""
    points = collect(sweep)
    duels = duel_results(sweep)
    family = {frozenset(pair) for pair in overlapping(points, sweep.ceiling, sweep.variants())}
    family |= {frozenset((d.first, d.second)) for d in duels}
    lines = (table(sweep, points) + overlap_lines(sweep, points, duels) + pair_lines(sweep, points)
             + duel_table(duels, len(family)) + trend_table(sweep, points))
    across = ["", "The same points by k:", ""] + by_k(sweep, points)
    folder.mkdir(parents=True, exist_ok=True)
    table_path = folder / "table.md"
    table_path.write_text("\n".join([f"# Sweep `{sweep.name}` ({sweep.source})", ""] + lines + across) + "\n")
    image = plot(sweep, points, folder / "elo.png")
    if document is not None:
        begin, end = markers(sweep, "table")
        text = between(require_regions(document, (begin, end)), begin, end, lines)
        begin, end = markers(sweep, "by k")
        if begin in text and end in text:
            text = between(text, begin, end, by_k(sweep, points))
        document.write_text(text)
    return table_path, image


def require_regions(document: Path, *pairs: tuple[str, str]) -> str:
    """``document``'s text, once every (begin, end) region a report will write is in it: checked
    before anything is written, so a page without its markers is named, not half rewritten."""
    text = document.read_text(encoding="utf-8")
    missing = [f"'{begin}' … '{end}'" for begin, end in pairs if begin not in text or end not in text]
    if missing:
        raise ValueError(f"{document}: no {' or '.join(missing)} markers to put the table between")
    return text


def between(text: str, begin: str, end: str, lines: list[str]) -> str:
    """``text`` with what stands between the markers replaced by ``lines``."""
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + "\n".join(lines) + "\n" + end + tail
