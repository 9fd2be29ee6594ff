"""``concilio uci`` under thousands of short searches, as a fast match drives it.

Every ``go`` must be answered by a ``bestmove`` within its limit plus a small margin,
whatever the limit: 1 ms movetimes, clocks of a few milliseconds, node and depth
limits, and ``stop`` racing the search's own end.  Hence thousands: a ``go`` that arrives
just after a ``bestmove``, while the search thread is still returning, is a race that a
broken engine loses in about one search in a thousand.
"""
from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass

import chess
import chess.engine
import pytest

from base.resources import data_file

UCI = [sys.executable, "-m", "concilio", "uci"]
UNBOUNDED_S = 5.0  # node and depth limits have no time limit: answering at all is what counts


@dataclass
class Answer:
    limit: str
    allowed: float  # seconds the limit allows
    took: float
    fen: str = ""
    engine_limit: chess.engine.Limit | None = None  # to repeat the search
    stop_after: float | None = None  # a stop race: seconds between go and stop

    @property
    def late(self) -> float:
        return self.took - self.allowed


def positions(n: int, rng: random.Random) -> list[chess.Board]:
    """Openings and tactical positions from the packaged data, in a seeded order."""
    fens = []
    for name in ("openings/8moves_v3-1000.epd", "suites/wac.epd"):
        for line in data_file(name).read_text().splitlines():
            if line.strip():
                fens.append(" ".join(line.split()[:4]) + " 0 1")
    rng.shuffle(fens)
    return [chess.Board(f) for f in fens[:n]]


def random_limit(rng: random.Random, board: chess.Board, overhead_s: float) -> tuple[chess.engine.Limit, str, float]:
    kind = rng.choice(["movetime", "movetime", "clock", "nodes", "depth"])
    if kind == "movetime":
        ms = rng.choice([1, 2, 5, 10, 20, 50])
        return chess.engine.Limit(time=ms / 1000), f"movetime {ms}", ms / 1000
    if kind == "clock":
        clock = rng.choice([0.001, 0.005, 0.02, 0.1, 0.5, 1.0])
        inc = rng.choice([0.0, 0.01])
        own = "white" if board.turn == chess.WHITE else "black"
        limit = chess.engine.Limit(**{f"{own}_clock": clock, f"{own}_inc": inc})
        # The time manager spends at most a third of what the clock leaves after the overhead.
        return limit, f"clock {clock}+{inc}", max(0.001, (clock - overhead_s) / 3)
    if kind == "nodes":
        nodes = rng.choice([1, 100, 5000])
        return chess.engine.Limit(nodes=nodes), f"nodes {nodes}", UNBOUNDED_S
    depth = rng.choice([1, 2, 3, 4])
    return chess.engine.Limit(depth=depth), f"depth {depth}", UNBOUNDED_S


def stress(target: list[str], searches: int, seed: int, overhead_s: float) -> list[Answer]:
    """``searches`` searches with mixed limits; one in eight is a ``stop`` racing the end."""
    rng = random.Random(seed)
    boards = positions(200, rng)
    answers: list[Answer] = []
    engine = chess.engine.SimpleEngine.popen_uci(UCI + target, timeout=120)
    try:
        engine.ping()  # isready: the player is built (and warmed up) before the first timed move
        game = object()
        for i in range(searches):
            if i % 50 == 0:
                game = object()  # python-chess sends ucinewgame
            board = boards[i % len(boards)]
            if i % 8 == 7:
                ms = rng.choice([1, 5, 20, 40])
                wait = rng.uniform(0, 0.03)
                limit = chess.engine.Limit(time=ms / 1000)
                took = race_stop(engine, board, limit, wait, game)
                answers.append(Answer(f"stop after {wait * 1000:.0f} ms of movetime {ms}", max(ms / 1000, wait), took,
                                      board.fen(), limit, stop_after=wait))
                continue
            limit, text, allowed = random_limit(rng, board, overhead_s)
            started = time.perf_counter()
            try:
                result = engine.play(board, limit, game=game)
            except TimeoutError:
                pytest.fail(f"search {i} ({text}) was never answered in {board.fen()}")
            took = time.perf_counter() - started
            assert result.move in board.legal_moves, f"illegal bestmove {result.move} in {board.fen()}"
            answers.append(Answer(text, allowed, took, board.fen(), limit))
    finally:
        engine.quit()
    return answers


def race_stop(engine: chess.engine.SimpleEngine, board: chess.Board, limit: chess.engine.Limit,
              wait: float, game: object) -> float:
    """Send ``stop`` ``wait`` seconds after ``go``; the seconds until ``bestmove``."""
    started = time.perf_counter()
    with engine.analysis(board, limit, game=game) as analysis:
        time.sleep(wait)
        analysis.stop()
        best = analysis.wait()
    assert best.move in board.legal_moves, f"illegal bestmove {best.move} in {board.fen()}"
    return time.perf_counter() - started


RETRIES = 5


def repeats_late(engine: chess.engine.SimpleEngine, answer: Answer, margin: float) -> bool:
    """Whether a late answer is the engine's doing: the same search, repeated in a fresh
    engine, is late again.  This shared machine can stall a process for a tenth of a second
    now and then; an engine fault (a deadline it misses in some position) comes back."""
    for _ in range(RETRIES):
        board = chess.Board(answer.fen)
        if answer.stop_after is not None:
            took = race_stop(engine, board, answer.engine_limit, answer.stop_after, object())
        else:
            started = time.perf_counter()
            engine.play(board, answer.engine_limit, game=object())
            took = time.perf_counter() - started
        if took - answer.allowed > margin:
            return True
    return False


def check(answers: list[Answer], margin: float, target: list[str] | None = None) -> None:
    late = [a for a in answers if a.late > margin]
    stalls = []
    if late:  # one fresh engine repeats them all: starting one costs more than the searches
        engine = chess.engine.SimpleEngine.popen_uci(UCI + (target or []), timeout=120)
        try:
            engine.ping()
            stalls = [a for a in late if not repeats_late(engine, a, margin)]
        finally:
            engine.quit()
    if stalls:
        print(f"{len(stalls)} late answer(s) not reproduced in {RETRIES} repeats each (a stalled machine): "
              + "; ".join(f"{a.limit}: {a.took * 1000:.1f} ms" for a in stalls))
    late = sorted((a for a in late if a not in stalls), key=lambda a: -a.late)
    slowest = max(answers, key=lambda a: a.late)
    summary = (f"{len(answers)} searches, slowest {slowest.took * 1000:.1f} ms for {slowest.limit} "
               f"({slowest.late * 1000:+.1f} ms over its limit)")
    print(summary)
    assert not late, f"{len(late)} answers later than limit + {margin * 1000:.0f} ms, e.g. " + "; ".join(
        f"{a.limit}: {a.took * 1000:.1f} ms" for a in late[:5]) + f" ({summary})"


def test_a_late_answer_that_comes_back_on_repeating_fails():
    """With a margin no answer can meet, the repeats are late too, a stop race's (the
    eighth search) among them: the check must fail on all eight."""
    with pytest.raises(AssertionError, match="8 answers later than limit"):
        check(stress([], 8, seed=4, overhead_s=0.05), margin=-10.0)


def test_full_engine_answers_every_short_search_in_time():
    check(stress([], 400, seed=1, overhead_s=0.05), margin=0.1)


@pytest.mark.slow
def test_full_engine_answers_thousands_of_short_searches_in_time():
    check(stress([], 1500, seed=2, overhead_s=0.05), margin=0.1)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["3b", "abdada"])
def test_coordinated_players_answer_short_searches_in_time(target):
    """An ensemble and the decomposition player coordinate Dask workers on 2 cores:
    their margin covers one round of messages, not a search."""
    check(stress([target], 300, seed=3, overhead_s=0.15), margin=0.25, target=[target])
