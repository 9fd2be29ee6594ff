"""Evaluation spec: which knowledge categories an instance uses, and their weights.

The mask is a 7-bit code over the categories in the order M B X K P A R with M the
most significant bit, so ``"MKP"`` is 1001100 = 76.  Letters in any order and the
integer are both accepted; anything else is rejected with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from base.errors import ConcilioError

CATEGORIES = "MBXKPAR"
CATEGORY_NAMES = {
    "M": "material",
    "B": "positional value of pieces",
    "X": "mobility and attack combinations",
    "K": "king safety",
    "P": "pawn structure",
    "A": "piece protection",
    "R": "piece / pawn-structure relation",
}
FULL_MASK = 0b1111111


class EvalSpecError(ConcilioError, ValueError):
    """A mask or weight vector that does not describe an evaluation."""


def category_bit(letter: str) -> int:
    """Bit of a category in the 7-bit mask (M = 64 ... R = 1)."""
    return 1 << (6 - CATEGORIES.index(letter))


def parse_mask(mask: str | int) -> int:
    """``"MKP"``, ``"mkp"``, ``76`` or ``"76"`` → 76; raise ``EvalSpecError`` otherwise."""
    if isinstance(mask, bool):
        raise EvalSpecError(f"mask {mask!r}: expected category letters from {CATEGORIES} or an integer 1-127")
    if isinstance(mask, (int, np.integer)):
        value = int(mask)
    elif isinstance(mask, str):
        text = mask.strip()
        if text.isdigit():
            value = int(text)
        else:
            letters = text.upper()
            if not letters:
                raise EvalSpecError("mask is empty: name at least one category of " + CATEGORIES)
            bad = sorted({c for c in letters if c not in CATEGORIES})
            if bad:
                raise EvalSpecError(f"mask {mask!r}: unknown category letter(s) {', '.join(bad)}; "
                                    f"the categories are {CATEGORIES}")
            dup = sorted({c for c in letters if letters.count(c) > 1})
            if dup:
                raise EvalSpecError(f"mask {mask!r}: category letter(s) {', '.join(dup)} repeated")
            value = sum(category_bit(c) for c in letters)
    else:
        raise EvalSpecError(f"mask {mask!r}: expected category letters from {CATEGORIES} or an integer 1-127")
    if not 0 < value <= FULL_MASK:
        raise EvalSpecError(f"mask {mask!r}: the integer form must lie in 1-127 (0 would be an empty evaluation)")
    return value


def mask_letters(mask: int) -> str:
    """76 → ``"MKP"`` (the thesis's canonical order)."""
    return "".join(c for c in CATEGORIES if mask & category_bit(c))


def parse_weights(weights: Sequence[float] | dict | None) -> tuple[float, ...]:
    """Seven non-negative finite weights, from a sequence of 7 or a {letter: weight} dict."""
    if weights is None:
        return (1.0,) * 7
    if isinstance(weights, dict):
        bad = sorted(str(k) for k in weights if str(k).upper() not in CATEGORIES)
        if bad:
            raise EvalSpecError(f"weights: unknown category key(s) {', '.join(bad)}; the categories are {CATEGORIES}")
        values = [1.0] * 7
        for k, v in weights.items():
            values[CATEGORIES.index(str(k).upper())] = v
    else:
        values = list(weights)
        if len(values) != 7:
            raise EvalSpecError(f"weights: expected 7 numbers (one per category {CATEGORIES}), got {len(values)}")
    out = []
    for letter, v in zip(CATEGORIES, values):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise EvalSpecError(f"weights: {letter} weight {v!r} is not a number") from None
        if not np.isfinite(f) or f < 0:
            raise EvalSpecError(f"weights: {letter} weight {v!r} must be a finite number >= 0")
        out.append(f)
    return tuple(out)


@dataclass(frozen=True)
class EvalSpec:
    """Mask plus weights: everything the one compiled search needs to be an instance."""

    mask: int = FULL_MASK
    weights: tuple[float, ...] = field(default=(1.0,) * 7)

    @classmethod
    def parse(cls, mask: str | int = FULL_MASK, weights: Sequence[float] | dict | None = None) -> "EvalSpec":
        return cls(parse_mask(mask), parse_weights(weights))

    def __post_init__(self) -> None:
        parse_mask(self.mask)
        object.__setattr__(self, "weights", parse_weights(self.weights))

    @property
    def letters(self) -> str:
        return mask_letters(self.mask)

    def uses(self, letter: str) -> bool:
        return bool(self.mask & category_bit(letter))

    def weight_array(self) -> np.ndarray:
        """Weights as the float64[7] the jitted evaluation takes (0 for masked-out categories)."""
        return np.array([w if self.uses(c) else 0.0 for c, w in zip(CATEGORIES, self.weights)], np.float64)

    def __str__(self) -> str:
        if all(w == 1.0 for w in self.weights):
            return f"{self.letters} ({self.mask})"
        ws = " ".join(f"{c}={w:g}" for c, w in zip(CATEGORIES, self.weights) if self.uses(c))
        return f"{self.letters} ({self.mask}) [{ws}]"


FULL_ENGINE = EvalSpec()

