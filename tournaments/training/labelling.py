"""``concilio label``: a labelled training set that is not a test suite.

Positions come from seeded self-play of the full engine from the openings book, at
budgets drawn per side and game (so weak and strong play, balanced and lopsided games
all appear), and from any PGN files.  A strong UCI engine (Stockfish by default) labels
each with ``multipv`` lines; the points of the moves follow the STS scale
(``label_store.move_points``).  The result exports as an EPD suite with ``bm``, ``c0``
points and ``c9`` UCI moves, which ``concilio suite`` reads like STS, and with each
position's source (``c1``) and, for self-play, the opening its game began from (``c2``,
``tournaments.records.opening_record``), so that matches and held-out splits can avoid them.

Everything runs on Dask workers through one runner (``base.runner``); each finished game
and each labelled batch is committed at once, so a rerun of the same command resumes.  The
labelling engines live on the workers between batches; the runner's closing quits them.
"""
from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from base.cluster import Remote
from base.runner import Resident, Runner, borrowed_or_own
from base.errors import ConcilioError
from players.external import find_engine_binary, open_engine
from players.limits import Limit
from tournaments.training.label_store import MATE_SCORE, Label, LabelStore, move_points
from tournaments.records.opening_record import OPCODE, Opening, format_opening
from tournaments.openings.selfplay_draw import BookEntry, drawn_opening, game_seed

log = logging.getLogger("concilio.label")
LABEL_BATCH = 16  # positions per labelling task: a killed run loses at most this many per worker
SAMPLE_SPAN = 100  # plies after the book from which a game's positions are drawn



def quit_engine(handle: chess.engine.SimpleEngine) -> None:
    """Quit an engine (closed instead when it cannot answer ``quit``)."""
    try:
        handle.quit()
    except Exception:  # noqa: BLE001 - a dead engine may not answer quit
        handle.close()


_SEARCHERS: Resident = Resident("label.searchers")  # the full engine that plays self-play games
_ENGINES: Resident[chess.engine.SimpleEngine] = Resident("label.engines", close=quit_engine)  # labellers, by options


class LabelError(ConcilioError, ValueError):
    """Arguments or input the labeller cannot use."""


@dataclass(frozen=True)
class LabelPlan:
    """What ``concilio label`` makes: how many self-play games, which PGN files, and how
    the positions are labelled."""

    store: Path
    book: Path | None = None
    games: int = 0
    per_game: int = 8
    budgets: tuple[int, ...] = (1000, 4000, 16000)
    seed: int = 1
    pgn: tuple[Path, ...] = ()
    pgn_per_game: int = 4
    engine: str = "stockfish"
    nodes: int = 200_000
    multipv: int = 6
    hash_mb: int = 32
    workers: int = 2
    options: dict = field(default_factory=dict)
    remote: Remote | None = None  # a running Dask scheduler the games and labels run on (--scheduler); its
    # workers need the labelling engine too

    @property
    def engine_id(self) -> str:
        return f"{Path(self.engine).name} nodes={self.nodes} multipv={self.multipv}"


# --- positions --------------------------------------------------------------------------------------

def usable(board: chess.Board) -> bool:
    """A position worth a label: a choice to make (two legal moves or more), not in check
    (the thesis's suites hold none, and a check leaves little to select among)."""
    return not board.is_check() and not board.is_game_over(claim_draw=False) and board.legal_moves.count() >= 2


def selfplay_game(seed: int, start_fen: str, budgets: Sequence[int], per_game: int) -> list[tuple[str, str]]:
    """Runs on a worker: one game of the full engine against itself from ``start_fen``, each
    side with its own node budget drawn from ``budgets``; returns up to ``per_game``
    usable positions (EPD, source) at plies drawn in advance, so the game stops early."""
    from players.searcher import Searcher
    rng = random.Random(seed)
    limits = {colour: Limit(nodes=rng.choice(list(budgets))) for colour in chess.COLORS}
    plies = sorted(rng.sample(range(SAMPLE_SPAN), per_game))
    searcher = _SEARCHERS.get_or_create("full", Searcher)
    searcher.new_game()
    board = chess.Board(start_fen)
    out = []
    for ply in range(plies[-1] + 1):
        if board.is_game_over(claim_draw=True):
            break
        if ply in plies and usable(board):
            out.append((board.epd(), f"selfplay:{seed}:{ply}"))
        result = searcher.search(board.fen(), limits[board.turn])
        board.push_uci(result.bestmove)
    return out


def pgn_positions(path: Path, per_game: int, seed: int, done: set[str],
                  warn: Callable[[str], None]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(source, positions) for every game of a PGN file not yet in ``done``.  A game with
    errors is reported by number and skipped; the rest of the file is used."""
    out = []
    with path.open(errors="replace") as handle:
        number = 0
        while True:
            try:
                game = chess.pgn.read_game(handle)
            except (ValueError, UnicodeDecodeError) as exc:
                warn(f"{path}: game {number + 1}: unreadable ({exc}); stopped reading this file")
                break
            if game is None:
                break
            number += 1
            source = f"pgn:{path.name}:{number}"
            if source in done:
                continue
            if game.errors:
                warn(f"{path}: game {number} ({game.headers.get('White', '?')} - {game.headers.get('Black', '?')}): "
                     f"{game.errors[0]}; skipped")
                continue
            board = game.board()
            candidates = []
            for ply, move in enumerate(game.mainline_moves()):
                if usable(board):
                    candidates.append((board.epd(), f"{source}:{ply}"))
                board.push(move)
            rng = random.Random(f"{seed}:{source}")
            out.append((source, sorted(rng.sample(candidates, min(per_game, len(candidates))),
                                       key=lambda fs: int(fs[1].rsplit(":", 1)[1]))))
    return out


# --- labels -----------------------------------------------------------------------------------------

def _open_engine(engine: str, options: dict, hash_mb: int) -> chess.engine.SimpleEngine:
    handle = open_engine(find_engine_binary(engine))
    wanted = {"Threads": 1, "Hash": hash_mb, **options}
    handle.configure({k: v for k, v in wanted.items() if k in handle.options})
    return handle


def _engine_key(engine: str, options: dict, hash_mb: int) -> str:
    return f"{engine}|{sorted(options.items())}|{hash_mb}"


def resident_engine(engine: str, options: dict, hash_mb: int) -> chess.engine.SimpleEngine:
    """This process's running ``engine`` with these options, started on first use."""
    return _ENGINES.get_or_create(_engine_key(engine, options, hash_mb),
                                  lambda: _open_engine(engine, options, hash_mb))


def drop_engine(engine: str, options: dict, hash_mb: int) -> None:
    """Forget an engine in trouble (closed, not quit: it may never answer); the next call
    of :func:`resident_engine` starts a new one."""
    dead = _ENGINES.pop(_engine_key(engine, options, hash_mb))
    if dead is not None:
        dead.close()


def label_batch(engine: str, options: dict, hash_mb: int, fens: Sequence[str], nodes: int, multipv: int,
                engine_id: str) -> list[Label]:
    """Runs on a worker: label each position with the engine's ``multipv`` best lines.  An
    engine that dies or hangs is restarted once for the position; a position that still
    fails is left unlabelled (a rerun tries it again) and logged."""
    out = []
    for fen in fens:
        board = chess.Board(fen + " 0 1")
        for attempt in (1, 2):
            handle = resident_engine(engine, options, hash_mb)
            try:
                # A new game per position (ucinewgame clears the hash): the label depends on
                # the position and the limit only.  The time limit is a guard against a hang.
                infos = handle.analyse(board, chess.engine.Limit(nodes=nodes, time=max(30.0, nodes / 20_000)),
                                       multipv=multipv, game=fen)
                lines = []
                for info in infos:
                    if "pv" not in info or not info["pv"] or "score" not in info:
                        continue
                    cp = info["score"].pov(board.turn).score(mate_score=MATE_SCORE)
                    lines.append((info["pv"][0].uci(), int(cp)))
                if not lines:
                    raise chess.engine.EngineError("no lines in the answer")
                out.append(Label(fen, engine_id, tuple(lines), int(infos[0].get("depth", 0)),
                                 int(infos[0].get("nodes", 0))))
                break
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as exc:
                drop_engine(engine, options, hash_mb)
                log.error("labelling %s failed (attempt %d): %s", fen, attempt, exc)
    return out


def close_engines() -> int:
    """Quit the engines resident here, the labeller's and the fit's (their reader threads
    would keep the process alive); how many.  A runner's closing does this on its workers."""
    engines = _ENGINES.pop_all()
    for handle in engines:
        quit_engine(handle)
    return len(engines)


# --- the command ------------------------------------------------------------------------------------

@dataclass
class LabelOutcome:
    games: int
    positions_added: int
    labels_added: int
    positions: int
    labels: int


def selfplay_openings(plan: LabelPlan, book: Sequence[BookEntry]) -> dict[int, Opening]:
    """The plan's self-play games, by seed, with the opening each starts from: the draws
    that the training set's provenance replays (``tournaments.openings.selfplay_draw``)."""
    if plan.book is None or not book:
        raise LabelError(f"{plan.book}: no usable opening")
    seeds = [game_seed(plan.seed, g) for g in range(plan.games)]
    return {seed: drawn_opening(book, plan.book.name, seed) for seed in seeds}


def run_label(plan: LabelPlan, *, progress: bool = True, runner: Runner | None = None,
              warn: Callable[[str], None] = lambda line: log.warning(line)) -> LabelOutcome:
    from tqdm import tqdm

    from tournaments.openings.books import read_book
    if plan.games and plan.book is None:
        raise LabelError("self-play needs an openings book")
    find_engine_binary(plan.engine)  # a missing labeller is named before any game is played
    with LabelStore(plan.store) as store:
        done = store.finished_sources()
        games = selfplay_openings(plan, read_book(plan.book)) if plan.games else {}
        # A store from before openings were recorded learns them now: the same plan drew the same ones.
        store.backfill_openings((f"selfplay:{seed}", o) for seed, o in games.items() if f"selfplay:{seed}" in done)
        games_todo = {seed: o for seed, o in games.items() if f"selfplay:{seed}" not in done}
        pgn_games = [item for path in plan.pgn for item in pgn_positions(path, plan.pgn_per_game, plan.seed, done,
                                                                         warn)]
        positions_added = 0
        for source, positions in pgn_games:
            positions_added += store.add_source(source, positions)

        with borrowed_or_own(plan.workers, runner, remote=plan.remote, tell=tqdm.write, dashboard=False) as used:
            if games_todo:
                tasks = [(s, o.start_fen, plan.budgets, plan.per_game) for s, o in games_todo.items()]
                with tqdm(total=len(games_todo), unit="game", desc="self-play", disable=not progress) as bar:
                    for (seed, *_), positions in used.map(selfplay_game, tasks):
                        positions_added += store.add_source(f"selfplay:{seed}", positions, games_todo[seed])
                        bar.update(1)
            todo = store.unlabelled()
            labels_added = 0
            if todo:
                batches = [tuple(todo[i:i + LABEL_BATCH]) for i in range(0, len(todo), LABEL_BATCH)]
                tasks = [(plan.engine, plan.options, plan.hash_mb, b, plan.nodes, plan.multipv, plan.engine_id)
                         for b in batches]
                with tqdm(total=len(todo), unit="position", desc="labels", disable=not progress,
                          smoothing=0.05) as bar:
                    for _, labels in used.map(label_batch, tasks):
                        labels_added += store.add_labels(labels)
                        bar.update(len(labels))
        return LabelOutcome(len(games_todo), positions_added, labels_added, store.count_positions(),
                            store.count_labels())


# --- export -----------------------------------------------------------------------------------------

def export_epd(store_path: Path, out: Path, *, first: int | None = None) -> int:
    """Write the labelled positions as an EPD suite (``bm`` the moves worth 10 points,
    ``c0`` every move's points in SAN, ``c9`` the same moves in UCI, ``c1`` the source,
    ``c2`` the opening a self-play position's game began from).  Returns the number of
    positions written."""
    with LabelStore(store_path) as store:
        rows = store.labelled()
        openings = store.openings()
    if first:
        rows = rows[:first]
    lines = []
    for n, (fen, source, label) in enumerate(rows, 1):
        board = chess.Board(fen + " 0 1")
        points = move_points(label.lines)
        moves = [chess.Move.from_uci(m) for m in points]
        best = [m for m in moves if points[m.uci()] == 10]
        opening = openings.get(source.rsplit(":", 1)[0])
        provenance = {OPCODE: format_opening(opening)} if opening is not None else {}
        lines.append(board.epd(bm=best, id=f"label.{n}",
                               c0=", ".join(f"{board.san(m)}={points[m.uci()]}" for m in moves),
                               c9=" ".join(m.uci() for m in moves), c1=source, **provenance))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return len(lines)
