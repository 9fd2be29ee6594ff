"""Auto-tuned distributions: choose an ensemble's instances from a pool by searching for
the set that maximises a stated objective on training positions.

The thesis designed its distributions (a–d) by hand.  Here a pool of candidate
instances (masks and reweightings) is searched once per training position, so that
judging any set of them costs only a selection over stored ballots.  The search is
greedy forward selection (add the member that raises the objective most, up to
``max_size``), then swap passes from the best set found (replace one member by one
outsider while that raises the objective).  It finds a local optimum around the greedy
path, no more: with a pool of 34 and sets of up to six there are over a million sets,
and a tuned set is only as good as its score on positions it was not chosen on, which
the caller measures.

Everything here is pure: ``evaluate`` maps a sorted tuple of pool indices to the
objective.  Ties keep the earlier candidate in pool order, so a rerun is identical.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Members = tuple[int, ...]
Evaluate = Callable[[Members], float]


@dataclass(frozen=True)
class Step:
    """One accepted move of the search: the set after it and its objective."""

    action: str  # "add 5" or "swap 3 -> 7"
    members: Members
    value: float


@dataclass(frozen=True)
class TuneResult:
    best: Members
    value: float
    steps: tuple[Step, ...]
    evaluations: int
    by_size: dict[int, tuple[Members, float]] = field(default_factory=dict)  # greedy's best set per size


class CachedObjective:
    """Evaluates each set once (sets are compared as sorted tuples)."""

    def __init__(self, evaluate: Evaluate) -> None:
        self.evaluate = evaluate
        self.cache: dict[Members, float] = {}

    def __call__(self, members: Members) -> float:
        key = tuple(sorted(members))
        if key not in self.cache:
            self.cache[key] = self.evaluate(key)
        return self.cache[key]


def greedy_with_swaps(pool_size: int, evaluate: Evaluate, *, min_size: int = 2, max_size: int = 6,
                      swap_passes: int = 10, start: Members = ()) -> TuneResult:
    """Forward selection to ``max_size`` members, the best set of at least ``min_size``
    kept, then best-improvement swap passes until none improves (at most ``swap_passes``)."""
    if not 1 <= min_size <= max_size <= pool_size:
        raise ValueError(f"need 1 <= min_size ({min_size}) <= max_size ({max_size}) <= pool size ({pool_size})")
    objective = CachedObjective(evaluate)
    members: Members = tuple(sorted(start))
    steps: list[Step] = []
    by_size: dict[int, tuple[Members, float]] = {}
    if members:
        by_size[len(members)] = (members, objective(members))
    while len(members) < max_size:
        best_add, best_value = -1, float("-inf")
        for i in range(pool_size):
            if i in members:
                continue
            value = objective(members + (i,))
            if value > best_value:
                best_add, best_value = i, value
        members = tuple(sorted(members + (best_add,)))
        steps.append(Step(f"add {best_add}", members, best_value))
        by_size[len(members)] = (members, best_value)
    sizes = [k for k in by_size if k >= min_size]
    if not sizes:
        raise ValueError(f"start set larger than max_size {max_size}")
    # The best size; a smaller set wins a tie (cheaper to run, less to overfit).
    best_k = max(sizes, key=lambda k: (by_size[k][1], -k))
    best, value = by_size[best_k]
    for _ in range(swap_passes):
        swap, swap_value = None, value
        for out in best:
            for i in range(pool_size):
                if i in best:
                    continue
                candidate = tuple(sorted([m for m in best if m != out] + [i]))
                v = objective(candidate)
                if v > swap_value:
                    swap, swap_value = (out, i, candidate), v
        if swap is None:
            break
        out, i, best = swap
        value = swap_value
        steps.append(Step(f"swap {out} -> {i}", best, value))
    return TuneResult(best, value, tuple(steps), len(objective.cache), by_size)
