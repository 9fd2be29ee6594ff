"""The labelled training set: positions from self-play and PGN, engine labels (with an
engine that dies), resuming, the openings recorded, and the EPD export read back as a suite."""
import logging
import sys
import textwrap

import chess

from tournaments.records.epd import read_suite
from tournaments.training.label_store import Label, LabelStore
from tournaments.training.labelling import (LabelPlan, export_epd, label_batch, pgn_positions, run_label, selfplay_openings,
                                   usable)
from tournaments.openings.books import read_book
from tournaments.records.opening_record import Opening
from tournaments.training.provenance import game_openings, training_openings
from tests.engines import needs_stockfish


def test_usable_positions_leave_a_choice():
    assert usable(chess.Board())
    assert not usable(chess.Board("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1"))  # in check
    assert not usable(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))  # stalemate


PGN = textwrap.dedent("""\
    [Event "good"]
    [White "A"]
    [Black "B"]

    1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0

    [Event "bad"]
    [White "C"]
    [Black "D"]

    1. e4 e5 2. Ke3 Nc6 0-1
    """)


def test_pgn_games_give_positions_and_a_bad_game_is_named(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    warnings = []
    games = pgn_positions(path, 4, 1, set(), warnings.append)
    assert [source for source, _ in games] == ["pgn:games.pgn:1"]
    positions = games[0][1]
    assert len(positions) == 4 and len({fen for fen, _ in positions}) == 4
    assert all(src.startswith("pgn:games.pgn:1:") for _, src in positions)
    assert len(warnings) == 1 and "games.pgn: game 2 (C - D)" in warnings[0]
    assert pgn_positions(path, 4, 1, set(), warnings.append) == games  # seeded: the same draw
    assert pgn_positions(path, 4, 1, {"pgn:games.pgn:1"}, warnings.append) == []  # done games are skipped


def test_an_engine_that_dies_leaves_the_position_unlabelled(tmp_path, caplog):
    fake = tmp_path / "dies.py"
    fake.write_text(textwrap.dedent("""\
        import sys
        for line in sys.stdin:
            if line.strip() == "uci":
                print("id name dies")
                print("option name MultiPV type spin default 1 min 1 max 500")
                print("uciok", flush=True)
            elif line.startswith("isready"):
                print("readyok", flush=True)
            elif line.startswith("go"):
                sys.exit(3)
        """))
    engine = tmp_path / "dies"
    engine.write_text(f"#!/bin/sh\nexec {sys.executable} {fake}\n")
    engine.chmod(0o755)
    with caplog.at_level(logging.ERROR, logger="concilio.label"):
        labels = label_batch(str(engine), {}, 16, [chess.Board().epd()], 1000, 3, "dies")
    assert labels == []
    assert sum("attempt" in r.message for r in caplog.records) == 2  # tried, restarted, tried again


@needs_stockfish
def test_label_resume_and_export(tmp_path, data_dir):
    store = tmp_path / "train.sqlite"
    plan = LabelPlan(store, data_dir / "openings" / "8moves_v3-1000.epd", games=2, per_game=3, budgets=(200,),
                     nodes=3000, multipv=3, workers=1)
    first = run_label(plan, progress=False)
    assert first.games == 2 and first.positions == first.labels == first.positions_added
    # Up to 3 per game: a game that ends (at 200 nodes, often by repetition) before a drawn ply gives fewer.
    assert 1 <= first.positions <= 6
    again = run_label(plan, progress=False)
    assert again.games == 0 and again.labels_added == 0  # nothing redone
    more_plan = LabelPlan(store, plan.book, games=3, per_game=3, budgets=(200,), nodes=3000, multipv=3, workers=1)
    more = run_label(more_plan, progress=False)
    assert more.games == 1 and more.labels == more.positions >= first.positions
    with LabelStore(store) as s:
        rows = s.labelled()
    assert all(label.engine == "stockfish nodes=3000 multipv=3" for _, _, label in rows)
    assert all(1 <= len(label.lines) <= 3 for _, _, label in rows)
    out = tmp_path / "train.epd"
    assert export_epd(store, out) == len(rows)
    suite = read_suite(out)
    assert not suite.skipped and len(suite.positions) == len(rows)
    for p, (fen, source, label) in zip(suite.positions, rows):
        assert p.fen.startswith(fen) and p.points[label.lines[0][0]] == 10
        assert set(p.best) == {m for m, v in p.points.items() if v == 10}
    # Every game's opening is the plan's draw, and every exported position carries its game's.
    drawn = selfplay_openings(more_plan, read_book(plan.book))
    assert game_openings(store) == {f"selfplay:{seed}": opening for seed, opening in drawn.items()}
    assert all(p.opening == drawn[int(p.game.split(":")[1])].key for p in suite.positions)


def test_the_store_records_each_game_s_opening_and_the_export_writes_it(tmp_path):
    italian = Opening("lines.pgn", 2, chess.STARTING_FEN, ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4"))
    start = chess.Board(italian.start_fen)
    later = start.copy()
    later.push_uci("f8c5")
    store_path = tmp_path / "train.sqlite"
    with LabelStore(store_path) as store:
        store.add_source("selfplay:7", [(start.epd(), "selfplay:7:0"), (later.epd(), "selfplay:7:1")], italian)
        store.add_source("pgn:g.pgn:1", [(chess.Board().epd(), "pgn:g.pgn:1:0")])
        store.add_labels([Label(fen, "sf", ((next(iter(chess.Board(fen).legal_moves)).uci(), 0),), 1, 1)
                          for fen in store.unlabelled()])
        assert store.openings() == {"selfplay:7": italian}
    out = tmp_path / "train.epd"
    assert export_epd(store_path, out) == 3
    lines = out.read_text().splitlines()
    assert lines[0].endswith('c1 "selfplay:7:0"; c2 "opening ' + italian.key + ' book lines.pgn:2 from '
                             + chess.Board().epd() + ' moves e2e4 e7e5 g1f3 b8c6 f1c4";')
    assert "c2" not in lines[2]  # a PGN game has no book opening
    suite = read_suite(out)
    assert not suite.skipped and [p.opening for p in suite.positions] == [italian.key, italian.key, ""]
    assert game_openings(out) == game_openings(store_path) == {"selfplay:7": italian}
    assert training_openings(out) == training_openings(store_path) == {italian.key}
