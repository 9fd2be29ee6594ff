"""Evaluation calls per second for the full mask and each single-category instance.

Masked instances must be measurably cheaper than the full evaluation: a simpler
evaluation is what buys an instance search depth.  Figures are ratios to the
material-only instance (M) measured in the same run.

Usage: python benchmarks/eval_speed.py [--positions N] [--repeat R]
"""
from __future__ import annotations

import argparse
import sys
import time

import chess
import numpy as np
from numba import njit

from evaluation.evaluate import evaluate_cached, new_pawn_cache, new_scratch
from evaluation.params import DEFAULT_PARAMS
from base.resources import data_file
from evaluation.spec import EvalSpec
from players.position import Position

MASKS = ("M", "MB", "MX", "MK", "MP", "MA", "MR", "MBXKPAR")
OPENINGS = data_file("openings/8moves_v3-1000.epd")


@njit(cache=True)
def _evaluate_many(bbs, boards, sts, hists, keys, mask, weights, params, terms, attacks, counts, pawn_keys,
                   pawn_values, repeat):
    """The search's evaluation (``evaluate_cached``) with its pawn cache off (``pawn_keys`` and
    ``pawn_values`` unused): ``evaluate``, the stand-alone entry point, allocates such dummies on
    every call, which would be timed too."""
    total = 0
    for _ in range(repeat):
        for i in range(bbs.shape[0]):
            pos = (bbs[i], boards[i], sts[i], hists, keys)
            total += evaluate_cached(pos, mask, weights, params, terms, attacks, counts, pawn_keys, pawn_values,
                                     False)
    return total


def load_positions(n: int):
    lines = [l for l in OPENINGS.read_text().splitlines() if l.strip()][:n]
    arrays = [Position(chess.Board.from_epd(l)[0]).arrays for l in lines]
    bbs = np.stack([a[0] for a in arrays])
    boards = np.stack([a[1] for a in arrays])
    sts = np.stack([a[2] for a in arrays])
    return bbs, boards, sts, arrays[0][3], arrays[0][4]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args(argv)
    bbs, boards, sts, hist, keys = load_positions(args.positions)
    scratch = (*new_scratch(), *new_pawn_cache(1))
    rates = {}
    for letters in MASKS:
        spec = EvalSpec.parse(letters)
        weights = spec.weight_array()
        _evaluate_many(bbs, boards, sts, hist, keys, spec.mask, weights, DEFAULT_PARAMS, *scratch, 1)
        start = time.perf_counter()
        _evaluate_many(bbs, boards, sts, hist, keys, spec.mask, weights, DEFAULT_PARAMS, *scratch, args.repeat)
        rates[letters] = args.repeat * len(bbs) / (time.perf_counter() - start)
    base = rates["M"]
    print(f"{'instance':10s} {'evals/s':>12s} {'time vs M':>10s} {'time vs full':>12s}")
    for letters, rate in rates.items():
        print(f"{letters:10s} {rate:12,.0f} {base / rate:10.2f} {rates['MBXKPAR'] / rate:12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
