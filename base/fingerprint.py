"""Which engine produced a stored result, and which compiled code belongs to it: a
fingerprint of the code a search runs.

Why: numba's cache checks a function's own source file only.  The evaluation reads its
piece-square tables from ``evaluation/tables.py`` as compile-time constants, so after a
change to the tables (``concilio fit terms --tables --apply``) the cached search kept the
old ones and a bench read neither engine's signature.  The numba cache therefore lives in
a folder named by this fingerprint (``base.resources.use_user_numba_cache``).

And: the suite and autotune stores reuse every search they hold, keyed by position,
instance and budget.  Without the engine in the key, a rerun after a change to the search
or the evaluation silently scores the old engine's moves.  The fingerprint hashes the
syntax trees of the modules that decide a search's result (``players/core``, ``evaluation``)
with docstrings dropped, so comments and documentation do not invalidate a store while any
change to the code does.  (The bench signature is the finer test of "same search", but it
costs a search to compute; this costs a parse.)
"""
from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_SOURCES = ("players/core", "evaluation")


def normalised_source(text: str) -> str:
    """The module's syntax tree without docstrings: equal for sources that differ only in
    comments, docstrings and layout."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(tree, annotate_fields=False)


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """12 hex digits naming the search and evaluation code of this installation."""
    digest = hashlib.sha1()
    for folder in ENGINE_SOURCES:
        for path in sorted((ROOT / folder).glob("*.py")):
            digest.update(path.relative_to(ROOT).as_posix().encode())
            digest.update(normalised_source(path.read_text(encoding="utf-8")).encode())
    return digest.hexdigest()[:12]
