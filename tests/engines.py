"""The external engines some tests play against, and the mark that skips such a test on a
machine without one (CI installs them: .ci/run)."""
import pytest

from players.external import find_engine_binary


def installed(engine: str) -> bool:
    try:
        find_engine_binary(engine)
        return True
    except FileNotFoundError:
        return False


needs_stockfish = pytest.mark.skipif(not installed("stockfish"), reason="stockfish is not installed")
