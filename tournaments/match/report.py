"""What a match report shows beside the scores: that the compute was what it claimed
(nodes and depth per move, per player, from the PGN comments), that nobody lost on time,
and a plot of every pairing's Elo with its interval.

Why: a comparison "at equal compute" is only as good as the evidence that it was equal;
the reader gets the medians and ranges, not our word.
"""
from __future__ import annotations

import io
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from tournaments.games.game import GameRecord

SCORE_DEPTH = re.compile(r"[+-]?\d+\.\d+/(\d+)")
NODES = re.compile(r"\bnodes (\d+)")
FORFEIT_WORDS = ("forfeit", "time", "flag", "illegal", "crash", "no move")


@dataclass
class MoveBudgets:
    """A player's searched moves: nodes and depth of each (None where a comment lacks them)."""

    player: str
    nodes: list[int] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    @staticmethod
    def spread(values: Sequence[float]) -> str:
        if not values:
            return "-"
        ordered = sorted(values)
        low = ordered[int(0.05 * (len(ordered) - 1))]
        high = ordered[int(0.95 * (len(ordered) - 1))]
        return f"{statistics.median(ordered):g} [{low:g}, {high:g}]"


def move_budgets(records: Sequence[GameRecord]) -> dict[str, MoveBudgets]:
    """Per player, from every move's comment (book moves excluded)."""
    out: dict[str, MoveBudgets] = {}
    for record in records:
        game = chess.pgn.read_game(io.StringIO(record.pgn))
        if game is None:
            continue
        turn = game.board().turn  # tracked, not read from each node: a node's board replays the game
        for node in game.mainline():
            comment, mover_is_white, turn = node.comment or "", turn == chess.WHITE, not turn
            if not comment or comment == "book":
                continue
            mover = record.white if mover_is_white else record.black
            budget = out.setdefault(mover, MoveBudgets(mover))
            if m := NODES.search(comment):
                budget.nodes.append(int(m.group(1)))
            if m := SCORE_DEPTH.search(comment):
                budget.depths.append(int(m.group(1)))
            if m := re.search(r"(\d+\.\d+)s\b", comment):
                budget.seconds.append(float(m.group(1)))
    return out


def forfeits(records: Sequence[GameRecord]) -> list[GameRecord]:
    """Games lost by a failure rather than on the board: on time, an illegal or missing move, a crash."""
    return [r for r in records if any(word in r.termination.lower() for word in FORFEIT_WORDS)
            and "adjudication" not in r.termination.lower()]


def termination_kind(termination: str) -> str:
    """A game's ending, without the names and numbers: 'resignation (adjudicated)', 'checkmate', ..."""
    t = termination.lower()
    if t.startswith("adjudication:"):
        if "resigns" in t:
            return "resignation (adjudicated)"
        if "draw rule" in t:
            return "draw rule (adjudicated)"
        return "move limit (thesis adjudication)"
    return t.split(":")[0] or "unknown"


def endings_table(records: Sequence[GameRecord]) -> list[str]:
    """How the games ended and how long they were: the games' PGN in one table."""
    kinds: dict[str, list[int]] = {}
    for r in records:
        kinds.setdefault(termination_kind(r.termination), []).append(r.plies)
    rows = ["| ending | games | half-moves, median [min, max] |", "|---|---|---|"]
    for kind, plies in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        rows.append(f"| {kind} | {len(plies)} | {statistics.median(plies):g} [{min(plies)}, {max(plies)}] |")
    return rows


def budget_table(budgets: dict[str, MoveBudgets]) -> list[str]:
    rows = ["| player | moves | nodes per move, median [5%, 95%] | depth, median [5%, 95%] | seconds per move, "
            "median [5%, 95%] |", "|---|---|---|---|---|"]
    for name, b in sorted(budgets.items()):
        rows.append(f"| {name} | {len(b.depths)} | {b.spread(b.nodes)} | {b.spread(b.depths)} | "
                    f"{b.spread(b.seconds)} |")
    return rows


def plot_elo(labels: Sequence[str], estimates: Sequence, path: Path, title: str) -> Path | None:
    """A forest plot: each pairing's Elo and 95% interval (first player's view)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a dependency; a broken install is not fatal
        return None
    finite = [e for e in estimates if abs(e.low) < 1e4 and abs(e.high) < 1e4]
    if not finite:
        return None
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(labels) + 1.2))
    for i, e in enumerate(estimates):
        low, high = max(e.low, -800), min(e.high, 800)
        ax.plot([low, high], [i, i], color="tab:blue")
        ax.plot([e.elo], [i], "o", color="tab:blue")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("Elo of the first player (95% interval)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def anchored_rating(entry_options: dict) -> float | None:
    """An opponent's rating on a published scale: Stockfish's (and any UCI engine's) strength
    limiter, ``UCI_LimitStrength`` with ``UCI_Elo``; None for an engine at full strength."""
    limited = str(entry_options.get("UCI_LimitStrength", "")).lower() in ("true", "1", "yes")
    if not limited or "UCI_Elo" not in entry_options:
        return None
    try:
        return float(entry_options["UCI_Elo"])
    except (TypeError, ValueError):
        return None


def ladder_table(levels: Sequence[tuple[str, float, Sequence[int]]], rated: str) -> list[str]:
    """The rated player's rating on the anchors' scale, pairing by pairing and fitted on all of
    them at once (``tournaments.statistics.elo.ladder_rating``).  ``levels``: (anchor's name, its rating,
    pair counts from the rated player's side)."""
    from tournaments.statistics.elo import ladder_rating, pentanomial
    lines = [f"{rated}'s rating on the anchors' scale (their `UCI_Elo`; pentanomial):", "",
             f"| anchor | anchor's rating | {rated}'s score | {rated}'s rating [95%] |", "|---|---|---|---|"]
    for name, rating, counts in levels:
        if not sum(counts):
            continue
        e = pentanomial(counts)
        if e.score in (0.0, 1.0):  # swept: only a bound
            shown = f"{'<' if e.score == 0 else '>'} {rating:g}"
        else:
            shown = f"{rating + e.elo:.0f} [{rating + e.low:.0f}, {rating + e.high:.0f}]"
        lines.append(f"| {name} | {rating:g} | {100 * e.score:.1f}% | {shown} |")
    fit = ladder_rating([(rating, counts) for _, rating, counts in levels])
    if fit is not None:
        lines += ["", f"All pairings at once (the logistic model's likelihood equation, robust interval): "
                      f"**{fit.format()}** over {fit.games} games."]
    return lines
