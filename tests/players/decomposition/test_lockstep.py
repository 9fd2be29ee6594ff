"""The lazy cluster in lockstep mode: the exchange's timing, the vote, the single-worker
case against the plain searcher, and determinism."""
import numpy as np
import pytest

from players.core.tt import BOUND_EXACT, entry_depth, new_table, tt_export_deep, tt_probe, tt_store
from players.decomposition.options import SearcherConfig
from players.decomposition.lockstep import LockstepConfig, WorkerAnswer, run_lockstep, skips, vote
from players.decomposition.master_worker import Entries, Team
from players.limits import Limit
from players.searcher import Searcher

OPTIONS = SearcherConfig(hash_mb=2)
BK02 = "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1"
BK04 = "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1"


def test_export_deep_keeps_the_deep_entries_deepest_first():
    tt = new_table(1, 1)
    for key, depth in ((11, 2), (12, 7), (13, 5), (14, 9), (15, 5)):
        tt_store(tt, np.uint64(key), 0, BOUND_EXACT, depth, 10, 0)
    keys, data = tt_export_deep(tt, 5, 3)
    assert [int(entry_depth(d)) for d in data] == [9, 7, 5]
    assert list(keys[:2]) == [14, 12] and keys[2] in (13, 15)
    assert tt_export_deep(tt, 10, 3)[0].size == 0
    again = tt_export_deep(tt, 5, 3)
    assert np.array_equal(again[0], keys) and np.array_equal(again[1], data)


class Recording(Team):
    """The in-process workers, remembering which of worker 0's sent keys worker 1's table
    holds as each slice begins, and what each slice delivered to worker 1."""

    def __init__(self, *args):
        super().__init__(*args)
        self.slice = 0
        self.sent: dict[int, set] = {}  # slice -> keys worker 0 sent at its end
        self.held: dict[int, set] = {}  # slice -> those keys worker 1 held as the slice began
        self.delivered: dict[int, object] = {}  # slice -> what worker 1 got at its start

    def run_slice(self, delivered, budget, order=None):
        table = self.workers[1].searcher.tt
        sent = set().union(*self.sent.values()) if self.sent else set()
        self.held[self.slice] = {k for k in sent if tt_probe(table, np.uint64(k))}
        self.delivered[self.slice] = next(((m.keys, m.data) for m in delivered.get(1, ()) if isinstance(m, Entries)),
                                          None)
        reports = super().run_slice(delivered, budget, order)
        exported = reports[0].exported
        self.sent[self.slice] = set() if exported is None else {int(k) for k in exported[0]}
        self.slice += 1
        return reports


@pytest.mark.parametrize("latency", [1, 3])
def test_an_entry_from_worker_0_reaches_worker_1_after_latency_slices(latency):
    """Worker 1 searches another position than worker 0 (its begin is redirected), so worker
    0's entries can enter its table only by the exchange: sent at the end of slice 0, they
    must be absent as slices 1 .. latency begin and present once slice ``latency`` began."""
    config = LockstepConfig(workers=2, slice=1500, exchange_depth=3, exchange_size=64, latency=latency)
    t = Recording(OPTIONS, 2)
    t.workers[1].begin = _other_root(t.workers[1].begin)
    run_lockstep(t, config, BK02, nodes=12000)
    sent = t.sent[0]
    assert sent, "worker 0 sent nothing at the end of its first slice"
    for s in range(1, latency + 1):
        assert not (t.held[s] & sent), f"slice {s}: worker 0's entries arrived early"
    assert all(t.delivered[s] is None for s in range(0, latency))
    assert sent <= {int(k) for k in t.delivered[latency][0]}
    assert len(t.held[latency + 1] & sent) >= len(sent) // 2  # stored (a few may be overwritten since)


def _other_root(begin):
    def other(fen, moves, searchmoves=()):
        return begin(BK04, (), searchmoves)
    return other


def test_the_vote_by_hand():
    a = [WorkerAnswer(0, "e2e4", 30, 8, ("e2e4", "e7e5")),
         WorkerAnswer(1, "d2d4", 50, 7, ("d2d4",)),
         WorkerAnswer(2, "e2e4", 20, 9, ("e2e4", "e7e5", "g1f3")),
         WorkerAnswer(3, "c2c4", 10, 8, ("c2c4",))]
    # min 10: e2e4 (30-10+14) + (20-10+14) = 58, d2d4 54, c2c4 14; e2e4's longer PV is worker 2's.
    assert vote(a).worker == 2
    # d2d4 at 55 instead: 59 > 58.
    a[1] = WorkerAnswer(1, "d2d4", 55, 7, ("d2d4",))
    assert vote(a).worker == 1
    # equal votes: the longer PV answers.
    tie = [WorkerAnswer(0, "a2a3", 10, 5, ("a2a3",)), WorkerAnswer(1, "h2h3", 10, 5, ("h2h3", "h7h6"))]
    assert vote(tie).worker == 1
    # a proven mate overrides a majority; the shorter mate among two wins.
    mate = [WorkerAnswer(0, "e2e4", 40, 9, ("e2e4",)), WorkerAnswer(1, "e2e4", 40, 9, ("e2e4",)),
            WorkerAnswer(2, "d1h5", 31990, 6, ("d1h5",)), WorkerAnswer(3, "f3f7", 31996, 5, ("f3f7",))]
    assert vote(mate).worker == 3
    # a proven loss does not answer while another worker sees none; workers with no iteration do not vote.
    lost = [WorkerAnswer(0, "a2a3", -31990, 9, ("a2a3",)), WorkerAnswer(1, "b2b3", -50, 3, ("b2b3",)),
            WorkerAnswer(2, "c2c3", 900, 0, ("c2c3",))]
    assert vote(lost).worker == 1


def test_one_worker_without_exchange_is_the_plain_searcher():
    """One slice of N nodes: the lockstep worker is the plain searcher at N nodes."""
    for fen, n in ((BK02, 20000), (BK04, 15000)):
        plain = Searcher(hash_mb=2).search(fen, Limit(nodes=n))
        r = run_lockstep(Team(OPTIONS, 1), LockstepConfig(1, n, 4, 0, 1), fen, nodes=n)
        assert (r.move, r.score, r.depth, r.nodes, r.messages) == (plain.bestmove, plain.score_cp, plain.depth,
                                                                   plain.nodes, 0)


def test_one_worker_in_slices_keeps_its_progress():
    """Slices restart the interrupted iteration over the kept table: the same budget in ten
    slices still completes iterations (the table carries the interrupted work)."""
    r = run_lockstep(Team(OPTIONS, 1), LockstepConfig(1, 2000, 4, 0, 1), BK02, nodes=20000)
    assert r.slices == 10 and r.nodes == 20000 and r.depth >= 6


def test_runs_are_a_pure_function_of_position_and_config():
    config = LockstepConfig(4, 1000, 3, 128, 2)
    a = run_lockstep(Team(OPTIONS, 4), config, BK02, nodes=8000)
    b = run_lockstep(Team(OPTIONS, 4), config, BK02, nodes=8000)
    assert (a.move, a.score, a.worker_nodes, a.messages, a.entries_sent) == (b.move, b.score, b.worker_nodes,
                                                                             b.messages, b.entries_sent)
    assert a.messages > 0 and a.slices == 8


def test_exchange_changes_the_search():
    off = run_lockstep(Team(OPTIONS, 4), LockstepConfig(4, 1000, 3, 0, 1), BK02, nodes=8000)
    on = run_lockstep(Team(OPTIONS, 4), LockstepConfig(4, 1000, 3, 128, 1), BK02, nodes=8000)
    assert off.messages == 0 and on.messages > 0
    assert [a.pv for a in off.answers] != [a.pv for a in on.answers] or off.iterations != on.iterations


def test_depth_budget_and_skipping():
    r = run_lockstep(Team(OPTIONS, 3), LockstepConfig(3, 5000, 4, 64, 1), BK04, depth=5)
    assert all(a.depth == 5 for a in r.answers)
    assert [d for d in range(1, 10) if skips(1, d, 9)] == [3, 5, 7]
    assert [d for d in range(1, 10) if skips(2, d, 9)] == [2, 4, 6, 8]
    assert not skips(0, 3, 9) and not skips(1, 9, 9)


def test_lazy_cluster_files_are_checked(tmp_path):
    from base.config import ConfigError
    from players.decomposition.config import load_decomposition
    shipped = load_decomposition("lazy-cluster")
    assert shipped.algorithm == "lazy_cluster"
    assert shipped.options == LockstepConfig(workers=4, slice=2000, exchange_depth=4, exchange_size=256, latency=1)
    for text, field in (("slice: 0", "slice"), ("latency: 0", "latency"), ("exchange_size: -1", "exchange_size"),
                        ("exchange_depth: 300", "exchange_depth"), ("slice: many", "slice"),
                        ("shared_table: true", "shared_table")):
        bad = tmp_path / "lazy.yaml"
        bad.write_text(f"algorithm: lazy_cluster\n{text}\n")
        with pytest.raises(ConfigError, match=rf"lazy.yaml.*{field}"):
            load_decomposition(bad)
    with pytest.raises(ConfigError, match="latency.*only lazy_cluster"):
        load_decomposition(text="algorithm: lazy_smp\nlatency: 2\n")


def test_a_bad_lazy_cluster_file_exits_2(tmp_path, capsys):
    from concilio.cli import main
    bad = tmp_path / "lazy.yaml"
    bad.write_text("kind: decomposition\nalgorithm: lazy_cluster\nworkers: 2\nslice: -5\nlatency: 0\n")
    assert main(["play", str(bad), "--nodes", "1000"]) == 2
    err = capsys.readouterr().err
    assert "lazy.yaml:4: slice: -5 is out of range" in err and "lazy.yaml:5: latency: 0 is out of range" in err


def test_the_decomposition_player_plays_the_lazy_cluster():
    import chess
    from dataclasses import replace
    from players.decomposition.config import load_decomposition
    from players.decomposition.player import DecompositionPlayer
    config = load_decomposition("lazy-cluster")
    config = replace(config, in_process=True, search=replace(config.search, hash_mb=2))
    with DecompositionPlayer(config) as player:
        played = player.play(chess.Board(BK02), Limit(nodes=4000))
        again = run_lockstep(Team(config.search, 4), config.options, BK02, nodes=4000)
    assert played.move == again.move and played.nodes == again.nodes == 16000
    assert any("lockstep:" in line and "messages" in line for line in played.report)


def test_dask_and_in_process_runs_are_identical(data_dir):
    """2 Dask worker processes holding 4 search workers answer exactly as the in-process
    reference: the same moves, scores, depths, node counts and messages, on Bratko-Kopec
    positions, the workers' tables kept from one position to the next in both."""
    from players.decomposition.lockstep_dask import DaskTeam
    lines = (data_dir / "suites" / "bratko-kopec.epd").read_text().splitlines()
    fens = [" ".join(line.split()[:4]) + " 0 1" for line in lines if line.strip()][:4]
    config = LockstepConfig(4, 1500, 3, 128, 2)
    reference = Team(OPTIONS, 4)
    dask = DaskTeam(OPTIONS, 4, processes=2)
    try:
        assert len(set(dask.homes)) == 2
        for fen in fens:
            a = run_lockstep(reference, config, fen, nodes=9000)
            b = run_lockstep(dask, config, fen, nodes=9000)
            assert (a.move, a.score, a.depth, a.pv, a.worker_nodes, a.slices, a.messages, a.entries_sent) == \
                   (b.move, b.score, b.depth, b.pv, b.worker_nodes, b.slices, b.messages, b.entries_sent), fen
            assert a.answers == b.answers
            assert a.messages > 0
        reference.new_game()  # a new game clears the tables the same way in both
        dask.new_game()
        a, b = (run_lockstep(t, config, fens[1], nodes=9000) for t in (reference, dask))
        assert (a.move, a.score, a.worker_nodes, a.answers) == (b.move, b.score, b.worker_nodes, b.answers)
        assert a.answers == run_lockstep(Team(OPTIONS, 4), config, fens[1], nodes=9000).answers
    finally:
        dask.close()


def test_searchmoves_restrict_every_workers_root():
    """UCI's go searchmoves: the cluster answers among the given moves only, and with the one
    move the whole cluster would play anyway it answers exactly as without the restriction."""
    import chess
    from dataclasses import replace
    from players.decomposition.config import load_decomposition
    from players.decomposition.player import DecompositionPlayer
    config = LockstepConfig(2, 2000, 4, 64, 1)
    free = run_lockstep(Team(OPTIONS, 2), config, BK02, nodes=6000)
    others = tuple(m.uci() for m in chess.Board(BK02).legal_moves if m.uci() != free.move)[:3]
    held = run_lockstep(Team(OPTIONS, 2), config, BK02, nodes=6000, searchmoves=others)
    assert held.move in others and all(a.move in others for a in held.answers)
    alone = run_lockstep(Team(OPTIONS, 2), config, BK02, depth=4, searchmoves=(free.move,))
    assert alone.move == free.move
    with pytest.raises(ValueError, match="not legal"):
        run_lockstep(Team(OPTIONS, 2), config, BK02, nodes=2000, searchmoves=("a1a8",))
    player_config = replace(load_decomposition("lazy-cluster-in-process"), search=replace(OPTIONS))
    with DecompositionPlayer(player_config) as player:
        played = player.play(chess.Board(BK02), Limit(nodes=3000, searchmoves=others[:2]))
    assert played.move in others[:2]
