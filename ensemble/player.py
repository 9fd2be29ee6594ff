"""The ensemble player: n instances searching the same position on Dask workers,
a selection criterion choosing among their moves.

The coordinator never waits past the move's deadline.  An instance whose worker
died, raised, proposed an illegal move or missed the deadline is left out of that
move's vote (and shown as excluded in the decision); lost instances are rebuilt on a
live worker before the next move.  With no answer at all, the coordinator searches
alone with the full engine in the time that is left.
"""
from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence

import chess

from concilio.cluster import Cluster, open_cluster
from players.result import SearchLimits
from players.player import COORDINATED_OVERHEAD_MS, InfoCallback, MoveLimits, Played
from players.searcher import Searcher

from . import worker as worker_tasks
from .config import Budget, EnsembleConfig, InstanceConfig
from .decision import Decision, InstanceReport
from .evidence import gather_evidence
from .selection import CRITERIA, Ballot, Evidence, SelectionInput, select

log = logging.getLogger("concilio.ensemble")
SAFETY = 0.9  # share of a movetime deadline the instances may search; the rest is transport and selection
FALLBACK_MIN_MS = 1  # the fallback answers in the time left: at least one iteration, however little


class EnsemblePlayer:
    """n instances and a selection criterion (a :class:`players.player.Player`).  Use as
    a context manager, or call ``start`` and ``close``."""

    overhead_ms = COORDINATED_OVERHEAD_MS

    def __init__(self, config: EnsembleConfig, cluster: Cluster | None = None,
                 on_event: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.name = f"ensemble {config.name} {config.notation}"
        self.last_decision: Decision | None = None  # the last move's votes and values, for a full report
        self._cluster = cluster
        self._own_cluster = cluster is None
        self._game = uuid.uuid4().hex[:8]
        self._keys = [f"{self._game}-{i}" for i in range(len(config.instances))]
        self._placement: dict[str, str | None] = {}
        self._local: Searcher | None = None
        self._searchers: list[Searcher] = []
        self._interrupted = False
        self._on_event = on_event or (lambda message: log.info(message))

    # --- life cycle ---------------------------------------------------------------------------
    @property
    def inline(self) -> bool:
        return self.config.cluster.inline

    def start(self) -> EnsemblePlayer:
        self._local = Searcher()  # fallback and posterior search: the full engine
        self._local.search(None, SearchLimits(depth=1))
        self._local.new_game()
        if self.inline:
            self._searchers = [inst.make_searcher() for inst in self.config.instances]
            self._placement = {key: "inline" for key in self._keys}
            return self
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
        return self

    def __enter__(self) -> EnsemblePlayer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._searchers = []
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

    @property
    def client(self):
        assert self._cluster is not None, "EnsemblePlayer not started"
        return self._cluster.client

    @property
    def dashboard(self) -> str | None:
        return self._cluster.dashboard if self._cluster else None

    def workers(self) -> list[str]:
        """The addresses of the cluster's workers alive now (none inline)."""
        return self._cluster.workers() if self._cluster else []

    @property
    def cluster_description(self) -> str:
        return self._cluster.description if self._cluster else "(not started)"

    @property
    def placement(self) -> dict[str, str | None]:
        return {self._label(k): a for k, a in self._placement.items()}

    def new_game(self) -> None:
        """Clear every instance's hash table and history (a new game starts)."""
        for searcher in self._searchers:
            searcher.new_game()
        if self.inline:
            if self._local is not None:
                self._local.new_game()
            return
        futures = [self.client.submit(worker_tasks.new_game_instance, key, workers=[addr], pure=False)
                   for key, addr in self._placement.items() if addr]
        for f in futures:
            try:
                f.result(timeout=30)
            except Exception:  # noqa: BLE001 - a lost instance is rebuilt at the next move anyway
                pass
        if self._local is not None:
            self._local.new_game()

    def interrupt(self) -> None:
        """Ask every instance to return its best move now (UCI ``stop``); ``choose`` then
        decides with what comes back."""
        self._interrupted = True
        for searcher in self._searchers:
            searcher.stop()
        self._stop_remote(list(self._placement))

    def _stop_remote(self, keys: list[str]) -> None:
        """One stop message to every worker that holds one of ``keys`` (no wait)."""
        addresses = sorted({a for k, a in self._placement.items() if k in keys and a and a != "inline"})
        if self._cluster is None or not addresses:
            return
        try:
            self.client.run(worker_tasks.stop_instances, *keys, workers=addresses, wait=False)
        except Exception:  # noqa: BLE001 - a lost worker has nothing to stop
            pass

    # --- one move -------------------------------------------------------------------------------
    def play(self, board: chess.Board, limits: MoveLimits, info: InfoCallback | None = None) -> Played:
        """A move as a :class:`players.player.Player`: the limits become the budget of every
        instance (split among them in ``equal_total`` mode); the report shows each
        instance's answer and the criterion's decision."""
        start = time.perf_counter()
        sl = limits.search_limits(self.overhead_ms)
        if sl.depth == 127 and sl.movetime is None and sl.nodes is None:
            sl = SearchLimits(movetime=24 * 3600 * 1000)  # until stop (``interrupt``)
        # A node or depth budget keeps the file's deadline; a movetime sets its own.
        deadline = self.config.budget.deadline_ms if sl.movetime is None else None
        budget = Budget(sl.movetime, sl.nodes, sl.depth, self.config.budget.mode, deadline)
        root = board.root()
        decision = self.last_decision = self.choose(root.fen(), [m.uci() for m in board.move_stack], budget)
        report = [f"{r.label} {r.result.bestmove} {r.result.score_text()} depth {r.result.depth} nodes "
                  f"{r.result.nodes}" if r.result is not None and r.excluded is None else f"{r.label} excluded: "
                  f"{r.excluded}" for r in decision.reports]
        values = " ".join(f"{m}={v:g}" for m, v in decision.values.items())
        report.append(f"{decision.criterion}: {values or decision.fallback} -> {decision.move}")
        chosen = next((r.result for r in decision.reports if r.result is not None and r.excluded is None
                       and r.result.bestmove == decision.move), None)
        votes = " ".join(f"{m}:{v}" for m, v in sorted(decision.votes.items(), key=lambda kv: -kv[1]))
        nodes = sum(r.result.nodes for r in decision.reports if r.result is not None)
        seconds = time.perf_counter() - start
        if info is not None and chosen is not None:
            info(chosen.summary(nodes, seconds))
        return Played.of(chosen, decision.move, seconds, nodes,
                         f"votes {votes}" if votes else f"fallback: {decision.fallback}", tuple(report))

    def stop(self) -> None:
        self.interrupt()

    def choose(self, fen: str = chess.STARTING_FEN, moves: Sequence[str] = (), budget: Budget | None = None
               ) -> Decision:
        """The move to play after ``moves`` from ``fen``, within the budget's deadline
        (``budget``, or the file's)."""
        budget = budget or self.config.budget
        start = time.perf_counter()
        board = chess.Board(fen)
        for uci in moves:
            board.push_uci(uci)
        if board.is_game_over(claim_draw=False) or not any(board.legal_moves):
            raise ValueError(f"no legal move in {board.fen()}")
        self._interrupted = False
        if self.inline:
            return self._choose_inline(board, fen, moves, start, budget)
        n = len(self.config.instances)
        span = budget.deadline(n)
        deadline = start + span
        reserve = self._selection_reserve(span)
        limits = budget.limits(n)
        if limits.movetime is not None:
            # Searches end early enough for their results to travel back and be weighed.
            usable_ms = min(limits.movetime, int((span - reserve) * 1000))
            limits = SearchLimits(movetime=max(1, int(usable_ms * SAFETY) - 15))
        self._replace_lost_instances()

        from distributed import wait
        futures = {}
        for key, address in self._placement.items():
            if address:
                futures[key] = self.client.submit(
                    worker_tasks.search_instance, key, fen, tuple(moves), limits, self.config.needs_margin,
                    workers=[address], allow_other_workers=False, pure=False, retries=0,
                    key=f"search-{key}-{len(moves)}-{uuid.uuid4().hex[:6]}")
        wait_until = deadline - reserve
        try:
            wait(list(futures.values()), timeout=max(0.0, wait_until - time.perf_counter()))
        except Exception:  # distributed raises its TimeoutError when some are still running
            pass
        reports, ballots = self._collect(futures, board)
        if not ballots:
            return self._fallback(board, fen, moves, reports, start, deadline, budget)
        return self._decide(board, reports, ballots, start)

    def _choose_inline(self, board: chess.Board, fen: str, moves: Sequence[str], start: float,
                       budget: Budget) -> Decision:
        """Every instance in this process, one after another (identical moves under node or
        depth budgets; a movetime is shared out so that the move is never late)."""
        n = len(self.config.instances)
        limits = budget.limits(n)
        if limits.movetime is not None:
            span_ms = budget.deadline(n) * 1000 * SAFETY
            limits = SearchLimits(movetime=max(1, int(span_ms / n) - 5))
        reports, ballots = [], []
        legal = {m.uci() for m in board.legal_moves}
        for inst, searcher in zip(self.config.instances, self._searchers):
            if self._interrupted and ballots:
                reports.append(InstanceReport(inst.label, inst.weights_text(), "inline", None, "interrupted"))
                continue
            result = searcher.search(board, limits, margin_probe=self.config.needs_margin)
            reason = None if result.bestmove in legal else f"illegal move {result.bestmove}"
            reports.append(InstanceReport(inst.label, inst.weights_text(), "inline", result, reason))
            if reason is None:
                ballots.append(Ballot(inst.label, inst.spec, result))
        if not ballots:
            return self._fallback(board, fen, moves, reports, start, start + budget.deadline(n), budget)
        return self._decide(board, reports, ballots, start)

    def _decide(self, board: chess.Board, reports: list[InstanceReport], ballots: list[Ballot],
                start: float) -> Decision:
        criterion = CRITERIA[self.config.selection.criterion]
        inp = SelectionInput(
            tuple(ballots),
            gather_evidence(board, ballots) if criterion.needs_evidence else Evidence(),
            self._candidate_search(board) if criterion.needs_search else None,
            board.fen())
        chosen = select(self.config.selection.criterion, inp, **self.config.selection.params)
        return Decision(chosen.move, self.config.selection.criterion, board.fen(), tuple(reports), chosen.values,
                        chosen.votes, chosen.tie_break, None, time.perf_counter() - start)

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

    def _candidate_search(self, board: chess.Board):
        local = self._local
        assert local is not None

        def search(candidates: Sequence[str], depth: int) -> dict[str, int]:
            scores = {}
            for move in candidates:
                result = local.search(board, SearchLimits(depth=depth), searchmoves=[move])
                scores[move] = result.score_cp
            return scores
        return search

    def _fallback(self, board: chess.Board, fen: str, moves: Sequence[str], reports: list[InstanceReport],
                  start: float, deadline: float, budget: Budget) -> Decision:
        assert self._local is not None
        if budget.movetime is not None:
            left_ms = int((deadline - time.perf_counter()) * 1000) - 5
            limits = SearchLimits(movetime=max(FALLBACK_MIN_MS, left_ms))
        else:
            limits = budget.limits(1)
        result = self._local.search(board, limits)
        reports = reports + [InstanceReport("(MBXKPAR) coordinator", "M=1 B=1 X=1 K=1 P=1 A=1 R=1", "coordinator",
                                            result, None)]
        self._on_event("no instance answered: the coordinator searched alone with the full engine")
        return Decision(result.bestmove, self.config.selection.criterion, board.fen(), tuple(reports), {}, {},
                        None, "no instance answered; full engine searched locally", time.perf_counter() - start)
