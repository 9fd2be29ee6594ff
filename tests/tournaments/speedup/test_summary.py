"""The speedup summary: a table and a plot read back from the node-clock CSV."""
from __future__ import annotations

import subprocess
import sys

from tournaments.speedup.nodes import NodeRow
from tournaments.speedup.published import PUBLISHED
from tournaments.speedup.run import write_csv
from tournaments.speedup.summary import plot, read_rows, table


def rows() -> list[NodeRow]:
    return [NodeRow("alpha", 1, 100, 100, 1.0, 1.0, 0.0, 1.0, 0, 3, 3, 1.0),
            NodeRow("alpha", 2, 60, 130, 1.6667, 0.8333, 0.3, 0.9, 12, 3, 3, 1.6667),
            NodeRow("beta", 1, 120, 120, 0.8333, 0.8333, 0.2, 1.0, 4, 3, 3, 1.0),
            NodeRow("beta", 2, 100, 200, 1.0, 0.5, 1.0, 1.0, 40, 2, 3, 1.2)]


def test_table_and_plot_from_the_csv(tmp_path):
    write_csv(rows(), tmp_path / "speedup-x.csv")  # node rows only: written beside, as -nodes.csv
    back = read_rows(tmp_path / "speedup-x-nodes.csv")
    assert back[1]["workers"] == 2 and back[1]["S"] == 1.6667
    lines = table(back)
    alpha = next(line for line in lines if line.startswith("| alpha |"))
    assert alpha.startswith("| alpha | 1.00 (1.00) | 1.67 (0.83) | 0.30 | 0.90 | 12 | 1.67 | 3, 3 of 3 |")
    beta = next(line for line in lines if line.startswith("| beta |"))
    assert beta.endswith("| 1.00 | 1.00 | 40 | 1.20 | 3, 2 of 3 |")  # one disagreement shows, at its worker count
    assert lines[0].endswith("| answers = sequential's at 1, 2 |")
    master = next(line for line in lines if line.startswith("| master tree | Jurčovič"))
    assert "2: 3.25 (1.62)" in master and "16: 9.22 (0.58)" in master
    png = plot(back, tmp_path / "e.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_published_efficiencies():
    thesis = next(p for p in PUBLISHED if p.algorithm == "PV splitting + score sharing")
    assert round(thesis.efficiency()[11], 2) == 0.51  # the thesis's own figure
    assert round(thesis.efficiency()[3], 2) == 0.85


def test_a_missing_csv_is_refused_with_exit_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "concilio", "speedup-summary", str(tmp_path / "none.csv")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "none.csv: no such file" in done.stderr


def test_time_based_rows_join_only_where_timed(tmp_path):
    """A time-based CSV adds its rows timed on as many cores as workers; the oversubscribed
    ones (N and SO only) stay out of E's plot and table."""
    path = tmp_path / "t.csv"
    path.write_text("algorithm,workers,time_based,T,N,S,E,SO,VR,S_vr,production,messages,agree,positions\n"
                    "ybw,2,True,7.7,31,1.92,0.96,0.034,4.0,1.99,0.97,910,24,24\n"
                    "ybw,4,False,8.7,32,1.69,0.42,0.074,3.7,1.82,0.90,2194,24,24\n")
    back = read_rows(path)
    assert [(r["algorithm"], r["workers"]) for r in back] == [("ybw", 2)]
    line = next(line for line in table(back) if line.startswith("| ybw |"))
    assert line == "| ybw | 1.92 (0.96) | 0.03 | 0.97 | 910 | – | 24 of 24 |"
