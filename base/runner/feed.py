"""``map`` for runners with several slots (threads, Dask): one job per live slot at a time, a
job whose worker died sent again, a failed one reported and left out."""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from base.runner.protocol import Runner, SchedulerLost, WorkerLost

log = logging.getLogger("concilio.runner")
WORKER_RETURN_S = 60.0  # how long a runner with no live worker waits for one to come back
RESUME = "rerun the same command to resume, on a new scheduler (--scheduler) or on this machine (without it)"


def report_failure(fn: Callable, args: tuple, exc: BaseException) -> None:
    """The default for a job of ``map`` that failed: say so, and that a rerun retries it."""
    log.error("%s failed (%s); rerun to retry it", getattr(fn, "__name__", fn), exc)


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
                       + ("" if status == "running" else "; the Dask scheduler is gone") + f"); finished work is kept: "
                       f"{RESUME}")
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
