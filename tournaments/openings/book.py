"""Opening books made by an engine: a second set of openings the evaluation was not fitted on.

The evaluation's re-fit (``concilio fit``) played its games from the 8-move book, and the SPRTs
that judge engine changes start from the same book; a change can look better on those openings
than elsewhere.  ``concilio book`` makes another book: from the start position, at each ply an
engine's MultiPV search ranks the moves and one of those within ``window`` centipawns of the best
is drawn, so the openings are ones a strong player could choose; a finished line is kept only if
the engine finds it balanced (``balance`` centipawns or less) and it is new.

The file is EPD, one opening a line, with the moves from the start (``c0``, SAN) and the
engine's score for White (``c1``); a run appends to it and resumes where it stopped, and the
same seed gives the same book with the same engine.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from players.external import find_engine_binary, open_engine

MATE_CP = 100_000


@dataclass(frozen=True)
class BookPlan:
    """What ``make_book`` makes: ``count`` openings of ``plies`` half-moves in ``out``."""

    out: Path
    count: int = 1000
    plies: int = 16
    depth: int = 8
    multipv: int = 4
    window: int = 40
    balance: int = 60
    seed: int = 1
    engine: str = "stockfish"
    exclude: tuple[Path, ...] = ()  # books whose positions this one must not repeat


def read_positions(path: Path) -> set[str]:
    """The positions (EPD's four fields) of a book file, for duplicates and resuming."""
    if not path.exists():
        return set()
    positions = set()
    for line in path.read_text(errors="replace").splitlines():
        fields = line.split()
        if len(fields) >= 4:
            positions.add(" ".join(fields[:4]))
    return positions


def choose_line(engine: chess.engine.SimpleEngine, plan: BookPlan, rng: random.Random) -> chess.Board | None:
    """One opening: at each ply a move drawn among those within ``window`` of the best.
    None when the line ends the game early."""
    board = chess.Board()
    for _ in range(plan.plies):
        infos = engine.analyse(board, chess.engine.Limit(depth=plan.depth), multipv=plan.multipv, game=object())
        scored = [(info["score"].relative.score(mate_score=MATE_CP), info["pv"][0]) for info in infos
                  if info.get("pv") and "score" in info]
        if not scored:
            return None
        best = max(score for score, _ in scored)
        # Sorted first: the engine's order of equal lines must not decide what the seed draws.
        choices = sorted(move.uci() for score, move in scored if score >= best - plan.window)
        board.push_uci(rng.choice(choices))
        if board.is_game_over():
            return None
    return board


def make_book(plan: BookPlan, progress: bool = True) -> int:
    """Append openings to ``plan.out`` until it holds ``plan.count``; how many it holds."""
    from tqdm import tqdm

    plan.out.parent.mkdir(parents=True, exist_ok=True)
    have = read_positions(plan.out)
    excluded = set().union(*(read_positions(path) for path in plan.exclude)) if plan.exclude else set()
    binary = find_engine_binary(plan.engine)  # FileNotFoundError naming it when there is none
    # A resumed run draws again the lines it has (they are skipped as duplicates), so it goes on
    # where an uninterrupted run would: every analysis starts from a cleared hash (a new game).
    rng = random.Random(plan.seed)
    bar = tqdm(total=plan.count, initial=min(len(have), plan.count), unit="opening", disable=not progress)
    engine = open_engine(binary)
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        with plan.out.open("a") as out:
            while len(have) < plan.count:
                board = choose_line(engine, plan, rng)
                if board is None:
                    continue
                position = board.epd()
                if position in have or position in excluded:
                    continue
                info = engine.analyse(board, chess.engine.Limit(depth=plan.depth), game=object())
                score = info["score"].white().score(mate_score=MATE_CP)
                if abs(score) > plan.balance:
                    continue
                moves = chess.Board().variation_san(board.move_stack)
                out.write(board.epd(c0=moves, c1=str(score)) + "\n")
                out.flush()
                have.add(position)
                bar.update(1)
    finally:
        engine.quit()
        bar.close()
    return len(have)
