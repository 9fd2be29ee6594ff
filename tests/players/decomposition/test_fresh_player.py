"""The fresh lazy cluster as a decomposition player (issues 57 and 58): its files are checked,
its moves are the node clock's cluster's, it plays matches and UCI, a deadline, a stop order,
searchmoves and a new game reach it, and in real time it plays on Dask workers."""
import subprocess
import sys
import threading
from dataclasses import replace

import chess
import chess.engine
import pytest

from base.config import ConfigError
from players.decomposition.config import load_decomposition
from players.decomposition.fresh_cluster import FreshCluster, node_config
from players.decomposition.options import FreshClusterOptions
from players.limits import Limit
from players.position import Position
from tests.test_real_cluster import scheduler  # noqa: F401 - the external scheduler's fixture
from tests.uci_checks import answers_two_go_nodes

BK02 = "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1"


def small(name: str = "fresh-cluster", workers: int = 3):
    config = load_decomposition(name).with_workers(workers)
    return replace(config, search=replace(config.search, hash_mb=2))


def player(config):
    from players.decomposition.player import DecompositionPlayer
    return DecompositionPlayer(config)


def test_the_shipped_files_load_as_the_fresh_cluster():
    shipped = load_decomposition("fresh-cluster")
    assert shipped.algorithm == "fresh_cluster" and shipped.clock == "node" and shipped.in_process
    assert shipped.options == FreshClusterOptions(workers=4, batch=1000, threshold=4, adaptive=False, buffer=16,
                                                  topology="ring", latency=1000, carry=True)
    assert shipped.with_workers(16).options.workers == 16 == load_decomposition("fresh-cluster-16").options.workers
    realtime = load_decomposition("fresh-cluster-realtime")
    assert realtime.options.realtime and realtime.clock == "wall" and not realtime.in_process
    adaptive = load_decomposition(text="algorithm: fresh_cluster\nthreshold: adaptive\ntopology: all\nlatency: 0\n")
    assert (adaptive.options.adaptive, adaptive.options.threshold, adaptive.options.topology) == (True, 4, "all")


@pytest.mark.parametrize("text, problem", [
    ("batch: 0", "batch: 0 is out of range"),
    ("threshold: deep", "threshold: expected an integer 1..255 or adaptive"),
    ("threshold: 0", "threshold: 0 is out of range"),
    ("buffer: 300", "buffer: 300 is out of range"),
    ("topology: star", "topology: expected one of ring, all"),
    ("latency: 0", "latency: a ring forwards"),
    ("carry: 1", "carry: expected true or false"),
    ("delay_ms: 5", "delay_ms: only the real-time cluster"),
    ("realtime: true\ninterval_ms: 0", "interval_ms: expected a number > 0"),
    ("slice: 500", "slice: only lazy_cluster"),
    ("score_sharing: false", "score_sharing: only root_split"),
    ("shared_table: true", "shared_table: fresh_cluster workers share no memory"),
    ("cluster: {scheduler: 'tcp://10.0.0.1:8786'}", "cluster: fresh_cluster runs its workers in this process"),
])
def test_fresh_cluster_files_are_checked(tmp_path, text, problem):
    bad = tmp_path / "fresh.yaml"
    bad.write_text(f"algorithm: fresh_cluster\n{text}\n")
    with pytest.raises(ConfigError) as info:
        load_decomposition(bad)
    line = text.count("\n") + 2  # the field's own line: the file names it and its line
    assert any(p.startswith(f"{bad}:{line}: {problem}") for p in info.value.problems), info.value.problems


def test_its_keys_are_refused_to_other_algorithms():
    with pytest.raises(ConfigError, match="batch: only fresh_cluster has a batch, not 'lazy_cluster'"):
        load_decomposition(text="algorithm: lazy_cluster\nbatch: 500\n")
    assert load_decomposition(text="algorithm: fresh_cluster\nrealtime: true\n"
                                   "cluster: {scheduler: 'tcp://10.0.0.1:8786'}\n").scheduler == "tcp://10.0.0.1:8786"


def test_a_bad_fresh_cluster_file_exits_2(tmp_path, capsys):
    from concilio.cli import main
    bad = tmp_path / "fresh.yaml"
    bad.write_text("kind: decomposition\nalgorithm: fresh_cluster\nworkers: 2\nbatch: -5\ntopology: star\n")
    assert main(["play", str(bad), "--nodes", "1000"]) == 2
    err = capsys.readouterr().err
    assert "fresh.yaml:4: batch: -5 is out of range" in err and "fresh.yaml:5: topology: expected one of" in err


def test_the_player_plays_the_node_clocks_cluster_move_for_move():
    """Through the player, a game's moves and their metrics are those of ``FreshCluster.search``
    on the same positions: the answer is a pure function of (position, file, game so far)."""
    config = small()
    board = chess.Board()
    cluster = FreshCluster(node_config(config.options), config.search.build)
    with player(config) as p:
        p.new_game()
        for _ in range(3):
            played = p.play(board, Limit(nodes=4000))
            again = cluster.search(Position.from_fen(chess.STARTING_FEN, tuple(m.uci() for m in board.move_stack)),
                                   4000)
            assert played.move == again.move and played.nodes == again.nodes == 3 * 4000
            assert p.session.last.answers == again.answers and p.session.last.entries_sent == again.entries_sent
            assert played.report == (again.metrics(),) and played.report[0].startswith("fresh cluster: ")
            board.push_uci(played.move)


def test_a_new_game_gives_fresh_tables():
    """After a new game the player answers as a cluster just built (tables, outboxes and move
    stamps forgotten), though its tables held the position before."""
    config = small()
    board = chess.Board(BK02)
    fresh = FreshCluster(node_config(config.options), config.search.build)
    first = fresh.search(Position.from_fen(BK02), 3000)
    with player(config) as p:
        p.search(board, Limit(nodes=3000))
        p.search(board, Limit(nodes=3000))
        p.new_game()
        again = p.search(board, Limit(nodes=3000))
    assert p.session.last.answers == first.answers and again.nodes == first.nodes
    assert p.session.last.exchange.fresh_share == 1.0


def test_depth_searchmoves_and_a_deadline():
    config = small(workers=2)
    board = chess.Board(BK02)
    with player(config) as p:
        only = p.search(board, Limit(depth=4), searchmoves=("c1c2",))
        assert only.bestmove == "c1c2" and only.depth == 4
        assert all(a.depth == 4 for a in p.session.last.answers)
        timed = p.search(board, Limit(movetime=300))  # no node budget: the deadline ends it at a checkpoint
        assert chess.Move.from_uci(timed.bestmove) in board.legal_moves and timed.depth >= 1


def test_a_stop_order_ends_the_move_at_a_checkpoint():
    config = small(workers=2)
    board = chess.Board(BK02)
    with player(config) as p:
        p.start()
        threading.Timer(0.5, p.stop).start()
        r = p.search(board, Limit(depth=60))
        assert chess.Move.from_uci(r.bestmove) in board.legal_moves and r.depth < 60


def test_a_short_match_plays_the_same_moves_here_and_on_dask_workers(tmp_path):
    """The node clock's answer is a pure function of (position, file, game so far): a match
    played in this process and the same match on two Dask worker processes agree move for move."""
    from tests.tournaments.match.match_files import write
    from tournaments.match.run import run_match
    games = []
    for concurrency in (1, 2):
        (tmp_path / f"c{concurrency}").mkdir()
        config = write(tmp_path / f"c{concurrency}", f"""
            players: [{{name: fc2, decomposition: fresh-cluster, workers: 2}}]
            games: 2
            concurrency: {concurrency}
            time_control: {{nodes: 500}}
            max_plies: 10
        """)
        outcome = run_match(config, progress=False, out=lambda line: None)
        games.append(sorted((r.id, mainline(r.pgn)) for r in outcome.records))
    assert len(games[0]) == 2 and all(len(moves) == 10 for _, moves in games[0])
    assert games[0] == games[1]


def mainline(pgn: str) -> tuple[str, ...]:
    import io
    import chess.pgn
    return tuple(m.uci() for m in chess.pgn.read_game(io.StringIO(pgn)).mainline_moves())


def test_uci_fresh_cluster_answers_go_nodes():
    answers_two_go_nodes("fresh-cluster", "fresh_cluster", 3000)


def test_in_real_time_on_threads_of_this_process():
    config = replace(small("fresh-cluster-realtime", 2), in_process=True)
    board = chess.Board(BK02)
    with player(config) as p:
        p.new_game()
        played = p.play(board, Limit(nodes=20_000))
        assert chess.Move.from_uci(played.move) in board.legal_moves and p.session.where == "threads of this process"
        assert p.session.last.worker_nodes == (20_000, 20_000) and p.session.last.messages > 0
        assert played.report[0].startswith("fresh cluster (real time): ")
        only = p.search(board, Limit(nodes=5000), searchmoves=("c1c2",))
        assert only.bestmove == "c1c2"


@pytest.mark.slow
def test_in_real_time_on_a_local_dask_cluster_of_two_workers():
    config = small("fresh-cluster-realtime", 2)
    board = chess.Board(BK02)
    with player(config) as p:
        assert p.session.where == "local Dask workers"
        played = p.play(board, Limit(nodes=30_000))
        assert chess.Move.from_uci(played.move) in board.legal_moves
        assert p.session.last.real_time.lost == () and p.session.last.real_time.delivered > 0


@pytest.mark.slow
def test_in_real_time_it_plays_uci_and_a_match(tmp_path):
    """The real-time player behind a GUI (two ``go movetime`` in a row) and in a match, its
    workers on a local Dask cluster of its own both times."""
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "concilio", "uci", "fresh-cluster-realtime"],
                                                 timeout=120)
    try:
        assert "fresh_cluster" in engine.id["name"]
        board = chess.Board(BK02)
        for _ in range(2):
            move = engine.play(board, chess.engine.Limit(time=0.3)).move
            assert move in board.legal_moves
            board.push(move)
    finally:
        engine.quit()
    from tests.tournaments.match.match_files import write
    from tournaments.match.run import run_match
    config = write(tmp_path, """
        players: [{name: rt2, decomposition: fresh-cluster-realtime, workers: 2}]
        games: 2
        time_control: {nodes: 3000}
        max_plies: 8
    """)
    outcome = run_match(config, progress=False, out=lambda line: None)
    assert len(outcome.records) == 2 and all(r.plies == 8 for r in outcome.records)


@pytest.mark.slow
def test_in_real_time_on_an_external_scheduler(scheduler):  # noqa: F811 - the fixture
    config = replace(small("fresh-cluster-realtime", 2), scheduler=scheduler)
    board = chess.Board(BK02)
    with player(config) as p:
        assert p.session.where == f"Dask workers at {scheduler}"
        played = p.play(board, Limit(nodes=30_000))
        assert chess.Move.from_uci(played.move) in board.legal_moves
        assert p.session.last.real_time.lost == () and p.session.last.real_time.delivered > 0


def test_reading_its_file_and_naming_its_player_load_no_engine():
    probe = ("import sys\n"
             "from players.decomposition.config import load_decomposition\n"
             "from players.decomposition.player import DecompositionPlayer\n"
             "load_decomposition('fresh-cluster-realtime'); load_decomposition('fresh-cluster')\n"
             "print([m for m in sys.modules if m.startswith('players.core') or m == 'players.searcher'])\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr[-2000:]
