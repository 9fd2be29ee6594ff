"""The most any window can save an exact search: iterative deepening where every iteration is
searched in the window (v − 1, v + 1) around its true value v (known from a sequential search
first), against full-window iterative deepening, each with one table of its own, on the
Bratko-Kopec positions in exact mode.  Parallel aspiration's decisive worker searches a window
that holds the value, never a narrower one, so N_full / N_oracle bounds its node-clock speedup
over full-window alpha-beta (the S_own column of ``docs/results/parallel-search.md``).

Usage: python benchmarks/aspiration_oracle.py [--depth 6] [--limit N]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from base.resources import resolve_data_reference
from base.runner import InlineRunner
from players.core.search import INF
from players.decomposition.options import SearcherConfig
from players.decomposition.runner import drop_prefix
from players.decomposition.worker import WindowJob, run
from players.limits import Limit
from tournaments.records.epd import read_suite

EXACT = SearcherConfig(null_move=False, lmr=False, futility=False, exact=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    suite = read_suite(resolve_data_reference("data:suites/bratko-kopec.epd", Path(".")))
    fens = [p.fen for p in suite.positions][: args.limit or None]
    full = oracle = 0
    runner = InlineRunner()  # the windows' searchers live in its state, freed by key after each position

    def window(key: str, job: str, fen: str, depth: int, alpha: int, beta: int):
        return runner.submit_to(0, run, key, EXACT, job, WindowJob(fen, (), depth, alpha, beta)).result()

    for i, fen in enumerate(fens):
        values = [it.score_cp for it in EXACT.make_searcher().search(fen, Limit(depth=args.depth)).iterations]
        key = f"oracle-{time.time_ns()}-{i}"
        try:
            for d, v in enumerate(values, 1):
                full += window(f"{key}-full", f"{key}-f{d}", fen, d, -INF, INF).nodes
                r = window(f"{key}-oracle", f"{key}-o{d}", fen, d, v - 1, v + 1)
                assert r.score == v, (i, d, r.score, v)
                oracle += r.nodes
        finally:
            drop_prefix(runner, key)
    print(f"{len(fens)} positions, depth {args.depth}: full-window ID {full} nodes, oracle-window ID {oracle} "
          f"nodes, ratio {full / oracle:.3f}")


if __name__ == "__main__":
    main()
