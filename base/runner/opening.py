"""Which runner a command uses: inline for one worker, a local Dask cluster for several, or
the workers of an existing scheduler (:class:`base.cluster.Remote`).  Kept apart from the
protocol so that only this module names the Dask runner, and the Dask runner (which uses the
protocol and the state) imports nothing that imports it back."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from base.cluster import ClusterError, Remote
from base.runner.inline import InlineRunner
from base.runner.protocol import Runner


def open_runner(workers: int, *, runner: Runner | None = None, remote: Remote | None = None,
                tell: Callable[[str], None] | None = None, **cluster) -> tuple[Runner, bool]:
    """The runner a command uses: ``runner`` when the caller lends one; else, with
    ``remote``, a ``DaskRunner`` on that scheduler's workers (every worker thread, or
    ``remote.slots``; it tells ``tell`` where it runs); else an :class:`InlineRunner` for
    one worker, or a ``DaskRunner`` on a local cluster of ``workers`` processes
    (``cluster``: ``open_cluster``'s other arguments).  Returns the runner and whether the
    caller owns it (and must close it)."""
    if runner is not None:
        return runner, False
    if remote is not None:
        return _on_scheduler(remote, tell or _print), True
    if workers <= 1:
        return InlineRunner(), True
    from base.runner.dask import DaskRunner  # distributed loads only when a cluster is wanted
    return DaskRunner.start(workers, **cluster), True


@contextmanager
def borrowed_or_own(workers: int, runner: Runner | None = None, *, remote: Remote | None = None,
                    tell: Callable[[str], None] | None = None, **cluster) -> Iterator[Runner]:
    """:func:`open_runner` as a ``with`` block: a runner of its own is closed at the end."""
    used, own = open_runner(workers, runner=runner, remote=remote, tell=tell, **cluster)
    try:
        yield used
    finally:
        if own:
            used.close()


def _on_scheduler(remote: Remote, tell: Callable[[str], None]) -> Runner:
    """A runner on the workers of ``remote``'s scheduler, once one has joined; says where.
    Refused when a worker runs another engine than this checkout: the results it sent back
    would be filed under this engine's fingerprint (a store's key, a game's record)."""
    from base.runner.dask import DaskRunner
    used = DaskRunner.start(None, remote.scheduler, dashboard=True, slots=remote.slots, wanted=remote.slots,
                            tell=tell)
    ours, theirs = _engine(), set(used.everywhere(_engine))
    if theirs - {ours}:
        used.close()
        raise ClusterError(f"the workers of {remote.scheduler} run engine {', '.join(sorted(theirs - {ours}))} "
                           f"(base.fingerprint) and this checkout engine {ours}: give every machine this checkout")
    threads = used.cluster.worker_threads()
    cap = f"; {used.workers} at once (slots: {remote.slots})" if remote.slots and remote.slots < sum(
        threads.values()) else ""
    board = f"; dashboard {used.cluster.dashboard}" if used.cluster.dashboard else ""
    tell(f"on the Dask cluster at {remote.scheduler}: {len(threads)} worker(s), {sum(threads.values())} "
         f"thread(s){cap}{board}")
    return used


def _engine() -> str:
    """The engine's fingerprint where this runs (here, or on a worker)."""
    from base.fingerprint import engine_fingerprint
    return engine_fingerprint()


def _print(line: str) -> None:
    print(line, flush=True)
