"""``concilio scaling``: the scaling sweep, every arm at every k against the full engine at N:
play its points, settle overlapping ones in duels, carry its games to and from the committed
archive, and report its table and plot."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from concilio.commands.inputs import UsageError, add_quiet, progress
from concilio.commands.parsing import command, steps
from concilio.commands.scheduler import add_scheduler, remote_of


def add_parser(sub) -> None:
    p = command(sub, "scaling", "the scaling sweep: every arm at every k against the full engine at N",
                "concilio scaling play sweep --arm F --workers 4", "concilio scaling report sweep")
    step = steps(p)
    q = command(step, "play", "play (or resume) the sweep's points, k by k",
                "concilio scaling play sweep --arm F --workers 4")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--arm", action="append", default=[], help="only this arm (repeatable): F, S, L, C, D, H")
    q.add_argument("--workers", type=int, action="append", default=[], help="only this k (repeatable)")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file; on a scheduler: at most)")
    add_scheduler(q, "games")
    add_quiet(q)
    q = command(step, "duel", "settle two points whose intervals overlap: one against the other, with an SPRT",
                "concilio scaling duel D4 L4")
    q.add_argument("first", help="a point, arm and k: D4")
    q.add_argument("second", help="the point it plays against: L4")
    q.add_argument("--sweep", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file; on a scheduler: at most)")
    add_scheduler(q, "games")
    add_quiet(q)
    q = command(step, "duels", "play every duel still owed (overlapping pairs), cheapest first; run one "
                               "per core: each claims the next unclaimed duel", "concilio scaling duels sweep --list")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--list", action="store_true", help="only list the duels owed and who holds them")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file; on a scheduler: at most)")
    add_scheduler(q, "games")
    add_quiet(q)
    for name, helptext in (("archive", "copy every point's and duel's games into a results folder to commit "
                                       "(whole games only; never shortens an archive)"),
                           ("restore", "put archived games back into the runs folder, so play and duel resume "
                                       "on a fresh clone (never shortens a local record)")):
        q = command(step, name, helptext, f"concilio scaling {name} sweep")
        q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
        q.add_argument("--results", type=Path,
                       help="the committed folder of compressed games (default: the sweep file's archive)")
    q = command(step, "report", "the sweep's table and plot from the games so far (safe while it runs)",
                "concilio scaling report sweep --output docs/results/scaling --document docs/results/scaling.md")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--output", type=Path, default=Path("reports/scaling"), help="folder for table.md and elo.png")
    q.add_argument("--document", type=Path, help="also put the table between the sweep-table markers of this file")
    q = command(step, "budgets", "sweeps that differ only in N side by side, by time per move: the best of each "
                                 "way at every k, and decomposition without shared memory against ensembles",
                "concilio scaling budgets sweep map --output docs/results/scaling/budgets "
                "--document docs/results/scaling.md")
    q.add_argument("configs", nargs="+", help="sweep files, or names in configs/scaling, smallest N first")
    q.add_argument("--output", type=Path, default=Path("reports/budgets"),
                   help="folder for budgets.md, elo-by-k.png and gap.png")
    q.add_argument("--document", type=Path, help="also put the table between the budgets markers of this file")
    q.add_argument("--nps", type=float, help="nodes per second that turn a node budget into milliseconds "
                                             "(default: the full engine's measured 1.9 M)")
    q.add_argument("--costs", type=Path, help="the measured real-time costs the charged tables read "
                                              "(default: the packaged data/calibration/realtime-costs.yaml)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return {"play": play, "duel": duel, "duels": duels, "archive": carry, "restore": carry,
            "report": report, "budgets": budgets}[args.step](args)


def play(args: argparse.Namespace) -> int:
    """Play the scaling sweep's points (each a resumable match in its own folder)."""
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.run import play_points
    sweep = _on_scheduler(load_sweep(args.config), args)
    points = sweep.points(tuple(args.arm), tuple(args.workers))
    if not points:
        print(f"{args.config}: no point matches --arm {args.arm} --workers {args.workers}", file=sys.stderr)
        return 2
    play_points(sweep, tuple(args.arm), tuple(args.workers), args.concurrency, progress=progress(args))
    return 0


def duel(args: argparse.Namespace) -> int:
    """Two of the sweep's points against each other, until the SPRT decides (resumable)."""
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.run import play_duel_claimed
    sweep = _on_scheduler(load_sweep(args.sweep), args)
    sweep.duel_match(args.first, args.second)  # a point the file lacks: ConfigError, exit 2
    if play_duel_claimed(sweep, args.first, args.second, args.concurrency, progress=progress(args)) is None:
        print(f"duel {args.first} against {args.second}: another process is playing it "
              f"(concilio scaling duels --list says which)", file=sys.stderr)
        return 1
    return 0


def duels(args: argparse.Namespace) -> int:
    """Every duel the sweep still owes, cheapest first, claimed one at a time (or listed)."""
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.run import pending_duels, play_duels
    sweep = _on_scheduler(load_sweep(args.config), args)
    if args.list:
        owed = pending_duels(sweep)
        for d in owed:
            print(f"{d.first} against {d.second}: {d.games} games"
                  + (f", LLR {d.llr:.2f}" if d.llr is not None else "")
                  + (f" (engine {', '.join(d.engines)})" if d.engines else "")
                  + (f", playing in {d.claimed_by}" if d.claimed_by else ""))
        print(f"{len(owed)} duel(s) owed")
        return 0
    played = play_duels(sweep, args.concurrency, progress=progress(args))
    print(f"{len(played)} duel(s) played" + (": " + ", ".join(f"{a}-{b}" for a, b, _ in played) if played else "")
          + "; no duel owed is left that this process could take")
    return 0


def _on_scheduler(sweep, args: argparse.Namespace):
    """The sweep with its games on ``--scheduler``'s workers (or the file's), at most
    ``--concurrency`` at once there when given."""
    from dataclasses import replace
    return replace(sweep, remote=remote_of(args, sweep.remote, args.concurrency))


def carry(args: argparse.Namespace) -> int:
    """Archive a sweep's games into the committed results folder, or restore them from it."""
    from tournaments.scaling.archive import archive, restore
    from tournaments.scaling.config import load_sweep
    sweep = load_sweep(args.config)
    step = archive if args.step == "archive" else restore
    results = args.results or sweep.archive
    copied = step(sweep, results)
    source, target = (sweep.output, results) if args.step == "archive" else (results, sweep.output)
    for c in copied:
        print(f"{c.folder}: {c.before} -> {c.games} games" if c.games != c.before
              else f"{c.folder}: summary.md of its {c.games} games")
    print(f"{args.step}: {len(copied)} folder(s) copied from {source} to {target}"
          + ("" if copied else " (each already held as many games)"))
    return 0


def report(args: argparse.Namespace) -> int:
    """The sweep's table and plot from the games played so far."""
    from tournaments.scaling.archive import require_restored
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.report import write_report
    sweep = load_sweep(args.config)
    require_restored(sweep, args.config)
    table, image = write_report(sweep, args.output, args.document)
    print(table.read_text())
    print(f"table: {table}" + (f"  plot: {image}" if image else ""))
    return 0


def budgets(args: argparse.Namespace) -> int:
    """Sweeps at several budgets read side by side (``tournaments.scaling.budgets``)."""
    from tournaments.scaling.archive import require_restored
    from tournaments.scaling.budgets import ENGINE_NPS, write_budgets
    from tournaments.scaling.budgets import MARKERS as BUDGETS_MARKERS
    from tournaments.scaling.realtime import MARKERS as REALTIME_MARKERS
    from tournaments.scaling.realtime import load_costs, write_realtime
    from tournaments.scaling.report import collect, require_regions
    from tournaments.scaling.config import load_sweep
    loaded = [(load_sweep(c), c) for c in args.configs]
    for sweep, given in loaded:
        require_restored(sweep, given)
    sweeps = sorted((s for s, _ in loaded), key=lambda s: s.nodes)
    costs = load_costs(args.costs)  # these two before any table is written: bad input changes nothing
    if args.document is not None:
        try:
            require_regions(args.document, BUDGETS_MARKERS, REALTIME_MARKERS)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UsageError(f"--document {exc}") from None
    collected = [collect(s) for s in sweeps]
    text, images = write_budgets(sweeps, args.output, args.document, args.nps or ENGINE_NPS, collected)
    charged = write_realtime(sweeps, collected, args.output, args.document, costs, args.nps or ENGINE_NPS)
    print(text.read_text())
    print(charged.read_text())
    print(f"tables: {text}, {charged}" + "".join(f"  plot: {i}" for i in images))
    return 0
