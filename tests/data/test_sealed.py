"""Sealed confirmation sets (issue 61): each is fixed by the hash committed before any player
was scored on it, so a claim tested there is tested on exactly those positions; a changed file
fails here rather than silently moving a registered claim (docs/results/sealed-1/claims.md)."""
import hashlib

import pytest

from base.resources import data_file
from tournaments.records.epd import read_suite

SEALED = {
    # file: (SHA-256, positions), as data/README.md states them
    "suites/sealed-1.epd": ("961b1b7865fffb6fdc98729e5958fbac008b2eab0f034c2f4e0686f1f7e54bdd", 991),
    "openings/sealed-1-book-200.epd": ("c32590e971b6ba6dc6dd51b3256aec490c8a9d12ba43fda09f290dac410ba237", 200),
}


@pytest.mark.parametrize("name", sorted(SEALED))
def test_a_sealed_file_is_the_one_its_claims_were_registered_on(name):
    digest, _ = SEALED[name]
    assert hashlib.sha256(data_file(name).read_bytes()).hexdigest() == digest, \
        f"{name} changed: its registered claims were tested on the file with SHA-256 {digest}"


def test_the_sealed_suite_reads_whole_with_points_and_openings_outside_the_other_books():
    suite = read_suite(data_file("suites/sealed-1.epd"))
    assert not suite.problems and len(suite.positions) == SEALED["suites/sealed-1.epd"][1]
    assert all(p.points and max(p.points.values()) == 10 for p in suite.positions)
    book = {" ".join(line.split()[:4]) for line in data_file("openings/sealed-1-book-200.epd").read_text().splitlines()}
    for other in ("openings/8moves_v3-1000.epd", "openings/sf-multipv-16plies-1000.epd"):
        seen = {" ".join(line.split()[:4]) for line in data_file(other).read_text().splitlines() if line.strip()}
        assert not book & seen, f"the sealed set's book shares openings with {other}"
