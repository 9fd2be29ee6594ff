"""EPD loading: fields, STS points, the real files' quirks, malformed lines reported and skipped."""
import pytest

from base.errors import ConcilioError
from tournaments.records.epd import read_suite


def test_shared_suites_load_with_their_quirks(data_dir):
    counts = {}
    for name in ("wac", "sts-1-10", "bratko-kopec", "kaufman", "silent-but-deadly"):
        suite = read_suite(data_dir / "suites" / f"{name}.epd")
        counts[name] = (len(suite.positions), len(suite.skipped))
    assert counts["wac"] == (299, 0)             # CRLF, pv fields with bad SAN
    assert counts["sts-1-10"] == (1000, 0)
    assert counts["bratko-kopec"] == (24, 0)     # NUL bytes, "bm Qd1 + ;", unquoted ids
    assert counts["silent-but-deadly"] == (134, 0)
    assert counts["kaufman"] == (23, 2)          # two lines with genuinely bad SAN


def test_bratko_kopec_detached_check_sign(data_dir):
    first = read_suite(data_dir / "suites" / "bratko-kopec.epd").positions[0]
    assert first.best == ("d6d1",) and first.id == "BK.01"


def test_sts_points_and_theme(data_dir):
    first = read_suite(data_dir / "suites" / "sts-1-10.epd").positions[0]
    assert first.best == ("f4f5",)
    assert first.points == {"f4f5": 10, "d4e5": 2, "d4f2": 3, "f3g4": 2}
    assert first.theme == "Undermine" and first.id == "STS(v1.0) Undermine.001"


def test_malformed_lines_are_reported_with_file_line_and_reason(tmp_path):
    path = tmp_path / "mixed.epd"
    path.write_text(
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8#; id \"ok.1\";\n"
        "this is not epd\n"
        "\n"
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Qh5; id \"bad move\";\n"
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - id \"no answer\";\n"
        "8/8/8/8/8/8/8/8 w - - bm e4;\n"
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4 ; bm Qxf7#\r\n")
    suite = read_suite(path)
    assert [p.id for p in suite.positions] == ["ok.1", ""]
    assert suite.positions[1].best == ("h5f7",)
    lines = [s.split(": ", 1)[0] for s in suite.skipped]
    assert lines == [f"{path}:2", f"{path}:4", f"{path}:5", f"{path}:6"]
    assert "no bm or am" in suite.skipped[2]
    assert "illegal position" in suite.skipped[3]


def test_avoid_moves_score_as_solved_when_avoided(tmp_path):
    path = tmp_path / "am.epd"
    path.write_text("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - am Rb1; id \"a\";\n")
    p = read_suite(path).positions[0]
    assert p.solved_by("a1a8") and not p.solved_by("a1b1")


def test_a_suite_with_no_usable_position_names_the_file_and_its_first_bad_lines(tmp_path):
    path = tmp_path / "moves.epd"
    path.write_text("# one full FEN per line and no best moves\n"
                    + "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n" * 3 + "not epd\n")
    with pytest.raises(ConcilioError) as info:
        read_suite(path)
    assert isinstance(info.value, ValueError)
    text = str(info.value)
    assert text.startswith(f"{path}: no usable position")
    assert "line 2: no bm or am operation" in text and "line 5: not an EPD record" in text
    assert "line 1:" not in text  # the comment


def test_a_full_fen_before_the_operations_reads(tmp_path):
    path = tmp_path / "fen6.epd"
    path.write_text("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 bm Bb5; id \"ruy\";\n")
    suite = read_suite(path)
    assert not suite.skipped and suite.positions[0].best == ("f1b5",) and suite.positions[0].id == "ruy"


def test_a_training_set_s_opening_is_read_and_other_c2_comments_are_not(tmp_path):
    path = tmp_path / "train.epd"
    start = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
    path.write_text(f'{start} bm e5; c1 "selfplay:9:0"; c2 "opening {start} book b.epd:3";\n'
                    f'{start} bm e5; c1 "selfplay:9:2"; c2 "a comment";\n'
                    f'{start} bm e5; c1 "selfplay:10:0";\n'
                    f'{start} bm e5; c2 "opening {start} book b.epd";\n')
    suite = read_suite(path)
    assert [p.opening for p in suite.positions] == [start, "", ""]
    assert [p.opening_group for p in suite.positions] == [start, "selfplay:9", "selfplay:10"]
    assert len(suite.skipped) == 1 and "not an opening record" in suite.skipped[0]


def test_bare_positions_are_read_when_no_answer_is_needed(tmp_path):
    path = tmp_path / "bare.epd"
    path.write_text("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - id \"bare\";\n"
                    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8#;\n"
                    "8/8/8/8/8/8/8/8 w - - id \"no kings\";\n")
    suite = read_suite(path, labelled=False)
    assert [(p.id, p.best) for p in suite.positions] == [("bare", ()), ("", ("a1a8",))]
    assert len(suite.skipped) == 1 and "illegal position" in suite.skipped[0]
    assert [p.id for p in read_suite(path).positions] == [""]  # a suite still needs its answers
