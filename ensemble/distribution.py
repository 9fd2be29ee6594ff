"""Distribution criteria: how the knowledge categories are shared among n instances.

The thesis's four criteria distribute the categories
after M, ordered by importance ``E1 … Ek`` (thesis order B X K P A R); M, when it is
in the order, stays in every instance.  Two more criteria reweight instead of mask:
``emphasis`` keeps every category and multiplies the focal ones' weights, and
``random_weights`` perturbs the unit weights log-normally.  Every criterion is
deterministic given its arguments (``random`` criteria take a seed).

``balanced`` has many valid designs; for six categories and n = 3…6 we use the
thesis's published ones (they are the experiments' reference), elsewhere the design
with the most even pair co-occurrence that meets the same count rule.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from base.errors import ConcilioError
from evaluation.spec import CATEGORIES, EvalSpec, category_bit

MASK_CRITERIA = ("minimal", "balanced", "unbalanced", "incremental", "random")
WEIGHT_CRITERIA = ("emphasis", "random_weights")
CRITERIA = MASK_CRITERIA + WEIGHT_CRITERIA
THESIS_ORDER = CATEGORIES

# The thesis's balanced designs, as positions in the distributed order (0 = E1 = B).
THESIS_BALANCED = {
    3: ((0, 1, 3), (0, 2, 5), (1, 2, 4)),
    4: ((0, 1, 4), (0, 2, 5), (1, 3, 4), (2, 3, 5)),
    5: ((0, 1, 2), (0, 2, 4), (0, 3, 5), (1, 2, 5), (1, 3, 4)),
    6: ((0, 1, 2), (0, 2, 4), (0, 3, 5), (1, 3, 4), (1, 4, 5), (2, 3, 5)),
}


class DistributionError(ConcilioError, ValueError):
    """Arguments no distribution criterion can satisfy."""


def parse_order(order: str) -> tuple[str, tuple[str, ...]]:
    """``"MBXKPAR"`` → (``"M"``, (B, X, K, P, A, R)): the kept base and the distributed list."""
    letters = str(order).upper()
    bad = sorted({c for c in letters if c not in CATEGORIES})
    if bad:
        raise DistributionError(f"order {order!r}: unknown category letter(s) {', '.join(bad)}")
    if len(set(letters)) != len(letters):
        raise DistributionError(f"order {order!r}: a category is repeated")
    base = "M" if "M" in letters else ""
    distributed = tuple(c for c in letters if c != "M")
    if not distributed:
        raise DistributionError(f"order {order!r}: nothing to distribute besides M")
    return base, distributed


def minimal(n: int, distributed: Sequence[str]) -> list[tuple[str, ...]]:
    """(E1)(E2)…(En)."""
    _check_n(n, 1, len(distributed), "minimal")
    return [(distributed[i],) for i in range(n)]


def incremental(n: int, distributed: Sequence[str]) -> list[tuple[str, ...]]:
    """(E1)(E1E2)…(E1…En)."""
    _check_n(n, 1, len(distributed), "incremental")
    return [tuple(distributed[: i + 1]) for i in range(n)]


def unbalanced(n: int, distributed: Sequence[str]) -> list[tuple[str, ...]]:
    """⌈n/2⌉ instances with one of the first categories, one full instance, and
    ⌊n/2⌋−1 holding everything but one of the least effective categories."""
    k = len(distributed)
    singles = (n + 1) // 2
    all_but = n // 2 - 1
    _check_n(n, 2, 2 * k, "unbalanced")
    if singles > k or all_but > k:
        raise DistributionError(f"unbalanced: n = {n} needs more than the {k} distributed categories")
    sets = [(distributed[i],) for i in range(singles)]
    sets.append(tuple(distributed))
    for j in range(all_but):
        dropped = distributed[k - 1 - j]
        sets.append(tuple(c for c in distributed if c != dropped))
    return sets


def balanced(n: int, distributed: Sequence[str]) -> list[tuple[str, ...]]:
    """Every instance holds ⌈k/2⌉ categories and the counts per category differ by at
    most one (the extra appearances go to the more important categories)."""
    k = len(distributed)
    _check_n(n, 2, None, "balanced")
    if k == 6 and n in THESIS_BALANCED:
        return [tuple(distributed[i] for i in design) for design in THESIS_BALANCED[n]]
    return [tuple(distributed[i] for i in design) for design in _balanced_design(n, k)]


def _balanced_design(n: int, k: int) -> list[tuple[int, ...]]:
    size = (k + 1) // 2
    base, extra = divmod(n * size, k)
    target = [base + 1 if i < extra else base for i in range(k)]
    subsets = list(combinations(range(k), size))
    distinct = n <= len(subsets)

    def pair_cost(chosen: list[tuple[int, ...]]) -> tuple[int, int]:
        pairs = Counter(p for sub in chosen for p in combinations(sub, 2))
        return (max(pairs.values(), default=0), sum(v * v for v in pairs.values()))

    if distinct and math.comb(len(subsets), n) <= 200_000:
        best: list[tuple[int, ...]] | None = None
        best_cost = None
        chosen: list[tuple[int, ...]] = []
        counts = [0] * k

        def search(start: int) -> None:
            nonlocal best, best_cost
            if len(chosen) == n:
                if counts == target:
                    cost = pair_cost(chosen)
                    if best_cost is None or cost < best_cost:
                        best, best_cost = list(chosen), cost
                return
            for i in range(start, len(subsets)):
                sub = subsets[i]
                if any(counts[j] >= target[j] for j in sub):
                    continue
                for j in sub:
                    counts[j] += 1
                chosen.append(sub)
                search(i + 1)
                chosen.pop()
                for j in sub:
                    counts[j] -= 1

        search(0)
        if best is not None:
            return best
    # Large n: greedy, each instance takes the subset that keeps counts and pairs most even.
    chosen = []
    counts = [0] * k
    for _ in range(n):
        def cost(sub: tuple[int, ...]) -> tuple:
            return (sum(counts[j] for j in sub), chosen.count(sub), pair_cost(chosen + [sub]), sub)
        sub = min(subsets, key=cost)
        chosen.append(sub)
        for j in sub:
            counts[j] += 1
    return chosen


def random_sets(n: int, distributed: Sequence[str], seed: int) -> list[tuple[str, ...]]:
    """n non-empty random subsets (each category in with probability ½), distinct while
    possible; reproducible from the seed."""
    _check_n(n, 1, None, "random")
    rng = random.Random(seed)
    sets: list[tuple[str, ...]] = []
    possible = 2 ** len(distributed) - 1
    while len(sets) < n:
        pick = tuple(c for c in distributed if rng.random() < 0.5)
        if pick and (pick not in sets or len(sets) >= possible):
            sets.append(pick)
    return sets


def focal_sets(criterion: str, n: int, distributed: Sequence[str], seed: int = 0) -> list[tuple[str, ...]]:
    """The category sets a masking criterion gives (also the focal sets of ``emphasis``)."""
    if criterion == "minimal":
        return minimal(n, distributed)
    if criterion == "balanced":
        return balanced(n, distributed)
    if criterion == "unbalanced":
        return unbalanced(n, distributed)
    if criterion == "incremental":
        return incremental(n, distributed)
    if criterion == "random":
        return random_sets(n, distributed, seed)
    raise DistributionError(f"unknown distribution criterion {criterion!r}; known: {', '.join(CRITERIA)}")


def distribute(criterion: str, n: int, order: str = THESIS_ORDER, seed: int = 0, *, factor: float = 2.0,
               focus: str = "balanced", sigma: float = 0.3,
               weights: Sequence[float] | None = None) -> list[EvalSpec]:
    """The instances' evaluation specs for a distribution criterion.

    ``weights`` (seven numbers, default 1) are the base weights every instance starts
    from, so masks and reweighting combine: ``emphasis`` multiplies them, a masking
    criterion keeps them.
    """
    base, distributed = parse_order(order)
    base_weights = list(weights) if weights is not None else [1.0] * 7
    if criterion in MASK_CRITERIA:
        return [EvalSpec(_mask(base, s), tuple(base_weights)) for s in focal_sets(criterion, n, distributed, seed)]
    if criterion == "emphasis":
        if focus not in MASK_CRITERIA:
            raise DistributionError(f"emphasis: focus {focus!r} is not one of {', '.join(MASK_CRITERIA)}")
        if not (factor > 0 and math.isfinite(factor)):
            raise DistributionError(f"emphasis: factor must be a positive number, got {factor!r}")
        specs = []
        for focal in focal_sets(focus, n, distributed, seed):
            w = list(base_weights)
            for c in focal:
                w[CATEGORIES.index(c)] *= factor
            specs.append(EvalSpec(_mask(base, distributed), tuple(w)))
        return specs
    if criterion == "random_weights":
        _check_n(n, 1, None, "random_weights")
        if not (sigma >= 0 and math.isfinite(sigma)):
            raise DistributionError(f"random_weights: sigma must be a number >= 0, got {sigma!r}")
        rng = random.Random(seed)
        specs = []
        for _ in range(n):
            # M keeps its weight: every instance's scores stay in pawns, which the
            # score-based selection criteria compare across instances.
            w = [base_weights[i] * (1.0 if c == "M" else math.exp(rng.gauss(0.0, sigma)))
                 for i, c in enumerate(CATEGORIES)]
            specs.append(EvalSpec(_mask(base, distributed), tuple(round(x, 4) for x in w)))
        return specs
    raise DistributionError(f"unknown distribution criterion {criterion!r}; known: {', '.join(CRITERIA)}")


def player_notation(specs: Sequence[EvalSpec]) -> str:
    """The thesis's notation: ``(MB)(MX)(MK)``."""
    return "".join(f"({s.letters})" for s in specs)


def _mask(base: str, categories: Sequence[str]) -> int:
    return sum(category_bit(c) for c in set(base) | set(categories))


def _check_n(n: int, low: int, high: int | None, name: str) -> None:
    if isinstance(n, bool) or not isinstance(n, int):
        raise DistributionError(f"{name}: n must be an integer, got {n!r}")
    if n < low or (high is not None and n > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise DistributionError(f"{name}: n = {n} is out of range ({span} for this order)")
