"""The training set's openings: the shipped set carries the draws' openings on every line,
annotating is byte-exact and refuses a wrong plan, and the audit's overlap with the
matches reproduces."""
import re

import pytest

from tournaments.training.labelling import LabelPlan, selfplay_openings
from tournaments.openings.books import read_book
from tournaments.records.opening_record import OPCODE
from concilio.cli import main
from tournaments.match.config import played_openings
from tournaments.training.provenance import ProvenanceError, annotate_epd, game_openings, training_openings

BOOK = "8moves_v3-1000.epd"
RECORD = re.compile(rf' {OPCODE} "opening [^"]*";$')


@pytest.fixture(scope="module")
def shipped(data_dir):
    return data_dir / "training" / "selfplay-5k.epd"


def test_every_shipped_position_has_the_opening_its_game_drew(shipped, data_dir, tmp_path):
    lines = shipped.read_text().splitlines()
    assert len(lines) == 5100 and all(RECORD.search(line) for line in lines)
    book = data_dir / "openings" / BOOK
    drawn = selfplay_openings(LabelPlan(tmp_path / "unused.sqlite", book, games=800, seed=1), read_book(book))
    recorded = game_openings(shipped)
    assert len(recorded) == 800
    for game, opening in recorded.items():
        assert (opening.book, opening.entry, opening.key) == (BOOK, drawn[int(game.split(":")[1])].entry,
                                                           drawn[int(game.split(":")[1])].key)
    assert len(training_openings(shipped)) == 543


def test_annotating_again_checks_every_line_and_changes_nothing(shipped, data_dir, tmp_path):
    copy = tmp_path / "copy.epd"
    copy.write_bytes(shipped.read_bytes())
    done = annotate_epd(copy, data_dir / "openings" / BOOK, 1, 800)  # every position against its opening
    assert (done.added, done.kept, done.games, done.openings) == (0, 5100, 800, 543)
    assert copy.read_bytes() == shipped.read_bytes()


def test_annotating_writes_the_record_after_the_rest_of_the_line(shipped, data_dir, tmp_path):
    lines = shipped.read_text().splitlines(keepends=True)[:40]
    bare = tmp_path / "bare.epd"
    bare.write_text("".join(RECORD.sub("", line.rstrip("\n")) + "\n" for line in lines))
    with pytest.raises(ProvenanceError, match="without its opening"):
        training_openings(bare)
    done = annotate_epd(bare, data_dir / "openings" / BOOK, 1, 800)
    assert done.added == 40 and done.kept == 0
    assert bare.read_text() == "".join(lines)


def test_a_wrong_plan_is_refused(shipped, data_dir, tmp_path):
    sample = tmp_path / "sample.epd"
    sample.write_text("".join(RECORD.sub("", line) + "\n" for line in shipped.read_text().splitlines()[:200]))
    book = data_dir / "openings" / BOOK
    with pytest.raises(ProvenanceError, match="not one of the 800 games of seed 2"):
        annotate_epd(sample, book, 2, 800)
    rotated = tmp_path / "rotated.epd"  # the same openings, one entry later: every game draws another
    entries = book.read_text().splitlines()
    rotated.write_text("\n".join(entries[1:] + entries[:1]) + "\n")
    with pytest.raises(ProvenanceError, match="cannot come from rotated.epd"):
        annotate_epd(sample, rotated, 1, 800)
    assert "opening" not in sample.read_text()  # nothing was written


def test_the_audit_reproduces_108_of_200_openings_shared(shipped, data_dir, capsys):
    used = training_openings(shipped)
    for match in ("tuned", "learned"):
        played = played_openings(data_dir.parent / "configs" / "tournaments" / f"{match}.yaml")
        assert len(played) == 200 and sum(key in used for key in played) == 108
    assert main(["openings", "shared", str(shipped), str(data_dir.parent / "configs" / "tournaments" / "tuned.yaml")]) == 0
    assert "108 of its 200 openings began training games" in capsys.readouterr().out
