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

import chess

from base.cluster import Cluster, open_cluster
from players.limits import Limit
from players.searcher import Searcher

from ensemble import worker as worker_tasks
from ensemble.config import Budget, EnsembleConfig, InstanceConfig
from ensemble.decision import InstanceReport
from ensemble.ballot import Ballot
from ensemble.selection import CRITERIA

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
        for i, (inst, searcher) in enumerate(zip(self.config.instances, self._searchers)):
            if self._interrupted and ballots:
                reports.append(InstanceReport(inst.label, inst.weights_text(), "inline", None, "interrupted"))
                continue
            own = limits if limits.nodes is None else budget.limits(n, i)
            result = searcher.search(board, own, margin_probe=self.config.needs_margin)
            reason = None if result.bestmove in legal else f"illegal move {result.bestmove}"
            reports.append(InstanceReport(inst.label, inst.weights_text(), "inline", result, reason))
            if reason is None:
                ballots.append(Ballot(inst.label, inst.spec, result))
        return reports, ballots, start + budget.deadline(n)

    def close(self) -> None:
        self._searchers = []


class DaskInstances:
    """One instance resident on a Dask worker each (a local cluster by default, or the
    file's scheduler), its hash table warm for the whole game."""

    def __init__(self, config: EnsembleConfig, on_event: Callable[[str], None], cluster: Cluster | None = None
                 ) -> None:
        self.config = config
        self._on_event = on_event
        self._cluster = cluster
        self._own_cluster = cluster is None
        game = uuid.uuid4().hex[:8]
        self._keys = [f"{game}-{i}" for i in range(len(config.instances))]
        self._placement: dict[str, str | None] = {}

    def start(self) -> None:
        if self._cluster is None:
            c = self.config.cluster
            self._cluster = open_cluster(c.workers or len(self.config.instances), c.scheduler,
                                         c.threads_per_worker, c.dashboard)
        futures = {key: self._place(key, inst) for key, inst in zip(self._keys, self.config.instances)}
        for key, future in futures.items():
            try:
                self._placement[key] = future.result(timeout=120)
            except Exception as exc:  # noqa: BLE001 - a worker that cannot hold an instance is reported
                self._placement[key] = None
                self._on_event(f"instance {self._label(key)} could not start: {exc}")

    @property
    def client(self):
        assert self._cluster is not None, "the instances are not started"
        return self._cluster.client

    @property
    def description(self) -> str:
        return self._cluster.description if self._cluster else "(not started)"

    @property
    def dashboard(self) -> str | None:
        return self._cluster.dashboard if self._cluster else None

    @property
    def placement(self) -> dict[str, str | None]:
        return {self._label(k): a for k, a in self._placement.items()}

    def workers(self) -> list[str]:
        """The addresses of the cluster's workers alive now."""
        return self._cluster.workers() if self._cluster else []

    def new_game(self) -> None:
        futures = [self.client.submit(worker_tasks.new_game_instance, key, workers=[addr], pure=False)
                   for key, addr in self._placement.items() if addr]
        for f in futures:
            try:
                f.result(timeout=30)
            except Exception:  # noqa: BLE001 - a lost instance is rebuilt at the next move anyway
                pass

    def stop(self) -> None:
        self._stop_remote(list(self._placement))

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

        from distributed import wait
        futures = {}
        for key, address in self._placement.items():
            if address:
                own = limits if limits.nodes is None else budget.limits(n, self._keys.index(key))
                futures[key] = self.client.submit(
                    worker_tasks.search_instance, key, fen, tuple(moves), own, self.config.needs_margin,
                    workers=[address], allow_other_workers=False, pure=False, retries=0,
                    key=f"search-{key}-{len(moves)}-{uuid.uuid4().hex[:6]}")
        try:
            wait(list(futures.values()), timeout=max(0.0, deadline - reserve - time.perf_counter()))
        except Exception:  # noqa: BLE001 - distributed raises its TimeoutError when some are still running
            pass
        reports, ballots = self._collect(futures, board)
        return reports, ballots, deadline

    def close(self) -> None:
        if self._cluster is None:
            return
        try:
            for key, address in self._placement.items():
                if address:
                    self.client.run(worker_tasks.drop_instance, key, workers=[address], wait=False)
        except Exception:  # noqa: BLE001 - closing must not fail because a worker is gone
            pass
        if self._own_cluster:
            self._cluster.close()
        self._cluster = None

    # --- internals --------------------------------------------------------------------------------
    def _label(self, key: str) -> str:
        return self.config.instances[self._keys.index(key)].label

    def _place(self, key: str, instance: InstanceConfig, avoid: Sequence[str] = ()):
        workers = [w for w in self._cluster.workers() if w not in avoid]  # type: ignore[union-attr]
        if not workers:
            raise RuntimeError("no worker is alive")
        load = {w: 0 for w in workers}
        for addr in self._placement.values():
            if addr in load:
                load[addr] += 1
        index = self._keys.index(key)
        # Round-robin in instance order first; afterwards the least loaded worker.
        target = workers[index % len(workers)] if not self._placement else min(workers, key=lambda w: load[w])
        return self.client.submit(worker_tasks.create_instance, key, instance, workers=[target],
                                  allow_other_workers=False, pure=False, key=f"create-{key}-{uuid.uuid4().hex[:6]}")

    def _replace_lost_instances(self) -> None:
        alive = set(self._cluster.workers())  # type: ignore[union-attr]
        lost = [k for k, a in self._placement.items() if a not in alive]
        for key in lost:
            try:
                future = self._place(key, self.config.instances[self._keys.index(key)])
                self._placement[key] = future.result(timeout=30)
                self._on_event(f"instance {self._label(key)} rebuilt on {self._placement[key]} (cold hash table)")
            except Exception as exc:  # noqa: BLE001
                self._placement[key] = None
                self._on_event(f"instance {self._label(key)} has no worker: {exc}")

    def _selection_reserve(self, total: float) -> float:
        """Seconds kept back from the wait for selection (and a fallback search)."""
        criterion = CRITERIA[self.config.selection.criterion]
        reserve = 0.03 + (0.05 if criterion.needs_evidence else 0.0) + (0.15 if criterion.needs_search else 0.0)
        return min(reserve, 0.25 * total)

    def _collect(self, futures: dict, board: chess.Board) -> tuple[list[InstanceReport], list[Ballot]]:
        alive = None
        late: list[str] = []
        reports: list[InstanceReport] = []
        ballots: list[Ballot] = []
        legal = {m.uci() for m in board.legal_moves}
        for key, inst in zip(self._keys, self.config.instances):
            address = self._placement.get(key)
            weights = inst.weights_text()
            future = futures.get(key)
            if future is None:
                reports.append(InstanceReport(inst.label, weights, None, None, "no worker"))
                continue
            reason = None
            result = None
            if future.status == "finished":
                result = future.result()
                if result.bestmove not in legal:
                    reason = f"illegal move {result.bestmove}"
            elif future.status == "error":
                exc = future.exception()
                reason = f"{type(exc).__name__}: {exc}"
            else:
                if alive is None:
                    alive = set(self._cluster.workers())  # type: ignore[union-attr]
                if address not in alive:
                    reason = f"worker {address} lost"
                    self._placement[key] = None
                else:
                    reason = "missed the deadline"
                    late.append(key)
                future.release()  # no round trip: the stopped task ends soon, its result unread
            if reason is not None:
                self._on_event(f"{inst.label}: left out of this move's vote ({reason})")
            reports.append(InstanceReport(inst.label, weights, address, result, reason))
            if reason is None:
                ballots.append(Ballot(inst.label, inst.spec, result))
        self._stop_remote(late)
        return reports, ballots

    def _stop_remote(self, keys: list[str]) -> None:
        """One stop message to every worker that holds one of ``keys`` (no wait)."""
        addresses = sorted({a for k, a in self._placement.items() if k in keys and a})
        if self._cluster is None or not addresses:
            return
        try:
            self.client.run(worker_tasks.stop_instances, *keys, workers=addresses, wait=False)
        except Exception:  # noqa: BLE001 - a lost worker has nothing to stop
            pass
