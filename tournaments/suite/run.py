"""``concilio suite``: phase 1 (search what the store lacks), phase 2 (score from the
store), report.  Each phase can be rerun on its own; nothing finished is redone."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from base.runner import Runner
from players.limits import Limit
from tournaments.records.epd import Suite, read_suite
from tournaments.records.file_lines import left_out
from tournaments.suite.store import SearchStore
from tournaments.suite.config import FULL_LABEL, SuiteRunConfig, instance_key
from tournaments.suite.metrics import Score, adjust_comparisons, score_suite
from tournaments.suite.report import print_report, write_report
from tournaments.suite.learning import Training, train_selection
from tournaments.suite.search import SearchSet, run_searches


@dataclass
class SuiteRunOutcome:
    suites: list[Suite]
    scores: list[Score]
    searches_added: int
    searches_stored: int
    phase1_seconds: float
    report_files: list[Path]
    training: Training | None = None


def read_suites(config: SuiteRunConfig, warn=lambda line: print(line, file=sys.stderr)) -> list[Suite]:
    suites = []
    for source in config.suites:
        suite = read_suite(source.path, source.name)
        if suite.problems:
            warn(left_out(source.path, suite.problems))
        positions = suite.positions
        if source.every:
            positions = positions[::source.every]
        if source.first:
            positions = positions[:source.first]
        suite.positions = positions
        suites.append(suite)
    return suites


def search_sets(config: SuiteRunConfig) -> list[SearchSet]:
    """What phase 1 searches: every distinct instance at the run's budget, and the full engine
    at each distinct total nodes of the run's ensembles."""
    sets = [SearchSet(config.instances(), Limit(**config.budget), config.budget_key)]
    for ref in config.total_references():
        budget = config.player_budget(ref)
        sets.append(SearchSet({instance_key(i): i for i in ref.instances}, Limit(**budget), config.key_for(budget)))
    return sets


def total_note(config: SuiteRunConfig) -> str:
    """What the report says of the comparisons at an ensemble's total compute."""
    refs = config.total_references()
    if refs:
        named = ", ".join(f"`{r.name}` for k = {r.nodes // config.budget['nodes']}" for r in refs)
        return (" Each ensemble of k instances is also compared with the full engine at k × N nodes, the nodes "
                f"it spends in all ({named}): the 'at k×N' columns, in the same family as the comparisons at N.")
    if not config.full_at_total:
        return (" The comparison with the full engine at an ensemble's total nodes is switched off "
                "(full_at_total: false).")
    if any(not p.is_single for p in config.players):
        return (f" No comparison at an ensemble's total compute: the budget ({next(iter(config.budget))}) is each "
                "instance's, not in nodes (a movetime is wall time, spent by k instances side by side), so there "
                "is no node total to give the full engine.")
    return ""


def run_suite(config: SuiteRunConfig, *, search: bool = True, progress: bool = True, runner: Runner | None = None,
              warn=lambda line: print(line, file=sys.stderr)) -> SuiteRunOutcome:
    suites = read_suites(config, warn)
    positions = [p for s in suites for p in s.positions]
    with SearchStore(config.store) as store:
        started = time.perf_counter()
        added = 0
        if search:
            added = run_searches(store, search_sets(config), positions, config.margin_probe, config.workers,
                                 runner=runner, progress=progress, remote=config.remote)
        elapsed = time.perf_counter() - started
        training = None
        if config.learn is not None:
            training = train_selection(config, suites, store)
            config = replace(config, criteria=tuple(
                replace(c, params={**c.params, "model": str(training.files[c.name])})
                if c.name in training.files and c.params.get("model") is None else c for c in config.criteria))
        trained = ({"trained": {k: str(v) for k, v in training.files.items()}, "held_out": training.held_out}
                   if training else {})
        scores = [score for suite in suites for score in score_suite(config, suite, store, **trained)]
        stored = store.count()
    roles = {suite.name: source.role for suite, source in zip(suites, config.suites)}
    families = adjust_comparisons(scores, roles)
    by_role = {role: [name for name, r in roles.items() if r == role] for role in ("choose", "confirm")}
    role_text = "".join(f" Suites to {role}: {', '.join(names)}." for role, names in by_role.items() if names)
    where = f"on the scheduler {config.remote.scheduler}" if config.remote else f"{config.workers} workers"
    header = (f"# Suite run `{config.name}`\n\nConfig `{config.source}`; budget {config.budget_key} per instance "
              f"and position; suites: " + ", ".join(f"{s.name} ({len(s.positions)} positions)" for s in suites)
              + f". Phase 1 added {added} searches in {elapsed:.0f} s ({where}).\n\n"
              f"Intervals are 95% Wilson intervals; 'vs full' compares a player with the full engine {FULL_LABEL} "
              "on the same positions: McNemar is the exact McNemar test on solved (+positions only this player "
              "solves / −only the full engine solves), sign the exact sign test on the points of the moves played "
              "(+positions where this player scores more / −fewer; on a position without points a best move "
              "scores 1)." + total_note(config) + " Each p-value is given raw and adjusted (Holm: family-wise "
              "error; BH: Benjamini-Hochberg false discovery rate) over the comparisons of its family, McNemar's "
              "and the sign test's each over the same comparisons: "
              + ", ".join(f"{role} {n}" for role, n in families.items())
              + " (each suite role is a family of its own)." + role_text + "  '*' marks a difference significant "
              "after Holm's correction (p < 0.05); a raw p-value alone never is.")
    files = write_report(scores, config.report, header, training.markdown() if training else "")
    return SuiteRunOutcome(suites, scores, added, stored, elapsed, files, training)


def format_outcome(outcome: SuiteRunOutcome) -> str:
    text = print_report(outcome.scores)
    if outcome.training is not None:
        t = outcome.training
        cv = ", ".join(f"{kind} {v['val']:.3f}" for kind, v in t.model.cv.items())
        top = ", ".join(f"{name} {value:.3f}" for name, value in t.model.importances[:6])
        text += (f"\n\nLearned criterion: trained on {', '.join(t.suites)} ({t.decisions} decisions); CV Val grouped by game "
                 f"{cv} (kept {t.model.kind}; majority {t.majority_val:.3f}); saved {t.path}\nFeatures that matter: {top}"
                 f"\nDynamic criterion: CV Val grouped by game {t.dynamic.cv_val:.3f}; saved {t.files['dynamic']}")
    return text
