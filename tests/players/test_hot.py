"""The search's hot functions are compiled without Numba's reference counting (``players.core.hot``)."""
import os
import subprocess
import sys
from pathlib import Path

from numba.core import types
from numba.core.registry import CPUDispatcher

import evaluation.evaluate as evaluate_module
import players.core.movegen as movegen_module
import players.core.movepick as movepick_module
import players.core.position as position_module
import players.core.search as search_module
import players.core.see as see_module
import players.core.shared_search as shared_search_module
import players.core.tt as tt_module
from players.bench import run_bench

ROOT = Path(__file__).resolve().parents[2]
MODULES = (evaluate_module, movegen_module, movepick_module, position_module, search_module, see_module,
           shared_search_module, tt_module)
# What a search node calls: each one must do no reference counting.
HOT_PATH = ("negamax", "quiescence", "search_root", "search_node", "negamax_shared", "search_root_shared",
            "search_node_shared", "static_eval", "score_moves", "drop_quiet_non_checks", "update_quiet_stats",
            "generate_moves", "make_move", "unmake_move", "in_check", "is_attacked", "check_info",
            "repetition_count", "see_ge", "tt_probe", "tt_store", "evaluate_cached", "compute_attacks",
            "evaluate_mobility_attacks", "evaluate_pawn_structure")


def _dispatchers():
    for module in MODULES:
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == module.__name__:
                yield name, obj


def _is_hot(dispatcher) -> bool:
    return dispatcher.targetoptions.get("_nrt") is False


def _holds_array(t) -> bool:
    if isinstance(t, types.Array):
        return True
    return isinstance(t, types.BaseTuple) and any(_holds_array(e) for e in t.types)


def test_every_function_a_search_node_calls_is_hot():
    defined = dict(_dispatchers())
    assert [name for name in HOT_PATH if name not in defined] == []
    assert [name for name in HOT_PATH if not _is_hot(defined[name])] == []


def test_no_hot_function_returns_an_array():
    """Numba refuses a new array from a function without its runtime but lets one return an
    array it was given; a caller with the runtime would then release a reference it never got."""
    run_bench(depth=3)  # compiles (or loads) what the search calls from Python
    compiled = 0
    for name, dispatcher in _dispatchers():
        if not _is_hot(dispatcher):
            continue
        for result in dispatcher.overloads.values():
            compiled += 1
            assert not _holds_array(result.signature.return_type), name
    assert compiled >= 2  # search_root and what the bench's Python side calls


def test_hot_code_has_no_reference_counting(tmp_path):
    """Compiled afresh (code loaded from the cache cannot be inspected), the evaluation and the
    move generator contain no call to ``NRT_incref`` or ``NRT_decref``: before they were
    compiled hot, one evaluation made some 26 such calls."""
    script = """
import numpy as np
from evaluation.evaluate import evaluate, evaluate_cached, new_scratch
from evaluation.params import DEFAULT_PARAMS
from players.core.movegen import generate_moves
from players.core.position import make_move, unmake_move
from players.position import Position
pos = Position().arrays
evaluate(pos, 127, np.ones(7), DEFAULT_PARAMS, *new_scratch())
moves = np.zeros(256, np.int64)
generate_moves(pos, moves, False)
make_move(pos, moves[0])
unmake_move(pos)
for function in (evaluate_cached, generate_moves, make_move, unmake_move):
    for ir in function.inspect_llvm().values():
        print(function.__name__, ir.count("@NRT_incref("), ir.count("@NRT_decref("))
"""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.split("\n")
    counts = {line.split()[0]: tuple(map(int, line.split()[1:])) for line in lines if line.strip()}
    assert counts == {name: (0, 0) for name in ("evaluate_cached", "generate_moves", "make_move", "unmake_move")}
