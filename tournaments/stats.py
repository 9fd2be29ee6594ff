"""Honest statistics for suite and match results (scipy underneath).

* ``proportion``: a rate with its 95% Wilson interval (sound near 0 and 1, where the
  normal approximation is not).
* ``mcnemar``: the exact McNemar test of two players on the same positions — only the
  positions one solves and the other does not carry information.
"""
from __future__ import annotations

from dataclasses import dataclass

from scipy.stats import binomtest


@dataclass(frozen=True)
class Proportion:
    successes: int
    trials: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.successes / self.trials if self.trials else 0.0

    def format(self, digits: int = 3) -> str:
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def proportion(successes: int, trials: int, confidence: float = 0.95) -> Proportion:
    if trials <= 0:
        return Proportion(0, 0, 0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    ci = binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return Proportion(successes, trials, float(ci.low), float(ci.high))


@dataclass(frozen=True)
class McNemar:
    only_a: int  # positions A solves and B does not
    only_b: int
    p_value: float

    def format(self) -> str:
        return f"+{self.only_a}/-{self.only_b} p={self.p_value:.3f}"


def mcnemar(a: list[bool], b: list[bool]) -> McNemar:
    """Exact two-sided McNemar test of paired outcomes (binomial test on the discordant pairs)."""
    if len(a) != len(b):
        raise ValueError("paired outcomes must have the same length")
    only_a = sum(1 for x, y in zip(a, b) if x and not y)
    only_b = sum(1 for x, y in zip(a, b) if y and not x)
    n = only_a + only_b
    p = 1.0 if n == 0 else float(binomtest(only_a, n, 0.5).pvalue)
    return McNemar(only_a, only_b, p)
