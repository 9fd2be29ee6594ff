"""A data file's lines and the ones that cannot be read: comments and blanks skipped with
their numbers kept, one warning that shows the first few problems and counts the rest,
and an error for a file with nothing usable."""
import pytest

from tournaments.records.file_lines import (DataFileError, LineProblem, data_lines, left_out, nothing_usable,
                                            read_text)


def test_blank_lines_and_comments_are_skipped_and_numbers_kept():
    text = "# a book\r\n\r\n  e4 line  \r\n#e5\r\nd4 line\n"
    assert list(data_lines(text)) == [(3, "e4 line"), (5, "d4 line")]


def test_a_warning_shows_five_problems_and_counts_the_rest():
    problems = [LineProblem(n, f"bad {n}") for n in range(1, 8)]
    assert left_out("b.epd", problems) == ("b.epd: 7 unreadable lines left out: line 1: bad 1; line 2: bad 2; "
                                           "line 3: bad 3; line 4: bad 4; line 5: bad 5; and 2 more")
    assert left_out("b.epd", problems[:1]) == "b.epd: 1 unreadable line left out: line 1: bad 1"


def test_a_file_with_nothing_usable_is_an_error_that_keeps_its_problems():
    problems = [LineProblem(2, "not an EPD record")]
    error = nothing_usable("s.epd", "position", problems)
    assert isinstance(error, DataFileError) and error.problems == tuple(problems)
    assert str(error) == "s.epd: no usable position; 1 unreadable: line 2: not an EPD record"
    assert str(nothing_usable("empty.epd", "opening", [])) == "empty.epd: no usable opening: the file holds none"


def test_nul_bytes_are_dropped_and_a_missing_file_is_named(tmp_path):
    path = tmp_path / "b.epd"
    path.write_bytes(b"e4\x00\r\nd4\n")
    assert read_text(path) == "e4\nd4\n"  # and CRLF read as LF
    with pytest.raises(DataFileError, match=r"nowhere\.epd: cannot read: "):
        read_text(tmp_path / "nowhere.epd")
