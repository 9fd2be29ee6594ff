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
import subprocess
import warnings
from pathlib import Path

import pytest

REFERENCE = {"reference.md", "node-clock.md"}  # describe the code, measure nothing
DOCS = sorted(p for p in (Path(__file__).resolve().parents[1] / "docs").glob("*.md") if p.name not in REFERENCE)
TOP_LINES = 8  # a header lower than this is one a reader scrolls past
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


ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
QUOTED_PATH = re.compile(r"`(\.\./[^`\s]*)`")  # `../x`: a path a reader is told to open
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$|(?:href|src)=[\"']([^\"']+)", re.M)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def tracked_markdown() -> list[Path]:
    """The Markdown files git tracks: what a clone gets (build outputs and runs excluded)."""
    try:
        names = subprocess.run(["git", "ls-files", "-z", "*.md"], cwd=ROOT, capture_output=True,
                               check=True, text=True).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in names if name]


def links(text: str) -> list[str]:
    """The targets of a Markdown text's links and images; code (fenced or inline) is not a link."""
    text = CODE_SPAN.sub("", FENCE.sub("", text))
    return [next(g for g in m.groups() if g) for m in LINK.finditer(text)]


def quoted_paths(text: str) -> list[str]:
    """Relative paths quoted as code outside code blocks, which a reader follows like links."""
    return QUOTED_PATH.findall(FENCE.sub("", text))


def test_links_stay_inside_the_repository():
    # A relative link above the root works only in the checkout it was written in; a clone
    # (or the documentation site) cannot follow it.
    outside = []
    for path in tracked_markdown():
        if not path.is_file():  # deleted in the working tree, not yet in the index
            continue
        text = path.read_text(encoding="utf-8")
        for target in links(text) + quoted_paths(text):
            if SCHEME.match(target) or target.startswith("#"):
                continue
            base = ROOT if target.startswith("/") else path.parent
            resolved = (base / target.split("#")[0].lstrip("/")).resolve()
            if not resolved.is_relative_to(ROOT):
                outside.append(f"{path.relative_to(ROOT)}: {target}")
    assert not outside, "links outside the repository:\n" + "\n".join(outside)


def test_link_finder_sees_inline_reference_and_html_links_but_not_code():
    text = ("[a](../x.md) ![b](<img.png>) `[c](../no.md)` `../q.md`\n[d]: ../../y.md\n"
            "<a href=\"../z\">\n```\n[e](../../no.md) `../no.md`\n```\n")
    assert links(text) == ["../x.md", "img.png", "../../y.md", "../z"]
    assert quoted_paths(text) == ["../q.md"]


def test_no_tracked_file_points_at_the_shared_reference_folder():
    """The reference notes beside the checkout (a folder named shared, beside it) are not in a clone: code, configs
    and docs cite their sources (author, title, year) instead of pointing there."""
    outside = "../" + "shared"  # spelled apart, so that this file does not match itself
    files = subprocess.run(["git", "ls-files", "*.py", "*.yaml", "*.md", "*.toml", "*.txt"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    assert len(files) > 100
    found = [f"{name}:{n}" for name in files if (ROOT / name).is_file()
             for n, line in enumerate((ROOT / name).read_text(errors="replace").splitlines(), 1) if outside in line]
    assert not found, f"lines pointing outside the repository: {found}"
