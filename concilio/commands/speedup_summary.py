"""``concilio speedup-summary``: the node-clock rows of a speedup run as one table and a plot
of E against workers, the seeds' published speedups beside them."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "speedup-summary", "one table and a plot of E against workers from a speedup's "
                "node-clock CSV, the seeds' published speedups beside them",
                "concilio speedup-summary docs/results/speedup/speedup-cluster-nodes.csv --plot speedup.png")
    p.add_argument("csv", nargs="+", help="the <name>-nodes.csv that concilio speedup wrote (and time-based "
                   "CSVs: their rows timed on as many cores as workers)")
    p.add_argument("--plot", help="where to write the plot (PNG)")
    p.add_argument("--table", help="also write the Markdown table here")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tournaments.speedup.summary import plot, read_rows, table
    rows = []
    for name in args.csv:
        path = Path(name)
        if not path.is_file():
            print(f"concilio speedup-summary: {path}: no such file (concilio speedup writes <name>-nodes.csv)",
                  file=sys.stderr)
            return 2
        rows += read_rows(path)
    lines = table(rows)
    print("\n".join(lines))
    if args.table:
        Path(args.table).write_text("\n".join(lines) + "\n")
    if args.plot:
        print(f"plot: {plot(rows, args.plot)}")
    return 0
