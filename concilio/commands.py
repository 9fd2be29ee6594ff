"""What each ``concilio`` subcommand does, one function per command; ``concilio.cli`` parses
the arguments and turns errors and interrupts into exit codes."""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import numpy as np

from base.errors import ConcilioError

if TYPE_CHECKING:
    from tournaments.autotune.config import AutotuneConfig


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


def _progress(args: argparse.Namespace) -> bool:
    """A progress bar only where a person watches: not with --quiet, and not into a file or
    pipe (a log of carriage returns)."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


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
    from players.limits import Limit
    return Limit(depth=args.depth, nodes=args.nodes, movetime=args.movetime)


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
    from players.trace import trace
    spec = _spec(args.mask, args.weights)
    pos = _position(args.fen, args.moves)
    print(trace(pos, spec).format())
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """One move of any player (``ensemble.catalog``), with what the player can say about it:
    an ensemble's votes and values, a cascade's phases, a search's iterations and PV."""
    from ensemble.catalog import build, default_limit, describe
    from players.limits import Limit
    board = _position(args.fen, args.moves).to_board()
    if not any(board.legal_moves):
        raise UsageError(f"no legal move in {board.fen()}: the game is over")
    spec = describe(args.config)
    if args.criterion:
        spec = spec.with_criterion(args.criterion)
    if args.scheduler:
        spec = spec.with_scheduler(args.scheduler, "--scheduler")  # ConfigError, exit 2: a host without a port
    if args.movetime or args.nodes or args.depth:
        limit = Limit(movetime=args.movetime, nodes=args.nodes, depth=args.depth)
    else:
        limit = default_limit(spec)
    player = build(spec, events=lambda m: print(f"  ! {m}", file=sys.stderr))
    if args.budget_mode:
        player.configure(budget_mode=args.budget_mode)  # PlayerOptionError (exit 2) for a player without one
    if args.hash:
        player.configure(hash_mb=args.hash)
    with player:
        print(player.describe())
        print(f"Limit: {limit}")
        print()
        played = player.play(board, limit, info=_print_info)
    text = played.explain()
    if text:
        print(text)
    print(f"bestmove {played.move or '0000'}")
    return 0 if played.move else 1


def cmd_suite(args: argparse.Namespace) -> int:
    """Score players and selection criteria on test suites (phase 1 searches, phase 2 metrics)."""
    from tournaments.suite.config import load_suite
    from tournaments.suite.run import format_outcome, run_suite
    config = load_suite(args.config)
    if args.workers:
        config = replace(config, workers=args.workers)
    outcome = run_suite(config, search=not args.no_search, progress=_progress(args))
    print(format_outcome(outcome))
    print(f"\n{outcome.searches_added} searches added ({outcome.searches_stored} in {config.store}); "
          f"report: {', '.join(str(p) for p in outcome.report_files)}")
    return 0


def cmd_autotune(args: argparse.Namespace) -> int:
    """Search a pool of instances for the ensemble that maximises the objective on training
    positions; write it as an ensemble YAML and judge it on held-out games and suites."""
    from tournaments.autotune.config import load_autotune
    from tournaments.autotune.run import format_outcome, run_autotune
    config = load_autotune(args.config)
    if args.workers:
        config = replace(config, workers=args.workers)
    if args.size:
        config = config.of_size(args.size)
    if args.read:
        return _read_team(config, args)
    outcome = run_autotune(config, search=not args.no_search, progress=_progress(args),  # AutotuneError: exit 2
                           adopt=args.adopt, verify=args.verify)
    print(format_outcome(outcome))
    return 0


def _read_team(config: AutotuneConfig, args: argparse.Namespace) -> int:
    """``autotune --read TEAM``: the team's points on the two splits, nothing tuned or written."""
    from ensemble.config import load_ensemble
    from tournaments.autotune.run import read_team
    r = read_team(config, load_ensemble(args.read), search=not args.no_search, progress=_progress(args))
    print(f"{r.team} ({r.criterion}) on {config.train.path.name}, {config.budget_key}, objective {config.objective}:")
    print(f"  tune split, {r.tune_positions} positions: {r.tune:.4f} (full engine {r.full_tune:.4f})")
    print(f"  held-out games, {r.held_out_positions} positions: {r.held_out:.4f} (full engine {r.full_held_out:.4f})")
    for label, tune, held in r.rules:
        print(f"  under {label}: tune {tune:.4f}, held-out {held:.4f}")
    return 0


def cmd_fit_positions(args: argparse.Namespace) -> int:
    """Play and label the fit's positions (resumes)."""
    from tournaments.training.fit import OPENINGS
    from tournaments.training.fit_positions import FitDataPlan, make_positions
    t0 = time.time()
    plan = FitDataPlan(args.out, OPENINGS, args.games, seed=args.seed, depth=args.depth, workers=args.workers)
    count = make_positions(plan, progress=_progress(args))
    print(f"{args.out}: {count} positions ({time.time() - t0:.0f} s)")
    return 0


def cmd_fit_calibration(args: argparse.Namespace) -> int:
    """Fit each pool instance's line onto the full engine's scale and write the model."""
    from tournaments.autotune.calibration import fit_team_calibration
    from tournaments.autotune.config import load_autotune
    model = fit_team_calibration(load_autotune(args.config))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(model.to_json() + "\n")
    for key, (slope, intercept) in sorted(model.lines.items()):
        print(f"{key:40s} full cp = {slope:6.3f} x own {intercept:+7.1f}  ({model.positions.get(key, 0)} positions)")
    print(f"{len(model.lines)} instances; {model.fitted_on}; written {args.out}")
    return 0


def cmd_fit_routing(args: argparse.Namespace) -> int:
    """Fit a team's routing gate and say what it is worth on the held-out games."""
    from ensemble.config import load_ensemble
    from tournaments.autotune.config import load_autotune
    from tournaments.autotune.routing import fit_routing
    fit = fit_routing(load_autotune(args.tuning), load_ensemble(args.team))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(fit.gate.to_json() + "\n")
    print(f"{fit.examples} disagreements on the tune split (reduced group better in {100 * fit.base_rate:.0f}%); "
          f"cross-validated accuracy {100 * fit.cv_accuracy:.1f}% (grouped by game)")
    print(f"held-out games, {fit.held_positions} positions, mean points: "
          + ", ".join(f"{k} {v:.4f}" for k, v in fit.held_out.items()))
    print(f"written {args.out}")
    return 0


def cmd_fit_terms(args: argparse.Namespace) -> int:
    """Fit the term values (and with --tables the piece-square tables) on a positions file."""
    from evaluation.evaluate import new_scratch
    from evaluation.fitting import LN10_400, white_scores
    from evaluation.params import DEFAULT_PARAMS, PARAM_NAMES
    from evaluation.tables import PST
    from tournaments.training.fit import (PARAMS_FILE, TABLES_FILE, LinearModel, apply_params, apply_tables, error,
                                          fit, fit_scale, load_fit_set)
    t0 = time.time()
    data = load_fit_set(args.positions)
    held = data.games % args.holdout == 0
    train, test = data.subset(np.flatnonzero(~held)), data.subset(np.flatnonzero(held))
    print(f"{len(data)} distinct positions from {len(np.unique(data.games))} games: {len(train)} to fit, "
          f"{len(test)} held out (every {args.holdout}th game) - read in {time.time() - t0:.0f} s", flush=True)
    scale = fit_scale(train, DEFAULT_PARAMS)
    print(f"logistic scale fitted to the current values: {scale / LN10_400:.3f} x ln 10 / 400 "
          f"(one of our centipawns is worth {scale / LN10_400:.3f} of Stockfish's)", flush=True)
    tables0 = PST if args.tables else None
    t1 = time.time()
    model = LinearModel.measure(train, DEFAULT_PARAMS, tables0)
    held_model = LinearModel.measure(test, DEFAULT_PARAMS, tables0)
    print(f"coefficients measured in {time.time() - t1:.0f} s", flush=True)
    params, tables = fit(model, train.targets, scale, ridge=args.ridge)
    if tables is None:
        gap = np.abs(white_scores(*test.arrays, params, *new_scratch()) - held_model.white_scores(params))
        print(f"linear model against the real evaluation at the fitted values: mean |gap| {gap.mean():.2f} cp, "
              f"max {gap.max():.0f} cp")
        print(f"training error: {error(train, DEFAULT_PARAMS, scale):.6f} -> {error(train, params, scale):.6f}")
        print(f"held-out error: {error(test, DEFAULT_PARAMS, scale):.6f} -> {error(test, params, scale):.6f}")
    else:  # new tables are compiled into the engine only once written: score by the linear model
        for name, part, part_model in (("training", train, model), ("held-out", test, held_model)):
            print(f"{name} error (linear model): {error(part, DEFAULT_PARAMS, scale):.6f} -> "
                  f"{part_model.error(part.targets, params, scale, tables):.6f}")
    for name, old, new in zip(PARAM_NAMES, DEFAULT_PARAMS, params):
        if (old != new).any():
            print(f"  {name:24s} {tuple(int(v) for v in old)} -> {tuple(int(v) for v in new)}")
    if tables is not None:
        moved = np.abs(tables - tables0)
        print(f"piece-square values: mean |change| {moved.mean():.1f} cp, largest {moved.max()} cp")
    if args.apply:
        print(f"{apply_params(params)} values written to {PARAMS_FILE}")
        if tables is not None:
            print(f"{apply_tables(tables)} piece-square values written to {TABLES_FILE}")
    print(f"done in {time.time() - t0:.0f} s")
    return 0


def cmd_book(args: argparse.Namespace) -> int:
    """Make (or extend) an opening book with an engine's MultiPV choices."""
    from pathlib import Path

    from base.resources import resolve_data_reference
    from tournaments.openings.book import BookPlan, make_book

    exclude = []
    for reference in args.exclude:
        path = resolve_data_reference(reference, Path.cwd())
        if path is None:
            raise UsageError(f"--exclude {reference}: no such file")
        exclude.append(path)
    plan = BookPlan(Path(args.out), args.openings, args.plies, args.depth, args.multipv, args.window, args.balance,
                    args.seed, args.engine, tuple(exclude))
    count = make_book(plan, progress=_progress(args))  # EngineNotFoundError (a ConcilioError): exit 2
    print(f"{plan.out}: {count} openings")
    return 0


def cmd_label(args: argparse.Namespace) -> int:
    """Make or extend a labelled training set (self-play and PGN positions, engine labels)."""
    from pathlib import Path

    from base.resources import resolve_data_reference
    from tournaments.training.labelling import LabelPlan, export_epd, run_label

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
    outcome = run_label(plan, progress=_progress(args), warn=lambda line: print(line, file=sys.stderr))
    print(f"{outcome.games} games played, {outcome.positions_added} positions and {outcome.labels_added} labels "
          f"added in {time.perf_counter() - started:.0f} s; {args.store} holds {outcome.positions} positions, "
          f"{outcome.labels} labelled")
    if args.export:
        n = export_epd(Path(args.store), Path(args.export), first=args.first)
        print(f"exported {n} positions to {args.export}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    """A match, gauntlet or round robin from a YAML file; resumes from its output folder."""
    from tournaments.match.config import load_match
    from tournaments.match.run import run_match
    config = load_match(args.config)
    if args.concurrency:
        config = replace(config, concurrency=args.concurrency)
    if args.output:
        from pathlib import Path
        config = replace(config, output=Path(args.output).resolve())
    if args.summary_only:
        from tournaments.match.run import report_only
        for s in report_only(config):
            print(s.line(config))
        print(f"summary: {config.output / 'summary.md'}")
        return 0
    print(f"Match {config.name}: {', '.join(p.name for p in config.players)} ({config.mode}); "
          f"{config.games} games per pairing; {config.describe_time_controls()}; output {config.output}")
    outcome = run_match(config, progress=_progress(args))
    print()
    for s in outcome.summaries:
        print(s.line(config))
    if outcome.stopped_by_sprt:
        print("stopped: the SPRT decided")
    print(f"PGN: {config.output / 'games.pgn'}  summary: {config.output / 'summary.md'}")
    return 0


def cmd_scaling_play(args: argparse.Namespace) -> int:
    """Play the scaling sweep's points (each a resumable match in its own folder)."""
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.run import play_points
    sweep = load_sweep(args.config)
    points = sweep.points(tuple(args.arm), tuple(args.workers))
    if not points:
        print(f"{args.config}: no point matches --arm {args.arm} --workers {args.workers}", file=sys.stderr)
        return 2
    play_points(sweep, tuple(args.arm), tuple(args.workers), args.concurrency, progress=_progress(args))
    return 0


def cmd_scaling_duel(args: argparse.Namespace) -> int:
    """Two of the sweep's points against each other, until the SPRT decides (resumable)."""
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.run import play_duel_claimed
    sweep = load_sweep(args.sweep)
    sweep.duel_match(args.first, args.second)  # a point the file lacks: ConfigError, exit 2
    if play_duel_claimed(sweep, args.first, args.second, args.concurrency, progress=_progress(args)) is None:
        print(f"duel {args.first} against {args.second}: another process is playing it "
              f"(concilio scaling duels --list says which)", file=sys.stderr)
        return 1
    return 0


def cmd_scaling_duels(args: argparse.Namespace) -> int:
    """Every duel the sweep still owes, cheapest first, claimed one at a time (or listed)."""
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.run import pending_duels, play_duels
    sweep = load_sweep(args.config)
    if args.list:
        owed = pending_duels(sweep)
        for d in owed:
            print(f"{d.first} against {d.second}: {d.games} games"
                  + (f", LLR {d.llr:.2f}" if d.llr is not None else "")
                  + (f" (engine {', '.join(d.engines)})" if d.engines else "")
                  + (f", playing in {d.claimed_by}" if d.claimed_by else ""))
        print(f"{len(owed)} duel(s) owed")
        return 0
    played = play_duels(sweep, args.concurrency, progress=_progress(args))
    print(f"{len(played)} duel(s) played" + (": " + ", ".join(f"{a}-{b}" for a, b, _ in played) if played else "")
          + "; no duel owed is left that this process could take")
    return 0


def cmd_scaling_carry(args: argparse.Namespace) -> int:
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


def cmd_scaling_report(args: argparse.Namespace) -> int:
    """The sweep's table and plot from the games played so far."""
    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.report import write_report
    sweep = load_sweep(args.config)
    table, image = write_report(sweep, args.output, args.document)
    print(table.read_text())
    print(f"table: {table}" + (f"  plot: {image}" if image else ""))
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

    from tournaments.speedup.run import HEAD, load_speedup, run_speedup, write_csv
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


def cmd_speedup_summary(args: argparse.Namespace) -> int:
    """The node-clock rows of a speedup run as one table and a plot, published rows beside."""
    from pathlib import Path

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


def cmd_openings_annotate(args: argparse.Namespace) -> int:
    """Write each self-play line's opening (``c2``) into an exported training set."""
    from tournaments.training.provenance import annotate_epd
    done = annotate_epd(args.path, args.book, args.seed, args.games)  # ProvenanceError: exit 2
    print(f"{args.path}: {done.added} positions annotated, {done.kept} already were; {done.games} games "
          f"from {done.openings} distinct openings")
    return 0


def cmd_openings_shared(args: argparse.Namespace) -> int:
    """How many of each match's openings began training games: the audit behind ``openings: exclude``."""
    from tournaments.match.config import played_openings
    from tournaments.training.provenance import training_openings
    used = training_openings(args.training)
    print(f"{args.training}: {len(used)} distinct openings")
    for match in args.matches:
        played = played_openings(match)
        print(f"{match}: {sum(k in used for k in played)} of its {len(played)} openings began training games")
    return 0
