"""The runner of one slot, this process: a job runs when it is submitted (tests, one core,
the sequential reference)."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any

from base.runner.feed import report_failure
from base.runner.state import WorkerState, in_state, run_in_state


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
