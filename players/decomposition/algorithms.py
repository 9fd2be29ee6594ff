"""Parallel alpha-beta algorithms, master side.

* ``root_split``: the root's moves are jobs; the eldest is searched first (it sets the
  bound), the others are handed to idle workers with the best score so far as their
  bound; ``score_sharing`` also lowers a running job's bound when the master learns a
  better move.  Every iteration of the iterative deepening reorders the root: the best
  move first, then the moves that improved the score.  After the eldest, the younger
  brothers are probed with a null window (``null_window``); with ``speculative`` they do
  not wait for the eldest at all (``split_speculative``).
* ``peer``: root splitting without a coordinator: the workers take root moves from a shared
  counter (the agenda, a Dask variable under a Dask lock) and publish a better score in a shared variable under a Dask lock;
  every job starts from the shared best, and with ``score_sharing`` a watcher thread keeps
  a running job's bound fresh.  The eldest root move is still searched first, alone.
* ``pv_split``: walk down the previous iteration's principal variation; at every PV
  node search the PV child first (recursively), then split the node's other children
  among the workers, from the bottom up to the root.
* ``dynamic_split``: PV splitting, and when the agenda runs dry (fewer siblings left than
  idle workers) the next sibling is not handed out whole: the master splits it too (its
  eldest child first, then the others in parallel), so idle workers help with the big
  subtree instead of waiting for it — DPVSplit's subcontracting, decided at hand-out time.
* ``lazy_smp``: every worker runs the whole iterative deepening; workers share no memory,
  so after every iteration the master merges the deepest table entries of all workers
  and hands them back (``tt_exchange`` entries each; 0 turns the exchange off).  With a
  shared table (``shared_table``) there is nothing to exchange: every worker runs its
  iterative deepening in one job over the one table, and the first to finish answers.
* ``abdada``: lazy SMP over the shared table, where a worker puts off a younger brother
  that another worker is searching at that moment (ABDADA's deferral, Weill 1996, in
  Kerrigan's simplified form; ``players.core.shared_search``): the workers spread over the
  siblings instead of racing down the same subtree.
* ``ybw``: Young Brothers Wait with split points in shared memory, as Stockfish 6 does it: the
  whole search is one job whose process runs it on k threads (``.ybw``,
  ``players.threads.ybw_search``); a node whose eldest child is searched shares its other moves
  with idle threads through a split point.
* ``lazy_cluster``: Stockfish's MPI lazy cluster on the node clock (lockstep mode): every
  worker a whole iterative deepening over a table of its own, deep entries exchanged at
  slice boundaries, the move by the thread vote.  It is not driven from here but by
  ``players.decomposition.lockstep`` (the decomposition player calls it).
* ``master_tree``: Jurčovič's master tree on the node clock: the master expands the tree to
  ``master_depth`` plies, types its nodes Knuth–Moore style and hands the leaves to idle
  workers minimal tree first, backing their answers up and aborting what a cut-off made
  useless; workers exchange their deepest entries through the master after every iteration.
  Driven by ``players.decomposition.master_clock``, not from here.
* ``tree_split`` and ``mandatory_first``: the same master tree and clock with another master
  policy (``players.decomposition.tree_policies``): Fishburn and Finkel's tree splitting (with
  ``window_reduction``: their Update interrupt) and Akl, Barnard and Doran's mandatory work first.

* ``aspiration``: parallel aspiration (Baudet): every worker searches the whole tree with a
  disjoint window around the previous score, measured on the node clock (``.aspiration``).
* ``uidpabs``: Newborn's unsynchronised iterative deepening (the Italian thesis, 4.2.5.6): the
  root moves dealt round-robin to the workers after two shared iterations, each worker
  deepening its own moves alone in a window around the depth-2 value; the best score of the
  workers' last iterations answers.  On the node clock, driven by ``.uidpabs``, not from here.
* ``mixed``: Devesa's mixed strategy: a sequential search to ``order_depth`` orders the root,
  then one job per root move to the full depth goes to the next idle worker, every job with
  the root's one window; ``order_depth: 0`` is his exhaustive player (no ordering, no bound).
  On the node clock, driven by ``.mixed``, not from here.

``root_split``, ``pv_split``, ``lazy_smp``, ``abdada`` and ``ybw`` are what a decomposition player
is configured with (``configs/decomposition/``).  ``peer`` and ``dynamic_split`` are kept on purpose as
experiment variants: they are the thesis's peer cooperation and dynamic subcontracting
(DPVSplit), rows of its speedup table that ``concilio speedup speedup``
(``configs/decomposition/speedup.yaml``) reproduces beside the others, and
``docs/decomposition.md`` reports them.  No player config uses them, and none should
without a new measurement: they lost to root splitting with null-window probes there.

Scores are fail-soft negamax values; a job answers for the position after its path,
``ply`` plies below the root, so mate distances agree with the sequential search.
"""
from __future__ import annotations

import time

import chess

from players.core.search import INF, MAX_PLY
from . import jobs
from .aspiration import parallel_aspiration
from .registry import ALGORITHMS, MASTER_TREES
from .runner import share_bounds, stop_running
from .smp import lazy_smp, shared_smp, ybw_search
from .result import ParallelResult, Tally
from .wall import Aborted, WallMaster, board_after, completed

__all__ = ["ALGORITHMS", "MASTER_TREES", "Aborted", "Master", "ParallelResult", "Tally", "board_after", "child_depth",
           "completed", "fold_answer", "iterate", "ordered_moves"]

ORDER_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


class Master(WallMaster):
    """The splitting algorithms' master: root, speculative, PV and dynamic splitting and peer
    cooperation, each iteration's jobs on the runner."""

    # --- a node whose children are searched in parallel -------------------------------------------
    def split(self, fen: str, path: tuple[str, ...], board: chess.Board, depth: int, ply: int, alpha: int,
              beta: int, children: list[str], first: tuple[int, tuple[str, ...]] | None = None
              ) -> tuple[int, str, tuple[str, ...], list[str]]:
        """Value of the node (its side to move), best child, PV, and the children that
        raised the score (for reordering).  ``first`` is the eldest child's known value.

        Young brothers wait: the eldest alone sets the bound.  With ``null_window`` the
        younger brothers are then probed with a null window on that bound (PVS), and only
        one that fails high is searched again with the full window: most siblings of a
        well-ordered node only have to prove that they are not better."""
        best, best_move, best_pv = -INF, children[0], ()
        improved: list[str] = []
        queue: list[tuple[str, int | None]] = [(m, None) for m in children]  # (move, re-search from) pairs
        if first is not None:
            queue.pop(0)
            best, best_pv = first
            best_move = children[0]
            alpha = max(alpha, best)
            if alpha >= beta:
                return best, best_move, best_pv, improved
        elif queue:
            m, _ = queue.pop(0)
            r = self.search_job(fen, path + (m,), child_depth(board, m, depth), ply + 1, -beta, -alpha)
            best, best_move, best_pv = -r.score, m, (m,) + r.pv
            alpha = max(alpha, best)
            if alpha >= beta:
                return best, best_move, best_pv, improved
        # future -> (job id, move, the alpha a null-window probe tested, or None for a full window)
        running: dict[object, tuple[str, str, int | None]] = {}
        while queue or running:
            while queue and len(running) < self.runner.workers:
                m, research_from = queue.pop(0)
                cd = child_depth(board, m, depth)
                idle = self.runner.workers - len(running)
                if self.dynamic and research_from is None and len(queue) + 1 < idle and cd >= self.min_split_depth:
                    # The agenda runs dry: subcontract this sibling's subtree to the idle workers.
                    child = board.copy(stack=False)
                    child.push_uci(m)
                    value, _, sub_pv, _ = self.split(fen, path + (m,), child, cd, ply + 1, -beta, -alpha,
                                                     ordered_moves(child))
                    s = -value
                    if s > best:
                        best = s
                        if s > alpha:
                            best_move, best_pv, alpha = m, (m,) + sub_pv, s
                            improved.append(m)
                            if alpha >= beta:
                                queue.clear()
                                break
                    continue
                probe = self.null_window and research_from is None and beta - alpha > 1
                if research_from is not None:
                    # The full window from just below the probe's bound (for the exact value and its
                    # PV), or from alpha if another move has since proved better than that bound.
                    low = alpha if alpha > research_from else research_from - 1
                    window = (-beta, -low)
                elif probe:
                    window = (-alpha - 1, -alpha)
                else:
                    window = (-beta, -alpha)
                job, future = self._submit(fen, path + (m,), cd, ply + 1, *window)
                running[future] = (job, m, alpha if probe else None)
            if alpha >= beta:
                break
            if not running:
                continue
            (_, m, probed), r = self._next_answer(running)
            s = -r.score
            if probed is not None and probed < s < beta:
                # Failed high on the null window: worth at least s.  Above alpha it is the best
                # so far; either way its exact value is searched next, from max(alpha, s - 1).
                if s > alpha:
                    best, best_move, best_pv, alpha = s, m, (m,) + r.pv, s
                    improved.append(m)
                    if self.score_sharing and running:
                        share_bounds(self.runner, {j: -alpha for j, _, _ in running.values()})
                queue.insert(0, (m, s))
                continue
            best, best_move, best_pv, taken = fold_answer(s, m, r.pv, best, best_move, best_pv, alpha, improved)
            if taken:
                alpha = max(alpha, s)
                if alpha >= beta:
                    break
                if self.score_sharing and running:
                    share_bounds(self.runner, {j: -alpha for j, _, _ in running.values()})
        if running:  # a cut-off: the rest is not needed
            stop_running(self.runner, [j for j, _, _ in running.values()])
            self.running.difference_update(j for j, _, _ in running.values())
            for f in running:
                f.cancel()
            self.tally.cancelled += len(running)
        return best, best_move, best_pv, improved

    def split_speculative(self, fen: str, path: tuple[str, ...], board: chess.Board, depth: int,
                          children: list[str], guess: int) -> tuple[int, str, tuple[str, ...], list[str]]:
        """Root splitting where the younger brothers do not wait for the eldest.

        The eldest is searched with the full window while the others are probed at once
        with a null window on a speculative bound, the previous iteration's score less
        ``margin``.  A probe that fails low is proven worse as soon as the proven alpha
        reaches its answer (the usual case: the score moves little from one iteration to
        the next); otherwise it is probed again at the proven alpha.  A probe that fails
        high is probed again at the proven alpha once the eldest is done, and searched with
        the full window only if it beats that alpha (a full-window search is a PV search,
        the dearest kind).  Both workers are busy from the first moment, where young-brothers-wait
        leaves all but one idle while the eldest (often half of the tree) is searched."""
        alpha, beta = -INF, INF
        speculative = guess - self.margin
        best, best_move, best_pv = -INF, children[0], ()
        improved: list[str] = []
        eldest_done = False
        pending: list[tuple[str, int]] = []  # (move, upper bound) of fail-lows not settled yet
        pending_high: list[tuple[str, int, tuple[str, ...]]] = []  # (move, lower bound, PV) of fail-highs
        # Largest first (by the previous iteration's node counts), so that the small jobs fill
        # the gaps at the end of the iteration instead of one large job running alone.
        younger = sorted(children[1:], key=lambda m: -self.root_nodes.get(m, 0))
        queue: list[tuple[str, str, int]] = [(children[0], "full", 0)]
        queue += [(m, "probe", speculative) for m in younger]
        nodes: dict[str, int] = {}
        running: dict[object, tuple[str, str, str, int]] = {}  # future -> (job id, move, kind, bound)
        # Two jobs per worker: the next one waits in the worker while the master reads the last
        # answer, which hides the round trip (the probes' bounds do not change meanwhile).
        depth_of_queue = 2 * self.runner.workers
        while queue or running:
            while queue and len(running) < depth_of_queue:
                m, kind, bound = queue.pop(0)
                if kind == "probe":
                    bound = max(bound, alpha)
                    window = (-bound - 1, -bound)
                elif kind == "research":
                    window = (-beta, -(alpha if alpha > bound else bound - 1))
                else:
                    window = (-beta, -alpha)
                job, future = self._submit(fen, path + (m,), child_depth(board, m, depth), 1, *window)
                running[future] = (job, m, kind, bound)
            (_, m, kind, bound), r = self._next_answer(running)
            s = -r.score
            nodes[m] = nodes.get(m, 0) + r.nodes
            raised = False
            if kind == "probe" and s > bound:
                # At least s.  Better than the settled moves: its exact value is searched next
                # (the full window).  Otherwise a null window at the proven alpha is enough, and
                # before the eldest is done that alpha is not known yet.
                if not eldest_done:
                    pending_high.append((m, s, r.pv))
                elif s > alpha:
                    best, best_move, best_pv, alpha, raised = s, m, (m,) + r.pv, s, True
                    improved.append(m)
                    queue.insert(0, (m, "research", s))
                else:
                    queue.insert(0, (m, "probe", alpha))
            elif kind == "probe":
                if s > alpha:  # at most s, but s is above what is proven: not settled yet
                    if eldest_done:
                        queue.insert(0, (m, "probe", alpha))
                    else:
                        pending.append((m, s))
            else:
                best, best_move, best_pv, taken = fold_answer(s, m, r.pv, best, best_move, best_pv, alpha,
                                                              improved)
                if taken:
                    raised = s > alpha
                    alpha = max(alpha, s)
            if kind == "full":
                eldest_done = True
                # The answers the eldest did not settle are probed again at the proven alpha; a
                # move proven better than the eldest is searched with the full window.
                again = [(pm, "probe", alpha) for pm, ps in pending if ps > alpha]
                for pm, ps, ppv in sorted(pending_high, key=lambda e: -e[1]):
                    if ps > alpha:
                        best, best_move, best_pv, alpha, raised = ps, pm, (pm,) + ppv, ps, True
                        improved.append(pm)
                        again.insert(0, (pm, "research", ps))
                    else:
                        again.append((pm, "probe", alpha))
                queue[:0] = again
                pending.clear()
                pending_high.clear()
            if raised and self.score_sharing and running:
                share_bounds(self.runner, {j: -alpha for j, _, _, _ in running.values()})
        self.root_nodes = nodes
        return best, best_move, best_pv, improved

    # --- algorithms --------------------------------------------------------------------------------
    def peer(self, fen: str, moves: tuple[str, ...], depth: int, order: list[str]) -> tuple:
        board = board_after(fen, moves)
        eldest = order[0]
        r = self.search_job(fen, moves + (eldest,), child_depth(board, eldest, depth), 1, -INF, INF)
        best, best_move, best_pv = -r.score, eldest, (eldest,) + r.pv
        rest = order[1:]
        if not rest:
            return best, best_move, best_pv, []
        if self.runner.client is None:  # inline: no Dask variables, the workers take turns
            value, move, line, improved = self.split(fen, moves, board, depth, 0, -INF, INF, order,
                                                     (best, best_pv))
            return value, move, line, improved
        from distributed import Variable
        tag = f"{self.key}-peer-{next(self._ids)}"
        client = self.runner.client
        shared, counter = Variable(f"{tag}-best", client=client), Variable(f"{tag}-next", client=client)
        shared.set((best, eldest))
        counter.set(0)
        depths = {m: child_depth(board, m, depth) for m in rest}
        futures = [self.runner.submit_to(w, jobs.run_peer, self.key, self.options, fen, moves, tuple(rest), depths,
                                         tag, self.score_sharing, key=f"{tag}-w{w}")
                   for w in range(self.runner.workers)]
        improved = []
        results = [f.result() for f in futures]
        self.runner.messages += len(rest) * 2 + sum(len(r.searched) for r in results)
        for r in results:
            self.tally.busy += r.seconds
            for move, s, nodes, pv in r.searched:
                self.tally.nodes += nodes
                self.tally.jobs += 1
                if s > best:
                    best, best_move, best_pv = s, move, pv
                    improved.append(move)
        shared.delete()
        counter.delete()
        return best, best_move, best_pv, improved

    def root_split(self, fen: str, moves: tuple[str, ...], depth: int, order: list[str]) -> tuple:
        board = board_after(fen, moves)
        return self.split(fen, moves, board, depth, 0, -INF, INF, order)

    def pv_split(self, fen: str, path: tuple[str, ...], pv: tuple[str, ...], depth: int, ply: int, alpha: int,
                 beta: int, order: list[str] | None = None) -> tuple[int, str, tuple[str, ...], list[str]]:
        board = board_after(fen, path)
        children = order if order is not None else ordered_moves(board)
        if not children:
            r = self.search_job(fen, path, depth, ply, alpha, beta)
            return r.score, "", r.pv, []
        if depth < self.min_split_depth or not pv or pv[0] not in children:
            if ply == 0:
                return self.split(fen, path, board, depth, ply, alpha, beta, children)
            r = self.search_job(fen, path, depth, ply, alpha, beta)
            return r.score, r.pv[0] if r.pv else "", r.pv, []
        first = pv[0]
        children = [first] + [m for m in children if m != first]
        value, _, sub_pv, _ = self.pv_split(fen, path + (first,), pv[1:], child_depth(board, first, depth), ply + 1,
                                            -beta, -alpha)
        return self.split(fen, path, board, depth, ply, alpha, beta, children, (-value, (first,) + sub_pv))


def fold_answer(s: int, move: str, pv: tuple[str, ...], best: int, best_move: str, best_pv: tuple[str, ...],
                alpha: int, improved: list[str]) -> tuple[int, str, tuple[str, ...], bool]:
    """A child's exact answer folded into its split node's best: (best, best move, PV, taken).
    Taken when the child beats alpha, or is the best move searched again (its value and PV
    replace the old ones); a child that raised the score joins ``improved``."""
    if s > best or (s == best and move == best_move):
        best = s
        if s > alpha or move == best_move:
            if move not in improved:
                improved.append(move)
            return best, move, (move,) + pv, True
    return best, best_move, best_pv, False


def child_depth(board: chess.Board, move: str, depth: int) -> int:
    """The sequential search's rule: one ply less, one more when the move gives check."""
    return depth - 1 + (1 if board.gives_check(chess.Move.from_uci(move)) else 0)


def ordered_moves(board: chess.Board) -> list[str]:
    """Captures by MVV-LVA, then promotions and checks, then the rest."""
    def key(move: chess.Move) -> tuple:
        victim = board.piece_type_at(move.to_square) if board.is_capture(move) else None
        attacker = board.piece_type_at(move.from_square)
        capture = ORDER_VALUE.get(victim, 1) * 10 - ORDER_VALUE.get(attacker, 0) if board.is_capture(move) else -100
        return (-capture, -(move.promotion or 0), -int(board.gives_check(move)), move.uci())
    return [m.uci() for m in sorted(board.legal_moves, key=key)]


def iterate(master: Master, algorithm: str, fen: str, moves: tuple[str, ...], depth: int,
            tt_exchange: int = 1000, searchmoves: tuple[str, ...] = ()) -> ParallelResult:
    """Iterative deepening to ``depth`` with the chosen algorithm (root reordering between
    iterations).  ``master.abort()`` (a deadline) or ``master.node_limit`` ends it early:
    the interrupted iteration is discarded and the last completed one answers.
    ``searchmoves`` restricts the root to those moves (the cascade's second phase); only
    the algorithms over a shared table, where every worker searches from the root, can."""
    start = time.perf_counter()
    if algorithm == "abdada" or (algorithm == "lazy_smp" and master.options.table):
        return shared_smp(master, fen, moves, depth, searchmoves)
    if algorithm == "ybw":  # its threads search from the root in one process
        return ybw_search(master, fen, moves, depth, searchmoves)
    if searchmoves:
        raise ValueError(f"{algorithm}: only abdada, ybw and lazy_smp over a shared table can restrict the root moves")
    if algorithm == "lazy_smp":
        return lazy_smp(master, fen, moves, depth, tt_exchange)
    if algorithm == "lazy_cluster":
        raise ValueError("lazy_cluster runs in lockstep (players.decomposition.lockstep), not through a Master")
    if algorithm in MASTER_TREES:
        raise ValueError(f"{algorithm} runs on the node clock (players.decomposition.master_clock), not through a Master")
    if algorithm in ("uidpabs", "mixed"):
        raise ValueError(f"{algorithm} runs on the node clock (players.decomposition.root_policy), not through a Master")
    if algorithm == "aspiration":  # parallel aspiration, its own module
        return parallel_aspiration(master, fen, moves, depth)
    board = board_after(fen, moves)
    order = ordered_moves(board)
    if not order:
        raise ValueError(f"no legal move in {board.fen()}")
    best_move, best_score, pv, done = order[0], 0, (order[0],), 0
    history = []
    for d in range(1, min(depth, MAX_PLY - 1) + 1):
        try:
            if d < master.min_split_depth:
                # Too shallow to be worth the messages: the whole iteration is one job.
                r = master.search_job(fen, moves, d, 0, -INF, INF)
                score, move, line, improved = r.score, (r.pv[0] if r.pv else order[0]), r.pv, []
            elif algorithm == "root_split" and master.speculative and done > 0 and d >= master.min_split_depth:
                score, move, line, improved = master.split_speculative(fen, moves, board, d, order, best_score)
            elif algorithm == "root_split":
                score, move, line, improved = master.root_split(fen, moves, d, order)
            elif algorithm == "peer":
                score, move, line, improved = master.peer(fen, moves, d, order)
            elif algorithm in ("pv_split", "dynamic_split"):
                master.dynamic = algorithm == "dynamic_split"
                score, move, line, improved = master.pv_split(fen, moves, pv, d, 0, -INF, INF, order)
            else:
                raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
        except Aborted:
            break  # the interrupted iteration is discarded: keep the last completed one
        best_move, best_score, pv, done = move, score, line, d
        history.append(completed(master, d, score, line or (move,), start))
        # Root reordering: the best move first, then the moves that raised the score, latest first.
        front = [best_move] + [m for m in reversed(improved) if m != best_move]
        order = front + [m for m in order if m not in front]
    return ParallelResult(best_move, best_score, done, pv, master.tally, time.perf_counter() - start,
                          master.runner.messages, history)
