"""Where the search's time goes, by compiled function: ``perf`` sampling of the bench.

Numba's compiled code has no symbols that ``perf`` can see.  This script runs the bench in a
child process under ``perf record``; the child compiles into a fresh numba cache (a function
loaded from the cache keeps no symbol names) and, before it exits, writes the start address of
every compiled function into ``/tmp/perf-<pid>.map``, the file ``perf report`` reads for
just-in-time code.  The samples in compiled code are then summed by function (its module and
name, inlined callees included in their caller).

Shares are of the compiled code's samples only (compilation and Python excluded), so they
compare across runs on a busy machine.  Needs ``perf`` (``apt-get install linux-perf``, or
``linux-tools``) and permission to sample (``/proc/sys/kernel/perf_event_paranoid`` ≤ 1, or root).

Usage: python benchmarks/profile_search.py [--depth D] [--repeat N] [--top K]
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_bench_and_map(depth: int, repeat: int) -> None:
    """The child: the bench ``repeat`` times, then the perf map of every compiled function."""
    from numba.core.registry import CPUDispatcher

    from players.bench import run_bench

    for _ in range(repeat):
        result = run_bench(depth=depth)
    print(f"bench {result.nodes} nodes, {result.nps} nps", file=sys.stderr)
    symbols: dict[int, str] = {}
    for module in list(sys.modules.values()):
        for obj in list(getattr(module, "__dict__", {}).values()):
            if not isinstance(obj, CPUDispatcher):
                continue
            for compiled in obj.overloads.values():
                library = compiled.library
                for function in library.get_defined_functions():
                    address = library.get_pointer_to_function(function.name)
                    if address:
                        symbols[address] = function.name
    starts = sorted(symbols)
    Path(os.environ["CONCILIO_PROFILE_PID"]).write_text(str(os.getpid()))
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for start, end in zip(starts, starts[1:] + [starts[-1] + 4096]):
            out.write(f"{start:x} {min(end - start, 1 << 20):x} {symbols[start]}\n")


def readable(symbol: str) -> str:
    """``module.function`` from a numba-mangled name (``_ZN7players4core6search7negamax...``)."""
    if not symbol.startswith("_ZN"):
        return symbol  # an address perf found no name for
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while j < len(symbol) and symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    return ".".join(parts[-2:]) if parts else symbol


def shares(report: str) -> collections.Counter:
    """Percent of the compiled code's samples per function, from ``perf report --sort dso,symbol``."""
    counts: collections.Counter = collections.Counter()
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+\[JIT\] tid \d+\s+\[\.\]\s+(\S+)", line)
        if match:
            counts[readable(match.group(2))] += float(match.group(1))
    total = sum(counts.values())
    return collections.Counter({k: 100 * v / total for k, v in counts.items()}) if total else counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10, help="bench depth (default 10)")
    parser.add_argument("--repeat", type=int, default=2, help="bench runs to sample (default 2)")
    parser.add_argument("--top", type=int, default=25, help="functions to list")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        run_bench_and_map(args.depth, args.repeat)
        return 0
    if shutil.which("perf") is None:
        print("profile_search: perf is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="concilio-profile-") as tmp:
        data = Path(tmp) / "perf.data"
        pid_file = Path(tmp) / "pid"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "numba"), PYTHONPATH=str(ROOT),
                   CONCILIO_PROFILE_PID=str(pid_file))
        child = [sys.executable, str(Path(__file__).resolve()), "--child", "--depth", str(args.depth),
                 "--repeat", str(args.repeat)]
        subprocess.run(["perf", "record", "-q", "-F", "499", "-o", str(data), "--"] + child, env=env, check=True,
                       cwd=ROOT)
        report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "dso,symbol",
                                 "--stdio"], capture_output=True, text=True, check=True).stdout
        if pid_file.exists():
            Path(f"/tmp/perf-{pid_file.read_text()}.map").unlink(missing_ok=True)
    table = shares(report)
    if not table:
        print("profile_search: no samples in compiled code (is perf allowed to sample?)", file=sys.stderr)
        return 1
    print("share of the compiled code's samples, by function (inlined callees in their caller):")
    for name, share in table.most_common(args.top):
        print(f"{share:6.1f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
