"""A hand-made suite for the suite tests: four positions after different first moves, each
with its best move."""
import chess

START = chess.STARTING_FEN


def fen_after(*moves):
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    return board.fen()


P1, P2, P3, P4 = START, fen_after("e2e4"), fen_after("d2d4"), fen_after("c2c4")
EPD = f"""{P1.rsplit(' ', 2)[0]} bm e4; id "p1"; c0 "e4=10, d4=5";
{P2.rsplit(' ', 2)[0]} bm c5; id "p2";
{P3.rsplit(' ', 2)[0]} bm Nf6; id "p3";
{P4.rsplit(' ', 2)[0]} bm e5; id "p4";
"""
