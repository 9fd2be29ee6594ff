"""Cold and warm start of ``concilio search``: seconds until the first info line;
and of ``concilio uci``: seconds from ``uci`` to ``readyok`` (a GUI's start-up wait,
which includes the warm-up search that keeps numba's loading out of the first move).

Cold: an empty numba cache (``NUMBA_CACHE_DIR`` pointed at a fresh folder), so
everything is compiled.  Warm: the same command again, loading that cache.

Usage: python benchmarks/startup.py
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time


def first_info_seconds(env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "concilio", "search", "--depth", "6"], stdout=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout
    for line in proc.stdout:
        if line.startswith("info depth 1"):
            elapsed = time.perf_counter() - start
            break
    else:
        raise RuntimeError("no info line")
    proc.wait()
    return elapsed


def uci_ready_seconds(env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "concilio", "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdin and proc.stdout
    proc.stdin.write("uci\nisready\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if line.strip() == "readyok":
            elapsed = time.perf_counter() - start
            break
    else:
        raise RuntimeError("no readyok")
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    return elapsed


def main() -> int:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = first_info_seconds(env)
        warm = [first_info_seconds(env) for _ in range(3)]
        ready = [uci_ready_seconds(env) for _ in range(3)]
    print(f"cold start (empty numba cache): {cold:.1f} s to the first iteration")
    print(f"warm start (cache loaded):      {min(warm):.1f} s (best of 3; {', '.join(f'{w:.1f}' for w in warm)})")
    print(f"concilio uci, uci to readyok:   {min(ready):.1f} s (best of 3, warm cache)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
