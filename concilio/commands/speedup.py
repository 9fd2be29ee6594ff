"""``concilio speedup``: sequential against parallel search at a fixed depth (the thesis's
speedup table)."""
from __future__ import annotations

import argparse
from pathlib import Path

from concilio.commands.parsing import command
from concilio.commands.scheduler import add_scheduler, remote_of


def add_parser(sub) -> None:
    p = command(sub, "speedup", "parallel search against the sequential one at a fixed depth",
                "concilio speedup speedup-shared --depth 8 --limit 10")
    p.add_argument("config", help="speedup file, or a name in configs/decomposition")
    p.add_argument("--depth", type=int, help="override the file's depth")
    p.add_argument("--limit", type=int, help="only the first N positions")
    p.add_argument("--csv", help="where to write the CSV (default reports/speedup-<name>.csv)")
    p.add_argument("--only", nargs="+", metavar="NAME",
                   help="only these of the file's algorithms (its 'name's): a long table run a row at a time")
    add_scheduler(p, "parallel searches' workers (n of its threads for n workers; the sequential reference runs "
                     "here)", file=False)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tournaments.speedup.run import HEAD, load_speedup, run_speedup, write_csv
    from base.config import ConfigError
    settings, variants = load_speedup(args.config)
    if args.only:
        unknown = sorted(set(args.only) - {v.name for v in variants})
        if unknown:
            raise ConfigError([f"--only: {', '.join(unknown)} not in {args.config}; its algorithms: "
                               f"{', '.join(v.name for v in variants)}"])
        variants = [v for v in variants if v.name in args.only]
    if args.depth:
        settings["depth"] = args.depth
    if args.limit:
        settings["limit"] = args.limit
    remote = remote_of(args)
    print(HEAD)
    rows = run_speedup(settings, variants, remote=remote)
    out = Path(args.csv or f"reports/speedup-{settings['name']}.csv")
    write_csv(rows, out)
    print(f"CSV: {out}")
    return 0
