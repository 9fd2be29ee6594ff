"""Packed moves (``players.core.moves``): the fields come back as packed, a move fits the
transposition table's 17-bit move field, and the UCI text is python-chess's."""
import chess

from players.core.moves import (
    FLAG_CASTLE,
    FLAG_DOUBLE_PUSH,
    FLAG_EN_PASSANT,
    FLAG_NORMAL,
    KNIGHT,
    NO_MOVE,
    QUEEN,
    encode_move,
    move_flag,
    move_from,
    move_promo,
    move_to,
    move_to_uci,
)
from players.core.tt import entry_move, pack_entry


def test_every_field_comes_back_and_the_move_fits_the_table_s_field():
    for fr in range(64):
        for to in range(64):
            for promo in range(8):
                for flag in (FLAG_NORMAL, FLAG_EN_PASSANT, FLAG_CASTLE, FLAG_DOUBLE_PUSH):
                    m = encode_move(fr, to, promo, flag)
                    assert (move_from(m), move_to(m), move_promo(m), move_flag(m)) == (fr, to, promo, flag)
                    assert 0 <= m < 1 << 17
                    assert entry_move(pack_entry(m, 3, 255, -32768, 32767)) == m


def test_uci_text_is_python_chess_s():
    assert move_to_uci(NO_MOVE) == "0000"
    assert move_to_uci(encode_move(chess.E2, chess.E4, 0, FLAG_DOUBLE_PUSH)) == "e2e4"
    assert move_to_uci(encode_move(chess.A7, chess.A8, QUEEN, FLAG_NORMAL)) == "a7a8q"
    assert move_to_uci(encode_move(chess.H2, chess.G1, KNIGHT, FLAG_NORMAL)) == "h2g1n"
    for fr in chess.SQUARES:
        for to in chess.SQUARES:
            if fr != to:
                assert move_to_uci(encode_move(fr, to, 0, FLAG_NORMAL)) == chess.Move(fr, to).uci()
