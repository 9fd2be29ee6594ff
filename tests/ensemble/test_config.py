"""Ensemble files: the shipped ones load, and every kind of bad input is reported
with file, line and field path."""
from pathlib import Path

import pytest

from base.resources import packaged
from ensemble.config import load_ensemble
from base.config import ConfigError
from evaluation.spec import FULL_ENGINE
from tests.ensemble.thesis_table import THESIS_TABLE


@pytest.mark.parametrize("label", sorted(THESIS_TABLE))
def test_thesis_players_ship_as_yaml(label):
    config = load_ensemble(packaged("configs") / "ensembles" / f"{label}.yaml")
    assert config.notation == THESIS_TABLE[label]
    assert config.name == label
    assert config.selection.criterion == "weighted_majority"


def test_full_engine_file_and_lookup_by_name():
    config = load_ensemble("full")
    assert config.notation == "(MBXKPAR)" and config.instances[0].spec == FULL_ENGINE


def test_explicit_instances_with_weights_search_overrides_and_labels():
    config = load_ensemble(text="""
instances:
  - mask: MBXP
    weights: {B: 1.5}
  - mask: 76
    search: {aspiration: 80, null_move: false, depth_cap: 6}
  - MBXP
selection: {criterion: priority_sets, high: [MKP]}
budget: {nodes: 20000, budget_mode: equal_total}
cluster: {scheduler: "tcp://127.0.0.1:8786"}
""")
    a, b, c = config.instances
    assert a.label == "(MBXP B×1.5)" and a.spec.weights[1] == 1.5
    assert b.spec.letters == "MKP" and b.searcher.aspiration == 80 and not b.searcher.null_move
    assert b.searcher.depth_cap == 6
    assert c.label == "(MBXP)"
    assert config.budget.limits(3).nodes == 6666
    assert config.cluster.scheduler == "tcp://127.0.0.1:8786"


def test_duplicate_instances_get_distinct_labels():
    config = load_ensemble(text="instances: [MB, MB]\n")
    assert [i.label for i in config.instances] == ["(MB)", "(MB)#2"]


def test_distribution_and_instances_combine():
    config = load_ensemble(text="distribution: {criterion: emphasis, n: 2, focus: minimal, factor: 3}\n"
                              "instances: [MBXKPAR]\n")
    assert [i.label for i in config.instances] == ["(MBXKPAR B×3)", "(MBXKPAR X×3)", "(MBXKPAR)"]


def errors(text, name="bad.yaml", tmp=None):
    path = Path(tmp) / name
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_ensemble(path)
    return info.value.problems


def test_every_problem_is_reported_with_line_and_field(tmp_path):
    problems = errors("""name: broken
instances:
  - mask: MBQ
  - mask: MBX
    weights: [1, 2, 3]
  - mask: MX
    colour: blue
selection: {criterion: plurality}
budget:
  nodes: -5
cluster: {workers: 0}
extra: 1
""", tmp=tmp_path)
    text = "\n".join(problems)
    where = str(tmp_path / "bad.yaml")
    assert f"{where}:3: instances[0].mask: mask 'MBQ': unknown category letter(s) Q" in text
    assert f"{where}:5: instances[1].weights: weights: expected 7 numbers" in text
    assert f"{where}:7: instances[2].colour: unknown key" in text
    assert f"{where}:8: selection.criterion: unknown selection criterion 'plurality'" in text
    assert f"{where}:10: budget.nodes: -5 is out of range" in text
    assert f"{where}:11: cluster.workers: 0 is out of range" in text
    assert f"{where}:12: extra: unknown key" in text
    assert len(problems) == 7


def test_instance_without_material_needs_the_flag(tmp_path):
    problems = errors("instances:\n  - mask: MB\n  - mask: BX\n", tmp=tmp_path)
    assert len(problems) == 1 and ":3: instances[1]: instance (BX) has no M" in problems[0]
    config = load_ensemble(text="allow_without_material: true\ninstances: [BX]\n")
    assert config.instances[0].spec.letters == "BX"


def test_syntax_errors_name_line_and_column(tmp_path):
    problems = errors("instances:\n  - mask: MB\n   - mask: MX\n", tmp=tmp_path)
    assert "bad.yaml:3:" in problems[0] and "YAML syntax error" in problems[0]


def test_duplicate_keys_are_not_silently_dropped(tmp_path):
    problems = errors("instances: [MB]\nbudget: {nodes: 100}\nbudget: {nodes: 200}\n", tmp=tmp_path)
    assert any(":3: budget: duplicate key" in p for p in problems)


@pytest.mark.parametrize("text,fragment", [
    ("instances: [MB]\nbudget: {nodes: 10, movetime: 10}\n", "budget: give exactly one of"),
    ("instances: [MB]\nbudget: {depth: 5, budget_mode: equal_total}\n", "a depth cannot be split"),
    ("instances: [MB]\nselection: {criterion: majority, depth: 3}\n", "selection.depth: majority: unknown parameter"),
    ("instances: [MB]\nselection: {criterion: priority_sets, high: [MX]}\n", "no instance labelled MX"),
    ("instances: [MB]\ncluster: {scheduler: localhost}\n", "is not a scheduler address"),
    ("distribution: {criterion: minimal, n: 9}\n", "distribution: minimal: n = 9 is out of range"),
    ("distribution: {criterion: balanced}\n", "missing 'n'"),
    ("instances: [{weights: [1,1,1,1,1,1,1]}]\n", "missing 'mask'"),
    ("instances: [200]\n", "must lie in 1-127"),
    ("instances: [MB]\nbudget: {movetime: 1.5}\n", "expected an integer"),
    ("- just a list\n", "expected a mapping"),
    ("name: empty\n", "no instances"),
])
def test_bad_fields(text, fragment, tmp_path):
    assert any(fragment in p for p in errors(text, tmp=tmp_path)), fragment


def test_missing_file_is_named_with_every_place_looked_at():
    with pytest.raises(ConfigError, match="no-such.yaml: no such config; looked for") as info:
        load_ensemble("no-such.yaml")
    assert any(line.strip().endswith("configs/ensembles/no-such.yaml") for line in info.value.problems)
