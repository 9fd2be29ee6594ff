"""Sweep files (``configs/scaling/*.yaml``): many ways of spending k workers, each against the
full engine at N nodes, at several k::

    name: scaling
    nodes: 10000              # N: the baseline's budget and each worker's
    workers: [2, 4, 8, 16]    # the k of the sweep
    games: 400                # per point: 200 opening pairs, colours swapped
    openings: {file: data:openings/sf-multipv-16plies-1000.epd, seed: 43,
               exclude: [data:training/selfplay-5k.epd]}
    max_plies: 200
    adjudication: {draw: {moves: 10, score: 10, after: 80}, resign: {moves: 3, score: 800}}
    concurrency: 2            # games at once (every arm's player runs inside its game)
    cluster: {scheduler: tcp://10.0.0.5:8786}   # or the games on a running scheduler's workers (slots: N, at most)
    output: runs/scaling      # a point's games in OUTPUT/ARM-K/
    archive: data/games/sweep       # the committed copy of the games (``concilio scaling archive``)
    arms:
      F: {label: full engine at k × N, player: full, budget: total}
      L: {label: lazy cluster, player: lazy-cluster-in-process, workers: k, budget: per_worker}
      C: {label: consultation, player: {2: consult-2, 4: consult-4}, budget: per_worker}

An arm's ``player`` is any catalog name (``ensemble.catalog``), or a mapping from k to one
(a point the mapping lacks is not played); ``workers: k`` gives the player k workers;
``budget`` is ``total`` (k × N nodes for the whole player: one search, or a team over one
shared table) or ``per_worker`` (N for each worker, k × N in all); ``equal_time: true`` scales
each worker's N by its measured speed (``players.speed``); ``from: 2`` plays no point below
k = 2 (where the arm's player would be the baseline itself); ``variant_of: S`` marks an arm as
another arm's algorithm under another rule, a pair no duel is played for; ``way`` says how the
arm spends its workers (one of ``WAYS``), which the comparison across budgets groups by.

Why a file of its own rather than one match file per point: the points must share every rule
(openings, adjudication, N) so that they are comparable, and one place says which player
stands for which arm at which k.  Each point *is* an ordinary match (``point_match``), played
and resumed by ``tournaments.match``.
"""
from __future__ import annotations

import re

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from base.cluster import Remote, read_remote
from base.config import (ConfigError, FieldPath, YamlSource, as_mapping, check_keys, get_bool, get_int,
                         load_checked)
from ensemble.catalog import describe
from evaluation.spec import EvalSpecError
from tournaments.match.config import MatchConfig, load_match

TOP_KEYS = {"name", "description", "ceiling", "nodes", "workers", "games", "openings", "max_plies", "adjudication",
            "concurrency", "output", "archive", "arms", "cluster"}
ARM_KEYS = {"label", "player", "workers", "budget", "equal_time", "from", "variant_of", "way"}
# How an arm spends its k workers, for comparing budgets (``tournaments.scaling.budgets``): the
# ceiling, a decomposition over one shared memory, one whose workers share none (message passing),
# or an ensemble of instances that differ in knowledge.
WAYS = ("ceiling", "shared_memory", "message_passing", "ensemble")
BUDGETS = ("total", "per_worker")
DUEL_GAMES = 2000  # the most a duel plays; the SPRT usually stops it long before
DUEL_SPRT = {"elo0": 0, "elo1": 20, "alpha": 0.05, "beta": 0.05, "min_games": 400}
PER_POINT = ("games", "openings", "max_plies", "adjudication", "concurrency")  # copied into every point's match


@dataclass(frozen=True)
class Arm:
    """One way of spending k workers."""

    key: str  # F, S, L, C, D, H
    label: str
    players: tuple[tuple[int, str], ...]  # (k, catalog name); k = 0: every k
    set_workers: bool = False  # the player gets k workers
    budget: str = "per_worker"
    equal_time: bool = False
    first: int = 1  # no point below this k (at k = 1 most arms are the baseline itself)
    variant_of: str | None = None  # the same algorithm under another rule (A: S at its whole budget): no duel
    way: str | None = None  # one of WAYS, or None: left out of the comparison across budgets

    def player(self, k: int) -> str | None:
        """The catalog name that stands for this arm at k workers (None: no point at k)."""
        if k < self.first:
            return None
        found = dict(self.players)
        return found.get(k, found.get(0))

    def nodes(self, k: int, n: int) -> int:
        """The node budget of the arm's player at k: per move for the whole player, or per worker."""
        return k * n if self.budget == "total" else n


@dataclass(frozen=True)
class SweepConfig:
    name: str
    nodes: int
    workers: tuple[int, ...]
    arms: tuple[Arm, ...]
    output: Path
    common: dict  # the match keys every point shares (PER_POINT)
    source: str
    ceiling: str | None = None  # the arm whose gain the others are measured against (perfect parallelism)
    archive: Path = Path("data/games/sweep")  # the committed copy of the games, relative to the repository
    remote: Remote | None = None  # a running Dask scheduler the games run on (cluster:, --scheduler); kept out
    # of the points' match files, so that a point played there has the same config hash as one played here

    def arm(self, key: str) -> Arm:
        for a in self.arms:
            if a.key == key:
                return a
        raise ConfigError([f"{self.source}: no arm {key!r}; the arms are {', '.join(a.key for a in self.arms)}"])

    def points(self, arms: tuple[str, ...] = (), workers: tuple[int, ...] = ()) -> list[tuple[Arm, int]]:
        """(arm, k) of every point the file defines, k by k (so that a sweep stopped part way has
        every arm at the smaller k), restricted to ``arms`` and ``workers`` where given."""
        chosen = [self.arm(a) for a in arms] if arms else list(self.arms)
        ks = workers or self.workers
        return [(arm, k) for k in ks for arm in chosen if arm.player(k) is not None]

    def folder(self, arm: Arm, k: int) -> Path:
        return self.output / f"{arm.key}-{k}"

    def entry(self, arm: Arm, k: int) -> dict[str, Any]:
        """The point (arm, k)'s player as a match entry: its name (``D4``), catalog player and budget."""
        name = arm.player(k)
        if name is None:
            raise ConfigError([f"{self.source}: arm {arm.key} has no player at k = {k}"])
        entry: dict[str, Any] = {"name": f"{arm.key}{k}", "player": name,
                                 "time_control": {"nodes": arm.nodes(k, self.nodes), "equal_time": arm.equal_time}}
        if arm.set_workers:
            entry["workers"] = k
        return entry

    def point_match(self, arm: Arm, k: int) -> MatchConfig:
        """The match that is the point (arm, k): the arm's player against the full engine at N."""
        data = {"name": f"{self.name}-{arm.key}-{k}",
                "description": f"{arm.label}, k = {k} ({self.source})",
                "players": [self.entry(arm, k)], "baseline": "full", "time_control": {"nodes": self.nodes},
                "output": str(self.folder(arm, k)), **self.common}
        return load_match(text=yaml.safe_dump(data, sort_keys=False))

    def duel_folder(self, first: str, second: str) -> Path:
        return self.output / "duels" / f"{first}-vs-{second}"

    def duel_match(self, first: str, second: str) -> MatchConfig:
        """Two points whose intervals overlap, settled directly (``D4``, ``L4``): the first's player
        against the second's, each at its own point's budget, on the sweep's openings, until the
        SPRT decides (H0: the first is no stronger; H1: it is ``DUEL_SPRT['elo1']`` Elo stronger)."""
        entries = [self.entry(*self.parse_point(p)) for p in (first, second)]
        if entries[0]["name"] == entries[1]["name"]:
            raise ConfigError([f"{self.source}: a duel needs two different points, not {first} twice"])
        data = {"name": f"{self.name}-duel-{first}-{second}",
                "description": f"{first} against {second}, each at its point's budget ({self.source})",
                "players": entries, "baseline": entries[1]["name"], "time_control": {"nodes": self.nodes},
                "output": str(self.duel_folder(first, second)), **self.common,
                "games": DUEL_GAMES, "sprt": dict(DUEL_SPRT)}
        return load_match(text=yaml.safe_dump(data, sort_keys=False))

    def parse_point(self, text: str) -> tuple[Arm, int]:
        """``D4`` -> (arm D, 4)."""
        found = re.fullmatch(r"([A-Za-z]+)(\d+)", text.strip())
        if found is None:
            raise ConfigError([f"{self.source}: {text!r} is not a point: an arm and a worker count, like D4"])
        arm, k = self.arm(found.group(1).upper()), int(found.group(2))
        if arm.player(k) is None:
            raise ConfigError([f"{self.source}: arm {arm.key} has no player at k = {k}"])
        return arm, k

    def variants(self) -> set[frozenset[str]]:
        """Pairs of arm keys that are one algorithm (``variant_of``): no duel between them."""
        return {frozenset((a.key, a.variant_of)) for a in self.arms if a.variant_of}

    def duels(self) -> list[tuple[str, str]]:
        """The duels played so far (their folders), in name order."""
        root = self.output / "duels"
        names = sorted(d.name for d in root.iterdir() if d.is_dir()) if root.is_dir() else []
        return [tuple(n.split("-vs-", 1)) for n in names if "-vs-" in n]  # type: ignore[misc]


def load_sweep(path: str | Path | None = None, text: str | None = None) -> SweepConfig:
    """Read and validate a sweep file; ``ConfigError`` lists every problem, with its line."""
    def parse(src: YamlSource, folder: Path, given: str) -> SweepConfig | None:
        return _parse(src, given)
    return load_checked(path, text, "scaling", parse)


def _parse(src: YamlSource, given: str) -> SweepConfig | None:
    data = src.data
    if not isinstance(data, dict):
        src.problem((), "expected a mapping")
        return None
    check_keys(src, data, (), TOP_KEYS)
    nodes = get_int(src, data, ("nodes",), 10_000, 1) or 10_000
    workers = data.get("workers", [1, 2, 4, 8, 16])
    if not (isinstance(workers, list) and workers and all(isinstance(k, int) and k >= 1 for k in workers)):
        src.problem(("workers",), "expected a list of worker counts (integers >= 1)")
        workers = []
    for key in ("games", "max_plies", "concurrency"):
        if key in data:
            get_int(src, data, (key,), 1, 1)
    arms_data = as_mapping(src, data.get("arms"), ("arms",)) or {}
    if not arms_data:
        src.problem(("arms",), "expected at least one arm: {KEY: {label, player, budget}}")
    arms = [a for key, value in arms_data.items() if (a := _arm(src, str(key), value, workers)) is not None]
    common = {k: data[k] for k in PER_POINT if k in data}
    name = str(data.get("name", Path(src.name).stem))
    if src.problems:
        return None
    keys = [a.key for a in arms]
    for a in arms:
        if a.variant_of is not None and a.variant_of not in keys:
            src.problem(("arms", a.key, "variant_of"), f"{a.variant_of!r} is not one of the arms {', '.join(keys)}")
    if src.problems:
        return None
    ceiling = data.get("ceiling", "F" if "F" in keys else None)
    if ceiling is not None and ceiling not in keys:
        src.problem(("ceiling",), f"{ceiling!r} is not one of the arms {', '.join(keys)}")
        return None
    sweep = SweepConfig(name, nodes, tuple(workers), tuple(arms), Path(str(data.get("output", f"runs/{name}"))),
                        common, given, ceiling, Path(str(data.get("archive", "data/games/sweep"))),
                        read_remote(src, data))
    points = sweep.points()
    try:  # the shared match keys are checked once, as the match reader checks them
        if points:
            sweep.point_match(*points[0])
    except ConfigError as exc:
        for problem in exc.problems:
            src.problem((), problem.replace("<text>", "a point's match"))
    return sweep


def _arm(src: YamlSource, key: str, value: Any, workers: list[int]) -> Arm | None:
    path: FieldPath = ("arms", key)
    data = as_mapping(src, value, path)
    if data is None:
        return None
    check_keys(src, data, path, ARM_KEYS)
    raw = data.get("player")
    players: list[tuple[int, str]] = []
    if isinstance(raw, str):
        players.append((0, raw))
    elif isinstance(raw, dict) and raw:
        for k, name in raw.items():
            if not isinstance(k, int) or k < 1 or not isinstance(name, str):
                src.problem(path + ("player", k), "expected k: a player's name (k a worker count)")
                continue
            if k not in workers:
                src.problem(path + ("player", k), f"k = {k} is not among the sweep's workers {workers}")
            players.append((k, name))
    else:
        src.problem(path + ("player",), "expected a player's name, or a mapping from k to one")
    for k, name in players:
        try:
            spec = describe(name)
        except (ConfigError, EvalSpecError) as exc:
            where = path + ("player",) + ((k,) if k else ())
            src.problem(where, "; ".join(getattr(exc, "problems", [str(exc)])))
            continue
        if data.get("workers") == "k" and spec.kind not in ("ensemble", "decomposition"):
            src.problem(path + ("workers",), f"{name} is an {spec.kind}: only ensembles and decomposition players "
                                             "have workers")
    if data.get("workers", "k") != "k":
        src.problem(path + ("workers",), "the only value is k (the player gets the point's k workers)")
    budget = data.get("budget", "per_worker")
    if budget not in BUDGETS:
        src.problem(path + ("budget",), f"{budget!r} is not one of {', '.join(BUDGETS)}")
    first = get_int(src, data, path + ("from",), 1, 1) or 1
    variant_of = data.get("variant_of")
    if variant_of is not None and (not isinstance(variant_of, str) or variant_of == key):
        src.problem(path + ("variant_of",), "expected another arm's key")
        variant_of = None
    way = data.get("way")
    if way is not None and way not in WAYS:
        src.problem(path + ("way",), f"{way!r} is not one of {', '.join(WAYS)}")
        way = None
    return Arm(key, str(data.get("label", key)), tuple(players), "workers" in data, str(budget),
               get_bool(src, data, path + ("equal_time",), False), first, variant_of, way)
