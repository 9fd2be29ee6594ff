"""benchmarks/profile_search.py: numba's mangled names read back, perf's report summed by function."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.profile_search import readable, shares  # noqa: E402

REPORT = """\
# Overhead  Shared Object  Symbol
    18.19%  libpython3.11.so.1.0   [.] _PyEval_EvalFrameDefault
     4.50%  [JIT] tid 23920        [.] _ZN7players4core6search7negamaxB4v362B52c8tJTIeFIjxB2IKSgI4Crv
     1.50%  [JIT] tid 23920        [.] _ZN7players4core6search7negamaxB4v9999B52otherlibrarycopy
     3.00%  [JIT] tid 23920        [.] _ZN10evaluation8evaluate15compute_attacksB4v210B40c8tJTIeFIjx
     1.00%  [JIT] tid 23920        [.] 0x00007fe9d2e47813
"""


def test_mangled_names_read_as_module_and_function():
    assert readable("_ZN7players4core6search7negamaxB4v362B52c8tJTIeFIjxB2IKSg") == "search.negamax"
    assert readable("_ZN10evaluation8evaluate15compute_attacksB4v210") == "evaluate.compute_attacks"


def test_shares_are_of_compiled_samples_and_sum_copies_of_a_function():
    table = shares(REPORT)
    # Python's samples are left out; the two copies of negamax (one per library that links it) add up.
    assert set(table) == {"search.negamax", "evaluate.compute_attacks", "0x00007fe9d2e47813"}
    assert table["search.negamax"] == pytest.approx(60.0)
    assert table["evaluate.compute_attacks"] == pytest.approx(30.0)
    assert sum(table.values()) == pytest.approx(100.0)
