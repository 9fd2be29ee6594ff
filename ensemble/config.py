"""Ensemble files: which instances, how they search, how the move is selected,
the budget and the cluster.  ``load_ensemble`` validates everything at once and
reports every problem with file, line and field path.

A file either lists its instances::

    instances:
      - mask: MBXP                 # letters or the 7-bit integer
        weights: {B: 1.5}          # optional, by letter or a list of seven
        search: {aspiration: 50, null_move: false, depth_cap: 12}

or generates them (or both: generated instances come first)::

    distribution: {criterion: balanced, n: 3, order: MBXKPAR, seed: 1}

and then::

    selection: {criterion: weighted_majority, weights: generalised}
    budget: {movetime: 1000, budget_mode: per_instance}
    cluster: {workers: 3}          # or {scheduler: tcp://10.0.0.5:8786}
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from base.cluster import SCHEDULER_ADDRESS
from base.resources import resolve_data_reference
from evaluation.spec import CATEGORIES, EvalSpec, EvalSpecError
from players.limits import Limit
from players.player import COORDINATED_OVERHEAD_MS, Settings
from players.searcher_spec import DEFAULT_ASPIRATION, SearcherSpec
from players.speed import equal_time

from ensemble.calibration import load_calibration
from ensemble.routing import load_gate
from ensemble.distribution import CRITERIA as DISTRIBUTION_CRITERIA
from ensemble.distribution import MASK_CRITERIA, DistributionError, distribute, player_notation
from ensemble.dynamic import DynamicModelError, load_weights
from ensemble.model_file import LearnedModelError, load_model
from ensemble.selection import CRITERIA as SELECTION_CRITERIA
from ensemble.selection import SelectionError, check_params
from base.config import (
    FieldPath,
    YamlSource,
    as_mapping,
    check_keys,
    check_kind,
    get_bool,
    get_int,
    get_number,
    load_checked,
)

TOP_KEYS = {"kind", "name", "description", "instances", "distribution", "selection", "budget", "cluster",
            "allow_without_material", "hash_mb", "search"}
INSTANCE_KEYS = {"mask", "weights", "search", "label", "hash_mb", "threads"}
SEARCH_KEYS = {"aspiration", "null_move", "lmr", "futility", "depth_cap"}
DISTRIBUTION_KEYS = {"criterion", "n", "order", "seed", "factor", "focus", "sigma", "weights", "search"}
BUDGET_KEYS = {"movetime", "nodes", "depth", "budget_mode", "deadline_ms"}
CLUSTER_KEYS = {"workers", "scheduler", "threads_per_worker", "dashboard", "inline"}
DEFAULT_NODE_DEADLINE_MS = 120_000


@dataclass(frozen=True)
class InstanceConfig:
    """An ensemble's instance: its label and its searcher's recipe, what it knows (the
    categories, their weights) and how it searches (its "directing knowledge")."""

    label: str
    searcher: SearcherSpec = field(default_factory=SearcherSpec)
    threads: int = 1  # more than 1: the instance is itself a parallel search (ABDADA on its worker's threads)

    @classmethod
    def of(cls, label: str, spec: EvalSpec, hash_mb: float = 16, threads: int = 1, **search) -> InstanceConfig:
        """The instance that knows what ``spec`` says (``search``: :class:`SearcherSpec`'s options)."""
        return cls(label, SearcherSpec.of(spec, hash_mb, **search), threads)

    @property
    def spec(self) -> EvalSpec:
        return self.searcher.eval_spec

    @property
    def hash_mb(self) -> float:
        return self.searcher.hash_mb

    def with_hash(self, hash_mb: float) -> InstanceConfig:
        return replace(self, searcher=replace(self.searcher, hash_mb=hash_mb))

    def make_searcher(self):
        if self.threads > 1:
            # Imported here: a config is parsed wherever a player is named (a GUI waits for
            # ``uciok``), and the team loads the compiled engine (cold, a minute).
            from players.decomposition.team import TeamSearcher
            s = self.searcher
            return TeamSearcher(self.spec, self.threads, s.hash_mb, null_move=s.null_move, lmr=s.lmr,
                                futility=s.futility)
        return self.searcher.build()

    def weights_text(self) -> str:
        return " ".join(f"{c}={w:g}" for c, w in zip(CATEGORIES, self.spec.weights) if self.spec.uses(c))


@dataclass(frozen=True)
class Budget:
    """How an ensemble shares out one move's :class:`players.limits.Limit`: ``limit`` is each
    instance's (``per_instance``) or, in ``equal_total`` mode, divided among the n instances,
    so that an ensemble uses the compute of one engine with that limit; ``deadline_ms`` is how
    long the coordinator waits.  Not a second limits type: what a search may spend is always
    a ``Limit``; the budget adds only what is an ensemble's own (the split and the wait), and,
    with equal-time node budgets, each instance's own limit (``per_instance``)."""

    limit: Limit = field(default_factory=lambda: Limit(movetime=1000))
    mode: str = "per_instance"
    deadline_ms: int | None = None
    per_instance: tuple[Limit, ...] = ()  # each instance's time-equivalent limit (players.speed.equal_time)

    def limits(self, n_instances: int, index: int | None = None) -> Limit:
        """Each instance's limit (instance ``index``'s own where equal time gives each its own)."""
        if self.per_instance and index is not None:
            return self.per_instance[index]
        share = n_instances if self.mode == "equal_total" else 1
        limit = self.limit
        if limit.movetime is not None:
            return Limit(movetime=max(1, limit.movetime // share))
        if limit.nodes is not None:
            return Limit(nodes=max(1, limit.nodes // share))
        return Limit(depth=limit.depth)

    def equal_time(self, instances: tuple[InstanceConfig, ...], cores: int) -> Budget:
        """Node budgets for the time the full engine searches ``nodes`` on one core: each
        instance at its measured speed, on its share of ``cores`` (``players.speed.equal_time``)."""
        # An instance of t threads uses t cores and searches team(abdada, t) full-engine cores' worth.
        share = min(1.0, cores / sum(i.threads for i in instances))
        asked = replace(self.limit, equal_time=True)
        return replace(self, mode="per_instance", per_instance=tuple(
            equal_time(asked, i.spec, workers=i.threads, cores_share=share) for i in instances))

    def deadline(self, n_instances: int) -> float:
        """Seconds the coordinator waits for the instances before deciding without them."""
        if self.deadline_ms is not None:
            return self.deadline_ms / 1000.0
        if self.limit.movetime is not None:
            return self.limits(n_instances).movetime / 1000.0  # type: ignore[operator]
        return DEFAULT_NODE_DEADLINE_MS / 1000.0

    def describe(self) -> str:
        limit = self.limit
        what = (f"movetime {limit.movetime} ms" if limit.movetime is not None else
                f"nodes {limit.nodes}" if limit.nodes is not None else f"depth {limit.depth}")
        return f"{what} ({self.mode})"


@dataclass(frozen=True)
class ClusterConfig:
    workers: int | None = None  # local cluster size; default one per instance
    scheduler: str | None = None
    threads_per_worker: int = 1
    dashboard: bool = True
    inline: bool = False  # no Dask: instances search one after another in the calling process


@dataclass(frozen=True)
class SelectionConfig:
    criterion: str = "majority"
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EnsembleConfig:
    name: str
    instances: tuple[InstanceConfig, ...]
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    budget: Budget = field(default_factory=Budget)
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    description: str = ""
    allow_without_material: bool = False
    source: str = ""

    @property
    def notation(self) -> str:
        return player_notation([i.spec for i in self.instances])

    @property
    def needs_margin(self) -> bool:
        return SELECTION_CRITERIA[self.selection.criterion].needs_margin

    @property
    def cores(self) -> int:
        """The cores this ensemble is entitled to in equal-time comparisons: one per search
        thread of each worker (a worker per instance unless the file says otherwise), also
        when run inline."""
        threads = [i.threads for i in self.instances] or [1]
        if self.cluster.workers is None:
            return sum(threads)
        return self.cluster.workers * max(threads)

    def player_settings(self) -> Settings:
        """The player's settings as this file makes them (UCI lists them before it builds one)."""
        return Settings(self.instances[0].hash_mb if self.instances else 16, self.cores, COORDINATED_OVERHEAD_MS,
                        self.budget.mode)

    def with_budget(self, budget: Budget) -> EnsembleConfig:
        return replace(self, budget=budget)

    def with_selection(self, criterion: str, **params: Any) -> EnsembleConfig:
        return replace(self, selection=SelectionConfig(criterion, check_params(criterion, params)))


def load_ensemble(path: str | Path | None = None, text: str | None = None) -> EnsembleConfig:
    """Read and validate an ensemble file; ``ConfigError`` lists every problem."""
    return load_checked(path, text, "ensembles", lambda src, folder, given: _parse(src))


# --- validation -------------------------------------------------------------------------------

def _parse(src: YamlSource) -> EnsembleConfig | None:
    data = src.data
    if not isinstance(data, dict):
        src.problem((), f"expected a mapping of {', '.join(sorted(TOP_KEYS))}; got {type(data).__name__}")
        return None
    check_keys(src, data, (), TOP_KEYS)
    check_kind(src, data, "ensemble")
    allow = get_bool(src, data, ("allow_without_material",), False)
    hash_mb = get_number(src, data, ("hash_mb",), 16.0, low=1)
    defaults = _search_options(src, data.get("search"), ("search",), SearcherSpec(hash_mb=hash_mb))
    instances: list[InstanceConfig] = []
    if "distribution" in data:
        instances += _distribution(src, data["distribution"], hash_mb, defaults)
    if "instances" in data:
        items = data["instances"]
        if not isinstance(items, list):
            src.problem(("instances",), "expected a list of instances")
        else:
            for i, item in enumerate(items):
                inst = _instance(src, item, ("instances", i), hash_mb, defaults)
                if inst is not None:
                    instances.append(inst)
    if "distribution" not in data and "instances" not in data:
        src.problem((), "no instances: give 'instances' or 'distribution'")
    elif not instances and not src.problems:
        src.problem(("instances",), "the list of instances is empty")
    if not allow:
        for i, inst in enumerate(instances):
            if not inst.spec.uses("M"):
                src.problem(_instance_path(data, i), f"instance {inst.label} has no M (material): every instance "
                            "needs it unless the file says allow_without_material: true")
    instances = _unique_labels(instances)
    selection = _selection(src, data.get("selection"), instances)
    if selection is not None and SELECTION_CRITERIA.get(selection.criterion) is not None \
            and SELECTION_CRITERIA[selection.criterion].needs_margin:
        for i, inst in enumerate(instances):
            if inst.threads > 1:
                src.problem(_instance_path(data, i), f"instance {inst.label}: {selection.criterion} needs each "
                                                     "instance's margin probe, which a parallel instance has not")
    budget = _budget(src, data.get("budget"))
    cluster = _cluster(src, data.get("cluster"))
    name = data.get("name", Path(src.name).stem)
    if not isinstance(name, (str, int)):
        src.problem(("name",), "expected a string")
        name = Path(src.name).stem
    description = data.get("description", "")
    if not isinstance(description, str):
        src.problem(("description",), "expected a string")
        description = ""
    return EnsembleConfig(str(name), tuple(instances), selection, budget, cluster, description, allow, src.name)


def _instance_path(data: dict, index: int) -> FieldPath:
    n_generated = 0
    dist = data.get("distribution")
    if isinstance(dist, dict) and isinstance(dist.get("n"), int):
        n_generated = dist["n"]
    if index < n_generated:
        return ("distribution",)
    return ("instances", index - n_generated)


def _search_options(src: YamlSource, value: Any, path: FieldPath, base: SearcherSpec) -> SearcherSpec:
    """``base`` with the options a file's ``search:`` mapping sets (what the instance knows is
    filled in by its caller)."""
    data = as_mapping(src, value, path)
    if data is None:
        return base
    check_keys(src, data, path, SEARCH_KEYS)
    return replace(
        base,
        aspiration=get_int(src, data, path + ("aspiration",), base.aspiration, 1, 10_000),  # type: ignore[arg-type]
        null_move=get_bool(src, data, path + ("null_move",), base.null_move),
        lmr=get_bool(src, data, path + ("lmr",), base.lmr),
        futility=get_bool(src, data, path + ("futility",), base.futility),
        depth_cap=get_int(src, data, path + ("depth_cap",), base.depth_cap, 1, 127),
    )


def _spec(src: YamlSource, mask: Any, weights: Any, path: FieldPath) -> EvalSpec | None:
    try:
        return EvalSpec.parse(mask, weights)
    except EvalSpecError as exc:
        field_name = "weights" if str(exc).startswith("weights") else "mask"
        src.problem(path + (field_name,), str(exc))
        return None


def _instance(src: YamlSource, item: Any, path: FieldPath, hash_mb: float,
              defaults: SearcherSpec) -> InstanceConfig | None:
    if isinstance(item, (str, int)) and not isinstance(item, bool):
        item = {"mask": item}  # shorthand: "- MBXP"
    data = as_mapping(src, item, path)
    if data is None:
        return None
    check_keys(src, data, path, INSTANCE_KEYS)
    if "mask" not in data:
        src.problem(path, "missing 'mask'")
        return None
    spec = _spec(src, data["mask"], data.get("weights"), path)
    options = _search_options(src, data.get("search"), path + ("search",), defaults)
    own_hash = get_number(src, data, path + ("hash_mb",), hash_mb, low=1)
    threads = get_int(src, data, path + ("threads",), 1, 1, 64) or 1
    if threads > 1 and (options.aspiration != DEFAULT_ASPIRATION or options.depth_cap):
        src.problem(path + ("threads",), "a parallel instance (threads > 1) searches with the decomposition "
                                         "player's options: aspiration and depth_cap do not apply")
    label = data.get("label")
    if label is not None and not isinstance(label, str):
        src.problem(path + ("label",), "expected a string")
        label = None
    if spec is None:
        return None
    return InstanceConfig(label or default_label(spec),
                          replace(options, mask=spec.letters, weights=spec.weights, hash_mb=own_hash), threads)


def default_label(spec: EvalSpec) -> str:
    """``(MB)``, or ``(MBXKPAR B×2 X×2)`` when weights differ from 1."""
    extra = " ".join(f"{c}×{w:g}" for c, w in zip(CATEGORIES, spec.weights) if spec.uses(c) and w != 1.0)
    return f"({spec.letters}{' ' + extra if extra else ''})"


def _unique_labels(instances: list[InstanceConfig]) -> list[InstanceConfig]:
    seen: dict[str, int] = {}
    out = []
    for inst in instances:
        seen[inst.label] = seen.get(inst.label, 0) + 1
        out.append(inst if seen[inst.label] == 1 else replace(inst, label=f"{inst.label}#{seen[inst.label]}"))
    return out


def _distribution(src: YamlSource, value: Any, hash_mb: float, defaults: SearcherSpec) -> list[InstanceConfig]:
    path: FieldPath = ("distribution",)
    data = as_mapping(src, value, path)
    if data is None:
        return []
    check_keys(src, data, path, DISTRIBUTION_KEYS)
    criterion = data.get("criterion")
    if criterion not in DISTRIBUTION_CRITERIA:
        src.problem(path + ("criterion",), f"unknown distribution criterion {criterion!r}; "
                    f"known: {', '.join(DISTRIBUTION_CRITERIA)}")
        return []
    if "n" not in data:
        src.problem(path, "missing 'n' (the number of instances)")
        return []
    n = get_int(src, data, path + ("n",), None, 1, 64)
    seed = get_int(src, data, path + ("seed",), 0, 0)
    factor = get_number(src, data, path + ("factor",), 2.0, low=0)
    sigma = get_number(src, data, path + ("sigma",), 0.3, low=0)
    order = data.get("order", CATEGORIES)
    focus = data.get("focus", "balanced")
    if focus not in MASK_CRITERIA:
        src.problem(path + ("focus",), f"focus {focus!r} is not one of {', '.join(MASK_CRITERIA)}")
        return []
    weights = None
    if "weights" in data:
        base = _spec(src, CATEGORIES, data["weights"], path)
        if base is None:
            return []
        weights = base.weights
    options = _search_options(src, data.get("search"), path + ("search",), defaults)
    if n is None:
        return []
    try:
        specs = distribute(criterion, n, str(order), seed or 0, factor=factor, focus=focus, sigma=sigma,
                           weights=weights)
    except (DistributionError, EvalSpecError) as exc:
        src.problem(path, str(exc))
        return []
    return [InstanceConfig(default_label(s), replace(options, mask=s.letters, weights=s.weights, hash_mb=hash_mb))
            for s in specs]


def _selection(src: YamlSource, value: Any, instances: list[InstanceConfig]) -> SelectionConfig:
    path: FieldPath = ("selection",)
    data = as_mapping(src, value, path)
    if data is None:
        return SelectionConfig()
    criterion = data.get("criterion")
    if criterion is None:
        src.problem(path, "missing 'criterion'")
        return SelectionConfig()
    if criterion not in SELECTION_CRITERIA:
        src.problem(path + ("criterion",), f"unknown selection criterion {criterion!r}; "
                    f"known: {', '.join(SELECTION_CRITERIA)}")
        return SelectionConfig()
    params = {k: v for k, v in data.items() if k != "criterion"}
    try:
        merged = check_params(criterion, params)
    except SelectionError as exc:
        bad = next((k for k in params if k in str(exc)), None)
        src.problem(path + ((bad,) if bad else ()), str(exc))
        return SelectionConfig()
    if criterion in ("learned", "dynamic", "calibrated_vote", "routed"):
        model = resolve_model(src, merged["model"], path + ("model",), criterion, bool(merged.get("allow_pickle")))
        if model is None:
            return SelectionConfig()
        merged["model"] = model
    if criterion == "priority_sets":
        labels = {i.label.strip("()") for i in instances} | {i.spec.letters for i in instances}
        unknown = [h for h in merged["high"] if h.strip("()") not in labels]
        if unknown:
            src.problem(path + ("high",), f"no instance labelled {', '.join(unknown)}")
    return SelectionConfig(criterion, merged)


def resolve_model(src: YamlSource, name: Any, path: FieldPath, criterion: str = "learned",
                  allow_pickle: bool = False) -> str | None:
    """A trained criterion's model file, found like any file a config names (the
    config's folder, the current directory, ``data:`` for a packaged one) and loaded
    once here, so that a missing or foreign file (or a pickle without ``allow_pickle``)
    is named with its line."""
    if not isinstance(name, str) or not name:
        src.problem(path, f"the {criterion} criterion needs model: FILE (a model that concilio suite trained)")
        return None
    folder = Path(src.name).resolve().parent if Path(src.name).is_file() else Path.cwd()
    found = resolve_data_reference(name, folder)
    if found is None:
        src.problem(path, f"no such model file: {name}")
        return None
    try:
        if criterion == "calibrated_vote":
            load_calibration(found)
        elif criterion == "routed":
            load_gate(found)
        else:
            load_model(found, allow_pickle) if criterion == "learned" else load_weights(found)
    except (LearnedModelError, DynamicModelError, ValueError) as exc:
        src.problem(path, str(exc))
        return None
    return str(found)


def _budget(src: YamlSource, value: Any) -> Budget:
    path: FieldPath = ("budget",)
    data = as_mapping(src, value, path)
    if data is None:
        return Budget()
    check_keys(src, data, path, BUDGET_KEYS)
    given = [k for k in ("movetime", "nodes", "depth") if k in data]
    if len(given) != 1:
        src.problem(path, f"give exactly one of movetime (ms), nodes or depth; got {', '.join(given) or 'none'}")
        return Budget()
    key = given[0]
    amount = get_int(src, data, path + (key,), None, 1, 127 if key == "depth" else None)
    mode = data.get("budget_mode", "per_instance")
    if mode not in ("per_instance", "equal_total"):
        src.problem(path + ("budget_mode",), f"{mode!r} is not per_instance or equal_total")
        mode = "per_instance"
    if mode == "equal_total" and key == "depth":
        src.problem(path + ("budget_mode",), "equal_total needs a movetime or nodes budget (a depth cannot be split)")
        mode = "per_instance"
    deadline = get_int(src, data, path + ("deadline_ms",), None, 1)
    if amount is None:
        return Budget()
    return Budget(Limit(**{key: amount}), mode, deadline)


def _cluster(src: YamlSource, value: Any) -> ClusterConfig:
    path: FieldPath = ("cluster",)
    data = as_mapping(src, value, path)
    if data is None:
        return ClusterConfig()
    check_keys(src, data, path, CLUSTER_KEYS)
    scheduler = data.get("scheduler")
    if scheduler is not None and (not isinstance(scheduler, str) or not SCHEDULER_ADDRESS.match(scheduler)):
        src.problem(path + ("scheduler",), f"{scheduler!r} is not a scheduler address like tcp://host:8786")
        scheduler = None
    workers = get_int(src, data, path + ("workers",), None, 1, 512)
    if scheduler is not None and workers is not None:
        src.problem(path + ("workers",), "workers sizes a local cluster; with a scheduler address the "
                    "cluster's own workers are used")
    threads = get_int(src, data, path + ("threads_per_worker",), 1, 1, 256)
    dashboard = get_bool(src, data, path + ("dashboard",), True)
    inline = get_bool(src, data, path + ("inline",), False)
    if inline and scheduler is not None:
        src.problem(path + ("inline",), "inline runs the instances in this process; it cannot use a scheduler")
    return ClusterConfig(workers, scheduler, threads or 1, dashboard, inline)
