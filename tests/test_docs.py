"""The documentation: every result page says at its top what it measured, stays short, and
links only inside the repository; the hand-written whole stays within its budget; and the site
builds with MkDocs with every internal link resolved.

A result page (``docs/*.md`` and ``docs/results/*.md``) names, in the first lines after its
title, one field a line:

    * Engine: bench 984390, commit 8f2b944 (anything after: which sections, fingerprint, ...)
    * Date: 2026-11-25
    * Command: `concilio suite thesis`; `python benchmarks/...`

Engine names the bench signature (``concilio bench`` at README.md's depth) and the commit of the
newest results in the page; Date is when they were measured; Command reproduces them.  A page
whose bench is not README.md's is listed as a warning, not a failure: it stays true of the engine
it names until someone reruns it.
"""
import datetime
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([p for p in (ROOT / "docs").glob("*.md") if p.name != "index.md"]  # index.md: the site's home
              + list((ROOT / "docs" / "results").glob("*.md")))
TOP_LINES = 8  # a header lower than this is one a reader scrolls past
FIELD = re.compile(r"^\* (Engine|Date|Command): (.+)$")
ENGINE = re.compile(r"^bench (\d+), commit ([0-9a-f]{7,40})\b")


def header(path: Path) -> dict[str, str]:
    """The document's ``* Key: value`` fields among its first lines."""
    lines = path.read_text(encoding="utf-8").splitlines()[:TOP_LINES]
    return dict(m.groups() for m in map(FIELD.match, lines) if m)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_a_result_document_names_its_engine_date_and_command(path):
    fields = header(path)
    missing = sorted({"Engine", "Date", "Command"} - fields.keys())
    assert not missing, f"{path.name}: no {', '.join(missing)} line in its first {TOP_LINES} lines"
    assert ENGINE.match(fields["Engine"]), \
        f"{path.name}: the Engine line starts 'bench N, commit X', not {fields['Engine'][:40]!r}"
    datetime.date.fromisoformat(fields["Date"][:10])
    assert re.search(r"`[^`]+`", fields["Command"]), f"{path.name}: the Command line quotes no command"


def test_the_guide_and_the_design_state_the_current_bench_signature(readme_bench):
    # Unlike a result page, which names the engine it measured, these describe the engine as it is.
    _, current = readme_bench
    pages = sorted((ROOT / "docs" / "guide").glob("*.md")) + sorted((ROOT / "docs" / "design").glob("*.md"))
    stated = [(page.name, int(n)) for page in pages for n in re.findall(r"Bench: (\d+) nodes", page.read_text())]
    assert stated, "no page states the bench signature"
    assert all(n == current for _, n in stated), f"README.md says {current}; the pages say {stated}"


def test_documents_of_an_older_engine_are_listed(readme_bench):
    _, current = readme_bench
    older = []
    for path in DOCS:
        engine = ENGINE.match(header(path).get("Engine", ""))
        if engine and int(engine.group(1)) != current:
            older.append(f"{path.name} (bench {engine.group(1)}, commit {engine.group(2)})")
    if older:
        warnings.warn(f"measured with an older engine than bench {current}: " + "; ".join(older))


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


# The size of the documentation, in characters.  Hand-written is README.md, CHANGELOG.md and every
# Markdown file under docs/, less what a command wrote: the files below (a match's summary, a
# suite's or tuning's report, the sweep's table, a benchmark's --out) and, inside a page, a table
# between `<!-- NAME: begin -->` and `<!-- NAME: end -->` (copied from such output, or written
# there by `concilio scaling report --document`).
BUDGET = 150_000
RESULT_PAGE_MAX = 12_000
GENERATED = ("results/**/summary.md", "results/**/report.md", "results/scaling/table.md", "results/scaling/map/table.md",
             "results/scaling/suites/*.md", "results/scaling/cluster-candidates.md",
             "results/scaling/lazy-cluster-moves.md", "results/scaling/abdada-cores.md", "results/scaling/overhead.md", "results/scaling/budgets/budgets.md",
             "results/scaling/budgets/realtime.md",
             "results/fresh-cluster/*.md")
GENERATED_REGION = re.compile(r"^<!-- ([^>]+?): begin -->$.*?^<!-- \1: end -->$", re.M | re.S)


def hand_written(text: str) -> int:
    return len(GENERATED_REGION.sub("", text))


def documentation() -> dict[str, int]:
    docs = ROOT / "docs"
    skipped = {p for pattern in GENERATED for p in docs.glob(pattern)}
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(set(docs.rglob("*.md")) - skipped)]
    return {p.relative_to(ROOT).as_posix(): hand_written(p.read_text(encoding="utf-8")) for p in pages}


def test_the_hand_written_documentation_stays_within_its_budget():
    sizes = documentation()
    assert {"README.md", "CHANGELOG.md", "docs/index.md", "docs/guide/install.md"} <= sizes.keys()
    total = sum(sizes.values())
    largest = ", ".join(f"{name} {size:,}" for name, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:6])
    assert total <= BUDGET, f"{total:,} hand-written characters, over {BUDGET:,}; the largest: {largest}"


@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "results").glob("*.md")), ids=lambda p: p.name)
def test_a_result_page_is_short(path):
    size = hand_written(path.read_text(encoding="utf-8"))
    assert size <= RESULT_PAGE_MAX, f"{path.name}: {size:,} characters; older runs leave the page (git keeps them)"


def test_generated_regions_are_left_out_of_the_count():
    text = "a\n<!-- table: begin -->\n| x |\n<!-- table: end -->\nb\n"
    assert hand_written(text) == len("a\n\nb\n")
    assert hand_written("<!-- table: begin -->\n| x |\n<!-- other: end -->\n") > 0


CODE_PATH = re.compile(r"`((?:base|concilio|ensemble|evaluation|players|tournaments|benchmarks|configs|data|tests)"
                       r"/[\w./-]+)`")


def test_the_design_names_only_code_that_exists():
    # The design pages point at code by path (backticked: the site holds no code to link to), so
    # that a renamed module shows here, not in a reader's failed search.
    missing = [f"{page.name}: {path}" for page in sorted((ROOT / "docs" / "design").glob("*.md"))
               for path in CODE_PATH.findall(page.read_text(encoding="utf-8"))
               if not (ROOT / path.rstrip(".")).exists()]
    assert not missing, f"paths the design names that are not in the repository: {missing}"


def test_the_site_builds_with_every_internal_link_resolved(tmp_path):
    pytest.importorskip("mkdocs")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert (tmp_path / "site" / "guide" / "cluster" / "index.html").is_file()
