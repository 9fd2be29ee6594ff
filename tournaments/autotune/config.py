"""Auto-tune files (``configs/tuning/*.yaml``): the training set and its held-out share,
the pool of candidate instances, the objective, and where the tuned ensemble goes::

    train: {path: data:training/selfplay-5k.epd, validate: 0.3, seed: 1}  # share of openings whose games are held out
    confirm:                        # suites the choice never reads (each a confirmation)
      - {path: data:suites/sts-1-10.epd}
    pool:
      ensembles: [3a, 3b, 6d]       # their instances join the pool
      instances: [MBXP, MKR]        # single masks
      emphasis: [2.0, 0.5]          # the full instance with one category's weight times each factor
      full: true                    # the full instance itself
    budget: {nodes: 20000}          # per instance and position, as in a suite run
    criteria: [majority, depth_confidence]   # tried for every set; the best pair is kept
    rule_choice: tune               # or cv: the criterion by grouped cross-validation on the tune split
    folds: 5                        # (cv) folds of whole openings
    objective: points               # mean STS points of the moves played, or val
    size: {min: 2, max: 6, swap_passes: 10}
    compare: [3a, 3b]               # ensembles the tuned one is compared with (default: pool.ensembles)
    out: configs/ensembles/tuned.yaml
    store: results/selection.sqlite
    report: reports/autotune
    workers: 2
    cluster: {scheduler: tcp://10.0.0.5:8786}   # or search on a running scheduler's workers (slots: N, at most)

Only criteria that read the ballots alone can be tuned over (the others need evidence
or searches per candidate set, which the stored ballots do not hold).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from base.cluster import Remote, read_remote
from base.config import ConfigError, YamlSource, as_mapping, check_keys, get_int, get_number, load_checked
from ensemble.config import InstanceConfig, default_label
from ensemble.distribution import DistributionError, distribute
from ensemble.selection import CRITERIA
from evaluation.spec import FULL_ENGINE, EvalSpec, EvalSpecError
from tournaments.suite.config import (CriterionSpec, PlayerSpec, SuiteSource, _budget, _criteria, _suites, ensemble_players,
                           instance_key, suite_source)

TOP_KEYS = {"name", "description", "train", "confirm", "pool", "budget", "criteria", "objective", "size", "compare",
            "out", "store", "report", "workers", "rule_choice", "folds",
            "cluster"}
TRAIN_KEYS = {"path", "name", "validate", "seed", "first", "every"}
POOL_KEYS = {"ensembles", "instances", "emphasis", "full"}
SIZE_KEYS = {"min", "max", "swap_passes"}
OBJECTIVES = ("points", "val")
RULE_CHOICES = ("tune", "cv")


@dataclass(frozen=True)
class AutotuneConfig:
    name: str
    train: SuiteSource
    validate: float  # share of the training set's openings whose games are held out from the choice
    split_seed: int
    confirm: tuple[SuiteSource, ...]
    pool: tuple[InstanceConfig, ...]
    budget: dict[str, int]
    criteria: tuple[CriterionSpec, ...]
    objective: str
    min_size: int
    max_size: int
    swap_passes: int
    compare: tuple[PlayerSpec, ...]
    out: Path
    store: Path
    report: Path
    workers: int
    source: str = ""
    rule_choice: str = "tune"  # tune: the criterion whose best set scores highest on the tune split; cv: by folds
    folds: int = 5
    remote: Remote | None = None  # a running Dask scheduler the searches run on (cluster:, --scheduler)

    def of_size(self, size: int) -> AutotuneConfig:
        """The same tune for exactly ``size`` instances, its outputs named ``…-SIZE`` (one file
        serves every team size of the scaling sweep)."""
        if not 1 <= size <= len(self.pool):
            raise ConfigError([f"{self.source}: size {size} from a pool of {len(self.pool)}"])
        return replace(self, min_size=size, max_size=size, out=self.out.with_name(f"{self.out.stem}-{size}.yaml"),
                       report=self.report.with_name(f"{self.report.name}-{size}"))

    @property
    def budget_key(self) -> str:
        """The budget and the engine (``base.fingerprint``): a changed engine searches afresh."""
        from base.fingerprint import engine_fingerprint
        (kind, amount), = self.budget.items()
        return f"{kind}={amount} engine={engine_fingerprint()}"


def load_autotune(path: str | Path | None = None, text: str | None = None) -> AutotuneConfig:
    return load_checked(path, text, "tuning", _parse)


def _parse(src: YamlSource, folder: Path, given: str) -> AutotuneConfig | None:
    data = src.data
    if not isinstance(data, dict):
        src.problem((), "expected a mapping")
        return None
    check_keys(src, data, (), TOP_KEYS)
    name = str(data.get("name", Path(src.name).stem))
    train = as_mapping(src, data.get("train"), ("train",))
    if train is None:
        src.problem(("train",), "expected train: {path: FILE.epd, validate: 0.3}")
        return None
    check_keys(src, train, ("train",), TRAIN_KEYS)
    validate = get_number(src, train, ("train", "validate"), 0.3, 0.0)
    if not validate < 1:
        src.problem(("train", "validate"), f"the held-out share must be below 1, got {validate!r}")
    seed = get_int(src, train, ("train", "seed"), 1, 0)
    fields = {k: v for k, v in train.items() if k not in ("validate", "seed")}
    train_source = suite_source(src, {**fields, "role": "choose"}, ("train",), folder)
    confirm = _suites(src, data["confirm"], folder, "confirm", "confirm") if "confirm" in data else []
    pool, pool_ensembles = _pool(src, data.get("pool"))
    budget = _budget(src, data.get("budget"))
    criteria = _criteria(src, data.get("criteria", ["majority"]))
    for i, crit in enumerate(criteria):
        spec = CRITERIA[crit.name]
        team_models = ("learned", "dynamic", "routed")  # a model fitted for one team is no rule for another set
        if spec.needs_evidence or spec.needs_search or spec.needs_margin or crit.name in team_models:
            src.problem(("criteria", i), f"{crit.name}: only criteria that read the ballots alone can be tuned over "
                                         "(this one needs evidence, a margin probe, searches or a model)")
    objective = str(data.get("objective", "points"))
    if objective not in OBJECTIVES:
        src.problem(("objective",), f"objective {objective!r} is not one of {', '.join(OBJECTIVES)}")
    size = as_mapping(src, data.get("size", {}), ("size",)) or {}
    check_keys(src, size, ("size",), SIZE_KEYS)
    min_size = get_int(src, size, ("size", "min"), 2, 1) or 2
    max_size = get_int(src, size, ("size", "max"), 6, 1) or 6
    swap_passes = get_int(src, size, ("size", "swap_passes"), 10, 0)
    if min_size > max_size:
        src.problem(("size",), f"min ({min_size}) is above max ({max_size})")
    if pool and max_size > len(pool):
        src.problem(("size", "max"), f"{max_size} members from a pool of {len(pool)}")
    if "compare" not in data:
        compare = [p for p in pool_ensembles if not p.is_single]
    elif data["compare"]:
        compare = ensemble_players(src, data["compare"], ("compare",))
    else:
        compare = []  # compared with the full engine only
    workers = get_int(src, data, ("workers",), 2, 1, 512) or 2
    rule_choice = str(data.get("rule_choice", "tune"))
    if rule_choice not in RULE_CHOICES:
        src.problem(("rule_choice",), f"rule_choice {rule_choice!r} is not one of {', '.join(RULE_CHOICES)}")
    folds = get_int(src, data, ("folds",), 5, 2, 100) or 5
    # Outputs go under the current directory, never beside an installed config.
    out = Path(str(data.get("out", f"tuned/{name}.yaml")))
    store = Path(str(data.get("store", f"results/{name}.sqlite")))
    report = Path(str(data.get("report", f"reports/{name}")))
    if train_source is None:
        return None
    return AutotuneConfig(name, train_source, validate or 0.0, seed or 0, tuple(confirm), tuple(pool), budget,
                          tuple(criteria), objective, min_size, max_size, swap_passes or 0, tuple(compare), out,
                          store, report, workers, given, rule_choice, folds, read_remote(src, data))


def _pool(src: YamlSource, value: Any) -> tuple[list[InstanceConfig], list[PlayerSpec]]:
    """The pool's instances, each once (by what makes it search differently), in a fixed
    order: full, the ensembles' instances, single masks, reweightings."""
    data = as_mapping(src, value, ("pool",))
    if data is None:
        src.problem(("pool",), "expected pool: {ensembles: [...], instances: [...], emphasis: [2.0], full: true}")
        return [], []
    check_keys(src, data, ("pool",), POOL_KEYS)
    found: dict[str, InstanceConfig] = {}

    def add(spec: EvalSpec) -> None:
        inst = InstanceConfig.of(default_label(spec), spec)
        found.setdefault(instance_key(inst), inst)

    if data.get("full", True):
        add(FULL_ENGINE)
    ensembles = ensemble_players(src, data.get("ensembles"), ("pool", "ensembles"))
    for player in ensembles:
        for inst in player.instances:
            found.setdefault(instance_key(inst), inst)
    for i, mask in enumerate(data.get("instances", []) or []):
        try:
            add(EvalSpec.parse(mask))
        except EvalSpecError as exc:
            src.problem(("pool", "instances", i), str(exc))
    factors = data.get("emphasis", []) or []
    if not isinstance(factors, list):
        src.problem(("pool", "emphasis"), "expected a list of factors, e.g. [2.0, 0.5]")
        factors = []
    for i, factor in enumerate(factors):
        try:
            for spec in distribute("emphasis", 6, focus="minimal", factor=float(factor)):
                add(spec)
        except (DistributionError, TypeError, ValueError) as exc:
            src.problem(("pool", "emphasis", i), f"factor {factor!r}: {exc}")
    if len(found) < 2:
        src.problem(("pool",), f"a pool of {len(found)} instance(s) leaves nothing to choose")
    return list(found.values()), ensembles
