"""Goldens of the parallel algorithms (issue 57, step 0): today's behaviour of every algorithm,
pinned exactly, so that the refactor of ``players/decomposition`` (one policy per algorithm, one
node-clock driver, one wall driver, one result type) can show that it changed nothing.

* **Node clock**: every node-clock variant (root, speculative, PV and dynamic splitting; the
  master tree, tree splitting with and without window reduction, mandatory work first; the
  lazy cluster at latency 1 and 2; UIDPABS; mixed and exhaustive; parallel aspiration) at
  k = 1, 4, 16 on Bratko-Kopec 0-3, to depth 4 with the exact search and to a node budget with
  the pruning search (the lazy cluster: the pruning search both ways, as ``test_lockstep``),
  each from a fresh player built from a decomposition file (``DecompositionPlayer.play``).
  Recorded: move, score, PV, depth, nodes, the iterations, the report line and every metric the
  clock's result carries.  A few cases run at the function level: parallel aspiration's clock
  (``iterate`` on an ``InlineRunner`` of k workers, as the speedup rows do) and the lazy
  cluster's speedup-row mode (``run_lockstep`` with ``overrun_after`` 4, exact, to a depth).
* **Wall clock, the deterministic part**: on an in-process runner of two workers (four for
  parallel aspiration; each job runs when submitted), every job submitted (worker slot, path,
  depth, window, node limit), every signal (shared bounds, stop orders), the message count, the
  tally and the answer of root, speculative, PV and dynamic splitting, peer, lazy SMP and
  parallel aspiration (on the node clock, and racing its windows with a stand-in client), on
  Bratko-Kopec 0-1 at depth 4, through ``Master`` and ``iterate`` with a decomposition file's
  options.

The cases, settings and values are in ``golden.json`` beside this file.  Re-record with::

    python -m tests.players.decomposition.test_golden --record

Re-recording is legitimate only for a deliberate behaviour change that was measured (its
effect on the speedup rows and the bench stated in the commit), never to make a refactor's
goldens pass.  When a result type changes shape, adapt :func:`clock_fields` (or
:func:`_job`) so that it reads the same values from the new type: the JSON must stay as it is.
"""
from __future__ import annotations

import dataclasses
import inspect
import json
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import chess
import pytest

from base.resources import packaged
from base.runner import InlineRunner
from players.decomposition.algorithms import Master, iterate
from players.decomposition.config import DecompositionConfig, load_decomposition
from players.decomposition.lockstep import run_lockstep
from players.decomposition.master_worker import Team
from players.decomposition.player import DecompositionPlayer
from players.decomposition.runner import drop_prefix
from players.limits import Limit
from tournaments.records.epd import read_suite

GOLDEN = Path(__file__).with_name("golden.json")
RECORD = "python -m tests.players.decomposition.test_golden --record"
DEPTH = 4
NODES = 6000  # per worker on the node clock; the team's for parallel aspiration (a Master's node_limit)
KS = (1, 4, 16)
POSITIONS = 4  # Bratko-Kopec 0 .. 3
FAST_KS = (1, 4)  # the normal run; k = 16 and the other positions are slow
FAST_POSITIONS = 2

EXACT = "search: {hash_mb: 2, null_move: false, lmr: false, futility: false, exact: true}\n"
PRUNING = "search: {hash_mb: 2}\n"
SPLIT = "node_clock: true\nmin_split_depth: 3\n"
TREE = "master_depth: 2\nmin_split_depth: 3\nexchange_size: 1000\n"
LAZY = "in_process: true\nslice: 500\nexchange_depth: 3\nexchange_size: 128\n"
ROOT = "in_process: true\nmargin: 25\n"

# A mode: the search (and a sliced clock's slice) added to the file; "depth": DEPTH plies,
# "nodes": NODES per worker (small slices there, so that the budget ends inside a split or tree
# iteration).  The lazy cluster searches with pruning both ways, as test_lockstep: exact, to a
# depth, it needs overrun_after (its speedup-row mode, "lazy-cluster,rows").
PLAIN = {"depth": EXACT, "nodes": PRUNING}
SLICED = {"depth": "slice: 400\n" + EXACT, "nodes": "slice: 100\n" + PRUNING}
LAZY_MODES = {"depth": PRUNING, "nodes": PRUNING}

# name -> (the decomposition file without its search, its modes): the speedup-cluster file's
# node-clock items, plus latency 2 for one splitting and one tree policy.
NODE_VARIANTS = {
    "root-split": ("algorithm: root_split\nscore_sharing: false\nnull_window: false\n" + SPLIT, SLICED),
    "root-split+sharing": ("algorithm: root_split\nscore_sharing: true\nnull_window: false\n" + SPLIT, SLICED),
    "root-split+pvs": ("algorithm: root_split\n" + SPLIT, SLICED),
    "root-split+speculative": ("algorithm: root_split\nspeculative: true\nmargin: 25\n" + SPLIT, SLICED),
    "pv-split+pvs": ("algorithm: pv_split\n" + SPLIT, SLICED),
    "dynamic-split+pvs": ("algorithm: dynamic_split\n" + SPLIT, SLICED),
    "dynamic-split+pvs,latency-2": ("algorithm: dynamic_split\nlatency: 2\n" + SPLIT, SLICED),
    "master-tree": ("algorithm: master_tree\n" + TREE, SLICED),
    "master-tree,latency-2": ("algorithm: master_tree\nlatency: 2\n" + TREE, SLICED),
    "tree-split": ("algorithm: tree_split\n" + TREE, SLICED),
    "tree-split+window-reduction": ("algorithm: tree_split\nwindow_reduction: true\n" + TREE, SLICED),
    "mandatory-first": ("algorithm: mandatory_first\n" + TREE, SLICED),
    "lazy-cluster": ("algorithm: lazy_cluster\nlatency: 1\n" + LAZY, LAZY_MODES),
    "lazy-cluster,latency-2": ("algorithm: lazy_cluster\nlatency: 2\n" + LAZY, LAZY_MODES),
    # run_lockstep with overrun_after, as the speedup rows
    "lazy-cluster,rows": ("algorithm: lazy_cluster\nlatency: 1\n" + LAZY, {"depth": EXACT}),
    "uidpabs": ("algorithm: uidpabs\n" + ROOT, PLAIN),
    "mixed": ("algorithm: mixed\norder_depth: 2\n" + ROOT, PLAIN),
    "mixed-exhaustive": ("algorithm: mixed\norder_depth: 0\n" + ROOT, PLAIN),
    "aspiration": ("algorithm: aspiration\n" + ROOT, PLAIN),  # the player: a team of threads, no client
    "aspiration,clock": ("algorithm: aspiration\n" + ROOT, PLAIN),  # iterate on an InlineRunner of k workers
}
OVERRUN_AFTER = 4  # tournaments.speedup.nodes: the lazy cluster's rows

WALL_SEARCH = EXACT
WALL_VARIANTS = {
    "root_split": "algorithm: root_split\nworkers: 2\nmin_split_depth: 2\n",
    "root_split+speculative": "algorithm: root_split\nworkers: 2\nmin_split_depth: 2\nspeculative: true\n",
    "pv_split": "algorithm: pv_split\nworkers: 2\nmin_split_depth: 2\n",
    "dynamic_split": "algorithm: dynamic_split\nworkers: 2\nmin_split_depth: 2\n",
    "peer": "algorithm: peer\nworkers: 2\nmin_split_depth: 2\n",
    "lazy_smp": "algorithm: lazy_smp\nworkers: 2\ntt_exchange: 1000\n",
    # four windows: two would meet at the guess whatever the margin
    "aspiration": "algorithm: aspiration\nworkers: 4\nmargin: 25\n",  # client None: the node clock
    "aspiration,race": "algorithm: aspiration\nworkers: 4\nmargin: 25\n",  # a stand-in client: the race
}
WALL_POSITIONS = 2


# --- the cases -----------------------------------------------------------------------------------
def node_cases() -> list[tuple[str, str, int, int]]:
    return [(name, mode, k, i) for name, (_, modes) in NODE_VARIANTS.items() for mode in modes for k in KS
            for i in range(POSITIONS)]


def wall_cases() -> list[tuple[str, int]]:
    return [(name, i) for name in WALL_VARIANTS for i in range(WALL_POSITIONS)]


def node_id(name: str, mode: str, k: int, i: int) -> str:
    return f"{name}|{mode}|k{k}|bk{i}"


def wall_id(name: str, i: int) -> str:
    return f"{name}|bk{i}"


@cache
def positions() -> tuple[str, ...]:
    """Bratko-Kopec 0 .. 3 (the conftest's ``bk``)."""
    suite = read_suite(packaged("data") / "suites" / "bratko-kopec.epd").positions
    return tuple(p.fen for p in suite[:POSITIONS])


def node_config(name: str, mode: str, k: int) -> DecompositionConfig:
    text, modes = NODE_VARIANTS[name]
    return load_decomposition(text=text + modes[mode]).with_workers(k)


def wall_config(name: str) -> DecompositionConfig:
    return load_decomposition(text=WALL_VARIANTS[name] + WALL_SEARCH)


# --- what is recorded ----------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """JSON's shapes: dataclasses as dicts of their fields, tuples as lists, numpy ints as ints."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def _iterations(iterations) -> list:
    """Each completed iteration as (depth, score, nodes, PV); its seconds vary."""
    return [[it.depth, it.score_cp, it.nodes, " ".join(it.pv)] for it in iterations]


def _messages(messages: Any) -> Any:
    """Messages by kind, the kinds never sent left out (so one message type for every algorithm
    reads the same); a plain count as it is."""
    if isinstance(messages, int):
        return messages
    return {kind: n for kind, n in _plain(messages).items() if n}


# The clock metrics a node-clock result may carry (ParallelResult; aspiration's NodeClock).
CLOCK = ("worker", "slices", "slice_nodes", "time", "nodes", "worker_nodes", "messages", "entries_sent", "overruns",
         "leaves", "researches", "fallbacks", "depths", "answers", "votes", "schedule")


def clock_fields(result: Any) -> dict:
    """Every clock metric ``result`` carries, as ``clock.<name>`` (none for ``None``).  The one
    place to adapt when the result types change: the values read must stay the golden ones."""
    out = {}
    for name in CLOCK:
        value = getattr(result, name, None)
        if value is None:  # not this result's metric (one result type carries every algorithm's)
            continue
        if name == "messages":
            value = _messages(value)
        elif name == "answers":
            value = [[a.worker, a.move, a.score, a.depth, " ".join(a.pv)] for a in value]
        elif name == "schedule":
            value = [list(s) for s in value]
        out[f"clock.{name}"] = _plain(value)
    if hasattr(result, "iterations") and not hasattr(result, "move"):  # aspiration's NodeClock
        out["clock.iterations"] = _plain(result.iterations)
    return out


def searched(move: str, score: int, pv, depth: int, nodes: int, iterations) -> dict:
    return {"move": move, "score": score, "pv": " ".join(pv), "depth": depth, "nodes": nodes,
            "iterations": _iterations(iterations)}


def _parallel(r, runner) -> dict:
    """A ``ParallelResult`` (a ``Master``'s): the answer, the tally and the runner's messages."""
    out = searched(r.move, r.score, r.pv, r.depth, r.tally.nodes, r.iterations)
    out.update({"tally.jobs": r.tally.jobs, "tally.cancelled": r.tally.cancelled, "messages": runner.messages})
    out.update(clock_fields(getattr(r, "clock", None)))
    return out


# --- the node clock ------------------------------------------------------------------------------
def run_node(name: str, mode: str, k: int, fen: str) -> dict:
    """One case from fresh workers and tables."""
    config = node_config(name, mode, k)
    if name == "aspiration,clock":
        runner = InlineRunner()
        runner.workers = k  # k workers, one after another in this process (the speedup rows)
        try:
            master = Master(runner, config.search, "golden", **config.master_options())
            if mode == "nodes":
                master.node_limit = NODES
            return _parallel(iterate(master, "aspiration", fen, (), DEPTH if mode == "depth" else 64), runner)
        finally:
            drop_prefix(runner, "golden")
            runner.close()
    if name == "lazy-cluster,rows":
        team = Team(config.search, k)
        try:
            r = run_lockstep(team, replace(config.options, overrun_after=OVERRUN_AFTER), fen, depth=DEPTH)
        finally:
            team.close()
        return {**searched(r.move, r.score, r.pv, r.depth, r.nodes, r.iterations), **clock_fields(r)}
    limit = Limit(depth=DEPTH) if mode == "depth" else Limit(nodes=NODES)
    with DecompositionPlayer(config) as player:
        player.new_game()
        played = player.play(chess.Board(fen), limit)
        clock = player.session.last if player.clocked else None
    r = played.result
    return {**searched(r.bestmove, r.score_cp, r.pv, r.depth, r.nodes, r.iterations), "report": list(played.report),
            **clock_fields(clock)}


# --- the wall clock, in process ------------------------------------------------------------------
def _job(slot: int | None, fn, args: tuple) -> list:
    """A submitted job as (slot, path, depth, alpha, beta, node limit), None where it has none;
    read from its function's arguments (or its job's fields) by name."""
    bound = inspect.signature(fn).bind_partial(*args).arguments
    if dataclasses.is_dataclass(bound.get("job")):  # the worker's one job function: the job's fields
        bound = vars(bound["job"])
    limit = bound.get("node_limit", bound.get("nodes"))
    return [slot, " ".join(bound.get("moves", ())), bound.get("depth"), bound.get("alpha"), bound.get("beta"), limit]


class TracingRunner(InlineRunner):
    """``workers`` slots in this process, every job run when submitted (so the trace is a pure
    function of the search); keeps every job and signal in order."""

    def __init__(self, workers: int, client: object = None) -> None:
        super().__init__("golden")
        self.workers = workers
        self.client = client  # not None: parallel aspiration races its windows as over Dask
        self.jobs: list[list] = []
        self.signals: list[list] = []
        self._forwarding = False

    def submit(self, fn, *args, key="", home=None):
        self.jobs.append(_job(None, fn, args))
        self._forwarding = True  # InlineRunner.submit goes through submit_to
        try:
            return super().submit(fn, *args, key=key, home=home)
        finally:
            self._forwarding = False

    def submit_to(self, slot, fn, *args, key=""):
        if not self._forwarding:
            self.jobs.append(_job(slot, fn, args))
        return super().submit_to(slot, fn, *args, key=key)

    def signal(self, fn, *args, slots=None):
        self.signals.append([fn.__name__, _plain(args)])
        return super().signal(fn, *args, slots=slots)


def run_wall(name: str, fen: str) -> dict:
    config = wall_config(name)
    runner = TracingRunner(config.workers, client="stand-in" if name == "aspiration,race" else None)
    try:
        master = Master(runner, config.search, "golden", **config.master_options())
        r = iterate(master, config.algorithm, fen, (), DEPTH, config.tt_exchange)
        out = _parallel(r, runner)
    finally:
        drop_prefix(runner, "golden")
        runner.close()
    out.update({"jobs": runner.jobs, "signals": runner.signals})
    return out


# --- comparing -----------------------------------------------------------------------------------
def _settings() -> dict:
    return {"depth": DEPTH, "nodes": NODES, "overrun_after": OVERRUN_AFTER, "positions": list(positions()),
            "node": {name: {mode: text + added for mode, added in modes.items()}
                     for name, (text, modes) in NODE_VARIANTS.items()},
            "wall": {name: text + WALL_SEARCH for name, text in WALL_VARIANTS.items()}}


@cache
def golden() -> dict:
    if not GOLDEN.exists():
        pytest.fail(f"{GOLDEN} is missing: record it with {RECORD}")
    return json.loads(GOLDEN.read_text())


def _difference(expected: Any, got: Any) -> str:
    """Where two values differ, briefly: a list's first differing item."""
    if isinstance(expected, list) and isinstance(got, list):
        for j, (a, b) in enumerate(zip(expected, got)):
            if a != b:
                return f"item {j} of {len(expected)}: golden {a!r}, now {b!r} (now {len(got)} items)"
        extra = got[len(expected)] if len(got) > len(expected) else expected[len(got)]
        return f"golden {len(expected)} items, now {len(got)} (first extra: {extra!r})"
    return f"golden {expected!r}, now {got!r}"


def compare(case: str, expected: dict, got: dict) -> list[str]:
    """Every field of ``case`` that differs from its golden, named."""
    got = json.loads(json.dumps(got))  # tuples as lists, keys as strings: the JSON's shapes
    problems = []
    for field in sorted(set(expected) | set(got)):
        if field not in got:
            problems.append(f"{case}: {field}: golden {expected[field]!r}, now missing")
        elif field not in expected:
            problems.append(f"{case}: {field}: not in the golden, now {got[field]!r}")
        elif expected[field] != got[field]:
            problems.append(f"{case}: {field}: {_difference(expected[field], got[field])}")
    return problems


def check(section: str, case: str, got: dict) -> None:
    expected = golden()[section].get(case)
    assert expected is not None, f"{section} {case}: no golden (record with {RECORD})"
    problems = compare(f"{section} {case}", expected, got)
    assert not problems, "\n".join(problems)


def _param(case: tuple, case_id: str, slow: bool) -> Any:
    return pytest.param(*case, id=case_id.replace("|", "-"), marks=[pytest.mark.slow] if slow else [])


def _slow(name: str, mode: str, k: int, i: int) -> bool:
    """k = 16, Bratko-Kopec 2 and 3, and latency 2 but at k = 4 (a master tree of one worker at
    latency 2 is the slowest case: hundreds of slices, the tree replanned at each)."""
    return k not in FAST_KS or i >= FAST_POSITIONS or ("latency-2" in name and k != 4)


@pytest.mark.parametrize("name,mode,k,i", [_param(c, node_id(*c), _slow(*c)) for c in node_cases()])
def test_the_node_clock_is_unchanged(bk, name, mode, k, i):
    check("node", node_id(name, mode, k, i), run_node(name, mode, k, bk[i].fen))


@pytest.mark.parametrize("name,i", [_param(c, wall_id(*c), False) for c in wall_cases()])
def test_the_in_process_wall_clock_is_unchanged(bk, name, i):
    check("wall", wall_id(name, i), run_wall(name, bk[i].fen))


def test_the_goldens_hold_every_case_of_these_settings(bk):
    """The file was recorded with this module's settings and positions, and holds exactly its
    cases (a case dropped or added here must be re-recorded, not silently skipped)."""
    data = golden()
    assert data["settings"] == json.loads(json.dumps(_settings())), f"settings changed: re-record ({RECORD})"
    assert [p.fen for p in bk[:POSITIONS]] == list(positions())
    assert sorted(data["node"]) == sorted(node_id(*c) for c in node_cases())
    assert sorted(data["wall"]) == sorted(wall_id(*c) for c in wall_cases())


def test_a_difference_names_the_case_and_the_field():
    problems = compare("node pv-split+pvs|depth|k4|bk1", {"score": 10, "pv": "e2e4", "jobs": [[0, "a", 3]]},
                       {"score": 11, "pv": "e2e4", "jobs": [[0, "a", 3], [1, "b", 3]], "leaves": 2})
    assert problems == ["node pv-split+pvs|depth|k4|bk1: jobs: golden 1 items, now 2 (first extra: [1, 'b', 3])",
                        "node pv-split+pvs|depth|k4|bk1: leaves: not in the golden, now 2",
                        "node pv-split+pvs|depth|k4|bk1: score: golden 10, now 11"]


# --- recording -----------------------------------------------------------------------------------
def _dump(data: dict) -> str:
    """The goldens, one line a field: a change shows as the lines of the fields it changed."""
    def case(name: str, fields: dict) -> str:
        lines = ",\n".join(f"      {json.dumps(field)}: {json.dumps(value)}" for field, value in fields.items())
        return f"    {json.dumps(name)}: {{\n{lines}\n    }}"

    def cases(section: dict) -> str:
        return ",\n".join(case(name, fields) for name, fields in section.items())

    settings = json.dumps(data["settings"], indent=2).replace("\n", "\n  ")
    return (f'{{\n  "settings": {settings},\n  "node": {{\n{cases(data["node"])}\n  }},\n'
            f'  "wall": {{\n{cases(data["wall"])}\n  }}\n}}\n')


def record(out=print) -> dict:
    """Run every case (the slow ones too) and write ``golden.json``."""
    fens = positions()
    data: dict = {"settings": _settings(), "node": {}, "wall": {}}
    for name, mode, k, i in node_cases():
        data["node"][node_id(name, mode, k, i)] = json.loads(json.dumps(run_node(name, mode, k, fens[i])))
        out(f"node {node_id(name, mode, k, i)}")
    for name, i in wall_cases():
        data["wall"][wall_id(name, i)] = json.loads(json.dumps(run_wall(name, fens[i])))
        out(f"wall {wall_id(name, i)}")
    GOLDEN.write_text(_dump(data))
    return data


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        print(f"usage: {RECORD}", file=sys.stderr)
        sys.exit(2)
    record()
