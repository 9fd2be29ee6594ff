"""How much Concilio and Dask say on stderr: warnings by default, INFO with ``concilio -v``,
DEBUG with ``-vv``.

Why here, in the lowest layer: the level must also reach the Dask workers a command starts
(``base.cluster`` hands ``worker_log_level`` to them), and each of our packages logs under its
own name (``concilio.*``, ``players.decomposition.player``, ...).
"""
from __future__ import annotations

import logging

OURS = ("concilio", "base", "evaluation", "players", "ensemble", "tournaments")
DASK = ("distributed",)
QUIET_WORKERS = logging.ERROR  # what a worker says unless asked for more
_level: int | None = None


def set_verbosity(verbose: int) -> int | None:
    """0: leave logging as it is; 1: INFO, 2 or more: DEBUG, for our loggers and Dask's.  The
    level set, or None."""
    global _level
    if verbose <= 0:
        return None
    _level = logging.INFO if verbose == 1 else logging.DEBUG
    root = logging.getLogger()
    if not root.handlers:  # our loggers propagate to the root; Dask's has a handler of its own
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
        root.addHandler(handler)
    for name in OURS + DASK:
        logging.getLogger(name).setLevel(_level)
    return _level


def worker_log_level() -> int:
    """The level a Dask worker logs at: ``QUIET_WORKERS`` unless ``set_verbosity`` asked for more."""
    return _level if _level is not None else QUIET_WORKERS
