"""Where an ensemble's instances search: in the coordinator's process one after another
(:class:`InlineInstances`), or each resident on a Dask worker (:class:`DaskInstances`).

Both answer one move's searches as the same reports and ballots, so the ensemble player
decides the same way whichever runs them; under node or depth budgets they give the
same moves.  The coordinator never waits past the move's deadline: an instance whose
worker died, that raised, proposed an illegal move or missed the deadline is reported
as excluded, and a lost instance is rebuilt on a live worker before the next move.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import chess

from base.cluster import Cluster
from base.runner import WorkerLost
from players.limits import Limit
from players.position import Position
from players.searcher import Searcher

from ensemble import worker as worker_tasks
from ensemble.config import Budget, EnsembleConfig
from ensemble.decision import InstanceReport
from ensemble.ballot import Ballot
from ensemble.selection import CRITERIA

if TYPE_CHECKING:
    from base.dask_runner import DaskRunner

SAFETY = 0.9  # share of a movetime deadline the instances may search; the rest is transport and selection
Searches = tuple[list[InstanceReport], list[Ballot], float]  # reports, ballots, the move's deadline


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

    def search(self, board: chess.Board, fen: str, moves: Sequence[str], budget: Budget, start: float) -> Searches:
        self._interrupted = False
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
            result = searcher.search(position, own, margin_probe=self.config.needs_margin)
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
    through one runner (``base.dask_runner``): each instance lives in a slot, a long-lived
    actor on its worker, and a move costs one message out and one back per instance."""

    def __init__(self, config: EnsembleConfig, on_event: Callable[[str], None], cluster: Cluster | None = None
                 ) -> None:
        self.config = config
        self._on_event = on_event
        self._cluster = cluster  # lent by the caller; None: the runner opens its own
        self._runner: DaskRunner | None = None
        game = uuid.uuid4().hex[:8]
        self._keys = [f"{game}-{i}" for i in range(len(config.instances))]
        self._slots: dict[str, int | None] = {}  # instance key -> the slot that holds it

    def start(self) -> None:
        from base.dask_runner import DaskRunner
        c = self.config.cluster
        if self._cluster is None:
            self._runner = DaskRunner.start(c.workers or len(self.config.instances), c.scheduler,
                                            threads_per_worker=c.threads_per_worker, dashboard=c.dashboard)
        else:
            self._runner = DaskRunner(self._cluster)
        live = self._runner.live()
        self._slots = {key: None for key in self._keys}
        jobs = {}
        for i, (key, inst) in enumerate(zip(self._keys, self.config.instances)):
            if live:  # round-robin in instance order: one instance per worker first
                self._slots[key] = live[i % len(live)]
                jobs[key] = self._runner.submit_to(self._slots[key], worker_tasks.create_instance, key, inst)
        for key in jobs:
            try:
                jobs[key].result(timeout=120)
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

    def search(self, board: chess.Board, fen: str, moves: Sequence[str], budget: Budget, start: float) -> Searches:
        n = len(self.config.instances)
        span = budget.deadline(n)
        deadline = start + span
        reserve = self._selection_reserve(span)
        limits = budget.limits(n)
        if limits.movetime is not None:
            # Searches end early enough for their results to travel back and be weighed.
            usable_ms = min(limits.movetime, int((span - reserve) * 1000))
            limits = Limit(movetime=max(1, int(usable_ms * SAFETY) - 15))
        self._replace_lost_instances()
        jobs = {}
        for i, key in enumerate(self._keys):
            slot = self._slots.get(key)
            if slot is not None:
                own = limits if limits.nodes is None else budget.limits(n, i)
                jobs[key] = self.runner.submit_to(slot, worker_tasks.search_instance, key, fen, tuple(moves), own,
                                                  self.config.needs_margin, key=f"search-{key}-{len(moves)}")
        self.runner.wait(jobs.values(), timeout=max(0.0, deadline - reserve - time.perf_counter()))
        reports, ballots = self._collect(jobs, board)
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
                self.runner.submit_to(slot, worker_tasks.create_instance, key,
                                      self.config.instances[self._keys.index(key)]).result(timeout=30)
                self._slots[key] = slot
                self._on_event(f"instance {self._label(key)} rebuilt on {self.runner.where(slot)} (cold hash table)")
            except Exception as exc:  # noqa: BLE001
                self._on_event(f"instance {self._label(key)} has no worker: {exc}")

    def _selection_reserve(self, total: float) -> float:
        """Seconds kept back from the wait for selection (and a fallback search)."""
        criterion = CRITERIA[self.config.selection.criterion]
        reserve = 0.03 + (0.05 if criterion.needs_evidence else 0.0) + (0.15 if criterion.needs_search else 0.0)
        return min(reserve, 0.25 * total)

    def _collect(self, jobs: dict, board: chess.Board) -> tuple[list[InstanceReport], list[Ballot]]:
        late: list[str] = []
        reports: list[InstanceReport] = []
        ballots: list[Ballot] = []
        legal = {m.uci() for m in board.legal_moves}
        for key, inst in zip(self._keys, self.config.instances):
            address = self._address(key)
            weights = inst.weights_text()
            job = jobs.get(key)
            if job is None:
                reports.append(InstanceReport(inst.label, weights, None, None, "no worker"))
                continue
            reason = None
            result = None
            if job.done():
                error = job.exception()
                if isinstance(error, WorkerLost):
                    reason = f"worker lost: {error}"
                    self._slots[key] = None
                elif error is not None:
                    reason = f"{type(error).__name__}: {error}"
                else:
                    result = job.result()
                    if result.bestmove not in legal:
                        reason = f"illegal move {result.bestmove}"
            elif address is None:
                reason = "worker lost"
                self._slots[key] = None
            else:
                reason = "missed the deadline"  # the stopped search ends soon, its result unread
                late.append(key)
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
