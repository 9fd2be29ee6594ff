"""The cascade player: phase 2 searches only phase 1's candidates, a unanimous phase 1
decides alone, and a match takes a cascade but keeps it off parallel games."""
import chess
import pytest

from base.config import ConfigError
from ensemble.cascade.config import load_cascade
from ensemble.cascade.player import CascadePlayer
from players.decomposition.config import load_decomposition
from players.decomposition.player import DecompositionPlayer
from players.limits import Limit
from tests.ensemble.cascade.cascade_files import ABDADA, write


def test_the_restricted_abdada_search_plays_only_the_allowed_moves():
    with DecompositionPlayer(load_decomposition(text=ABDADA)) as player:
        board = chess.Board()
        result = player.search(board, Limit(depth=5), ("a2a3", "h2h3"))
        assert result.bestmove in ("a2a3", "h2h3") and result.depth == 5 and result.root_moves == 2
        assert all(it.pv[0] in ("a2a3", "h2h3") for it in result.iterations)


def test_phase_two_chooses_among_the_candidates_and_counts_every_node(tmp_path):
    with CascadePlayer(load_cascade(write(tmp_path))).start() as player:
        played = player.play(chess.Board(), Limit(nodes=6000))
    phase1, phase2 = played.report
    candidates = phase1.split("candidates ")[1].split()
    assert len(candidates) == 2, phase1  # the two instances disagree here
    assert played.move in candidates and phase2.startswith("phase 2 (abdada, 2 root moves)")
    searched = int(phase2.rsplit("nodes ", 1)[1])
    assert 0 < searched <= 3000 and played.nodes > searched  # phase 1's nodes are counted too


def test_a_unanimous_phase_one_is_played_verified_or_widened_as_told(tmp_path):
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")  # back-rank mate: Ra8#
    with CascadePlayer(load_cascade(write(tmp_path))).start() as player:
        played = player.play(board, Limit(nodes=4000))
    assert played.move == "a1a8" and "phase 2 skipped (unanimous)" in played.report[-1]
    with CascadePlayer(load_cascade(write(tmp_path, unanimous="search"))).start() as player:
        played = player.play(board, Limit(nodes=4000))
    assert played.move == "a1a8" and played.report[-1].startswith("phase 2 (abdada, 1 root moves)")
    with CascadePlayer(load_cascade(write(tmp_path, unanimous="widen"))).start() as player:
        played = player.play(board, Limit(nodes=4000))
    assert played.move == "a1a8" and played.report[-1].startswith("phase 2 (abdada, all root moves)")


def test_the_budget_is_split_by_the_share(tmp_path):
    player = CascadePlayer(load_cascade(write(tmp_path, share=0.25)))
    phase1, phase2 = player.budgets(Limit(nodes=8000))
    assert phase1.limit.nodes == 2000 and phase2.nodes == 6000  # one worker: the team is that worker
    phase1, phase2 = player.budgets(Limit(movetime=400))
    assert phase1.limit.movetime == 100 and phase2 is None  # phase 2 gets whatever time is left


def test_a_match_file_takes_a_cascade_and_keeps_it_off_parallel_games(tmp_path):
    from tournaments.match.config import load_match
    cascade = write(tmp_path)
    match = tmp_path / "m.yaml"
    match.write_text(f"players: [{{name: c, cascade: {cascade}}}, {{name: f, full: true}}]\ngames: 2\n"
                     f"time_control: {{nodes: 500}}\nconcurrency: 1\noutput: {tmp_path / 'out'}\n")
    config = load_match(match)
    assert config.entry("c").kind == "cascade" and config.entry("c").config == str(cascade)
    match.write_text(match.read_text().replace("concurrency: 1", "concurrency: 2"))
    with pytest.raises(ConfigError, match="need concurrency: 1"):
        load_match(match)
    match.write_text(match.read_text().replace(str(cascade), str(tmp_path / "none.yaml")))
    with pytest.raises(ConfigError, match=r"m.yaml:1: players\[0\].cascade: .*none.yaml: no such config"):
        load_match(match)
