"""Clock play: how long a move should take and how long it may take (:class:`TimeManager`),
and, iteration by iteration, whether another iteration is worth starting (:class:`IterationClock`).

A fixed share of the clock for every move wastes time where the best move is obvious and
starves the moves where the search keeps changing its mind.  As in modern engines, a move
gets a *soft* time that iterative deepening aims at and a *hard* time at which the search is
stopped: a best move that keeps changing or a score that falls stretches the soft time
towards the hard one; a best move that has stood for many iterations shrinks it.
"""
from __future__ import annotations

DEFAULT_OVERHEAD_MS = 50  # kept back from a clock allocation for transport and the GUI
# Kept back from a GUI's ``go movetime``: the reply's own latency, a few milliseconds for a
# single searcher (CHANGELOG.md has the measurement).  A movetime is the GUI's
# per-move budget with no clock to protect, so (as Stockfish does) the engine takes nearly
# all of it; the clock's overhead above would halve a 100 ms search.
MOVETIME_MARGIN_MS = 10


def movetime_margin(player_overhead_ms: int, configured_ms: int | None = None) -> int:
    """What comes off a GUI's ``go movetime``: the Move Overhead the GUI set; else, for a player
    that keeps back more than a single searcher's default from a clock (one that coordinates
    workers: their transport is its latency), that whole overhead; else only the reply's own
    latency, ``MOVETIME_MARGIN_MS``."""
    if configured_ms is not None:
        return configured_ms
    return player_overhead_ms if player_overhead_ms > DEFAULT_OVERHEAD_MS else MOVETIME_MARGIN_MS


class TimeManager:
    """Per-move time from a clock.  Soft: a share of what the clock leaves after the overhead
    (1/``moves_to_go``, 1/25 without it) plus three quarters of the increment, never more
    than a third of it.  Hard: five soft shares, never more than 30% of the clock, so that no
    single move, however unsettled, can flag."""

    DEFAULT_MOVES_LEFT = 25
    HARD_FACTOR = 5
    HARD_SHARE = 0.3

    @staticmethod
    def allocate(clock_ms: float, increment_ms: float = 0, moves_to_go: int | None = None,
                 overhead_ms: float = DEFAULT_OVERHEAD_MS) -> int:
        """The soft time (ms): what a move should take on average."""
        usable = max(1.0, clock_ms - overhead_ms)
        share = usable / (moves_to_go or TimeManager.DEFAULT_MOVES_LEFT) + 0.75 * increment_ms
        return max(1, int(min(share, usable / 3)))

    @staticmethod
    def times(clock_ms: float, increment_ms: float = 0, moves_to_go: int | None = None,
              overhead_ms: float = DEFAULT_OVERHEAD_MS) -> tuple[int, int]:
        """Soft and hard time of one move (ms); ``players.limits.Limit.for_move`` makes them a limit."""
        soft = TimeManager.allocate(clock_ms, increment_ms, moves_to_go, overhead_ms)
        usable = max(1.0, clock_ms - overhead_ms)
        hard = max(soft, int(min(soft * TimeManager.HARD_FACTOR, usable * TimeManager.HARD_SHARE)))
        return soft, hard


class IterationClock:
    """After each completed iteration: stop now, or start another?

    The next iteration usually costs more than all before it, so none is started once
    ``NEXT_SHARE`` of the (scaled) soft time is gone.  The scale multiplies three factors:

    * instability, ``1 + INSTABILITY × changes``, where ``changes`` counts best-move changes
      with each older iteration's change worth half the next one's;
    * a falling score, ``1 + drop / FALL_CP`` (clipped to [0.8, 1.5]), the drop measured
      from the mean of the last few iterations' scores;
    * stability: ``STABLE_FACTOR`` once the best move has stood for ``STABLE_ITERATIONS``.
    """

    NEXT_SHARE = 0.6
    INSTABILITY = 1.2
    FALL_CP = 150
    STABLE_ITERATIONS = 6
    STABLE_FACTOR = 0.7
    MIN_DEPTH = 4  # shallower iterations are too cheap, and too noisy, to be worth judging

    def __init__(self, soft_seconds: float) -> None:
        self.soft = soft_seconds
        self.changes = 0.0
        self.best: str | None = None
        self.stable_for = 0
        self.scores: list[int] = []
        self.scale = 1.0

    def update(self, best_move: str, score: int) -> None:
        """Take in one completed iteration."""
        changed = self.best is not None and best_move != self.best
        self.changes = self.changes / 2 + (1.0 if changed else 0.0)
        self.stable_for = 1 if changed or self.best is None else self.stable_for + 1
        self.best = best_move
        recent = self.scores[-4:]
        drop = (sum(recent) / len(recent) - score) if recent else 0.0
        self.scores.append(score)
        falling = min(1.5, max(0.8, 1 + drop / self.FALL_CP))
        stable = self.STABLE_FACTOR if self.stable_for >= self.STABLE_ITERATIONS else 1.0
        self.scale = (1 + self.INSTABILITY * self.changes) * falling * stable

    def should_stop(self, depth: int, elapsed: float) -> bool:
        """True when another iteration would most likely overrun what this move should take."""
        if depth < self.MIN_DEPTH:
            return elapsed >= self.soft  # even cheap iterations stop at the soft time
        return elapsed >= self.NEXT_SHARE * self.soft * self.scale
