"""What a runner is (:class:`Runner`), what it hands back for a job (:class:`Job`), and the
errors of a worker that is gone.  The implementations (inline, threads, Dask) are beside it."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from base.cluster import ClusterError


class WorkerLost(ClusterError):
    """The worker a job ran on is gone (it died, or the scheduler did): the job's work is
    lost; what finished before it is not."""


class SchedulerLost(WorkerLost):
    """The Dask scheduler is gone, and its workers with it: no job can run any more."""


class Job(Protocol):
    """A submitted job: ``result`` waits for its value (or raises its error; a job whose
    worker died raises :class:`WorkerLost`)."""

    key: str

    def done(self) -> bool: ...

    def result(self, timeout: float | None = None) -> Any: ...

    def cancel(self) -> None: ...


class Runner(Protocol):
    """Where jobs run.  A job is a picklable function and its arguments; it runs in one of
    ``workers`` slots, each running one job at a time, and finds there what earlier jobs of
    this runner left resident (:class:`Resident`).

    * ``submit`` picks the least busy slot (the one that last had ``home``, if idle);
      ``submit_to`` a given slot (modulo ``workers``): the one holding what the job needs.
    * ``first_done`` / ``wait`` wait for jobs; ``map`` runs many, as slots free up,
      yielding each result as it comes (a failed job is reported and left out).
    * ``signal`` runs a short function (a coroutine, typically) on the event loop of the
      slots' worker processes, where it reaches the jobs running there: a stop order, a
      new bound.  ``everywhere`` does so and waits for every answer (at most ``timeout``
      seconds: a worker that has not answered by then gives none).
    * ``here`` makes this process's own state current: what the coordinator keeps for the
      runner (the shared memory it made for the workers) is let go when the runner closes.
    * ``live`` lists the slots whose worker is alive (adding slots on workers that joined
      since, such as one a nanny restarted); ``where`` names a slot's worker.
    * ``messages`` counts the messages sent and received (the thesis's communication
      measure; the caller may reset it); ``client`` is the Dask client, None in process;
      ``processes`` how many processes the slots live in; ``local`` whether they are on this
      machine (shared memory reaches them).
    """

    workers: int
    messages: int
    client: Any | None
    processes: int
    local: bool

    def submit(self, fn: Callable, *args, key: str = "", home: Hashable | None = None) -> Job: ...

    def submit_to(self, slot: int, fn: Callable, *args, key: str = "") -> Job: ...

    def first_done(self, jobs: Sequence[Job]) -> Job: ...

    def wait(self, jobs: Iterable[Job], timeout: float | None = None) -> bool: ...

    def map(self, fn: Callable, argument_lists: Iterable[tuple], *,
            on_error: Callable[[tuple, BaseException], None] | None = None) -> Iterator[tuple[tuple, Any]]: ...

    def signal(self, fn: Callable, *args, slots: Iterable[int] | None = None) -> None: ...

    def everywhere(self, fn: Callable, *args, timeout: float | None = None) -> list: ...

    def here(self): ...

    def live(self) -> list[int]: ...

    def where(self, slot: int) -> str | None: ...

    def close(self) -> None: ...
