"""Honest statistics for suite and match results (scipy underneath).

* ``proportion``: a rate with its 95% Wilson interval (sound near 0 and 1, where the
  normal approximation is not).
* ``mcnemar``: the exact McNemar test of two players on the same positions — only the
  positions one solves and the other does not carry information.
* ``mean_se``: a mean with its standard error, the variance over n as the pentanomial's (for
  differences taken opening by opening between two points that played the same openings).
* ``holm`` and ``benjamini_hochberg``: p-values adjusted for the many comparisons of one
  report.  The best of many cells is small by chance; a report calls a difference
  significant only when its Holm-adjusted p-value (family-wise error) is below 0.05, and
  gives the Benjamini-Hochberg value (false discovery rate) beside it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from scipy.stats import binomtest, false_discovery_control

SIGNIFICANCE = 0.05


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


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error, sqrt(variance / n) with the variance over n."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = sum(values) / n
    return mean, (sum((v - mean) ** 2 for v in values) / n / n) ** 0.5


def proportion(successes: int, trials: int, confidence: float = 0.95) -> Proportion:
    if trials <= 0:
        return Proportion(0, 0, 0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    ci = binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return Proportion(successes, trials, float(ci.low), float(ci.high))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: controls the chance of any false 'significant' in the
    family, without assuming the tests independent."""
    m = len(p_values)
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda k: p_values[k])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg q-values: control the expected share of false discoveries."""
    if not p_values:
        return []
    return [float(q) for q in false_discovery_control(list(p_values), method="bh")]


@dataclass(frozen=True)
class McNemar:
    only_a: int  # positions A solves and B does not
    only_b: int
    p_value: float
    p_holm: float | None = None  # adjusted over the report's comparisons
    p_bh: float | None = None

    @property
    def significant(self) -> bool:
        """Below 0.05 after Holm's correction (the raw p-value never decides)."""
        return self.p_holm is not None and self.p_holm < SIGNIFICANCE

    def format(self) -> str:
        text = f"+{self.only_a}/-{self.only_b} p={self.p_value:.3f}"
        if self.p_holm is not None:
            text += f" Holm {self.p_holm:.3f} BH {self.p_bh:.3f}" + (" *" if self.significant else "")
        return text


def adjust_mcnemar(tests: Sequence[McNemar]) -> list[McNemar]:
    """The tests with their p-values adjusted as one family."""
    raw = [t.p_value for t in tests]
    return [replace(t, p_holm=h, p_bh=q) for t, h, q in zip(tests, holm(raw), benjamini_hochberg(raw))]


def mcnemar(a: list[bool], b: list[bool]) -> McNemar:
    """Exact two-sided McNemar test of paired outcomes (binomial test on the discordant pairs)."""
    if len(a) != len(b):
        raise ValueError("paired outcomes must have the same length")
    only_a = sum(1 for x, y in zip(a, b) if x and not y)
    only_b = sum(1 for x, y in zip(a, b) if y and not x)
    n = only_a + only_b
    p = 1.0 if n == 0 else float(binomtest(only_a, n, 0.5).pvalue)
    return McNemar(only_a, only_b, p)
