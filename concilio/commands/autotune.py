"""``concilio autotune``: search a pool of instances for the ensemble that maximises the
objective on training positions, write it as an ensemble YAML and judge it on held-out games
and suites; or, with ``--read``, read a written team on the same splits."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from concilio.commands.inputs import add_quiet, progress
from concilio.commands.parsing import command
from concilio.commands.scheduler import add_scheduler, with_workers

if TYPE_CHECKING:
    from tournaments.autotune.config import AutotuneConfig


def add_parser(sub) -> None:
    p = command(sub, "autotune", "choose an ensemble's instances from a pool on training positions",
                "concilio autotune distribution --size 4")
    p.add_argument("config", help="auto-tune file, or a name in configs/tuning (distribution, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for the searches (overrides the file; on a scheduler: "
                                               "at most)")
    add_scheduler(p, "searches")
    p.add_argument("--no-search", action="store_true", help="tune only on what the store holds")
    p.add_argument("--adopt", metavar="ENGINE", help="take over the store's searches of an older engine fingerprint "
                   "once a sample of them, searched again, is identical")
    p.add_argument("--size", type=int, help="exactly this many instances; the outputs' names end in -SIZE")
    p.add_argument("--verify", type=int, default=200, help="searches to repeat before adopting")
    p.add_argument("--read", metavar="TEAM", help="tune nothing: read this written team (an ensemble file or a name "
                   "in configs/ensembles) on the file's tune split and held-out games, beside the full engine")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tournaments.autotune.config import load_autotune
    from tournaments.autotune.run import format_outcome, run_autotune
    config = load_autotune(args.config)
    config = with_workers(config, args)
    if args.size:
        config = config.of_size(args.size)
    if args.read:
        return _read_team(config, args)
    outcome = run_autotune(config, search=not args.no_search, progress=progress(args),  # AutotuneError: exit 2
                           adopt=args.adopt, verify=args.verify)
    print(format_outcome(outcome))
    return 0


def _read_team(config: AutotuneConfig, args: argparse.Namespace) -> int:
    """``autotune --read TEAM``: the team's points on the two splits, nothing tuned or written."""
    from ensemble.config import load_ensemble
    from tournaments.autotune.run import read_team
    r = read_team(config, load_ensemble(args.read), search=not args.no_search, progress=progress(args))
    print(f"{r.team} ({r.criterion}) on {config.train.path.name}, {config.budget_key}, objective {config.objective}:")
    print(f"  tune split, {r.tune_positions} positions: {r.tune:.4f} (full engine {r.full_tune:.4f})")
    print(f"  held-out games, {r.held_out_positions} positions: {r.held_out:.4f} (full engine {r.full_held_out:.4f})")
    for label, tune, held in r.rules:
        print(f"  under {label}: tune {tune:.4f}, held-out {held:.4f}")
    return 0
