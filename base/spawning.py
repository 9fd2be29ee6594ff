"""Scripts that start players at their top level, re-imported by Dask's worker processes.

Dask starts local workers with ``spawn``: each new process imports the user's script again
(as ``__mp_main__``) before it can work.  A script without ``if __name__ == "__main__":``
then runs once more in every worker, and the first player it starts there tries to start a
cluster of its own from a process still bootstrapping, which ends in hundreds of lines of
Dask and multiprocessing errors.  Concilio turns that into one sentence: a worker caught
re-running the script leaves at once and quietly, and the script's own process, whose
cluster then fails to start, says what to change.
"""
from __future__ import annotations

import multiprocessing
import os
import sys

EXIT_REIMPORTED = 3  # a worker process that left because it was re-running the user's script


def bootstrapping() -> bool:
    """Whether this process is a spawned child still importing its parent's main module
    (multiprocessing's own test for the same mistake)."""
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def leave_if_reimported() -> None:
    """Called where a player or cluster is started: in a worker re-running the user's
    script, end the worker now (its parent explains, see :func:`script_hint`)."""
    if bootstrapping():
        sys.stderr.flush()
        os._exit(EXIT_REIMPORTED)


def script_hint() -> str:
    """What to tell a script whose worker processes failed to start ('' when the main module
    is not a script file: a notebook, ``python -c``, the ``concilio`` command)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(getattr(main, "__spec__", None), "name", None):
        return ""
    if getattr(getattr(main, "main", None), "__module__", "") == "concilio.cli":
        return ""  # the ``concilio`` command: no top-level code of the user's
    return (f"; if {os.path.basename(path)} starts players at its top level, put that code under "
            "`if __name__ == \"__main__\":` (Dask's worker processes re-import the script)")
