"""The one way Concilio runs work: a :class:`Runner`, and what a worker keeps between jobs.

Every part that spreads work over processes or threads goes through a runner: the
ensemble's instances, the decomposition's master, matches, suites, labelling and the fit's
self-play.  A runner has ``workers`` *slots*, each running one job at a time:

* :class:`InlineRunner`: one slot, this process; a job runs when it is submitted (tests,
  one core, the sequential reference).
* :class:`ThreadRunner`: slots are threads of this process (a parallel search inside one
  process: its threads share memory).
* ``base.dask_runner.DaskRunner``: slots are the threads of Dask workers; a job goes from
  here straight to its slot's worker and back (a direct channel, or a call of the slot's
  Dask actor), with no scheduler round trip.

What a worker keeps between jobs (an instance's searcher and its warm hash table, a
match's players, a labeller's engine, a shared table) is a :class:`Resident`: a named kind
of object, stored in the :class:`WorkerState` of the runner whose job runs.  On Dask the
state is held by a ``WorkerPlugin`` registered for the runner, whose teardown (the runner
closing, or the worker itself closing) stops searches, quits engines and releases tables;
in process the runner closes its own state.  This module knows nothing of chess.
"""
from __future__ import annotations

import atexit
import contextvars
import inspect
import logging
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from contextlib import contextmanager
from typing import Any, Generic, Protocol, TypeVar

from base.cluster import ClusterError

log = logging.getLogger("concilio.runner")
WORKER_RETURN_S = 60.0  # how long a runner with no live worker waits for one to come back
T = TypeVar("T")


class WorkerLost(ClusterError):
    """The worker a job ran on is gone (it died, or the scheduler did): the job's work is
    lost; what finished before it is not."""


class SchedulerLost(WorkerLost):
    """The Dask scheduler is gone, and its workers with it: no job can run any more."""


class StateClosed(ClusterError):
    """A job ran where its runner's state had been let go: the runner closed, or the worker
    itself is shutting down."""


# --- what a worker keeps between jobs ---------------------------------------------------------------

def close_item(item: Any) -> None:
    """The default way a resident object is let go: a running search is stopped (``stop``),
    then the object closed (``close``), whichever it has."""
    for name in ("stop", "close"):
        method = getattr(item, name, None)
        if callable(method):
            method()


class WorkerState:
    """The resident objects of one runner in one process, by kind (a :class:`Resident`'s
    name) and key.  ``close`` lets every one go, each the way its kind says."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.RLock()
        self._stores: dict[str, dict[str, Any]] = {}
        self._closers: dict[str, Callable[[Any], object]] = {}
        self.closed = False

    def store(self, resident: Resident) -> dict[str, Any]:
        """The objects of ``resident``'s kind (call with ``lock`` held).  A closed state
        keeps nothing more: a job still running when its runner closed fails instead of
        starting an engine that nobody would quit."""
        if self.closed:
            raise StateClosed(f"{self.name} is closed: its runner or its worker has stopped")
        items = self._stores.get(resident.name)
        if items is None:
            items = self._stores[resident.name] = {}
            self._closers[resident.name] = resident.close
        return items

    def count(self) -> int:
        with self.lock:
            return sum(map(len, self._stores.values()))

    def close(self) -> int:
        """Let every resident object go (kinds in the order they were first used, each
        object's failure logged, not raised); how many there were."""
        with self.lock:
            stores, closers = self._stores, self._closers
            self._stores, self._closers = {}, {}
            self.closed = True
        closed = 0
        for name, items in stores.items():
            for key, item in items.items():
                closed += 1
                try:
                    closers[name](item)
                except Exception as exc:  # noqa: BLE001 - one object that fails to close must not keep the others
                    log.warning("closing %s %s failed: %s", name, key, exc)
        return closed

    def __repr__(self) -> str:
        return f"<WorkerState {self.name}: {self.count()} resident>"


_CURRENT: contextvars.ContextVar[WorkerState | None] = contextvars.ContextVar("concilio_worker_state", default=None)
_PROCESS: list[WorkerState] = []  # the state of work done outside any runner (a test calling a job directly)


def current_state() -> WorkerState:
    """The state of the runner whose job runs here; outside any job, this process's own
    (closed when the process exits)."""
    state = _CURRENT.get()
    if state is not None:
        return state
    if not _PROCESS:
        _PROCESS.append(WorkerState("this process"))
        atexit.register(_PROCESS[0].close)
    return _PROCESS[0]


@contextmanager
def in_state(state: WorkerState) -> Iterator[WorkerState]:
    """Run the block as a job of the runner that owns ``state``."""
    token = _CURRENT.set(state)
    try:
        yield state
    finally:
        _CURRENT.reset(token)


def run_in_state(state: WorkerState, fn: Callable, args: tuple) -> Any:
    """``fn(*args)`` as a job of ``state``'s runner; a coroutine function is run to its end."""
    with in_state(state):
        value = fn(*args)
        if inspect.isawaitable(value):
            value = _finish(value)
        return value


def _finish(awaitable) -> Any:
    """Run a coroutine that never suspends (the signal coroutines only take a lock and set
    flags) here, without an event loop."""
    coroutine = awaitable.__await__()
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("a signal coroutine awaited something")  # pragma: no cover - they never do


class Resident(Generic[T]):
    """A kind of object a worker keeps between jobs, by key: made by a job, found by the
    next job on the same worker.  A module declares its kinds once
    (``_PLAYERS = Resident("match.players")``); the objects themselves live in the state of
    the runner whose job runs, and are let go with ``close`` (default :func:`close_item`)
    when that runner closes or its worker does."""

    def __init__(self, name: str, close: Callable[[T], object] = close_item) -> None:
        self.name = name
        self.close = close

    def _locked(self) -> tuple[threading.RLock, dict[str, T]]:
        state = current_state()
        return state.lock, state.store(self)

    def get(self, key: str) -> T | None:
        lock, items = self._locked()
        with lock:
            return items.get(key)

    def get_or_create(self, key: str, make: Callable[[], T]) -> T:
        state = current_state()
        with state.lock:
            items = state.store(self)
            item = items.get(key)
            if item is None:
                item = items[key] = make()
            return item

    def put(self, key: str, item: T) -> None:
        lock, items = self._locked()
        with lock:
            items[key] = item

    def pop(self, key: str) -> T | None:
        lock, items = self._locked()
        with lock:
            return items.pop(key, None)

    def pop_prefix(self, prefix: str) -> list[T]:
        """Remove and return every object whose key starts with ``prefix`` (a game's)."""
        lock, items = self._locked()
        with lock:
            return [items.pop(k) for k in [k for k in items if k.startswith(prefix)]]

    def pop_all(self) -> list[T]:
        return self.pop_prefix("")

    def __iter__(self) -> Iterator[T]:
        lock, items = self._locked()
        with lock:
            return iter(list(items.values()))


# --- the runner ---------------------------------------------------------------------------------------

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


def report_failure(fn: Callable, args: tuple, exc: BaseException) -> None:
    """The default for a job of ``map`` that failed: say so, and that a rerun retries it."""
    log.error("%s failed (%s); rerun to retry it", getattr(fn, "__name__", fn), exc)


class Done:
    """A job that ran at once in this process (:class:`InlineRunner`)."""

    def __init__(self, key: str, value: Any = None, error: BaseException | None = None) -> None:
        self.key = key
        self._value = value
        self._error = error

    def done(self) -> bool:
        return True

    def result(self, timeout: float | None = None) -> Any:
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self) -> None:
        pass


class InlineRunner:
    """One slot: this process, where a job runs as soon as it is submitted (a :class:`Runner`)."""

    workers = 1
    client = None
    processes = 1
    local = True

    def __init__(self, name: str = "inline") -> None:
        self.messages = 0
        self.state = WorkerState(name)

    def submit(self, fn: Callable, *args, key: str = "", home: Hashable | None = None) -> Done:
        return self.submit_to(0, fn, *args, key=key)

    def submit_to(self, slot: int, fn: Callable, *args, key: str = "") -> Done:
        try:
            return Done(key, run_in_state(self.state, fn, args))
        except Exception as exc:  # noqa: BLE001 - handed to whoever asks for the result
            return Done(key, error=exc)

    def first_done(self, jobs: Sequence[Done]) -> Done:
        return jobs[0]

    def wait(self, jobs: Iterable[Done], timeout: float | None = None) -> bool:
        return True

    def map(self, fn: Callable, argument_lists: Iterable[tuple], *,
            on_error: Callable[[tuple, BaseException], None] | None = None) -> Iterator[tuple[tuple, Any]]:
        """One job after another, each run only when the caller asks for the next result
        (a caller that stops early leaves the rest unrun)."""
        for args in argument_lists:
            try:
                value = run_in_state(self.state, fn, tuple(args))
            except Exception as exc:  # noqa: BLE001 - one lost item must not cost the rest
                (on_error or (lambda a, e: report_failure(fn, a, e)))(tuple(args), exc)
                continue
            yield tuple(args), value

    def signal(self, fn: Callable, *args, slots: Iterable[int] | None = None) -> None:
        run_in_state(self.state, fn, args)

    def everywhere(self, fn: Callable, *args, timeout: float | None = None) -> list:
        return [run_in_state(self.state, fn, args)]

    def here(self):
        return in_state(self.state)

    def live(self) -> list[int]:
        return [0]

    def where(self, slot: int) -> str | None:
        return "inline"

    def close(self) -> None:
        self.state.close()

    def __enter__(self) -> InlineRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ThreadJob:
    """A job on a thread of a :class:`ThreadRunner`."""

    def __init__(self, key: str, future: Future) -> None:
        self.key = key
        self.future = future

    def done(self) -> bool:
        return self.future.done()

    def result(self, timeout: float | None = None) -> Any:
        return self.future.result(timeout)

    def cancel(self) -> None:
        self.future.cancel()


class ThreadRunner:
    """Slots that are threads of this process (a :class:`Runner`): jobs that release the GIL
    (the search does) run at the same time, over this process's memory.  The team of an
    ensemble instance that is itself a parallel search (it already lives on a Dask worker)
    runs here, as does a player inside a match's game."""

    client = None
    processes = 1
    local = True

    def __init__(self, workers: int = 2, name: str = "threads") -> None:
        self.workers = workers
        self.messages = 0
        self.state = WorkerState(name)
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix=f"concilio-{name}")
        self._next = 0

    def submit(self, fn: Callable, *args, key: str = "", home: Hashable | None = None) -> ThreadJob:
        self._next += 1
        return self.submit_to(self._next, fn, *args, key=key)

    def submit_to(self, slot: int, fn: Callable, *args, key: str = "") -> ThreadJob:
        self.messages += 2  # the job out, its result back
        return ThreadJob(key, self._pool.submit(run_in_state, self.state, fn, args))

    def first_done(self, jobs: Sequence[ThreadJob]) -> ThreadJob:
        done, _ = wait_futures([j.future for j in jobs], return_when=FIRST_COMPLETED)
        return next(j for j in jobs if j.future in done)

    def wait(self, jobs: Iterable[ThreadJob], timeout: float | None = None) -> bool:
        _, pending = wait_futures([j.future for j in jobs], timeout=timeout)
        return not pending

    def map(self, fn: Callable, argument_lists: Iterable[tuple], *,
            on_error: Callable[[tuple, BaseException], None] | None = None) -> Iterator[tuple[tuple, Any]]:
        return feed(self, fn, argument_lists, on_error)

    def signal(self, fn: Callable, *args, slots: Iterable[int] | None = None) -> None:
        self.messages += 1
        run_in_state(self.state, fn, args)

    def everywhere(self, fn: Callable, *args, timeout: float | None = None) -> list:
        self.messages += 1
        return [run_in_state(self.state, fn, args)]

    def here(self):
        return in_state(self.state)

    def live(self) -> list[int]:
        return list(range(self.workers))

    def where(self, slot: int) -> str | None:
        return "this process"

    def close(self) -> None:
        """Stop what runs (its resident searches are stopped, its engines closed) and wait
        for the threads."""
        self.state.close()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ThreadRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def feed(runner: Runner, fn: Callable, argument_lists: Iterable[tuple],
         on_error: Callable[[tuple, BaseException], None] | None = None, retries: int = 1
         ) -> Iterator[tuple[tuple, Any]]:
    """``map`` for runners with several slots: one job per live slot at a time, the next
    sent as one finishes, each result yielded as it comes.  A job that fails is reported
    (``on_error``) and left out; one whose worker died is sent again to a live slot
    (``retries`` times) and reported if it still cannot finish.  Nothing is queued on the
    workers, so a caller that stops early (a Ctrl-C, a decided SPRT) starts no more jobs."""
    report = on_error or (lambda a, e: report_failure(fn, a, e))
    pending = [(tuple(args), 0) for args in argument_lists]
    pending.reverse()
    running: dict[Any, tuple[tuple, int, int]] = {}  # job -> (args, tries, slot)
    while pending or running:
        busy = {slot for _, _, slot in running.values()}
        live = runner.live()
        if not live and not running:
            live = _wait_for_workers(runner)
        for slot in live:
            if not pending:
                break
            if slot not in busy:
                args, tries = pending.pop()
                running[runner.submit_to(slot, fn, *args)] = (args, tries, slot)
        if not running:
            status = getattr(runner.client, "status", "running")
            lost = SchedulerLost if status != "running" else WorkerLost
            raise lost(f"no worker is left to run {getattr(fn, '__name__', fn)} ({len(pending)} job(s) not run"
                       + ("" if status == "running" else "; the Dask scheduler is gone") + "); finished work is kept, "
                       "rerun to go on")
        job = runner.first_done(list(running))
        args, tries, _ = running.pop(job)
        try:
            value = job.result()
        except SchedulerLost:
            raise  # nothing more can run: the caller stops, its finished work kept
        except WorkerLost as exc:
            if tries < retries:
                log.warning("%s; running its job again on another worker", exc)
                pending.append((args, tries + 1))
            else:
                report(args, exc)
            continue
        except Exception as exc:  # noqa: BLE001 - one lost item must not cost the rest
            report(args, exc)
            continue
        yield args, value


def _wait_for_workers(runner: Runner, seconds: float = WORKER_RETURN_S) -> list[int]:
    """The live slots, once a worker is back (a nanny restarts one that died in a second or
    two); none if none came back in ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        live = runner.live()
        if live or time.monotonic() > deadline or getattr(runner.client, "status", "running") != "running":
            return live
        time.sleep(0.5)


def open_runner(workers: int, *, runner: Runner | None = None, **cluster) -> tuple[Runner, bool]:
    """The runner a command uses: ``runner`` when the caller lends one, else an
    :class:`InlineRunner` for one worker, else a ``DaskRunner`` on a local cluster of
    ``workers`` processes (``cluster``: ``open_cluster``'s other arguments).  Returns the
    runner and whether the caller owns it (and must close it)."""
    if runner is not None:
        return runner, False
    if workers <= 1:
        return InlineRunner(), True
    from base.dask_runner import DaskRunner
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
