"""Jurčovič's master tree (his diploma thesis, Comenius University, Bratislava, 2005;
section 5.3): the tree the master expands to ``master_depth`` plies in every iteration, its
nodes typed Knuth–Moore style, the bounds its leaves' answers give every node, and which
leaves are worth a job, with which window, in which order.  No chess here: the driver
(:mod:`.master_clock`) expands the tree from the position and runs the jobs on the workers.

**Types.**  The root is PV; a PV node's eldest child is PV and its younger children CUT; a
CUT node's eldest child is ALL, and its younger children are needed only if the eldest fails
to cut (they are off the minimal tree); every child of an ALL node is CUT.  A node's *rank*
orders the dispatch (Jurčovič's M'): 1 PV, 2 CUT, 3 ALL on the minimal tree; the i-th child
of a CUT node (i >= 2, counted from 1) 3 + i; a node off the minimal tree passes its rank down.
So every leaf of the minimal tree goes out before any speculative one, and among the
speculative ones the second children of all CUT nodes go before any third child: one child
each of many nodes at once rather than many children of one.  Ties go left to right.

**Bounds.**  Every node keeps fail-soft bounds ``lo <= value <= hi`` (negamax, from its side
to move).  A leaf's come from its jobs: a search in (a, b) answering v gives hi = v when
v <= a, lo = v when v >= b, both when a < v < b.  An interior node's are backed up from its
children: lo = max(−hi_c), hi = max(−lo_c).  The root's value is known when lo = hi.  Every
answer only narrows sound bounds, so no window can make the answer wrong: windows decide what
a job costs, not whether the root's value is right.

**Windows** (:func:`plan`), top down, as PVS sets them.  A node searched in (α, β) narrows
it to a = max(α, lo), b = min(β, hi) and needs nothing more once a >= b (a cut-off) or
lo = hi (its value known).  A PV node gives its PV child — the child whose bound is the best
so far, the eldest before any is known — the full window (−β, −a'), a' being its alpha
without that child, and every other child a null window at a; while nothing has raised a
above −∞ (the first slices of an iteration), at the previous iteration's score less
``margin``, so that every worker has work from the first slice.  A non-PV node passes its
null window to all its children.  A younger child whose null-window answer beats its parent's
alpha becomes the PV child and is searched again with the full window narrowed by its own
bounds (lo − 1, hi + 1): PVS's re-search.  The PV chain's leaves go out first (rank 0): they
are the minimal tree of the order the answers have shown.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from players.core.search import INF

PV, CUT, ALL = "PV", "CUT", "ALL"
MINIMAL_RANK = {PV: 1, CUT: 2, ALL: 3}
LAST_MINIMAL_RANK = 3
# A leaf whose answers contradict each other this often (a selective search's instability)
# takes its last answer as its value: the iteration must end.
MAX_CONTRADICTIONS = 3


@dataclass(eq=False)
class Node:
    """A node of the master's tree (identity, not value, equality: nodes are dict keys)."""

    move: str  # the move into it ("" at the root)
    depth: int  # the depth the sequential search gives it (check extensions included)
    ply: int = 0
    kind: str = PV
    rank: int = 1
    parent: Node | None = None
    index: int = 0  # among its siblings, 0 the eldest (searched first)
    key: int = 0  # its position's Zobrist key (the driver's: move ordering next iteration)
    children: list[Node] = field(default_factory=list)
    lo: int = -INF
    hi: int = INF
    terminal: bool = False  # its value is known without a search (mate, stalemate, draw)
    order: int = 0  # left-to-right position (depth first): ties of rank go to the leftmost
    pv: tuple[str, ...] = ()  # a leaf's line from its last exact answer
    answers: int = 0
    contradictions: int = 0
    # The other master policies' state (``.tree_policies``): a node handed to a processor, and
    # the window it was given (a leaf's: its job's, as last sent).
    started: bool = False
    window: tuple[int, int] | None = None

    @property
    def leaf(self) -> bool:
        return not self.children

    @property
    def minimal(self) -> bool:
        """On the minimal tree (Knuth–Moore): no CUT node's younger child above it."""
        return self.rank <= LAST_MINIMAL_RANK

    @property
    def settled(self) -> bool:
        return self.lo >= self.hi

    def path(self) -> tuple[str, ...]:
        moves = []
        node = self
        while node.parent is not None:
            moves.append(node.move)
            node = node.parent
        return tuple(reversed(moves))

    def add(self, move: str, depth: int, key: int = 0, value: int | None = None) -> Node:
        """A child, typed by its parent's type and its place among its siblings; ``value``
        for a terminal child (its bounds are then known)."""
        i = len(self.children)
        kind = (PV if i == 0 else CUT) if self.kind == PV else ALL if self.kind == CUT else CUT
        if self.kind == CUT and i > 0:
            rank = max(self.rank, 3 + (i + 1))  # Jurčovič's 3 + Ord(y, x), Ord counted from 1
        elif not self.minimal:
            rank = self.rank
        else:
            rank = MINIMAL_RANK[kind]
        child = Node(move, depth, self.ply + 1, kind, rank, self, i, key)
        if value is not None:
            child.lo = child.hi = value
            child.terminal = True
        self.children.append(child)
        return child


def number(root: Node) -> None:
    """Left-to-right positions, depth first: the tie-break of the dispatch order."""
    for i, node in enumerate(walk(root)):
        node.order = i


def walk(node: Node) -> Iterator[Node]:
    yield node
    for c in node.children:
        yield from walk(c)


def back_up(node: Node | None) -> None:
    """Bounds of ``node`` and its ancestors from their children's (negamax)."""
    while node is not None:
        node.lo = max(-c.hi for c in node.children)
        node.hi = max(-c.lo for c in node.children)
        node = node.parent


def back_up_all(root: Node) -> None:
    """Every interior node's bounds from its children's, leaves up (a new tree whose terminal
    nodes already have values)."""
    for node in reversed(list(walk(root))):
        if node.children:
            node.lo = max(-c.hi for c in node.children)
            node.hi = max(-c.lo for c in node.children)


def record(leaf: Node, alpha: int, beta: int, score: int, pv: tuple[str, ...] = ()) -> None:
    """A job's fail-soft answer for ``leaf`` searched in (alpha, beta), backed up the tree.
    Answers that contradict the bounds the leaf has (a selective search is not consistent
    from window to window) replace them; the exact mode never contradicts itself."""
    if score <= alpha:
        lo, hi = -INF, score
    elif score >= beta:
        lo, hi = score, INF
    else:
        lo = hi = score
    leaf.answers += 1
    new_lo, new_hi = max(leaf.lo, lo), min(leaf.hi, hi)
    if new_lo > new_hi:
        leaf.contradictions += 1
        new_lo, new_hi = (score, score) if leaf.contradictions >= MAX_CONTRADICTIONS else (lo, hi)
    leaf.lo, leaf.hi = new_lo, new_hi
    if lo == hi and pv:
        leaf.pv = pv
    back_up(leaf.parent)


def pv_child(node: Node) -> Node:
    """The child whose bound is the best so far for ``node`` (the first of equals), or the
    eldest while none has an upper bound."""
    best, value = node.children[0], -INF
    for c in node.children:
        if -c.hi > value:
            best, value = c, -c.hi
    return best


@dataclass(frozen=True)
class Want:
    """A leaf worth a job now, the window to search it in, and whether it is on the PV chain."""

    leaf: Node
    alpha: int
    beta: int
    pv: bool

    @property
    def priority(self) -> tuple[int, int]:
        """Minimal tree first: the PV chain, then by rank, then left to right."""
        return (0 if self.pv else self.leaf.rank, self.leaf.order)


def plan(root: Node, guess: int | None, margin: int) -> list[Want]:
    """The leaves that still matter with their windows (module docstring), in dispatch order.
    ``guess`` is the previous iteration's score (from the root's side); with None, a PV
    node's younger children wait until its alpha is known."""
    out: list[Want] = []

    def visit(n: Node, alpha: int, beta: int, pv: bool) -> None:
        a, b = max(alpha, n.lo), min(beta, n.hi)
        if a >= b or n.settled:
            return
        if n.leaf:
            if pv:  # narrowed by its own bounds: a re-search after a null window's fail
                out.append(Want(n, max(alpha, n.lo - 1), min(beta, n.hi + 1), True))
            else:
                out.append(Want(n, a, b, False))
            return
        if not pv:
            for c in n.children:
                visit(c, -b, -a, False)
            return
        first = pv_child(n)
        a_without = max([alpha] + [-c.hi for c in n.children if c is not first])
        visit(first, -beta, -a_without, True)
        if a > -INF:
            s = a
        elif guess is not None:
            s = max(-INF + 1, min(b - 1, (guess if n.ply % 2 == 0 else -guess) - margin))
        else:
            return
        for c in n.children:
            if c is not first:
                visit(c, -s - 1, -s, False)

    visit(root, -INF, INF, True)
    out.sort(key=Want.priority.fget)
    return out


def sent(want: Want) -> None:
    """The master sent ``want`` (a job, or a running job's new window): the leaf remembers the
    window its worker has, which the policies that never move a running window keep."""
    want.leaf.started = True
    want.leaf.window = (want.alpha, want.beta)


@dataclass(frozen=True)
class Orders:
    """What the master sends at a boundary: aborts, new windows, new jobs (worker, want)."""

    aborts: tuple[int, ...]
    windows: tuple[tuple[int, Want], ...]
    jobs: tuple[tuple[int, Want], ...]


def dispatch(wants: list[Want], running: dict[int, tuple[Node, tuple[int, int]]], workers: int,
             home: dict[tuple[str, ...], int] | None = None) -> Orders:
    """Given what ``plan`` wants and what the workers run (worker -> leaf, window): abort the
    jobs whose leaf no longer matters (a cut-off above it, or its value known), move the
    windows that changed, and give the idle workers the first wants nobody runs, in
    ``wants``' order (minimal tree first).  A leaf goes back to the worker that searched it
    before (``home``, by path) when that one is idle: its table holds the subtree."""
    by_leaf = {w.leaf: w for w in wants}
    aborts, windows = [], []
    busy = set()
    for w in sorted(running):
        leaf, window = running[w]
        want = by_leaf.get(leaf)
        if want is None:
            aborts.append(w)
            continue
        busy.add(leaf)
        if (want.alpha, want.beta) != window:
            windows.append((w, want))
    idle = [w for w in range(workers) if w not in running or w in aborts]
    chosen = [want for want in wants if want.leaf not in busy][:len(idle)]
    homes = {}
    for want in chosen:  # first the leaves whose worker is idle, then the others on what is left
        w = (home or {}).get(want.leaf.path())
        if w in idle and w not in homes.values():
            homes[want.leaf] = w
    free = [w for w in idle if w not in homes.values()]
    jobs = [(homes[want.leaf] if want.leaf in homes else free.pop(0), want) for want in chosen]
    return Orders(tuple(aborts), tuple(windows), tuple(jobs))


def best_line(root: Node) -> tuple[str, ...]:
    """The principal variation once the root's value is known: the PV children down to a
    leaf, then that leaf's line (empty if its value came from two bounds, not one search)."""
    line = []
    node = root
    while not node.leaf:
        node = pv_child(node)
        line.append(node.move)
    return tuple(line) + node.pv


def best_children(root: Node) -> dict[int, str]:
    """Each interior node's best move so far (by key): the first to try next iteration."""
    out = {}
    for n in walk(root):
        if n.children and n.key:
            c = pv_child(n)
            if c.hi < INF:
                out[n.key] = c.move
    return out
