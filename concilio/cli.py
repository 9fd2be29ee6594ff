"""The ``concilio`` command: one front door with a subcommand per job.

Every subcommand turns bad input (a FEN, a mask, a limit) into one clear line on
stderr and exit code 2, the convention of command-line tools for usage errors.
"""
from __future__ import annotations

import argparse
import sys
import time

import chess
import numpy as np

from .errors import ConcilioError
from .interrupts import Interrupted, stop_on_signals

EXIT_USAGE = 2
EXIT_SIGINT = 130  # the shell's 128 + SIGINT
# Long commands: Ctrl-C or SIGTERM stops them cleanly.  Those that resume from what they
# wrote are rerun to finish; the others start again.
RESUMABLE = {"match", "suite", "label", "autotune", "book", "fit positions"}
LONG = {"match", "suite", "label", "autotune", "book", "fit", "speedup", "speed-table"}


class UsageError(ConcilioError):
    """Bad input from the user: printed as one line, exit code 2."""


def _position(fen: str | None, moves: list[str] | None = None):
    from players.position import Position
    try:  # InvalidPositionError (bad FEN) and ValueError (illegal move) both name the input
        pos = Position.from_fen(fen or chess.STARTING_FEN)
        for uci in moves or ():
            pos.push_uci(uci)
        return pos
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _spec(mask: str, weights: list[str] | None):
    from evaluation.spec import EvalSpec
    values = None
    if weights:
        values = [w for item in weights for w in item.replace(",", " ").split()]
    return EvalSpec.parse(mask, values)


def cmd_perft(args: argparse.Namespace) -> int:
    from players.core.movegen import perft, perft_divide
    from players.core.moves import MAX_MOVES, move_to_uci
    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    pos = _position(args.fen)
    perft(pos.arrays, 1)  # load the compiled code before the clock starts
    start = time.perf_counter()
    if args.divide:
        moves = np.zeros(MAX_MOVES, np.int64)
        counts = np.zeros(MAX_MOVES, np.int64)
        perft_divide(pos.arrays, 1, moves, counts)
        start = time.perf_counter()
        n = perft_divide(pos.arrays, args.depth, moves, counts)
        for m, c in sorted(zip(moves[:n], counts[:n]), key=lambda mc: move_to_uci(int(mc[0]))):
            print(f"{move_to_uci(int(m))}: {int(c)}")
        nodes = int(counts[:n].sum())
        print()
    else:
        nodes = int(perft(pos.arrays, args.depth))
    elapsed = time.perf_counter() - start
    nps = int(nodes / elapsed) if elapsed > 0 else 0
    print(f"Nodes: {nodes}  time: {elapsed:.3f} s  nps: {nps}")
    return 0


def _limits(args: argparse.Namespace):
    from players.result import SearchLimits
    return SearchLimits(depth=args.depth, nodes=args.nodes, movetime=args.movetime)


def _print_info(it) -> None:
    print(it.uci(), flush=True)


def cmd_search(args: argparse.Namespace) -> int:
    from players.searcher import Searcher
    limits = _limits(args)
    spec = _spec(args.mask, args.weights)
    pos = _position(args.fen, args.moves)
    if args.hash <= 0:
        raise UsageError(f"--hash must be positive, got {args.hash}")
    searcher = Searcher(spec, args.hash)
    result = searcher.search(pos, limits, info=_print_info)
    print(f"bestmove {result.bestmove}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from players.bench import run_bench
    spec = _spec(args.mask, args.weights)
    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    bench = run_bench(args.depth, spec)
    for i, r in enumerate(bench.results, 1):
        print(f"position {i:2d}: bestmove {r.bestmove:6s} score {r.score_text():10s} nodes {r.nodes:9d} "
              f"nps {r.nps}")
    print(f"Bench: {bench.nodes} nodes {bench.nps} nps")
    return 0


def cmd_speed_table(args: argparse.Namespace) -> int:
    """Measure the speeds behind time-equivalent node budgets (``players.speed``)."""
    from pathlib import Path

    from players.speed_measure import measure_speed_table
    masks = list(range(1, 128)) if args.all_masks else list(range(64, 128))
    table = measure_speed_table(masks, args.team or [], args.nodes, args.rounds, args.movetime,
                                progress=lambda line: print(line, file=sys.stderr))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table.to_json() + "\n")
    slow = min(table.masks.items(), key=lambda kv: kv[1])
    fast = max(table.masks.items(), key=lambda kv: kv[1])
    print(f"{len(table.masks)} masks: speed {slow[1]:.3f} (mask {slow[0]}) to {fast[1]:.3f} (mask {fast[0]}); "
          + ", ".join(f"{k} {v:.3f}" for k, v in table.teams.items()) + f"; written to {out}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from evaluation.trace import trace
    spec = _spec(args.mask, args.weights)
    pos = _position(args.fen, args.moves)
    print(trace(pos, spec).format())
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """One ensemble decision: the instances, their answers, the criterion's values."""
    from dataclasses import replace

    from ensemble.config import load_ensemble
    from ensemble.player import EnsemblePlayer
    from players.player import MoveLimits
    pos = _position(args.fen, args.moves)
    config = load_ensemble(args.config)
    if args.budget_mode:
        config = config.with_budget(replace(config.budget, mode=args.budget_mode))
    budget = config.budget
    if args.movetime or args.nodes or args.depth:
        budget = replace(budget, movetime=args.movetime, nodes=args.nodes, depth=args.depth)
        config = config.with_budget(budget)
    limits = MoveLimits(nodes=budget.nodes, depth=budget.depth, movetime=budget.movetime)
    if args.criterion:
        config = config.with_selection(args.criterion)
    if args.scheduler:
        config = replace(config, cluster=replace(config.cluster, scheduler=args.scheduler, workers=None))
    print(f"Ensemble {config.name}: {config.notation}  [{config.source}]")
    for inst in config.instances:
        options = inst.search
        extra = f" aspiration={options.aspiration}" if options.aspiration != 30 else ""
        extra += "" if options.null_move else " no-null-move"
        extra += f" depth_cap={options.depth_cap}" if options.depth_cap else ""
        print(f"  {inst.label:24s} weights {inst.weights_text()}{extra}")
    print(f"Selection {config.selection.criterion} {dict(config.selection.params)}; budget {config.budget.describe()}")
    with EnsemblePlayer(config, on_event=lambda m: print(f"  ! {m}", file=sys.stderr)) as player:
        print(f"Cluster: {player.cluster_description}")
        if player.dashboard:
            print(f"Dashboard: {player.dashboard}")
        print()
        player.play(pos.to_board(), limits)
    print(player.last_decision.format())
    return 0


def cmd_suite(args: argparse.Namespace) -> int:
    """Score players and selection criteria on test suites (phase 1 searches, phase 2 metrics)."""
    from tournaments.suite_config import load_suite
    from tournaments.suite_run import format_outcome, run_suite
    config = load_suite(args.config)
    if args.workers:
        from dataclasses import replace
        config = replace(config, workers=args.workers)
    outcome = run_suite(config, search=not args.no_search, progress=not args.quiet)
    print(format_outcome(outcome))
    print(f"\n{outcome.searches_added} searches added ({outcome.searches_stored} in {config.store}); "
          f"report: {', '.join(str(p) for p in outcome.report_files)}")
    return 0


def cmd_autotune(args: argparse.Namespace) -> int:
    """Search a pool of instances for the ensemble that maximises the objective on training
    positions; write it as an ensemble YAML and judge it on held-out games and suites."""
    from tournaments.autotune_config import load_autotune
    from tournaments.autotune_run import format_outcome, run_autotune
    config = load_autotune(args.config)
    if args.workers:
        from dataclasses import replace
        config = replace(config, workers=args.workers)
    outcome = run_autotune(config, search=not args.no_search, progress=not args.quiet)  # AutotuneError: exit 2
    print(format_outcome(outcome))
    return 0


def cmd_fit(args: argparse.Namespace) -> int:
    """The term-value fit's two steps (``tournaments.tuning`` holds them and their options)."""
    from tournaments.tuning import main as fit_main
    return fit_main(args.args)


def cmd_book(args: argparse.Namespace) -> int:
    """Make (or extend) an opening book with an engine's MultiPV choices."""
    from pathlib import Path

    from concilio.resources import resolve_data_reference
    from tournaments.book import BookPlan, make_book

    exclude = []
    for reference in args.exclude:
        path = resolve_data_reference(reference, Path.cwd())
        if path is None:
            raise UsageError(f"--exclude {reference}: no such file")
        exclude.append(path)
    plan = BookPlan(Path(args.out), args.openings, args.plies, args.depth, args.multipv, args.window, args.balance,
                    args.seed, args.engine, tuple(exclude))
    count = make_book(plan, progress=not args.quiet)  # EngineNotFoundError (a ConcilioError): exit 2
    print(f"{plan.out}: {count} openings")
    return 0


def cmd_label(args: argparse.Namespace) -> int:
    """Make or extend a labelled training set (self-play and PGN positions, engine labels)."""
    from pathlib import Path

    from concilio.resources import resolve_data_reference
    from tournaments.labelling import LabelPlan, export_epd, run_label

    def existing(name: str, what: str) -> Path:
        found = resolve_data_reference(name, Path.cwd())
        if found is None:
            raise UsageError(f"{what}: no such file: {name}")
        return found

    for name, value in (("--games", args.games), ("--per-game", args.per_game), ("--nodes", args.nodes),
                        ("--multipv", args.multipv), ("--workers", args.workers)):
        if value is not None and value < (0 if name == "--games" else 1):
            raise UsageError(f"{name} must be {'>= 0' if name == '--games' else 'positive'}, got {value}")
    if args.per_game > 100:
        raise UsageError(f"--per-game must be at most 100 (positions are drawn from 100 plies), got {args.per_game}")
    try:
        budgets = tuple(int(b) for b in args.budgets.split(","))
    except ValueError:
        raise UsageError(f"--budgets: expected node counts separated by commas, got {args.budgets!r}") from None
    if not budgets or min(budgets) < 1:
        raise UsageError(f"--budgets: node counts must be positive, got {args.budgets!r}")
    plan = LabelPlan(Path(args.store), existing(args.book, "--book") if args.games else None, args.games,
                     args.per_game, budgets, args.seed, tuple(existing(p, "--pgn") for p in args.pgn or ()),
                     args.pgn_per_game, args.engine, args.nodes, args.multipv, workers=args.workers)
    started = time.perf_counter()
    outcome = run_label(plan, progress=not args.quiet, warn=lambda line: print(line, file=sys.stderr))
    print(f"{outcome.games} games played, {outcome.positions_added} positions and {outcome.labels_added} labels "
          f"added in {time.perf_counter() - started:.0f} s; {args.store} holds {outcome.positions} positions, "
          f"{outcome.labels} labelled")
    if args.export:
        n = export_epd(Path(args.store), Path(args.export), first=args.first)
        print(f"exported {n} positions to {args.export}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    """A match, gauntlet or round robin from a YAML file; resumes from its output folder."""
    from dataclasses import replace

    from tournaments.match_config import load_match
    from tournaments.match_run import run_match
    config = load_match(args.config)
    if args.concurrency:
        config = replace(config, concurrency=args.concurrency)
    if args.output:
        from pathlib import Path
        config = replace(config, output=Path(args.output).resolve())
    if args.summary_only:
        from tournaments.match_run import report_only
        for s in report_only(config):
            print(s.line(config))
        print(f"summary: {config.output / 'summary.md'}")
        return 0
    print(f"Match {config.name}: {', '.join(p.name for p in config.players)} ({config.mode}); "
          f"{config.games} games per pairing; {config.describe_time_controls()}; output {config.output}")
    outcome = run_match(config, progress=not args.quiet)
    print()
    for s in outcome.summaries:
        print(s.line(config))
    if outcome.stopped_by_sprt:
        print("stopped: the SPRT decided")
    print(f"PGN: {config.output / 'games.pgn'}  summary: {config.output / 'summary.md'}")
    return 0


def cmd_uci(args: argparse.Namespace) -> int:
    """Speak UCI on stdin/stdout (the full engine, an instance mask or an ensemble file)."""
    from concilio.uci import UciEngine
    engine = UciEngine(args.config)
    engine.run(sys.stdin)
    return 0


def cmd_speedup(args: argparse.Namespace) -> int:
    """Sequential against parallel search at a fixed depth: the thesis's speedup table."""
    from pathlib import Path

    from tournaments.speedup import HEAD, load_speedup, run_speedup, write_csv
    settings, variants = load_speedup(args.config)
    if args.depth:
        settings["depth"] = args.depth
    if args.limit:
        settings["limit"] = args.limit
    print(HEAD)
    rows = run_speedup(settings, variants)
    out = Path(args.csv or f"reports/speedup-{settings['name']}.csv")
    write_csv(rows, out)
    print(f"CSV: {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from evaluation.spec import CATEGORIES
    parser = argparse.ArgumentParser(prog="concilio", description="Knowledge-distribution chess players.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("perft", help="count leaf nodes of the legal move tree")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.set_defaults(func=cmd_perft)

    def add_spec_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--mask", default=CATEGORIES, help="categories, as letters (MKP) or the 7-bit integer (76)")
        q.add_argument("--weights", nargs="+", help="seven weights in the order M B X K P A R")

    p = sub.add_parser("search", help="search one position and print the best move")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    limit = p.add_mutually_exclusive_group(required=True)
    limit.add_argument("--depth", type=int)
    limit.add_argument("--nodes", type=int)
    limit.add_argument("--movetime", type=int, help="milliseconds")
    p.add_argument("--hash", type=float, default=16, help="transposition table size in MB")
    add_spec_args(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("eval", help="trace the evaluation category by category")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    add_spec_args(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("play", help="let an ensemble (YAML file) choose a move and show why")
    p.add_argument("config", help="ensemble file, or a name in configs/ensembles (3b, full, ...)")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=int, help="milliseconds per instance (overrides the file)")
    limit.add_argument("--nodes", type=int, help="nodes per instance (overrides the file)")
    limit.add_argument("--depth", type=int, help="depth per instance (overrides the file)")
    p.add_argument("--budget-mode", choices=["per_instance", "equal_total"])
    p.add_argument("--criterion", help="selection criterion (overrides the file)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler, tcp://host:port")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("suite", help="score players and selection criteria on EPD test suites")
    p.add_argument("config", help="suite-run file, or a name in configs/suites (thesis, smoke, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for phase 1 (overrides the file)")
    p.add_argument("--no-search", action="store_true", help="score only what the store holds")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_suite)

    p = sub.add_parser("speed-table", help="measure the speeds behind time-equivalent node budgets")
    p.add_argument("--out", default="data/calibration/speed.json", help="where the table goes")
    p.add_argument("--team", action="append", help="decomposition file whose team speed to measure (repeatable)")
    p.add_argument("--nodes", type=int, default=20000, help="nodes per bench position and mask")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds (the median is kept)")
    p.add_argument("--movetime", type=int, default=500, help="ms per bench position for the teams")
    p.add_argument("--all-masks", action="store_true", help="also the masks without M (default: the 64 with M)")
    p.set_defaults(func=cmd_speed_table)

    p = sub.add_parser("autotune", help="choose an ensemble's instances from a pool on training positions")
    p.add_argument("config", help="auto-tune file, or a name in configs/tuning (distribution, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for the searches (overrides the file)")
    p.add_argument("--no-search", action="store_true", help="tune only on what the store holds")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_autotune)

    p = sub.add_parser("label", help="make a labelled training set: self-play and PGN positions, engine labels")
    p.add_argument("store", help="the SQLite store (created, or resumed where a run stopped)")
    p.add_argument("--games", type=int, default=0, help="self-play games of the full engine from the book")
    p.add_argument("--per-game", type=int, default=8, help="positions drawn from each self-play game")
    p.add_argument("--budgets", default="1000,4000,16000", help="node budgets drawn per side and game")
    p.add_argument("--book", default="data:openings/8moves_v3-1000.epd", help="openings for self-play")
    p.add_argument("--seed", type=int, default=1, help="seeds the games, their budgets and the sampled plies")
    p.add_argument("--pgn", action="append", help="a PGN file whose games give positions (repeatable)")
    p.add_argument("--pgn-per-game", type=int, default=4, help="positions drawn from each PGN game")
    p.add_argument("--engine", default="stockfish", help="the UCI labeller (PATH, /usr/games, or a path)")
    p.add_argument("--nodes", type=int, default=200_000, help="the labeller's nodes per position")
    p.add_argument("--multipv", type=int, default=6, help="lines per position (moves outside get 0 points)")
    p.add_argument("--workers", type=int, default=2, help="Dask workers")
    p.add_argument("--export", help="write the labelled positions as an EPD suite (bm, c0 points, c9, c1 source, "
                                    "c2 opening)")
    p.add_argument("--first", type=int, help="export only the first N labelled positions")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_label)

    p = sub.add_parser("book", help="make an opening book from an engine's MultiPV choices (resumes)")
    p.add_argument("out", help="EPD file to write (appended to: a stopped run resumes)")
    p.add_argument("--openings", type=int, default=1000, help="how many openings the file should hold")
    p.add_argument("--plies", type=int, default=16, help="half-moves from the start position")
    p.add_argument("--depth", type=int, default=8, help="the engine's search depth per position")
    p.add_argument("--multipv", type=int, default=4, help="moves ranked per position")
    p.add_argument("--window", type=int, default=40, help="centipawns below the best a drawn move may be")
    p.add_argument("--balance", type=int, default=60, help="largest |score| of a kept opening, centipawns")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--engine", default="stockfish", help="UCI engine to use (default stockfish)")
    p.add_argument("--exclude", nargs="*", default=[], help="books whose positions must not be repeated")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_book)

    p = sub.add_parser("fit", add_help=False,
                       help="fit the evaluation's term values: 'positions' plays and labels them, 'terms' fits "
                            "(concilio fit -h)")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("match", help="play a match, gauntlet or round robin (resumes from its output folder)")
    p.add_argument("config", help="match file, or a name in configs/tournaments (quick, thesis, calibration)")
    p.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    p.add_argument("--output", help="output folder (overrides the file)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--summary-only", action="store_true",
                   help="rewrite summary.md from the games so far and play nothing (safe while the match runs)")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("uci", help="be a UCI engine on stdin/stdout")
    p.add_argument("config", nargs="?", help="an ensemble file or name, or an instance mask (MKP); "
                   "default: the full engine")
    p.set_defaults(func=cmd_uci)

    p = sub.add_parser("speedup", help="parallel search against the sequential one at a fixed depth")
    p.add_argument("config", help="speedup file, or a name in configs/decomposition")
    p.add_argument("--depth", type=int, help="override the file's depth")
    p.add_argument("--limit", type=int, help="only the first N positions")
    p.add_argument("--csv", help="where to write the CSV (default reports/speedup-<name>.csv)")
    p.set_defaults(func=cmd_speedup)

    p = sub.add_parser("bench", help="search the bench positions; the node count is the search's signature")
    p.add_argument("--depth", type=int, default=None)
    add_spec_args(p)
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["fit"]:  # its own parser (tournaments.tuning), -h included
        args = argparse.Namespace(command="fit", func=cmd_fit, args=argv[1:])
    else:
        args = parser.parse_args(argv)
    if getattr(args, "command", None) == "bench" and args.depth is None:
        from players.bench import BENCH_DEPTH
        args.depth = BENCH_DEPTH
    try:
        if args.command in LONG:
            with stop_on_signals():
                return args.func(args)
        return args.func(args)
    except ConcilioError as exc:  # every error about the input or the surroundings: one message, exit 2
        print(f"concilio {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # the workers are closed by now, the finished work written
        print(_stopped(args, exc), file=sys.stderr)
        return exc.exit_code if isinstance(exc, Interrupted) else EXIT_SIGINT


def _stopped(args: argparse.Namespace, exc: KeyboardInterrupt) -> str:
    """The one line a stopped command prints: what stopped it, and how to go on."""
    by = str(exc) if isinstance(exc, Interrupted) else "SIGINT"
    command = args.command + (f" {args.args[0]}" if args.command == "fit" and args.args else "")
    if command in RESUMABLE:
        return f"concilio {command}: stopped ({by}); what it finished is kept: run the same command to resume"
    if args.command in LONG:
        return f"concilio {command}: stopped ({by}); run the same command to start it again"
    return f"concilio {command}: stopped ({by})"


if __name__ == "__main__":
    sys.exit(main())
