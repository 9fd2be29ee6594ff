"""``concilio bench``: search the bench positions; the node count is the search's signature."""
from __future__ import annotations

import argparse

from concilio.commands.inputs import UsageError, add_spec_args, spec
from concilio.commands.parsing import command

BENCH_DEPTH = 9  # players.bench.BENCH_DEPTH (not imported: it loads the engine; a test holds them equal)


def add_parser(sub) -> None:
    p = command(sub, "bench", "search the bench positions; the node count is the search's signature",
                "concilio bench --depth 6 --mask MKP")
    p.add_argument("--depth", type=int, default=BENCH_DEPTH, help="iterations per position")
    add_spec_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from players.bench import run_bench
    evaluation = spec(args.mask, args.weights)
    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    bench = run_bench(args.depth, evaluation)
    for i, r in enumerate(bench.results, 1):
        print(f"position {i:2d}: bestmove {r.bestmove:6s} score {r.score_text():10s} nodes {r.nodes:9d} "
              f"nps {r.nps}")
    print(f"Bench: {bench.nodes} nodes {bench.nps} nps")
    return 0
