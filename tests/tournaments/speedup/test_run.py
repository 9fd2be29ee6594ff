"""``concilio speedup``: the thesis's table for a small configuration, end to end (sequential
reference, inline and Dask rows, shared tables created and released per position)."""
import os
from multiprocessing import shared_memory

import pytest

from base.config import ConfigError
from tournaments.speedup.run import load_speedup, run_speedup, write_csv

CONFIG = """
name: tiny
positions: {positions}
depth: 4
limit: 3
workers: [1, 2]
node_workers: []
search: {{exact: true, null_move: false, lmr: false, futility: false}}
algorithms:
  - {{name: root-split+pvs, algorithm: root_split}}
  - {{name: abdada, algorithm: abdada, shared_table: true}}
  - {{name: abdada+threads, algorithm: abdada, shared_table: true, threads: true}}
"""


def test_speedup_rows_for_every_algorithm_and_worker_count(tmp_path, data_dir):
    path = tmp_path / "tiny.yaml"
    path.write_text(CONFIG.format(positions=data_dir / "suites" / "bratko-kopec.epd"))
    settings, variants = load_speedup(path)
    assert [v.name for v in variants] == ["root-split+pvs", "abdada", "abdada+threads"]
    assert variants[1].search.defer and variants[2].threads and not variants[1].threads
    lines: list[str] = []
    rows = run_speedup(settings, variants, out=lines.append)
    assert [(r.algorithm, r.workers) for r in rows] == [(v.name, n) for n in (1, 2) for v in variants]
    for r in rows:
        assert r.agree == r.positions == 3  # every answer equals the sequential score
        assert r.T > 0 and r.N > 0 and r.S == pytest.approx(r.E * r.workers)
    assert sum("sequential again" in line for line in lines) == 1  # a fresh reference for the 2-worker rows
    assert sum("2 threads of one process: job round trip" in line for line in lines) == 1  # the second runner
    assert abs(rows[1].SO) < 0.01  # ABDADA with one worker searches the sequential tree
    for name in (f"concilio-{os.getpid()}-{i}-{n}" for i in range(3) for n in (1, 2)):
        with pytest.raises(FileNotFoundError):  # every position's shared table was released
            shared_memory.SharedMemory(name=name)
    write_csv(rows, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text().count("\n") == 7


def test_a_speedup_file_without_algorithms_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\ndepth: 4\n")
    with pytest.raises(ConfigError, match="bad.yaml.*algorithms"):
        load_speedup(path)


def test_a_bad_algorithm_item_is_named_with_its_line_in_the_speedup_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nsearch: {exact: true}\nalgorithms:\n  - {name: ok, algorithm: root_split}\n"
                    "  - {name: typo, algorithm: root_spilt}\n  - {name: lost, algorithm: abdada}\n")
    with pytest.raises(ConfigError) as info:
        load_speedup(path)
    problems = info.value.problems
    assert any(p.startswith(f"{path}:5: algorithms[1].algorithm: unknown algorithm 'root_spilt'") for p in problems)
    assert any(p.startswith(f"{path}:6: algorithms[2].shared_table: abdada defers") for p in problems)
