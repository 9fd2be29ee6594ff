"""Match statistics: Elo difference with a 95% interval (trinomial, and pentanomial
for paired openings), likelihood of superiority, and the sequential probability ratio
test that stops a match once it has decided.

Conventions are those of engine testing (cutechess-cli, fishtest): the logistic Elo
model ``score = 1 / (1 + 10^(−elo/400))``; the interval is the normal interval on
the mean score mapped through the model; the SPRT uses the normal approximation of
the generalised log-likelihood ratio.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from scipy.stats import norm

Z95 = float(norm.ppf(0.975))


def elo_from_score(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    games: int
    score: float
    elo: float
    low: float
    high: float
    los: float  # likelihood of superiority, 0..1
    # Standard error of the mean score as computed: not read back from the interval, whose
    # bounds are cut at scores 0 and 1 (a point near 95% would get too small an error).
    se: float = math.nan

    @property
    def p_value(self) -> float:
        """Two-sided p-value of 'the score is not 50 %' (the same normal model as LOS)."""
        return min(1.0, 2 * min(self.los, 1 - self.los))

    def format(self) -> str:
        def fmt(x: float) -> str:
            return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{round(x) + 0:+d}"
        return f"{fmt(self.elo)} [{fmt(self.low)}, {fmt(self.high)}] LOS {100 * self.los:.1f}%"


def _estimate(outcomes: Sequence[float], weights: Sequence[int], games: int) -> EloEstimate:
    n = sum(weights)
    if n == 0:
        return EloEstimate(0, 0.5, 0.0, -math.inf, math.inf, 0.5, math.inf)
    mean = sum(o * w for o, w in zip(outcomes, weights)) / n
    var = sum(w * (o - mean) ** 2 for o, w in zip(outcomes, weights)) / n
    se = math.sqrt(var / n)
    low, high = mean - Z95 * se, mean + Z95 * se
    los = 0.5 if se == 0 else float(norm.cdf((mean - 0.5) / se))
    if se == 0:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return EloEstimate(games, mean, elo_from_score(mean), elo_from_score(low), elo_from_score(high), los, se)


def trinomial(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo from game results, games treated as independent."""
    return _estimate((1.0, 0.5, 0.0), (wins, draws, losses), wins + draws + losses)


def from_points(points: Sequence[float]) -> EloEstimate:
    """Elo from per-game points, fractional ones included (the thesis's adjudication gives
    0.5 + score/200 for a cut game); equals ``trinomial`` when every game is 1, ½ or 0."""
    counts: dict[float, int] = {}
    for p in points:
        counts[p] = counts.get(p, 0) + 1
    return _estimate(tuple(counts), tuple(counts.values()), len(points))


def pentanomial(pairs: Sequence[int]) -> EloEstimate:
    """Elo from game pairs (the same opening with colours swapped): ``pairs[k]`` counts
    pairs that scored k/2 points out of 2 (k = 0…4).  Pairing removes the opening's
    bias from the variance, so the interval is honest for paired books."""
    if len(pairs) != 5:
        raise ValueError("pentanomial counts are five numbers: pairs scoring 0, 0.5, 1, 1.5, 2")
    return _estimate(tuple(k / 4 for k in range(5)), pairs, 2 * sum(pairs))


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority from decisive games only (draws carry no information)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


@dataclass(frozen=True)
class SprtState:
    llr: float
    lower: float
    upper: float

    @property
    def decision(self) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or None (keep playing)."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None

    def format(self) -> str:
        return f"LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}]" + \
            (f" -> {self.decision}" if self.decision else "")


def sprt(wins: int, draws: int, losses: int, elo0: float, elo1: float, alpha: float = 0.05,
         beta: float = 0.05) -> SprtState:
    """Generalised SPRT on game results (normal approximation of the log-likelihood ratio)."""
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    n = wins + draws + losses
    if n == 0:
        return SprtState(0.0, lower, upper)
    mean = (wins + 0.5 * draws) / n
    var = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean ** 2) / n
    if var == 0:
        return SprtState(0.0, lower, upper)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    return SprtState(llr, lower, upper)


def pentanomial_sprt(pairs: Sequence[int], elo0: float, elo1: float, alpha: float = 0.05,
                     beta: float = 0.05) -> SprtState:
    """The generalised SPRT on game pairs (fishtest's and OpenBench's model for paired
    books): the log-likelihood ratio of the pair scores' mean under a normal approximation,
    with the variance of the pairs, which pairing makes smaller than the games'.
    ``pairs[k]`` counts pairs that scored k/2 of 2 points."""
    if len(pairs) != 5:
        raise ValueError("pentanomial counts are five numbers: pairs scoring 0, 0.5, 1, 1.5, 2")
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    n = sum(pairs)
    if n == 0:
        return SprtState(0.0, lower, upper)
    mean = sum(c * k / 4 for k, c in enumerate(pairs)) / n
    var = sum(c * (k / 4 - mean) ** 2 for k, c in enumerate(pairs)) / n
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    if var == 0:  # every pair alike (a handful of pairs): the normal model has nothing to go on, so no decision
        return SprtState(0.0, lower, upper)
    return SprtState(n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var), lower, upper)


@dataclass(frozen=True)
class LadderRating:
    """A rating fitted on anchored opponents' scale (Stockfish's ``UCI_Elo``, say)."""

    rating: float
    low: float
    high: float
    games: int

    def format(self) -> str:
        return f"{self.rating:.0f} [{self.low:.0f}, {self.high:.0f}]"


def ladder_rating(levels: Sequence[tuple[float, Sequence[int]]]) -> LadderRating | None:
    """One rating from games against opponents of known rating, all levels at once.

    ``levels`` holds (opponent's rating, pentanomial pair counts from the rated player's side).
    The rating solves the logistic model's likelihood equation, sum over games of (points −
    expected points) = 0, which stays finite when some levels were all won or all lost (where a
    per-level Elo is infinite).  Its interval is the sandwich (robust) one: the score's variance
    is taken from the pairs themselves, so draws and the book's pairing count as they did, not
    as the binomial model would have them.  None when every game was won, or every game lost.
    """
    data = [(float(r), list(c)) for r, c in levels if sum(c)]
    games = 2 * sum(sum(c) for _, c in data)
    points = sum(k / 2 * n for _, c in data for k, n in enumerate(c))
    if not data or points <= 0 or points >= games:
        return None
    scale = math.log(10) / 400

    def expected(rating: float) -> float:
        return sum(2 * sum(c) * score_from_elo(rating - r) for r, c in data)

    low, high = min(r for r, _ in data) - 2000, max(r for r, _ in data) + 2000
    for _ in range(200):  # expected points rise with the rating: bisection is enough
        mid = (low + high) / 2
        low, high = (mid, high) if expected(mid) < points else (low, mid)
    rating = (low + high) / 2
    info = var = 0.0
    for r, c in data:
        p = score_from_elo(rating - r)
        info += 2 * sum(c) * p * (1 - p)
        var += sum(n * (2 * (k / 4 - p)) ** 2 for k, n in enumerate(c))  # a pair's points minus expected
    se = math.sqrt(var) / (scale * info)
    return LadderRating(rating, rating - Z95 * se, rating + Z95 * se, games)
