"""Master policies over the master tree (:mod:`.master_tree`): which leaves of the tree the
master expanded get a job now, with which window.  The tree, its types, its bounds, the
dispatch to idle workers, the aborts and the node clock (:mod:`.master_clock`) are the same
for all; only ``plan`` differs.  Pinhanez's dissertation (IME-USP, 1989, sections
5.2–5.4 and 6.4–6.5) describes the two algorithms besides Jurčovič's own:

**Tree splitting** (Fishburn and Finkel 1980, 1982; :class:`TreeSplit`).  A tree of processors
is laid over the top of the game tree: the origin on the root, its ``f`` slaves on the root's
first ``f`` children, theirs on the grandchildren, and so on; the leaf processors search their
node sequentially (alpha-beta) and the interior ones only pass messages.  A processor on node t
searched in (α, β) hands each child it starts the window (−β, −max(α, v)), v being t's value
from the children answered so far; a child's answer raises v, and a v >= β is a cut-off that
stops t's other slaves; when a slave returns, it takes t's next child not yet started (the
processor tree moves left to right, each processor always at the same ply).  *Without window
reduction* (Pinhanez's "Tree", Fishburn and Finkel's Palphabeta) a node keeps the window it was
given when it started; *with* it ("TreeUp", the Update interrupt) a rise of v is sent down at
once: every running descendant's window narrows to what the new v gives it, and the children
started later get the narrow one too.  Mapping: the master is every interior processor (its
work costs no slice); the processor tree has ``master_depth`` levels below the origin with the
fan-outs of :func:`processor_tree` (the workers' count factored over the levels, the larger
fan-outs nearer the root: 16 workers over 2 plies are 4 × 4, 8 are 4 × 2, 2 are 2 × 1); a node
of ply p has at most the p-th fan-out children running at once (started, not yet done); the
workers are the leaf processors, so at most k leaves run.  Which worker runs which leaf is not
the algorithm's (every leaf processor is alike): the dispatch's, a leaf going back to the worker
that searched it before.  A running job's window moves only with window reduction
(:class:`.master_worker.Rewindow`), one boundary later, like every message here.

**Mandatory work first** (Akl, Barnard and Doran 1980, 1982; :class:`MandatoryFirst`).  The
work of the minimal tree (Knuth–Moore: every child of a PV or ALL node, the eldest child of a
CUT node) is mandatory; the rest is speculative and is handed out only when no mandatory work
waits.  A CUT node's younger children join the mandatory work once its eldest has answered
without refuting it (the source's second stage, often pruned).  Within each class the order is
the source's priority list, the leftmost (then the deepest) first: a CUT node's whole second
stage before the next CUT node's.  Akl's algorithm has no deep cut-offs: a node is searched
with only its parent's value as a bound (Knuth and Moore's F1, the dissertation's "Bound"), so a
leaf's job is (−∞, −v) with v its parent's value when the job starts, and its parent's value
stops the parent's other jobs when it refutes it (a shallow cut-off).  Its windows do not move
unless ``window_reduction`` is set (the authors note it could be added).

How it differs from Jurčovič's dispatch (:func:`.master_tree.plan`, which also sends the minimal
tree first): his younger children are probed with null windows (PVS, the previous score less a
margin until the PV leaf answers) and searched again when they fail high; the speculative
leaves stay speculative whatever the eldest answered and go out by rank, the second children of
all CUT nodes before any third child; and every window narrows as the bounds move.  Here the
windows are one-sided, a leaf's answer is exact unless it does not matter, a CUT node whose
eldest failed joins the mandatory work, and the speculative work goes left to right.

Every answer only narrows sound bounds (:func:`.master_tree.record`), so neither policy can
change the root's value: they decide what a search costs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from players.core.search import INF

from .master_tree import CUT, Node, Want, plan

POLICIES = ("master_tree", "tree_split", "mandatory_first")


class Policy(Protocol):
    """What the master asks at every boundary: the leaves that want a job, in dispatch order."""

    name: str

    def plan(self, root: Node, guess: int | None, margin: int) -> list[Want]: ...


def is_open(node: Node, window: tuple[int, int]) -> bool:
    """Still to be searched in ``window``: neither a cut-off nor a known value."""
    return max(window[0], node.lo) < min(window[1], node.hi)


@dataclass(frozen=True)
class Jurcovic:
    """Jurčovič's master tree: PVS windows, the minimal tree first by rank."""

    name: str = "master_tree"

    def plan(self, root: Node, guess: int | None, margin: int) -> list[Want]:
        return plan(root, guess, margin)


def processor_tree(workers: int, levels: int) -> tuple[int, ...]:
    """The fan-outs of a processor tree with ``workers`` leaf processors, ``levels`` deep: the
    prime factors of ``workers`` spread over the levels as evenly as they go, the larger
    fan-outs first (nearest the root).  Their product is always ``workers``."""
    primes, n, p = [], workers, 2
    while n > 1:
        while n % p == 0:
            primes.append(p)
            n //= p
        p += 1
    fan = [1] * levels
    for q in sorted(primes, reverse=True):
        i = min(range(levels), key=lambda j: fan[j])
        fan[i] *= q
    return tuple(sorted(fan, reverse=True))


@dataclass(frozen=True)
class TreeSplit:
    """Fishburn and Finkel's tree splitting (module docstring): ``fanout[p]`` children of a
    ply-p node at once, alpha-beta windows, frozen unless ``window_reduction``."""

    fanout: tuple[int, ...]
    window_reduction: bool = False
    name: str = "tree_split"

    def plan(self, root: Node, guess: int | None = None, margin: int = 0) -> list[Want]:
        out: list[Want] = []

        def visit(n: Node, alpha: int, beta: int) -> None:
            a, b = max(alpha, n.lo), min(beta, n.hi)
            if a >= b:
                return
            if n.leaf:
                out.append(Want(n, a, b, False))
                return
            running = 0
            for c in n.children:
                if not c.started:
                    continue
                if self.window_reduction or c.window is None:
                    c.window = (-b, -a)  # the Update interrupt: the parent's new window, at once
                if is_open(c, c.window):
                    running += 1
                    visit(c, *c.window)
            for c in n.children:  # free slaves take the next children, left to right
                if running >= self.fanout[n.ply]:
                    break
                if c.started or c.settled:
                    continue
                c.started, c.window = True, (-b, -a)
                if is_open(c, c.window):
                    running += 1
                    visit(c, *c.window)

        visit(root, -INF, INF)
        out.sort(key=lambda w: w.leaf.order)
        return out


@dataclass(frozen=True)
class MandatoryFirst:
    """Akl, Barnard and Doran's mandatory work first (module docstring): the minimal tree and
    the failed CUT nodes' second stages first, then the speculative leaves, each left to right;
    one-sided windows (no deep cut-offs), frozen unless ``window_reduction``."""

    window_reduction: bool = False
    name: str = "mandatory_first"

    def plan(self, root: Node, guess: int | None = None, margin: int = 0) -> list[Want]:
        mandatory: list[Want] = []
        speculative: list[Want] = []

        def visit(n: Node, beta: int, must: bool) -> None:
            a, b = n.lo, min(beta, n.hi)  # only the parent's value bounds it: no deep cut-offs
            if a >= b:
                return
            if n.leaf:
                window = (a, b)
                if not self.window_reduction and n.window is not None and is_open(n, n.window):
                    window = n.window  # a running job keeps the window it was sent
                (mandatory if must else speculative).append(Want(n, *window, must))
                return
            eldest = n.children[0]
            second_stage = not is_open(eldest, (-INF, -a))  # the eldest answered and did not refute n
            for i, c in enumerate(n.children):
                visit(c, -a, must and (n.kind != CUT or i == 0 or second_stage))

        visit(root, INF, True)
        mandatory.sort(key=lambda w: w.leaf.order)
        speculative.sort(key=lambda w: w.leaf.order)
        return mandatory + speculative


def make_policy(name: str, workers: int, master_depth: int, window_reduction: bool = False) -> Policy:
    """The policy a config names, for ``workers`` workers under ``master_depth`` master plies."""
    if name == "master_tree":
        return Jurcovic()
    if name == "tree_split":
        return TreeSplit(processor_tree(workers, master_depth), window_reduction)
    if name == "mandatory_first":
        return MandatoryFirst(window_reduction)
    raise ValueError(f"unknown master policy {name!r}; known: {', '.join(POLICIES)}")
