"""The first lines of a benchmark's result document: what it measured, with which engine, when
and by which command (``tests/test_docs.py`` reads them)."""
from __future__ import annotations

import datetime
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def header(title: str, script: str, note: str = "") -> list[str]:
    """Title, engine (bench signature, commit, fingerprint), date, and the command as run."""
    from base.fingerprint import engine_fingerprint
    from players.bench import run_bench
    from players.speed_measure import git_commit
    return [f"# {title}", "",
            f"* Engine: bench {run_bench().nodes}, commit {git_commit(ROOT)} (fingerprint {engine_fingerprint()}). "
            f"Date: {datetime.date.today().isoformat()}.",
            f"* Command: `python benchmarks/{script} {' '.join(sys.argv[1:])}`" + (f" {note}" if note else "")]
