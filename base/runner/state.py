"""What a worker keeps between jobs: a :class:`Resident` kind of object, stored in the
:class:`WorkerState` of the runner whose job runs (``current_state``), let go when that runner
closes or its worker does.  Every runner keeps its jobs' objects here, in process or on Dask."""
from __future__ import annotations

import atexit
import contextvars
import inspect
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from base.cluster import ClusterError

log = logging.getLogger("concilio.runner")
T = TypeVar("T")


class StateClosed(ClusterError):
    """A job ran where its runner's state had been let go: the runner closed, or the worker
    itself is shutting down."""


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
