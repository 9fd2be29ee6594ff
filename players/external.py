"""Finding external engines (GNU Chess, Stockfish) installed from Debian's packages.

Debian installs games under ``/usr/games``, which is not on every user's PATH.
"""
from __future__ import annotations

import os
import shutil

SEARCH_DIRS = ("/usr/games", "/usr/local/games", "/usr/local/bin", "/usr/bin")


class EngineNotFoundError(FileNotFoundError):
    """An external engine binary that is not installed."""


def find_engine_binary(name: str) -> str:
    """Absolute path of an engine binary, looked up on PATH and in Debian's game directories."""
    if os.sep in name:
        if os.access(name, os.X_OK):
            return name
        raise EngineNotFoundError(f"engine {name!r} is not an executable file")
    found = shutil.which(name)
    if found:
        return found
    for directory in SEARCH_DIRS:
        candidate = os.path.join(directory, name)
        if os.access(candidate, os.X_OK):
            return candidate
    raise EngineNotFoundError(f"engine {name!r} not found on PATH or in {', '.join(SEARCH_DIRS)} "
                              f"(on Debian: apt-get install {name})")
