"""Concilio: knowledge-distribution chess players.

As a library (``concilio.api``)::

    import chess, concilio
    with concilio.player("MKP") as mkp:
        played = mkp.play(chess.Board(), concilio.Limit(nodes=20000))

``player``, ``analyse``, ``evaluate``, ``run_suite``, ``run_match``, ``Limit``, ``Player``,
``Played``, ``Settings`` and ``ConcilioError`` are loaded on first use, so that the
``concilio`` command (``concilio.cli``) starts without them.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
__all__ = ["ConcilioError", "Limit", "Played", "Player", "Settings", "analyse", "evaluate", "player", "run_match",
           "run_suite"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("concilio.api"), name)
    raise AttributeError(f"module 'concilio' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
