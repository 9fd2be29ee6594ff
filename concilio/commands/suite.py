"""``concilio suite``: score players and selection criteria on EPD test suites (phase 1
searches, phase 2 metrics)."""
from __future__ import annotations

import argparse

from concilio.commands.inputs import add_quiet, progress
from concilio.commands.parsing import command
from concilio.commands.scheduler import add_scheduler, with_workers


def add_parser(sub) -> None:
    p = command(sub, "suite", "score players and selection criteria on EPD test suites", "concilio suite smoke")
    p.add_argument("config", help="suite-run file, or a name in configs/suites (thesis, smoke, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for phase 1 (overrides the file; on a scheduler: at "
                                               "most)")
    add_scheduler(p, "searches")
    p.add_argument("--no-search", action="store_true", help="score only what the store holds")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tournaments.suite.config import load_suite
    from tournaments.suite.run import format_outcome, run_suite
    config = load_suite(args.config)
    config = with_workers(config, args)
    outcome = run_suite(config, search=not args.no_search, progress=progress(args))
    print(format_outcome(outcome))
    print(f"\n{outcome.searches_added} searches added ({outcome.searches_stored} in {config.store}); "
          f"report: {', '.join(str(p) for p in outcome.report_files)}")
    return 0
