"""The two-level player: ensemble instances that are themselves parallel searches, on a
local cluster, and the in-process team behind them."""
import chess
import pytest

from base.config import ConfigError
from ensemble.config import load_ensemble
from ensemble.player import EnsemblePlayer
from evaluation.spec import EvalSpec
from players.decomposition.team import TeamSearcher
from players.limits import Limit


def test_a_team_searches_on_threads_of_this_process_and_honours_searchmoves():
    team = TeamSearcher(EvalSpec.parse("MBX", [1, 2, 1, 1, 1, 1, 1]), threads=2, hash_mb=4)
    try:
        result = team.search(chess.Board(), Limit(depth=6))
        assert result.depth == 6 and chess.Move.from_uci(result.bestmove) in chess.Board().legal_moves
        restricted = team.search(chess.Board(), Limit(depth=4), searchmoves=["g1f3", "b1c3"])
        assert restricted.bestmove in ("g1f3", "b1c3")
        assert team.session.runner.__class__.__name__ == "ThreadRunner"
    finally:
        team.close()


def test_two_parallel_instances_play_on_a_local_cluster():
    config = load_ensemble(text="name: two-level\ninstances:\n  - {mask: MBXK, threads: 2}\n"
                              "  - {mask: MXPA, threads: 2}\nselection: {criterion: depth_confidence}\n"
                              "budget: {depth: 6}\ncluster: {workers: 2, dashboard: false}\n")
    with EnsemblePlayer(config) as player:
        assert player.cores == 4
        played = player.play(chess.Board(), Limit(depth=6))
    decision = player.last_decision
    assert len(decision.results) == 2 and all(r.depth == 6 for r in decision.results)
    assert played.move in {r.bestmove for r in decision.results}
    assert len({r.worker for r in decision.reports}) == 2  # each team on its own worker


def test_a_parallel_instance_refuses_what_it_cannot_do():
    with pytest.raises(ConfigError, match="instances\\[0\\].threads: a parallel instance"):
        load_ensemble(text="name: x\ninstances:\n  - {mask: MB, threads: 2, search: {depth_cap: 5}}\n  - MX\n")
    with pytest.raises(ConfigError, match="confidence needs each instance's margin probe"):
        load_ensemble(text="name: x\ninstances:\n  - {mask: MB, threads: 2}\n  - MX\nselection: {criterion: confidence}\n")
