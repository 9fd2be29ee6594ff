"""benchmarks/abdada_cores.py: the yardstick agrees with itself, and the team runs pinned to one core."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.abdada_cores import run_alone, run_team  # noqa: E402

FENS = ["r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
        "2r2rk1/1b2bppp/p3pn2/1p6/3N4/1BN1P3/PP3PPP/2R2RK1 w - - 0 18"]


def test_the_full_engine_agrees_with_itself_as_reference():
    from players.limits import Limit
    from players.searcher import Searcher
    engine = Searcher()
    reference = {}
    for fen in FENS:
        engine.new_game()
        reference[fen] = engine.search(fen, Limit(nodes=2000)).bestmove
    depth, agree = run_alone(FENS, 2000, reference)
    assert agree == 1.0 and depth >= 3


def test_the_team_runs_on_the_cores_it_is_given():
    before = os.sched_getaffinity(0)
    one = {min(before)}
    try:
        depth, agree = run_team(FENS, 2000, one, {fen: "a1a1" for fen in FENS})
        assert os.sched_getaffinity(0) == one and depth >= 3 and agree == 0.0  # no move is a1a1
    finally:
        os.sched_setaffinity(0, before)
