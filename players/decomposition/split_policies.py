"""Root splitting, PV splitting, dynamic splitting and peer cooperation, written once: the
master's policy as a generator that submits jobs through a context and yields a :class:`Wait`
where it needs an answer.  Two drivers run it: the node clock (:mod:`.split_clock`, over the
master's :class:`.node_clock.Desk`) and the wall clock (:mod:`.wall`, over a runner).

Why generators: over Dask the master blocks on futures; on the clock it may only act at slice
boundaries.  A generator leaves the waiting to its driver, as Sunfish's ``Searcher.search`` is
a generator its caller drives.  The algorithms are described in :mod:`.algorithms`; peer
cooperation yields a :class:`Peers` round where its driver can run one, and is root splitting
after the eldest where it cannot.

The clocks differ where each has always differed; the driver lends these as properties of its
context (one line each), so that both keep their behaviour exactly: the tree (:mod:`.trees`:
python-chess's order or the engine's), ``shallow`` (one job per shallow iteration, or one root
job for all of them), ``lookahead`` (speculative jobs in flight per worker), ``idle`` (this
split's jobs or the whole desk) and ``share_subcontracted`` (score sharing after a subcontracted
sibling raised alpha).  Scores are fail-soft negamax values from the side to move of the node a
job searches; paths are relative to the root.
"""
from __future__ import annotations

from collections.abc import Collection, Generator, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from players.core.search import INF
from players.position import Position
from players.searcher import Searcher

from .master_worker import RootIteration
from .node_clock import Desk, Wait
from .options import SplitClockConfig
from .trees import Children, EngineTree, Tree

Line = tuple[str, ...]
Split = Generator[Any, Any, tuple[int, str, Line, list[str]]]


@dataclass(frozen=True)
class Peers:
    """Yielded by a policy: let the workers share out ``agenda`` (the root's other children) as
    peers, the bound starting at ``best`` (the eldest's value); resumed with every move they
    searched as (move, score from the root's side, PV from the root), in the workers' order."""

    agenda: tuple[tuple[str, int], ...]
    best: int
    eldest: str


class Context(Protocol):
    """What a driver lends the policy (module docstring): its workers, jobs and iterations."""

    k: int
    max_depth: int
    lookahead: int
    shallow: str  # "one_job" | "per_iteration"
    share_subcontracted: bool
    peers: bool  # a Peers round can run

    def submit(self, path: Line, depth: int, alpha: int = -INF, beta: int = INF, first: int = 1,
               guess: int = 0) -> Hashable: ...

    def share(self, running: list, alpha: int) -> None: ...  # score sharing: their beta follows alpha
    def abort(self, running: list) -> None: ...  # a cut-off made them useless
    def idle(self, running: int) -> int: ...  # workers idle, ``running`` of them busy with this split
    def record(self, depth: int, score: int, pv: Line) -> bool: ...  # an iteration done; True: the move is over


def fold_answer(s: int, move: str, pv: Line, best: int, best_move: str, best_pv: Line,
                alpha: int, improved: list[str]) -> tuple[int, str, Line, bool]:
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


class DeskContext:
    """The node clock's context: the master's desk.  Shallow iterations are one root job, a
    speculative split keeps k jobs in flight, idle workers are the whole desk's, and a shared
    bound is a new window (clamped, in job order, unchanged ones skipped)."""

    lookahead = 1
    shallow = "one_job"
    share_subcontracted = True
    peers = False

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.k = desk.k
        self.max_depth = desk.max_depth

    def submit(self, path: Line, depth: int, alpha: int = -INF, beta: int = INF, first: int = 1,
               guess: int = 0) -> int:
        return self.desk.submit(path, depth, alpha, beta, first, guess)

    def share(self, running: list, alpha: int) -> None:
        """The running jobs' beta follows the master's new alpha (never below their alpha + 1,
        as over Dask)."""
        for job in sorted(running):
            window = self.desk.window(job)
            if window is None:
                continue  # its answer is in already
            a, b = window
            nb = max(-alpha, a + 1)
            if nb < b:
                self.desk.rewindow(job, a, nb)

    def abort(self, running: list) -> None:
        for job in sorted(running):
            self.desk.abort(job)

    def idle(self, running: int) -> int:
        return self.desk.idle()

    def record(self, depth: int, score: int, pv: Line) -> bool:
        self.desk.record(depth, score, pv)
        return self.desk.finished


class Splitting:
    """One move's master: its iterations and the splits they make (module docstring)."""

    def __init__(self, ctx: Context, config: SplitClockConfig, tree: Tree) -> None:
        self.ctx = ctx
        self.config = config
        self.tree = tree
        self.dynamic = config.algorithm == "dynamic_split"
        self.root_children = tree.root_children()  # depths -1, or 0 for a check
        first = self.root_children[0][0]
        self.best: tuple[str, int, int, Line] = (first, 0, 0, (first,))  # move, score, depth, PV
        self.root_nodes: dict[str, int] = {}  # nodes per root move in the last speculative iteration

    # --- the iterations ------------------------------------------------------------------------------
    def iterate(self) -> Generator[Any, Any, None]:
        ctx, config = self.ctx, self.config
        order = [m for m, _ in self.root_children]
        extension = {m: d + 1 for m, d in self.root_children}  # 1 where the move gives check
        best_move, best_score, pv, done = order[0], 0, (order[0],), 0
        d = 1
        while d <= ctx.max_depth:
            if d < config.min_split_depth and ctx.shallow == "one_job":
                # Too shallow to be worth the messages: the iterations up to min_split_depth - 1 are one job.
                last = min(ctx.max_depth, config.min_split_depth - 1)
                job = ctx.submit((), last, first=d, guess=best_score if done else 0)
                while True:
                    it = yield Wait(frozenset((job,)))
                    assert isinstance(it, RootIteration)
                    best_move, best_score, pv, done = it.pv[0], it.score, it.pv, it.depth
                    self.best = (best_move, best_score, done, pv)
                    finished = ctx.record(it.depth, it.score, it.pv)
                    if finished or it.depth >= last:
                        break
                if finished:
                    return
                order = [best_move] + [m for m in order if m != best_move]
                d = last + 1
                continue
            children = [(m, d - 1 + extension[m]) for m in order]
            if d < config.min_split_depth:  # shallow: the whole iteration is one job
                r = yield from self.job((), d, -INF, INF)
                score, move, line, improved = r.score, (r.pv[0] if r.pv else order[0]), r.pv, []
            elif config.algorithm == "root_split" and config.speculative and done > 0:
                score, move, line, improved = yield from self.split_speculative(d, children, best_score)
            elif config.algorithm == "root_split":
                score, move, line, improved = yield from self.split((), d, 0, -INF, INF, children)
            elif config.algorithm == "peer":
                score, move, line, improved = yield from self.peer(d, children)
            else:
                score, move, line, improved = yield from self.pv_split((), pv, d, 0, -INF, INF, children)
            best_move, best_score, pv, done = move, score, line, d
            self.best = (move, score, d, line)
            if ctx.record(d, score, line or (move,)):
                return
            # Root reordering: the best move first, then the moves that raised the score, latest first.
            front = [best_move] + [m for m in reversed(improved) if m != best_move]
            order = front + [m for m in order if m not in front]
            d += 1

    # --- one job -------------------------------------------------------------------------------------
    def job(self, path: Line, depth: int, alpha: int, beta: int) -> Generator[Wait, Any, Any]:
        job = self.ctx.submit(path, depth, alpha, beta)
        return (yield Wait(frozenset((job,))))

    def share(self, running: Collection, alpha: int) -> None:
        """Score sharing: the running jobs' beta follows the master's new alpha."""
        if self.config.score_sharing and running:
            self.ctx.share(list(running), alpha)

    # --- a node whose children are searched in parallel ----------------------------------------------
    def split(self, path: Line, depth: int, ply: int, alpha: int, beta: int, children: Children,
              first: tuple[int, Line] | None = None) -> Split:
        """The node's value (its side to move), best child, PV and the children that raised the
        score (for reordering).  ``first`` is the eldest child's known value.

        Young brothers wait: the eldest alone sets the bound.  With ``null_window`` the younger
        brothers are then probed with a null window on that bound (PVS), and only one that fails
        high is searched again with the full window: most siblings of a well-ordered node only
        have to prove that they are not better."""
        ctx = self.ctx
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
        running: dict = {}  # job -> (move, depth, the alpha a null-window probe tested, or None)
        while queue or running:
            while queue and len(running) < ctx.k:
                m, cd, research_from = queue.pop(0)
                if (self.dynamic and research_from is None and len(queue) + 1 < ctx.idle(len(running))
                        and cd >= self.config.min_split_depth):
                    grand = self.tree.children(path + (m,), cd)
                    if grand:
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
                                if ctx.share_subcontracted:
                                    self.share(running, alpha)
                        continue
                probe = self.config.null_window and research_from is None and beta - alpha > 1
                if research_from is not None:
                    # The full window from just below the probe's bound (for the exact value and its
                    # PV), or from alpha if another move has since proved better than that bound.
                    low = alpha if alpha > research_from else research_from - 1
                    window = (-beta, -low)
                elif probe:
                    window = (-alpha - 1, -alpha)
                else:
                    window = (-beta, -alpha)
                running[ctx.submit(path + (m,), cd, *window)] = (m, cd, alpha if probe else None)
            if alpha >= beta:
                break
            if not running:
                continue
            r = yield Wait(frozenset(running))
            m, cd, probed = running.pop(r.job)
            s = -r.score
            if probed is not None and probed < s < beta:
                # Failed high on the null window: worth at least s.  Above alpha it is the best
                # so far; either way its exact value is searched next, from max(alpha, s - 1).
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
        if running:  # a cut-off: the rest is not needed
            ctx.abort(list(running))
        return best, best_move, best_pv, improved

    def split_speculative(self, depth: int, children: Children, guess: int) -> Split:
        """Root splitting where the younger brothers do not wait for the eldest.

        The eldest is searched with the full window while the others are probed at once with a
        null window on a speculative bound, the previous iteration's score less ``margin``.  A
        probe that fails low is proven worse as soon as the proven alpha reaches its answer (the
        usual case: the score moves little from one iteration to the next); otherwise it is
        probed again at the proven alpha.  A probe that fails high is probed again at the proven
        alpha once the eldest is done, and searched with the full window only if it beats that
        alpha (a full-window search is a PV search, the dearest kind).  Every worker is busy from
        the first moment, where young-brothers-wait leaves all but one idle while the eldest
        (often half of the tree) is searched."""
        ctx = self.ctx
        alpha, beta = -INF, INF
        speculative = guess - self.config.margin
        best, best_move, best_pv = -INF, children[0][0], ()
        improved: list[str] = []
        eldest_done = False
        pending: list[tuple[str, int, int]] = []  # (move, depth, upper bound) of fail-lows not settled yet
        pending_high: list[tuple[str, int, int, Line]] = []  # (move, depth, lower bound, PV) of fail-highs
        # Largest first (the previous iteration's nodes): the small jobs fill the end of the iteration
        # instead of one large job running alone.
        younger = sorted(children[1:], key=lambda c: -self.root_nodes.get(c[0], 0))
        queue: list[tuple[str, int, str, int]] = [(children[0][0], children[0][1], "full", 0)]
        queue += [(m, cd, "probe", speculative) for m, cd in younger]
        nodes: dict[str, int] = {}
        running: dict = {}  # job -> (move, depth, kind, bound)
        # On the wall clock two jobs per worker: the next one waits in the worker while the master
        # reads the last answer, which hides the round trip (the probes' bounds do not change meanwhile).
        in_flight = ctx.lookahead * ctx.k
        while queue or running:
            while queue and len(running) < in_flight:
                m, cd, kind, bound = queue.pop(0)
                if kind == "probe":
                    bound = max(bound, alpha)
                    window = (-bound - 1, -bound)
                elif kind == "research":
                    window = (-beta, -(alpha if alpha > bound else bound - 1))
                else:
                    window = (-beta, -alpha)
                running[ctx.submit((m,), cd, *window)] = (m, cd, kind, bound)
            r = yield Wait(frozenset(running))
            m, cd, kind, bound = running.pop(r.job)
            s = -r.score
            nodes[m] = nodes.get(m, 0) + r.nodes
            raised = False
            if kind == "probe" and s > bound:
                # At least s.  Better than the settled moves: its exact value is searched next (the
                # full window).  Otherwise a null window at the proven alpha is enough, and before
                # the eldest is done that alpha is not known yet.
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
                # The answers the eldest did not settle are probed again at the proven alpha; a move
                # proven better than the eldest is searched with the full window.
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

    def pv_split(self, path: Line, pv: Line, depth: int, ply: int, alpha: int, beta: int,
                 children: Children | None = None) -> Split:
        """Walk down the previous iteration's principal variation: at every PV node the PV child
        first (recursively), then the node's other children split, from the bottom up."""
        if children is None:
            children = self.tree.children(path, depth)
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

    def peer(self, depth: int, children: Children) -> Split:
        """Peer cooperation at the root: the eldest searched first, alone; then the workers take
        the other moves from a shared agenda with no master handing them out, each searched
        against the best score published so far (a :class:`Peers` round).  A driver without one
        hands them out as root splitting does."""
        eldest, cd = children[0]
        r = yield from self.job((eldest,), cd, -INF, INF)
        best, best_move, best_pv = -r.score, eldest, (eldest,) + r.pv
        if len(children) == 1:
            return best, best_move, best_pv, []
        if not self.ctx.peers:
            return (yield from self.split((), depth, 0, -INF, INF, children, (best, best_pv)))
        improved = []
        searched = yield Peers(tuple(children[1:]), best, eldest)
        for move, s, line in searched:
            if s > best:
                best, best_move, best_pv = s, move, line
                improved.append(move)
        return best, best_move, best_pv, improved


class MasterPolicy(Splitting):
    """The policy on the node clock, as :mod:`.split_clock` builds it: over the master's desk,
    in the engine's order (the master's searcher, which never searches)."""

    def __init__(self, desk: Desk, config: SplitClockConfig, engine: Searcher, root: Position,
                 searchmoves: tuple[str, ...], exact: bool) -> None:
        super().__init__(DeskContext(desk), config, EngineTree(engine, root, searchmoves, exact))
        desk.best = self.best
