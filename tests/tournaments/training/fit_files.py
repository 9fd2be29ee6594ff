"""Positions for the fit's tests: the start, middlegames, a pawn ending, queen against rook."""
import chess

FENS = [
    chess.STARTING_FEN,
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
    "2r3k1/pp3ppp/4p3/3pP3/3P4/P4N2/1P3PPP/2R3K1 b - - 0 24",
    "8/5pk1/6p1/3P4/2P5/6P1/5PK1/8 w - - 0 40",
    "r2q1rk1/1b2bppp/p2p1n2/1p2p3/3NP3/1BN1B3/PPP2PPP/R2Q1RK1 b - - 3 12",
    "6k1/5ppp/8/8/8/8/q4PPP/1R4K1 w - - 0 30",
]
