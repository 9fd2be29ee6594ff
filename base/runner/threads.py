"""The runner whose slots are threads of this process: a parallel search inside one process,
its threads sharing memory."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any

from base.runner.feed import feed
from base.runner.state import WorkerState, in_state, run_in_state


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
