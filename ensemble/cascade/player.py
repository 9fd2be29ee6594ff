"""The cascade player (the thesis's future work): for a share of the move's budget the
instances search independently and propose candidates (phase 1, an ensemble); for the
rest, every worker searches only those candidates with the full evaluation (phase 2,
ABDADA with the root restricted to them).

Why: an ensemble's potential (C_D, a best move among its candidates) is well above what
any criterion realises, and the full engine is the best judge of a short list.  Phase 2
gives that judge all the cores and a root of two or three moves instead of thirty.
"""
from __future__ import annotations

import threading
import time
from dataclasses import replace

import chess

from ensemble.config import Budget
from ensemble.player import EnsemblePlayer
from players.decomposition.player import DecompositionPlayer
from players.limits import Limit, LimitLike, as_limit
from players.player import BasePlayer, InfoCallback, Played, Settings
from players.speed import equal_time
from ensemble.cascade.config import CascadeConfig

INFINITE_PHASE1_MS = 1000  # ``go infinite``: phase 1 gets this long, phase 2 runs until stop


class CascadePlayer(BasePlayer):
    """Phase 1 on the ensemble's workers, phase 2 on the decomposition's (a
    :class:`players.player.Player`)."""

    kind = "cascade"

    def __init__(self, config: CascadeConfig, name: str = "") -> None:
        d = config.decomposition
        super().__init__(name or (f"cascade {config.name} ({config.ensemble.notation} "
                                  f"{config.ensemble.selection.criterion} -> {d.algorithm} x{d.workers}, "
                                  f"share {config.share:g})"),
                         config.player_settings())
        self.config = config
        self.ensemble = EnsemblePlayer(config.ensemble)
        self.decomposition = DecompositionPlayer(config.decomposition)
        self._stopped = threading.Event()

    def _start(self) -> None:
        self.ensemble.start()
        self.decomposition.start()

    def _configured(self, old: Settings) -> None:
        """Phase 1's budget mode; both phases' tables and sizes (at the next start)."""
        new = self._settings
        self.ensemble.configure(hash_mb=new.hash_mb, budget_mode=new.budget_mode,
                                threads=new.threads if new.threads != old.threads else None)
        self.decomposition.configure(hash_mb=new.hash_mb, threads=new.threads)
        self.config = replace(self.config, ensemble=self.ensemble.config, decomposition=self.decomposition.config)

    def describe(self) -> str:
        d = self.config.decomposition
        return (f"{self.name}\nphase 1 ({self.config.share:g} of the budget):\n{self.ensemble.describe()}\n"
                f"phase 2: {d.algorithm} on {d.workers} workers over the candidates "
                f"(unanimous: {self.config.unanimous}, max candidates {self.config.max_candidates or 'all'})")

    def new_game(self) -> None:
        self.start()
        self.ensemble.new_game()
        self.decomposition.new_game()

    def stop(self) -> None:
        self._stopped.set()
        self.ensemble.stop()
        self.decomposition.stop()

    def close(self) -> None:
        self.ensemble.close()
        self.decomposition.close()
        self._started = False

    def budgets(self, limit: Limit) -> tuple[Budget, Limit | None]:
        """Phase 1's budget (per instance) and phase 2's limit (for the whole team; None:
        the time that is left, known only once phase 1 is over).  Nodes count per worker, as
        an ensemble's count per instance: phase 2's team gets ``workers`` times its share.
        With ``equal_time`` the nodes are the full engine's on one core, and each phase gets
        what its searches do in its share of that time (``players.speed.equal_time``)."""
        share, mode = self.config.share, self.config.ensemble.budget.mode
        if limit.movetime is not None:
            return Budget(Limit(movetime=max(1, int(share * limit.movetime))), mode), None
        if limit.nodes is not None and limit.equal_time:
            phase1 = Budget(Limit(nodes=max(1, int(share * limit.nodes))), mode).equal_time(
                self.config.ensemble.instances, self.ensemble.cores)
            d = self.config.decomposition
            team = equal_time(Limit(nodes=max(1, int((1 - share) * limit.nodes)), equal_time=True),
                              algorithm=d.algorithm, workers=d.workers)
            return phase1, team
        if limit.nodes is not None:
            team = max(1, int((1 - share) * limit.nodes * self.config.decomposition.workers))
            return Budget(Limit(nodes=max(1, int(share * limit.nodes))), mode), Limit(nodes=team)
        return Budget(Limit(depth=limit.depth), mode), Limit(depth=limit.depth)

    def play(self, board: chess.Board, limit: LimitLike, info: InfoCallback | None = None) -> Played:
        limit = as_limit(limit)
        self.start()
        start = time.perf_counter()
        self._stopped.clear()
        sl = limit.for_move(board.turn, self._settings.move_overhead_ms).fixed()
        if sl.unbounded:
            phase1, phase2 = Budget(Limit(movetime=INFINITE_PHASE1_MS)), Limit()
        else:
            phase1, phase2 = self.budgets(sl)
        root = board.root()
        decision = self.ensemble.choose(root.fen(), [m.uci() for m in board.move_stack], phase1)
        ranked = sorted(decision.values or {decision.move: 0.0},
                        key=lambda m: (m != decision.move, -decision.values.get(m, 0.0), m))
        candidates = tuple(ranked[:self.config.max_candidates] if self.config.max_candidates else ranked)
        legal = {m.uci() for m in board.legal_moves}
        candidates = tuple(m for m in candidates if m in legal) or (decision.move,)
        nodes1 = sum(r.nodes for r in decision.results)
        lines = [f"phase 1 ({phase1.describe()}): " + " ".join(f"{r.bestmove}" for r in decision.results)
                 + f" -> {decision.criterion} {decision.move}; candidates {' '.join(candidates)}"]
        if self._stopped.is_set() or (len(candidates) == 1 and self.config.unanimous == "play"):
            seconds = time.perf_counter() - start
            why = "stopped" if self._stopped.is_set() else "unanimous"
            lines.append(f"phase 2 skipped ({why}): {decision.move}")
            chosen = next((r for r in decision.results if r.bestmove == decision.move), None)
            return Played.of(chosen, decision.move, seconds, nodes1, f"cascade {why} {decision.move}",
                             tuple(lines))
        root_moves = candidates
        if len(candidates) == 1 and self.config.unanimous == "widen":
            root_moves = ()  # the instances agree: phase 2 checks the move against every other
        if phase2 is None:  # a movetime: phase 2 has what phase 1 left
            assert sl.movetime is not None
            left = sl.movetime - int((time.perf_counter() - start) * 1000)
            phase2 = Limit(movetime=max(1, left))
        result = self.decomposition.search(board, phase2, root_moves)
        move = result.bestmove if result.bestmove in candidates or not root_moves else decision.move
        seconds = time.perf_counter() - start
        lines.append(f"phase 2 ({self.config.decomposition.algorithm}, "
                     f"{len(root_moves) or 'all'} root moves): {move} "
                     f"{result.score_text()} depth {result.depth} nodes {result.nodes}")
        if info is not None:
            info(result.summary(nodes1 + result.nodes, seconds))
        return Played.of(result, move, seconds, nodes1 + result.nodes,
                         f"cascade {' '.join(candidates) if root_moves else 'widened ' + candidates[0]} -> {move} "
                         f"d{result.depth}", tuple(lines))
