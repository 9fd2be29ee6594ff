"""A check several players share: ``concilio uci NAME`` under python-chess, as a GUI drives it."""
import sys

import chess
import chess.engine


def answers_two_go_nodes(player: str, algorithm: str, nodes: int) -> None:
    """The engine names its algorithm and answers two ``go nodes`` in a row with legal moves."""
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "concilio", "uci", player], timeout=120)
    try:
        assert algorithm in engine.id["name"]
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(nodes=nodes))
        assert result.move in board.legal_moves
        board.push(result.move)
        assert engine.play(board, chess.engine.Limit(nodes=nodes)).move in board.legal_moves
    finally:
        engine.quit()
