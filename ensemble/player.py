"""The ensemble player: n instances searching the same position, a selection criterion
choosing among their moves.

The instances search inline or on Dask workers (``ensemble.instances``); the player
weighs what came back by the deadline.  With no answer at all, the coordinator searches
alone with the full engine in the time that is left.  While they search, the leading
candidate is reported as ``info`` (``ensemble.progress``).

A movetime is the whole move's: the coordination comes out of it, not on top.  The Dask
instances' searches end a *slack* before the coordinator stops waiting (their stop and the
answer's trip back, measured on the last moves: 30 ms before the first answer, at least
10 ms, ``DaskInstances.slack_ms``), and the wait ends 10 ms before the deadline for the
selection (more for criteria that gather evidence or search the candidates).  So a UCI
``go movetime`` loses only the reply's latency first (``movetime_margin_ms``, 10 ms, as a
single searcher), not a clock's coordination overhead.
"""
from __future__ import annotations

import logging
import time
from dataclasses import replace
from collections.abc import Callable, Sequence

import chess

from base.cluster import Cluster
from players.clock import MOVETIME_MARGIN_MS
from players.limits import Limit, LimitLike, as_limit
from players.player import BasePlayer, InfoCallback, Played, Settings
from players.searcher import Searcher

from ensemble.config import Budget, EnsembleConfig
from ensemble.decision import Decision, InstanceReport
from ensemble.evidence import gather_evidence
from ensemble.instances import DaskInstances, InlineInstances, ProgressCallback
from ensemble.progress import Progress
from ensemble.ballot import Ballot, Evidence, SelectionInput
from ensemble.selection import CRITERIA, select

log = logging.getLogger("concilio.ensemble")
FALLBACK_MIN_MS = 1  # the fallback answers in the time left: at least one iteration, however little
UNTIL_STOP_MS = 24 * 3600 * 1000  # an unbounded move: the instances search until ``stop`` interrupts them


class EnsemblePlayer(BasePlayer):
    """n instances and a selection criterion (a :class:`players.player.Player`).  Use as
    a context manager, or call ``start`` and ``close``."""

    kind = "ensemble"
    movetime_margin_ms = MOVETIME_MARGIN_MS  # off a UCI ``go movetime``: its coordination is inside the movetime

    def __init__(self, config: EnsembleConfig, cluster: Cluster | None = None,
                 on_event: Callable[[str], None] | None = None, name: str = "") -> None:
        super().__init__(name or f"ensemble {config.name} {config.notation}",
                         config.player_settings())
        self.config = config
        self.last_decision: Decision | None = None  # the last move's votes and values, for a full report
        self._on_event = on_event or (lambda message: log.info(message))
        self._cluster = cluster
        self._instances: InlineInstances | DaskInstances | None = None
        self._local: Searcher | None = None

    # --- life cycle ---------------------------------------------------------------------------
    def _start(self) -> None:
        config = self.config
        self._instances = InlineInstances(config, self._on_event) if config.cluster.inline else \
            DaskInstances(config, self._on_event, self._cluster)
        self._local = Searcher()  # fallback and posterior search: the full engine
        self._local.search(None, Limit(depth=1))
        self._local.new_game()
        self._instances.start()

    def _configured(self, old: Settings) -> None:
        """The budget mode at once; the instances' tables and the cluster's size at the next start."""
        new = self._settings
        config = self.config
        if new.budget_mode != old.budget_mode:
            config = config.with_budget(replace(config.budget, mode=new.budget_mode))
        if new.hash_mb != old.hash_mb:
            config = replace(config, instances=tuple(i.with_hash(new.hash_mb) for i in config.instances))
        if new.threads != old.threads:
            config = replace(config, cluster=replace(config.cluster, workers=new.threads))
        self.config = config

    def describe(self) -> str:
        config = self.config
        lines = [f"Ensemble {config.name}: {config.notation}  [{config.source}]"]
        for inst in config.instances:
            options = inst.searcher
            extra = f" aspiration={options.aspiration}" if options.aspiration != 30 else ""
            extra += "" if options.null_move else " no-null-move"
            extra += f" depth_cap={options.depth_cap}" if options.depth_cap else ""
            lines.append(f"  {inst.label:24s} weights {inst.weights_text()}{extra}")
        params = ", ".join(f"{key} {value}" for key, value in config.selection.params.items())
        lines.append(f"Selection {config.selection.criterion}{f' ({params})' if params else ''}; "
                     f"budget {config.budget.describe()}")
        if self._instances is not None:
            lines.append(f"Cluster: {self.cluster_description}")
            slack = getattr(self._instances, "slack_ms", None)
            if slack is not None:
                lines.append(f"Timed moves: the searches end {slack} ms before the deadline for their answers to "
                             f"travel back (measured as they come), the selection keeps 10 ms or more; a UCI "
                             f"go movetime loses {self.movetime_margin_ms} ms first")
            if self.dashboard:
                lines.append(f"Dashboard: {self.dashboard}")
        return "\n".join(lines)

    def close(self) -> None:
        """Stop the instances (and their cluster, where it is the ensemble's own); a later
        ``start`` builds them again, with the settings configured since."""
        if self._instances is not None:
            self._instances.close()
        self._instances = None
        self._started = False

    @property
    def instances(self) -> InlineInstances | DaskInstances:
        """Where the instances search (once started)."""
        if self._instances is None:
            raise RuntimeError(f"{self.name} is not started")
        return self._instances

    @property
    def client(self):
        """The Dask client of the instances' cluster (distributed ensembles only)."""
        return self.instances.client

    @property
    def dashboard(self) -> str | None:
        return self.instances.dashboard

    @property
    def cluster_description(self) -> str:
        return self.instances.description

    @property
    def placement(self) -> dict[str, str | None]:
        """Where each instance searches, by label."""
        return self.instances.placement

    @property
    def cores(self) -> int:
        """The cores this ensemble is entitled to in equal-time comparisons (``EnsembleConfig.cores``)."""
        return self.config.cores

    def workers(self) -> list[str]:
        """The addresses of the cluster's workers alive now (none inline)."""
        return self.instances.workers()

    def new_game(self) -> None:
        """Clear every instance's hash table and history (a new game starts)."""
        self.start()
        self.instances.new_game()
        if self._local is not None:
            self._local.new_game()

    def interrupt(self) -> None:
        """Ask every instance to return its best move now (UCI ``stop``); ``choose`` then
        decides with what comes back."""
        if self._instances is not None:
            self._instances.stop()

    # --- one move -------------------------------------------------------------------------------
    def play(self, board: chess.Board, limit: LimitLike, info: InfoCallback | None = None) -> Played:
        """A move as a :class:`players.player.Player`: the limit becomes the budget of every
        instance (split among them in ``equal_total`` mode); the report shows each
        instance's answer and the criterion's decision, the explanation the whole table."""
        limit = as_limit(limit)
        self.start()
        start = time.perf_counter()
        sl = limit.for_move(board.turn, self._settings.move_overhead_ms).fixed()
        if sl.unbounded:
            sl = Limit(movetime=UNTIL_STOP_MS)  # until stop (``interrupt``)
        # A node or depth budget keeps the file's deadline; a movetime sets its own.
        deadline = self.config.budget.deadline_ms if sl.movetime is None else None
        budget = Budget(Limit(movetime=sl.movetime, nodes=sl.nodes, depth=sl.depth), self.config.budget.mode, deadline)
        if limit.equal_time and sl.nodes:
            budget = budget.equal_time(self.config.instances, self.cores)
        root = board.root()
        progress = None if info is None else Progress(len(self.config.instances), info, self._on_event, start)
        decision = self.last_decision = self.choose(root.fen(), [m.uci() for m in board.move_stack], budget,
                                                    progress=progress)
        report = report_lines(decision)
        warning = minority_warning(decision)
        chosen = next((r.result for r in decision.reports if r.result is not None and r.excluded is None
                       and r.result.bestmove == decision.move), None)
        votes = " ".join(f"{m}:{v}" for m, v in sorted(decision.votes.items(), key=lambda kv: -kv[1]))
        nodes = sum(r.result.nodes for r in decision.reports if r.result is not None)
        seconds = time.perf_counter() - start
        if info is not None and chosen is not None:
            info(chosen.summary(nodes, seconds))
        return Played.of(chosen, decision.move, seconds, nodes,
                         f"votes {votes}" if votes else f"fallback: {decision.fallback}", tuple(report),
                         tuple(decision.format().splitlines()[:-1])  # its last line, bestmove, is the move
                         + ((warning,) if warning else ()))

    def stop(self) -> None:
        self.interrupt()

    def choose(self, fen: str = chess.STARTING_FEN, moves: Sequence[str] = (), budget: Budget | None = None,
               progress: ProgressCallback | None = None) -> Decision:
        """The move to play after ``moves`` from ``fen``, within the budget's deadline
        (``budget``, or the file's); ``progress`` hears each instance's last completed
        iteration while they search."""
        self.start()
        budget = budget or self.config.budget
        start = time.perf_counter()
        board = chess.Board(fen)
        for uci in moves:
            board.push_uci(uci)
        if board.is_game_over(claim_draw=False) or not any(board.legal_moves):
            raise ValueError(f"no legal move in {board.fen()}")
        reports, ballots, deadline = self.instances.search(board, fen, moves, budget, start, progress)
        if not ballots:
            return self._fallback(board, fen, moves, reports, start, deadline, budget)
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
    def _candidate_search(self, board: chess.Board):
        local = self._local
        assert local is not None

        def search(candidates: Sequence[str], depth: int) -> dict[str, int]:
            scores = {}
            for move in candidates:
                result = local.search(board, Limit(depth=depth), searchmoves=[move])
                scores[move] = result.score_cp
            return scores
        return search

    def _fallback(self, board: chess.Board, fen: str, moves: Sequence[str], reports: list[InstanceReport],
                  start: float, deadline: float, budget: Budget) -> Decision:
        assert self._local is not None
        if budget.limit.movetime is not None:
            left_ms = int((deadline - time.perf_counter()) * 1000) - 5
            limits = Limit(movetime=max(FALLBACK_MIN_MS, left_ms))
        else:
            limits = budget.limits(1)
        result = self._local.search(board, limits)
        reports = reports + [InstanceReport("(MBXKPAR) coordinator", "M=1 B=1 X=1 K=1 P=1 A=1 R=1", "coordinator",
                                            result, None)]
        self._on_event("no instance answered: the coordinator searched alone with the full engine")
        return Decision(result.bestmove, self.config.selection.criterion, board.fen(), tuple(reports), {}, {},
                        None, "no instance answered; full engine searched locally", time.perf_counter() - start)


def report_lines(decision: Decision) -> list[str]:
    """A move's short report (UCI ``info string``): each instance's answer or why it has
    none, the criterion's values and the move, and a warning when few instances decided it."""
    lines = [f"{r.label} {r.result.bestmove} {r.result.score_text()} depth {r.result.depth} nodes {r.result.nodes}"
             if r.result is not None and r.excluded is None else f"{r.label} excluded: {r.excluded}"
             for r in decision.reports]
    values = " ".join(f"{m}={v:g}" for m, v in decision.values.items())
    lines.append(f"{decision.criterion}: {values or decision.fallback} -> {decision.move}")
    warning = minority_warning(decision)
    return lines + ([warning] if warning else [])


def minority_warning(decision: Decision) -> str | None:
    """A warning when fewer than half the instances voted on the move (the others were left
    out: their workers died, they were late or failed): the move is not the ensemble's."""
    voters = [r for r in decision.reports if r.result is not None and r.excluded is None and r.worker != "coordinator"]
    total = len([r for r in decision.reports if r.worker != "coordinator"])
    if 2 * len(voters) >= total:
        return None
    left_out = ", ".join(f"{r.label} ({r.excluded})" for r in decision.reports if r.excluded is not None)
    return f"warning: decided by {len(voters)} of {total} instances; left out: {left_out or 'none'}"
