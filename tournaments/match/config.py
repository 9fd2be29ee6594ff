"""Match files (``configs/tournaments/*.yaml``)::

    name: quick
    players:
      - {name: 3b-generalised, ensemble: 3b, selection: {criterion: weighted_majority, weights: generalised}}
      - {name: MKP, instance: MKP}
      - {name: full-6x, full: true, time_control: {nodes: 120000}}   # a player's own budget (odds)
      - {name: gnuchess, uci: [gnuchess, --uci]}
      - {name: stockfish-1500, uci: [stockfish], options: {UCI_LimitStrength: true, UCI_Elo: 1500}}
      - {name: team, player: abdada}    # any player of the catalog (ensemble.catalog): a mask, a name, a file
      - {name: lc8, decomposition: lazy-cluster, workers: 8}   # an ensemble's or decomposition's worker count
    baseline: full            # gauntlet: every other player against it (default: our full engine)
    mode: gauntlet            # or round_robin
    games: 20                 # per pairing; with a book each opening is played twice, colours swapped
    openings: {file: data:openings/8moves_v3-1000.epd, seed: 1}   # or none: the start position
    # openings: {file: ..., exclude: [data:training/selfplay-5k.epd]}  leaves out training games' openings
    time_control: {nodes: 20000, jitter: 0.1}   # or movetime (ms), depth, or {base: 60, increment: 0.5} (s)
    max_plies: 100            # then the thesis adjudication (full evaluation, one pawn = 100)
    adjudication: {draw: {moves: 10, score: 10, after: 40}, resign: {moves: 3, score: 600}}
    concurrency: 2            # games in parallel on Dask workers
    cluster: {scheduler: tcp://10.0.0.5:8786, slots: 64}   # or on a running scheduler's workers (slots: at most)
    sprt: {elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05}   # min_games: N plays on to N games once decided
    output: runs/quick
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import chess

from base.cluster import Remote, read_remote
from base.config import (ConfigError, FieldPath, YamlSource, as_mapping, check_keys, get_bool, get_int,
                         get_number, load_checked)
from base.resources import resolve_data_reference
from ensemble.catalog import PlayerSpec, entry, in_process
from evaluation.spec import CATEGORIES
from players.limits import Limit

from tournaments.games.adjudication import DrawRule, ResignRule
from tournaments.openings.books import BookEntry, read_book
from tournaments.openings.selection import OpeningSelection, opening_key, select_openings
from tournaments.records.file_lines import DataFileError
from tournaments.games.game import GameRules, GameSpec, TimeControl
from tournaments.match.players import PlayerEntry
from tournaments.training.provenance import excluded_openings

TOP_KEYS = {"name", "description", "players", "baseline", "mode", "games", "openings", "time_control",
            "max_plies", "adjudication", "concurrency", "sprt", "output", "pawn", "cluster"}
FULL = PlayerEntry("instance", "full", CATEGORIES)


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_games: int = 0  # the match goes on to at least this many games even once the test has decided


@dataclass(frozen=True)
class MatchConfig:
    name: str
    players: tuple[PlayerEntry, ...]
    baseline: str | None
    mode: str
    games: int
    openings: tuple[BookEntry, ...]  # empty: the start position
    rules: GameRules
    concurrency: int
    sprt: Sprt | None
    output: Path
    source: str
    digest: str
    openings_excluded: int = 0  # book openings left out by openings.exclude
    remote: Remote | None = None  # a running Dask scheduler the games run on (cluster:, --scheduler)

    def on_scheduler(self, remote: Remote) -> MatchConfig:
        """This match with its games on ``remote``'s workers (``ConfigError`` when a player has
        Dask workers of its own: a game on a worker cannot start a cluster)."""
        if _own_workers(self.players):
            raise ConfigError([f"{self.source}: {_OWN_WORKERS} {_NOT_REMOTE}"])
        return replace(self, remote=remote)

    def entry(self, name: str) -> PlayerEntry:
        return next(p for p in self.players if p.name == name)

    def time_control(self, name: str) -> TimeControl:
        """The player's budget: its own ``time_control`` where the file gives one, else the match's."""
        return self.entry(name).time_control or self.rules.time_control

    def describe_time_controls(self) -> str:
        """The match's budget, and every player's own where it differs (node or time odds)."""
        own = [f"{p.name}: {p.time_control.describe()}" for p in self.players
               if p.time_control is not None and p.time_control != self.rules.time_control]
        return self.rules.time_control.describe() + (f" ({'; '.join(own)})" if own else "")

    def pairings(self) -> list[tuple[str, str]]:
        """(player under test, opponent) pairs."""
        names = [p.name for p in self.players]
        if self.mode == "round_robin":
            return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        return [(n, self.baseline) for n in names if n != self.baseline]  # type: ignore[misc]

    def schedule(self) -> list[GameSpec]:
        """Every game of the match, in a fixed order (so a resumed match plays the same games).
        With openings, game 2k and 2k+1 of a pairing share opening k with colours swapped;
        without, colours alternate from the start position."""
        specs = []
        for p, (a, b) in enumerate(self.pairings()):
            for g in range(self.games):
                a_white = g % 2 == 0
                fen, moves, opening = chess.STARTING_FEN, (), ""
                if self.openings:
                    fen, moves, opening = self.openings[(g // 2) % len(self.openings)]
                specs.append(GameSpec(f"{p}-{g}", g + 1, p, a, b, a_white, fen, moves, opening))
        return specs


def load_match(path: str | Path | None = None, text: str | None = None) -> MatchConfig:
    """Read and validate a match file; ``ConfigError`` lists every problem."""
    def parse(src: YamlSource, folder: Path, given: str) -> MatchConfig | None:
        raw = text if text is not None else Path(src.name).read_text()  # src.name: the file found
        return _parse(src, folder, hashlib.sha1(raw.encode()).hexdigest()[:12], given)
    return load_checked(path, text, "tournaments", parse)


def _parse(src: YamlSource, folder: Path, digest: str, given: str) -> MatchConfig | None:
    data = src.data
    if not isinstance(data, dict):
        src.problem((), "expected a mapping")
        return None
    check_keys(src, data, (), TOP_KEYS)
    players = _players(src, data.get("players"))
    mode = data.get("mode", "gauntlet")
    if mode not in ("gauntlet", "round_robin"):
        src.problem(("mode",), f"{mode!r} is not gauntlet or round_robin")
        mode = "gauntlet"
    baseline = data.get("baseline", "full" if mode == "gauntlet" else None)
    if mode == "gauntlet":
        if baseline == "full" and not any(p.name == "full" for p in players):
            players.append(FULL)
        if not any(p.name == baseline for p in players):
            src.problem(("baseline",), f"no player named {baseline!r}")
    if len(players) < 2:
        src.problem(("players",), "a match needs at least two players")
    games = get_int(src, data, ("games",), 2, 1, 100_000) or 2
    chosen = _openings(src, data.get("openings"), folder)
    if chosen.openings and games % 2:
        src.problem(("games",), "with an opening book, games per pairing must be even (each opening twice)")
    rules = GameRules(_time_control(src, data.get("time_control")),
                      get_int(src, data, ("max_plies",), None, 1) if "max_plies" in data else None,
                      int(get_number(src, data, ("pawn",), 100, low=1)),
                      *_adjudication(src, data.get("adjudication")))
    concurrency = get_int(src, data, ("concurrency",), 1, 1, 256) or 1
    if concurrency > 1 and _own_workers(players):
        src.problem(("concurrency",), f"{_OWN_WORKERS} need concurrency: 1")
    remote = read_remote(src, data)
    if remote is not None and _own_workers(players):
        src.problem(("cluster",), f"{_OWN_WORKERS} {_NOT_REMOTE}")
    for i, p in enumerate(players):
        if (p.time_control or rules.time_control).equal_time and p.kind in ("uci", "xboard"):
            field = ("players", i, "time_control") if p.time_control else ("time_control",)
            src.problem(field + ("equal_time",), f"equal-time node budgets are for Concilio's players; {p.name} is "
                                                 "an external engine, and an external engine's nodes are not "
                                                 "comparable: use movetime")
    sprt = _sprt(src, data.get("sprt"))
    name = str(data.get("name", Path(src.name).stem))
    output = Path(str(data.get("output", f"runs/{name}")))  # under the current directory
    return MatchConfig(name, tuple(players), baseline, mode, games, chosen.openings, rules, concurrency, sprt,
                       output, given, digest, chosen.excluded, remote)


_OWN_WORKERS = ("players with their own Dask workers (decomposition or cascade without in_process, distributed "
                "ensembles)")
_NOT_REMOTE = "cannot play on a scheduler's workers (a game there cannot start a cluster of its own)"


def _own_workers(players) -> bool:
    return any(p.inline is False or not in_process(p) for p in players)


def _players(src: YamlSource, value: Any) -> list[PlayerEntry]:
    if not isinstance(value, list) or not value:
        src.problem(("players",), "expected a list of players")
        return []
    out: list[PlayerEntry] = []
    for i, item in enumerate(value):
        path: FieldPath = ("players", i)
        data = as_mapping(src, item, path)
        if data is None:
            continue
        timeout = float(get_number(src, data, path + ("timeout",), 10.0, low=0.1))
        spec = entry(src, data, path, timeout)
        if spec is None:
            continue
        if any(p.name == spec.name for p in out):
            src.problem(path + ("name",), f"two players are named {spec.name!r}")
            continue
        own_tc = _time_control(src, data["time_control"], path + ("time_control",)) if "time_control" in data else None
        out.append(PlayerEntry(**{f: getattr(spec, f) for f in PlayerSpec.__dataclass_fields__}, time_control=own_tc))
    return out


def _openings(src: YamlSource, value: Any, folder: Path) -> OpeningSelection:
    """The ``openings`` section: the book's openings the match plays, in its seeded order
    (``tournaments.openings.selection``)."""
    none = OpeningSelection(())
    if value in (None, "none", False):
        return none
    data = as_mapping(src, value, ("openings",))
    if data is None:
        return none
    check_keys(src, data, ("openings",), {"file", "seed", "limit", "exclude"})
    if "file" not in data:
        src.problem(("openings",), "missing 'file' (an EPD or PGN book), or write openings: none")
        return none
    file = str(data["file"])
    resolved = resolve_data_reference(file, folder)
    if resolved is None:
        src.problem(("openings", "file"), f"no such file: {file}")
        return none
    seed = get_int(src, data, ("openings", "seed"), 1, 0)
    limit = get_int(src, data, ("openings", "limit"), None, 1)
    try:
        book = read_book(resolved)
    except DataFileError as exc:
        src.problem(("openings", "file"), str(exc))
        return none
    excluded = _excluded(src, data.get("exclude", []), folder)
    chosen = select_openings(book, seed, limit, excluded)
    if excluded and chosen.excluded == len(book):
        src.problem(("openings", "exclude"), f"every opening of {file} is excluded")
    return chosen


def _excluded(src: YamlSource, value: Any, folder: Path) -> set[str]:
    """The positions ``openings.exclude`` names: the openings of training sets (so that a
    choice made on them is judged on openings no training game started from) or of books."""
    files = [value] if isinstance(value, str) else value
    if not isinstance(files, list):
        src.problem(("openings", "exclude"), "expected a file or a list of files (training sets, label stores, books)")
        return set()
    keys: set[str] = set()
    for i, file in enumerate(files):
        resolved = resolve_data_reference(str(file), folder)
        if resolved is None:
            src.problem(("openings", "exclude", i), f"no such file: {file}")
            continue
        try:
            keys |= excluded_openings(resolved)
        except ValueError as exc:  # a bad book or a training set without its openings
            src.problem(("openings", "exclude", i), str(exc))
    return keys


def _time_control(src: YamlSource, value: Any, path: FieldPath = ("time_control",)) -> TimeControl:
    data = as_mapping(src, value, path)
    if data is None:
        src.problem(path, "expected a time control: {nodes: N}, {movetime: MS}, {depth: D} or {base: S, increment: S}")
        return TimeControl(Limit(nodes=1000))
    check_keys(src, data, path, {"nodes", "movetime", "depth", "base", "increment", "jitter", "equal_time"})
    fixed = [k for k in ("nodes", "movetime", "depth") if k in data]
    if len(fixed) + ("base" in data) != 1:
        src.problem(path, "give exactly one of nodes, movetime, depth, or a clock base (+ increment)")
        return TimeControl(Limit(nodes=1000))
    if "base" in data:
        base = get_number(src, data, path + ("base",), 60.0, low=0.1)
        inc = get_number(src, data, path + ("increment",), 0.0, low=0)
        return TimeControl(base=base, increment=inc)
    if "increment" in data:
        src.problem(path + ("increment",), "an increment needs a clock base")
    key = fixed[0]
    amount = get_int(src, data, path + (key,), 1, 1)
    jitter = get_number(src, data, path + ("jitter",), 0.0, low=0)
    if jitter and (key != "nodes" or jitter >= 1):
        src.problem(path + ("jitter",), "jitter varies a node budget by a share below 1")
        jitter = 0.0
    equal_time = get_bool(src, data, path + ("equal_time",), False)
    if equal_time and key != "nodes":
        src.problem(path + ("equal_time",), "equal_time scales a node budget: give nodes")
    return TimeControl(Limit(**{key: amount}, equal_time=equal_time), jitter=jitter)


def _adjudication(src: YamlSource, value: Any) -> tuple[DrawRule | None, ResignRule | None]:
    path: FieldPath = ("adjudication",)
    data = as_mapping(src, value, path)
    if data is None:
        return None, None
    check_keys(src, data, path, {"draw", "resign"})
    draw = resign = None
    if "draw" in data:
        d = as_mapping(src, data["draw"], path + ("draw",)) or {}
        check_keys(src, d, path + ("draw",), {"moves", "score", "after"})
        draw = DrawRule(get_int(src, d, path + ("draw", "moves"), 10, 1), get_int(src, d, path + ("draw", "score"), 10, 0),
                        get_int(src, d, path + ("draw", "after"), 40, 0))
    if "resign" in data:
        r = as_mapping(src, data["resign"], path + ("resign",)) or {}
        check_keys(src, r, path + ("resign",), {"moves", "score"})
        resign = ResignRule(get_int(src, r, path + ("resign", "moves"), 3, 1),
                            get_int(src, r, path + ("resign", "score"), 600, 1))
    return draw, resign


def _sprt(src: YamlSource, value: Any) -> Sprt | None:
    path: FieldPath = ("sprt",)
    data = as_mapping(src, value, path)
    if data is None:
        return None
    check_keys(src, data, path, {"elo0", "elo1", "alpha", "beta", "min_games"})
    if "elo0" not in data or "elo1" not in data:
        src.problem(path, "give elo0 and elo1")
        return None
    elo0 = get_number(src, data, path + ("elo0",), 0.0, low=-1000)
    elo1 = get_number(src, data, path + ("elo1",), 10.0, low=-1000)
    alpha = get_number(src, data, path + ("alpha",), 0.05, low=1e-6)
    beta = get_number(src, data, path + ("beta",), 0.05, low=1e-6)
    if elo1 <= elo0:
        src.problem(path + ("elo1",), "elo1 must be greater than elo0")
    if not (alpha < 0.5 and beta < 0.5):
        src.problem(path, "alpha and beta must be below 0.5")
    min_games = get_int(src, data, path + ("min_games",), 0, 0) or 0
    return Sprt(elo0, elo1, alpha, beta, min_games)


def played_openings(match: Path) -> list[str]:
    """The distinct openings a match config plays, as position keys, in the order played."""
    keys: dict[str, None] = {}
    for spec in load_match(match).schedule():
        keys.setdefault(opening_key(spec.opening_fen, spec.opening_moves))
    return list(keys)
