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

import chess

from ensemble.config import Budget
from ensemble.player import EnsemblePlayer
from players.decomposition.player import DecompositionPlayer
from players.player import COORDINATED_OVERHEAD_MS, InfoCallback, MoveLimits, Played
from players.result import SearchLimits
from ensemble.cascade.config import CascadeConfig

INFINITE_PHASE1_MS = 1000  # ``go infinite``: phase 1 gets this long, phase 2 runs until stop


class CascadePlayer:
    """Phase 1 on the ensemble's workers, phase 2 on the decomposition's (a
    :class:`players.player.Player`)."""

    overhead_ms = COORDINATED_OVERHEAD_MS

    def __init__(self, config: CascadeConfig) -> None:
        self.config = config
        d = config.decomposition
        self.name = (f"cascade {config.name} ({config.ensemble.notation} {config.ensemble.selection.criterion} -> "
                     f"{d.algorithm} x{d.workers}, share {config.share:g})")
        self.ensemble = EnsemblePlayer(config.ensemble)
        self.decomposition = DecompositionPlayer(config.decomposition)
        self._stopped = threading.Event()

    def start(self) -> CascadePlayer:
        self.ensemble.start()
        self.decomposition.start()
        return self

    def __enter__(self) -> CascadePlayer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_game(self) -> None:
        self.ensemble.new_game()
        self.decomposition.new_game()

    def stop(self) -> None:
        self._stopped.set()
        self.ensemble.stop()
        self.decomposition.stop()

    def close(self) -> None:
        self.ensemble.close()
        self.decomposition.close()

    def budgets(self, limits: SearchLimits, equal_time: bool = False) -> tuple[Budget, SearchLimits | None]:
        """Phase 1's budget (per instance) and phase 2's limits (for the whole team; None:
        the time that is left, known only once phase 1 is over).  Nodes count per worker, as
        an ensemble's count per instance: phase 2's team gets ``workers`` times its share.
        With ``equal_time`` the nodes are the full engine's on one core, and each phase gets
        what its searches do in its share of that time (``players.speed``)."""
        share, mode = self.config.share, self.config.ensemble.budget.mode
        if limits.movetime is not None:
            return Budget(movetime=max(1, int(share * limits.movetime)), mode=mode), None
        if limits.nodes is not None and equal_time:
            phase1 = Budget(nodes=max(1, int(share * limits.nodes)), mode=mode).equal_time(
                self.config.ensemble.instances, self.ensemble.cores)
            team = self.decomposition.team_nodes(max(1, int((1 - share) * limits.nodes)))
            return phase1, SearchLimits(nodes=team)
        if limits.nodes is not None:
            team = max(1, int((1 - share) * limits.nodes * self.config.decomposition.workers))
            return Budget(nodes=max(1, int(share * limits.nodes)), mode=mode), SearchLimits(nodes=team)
        return Budget(depth=limits.depth, mode=mode), SearchLimits(depth=limits.depth)

    def play(self, board: chess.Board, limits: MoveLimits, info: InfoCallback | None = None) -> Played:
        start = time.perf_counter()
        self._stopped.clear()
        sl = limits.search_limits(self.overhead_ms).fixed()
        infinite = sl.depth == 127 and sl.movetime is None and sl.nodes is None
        if infinite:
            phase1, phase2 = Budget(movetime=INFINITE_PHASE1_MS), SearchLimits(depth=64)
        else:
            phase1, phase2 = self.budgets(sl, limits.equal_time)
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
            phase2 = SearchLimits(movetime=max(1, left))
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
