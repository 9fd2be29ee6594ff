"""The suite report's tables: single instances beside the thesis's Val, C_D once per
player, Val and C_s per player and criterion, the criteria averaged over the players."""
import csv

import pytest

from tournaments.statistics.stats import proportion
from tournaments.suite.report import cd_rows, criterion_means, print_report, single_rows, val_rows, write_report
from tournaments.suite.metrics import Score


def score(player, criterion, cd, val, single=False, n=10):
    return Score("wac", player, criterion, n, proportion(cd, n), proportion(val, n), 0, 0, single=single)


SCORES = [
    score("(MB)", "", 10, 4, single=True),
    score("(MBXKPAR)", "", 10, 6, single=True),
    score("3b", "majority", 8, 4),
    score("3b", "depth_confidence", 8, 6),
    score("4b", "majority", 5, 2),
]


def test_single_instances_stand_beside_the_thesis_s_val():
    rows = single_rows(SCORES)
    assert [r[1] for r in rows] == ["(MB)", "(MBXKPAR)"]
    assert rows[0][3] == "4/10" and rows[0][5] == "(reference)" and rows[0][7] == f"{91 / 500:.3f}"
    assert rows[1][7] == f"{127 / 500:.3f}"


def test_c_d_is_listed_once_per_player_whatever_its_criteria():
    rows = cd_rows(SCORES)
    assert [(r[1], r[2].split()[0], r[3]) for r in rows] == [("3b", "0.800", "0.362"), ("4b", "0.500", "0.414")]


def test_c_s_is_val_over_c_d_and_the_means_are_over_the_players():
    assert [r[4] for r in val_rows(SCORES)] == ["0.500", "0.750", "0.400"]
    means = {r[1]: r for r in criterion_means(SCORES)}
    assert means["majority"][2:4] == [f"{(0.4 + 0.2) / 2:.3f}", f"{(0.5 + 0.4) / 2:.3f}"]
    assert means["majority"][4] == "0.218 / 0.586" and means["depth_confidence"][2] == "0.600"


def test_the_report_is_printed_and_written_as_csv_and_markdown(tmp_path):
    text = print_report(SCORES)
    assert text.index("Single instances") < text.index("C_D per player") < text.index("Val and C_s")
    files = write_report(SCORES, tmp_path / "r", header="# run")
    assert [f.name for f in files] == ["scores.csv", "sts_themes.csv", "report.md", "val_vs_cd.png"]
    rows = list(csv.DictReader((tmp_path / "r" / "scores.csv").open()))
    assert len(rows) == len(SCORES) and float(rows[3]["C_s"]) == pytest.approx(0.75)
    assert (tmp_path / "r" / "report.md").read_text().startswith("# run\n\n## Single instances\n\n| suite |")
