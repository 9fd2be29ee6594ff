"""A GUI's first start of ``concilio uci`` on an empty numba cache, run as a script:
``python cold_start_probe.py FOLDER``.  python-chess's ``popen_uci`` with its default timeouts
starts the engine (cache under ``FOLDER/cache``, standard error in ``FOLDER/stderr``) and plays
one move at depth 1; ``FOLDER/result.json`` then holds the move, the search's own time and the
wall time of the ``go`` (or the error).

The suite starts it while it fills its own cache (``tests/conftest.py``), so that this minute of
compiling runs on the core the suite's warm-up leaves idle; ``test_uci.py`` reads the result."""
import json
import os
import sys
import time
import traceback
from pathlib import Path

import chess
import chess.engine

from base.resources import COLD_NOTICE_ENV

UCI = [sys.executable, "-m", "concilio", "uci"]


def probe(folder: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in (COLD_NOTICE_ENV, "NUMBA_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(folder / "cache")
    with open(folder / "stderr", "w") as stderr:
        engine = chess.engine.SimpleEngine.popen_uci(UCI, env=env, stderr=stderr)
        try:
            started = time.perf_counter()
            played = engine.play(chess.Board(), chess.engine.Limit(depth=1), info=chess.engine.INFO_ALL)
            wall = time.perf_counter() - started
        finally:
            engine.quit()
    return {"move": played.move.uci() if played.move else None, "time": played.info.get("time"), "wall": wall}


def main(folder: Path) -> None:
    try:
        result = probe(folder)
    except Exception:  # the test reports it: a probe that dies silently would look like a hang
        result = {"error": traceback.format_exc()}
    (folder / "result.json.part").write_text(json.dumps(result))
    os.replace(folder / "result.json.part", folder / "result.json")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
