"""Where an ensemble's instances search: in the coordinator's process one after another
(:class:`InlineInstances`), or each resident on a Dask worker (:class:`DaskInstances`).

Both answer one move's searches as the same reports and ballots, so the ensemble player
decides the same way whichever runs them; under node or depth budgets they give the
same moves.  While they search, both hand each instance's last completed iteration to a
``progress`` callback (``ensemble.progress``).  The coordinator never waits past the move's
deadline: an instance whose worker died, that raised, proposed an illegal move or searched
past the deadline is reported as excluded, and a lost instance is rebuilt on a live worker
before the next move.

Under a movetime, the Dask instances' searches end ``slack`` before the coordinator stops
waiting: the time a search takes to stop and its answer to travel back, measured on the
last moves (``DaskInstances.slack_ms``).  Instances that share a worker thread search one
after another, each in its share of the move.
"""
from __future__ import annotations

import math
import time
import uuid
from collections import Counter, deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import chess

from base.cluster import Cluster
from base.runner import SchedulerLost, StateClosed, WorkerLost
from players.limits import Limit
from players.position import Position
from players.result import IterationInfo
from players.searcher import Searcher

from ensemble import worker as worker_tasks
from ensemble.config import Budget, EnsembleConfig
from ensemble.decision import InstanceReport
from ensemble.progress import INFO_EVERY_S
from ensemble.ballot import Ballot
from ensemble.selection import CRITERIA

if TYPE_CHECKING:
    from base.runner.dask import DaskRunner, SlotJob

SAFETY = 0.9  # share of a movetime the inline instances may search; the rest is selection
Searches = tuple[list[InstanceReport], list[Ballot], float]  # reports, ballots, the move's deadline
ProgressCallback = Callable[[dict[str, IterationInfo]], None]  # each instance's last iteration, by label
INITIAL_SLACK_MS = 30  # a search's stop and its answer's trip back, before any answer has been timed
MIN_SLACK_MS = 10
POLL_TIMEOUT_S = 0.2  # the longest a progress poll may hold the coordinator


class InlineInstances:
    """Every instance in this process, one after another: a movetime is shared out among
    them so that the move is never late."""

    description = "inline (no Dask: the instances search one after another in this process)"
    dashboard = None

    def __init__(self, config: EnsembleConfig, on_event: Callable[[str], None]) -> None:
        self.config = config
        self._searchers: list[Searcher] = []
        self._interrupted = False

    def start(self) -> None:
        self._searchers = [inst.make_searcher() for inst in self.config.instances]

    @property
    def placement(self) -> dict[str, str | None]:
        return {inst.label: "inline" for inst in self.config.instances}

    def workers(self) -> list[str]:
        return []

    def new_game(self) -> None:
        for searcher in self._searchers:
            searcher.new_game()

    def stop(self) -> None:
        """The running instance answers now; the ones after it do not search."""
        self._interrupted = True
        for searcher in self._searchers:
            searcher.stop()

    def search(self, board: chess.Board, fen: str, moves: Sequence[str], budget: Budget, start: float,
               progress: ProgressCallback | None = None) -> Searches:
        self._interrupted = False
        latest: dict[str, IterationInfo] = {}
        n = len(self.config.instances)
        limits = budget.limits(n)
        if limits.movetime is not None:
            span_ms = budget.deadline(n) * 1000 * SAFETY
            limits = Limit(movetime=max(1, int(span_ms / n) - 5))
        reports, ballots = [], []
        legal = {m.uci() for m in board.legal_moves}
        # One conversion for the whole team: each search copies its arrays, where converting the
        # board again, its moves replayed, cost a twentieth of a 16-instance move.
        position = Position(board)
        for i, (inst, searcher) in enumerate(zip(self.config.instances, self._searchers)):
            if self._interrupted and ballots:
                reports.append(InstanceReport(inst.label, inst.weights_text(), "inline", None, "interrupted"))
                continue
            own = limits if limits.nodes is None else budget.limits(n, i)

            def heard(it: IterationInfo, label: str = inst.label) -> None:
                latest[label] = it
                progress(latest)  # type: ignore[misc]
            result = searcher.search(position, own, None if progress is None else heard,
                                     margin_probe=self.config.needs_margin)
            reason = None if result.bestmove in legal else f"illegal move {result.bestmove}"
            reports.append(InstanceReport(inst.label, inst.weights_text(), "inline", result, reason))
            if reason is None:
                ballots.append(Ballot(inst.label, inst.spec, result))
        return reports, ballots, start + budget.deadline(n)

    def close(self) -> None:
        self._searchers = []


class DaskInstances:
    """One instance resident on a Dask worker each (a local cluster by default, or the
    file's scheduler), its hash table warm for the whole game.  The instances' searches go
    through one runner (``base.runner.dask``): each instance lives in a slot, a long-lived
    actor on its worker, and a move costs one message out and one back per instance (and,
    while a ``progress`` callback listens, one poll of each worker every ``INFO_EVERY_S``)."""

    def __init__(self, config: EnsembleConfig, on_event: Callable[[str], None], cluster: Cluster | None = None
                 ) -> None:
        self.config = config
        self._on_event = on_event
        self._cluster = cluster  # lent by the caller; None: the runner opens its own
        self._runner: DaskRunner | None = None
        game = uuid.uuid4().hex[:8]
        self._keys = [f"{game}-{i}" for i in range(len(config.instances))]
        self._slots: dict[str, int | None] = {}  # instance key -> the slot that holds it
        self._homes: dict[str, str] = {}  # instance key -> the address of the worker it was built on
        self._lateness: deque[float] = deque(maxlen=3 * len(config.instances))  # ms past due, recent answers
        self._overdue: dict[str, tuple[SlotJob, float]] = {}  # the last move's late jobs: job, when it was due

    def start(self) -> None:
        from base.runner.dask import DaskRunner
        c = self.config.cluster
        n = len(self.config.instances)
        if self._cluster is None:
            self._runner = DaskRunner.start(c.workers or n, c.scheduler, threads_per_worker=c.threads_per_worker,
                                            dashboard=c.dashboard, wanted=n, tell=self._on_event)
        else:
            self._runner = DaskRunner(self._cluster, wanted=n, tell=self._on_event)
        live = self._runner.live()
        if 0 < len(live) < n:
            self._on_event(f"{n} instances on {len(live)} worker thread(s): those sharing a thread search one after "
                           f"another, each in its share of a timed move; give the cluster {n} worker threads "
                           f"(e.g. dask worker ... --nthreads 1 --nworkers {n}) to search them all at once")
        self._slots = {key: None for key in self._keys}
        jobs = {}
        for i, (key, inst) in enumerate(zip(self._keys, self.config.instances)):
            if live:  # round-robin in instance order: one instance per worker first
                self._slots[key] = live[i % len(live)]
                jobs[key] = self._runner.submit_to(self._slots[key], worker_tasks.create_instance, key, inst)
        for key in jobs:
            try:
                self._homes[key] = jobs[key].result(timeout=120)
            except Exception as exc:  # noqa: BLE001 - a worker that cannot hold an instance is reported
                self._slots[key] = None
                self._on_event(f"instance {self._label(key)} could not start: {exc}")

    @property
    def runner(self) -> DaskRunner:
        assert self._runner is not None, "the instances are not started"
        return self._runner

    @property
    def client(self):
        return self.runner.client

    @property
    def description(self) -> str:
        return self._runner.cluster.description if self._runner else "(not started)"

    @property
    def dashboard(self) -> str | None:
        return self._runner.cluster.dashboard if self._runner else None

    @property
    def placement(self) -> dict[str, str | None]:
        return {self._label(k): self._address(k) for k in self._keys}

    @property
    def slack_ms(self) -> int:
        """How long before the coordinator stops waiting a timed search is told to end: the
        latest answers' lateness (the search's stop, the trip back) plus 5 ms, at least
        ``MIN_SLACK_MS``; ``INITIAL_SLACK_MS`` before any answer was timed."""
        if not self._lateness:
            return INITIAL_SLACK_MS
        return max(MIN_SLACK_MS, math.ceil(max(self._lateness)) + 5)

    def workers(self) -> list[str]:
        """The addresses of the cluster's workers alive now."""
        return self._runner.cluster.workers() if self._runner else []

    def new_game(self) -> None:
        jobs = [self.runner.submit_to(slot, worker_tasks.new_game_instance, key)
                for key, slot in self._slots.items() if slot is not None]
        for job in jobs:
            try:
                job.result(timeout=30)
            except Exception:  # noqa: BLE001 - a lost instance is rebuilt at the next move anyway
                pass

    def stop(self) -> None:
        self._stop_remote(list(self._slots))

    def search(self, board: chess.Board, fen: str, moves: Sequence[str], budget: Budget, start: float,
               progress: ProgressCallback | None = None) -> Searches:
        n = len(self.config.instances)
        span = budget.deadline(n)
        deadline = start + span
        reserve = self._selection_reserve(span)
        limits = budget.limits(n)
        self._replace_lost_instances()
        self._time_overdue()
        sharing = Counter(s for s in self._slots.values() if s is not None)
        if limits.movetime is not None:
            # What the searches of one worker thread may take together from now, so that their
            # answers are back before the coordinator stops waiting.
            window_ms = min(limits.movetime, (deadline - reserve - time.perf_counter()) * 1000)
            slack_ms = min(self.slack_ms, window_ms / 4)
        jobs, due = {}, {}
        queued_ms: Counter = Counter()
        for i, key in enumerate(self._keys):
            slot = self._slots.get(key)
            if slot is None:
                continue
            own = limits if limits.nodes is None else budget.limits(n, i)
            if limits.movetime is not None:
                own = Limit(movetime=max(1, int(window_ms / sharing[slot] - slack_ms)))
                queued_ms[slot] += own.movetime
            jobs[key] = self.runner.submit_to(slot, worker_tasks.search_instance, key, fen, tuple(moves), own,
                                              self.config.needs_margin, key=f"search-{key}-{len(moves)}")
            due[key] = (time.perf_counter() + queued_ms[slot] / 1000, own.movetime)
        self._wait(jobs, deadline - reserve, progress)
        reports, ballots = self._collect(jobs, board, due, span)
        return reports, ballots, deadline

    def close(self) -> None:
        """Close the runner: its plugin's teardown stops and drops the instances on every
        worker, and a cluster of its own closes."""
        if self._runner is not None:
            self._runner.close()
        self._runner = None

    # --- internals --------------------------------------------------------------------------------
    def _label(self, key: str) -> str:
        return self.config.instances[self._keys.index(key)].label

    def _address(self, key: str) -> str | None:
        slot = self._slots.get(key)
        return None if slot is None or self._runner is None else self._runner.where(slot)

    def _wait(self, jobs: dict, until: float, progress: ProgressCallback | None) -> None:
        """Wait for the jobs until ``until``; meanwhile, for ``progress``, read the instances'
        last iterations every ``INFO_EVERY_S``."""
        while True:
            left = until - time.perf_counter()
            step = left if progress is None else min(left, INFO_EVERY_S)
            if step <= 0 or self.runner.wait(jobs.values(), timeout=step):
                return
            if progress is not None and until - time.perf_counter() > POLL_TIMEOUT_S:
                latest: dict[str, IterationInfo] = {}
                for answer in self.runner.everywhere(worker_tasks.instance_progress, *jobs, timeout=POLL_TIMEOUT_S):
                    latest.update((self._label(key), it) for key, it in answer.items())
                progress(latest)

    def _replace_lost_instances(self) -> None:
        live = self.runner.live()
        lost = [k for k in self._keys if self._slots.get(k) not in live]
        for key in lost:
            self._slots[key] = None
            if not live:
                self._on_event(f"instance {self._label(key)} has no worker: no worker is alive")
                continue
            # The least loaded live slot (instances per slot), the first of those in a tie.
            load = {s: sum(1 for v in self._slots.values() if v == s) for s in live}
            slot = min(live, key=lambda s: load[s])
            try:
                job = self.runner.submit_to(slot, worker_tasks.create_instance, key,
                                            self.config.instances[self._keys.index(key)])
                self._homes[key] = job.result(timeout=30)
                self._slots[key] = slot
                self._on_event(f"instance {self._label(key)} rebuilt on {self.runner.where(slot)} (cold hash table)")
            except Exception as exc:  # noqa: BLE001
                self._on_event(f"instance {self._label(key)} has no worker: {exc}")

    def _time_overdue(self) -> None:
        """How late the last move's late answers came, once they have: a slack that was too
        short lengthens."""
        for job, due in self._overdue.values():
            if job.finished is not None:
                self._lateness.append((job.finished - due) * 1000)
        self._overdue = {}

    def _selection_reserve(self, total: float) -> float:
        """Seconds kept back from the wait for selection (and a fallback search): the
        selection itself takes under a millisecond; criteria that gather evidence or search
        the candidates take more."""
        criterion = CRITERIA[self.config.selection.criterion]
        reserve = 0.01 + (0.05 if criterion.needs_evidence else 0.0) + (0.15 if criterion.needs_search else 0.0)
        return min(reserve, 0.25 * total)

    def _collect(self, jobs: dict, board: chess.Board, due: dict[str, tuple[float, int | None]], span: float
                 ) -> tuple[list[InstanceReport], list[Ballot]]:
        late: list[str] = []
        reports: list[InstanceReport] = []
        ballots: list[Ballot] = []
        legal = {m.uci() for m in board.legal_moves}
        now = time.perf_counter()
        for key, inst in zip(self._keys, self.config.instances):
            address = self._address(key)
            where = self._homes.get(key, "(unknown)")
            weights = inst.weights_text()
            job = jobs.get(key)
            if job is None:
                reports.append(InstanceReport(inst.label, weights, None, None, "no worker"))
                continue
            reason = None
            result = None
            due_at, movetime = due[key]
            if job.done():
                error = job.exception()
                if error is not None:
                    reason = _failure(error, where)
                    if isinstance(error, (WorkerLost, StateClosed, worker_tasks.InstanceMissing)):
                        self._slots[key] = None  # rebuilt on a live worker before the next move
                else:
                    result = job.result()
                    if movetime is not None:
                        self._lateness.append((job.finished - due_at) * 1000)
                    if result.bestmove not in legal:
                        reason = f"illegal move {result.bestmove}"
            elif address is None:
                reason = f"worker {where} died"
                self._slots[key] = None
            else:  # the stopped search ends soon, its result unread
                reason = (f"searched past the deadline: no answer {(now - due_at) * 1000:.0f} ms after its "
                          f"{movetime} ms were up" if movetime is not None else
                          f"no answer within the {span:g} s deadline")
                late.append(key)
                self._overdue[key] = (job, due_at)
            if reason is not None:
                self._on_event(f"{inst.label}: left out of this move's vote ({reason})")
            reports.append(InstanceReport(inst.label, weights, address, result, reason))
            if reason is None:
                ballots.append(Ballot(inst.label, inst.spec, result))
        self._stop_remote(late)
        return reports, ballots

    def _stop_remote(self, keys: list[str]) -> None:
        """One stop message to every worker that holds one of ``keys`` (no wait)."""
        slots = [s for k, s in self._slots.items() if k in keys and s is not None]
        if self._runner is None or not slots:
            return
        self._runner.signal(worker_tasks.stop_instances, *keys, slots=slots)


def _failure(error: BaseException, address: str) -> str:
    """Why a search that failed has no vote, in a user's words."""
    if isinstance(error, SchedulerLost):
        return "the Dask scheduler is gone"
    if isinstance(error, WorkerLost):
        return f"worker {address} died"
    if isinstance(error, StateClosed):
        return f"worker {address} shut down during the search"
    if isinstance(error, worker_tasks.InstanceMissing):
        return f"worker {address} no longer holds the instance (it restarted)"
    return f"failed on worker {address}: {type(error).__name__}: {error}"
