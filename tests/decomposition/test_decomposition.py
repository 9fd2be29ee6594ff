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
def bk(data_dir):
    positions = load_suite(data_dir / "suites" / "bratko-kopec.epd").positions
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


def play_within(text: str, first: str, movetime: int, fixed_depth: int):
    """The player's answer after ``first`` within ``movetime`` ms (checked: legal, on time plus
    0.5 s), and then at a fixed depth from the start (checked: that depth)."""
    with DecompositionPlayer(load_decomposition(text=text)) as player:
        board = chess.Board()
        board.push_uci(first)
        started = time.perf_counter()
        result = player.search(board, SearchLimits(movetime=movetime))
        elapsed = time.perf_counter() - started
        assert chess.Move.from_uci(result.bestmove) in board.legal_moves
        assert elapsed < movetime / 1000 + 0.5
        fixed = player.search(chess.Board(), SearchLimits(depth=fixed_depth))
        assert fixed.depth == fixed_depth
    return result


def test_the_player_answers_within_its_movetime():
    result = play_within("algorithm: pv_split\nworkers: 2\nmin_split_depth: 3\n", "e2e4", 1500, 5)
    assert result.depth >= 2


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
    from concilio.config import ConfigError
    with pytest.raises(ConfigError, match="unknown algorithm 'dts'"):
        load_decomposition(text="algorithm: dts\n")
    with pytest.raises(ConfigError, match="abdada defers moves through a shared table"):
        load_decomposition(text="algorithm: abdada\n")
    assert load_decomposition(text="algorithm: abdada\nshared_table: true\n").search.defer
    with pytest.raises(ConfigError, match="threads.*local cluster"):
        load_decomposition(text="algorithm: abdada\nshared_table: true\nthreads: true\n"
                                "cluster: {scheduler: 'tcp://10.0.0.1:8786'}\n")
    assert load_decomposition("abdada").threads and not load_decomposition(text="algorithm: lazy_smp\n").threads
    with pytest.raises(ValueError, match="local cluster"):
        DaskRunner(2, "tcp://10.0.0.1:8786", threads=True)
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


@pytest.mark.parametrize("algorithm,options,threads", [("root_split", {}, False),
                                                       ("root_split", {"speculative": True}, False),
                                                       ("lazy_smp", {}, False), ("abdada", {}, False),
                                                       ("abdada", {}, True)])
def test_a_table_shared_by_the_workers_keeps_the_sequential_score(bk, sequential, algorithm, options, threads):
    """Workers writing one lockless table in shared memory (torn entries fail the key test),
    or search threads writing one in their process's memory; ABDADA's workers also defer
    each other's moves through it."""
    from dataclasses import replace

    from players.decomposition.player import drop_all
    runner = DaskRunner(2, threads=threads)
    try:
        nodes = 0
        for i, p in enumerate(bk):
            table = runner.new_table(f"concilio-test-{time.time_ns()}", 4)
            search = replace(EXACT, table=table, defer=algorithm == "abdada")
            master = Master(runner, search, f"shared-{i}-{time.time_ns()}", True, **options)
            r = iterate(master, algorithm, p.fen, (), 4, 0)
            drop_all(runner, master.key)
            runner.release_table(table)
            assert r.score == sequential[i][0], (i, algorithm, options)
            assert r.depth == 4
            nodes += r.tally.nodes
        assert nodes > 0  # every worker's nodes are counted, the stopped ones' too
    finally:
        runner.close()


def test_a_move_another_search_is_busy_with_is_deferred_and_the_score_kept(bk):
    """ABDADA's deferral in the search core: mark the second root move's position busy (as
    if another worker searched it); the search puts it off, still searches it (its mark is
    cleared afterwards) and returns the same fixed-depth score."""
    from dataclasses import replace

    from players.core.moves import ST_PLY
    from players.core.search import C_OPTS, O_DEFER
    from players.core.tt import busy_with, mark_busy
    from players.position import Position
    changed = 0
    for p in bk[:12]:
        plain = EXACT.make_searcher()
        expected = plain.search(p.fen, SearchLimits(depth=4))
        deferring = replace(EXACT, defer=True, table="").make_searcher()
        deferring.ctx[C_OPTS][O_DEFER] = 1  # on a private table: only the mark made here is set
        root_moves, n = deferring._root_moves(Position.from_fen(p.fen), None)
        if n < 3:
            continue
        child = Position.from_fen(p.fen, (_uci(root_moves[1]),)).arrays
        key = child[4][child[2][ST_PLY]]
        mark_busy(deferring.tt[1], key)
        result = deferring.search(p.fen, SearchLimits(depth=4))
        assert result.score_cp == expected.score_cp, p.fen
        assert not busy_with(deferring.tt[1], key)
        changed += result.nodes != expected.nodes
    assert changed > 0  # the order changed, so did the tree


def _uci(code) -> str:
    from players.core.moves import move_to_uci
    return move_to_uci(int(code))


def test_a_job_stopped_before_it_starts_does_not_search():
    """The master may stop a lazy SMP job before the worker has started it (the deadline came
    first); the job must then answer at once instead of searching to its full depth."""
    import asyncio

    from players.decomposition import jobs
    asyncio.run(jobs.stop_jobs(["early-job"]))
    started = time.perf_counter()
    r = jobs.run_search("early-key", "early-job", EXACT, chess.STARTING_FEN, (), 60)
    assert r.depth == 0 and r.nodes == 0 and time.perf_counter() - started < 1.0


def test_search_threads_of_one_worker_search_at_the_same_time(bk):
    """``threads``: two actors in one worker process, each with its own thread.  Were they one
    thread (Dask's default for actors), the second job would start only after the first had
    answered, find its stop order and return at once: busy time would be the wall time, not
    twice it."""
    from dataclasses import replace

    from players.decomposition.player import drop_all
    runner = DaskRunner(2, threads=True)
    try:
        assert runner.workers == 2 and len(runner.addresses) == 1 and len(runner.signal_actors) == 1
        table = runner.new_table(f"concilio-test-{time.time_ns()}", 4)
        master = Master(runner, replace(EXACT, table=table, defer=True), f"threads-{time.time_ns()}", True)
        r = iterate(master, "abdada", bk[3].fen, (), 6, 0)
        assert r.tally.jobs == 2 and r.tally.busy > 1.5 * r.wall, (r.tally.busy, r.wall)
        drop_all(runner, master.key)
        runner.release_table(table)

        def local_tables() -> list[str]:  # nested: cloudpickle sends it by value
            from players.core import tt
            return list(tt._LOCAL)
        assert runner.client.run(local_tables) == {runner.addresses[0]: []}
    finally:
        runner.close()


def test_the_abdada_player_answers_within_its_movetime():
    result = play_within("algorithm: abdada\nworkers: 2\nshared_table: true\nthreads: true\nsearch: {hash_mb: 4}\n",
                         "d2d4", 1000, 6)
    assert result.depth >= 5
    assert result.iterations and result.iterations[-1].depth == result.depth
