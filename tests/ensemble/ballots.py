"""Hand-built ballots for the selection tests: one instance's answer on a known position."""
from ensemble.ballot import Ballot
from evaluation.spec import EvalSpec
from players.result import SearchResult

# Black to move; e7e5 is quiet, d8h4 gives check (after f2f3 g2g4 the queen mates), c7c5 quiet.
FEN = "rnbqkbnr/pppppppp/8/8/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"


def ballot(letters, move, score=0, depth=8, n=20):
    return Ballot(f"({letters})", EvalSpec.parse(letters),
                  SearchResult(move, score, None, (move,), depth, n, 20, depth, 1000, 0.1, (), FEN, None))
