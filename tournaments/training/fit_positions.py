"""Positions and labels for the evaluation's term-value fit (``tournaments.training.fit``).

Stockfish plays itself at a fixed shallow depth from the openings book, with an
occasional random move so that games from one opening diverge and lopsided positions
appear too.  The search that chooses each move also labels its position: one engine call
per position gives the game its next move and the fit its target.  A position is kept
when a static evaluation can be asked to match the label: not in check, the chosen move
neither a capture nor a promotion, and no mate in sight.  Games end at mate, a draw,
``max_plies``, or a score beyond ``ADJUDICATE_CP`` on four moves in a row.

A run appends each finished game to one text file (``fen;white_cp`` lines, then a
``#game seed result count`` line), so a killed run keeps every finished game and a rerun
of the same command plays only the games missing.  Games run on Dask workers through one
runner (``base.runner``), one Stockfish per worker, quit when the runner closes.
"""
from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from base.runner import borrowed_or_own
from base.errors import ConcilioError
from players.external import find_engine_binary
from tournaments.training.labelling import drop_engine, resident_engine
from tournaments.openings.selfplay_draw import drawn_opening, game_seed

log = logging.getLogger("concilio.fit")
ADJUDICATE_CP = 1500
MATE_CP = 30_000


class FitDataError(ConcilioError, ValueError):
    """A positions file the fit cannot read."""


@dataclass(frozen=True)
class FitGame:
    """One finished self-play game: its kept positions with their labels (White's
    centipawns) and the game's result from White's side (1, 0.5, 0)."""

    seed: int
    positions: tuple[tuple[str, int], ...]
    result: float


def play_game(seed: int, start_fen: str, engine: str = "stockfish", depth: int = 6, random_rate: float = 0.05,
              max_plies: int = 200, hash_mb: int = 16) -> FitGame:
    """Runs on a worker: one seeded self-play game and its labelled quiet positions.  An
    engine that fails is dropped (the next game starts a new one) and the game is
    raised, so a rerun plays it again."""
    rng = random.Random(seed)
    board = chess.Board(start_fen)
    handle = resident_engine(engine, {}, hash_mb)
    kept: list[tuple[str, int]] = []
    lopsided = 0
    result = None
    game = object()  # a new game for the engine (ucinewgame), even when it played this seed before
    try:
        for _ in range(max_plies):
            # The cheap tests: claim_draw=True would try every legal move for a repetition.
            if board.is_game_over() or board.halfmove_clock >= 100 or board.is_repetition(3):
                break
            # play() with the score only: python-chess then parses no principal variation,
            # which cost more than the engine's own search at this depth.
            played = handle.play(board, chess.engine.Limit(depth=depth, time=30.0), game=game,
                                 info=chess.engine.INFO_SCORE)
            move = played.move
            if move is None or "score" not in played.info:
                raise chess.engine.EngineError(f"no move or score for {board.fen()}")
            white = played.info["score"].white()
            if white.is_mate():
                break
            cp = white.score()
            if not board.is_check() and not board.is_capture(move) and move.promotion is None:
                kept.append((board.fen(), cp))
            lopsided = lopsided + 1 if abs(cp) > ADJUDICATE_CP else 0
            if lopsided >= 4:
                result = 1.0 if cp > 0 else 0.0
                break
            if rng.random() < random_rate:
                move = rng.choice(list(board.legal_moves))
            board.push(move)
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
        drop_engine(engine, {}, hash_mb)
        raise
    if result is None:
        outcome = board.outcome()
        if outcome is None or outcome.winner is None:
            result = 0.5  # drawn, or stopped at max_plies
        else:
            result = 1.0 if outcome.winner == chess.WHITE else 0.0
    return FitGame(seed, tuple(kept), result)


def read_games(path: Path) -> Iterator[tuple[int, float, list[tuple[str, int]]]]:
    """``(seed, result, [(fen, white_cp), ...])`` of every finished game in ``path``.  The
    lines after the last ``#game`` line belong to a game a killed run did not finish and
    are not read; a line that is neither kind is an error naming it."""
    pending: list[tuple[str, int]] = []
    damaged = None  # the first bad line of the game being read: an error once a #game line follows
    with path.open() as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if line.startswith("#game "):
                if damaged is not None:
                    raise FitDataError(f"{path}:{damaged[0]}: expected 'FEN;centipawns', got {damaged[1][:80]!r}")
                try:
                    _, seed, result, count = line.split()
                    seed_i, result_f, count_i = int(seed), float(result), int(count)
                except ValueError:
                    raise FitDataError(f"{path}:{number}: bad game line {line!r}") from None
                if count_i != len(pending):
                    raise FitDataError(f"{path}:{number}: game {seed_i} counts {count_i} positions, "
                                       f"{len(pending)} lines precede it")
                yield seed_i, result_f, pending
                pending = []
                continue
            fen, _, cp = line.rpartition(";")
            try:
                pending.append((fen, int(cp)))
            except ValueError:
                damaged = damaged or (number, line)


def read_positions(path: Path) -> Iterator[tuple[str, int, int, float]]:
    """``(fen, white_cp, game_seed, result)`` of every position of every finished game."""
    for seed, result, positions in read_games(path):
        for fen, cp in positions:
            yield fen, cp, seed, result


def drop_unfinished(path: Path) -> int:
    """Cut what a killed run left after the last finished game (a partly written game,
    perhaps a line cut short), so that the next game starts on a clean line; the
    number of bytes cut."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    keep = 0
    at = data.rfind(b"#game ")
    while at >= 0:
        newline = data.find(b"\n", at)
        if (at == 0 or data[at - 1:at] == b"\n") and newline >= 0:  # a whole #game line
            keep = newline + 1
            break
        at = data.rfind(b"#game ", 0, at)
    if keep < len(data):
        with path.open("r+b") as handle:
            handle.truncate(keep)
    return len(data) - keep


def append_game(path: Path, game: FitGame) -> None:
    """One write per game, then the closing line: a crash mid-write loses this game only."""
    body = "".join(f"{fen};{cp}\n" for fen, cp in game.positions)
    with path.open("a") as handle:
        handle.write(body + f"#game {game.seed} {game.result} {len(game.positions)}\n")
        handle.flush()


@dataclass(frozen=True)
class FitDataPlan:
    """What to play: ``games`` seeded games from ``book`` into ``out``."""

    out: Path
    book: Path
    games: int
    seed: int = 20261123
    engine: str = "stockfish"
    depth: int = 6
    random_rate: float = 0.05
    workers: int = 2


def make_positions(plan: FitDataPlan, *, progress: bool = True) -> int:
    """Play the plan's missing games and append them to ``plan.out``; the number of
    positions the file holds afterwards."""
    from tqdm import tqdm

    from tournaments.openings.books import read_book
    find_engine_binary(plan.engine)  # a missing engine is named before any game starts
    book = read_book(plan.book)
    cut = drop_unfinished(plan.out)
    if cut:
        log.warning("%s: dropped %d bytes of a game the last run did not finish", plan.out, cut)
    held = {seed: len(positions) for seed, _, positions in read_games(plan.out)} if plan.out.exists() else {}
    total = sum(held.values())
    plan.out.parent.mkdir(parents=True, exist_ok=True)
    todo = []
    for g in range(plan.games):
        seed = game_seed(plan.seed, g)
        if seed in held:
            continue
        todo.append((seed, drawn_opening(book, plan.book.name, seed).start_fen, plan.engine, plan.depth,
                     plan.random_rate))
    if not todo:
        return total
    with tqdm(total=len(todo), unit="game", desc="self-play", disable=not progress, smoothing=0.02) as bar, \
            borrowed_or_own(plan.workers, dashboard=False) as runner:
        for _, game in runner.map(play_game, todo):
            append_game(plan.out, game)
            total += len(game.positions)
            bar.update(1)
    return total
