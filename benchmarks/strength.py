"""Strength of single instances on test suites: WAC solved and STS points.

Every instance of the thesis's instance table and the full engine search every
position of ``wac.epd`` (solved = best move played) and ``sts-1-10.epd`` (points
from ``c0``, 10 for the best move) with the same budget.  Instances run in
parallel processes, one position at a time with a fresh hash table each, so the
numbers do not depend on the order of the positions.

Usage: python benchmarks/strength.py [--nodes N | --movetime MS] [--limit K] [--jobs J] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from base.resources import data_file
from tournaments.records.epd import read_suite

SUITES = data_file("suites")
THESIS_INSTANCES = ("MB", "MX", "MK", "MP", "MA", "MR", "MBX", "MBXK", "MBXP", "MBXA", "MBKA", "MBKR", "MBPR",
                    "MXKA", "MXKR", "MXPA", "MXAR", "MKPR", "MBXKP", "MBXKPA", "MBXKPR", "MBXKPAR")


def load_cases(path: Path, limit: int | None) -> list[tuple[str, set[str], dict[str, int]]]:
    """(fen, best moves in UCI, points per UCI move) per position, from the project's EPD loader
    (which repairs the shared files' quirks and reports the lines it cannot read)."""
    suite = read_suite(path)
    for line in suite.skipped:
        print(f"skipped {line}", file=sys.stderr)
    cases = [(p.fen, set(p.best), dict(p.points)) for p in suite.positions]
    return cases[:limit] if limit else cases


def run_instance(args):
    letters, suites, nodes, movetime = args
    from evaluation.spec import EvalSpec
    from players.limits import Limit
    from players.searcher import Searcher
    searcher = Searcher(EvalSpec.parse(letters), hash_mb=16)
    limits = Limit(nodes=nodes, movetime=movetime)
    out = {}
    for name, cases in suites.items():
        solved = points = 0
        for fen, best, pts in cases:
            searcher.new_game()
            move = searcher.search(fen, limits).bestmove
            solved += move in best
            points += pts.get(move, 0)
        out[name] = (solved, points, len(cases))
    return letters, out


def load_store(path: Path | None, budget_key: dict) -> dict:
    """Instances already measured under the same budget (a long run can be resumed)."""
    if path is None or not path.exists():
        return {}
    done = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["budget"] == budget_key:
            done[record["instance"]] = {k: tuple(v) for k, v in record["results"].items()}
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=None)
    parser.add_argument("--movetime", type=int, default=None, help="milliseconds per position")
    parser.add_argument("--limit", type=int, default=None, help="first K positions of each suite")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--instances", nargs="+", default=list(THESIS_INSTANCES))
    parser.add_argument("--out", type=Path, default=None, help="also write the Markdown table here")
    parser.add_argument("--store", type=Path, default=None,
                        help="JSON lines of finished instances: appended as each finishes, reused on a rerun")
    args = parser.parse_args(argv)
    if args.nodes is None and args.movetime is None:
        args.nodes = 20000
    suites = {"wac": load_cases(SUITES / "wac.epd", args.limit),
              "sts": load_cases(SUITES / "sts-1-10.epd", args.limit)}
    start = time.time()
    budget_key = {"nodes": args.nodes, "movetime": args.movetime, "limit": args.limit}
    results = load_store(args.store, budget_key)
    jobs = [(letters, suites, args.nodes, args.movetime) for letters in args.instances if letters not in results]
    with ProcessPoolExecutor(args.jobs) as pool:
        for future in as_completed([pool.submit(run_instance, job) for job in jobs]):
            letters, out = future.result()
            results[letters] = out
            print(f"({letters}) {out}", file=sys.stderr, flush=True)
            if args.store:
                with args.store.open("a") as handle:
                    handle.write(json.dumps({"budget": budget_key, "instance": letters, "results": out}) + "\n")
    budget = f"{args.nodes} nodes" if args.nodes else f"{args.movetime} ms"
    lines = [f"Budget {budget} per position; {len(suites['wac'])} WAC and {len(suites['sts'])} STS positions; "
             f"{time.time() - start:.0f} s.", "",
             "| instance | WAC solved | STS points | STS % |", "|---|---|---|---|"]
    for letters in args.instances:
        w, s = results[letters]["wac"], results[letters]["sts"]
        lines.append(f"| ({letters}) | {w[0]}/{w[2]} | {s[1]}/{10 * s[2]} | {100 * s[1] / max(1, 10 * s[2]):.1f} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
