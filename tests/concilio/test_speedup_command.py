"""``concilio speedup --only``: a long speedup table run an algorithm at a time (the deep table
of issue 59 takes hours), with an unknown name refused before anything is searched."""
from __future__ import annotations

import csv

from concilio.cli import main


def test_only_runs_the_named_algorithms_alone(tmp_path, capsys):
    out = tmp_path / "rows.csv"
    code = main(["speedup", "speedup-cluster", "--only", "master-tree", "uidpabs", "--depth", "3", "--limit", "1",
                 "--csv", str(out)])
    assert code == 0
    # write_csv puts the node-clock rows in <name>-nodes.csv beside the time-based ones
    rows = list(csv.DictReader(open(out.with_name(out.stem + "-nodes.csv"))))
    assert {r["algorithm"] for r in rows} == {"master-tree", "uidpabs"}
    assert sorted({int(r["workers"]) for r in rows}) == [1, 2, 4, 8, 16]


def test_an_unknown_name_is_refused_with_the_files_names(capsys):
    assert main(["speedup", "speedup-cluster", "--only", "master-tree", "no-such"]) == 2
    err = capsys.readouterr().err
    assert "--only: no-such not in speedup-cluster" in err and "mixed-exhaustive" in err
