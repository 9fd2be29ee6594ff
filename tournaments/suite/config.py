"""Suite-run files (``configs/suites/*.yaml``): which test suites, which players,
which budget, which selection criteria, where the store and the report go::

    suites:
      - {path: data:suites/wac.epd}
      - {path: data:suites/sts-1-10.epd, every: 2}   # or first: N; role: explore | choose | confirm
    players:
      ensembles: [3a, 3b]          # files in configs/ensembles, or paths
      instances: [MB, MX, MBXK]    # single instances, scored as engines
      full: true                   # the full engine (also the McNemar reference)
    budget: {nodes: 20000}         # or movetime (ms; not reproducible across machines)
    full_at_total: true            # each ensemble of k instances also beside the full engine at k x N nodes
    criteria: [majority, {criterion: weighted_majority, weights: simple}, learned]
    learn:                         # train the learned criterion on these suites (never a confirm suite)
      suites: [train]
      players: [3b, 6b]            # whose decisions it learns from (default: every ensemble)
      model: models/selection.json
    store: results/thesis.sqlite   # relative to the repository root
    report: reports/thesis
    workers: 2
    cluster: {scheduler: tcp://10.0.0.5:8786}   # or search on a running scheduler's workers (slots: N, at most)

Paths of suites are relative to the config file's folder, then to the repository.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from base.cluster import Remote, read_remote
from base.config import (ConfigError, FieldPath, YamlSource, as_mapping, check_keys, get_bool, get_int,
                         load_checked)
from base.resources import resolve_data_reference
from ensemble.config import EnsembleConfig, InstanceConfig, default_label, load_ensemble, resolve_model
from ensemble.selection import CRITERIA, SelectionError, check_params
from evaluation.spec import FULL_ENGINE, EvalSpec, EvalSpecError

TOP_KEYS = {"name", "description", "suites", "players", "budget", "criteria", "store", "report", "workers",
            "margin_probe", "learn", "full_at_total", "cluster"}
LEARN_KEYS = {"suites", "players", "model"}
SUITE_KEYS = {"path", "name", "first", "every", "role"}
# What a suite is for: exploring, choosing players and criteria, or confirming a choice made
# elsewhere.  Each role is its own family when p-values are adjusted.
ROLES = ("explore", "choose", "confirm")
PLAYER_KEYS = {"ensembles", "instances", "full"}
FULL_LABEL = "(MBXKPAR)"


def total_label(nodes: int) -> str:
    """The full engine searching ``nodes`` in one search: the reference of an ensemble that
    spends as many over its instances (``(MBXKPAR) @80000``; ``x4`` would read as four copies)."""
    return f"{FULL_LABEL} @{nodes}"


@dataclass(frozen=True)
class SuiteSource:
    path: Path
    name: str
    first: int | None = None
    every: int | None = None
    role: str = "explore"


@dataclass(frozen=True)
class PlayerSpec:
    """A player of the suite run: an ensemble (several instances, criteria apply) or a
    single engine (one instance: its move is its answer)."""

    name: str
    instances: tuple[InstanceConfig, ...]
    nodes: int | None = None  # a node budget of its own (the full engine at an ensemble's total); None: the run's

    @property
    def is_single(self) -> bool:
        return len(self.instances) == 1


@dataclass(frozen=True)
class CriterionSpec:
    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        extra = {k: v for k, v in self.params.items() if k != "seed" and CRITERIA[self.name].params.get(k) != v}
        shown = {k: (Path(str(v)).name if k == "model" else v) for k, v in extra.items()}
        return self.name + ("(" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")" if extra else "")


@dataclass(frozen=True)
class LearnConfig:
    """Train the learned criterion in this run: on which suites, from whose decisions,
    and where the model goes (under the current directory)."""

    suites: tuple[str, ...]
    players: tuple[str, ...]
    model: Path


@dataclass(frozen=True)
class SuiteRunConfig:
    name: str
    suites: tuple[SuiteSource, ...]
    players: tuple[PlayerSpec, ...]
    budget: dict[str, int]
    criteria: tuple[CriterionSpec, ...]
    store: Path
    report: Path
    workers: int
    margin_probe: bool
    source: str = ""
    learn: LearnConfig | None = None
    full_at_total: bool = True
    remote: Remote | None = None  # a running Dask scheduler phase 1 searches on (cluster:, --scheduler)

    @property
    def budget_key(self) -> str:
        """What the store keys a search by besides position and instance: the budget and
        the engine (``base.fingerprint``), so that a changed engine searches afresh."""
        return self.key_for(self.budget)

    def key_for(self, budget: dict[str, int]) -> str:
        """``budget_key`` for another budget (a player's own: ``PlayerSpec.nodes``)."""
        from base.fingerprint import engine_fingerprint
        (kind, amount), = budget.items()
        return f"{kind}={amount}" + (" probe" if self.margin_probe else "") + f" engine={engine_fingerprint()}"

    def player_budget(self, player: PlayerSpec) -> dict[str, int]:
        return self.budget if player.nodes is None else {"nodes": player.nodes}

    def total_reference(self, player: PlayerSpec) -> PlayerSpec | None:
        """The full engine at ``player``'s total nodes, k × N for an ensemble of k instances at
        N each: the same compute in one search, so that an ensemble's gain is not just its
        k-fold budget.  None for a single instance, with ``full_at_total: false``, and with a
        movetime or depth budget (a movetime is each instance's wall time, not a compute total)."""
        if player.is_single or not self.full_at_total or set(self.budget) != {"nodes"}:
            return None
        total = len(player.instances) * self.budget["nodes"]
        return PlayerSpec(total_label(total), (InstanceConfig.of(FULL_LABEL, FULL_ENGINE),), total)

    def total_references(self) -> tuple[PlayerSpec, ...]:
        """The full engine at each distinct total the run's ensembles spend (searched and scored
        as single players of their own)."""
        found = (self.total_reference(p) for p in self.players)
        return tuple({r.nodes: r for r in found if r is not None}.values())

    def instances(self) -> dict[str, InstanceConfig]:
        """Distinct instances of all players, keyed by ``instance_key`` (searched once each)."""
        out: dict[str, InstanceConfig] = {}
        for player in self.players:
            for inst in player.instances:
                out.setdefault(instance_key(inst), inst)
        return out


def instance_key(inst: InstanceConfig) -> str:
    """What makes two instances search identically: mask, weights, search options.
    (Labels do not matter: ``(MB)`` of player 3a is ``(MB)`` of player 3c.)"""
    o = inst.searcher
    weights = ",".join(f"{w:g}" for w in inst.spec.weights)
    return (f"{inst.spec.letters}|w={weights}|asp={o.aspiration},null={int(o.null_move)},lmr={int(o.lmr)},"
            f"fut={int(o.futility)},cap={o.depth_cap or '-'}|hash={inst.hash_mb:g}"
            + (f"|threads={inst.threads}" if inst.threads > 1 else ""))


def load_suite(path: str | Path | None = None, text: str | None = None) -> SuiteRunConfig:
    return load_checked(path, text, "suites", _parse)


def _parse(src: YamlSource, folder: Path, given: str) -> SuiteRunConfig | None:
    data = src.data
    if not isinstance(data, dict):
        src.problem((), "expected a mapping")
        return None
    check_keys(src, data, (), TOP_KEYS)
    suites = _suites(src, data.get("suites"), folder)
    players = _players(src, data.get("players"))
    budget = _budget(src, data.get("budget"))
    criteria = _criteria(src, data.get("criteria", ["majority"]))
    learn = _learn(src, data.get("learn"), suites, players) if "learn" in data else None
    for i, crit in enumerate(criteria):
        if crit.name in ("learned", "dynamic") and crit.params.get("model") is None and learn is None:
            src.problem(("criteria", i), f"{crit.name}: give model: FILE, or a learn block that trains one in this run")
    workers = get_int(src, data, ("workers",), 2, 1, 512) or 2
    name = str(data.get("name", Path(src.name).stem))
    probe_default = any(CRITERIA[c.name].needs_margin for c in criteria)
    margin_probe = get_bool(src, data, ("margin_probe",), probe_default)
    if probe_default and not margin_probe:
        src.problem(("margin_probe",), "the confidence criterion needs the margin probe")
    # Outputs go under the current directory, never beside an installed config.
    store = Path(str(data.get("store", f"results/{name}.sqlite")))
    report = Path(str(data.get("report", f"reports/{name}")))
    full_at_total = get_bool(src, data, ("full_at_total",), True)
    return SuiteRunConfig(name, tuple(suites), tuple(players), budget, tuple(criteria), store, report, workers,
                          margin_probe, given, learn, full_at_total, read_remote(src, data))


def _learn(src: YamlSource, value: Any, suites: list[SuiteSource], players: list[PlayerSpec]) -> LearnConfig | None:
    path: FieldPath = ("learn",)
    data = as_mapping(src, value, path)
    if data is None:
        return None
    check_keys(src, data, path, LEARN_KEYS)
    names = _names(src, data.get("suites"), path + ("suites",))
    roles = {s.name: s.role for s in suites}
    for name in names:
        if name not in roles:
            src.problem(path + ("suites",), f"no suite named {name!r} in this run (suites: {', '.join(roles)})")
        elif roles[name] == "confirm":
            src.problem(path + ("suites",), f"suite {name!r} confirms choices: it cannot also train the model")
    if not names:
        src.problem(path + ("suites",), "name the suites to train on")
    chosen = _names(src, data.get("players", []), path + ("players",)) if "players" in data else []
    ensembles = {p.name for p in players if not p.is_single}
    for name in chosen:
        if name not in ensembles:
            src.problem(path + ("players",), f"no ensemble named {name!r} in this run")
    if not ensembles:
        src.problem(path, "the learned criterion learns from ensembles; this run has none")
    model = Path(str(data.get("model", f"models/{src.name and Path(src.name).stem or 'selection'}.json")))
    if model.suffix != ".json":
        src.problem(path + ("model",), f"the trained model is saved as plain JSON: name it FILE.json, not {model}")
    return LearnConfig(tuple(names), tuple(chosen), model)


def _names(src: YamlSource, value: Any, path: FieldPath) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
        src.problem(path, "expected a list of names")
        return []
    return [str(v) for v in value]


def _suites(src: YamlSource, value: Any, folder: Path, key: str = "suites",
            role: str | None = None) -> list[SuiteSource]:
    """The suites listed under ``key``; ``role``, when given, is every suite's role."""
    if not isinstance(value, list) or not value:
        src.problem((key,), "expected a non-empty list of suites ({path: file.epd})")
        return []
    out = []
    for i, item in enumerate(value):
        source = suite_source(src, item, (key, i), folder, SUITE_KEYS if role is None else SUITE_KEYS - {"role"})
        if source is not None:
            out.append(source if role is None else replace(source, role=role))
    return out


def suite_source(src: YamlSource, item: Any, path: FieldPath, folder: Path,
                 allowed: set[str] = SUITE_KEYS) -> SuiteSource | None:
    """One suite entry (a path, or {path, name, first, every, role}); None if unusable."""
    if isinstance(item, str):
        item = {"path": item}
    data = as_mapping(src, item, path)
    if data is None:
        return None
    check_keys(src, data, path, allowed)
    if "path" not in data:
        src.problem(path, "missing 'path'")
        return None
    file = str(data["path"])
    resolved = resolve_data_reference(file, folder)
    if resolved is None:
        src.problem(path + ("path",), f"no such file: {file}")
        return None
    first = get_int(src, data, path + ("first",), None, 1)
    every = get_int(src, data, path + ("every",), None, 1)
    role = str(data.get("role", "explore"))
    if role not in ROLES:
        src.problem(path + ("role",), f"role {role!r} is not one of {', '.join(ROLES)}")
    return SuiteSource(resolved, str(data.get("name", resolved.stem)), first, every, role)


def ensemble_players(src: YamlSource, names: Any, path: FieldPath) -> list[PlayerSpec]:
    """The ensembles named in a list (files in configs/ensembles, or paths)."""
    if names is None:
        return []
    if not isinstance(names, list):
        src.problem(path, "expected a list of ensemble names")
        return []
    players: list[PlayerSpec] = []
    for i, name in enumerate(names):
        try:
            config: EnsembleConfig = load_ensemble(str(name))
        except ConfigError as exc:
            src.problem(path + (i,), f"ensemble {name!r}: " + "; ".join(exc.problems))
            continue
        players.append(PlayerSpec(config.name, config.instances))
    return players


def _players(src: YamlSource, value: Any) -> list[PlayerSpec]:
    data = as_mapping(src, value, ("players",))
    if data is None:
        src.problem(("players",), "expected players: {ensembles: [...], instances: [...], full: true}")
        return []
    check_keys(src, data, ("players",), PLAYER_KEYS)
    players = ensemble_players(src, data.get("ensembles", []), ("players", "ensembles"))
    for i, mask in enumerate(data.get("instances", []) or []):
        path = ("players", "instances", i)
        try:
            spec = EvalSpec.parse(mask)
        except EvalSpecError as exc:
            src.problem(path, str(exc))
            continue
        label = default_label(spec)
        players.append(PlayerSpec(label, (InstanceConfig.of(label, spec),)))
    if get_bool(src, data, ("players", "full"), True) and not any(p.name == FULL_LABEL for p in players):
        players.append(PlayerSpec(FULL_LABEL, (InstanceConfig.of(FULL_LABEL, FULL_ENGINE),)))
    if not players:
        src.problem(("players",), "no players")
    return players


def _budget(src: YamlSource, value: Any) -> dict[str, int]:
    data = as_mapping(src, value, ("budget",))
    if data is None:
        src.problem(("budget",), "expected a budget: {nodes: N} or {movetime: MS}")
        return {"nodes": 1}
    check_keys(src, data, ("budget",), {"nodes", "movetime"})
    if len(data) != 1:
        src.problem(("budget",), "give exactly one of nodes or movetime")
        return {"nodes": 1}
    key = next(iter(data))
    amount = get_int(src, data, ("budget", key), None, 1)
    return {key: amount or 1}


def _criteria(src: YamlSource, value: Any) -> list[CriterionSpec]:
    if not isinstance(value, list) or not value:
        src.problem(("criteria",), "expected a non-empty list of selection criteria")
        return []
    out = []
    for i, item in enumerate(value):
        path: FieldPath = ("criteria", i)
        if isinstance(item, str):
            item = {"criterion": item}
        data = as_mapping(src, item, path)
        if data is None:
            continue
        name = data.get("criterion")
        params = {k: v for k, v in data.items() if k != "criterion"}
        try:
            merged = check_params(str(name), params)
        except SelectionError as exc:
            src.problem(path, str(exc))
            continue
        if name in ("learned", "dynamic") and merged.get("model") is not None:
            found = resolve_model(src, merged["model"], path + ("model",), str(name), bool(merged.get("allow_pickle")))
            if found is None:
                continue
            merged["model"] = found
        out.append(CriterionSpec(str(name), merged))
    return out
