"""Which runner a command uses: inline for one worker, else Dask.  Kept apart from the
protocol so that only this module names the Dask runner, and the Dask runner (which uses the
protocol and the state) imports nothing that imports it back."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from base.runner.inline import InlineRunner
from base.runner.protocol import Runner


def open_runner(workers: int, *, runner: Runner | None = None, **cluster) -> tuple[Runner, bool]:
    """The runner a command uses: ``runner`` when the caller lends one, else an
    :class:`InlineRunner` for one worker, else a ``DaskRunner`` on a local cluster of
    ``workers`` processes (``cluster``: ``open_cluster``'s other arguments).  Returns the
    runner and whether the caller owns it (and must close it)."""
    if runner is not None:
        return runner, False
    if workers <= 1:
        return InlineRunner(), True
    from base.runner.dask import DaskRunner  # distributed loads only when a cluster is wanted
    return DaskRunner.start(workers, **cluster), True


@contextmanager
def borrowed_or_own(workers: int, runner: Runner | None = None, **cluster) -> Iterator[Runner]:
    """:func:`open_runner` as a ``with`` block: a runner of its own is closed at the end."""
    used, own = open_runner(workers, runner=runner, **cluster)
    try:
        yield used
    finally:
        if own:
            used.close()
