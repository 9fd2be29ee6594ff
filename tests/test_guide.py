"""The user guide's command lines and Python blocks run as written, so that the guide cannot
drift from the code.

Each page of ``docs/guide/`` runs top to bottom in a folder of its own (outputs such as
``runs/`` and ``reports/`` land there; ``docs`` and ``benchmarks`` link to the checkout's, for
the pages that read committed results).  A fenced block runs according to the HTML comment on
the line before it:

* none: a ``bash`` block's lines run one by one (``concilio ...`` in this process, through
  ``concilio.cli.main``; ``mkdir``, ``xz``, ``cp``, ``cat`` and ``ls`` in a shell), each must
  exit 0; a ``python`` block runs in this process as the script it would be saved as, with a
  ``concilio`` command on PATH; other blocks (YAML, text) are read, not run;
* ``<!-- file: NAME -->``: the block is a file the later blocks use, written as ``NAME``;
* ``<!-- slow: why -->``: run only with ``--slow`` (a block that starts Dask workers or reads
  a large archive), a ``python`` one as a script of its own;
* ``<!-- cluster -->``: with ``--slow``, on a scheduler and two workers started here on
  loopback; ``tcp://HOST:8786`` becomes its address and the block's ``dask`` lines are what
  the fixture did;
* ``<!-- not run: why -->``: never run (a GUI, another program); kept rare by a test below.

The blocks are written at small budgets (a few thousand nodes, two games), which is also
what makes them quick to try.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
BLOCK = re.compile(r"(?:^<!--\s*(?P<marker>[^>]*?)\s*-->\s*\n)?^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```\s*$",
                   re.M | re.S)
SHELL = {"mkdir", "xz", "cp", "cat", "ls"}  # what a bash block may run besides concilio
RUN = {"bash", "python"}
MARKERS = ("file:", "slow:", "cluster", "not run:")
MAX_NOT_RUN = 3  # in the whole guide
MAX_SLOW = 6


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    marker: str

    @property
    def kind(self) -> str:
        return next((m.rstrip(":") for m in MARKERS if self.marker.startswith(m)), "")


def blocks(text: str) -> list[Block]:
    return [Block(m["lang"], m["body"], m["marker"] or "") for m in BLOCK.finditer(text)]


def command_lines(body: str) -> list[list[str]]:
    """A shell block's commands: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", body)
    return [words for line in joined.splitlines() if (words := shlex.split(line, comments=True))]


def shim(folder: Path) -> Path:
    """A ``concilio`` command that runs this checkout (the installed script may be another's)."""
    script = folder / "bin" / "concilio"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m concilio "$@"\n')
    script.chmod(0o755)
    return script.parent


def environment(folder: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = f"{shim(folder)}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_concilio(words: list[str]) -> None:
    from concilio.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(words[1:])
        except SystemExit as exc:  # --version and --help exit from the parser
            code = exc.code
    assert code == 0, f"{shlex.join(words)} exited {code}:\n{out.getvalue()[-3000:]}"


def run_python(body: str, name: str) -> None:
    """A block as the script it would be saved as (``__name__`` is ``"__main__"``)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(body, name, "exec"), {"__name__": "__main__", "__file__": name})


def run_script(body: str, folder: Path, name: str) -> None:
    """A block that starts Dask workers, as a script of its own: Dask's worker processes
    re-import the main module, which must be the script, not this test."""
    (folder / name).write_text(body)
    done = subprocess.run([sys.executable, name], cwd=folder, env=environment(folder), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{name} failed:\n{body}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def run_block(block: Block, folder: Path, number: int, address: str | None = None) -> None:
    body = block.body if address is None else block.body.replace("tcp://HOST:8786", address)
    if block.lang == "python":
        if block.kind:
            run_script(body, folder, f"block_{number}.py")
        else:
            run_python(body, f"block_{number}.py")
        return
    for words in command_lines(body):
        if words[0] == "concilio":
            run_concilio(words)
        elif words[0] == "dask" and address is not None:
            continue  # the loopback fixture started the scheduler and its workers
        else:
            assert words[0] in SHELL, f"{shlex.join(words)}: not a command this test runs; mark its block"
            subprocess.run(shlex.join(words) if ">" not in words else " ".join(words), shell=True,
                           cwd=folder, env=environment(folder), check=True)


def prepare(folder: Path) -> None:
    """A folder that looks like the checkout to the guide's commands (which read, never write, these)."""
    for name in ("docs", "benchmarks", "data"):
        (folder / name).symlink_to(ROOT / name)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_a_guide_page_runs_as_written(page, tmp_path, monkeypatch, request):
    prepare(tmp_path)
    monkeypatch.chdir(tmp_path)
    for key, value in environment(tmp_path).items():
        monkeypatch.setenv(key, value)
    slow = request.config.getoption("--slow")
    for number, block in enumerate(blocks(page.read_text(encoding="utf-8"))):
        if block.kind == "file":
            (tmp_path / block.marker.split(":", 1)[1].strip()).write_text(block.body)
        elif block.lang not in RUN or block.kind == "not run" or (block.kind in ("slow", "cluster") and not slow):
            continue
        elif block.kind == "cluster":
            address = request.getfixturevalue("loopback_scheduler")
            run_block(block, tmp_path, number, address)
        else:
            run_block(block, tmp_path, number)


@pytest.fixture(scope="module")
def loopback_scheduler(tmp_path_factory) -> str:
    from tests.loopback import loopback
    yield from (cluster.address for cluster in loopback(tmp_path_factory.mktemp("dask-logs")))


def test_the_guide_runs_nearly_everything_it_shows():
    found = [(page.name, block) for page in PAGES for block in blocks(page.read_text(encoding="utf-8"))]
    runnable = [(name, b) for name, b in found if b.lang in RUN]
    assert len(runnable) >= 15, "the guide shows few commands"
    unknown = [f"{name}: <!-- {b.marker} -->" for name, b in found if b.marker and not b.kind]
    assert not unknown, f"markers this test does not know: {unknown}"
    not_run = [f"{name}: {b.marker}" for name, b in runnable if b.kind == "not run"]
    assert len(not_run) <= MAX_NOT_RUN, f"too many blocks nobody runs: {not_run}"
    assert all(len(b.marker) > len("not run: ") + 5 for _, b in runnable if b.kind == "not run"), \
        "a block that is not run says why"
    slow = [name for name, b in runnable if b.kind in ("slow", "cluster")]
    assert len(slow) <= MAX_SLOW, f"too many blocks run only with --slow: {slow}"
    shells = [words[0] for _, b in runnable if b.lang == "bash" and not b.kind
              for words in command_lines(b.body)]
    assert shells.count("concilio") >= 10


def test_no_command_hides_in_a_block_the_test_does_not_run():
    # A command shown in a block without a language, or as text, would escape the test above.
    hidden = [f"{page.name}: {line}" for page in PAGES for b in blocks(page.read_text(encoding="utf-8"))
              if b.lang not in RUN for line in b.body.splitlines()
              if re.match(r"\s*(concilio|python|dask)\s", line)]
    assert not hidden, f"commands outside bash and python blocks: {hidden}"
    unnamed = [page.name for page in PAGES for b in blocks(page.read_text(encoding="utf-8")) if not b.lang]
    assert not unnamed, f"blocks without a language: {unnamed}"


def test_block_reader_sees_markers_files_and_continuations():
    text = ("intro\n<!-- file: a.yaml -->\n```yaml\nname: a\n```\n\n```bash\nconcilio search \\\n"
            "  --depth 3   # a comment\n\nmkdir -p x\n```\n<!-- not run: a GUI -->\n```bash\nxboard\n```\n")
    found = blocks(text)
    assert [(b.lang, b.kind) for b in found] == [("yaml", "file"), ("bash", ""), ("bash", "not run")]
    assert command_lines(found[1].body) == [["concilio", "search", "--depth", "3"], ["mkdir", "-p", "x"]]
