"""The decomposition player: every algorithm reproduces the sequential fixed-depth score
on the 24 Bratko-Kopec positions, cut-offs cancel work, and the player plays."""
import time

import chess
import pytest

from players.decomposition.algorithms import Master, iterate
from players.decomposition.config import load_decomposition
from players.decomposition.jobs import SearchOptions
from players.decomposition.player import DecompositionPlayer
from players.decomposition.runner import DaskRunner, InlineRunner
from players.result import SearchLimits
from tournaments.epd import load_suite

EXACT = SearchOptions(null_move=False, lmr=False, futility=False, exact=True)
VARIANTS = [("root_split", False, {}), ("root_split", True, {}), ("root_split", True, {"speculative": True}),
            ("peer", True, {}), ("pv_split", True, {}), ("pv_split", True, {"null_window": False}),
            ("dynamic_split", True, {}), ("lazy_smp", True, {})]


@pytest.fixture(scope="module")
def bk(shared_data):
    positions = load_suite(shared_data / "suites" / "bratko-kopec.epd").positions
    assert len(positions) == 24
    return positions


@pytest.fixture(scope="module")
def sequential(bk):
    out = []
    for p in bk:
        r = EXACT.make_searcher().search(p.fen, SearchLimits(depth=4))
        out.append((r.score_cp, r.bestmove))
    return out


def check(runner, bk, sequential, algorithm, sharing, tag, options):
    wrong = []
    for i, p in enumerate(bk):
        master = Master(runner, EXACT, f"{tag}-{algorithm}-{sharing}-{i}-{time.time_ns()}", sharing, **options)
        r = iterate(master, algorithm, p.fen, (), 4)
        if r.score != sequential[i][0]:
            wrong.append((i, r.score, sequential[i][0]))
    return wrong


@pytest.mark.parametrize("algorithm,sharing,options", VARIANTS)
def test_inline_algorithms_reproduce_the_sequential_score(bk, sequential, algorithm, sharing, options):
    assert check(InlineRunner(), bk, sequential, algorithm, sharing, "inline", options) == []


def test_parallel_algorithms_on_dask_reproduce_the_sequential_score(bk, sequential):
    runner = DaskRunner(2)
    try:
        for algorithm, sharing, options in VARIANTS:
            assert check(runner, bk, sequential, algorithm, sharing, "dask", options) == [], (algorithm, options)
    finally:
        runner.close()


def test_a_cutoff_cancels_the_jobs_still_running():
    runner = DaskRunner(2)
    try:
        # The first root move of this position refutes everything at a null window above it:
        # searching the node with beta below the eldest's value cuts after one job.
        fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8 mates
        master = Master(runner, EXACT, f"cut-{time.time_ns()}", True)
        board = chess.Board(fen)
        children = ["a1a8"] + [m.uci() for m in board.legal_moves if m.uci() != "a1a8"]
        value, move, _, _ = master.split(fen, (), board, 6, 0, -30000, 0, children)
        assert move == "a1a8" and value > 30000 - 10
        assert master.tally.jobs == 1  # the eldest alone: the others were never needed
        # Without the eldest first, parallel siblings get stopped when the mate arrives.
        master2 = Master(runner, EXACT, f"cut2-{time.time_ns()}", True)
        children2 = [m for m in children if m != "a1a8"] + ["a1a8"]
        value2, move2, _, _ = master2.split(fen, (), board, 6, 0, -30000, 5000, children2)
        assert move2 == "a1a8"
    finally:
        runner.close()


def test_the_player_answers_within_its_movetime():
    config = load_decomposition(text="algorithm: pv_split\nworkers: 2\nmin_split_depth: 3\n")
    with DecompositionPlayer(config) as player:
        board = chess.Board()
        board.push_uci("e2e4")
        started = time.perf_counter()
        result = player.search(board, SearchLimits(movetime=1500))
        elapsed = time.perf_counter() - started
        assert chess.Move.from_uci(result.bestmove) in board.legal_moves
        assert result.depth >= 2 and elapsed < 1.5 + 0.5
        fixed = player.search(chess.Board(), SearchLimits(depth=5))
        assert fixed.depth == 5


def test_the_player_with_a_shared_table_plays_and_frees_it():
    from multiprocessing import shared_memory
    config = load_decomposition(text="algorithm: root_split\nworkers: 2\nmin_split_depth: 3\nspeculative: true\n"
                                     "shared_table: true\nsearch: {hash_mb: 4}\n")
    with DecompositionPlayer(config) as player:
        board = chess.Board()
        result = player.search(board, SearchLimits(movetime=1000))
        assert chess.Move.from_uci(result.bestmove) in board.legal_moves and result.depth >= 3
        table = player._table
        assert table
        player.new_game()  # the game's table is released and unlinked
        with pytest.raises(FileNotFoundError):
            shared_memory.SharedMemory(name=table)


def test_bad_decomposition_files_are_named():
    from ensemble.yaml_source import ConfigError
    with pytest.raises(ConfigError, match="unknown algorithm 'abdada'"):
        load_decomposition(text="algorithm: abdada\n")
    with pytest.raises(ConfigError, match="search.mask"):
        load_decomposition(text="algorithm: pv_split\nsearch: {mask: MQ}\n")
    with pytest.raises(ConfigError, match="speculative.*only root_split"):
        load_decomposition(text="algorithm: pv_split\nspeculative: true\n")
    with pytest.raises(ConfigError, match="margin"):
        load_decomposition(text="algorithm: root_split\nspeculative: true\nmargin: -5\n")
    config = load_decomposition(text="algorithm: root_split\nspeculative: true\nmargin: 40\nnull_window: false\n")
    assert config.master_options() == {"score_sharing": True, "min_split_depth": 5, "null_window": False,
                                       "speculative": True, "margin": 40}


def test_a_shared_beta_below_alpha_leaves_the_probe_a_true_bound(bk):
    """Score sharing may announce a bound below a null-window probe's alpha; the job must
    still answer with a bound of its true value (an empty window once returned values that
    bound nothing, and the table kept them)."""
    from players.core.search import C_STATS, S_SHARED_BETA, S_SPLIT_PLY, search_node
    from players.position import Position
    for p in bk[:8]:
        board = chess.Board(p.fen)
        move = next(iter(board.legal_moves))
        exact = EXACT.make_searcher()
        value, _, _ = exact.search_node(Position.from_fen(p.fen, (move.uci(),)), 3, 1, -32001, 32001)
        probe = EXACT.make_searcher()
        stats = probe.ctx[C_STATS]
        stats[:] = 0
        stats[S_SPLIT_PLY] = 1
        stats[S_SHARED_BETA] = value - 200  # below the window: as if the master had moved on
        result = search_node(Position.from_fen(p.fen, (move.uci(),)).arrays, probe.tt, probe.ctx, 3, 1,
                             value - 1, value)
        assert result >= value, (p.fen, move.uci(), value, result)  # a fail high: value >= result
        stats[:] = 0
        stats[S_SPLIT_PLY] = 1
        stats[S_SHARED_BETA] = value - 200
        result = search_node(Position.from_fen(p.fen, (move.uci(),)).arrays, probe.tt, probe.ctx, 3, 1,
                             value, value + 1)
        assert result <= value, (p.fen, move.uci(), value, result)  # a fail low: value <= result


@pytest.mark.parametrize("algorithm,options", [("root_split", {}), ("root_split", {"speculative": True}),
                                               ("lazy_smp", {})])
def test_a_table_shared_by_the_workers_keeps_the_sequential_score(bk, sequential, algorithm, options):
    """Workers writing one lockless table in shared memory (torn entries fail the key test)."""
    from dataclasses import replace
    runner = DaskRunner(2)
    try:
        for i, p in enumerate(bk[:8]):
            table = runner.new_table(f"concilio-test-{time.time_ns()}", 4)
            master = Master(runner, replace(EXACT, table=table), f"shared-{i}-{time.time_ns()}", True, **options)
            r = iterate(master, algorithm, p.fen, (), 4, 0)
            from players.decomposition.player import drop_all
            drop_all(runner, master.key)
            runner.release_table(table)
            assert r.score == sequential[i][0], (i, algorithm, options)
    finally:
        runner.close()
