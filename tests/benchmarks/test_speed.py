"""benchmarks/speed.py: the two engines take turns position by position, and the sums per round are right."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.speed import interleaved_rounds  # noqa: E402


def test_engines_alternate_who_goes_first_and_rounds_sum_each_engine():
    calls = []

    def engine(name, nps):
        def run(fen):
            calls.append((name, fen))
            return nps, 1.0
        return run

    rounds = interleaved_rounds(engine("a", 100), engine("b", 50), ["p", "q", "r"], rounds=2)
    assert calls == [("a", "p"), ("b", "p"), ("b", "q"), ("a", "q"), ("a", "r"), ("b", "r"),
                     ("b", "p"), ("a", "p"), ("a", "q"), ("b", "q"), ("b", "r"), ("a", "r")]
    assert [(r.nodes_a, r.seconds_a, r.nodes_b, r.seconds_b) for r in rounds] == [(300, 3.0, 150, 3.0)] * 2
    assert rounds[0].ratio == pytest.approx(0.5)
