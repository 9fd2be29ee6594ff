"""The master's policies of root splitting, PV splitting and dynamic splitting on the node
clock: :mod:`.algorithms`' ``Master`` rewritten as generators over a :class:`.split_clock.Desk`.

Why generators: over Dask the master blocks on futures; on the clock it may only act at
slice boundaries, so every place where ``Master`` waits for an answer is a ``yield Wait(...)``
here and the driver (:mod:`.split_clock`) resumes the policy when the answer has arrived.
The algorithms are the same, step for step:

* iterative deepening with root reordering (the best move first, then the moves that raised
  the score, latest first); the iterations shallower than ``min_split_depth`` are one root
  job on one worker, each iteration reported as it is completed (the master tree's D_0);
* ``split``: young brothers wait (the eldest alone sets the bound), the younger brothers go
  to idle workers with the best score so far as bound, probed with a null window first
  (``null_window``) and searched again when they fail high; ``score_sharing`` sends a running
  job a lower beta when the master's alpha rises; a cut-off aborts the rest;
* ``speculative`` root splitting: the younger brothers are probed at the previous score less
  ``margin`` while the eldest is still searched;
* ``pv_split``: down the previous PV, the PV child first (recursively), then the node's
  other children split, bottom-up to the root;
* ``dynamic_split``: PV splitting, and when fewer siblings are left than idle workers the
  next sibling is split too (its eldest child first, then the others): DPVSplit.

Moves and their order come from the engine (the master's searcher, which never searches):
hash move, then captures and the usual ordering; a child's depth is the sequential search's
(one ply less, one more when the move gives check).  Scores are fail-soft negamax values from
the side to move of the node a job searches.
"""
from __future__ import annotations

from collections.abc import Generator

from players.core.moves import ST_HALFMOVE, move_to_uci
from players.core.position import in_check, insufficient_material, make_move, repetition_count, unmake_move
from players.core.search import INF
from players.position import Position
from players.searcher import Searcher

from .algorithms import fold_answer
from .master_worker import JobResult, RootIteration
from .node_clock import Answer, Desk, Wait
from .options import SplitClockConfig

Children = list[tuple[str, int]]  # (move, the child's depth)
Split = Generator[Wait, Answer, tuple[int, str, tuple[str, ...], list[str]]]


class MasterPolicy:
    """One move's master: its iterations and the splits they make."""

    def __init__(self, desk: Desk, config: SplitClockConfig, engine: Searcher, root: Position,
                 searchmoves: tuple[str, ...], exact: bool) -> None:
        self.desk = desk
        self.config = config
        self.engine = engine
        self.root = root
        self.exact = exact
        self.dynamic = config.algorithm == "dynamic_split"
        codes, n = engine._root_moves(root, searchmoves or None)  # ValueError: an illegal one
        if n == 0:
            raise ValueError(f"no legal move in {root.fen()}")
        self.root_children = self._children_of(root, 0, codes[:n])  # depths -1, or 0 for a check
        first = self.root_children[0][0]
        desk.best = (first, 0, 0, (first,))
        self.root_nodes: dict[str, int] = {}  # nodes per root move in the last speculative iteration

    # --- the tree ------------------------------------------------------------------------------------
    def _children_of(self, pos: Position, depth: int, codes) -> Children:
        arrays = pos.arrays
        out = []
        for code in codes:
            make_move(arrays, int(code))
            checks = bool(in_check(arrays))
            unmake_move(arrays)
            out.append((move_to_uci(int(code)), depth - 1 + (1 if checks else 0)))
        return out

    def children(self, path: tuple[str, ...], depth: int) -> Children | None:
        """The children of the node after ``path`` with their depths, in the engine's order;
        None where the node is not split: no legal move, or a draw the search sees at the node
        (dead material; the fifty-move rule or a repetition outside the exact mode)."""
        pos = self.root.copy()
        pos.push_ucis(path)
        arrays = pos.arrays
        if insufficient_material(arrays[0]) or (not self.exact and (arrays[2][ST_HALFMOVE] >= 100
                                                                    or repetition_count(arrays) > 0)):
            return None
        codes, n = self.engine._root_moves(pos, None)
        return self._children_of(pos, depth, codes[:n]) or None

    # --- the iterations ------------------------------------------------------------------------------
    def iterate(self) -> Generator[Wait, Answer, None]:
        desk, config = self.desk, self.config
        order = [m for m, _ in self.root_children]
        extension = {m: d + 1 for m, d in self.root_children}  # 1 where the move gives check
        best_move, best_score, pv, done = order[0], 0, (order[0],), 0
        d = 1
        while d <= desk.max_depth:
            if d < config.min_split_depth:
                # Too shallow to be worth the messages: the iterations up to min_split_depth - 1 are one job.
                last = min(desk.max_depth, config.min_split_depth - 1)
                job = desk.submit((), last, first=d, guess=best_score if done else 0)
                while True:
                    it = yield Wait(frozenset((job,)))
                    assert isinstance(it, RootIteration)
                    best_move, best_score, pv, done = it.pv[0], it.score, it.pv, it.depth
                    desk.record(it.depth, it.score, it.pv)
                    if desk.finished or it.depth >= last:
                        break
                if desk.finished:
                    return
                order = [best_move] + [m for m in order if m != best_move]
                d = last + 1
                continue
            children = [(m, d - 1 + extension[m]) for m in order]
            if config.algorithm == "root_split" and config.speculative and done > 0:
                score, move, line, improved = yield from self.split_speculative(d, children, best_score)
            elif config.algorithm == "root_split":
                score, move, line, improved = yield from self.split((), d, 0, -INF, INF, children)
            else:
                score, move, line, improved = yield from self.pv_split((), pv, d, 0, -INF, INF, children)
            best_move, best_score, pv, done = move, score, line or (move,), d
            desk.record(d, score, pv)
            if desk.finished:
                return
            front = [best_move] + [m for m in reversed(improved) if m != best_move]
            order = front + [m for m in order if m not in front]
            d += 1

    # --- one job -------------------------------------------------------------------------------------
    def job(self, path: tuple[str, ...], depth: int, alpha: int, beta: int) -> Generator[Wait, Answer, JobResult]:
        job = self.desk.submit(path, depth, alpha, beta)
        answer = yield Wait(frozenset((job,)))
        return answer

    def share(self, running, alpha: int) -> None:
        """Score sharing: the running jobs' beta follows the master's new alpha (never below
        their alpha + 1, as over Dask)."""
        if not self.config.score_sharing:
            return
        for job in sorted(running):
            window = self.desk.window(job)
            if window is None:
                continue  # its answer is in already
            a, b = window
            nb = max(-alpha, a + 1)
            if nb < b:
                self.desk.rewindow(job, a, nb)

    # --- a node whose children are searched in parallel ----------------------------------------------
    def split(self, path: tuple[str, ...], depth: int, ply: int, alpha: int, beta: int, children: Children,
              first: tuple[int, tuple[str, ...]] | None = None) -> Split:
        """``algorithms.Master.split``: the node's value (its side to move), best child, PV and
        the children that raised the score.  ``first`` is the eldest child's known value."""
        k = self.desk.k
        best, best_move, best_pv = -INF, children[0][0], ()
        improved: list[str] = []
        queue: list[tuple[str, int, int | None]] = [(m, cd, None) for m, cd in children]  # (move, depth, re-search)
        if first is not None:
            queue.pop(0)
            best, best_pv = first
            alpha = max(alpha, best)
            if alpha >= beta:
                return best, best_move, best_pv, improved
        elif queue:
            m, cd, _ = queue.pop(0)
            r = yield from self.job(path + (m,), cd, -beta, -alpha)
            best, best_move, best_pv = -r.score, m, (m,) + r.pv
            alpha = max(alpha, best)
            if alpha >= beta:
                return best, best_move, best_pv, improved
        running: dict[int, tuple[str, int, int | None]] = {}  # job -> (move, depth, the probe's alpha or None)
        while queue or running:
            while queue and len(running) < k:
                m, cd, research_from = queue.pop(0)
                if (self.dynamic and research_from is None and len(queue) + 1 < self.desk.idle()
                        and cd >= self.config.min_split_depth):
                    grand = self.children(path + (m,), cd)
                    if grand is not None:
                        # The agenda runs dry: subcontract this sibling's subtree to the idle workers.
                        value, _, sub_pv, _ = yield from self.split(path + (m,), cd, ply + 1, -beta, -alpha, grand)
                        s = -value
                        if s > best:
                            best = s
                            if s > alpha:
                                best_move, best_pv, alpha = m, (m,) + sub_pv, s
                                improved.append(m)
                                if alpha >= beta:
                                    queue.clear()
                                    break
                                self.share(running, alpha)
                        continue
                probe = self.config.null_window and research_from is None and beta - alpha > 1
                if research_from is not None:
                    low = alpha if alpha > research_from else research_from - 1
                    window = (-beta, -low)
                elif probe:
                    window = (-alpha - 1, -alpha)
                else:
                    window = (-beta, -alpha)
                job = self.desk.submit(path + (m,), cd, *window)
                running[job] = (m, cd, alpha if probe else None)
            if alpha >= beta:
                break
            if not running:
                continue
            r = yield Wait(frozenset(running))
            m, cd, probed = running.pop(r.job)
            s = -r.score
            if probed is not None and probed < s < beta:
                # Failed high on the null window: worth at least s; its exact value is searched next.
                if s > alpha:
                    best, best_move, best_pv, alpha = s, m, (m,) + r.pv, s
                    improved.append(m)
                    self.share(running, alpha)
                queue.insert(0, (m, cd, s))
                continue
            best, best_move, best_pv, taken = fold_answer(s, m, r.pv, best, best_move, best_pv, alpha, improved)
            if taken:
                alpha = max(alpha, s)
                if alpha >= beta:
                    break
                self.share(running, alpha)
        for job in sorted(running):  # a cut-off: the rest is not needed
            self.desk.abort(job)
        return best, best_move, best_pv, improved

    def split_speculative(self, depth: int, children: Children, guess: int) -> Split:
        """``algorithms.Master.split_speculative``: the root's younger brothers probed at once
        at ``guess - margin`` while the eldest is searched with the full window."""
        k = self.desk.k
        alpha, beta = -INF, INF
        speculative = guess - self.config.margin
        best, best_move, best_pv = -INF, children[0][0], ()
        improved: list[str] = []
        eldest_done = False
        pending: list[tuple[str, int, int]] = []  # (move, depth, upper bound) of fail-lows not settled yet
        pending_high: list[tuple[str, int, int, tuple[str, ...]]] = []  # (move, depth, lower bound, PV)
        # Largest first (the previous iteration's nodes): the small jobs fill the end of the iteration.
        younger = sorted(children[1:], key=lambda c: -self.root_nodes.get(c[0], 0))
        queue: list[tuple[str, int, str, int]] = [(children[0][0], children[0][1], "full", 0)]
        queue += [(m, cd, "probe", speculative) for m, cd in younger]
        nodes: dict[str, int] = {}
        running: dict[int, tuple[str, int, str, int]] = {}  # job -> (move, depth, kind, bound)
        while queue or running:
            while queue and len(running) < k:
                m, cd, kind, bound = queue.pop(0)
                if kind == "probe":
                    bound = max(bound, alpha)
                    window = (-bound - 1, -bound)
                elif kind == "research":
                    window = (-beta, -(alpha if alpha > bound else bound - 1))
                else:
                    window = (-beta, -alpha)
                running[self.desk.submit((m,), cd, *window)] = (m, cd, kind, bound)
            r = yield Wait(frozenset(running))
            m, cd, kind, bound = running.pop(r.job)
            s = -r.score
            nodes[m] = nodes.get(m, 0) + r.nodes
            raised = False
            if kind == "probe" and s > bound:
                if not eldest_done:
                    pending_high.append((m, cd, s, r.pv))
                elif s > alpha:
                    best, best_move, best_pv, alpha, raised = s, m, (m,) + r.pv, s, True
                    improved.append(m)
                    queue.insert(0, (m, cd, "research", s))
                else:
                    queue.insert(0, (m, cd, "probe", alpha))
            elif kind == "probe":
                if s > alpha:  # at most s, but s is above what is proven: not settled yet
                    if eldest_done:
                        queue.insert(0, (m, cd, "probe", alpha))
                    else:
                        pending.append((m, cd, s))
            else:
                best, best_move, best_pv, taken = fold_answer(s, m, r.pv, best, best_move, best_pv, alpha,
                                                              improved)
                if taken:
                    raised = s > alpha
                    alpha = max(alpha, s)
            if kind == "full":
                eldest_done = True
                again = [(pm, pcd, "probe", alpha) for pm, pcd, ps in pending if ps > alpha]
                for pm, pcd, ps, ppv in sorted(pending_high, key=lambda e: -e[2]):
                    if ps > alpha:
                        best, best_move, best_pv, alpha, raised = ps, pm, (pm,) + ppv, ps, True
                        improved.append(pm)
                        again.insert(0, (pm, pcd, "research", ps))
                    else:
                        again.append((pm, pcd, "probe", alpha))
                queue[:0] = again
                pending.clear()
                pending_high.clear()
            if raised:
                self.share(running, alpha)
        self.root_nodes = nodes
        return best, best_move, best_pv, improved

    def pv_split(self, path: tuple[str, ...], pv: tuple[str, ...], depth: int, ply: int, alpha: int, beta: int,
                 children: Children | None = None) -> Split:
        """``algorithms.Master.pv_split``: the PV child first (recursively), then the node's
        other children split."""
        if children is None:
            children = self.children(path, depth)
        if not children:
            r = yield from self.job(path, depth, alpha, beta)
            return r.score, "", r.pv, []
        moves = [m for m, _ in children]
        if depth < self.config.min_split_depth or not pv or pv[0] not in moves:
            if ply == 0:
                return (yield from self.split(path, depth, ply, alpha, beta, children))
            r = yield from self.job(path, depth, alpha, beta)
            return r.score, r.pv[0] if r.pv else "", r.pv, []
        i = moves.index(pv[0])
        children = [children[i]] + children[:i] + children[i + 1:]
        first, cd = children[0]
        value, _, sub_pv, _ = yield from self.pv_split(path + (first,), pv[1:], cd, ply + 1, -beta, -alpha)
        return (yield from self.split(path, depth, ply, alpha, beta, children, (-value, (first,) + sub_pv)))
