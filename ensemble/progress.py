"""What an ensemble says while its instances search: the leading candidate, as UCI ``info``.

A GUI (python-chess's ``analysis``, ``go infinite``) shows an engine's ``info`` lines while it
thinks; an ensemble's instances answer only at the end of the move.  So the coordinator reads
each instance's last completed iteration while it waits (``ensemble.worker.instance_progress``;
inline, each iteration as it completes) and reports the move most instances prefer now, as the
deepest of them sees it, with the nodes of all of them, and names the instances behind it.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from players.player import InfoCallback
from players.result import IterationInfo

INFO_EVERY_S = 0.5  # how often the leading candidate is reported while the instances search

Latest = Mapping[str, IterationInfo]  # each instance's last completed iteration, by label


def leading(latest: Latest, n_instances: int, elapsed: float) -> tuple[IterationInfo, str] | None:
    """The candidate most instances prefer now (ties: the deeper, then the better score) as one
    ``info``: the principal variation, depth and score of its deepest backer, the nodes of
    every instance, ``elapsed`` seconds; and a sentence naming its backers, deepest first.  None before any
    instance has completed an iteration."""
    if not latest:
        return None
    backers: dict[str, list[tuple[str, IterationInfo]]] = {}
    for label, it in latest.items():
        backers.setdefault(it.move, []).append((label, it))

    def strength(item: tuple[str, list[tuple[str, IterationInfo]]]) -> tuple[int, int, int]:
        deepest = max(item[1], key=lambda b: b[1].depth)[1]
        return len(item[1]), deepest.depth, deepest.score_cp

    move, behind = max(backers.items(), key=strength)
    behind = sorted(behind, key=lambda b: -b[1].depth)
    best = behind[0][1]
    nodes = sum(it.nodes for it in latest.values())
    info = IterationInfo(best.depth, best.seldepth, best.score_cp, best.mate, nodes, elapsed, best.pv)
    words = (f"leading {move}, preferred by {len(behind)} of {n_instances} instances: "
             + ", ".join(f"{label} depth {it.depth}" for label, it in behind))
    return info, words


class Progress:
    """Turns the instances' latest iterations into ``info`` (the leading candidate) and a
    sentence for ``tell`` (UCI: ``info string``), at most every ``INFO_EVERY_S`` and only
    when something changed."""

    def __init__(self, n_instances: int, info: InfoCallback, tell: Callable[[str], None], start: float) -> None:
        self.n_instances = n_instances
        self.info = info
        self.tell = tell
        self.start = start
        self._said_at = -INFO_EVERY_S
        self._said: tuple | None = None

    def __call__(self, latest: Latest) -> None:
        now = time.perf_counter()
        if now - self._said_at < INFO_EVERY_S:
            return
        found = leading(latest, self.n_instances, now - self.start)
        if found is None:
            return
        info, words = found
        news = (words, info.score_cp, info.mate, info.pv)
        if news == self._said:
            return
        self._said, self._said_at = news, now
        self.tell(words)
        self.info(info)
