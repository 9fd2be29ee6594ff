"""Every result document in docs/ says at its top what it measured, so that a reader can tell
whether it still describes the engine they run and how to run it again.

The header is the first lines after the title, one field a line:

    * Engine: bench 984390, commit 8f2b944 (anything after: which sections, fingerprint, ...)
    * Date: 2026-11-25
    * Command: `concilio suite thesis`; `python benchmarks/...`

Engine names the bench signature (``concilio bench`` at README.md's depth) and the commit of the
newest results in the document; Date is when they were measured; Command reproduces them.  A
document whose bench is not README.md's is listed as a warning, not a failure: it stays true of
the engine it names until someone reruns it.
"""
import datetime
import re
import warnings
from pathlib import Path

import pytest

REFERENCE = {"reference.md", "node-clock.md"}  # describe the code, measure nothing
DOCS = sorted(p for p in (Path(__file__).resolve().parents[1] / "docs").glob("*.md") if p.name not in REFERENCE)
TOP_LINES = 8  # as many as ../shared/hooks/before-stop reads for the engine's name
FIELD = re.compile(r"^\* (Engine|Date|Command): (.+)$")
ENGINE = re.compile(r"^bench (\d+), commit ([0-9a-f]{7,40})\b")


def header(path: Path) -> dict[str, str]:
    """The document's ``* Key: value`` fields among its first lines."""
    lines = path.read_text(encoding="utf-8").splitlines()[:TOP_LINES]
    return dict(m.groups() for m in map(FIELD.match, lines) if m)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_a_result_document_names_its_engine_date_and_command(path):
    fields = header(path)
    missing = sorted({"Engine", "Date", "Command"} - fields.keys())
    assert not missing, f"{path.name}: no {', '.join(missing)} line in its first {TOP_LINES} lines"
    assert ENGINE.match(fields["Engine"]), \
        f"{path.name}: the Engine line starts 'bench N, commit X', not {fields['Engine'][:40]!r}"
    datetime.date.fromisoformat(fields["Date"][:10])
    assert re.search(r"`[^`]+`", fields["Command"]), f"{path.name}: the Command line quotes no command"


def test_documents_of_an_older_engine_are_listed(readme_bench):
    _, current = readme_bench
    older = []
    for path in DOCS:
        engine = ENGINE.match(header(path).get("Engine", ""))
        if engine and int(engine.group(1)) != current:
            older.append(f"{path.name} (bench {engine.group(1)}, commit {engine.group(2)})")
    if older:
        warnings.warn(f"measured with an older engine than bench {current}: " + "; ".join(older))
