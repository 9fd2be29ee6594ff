"""The bench: a fixed set of positions searched to a fixed depth from a fresh
instance each time.  Its total node count is the search's signature — it changes
only when the search (or the evaluation) changes."""
from __future__ import annotations

from dataclasses import dataclass

from evaluation.spec import FULL_ENGINE, EvalSpec
from .limits import Limit
from .result import SearchResult
from .searcher import Searcher

BENCH_DEPTH = 9
BENCH_HASH_MB = 16

# Opening, middlegame and endgame positions, quiet and tactical (several from Stockfish's bench).
BENCH_FENS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14",
    "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
    "8/3k4/8/8/8/4B3/4KB2/2B5 w - - 0 1",
)


@dataclass(frozen=True)
class BenchResult:
    nodes: int
    time: float
    results: tuple[SearchResult, ...]

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0


def run_bench(depth: int = BENCH_DEPTH, spec: EvalSpec = FULL_ENGINE, fens: tuple[str, ...] = BENCH_FENS,
              hash_mb: float = BENCH_HASH_MB) -> BenchResult:
    Searcher(spec, 1).search(fens[0], Limit(depth=1))  # load compiled code before timing
    results = []
    for fen in fens:
        searcher = Searcher(spec, hash_mb)  # fresh state per position: the signature must not drift
        results.append(searcher.search(fen, Limit(depth=depth)))
    nodes = sum(r.nodes for r in results)
    elapsed = sum(r.time for r in results)
    return BenchResult(nodes, elapsed, tuple(results))
