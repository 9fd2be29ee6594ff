"""``concilio match``: a match, gauntlet or round robin from a YAML file; resumes from its
output folder."""
from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from concilio.commands.inputs import add_quiet, progress
from concilio.commands.parsing import command
from concilio.commands.scheduler import add_scheduler, remote_of


def add_parser(sub) -> None:
    p = command(sub, "match", "play a match, gauntlet or round robin (resumes from its output folder)",
                "concilio match quick --concurrency 2")
    p.add_argument("config", help="match file, or a name in configs/tournaments (quick, thesis, calibration)")
    p.add_argument("--concurrency", type=int, help="games in parallel (overrides the file; on a scheduler: at most)")
    add_scheduler(p, "games")
    p.add_argument("--output", help="output folder (overrides the file)")
    add_quiet(p)
    p.add_argument("--summary-only", action="store_true",
                   help="rewrite summary.md from the games so far and play nothing (safe while the match runs)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tournaments.match.config import load_match
    from tournaments.match.run import report_only, run_match
    config = load_match(args.config)
    if args.concurrency:
        config = replace(config, concurrency=args.concurrency)
    remote = remote_of(args, config.remote, args.concurrency)
    if remote is not None:
        config = config.on_scheduler(remote)
    if args.output:
        config = replace(config, output=Path(args.output).resolve())
    if args.summary_only:
        for s in report_only(config):
            print(s.line(config))
        print(f"summary: {config.output / 'summary.md'}")
        return 0
    print(f"Match {config.name}: {', '.join(p.name for p in config.players)} ({config.mode}); "
          f"{config.games} games per pairing; {config.describe_time_controls()}; output {config.output}")
    outcome = run_match(config, progress=progress(args))
    print()
    for s in outcome.summaries:
        print(s.line(config))
    if outcome.stopped_by_sprt:
        print("stopped: the SPRT decided")
    print(f"PGN: {config.output / 'games.pgn'}  summary: {config.output / 'summary.md'}")
    return 0
