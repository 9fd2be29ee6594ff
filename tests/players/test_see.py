"""Static exchange evaluation against a plain recursive swap computed with python-chess."""
import random

import chess
import pytest

from players.core.moves import move_to_uci
from players.core.see import SEE_VALUE, see_ge
from players.position import Position

VALUE = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900,
         chess.KING: 20000}


def _gain_after(board: chess.Board, square: int, side: chess.Color) -> int:
    """What ``side`` can gain by capturing on ``square`` with its least valuable attacker, then
    the opponent likewise, each free to stop (pins ignored, x-rays seen through removed pieces)."""
    attackers = list(board.attackers(side, square))
    if not attackers:
        return 0
    attacker = min(attackers, key=lambda s: VALUE[board.piece_type_at(s)])
    victim = VALUE[board.piece_type_at(square)]
    after = board.copy(stack=False)
    piece = after.remove_piece_at(attacker)
    after.set_piece_at(square, piece)
    return max(0, victim - _gain_after(after, square, not side))


def oracle_see(board: chess.Board, move: chess.Move) -> int:
    victim = board.piece_type_at(move.to_square)
    after = board.copy(stack=False)
    piece = after.remove_piece_at(move.from_square)
    after.set_piece_at(move.to_square, piece)
    return (VALUE[victim] if victim else 0) - _gain_after(after, move.to_square, not board.turn)


def _plain_moves(board: chess.Board):
    """Captures and quiet moves that are not castling, en passant or promotions."""
    for move in board.legal_moves:
        if not (board.is_castling(move) or board.is_en_passant(move) or move.promotion):
            yield move


@pytest.mark.parametrize("fen, uci, value", [
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),  # pawn wins, rook safe
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220),  # knight lost for a pawn
    ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100),
    ("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0),
    ("4k3/8/8/3q4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 900),  # battery: the queen is simply lost
])
def test_hand_checked_exchanges(fen, uci, value):
    board = chess.Board(fen)
    assert oracle_see(board, chess.Move.from_uci(uci)) == value
    pos = Position.from_fen(fen)
    code = next(int(c) for c in pos.legal_move_codes() if move_to_uci(int(c)) == uci)
    assert see_ge(pos.arrays, code, value)
    assert not see_ge(pos.arrays, code, value + 1)


def test_see_ge_matches_the_recursive_swap_on_random_positions():
    rng = random.Random(20261123)
    checked = 0
    for _ in range(60):
        board = chess.Board()
        for _ in range(rng.randrange(10, 70)):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.3 else moves))
        if board.is_game_over():
            continue
        pos = Position.from_fen(board.fen())
        codes = {move_to_uci(int(c)): int(c) for c in pos.legal_move_codes()}
        for move in _plain_moves(board):
            value = oracle_see(board, move)
            code = codes[move.uci()]
            for threshold in (value - 1, value, value + 1, 0, -SEE_VALUE[1], SEE_VALUE[0]):
                assert see_ge(pos.arrays, code, threshold) == (value >= threshold), \
                    (board.fen(), move.uci(), value, threshold)
            checked += 1
    assert checked > 1000
