"""The import direction of the layers (front door > experiments > ensembles > players >
engine > base), inside the experiments (each experiment over the parts they share) and
inside the ensemble (selection > trained criteria > ballot), as the import-linter
contracts in ``pyproject.toml`` state it; and every module in some layer, so that a new
module cannot import anything by being in none."""
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def code_modules() -> list[str]:
    modules = []
    for package in CONFIG["root_packages"]:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return modules


def layer_of(module: str, layers: list[str]) -> int | None:
    """The index of the layer that names ``module`` or a package holding it."""
    for index, layer in enumerate(layers):
        for entry in (e.strip() for e in re.split(r"[:|]", layer)):
            if module == entry or module.startswith(entry + "."):
                return index
    return None


def test_the_layer_contracts_are_kept():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    done = subprocess.run([lint, "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{len(CONFIG['contracts'])} kept, 0 broken" in done.stdout


def test_every_module_is_in_a_layer():
    layers = CONFIG["contracts"][0]["layers"]
    packages = {m for m in code_modules() if (ROOT / m.replace(".", "/") / "__init__.py").exists()}
    # a package's __init__ is in the layer of the package or, for a split package such as
    # ``players``, in the lowest layer among its modules
    missing = [m for m in code_modules() if m not in packages and layer_of(m, layers) is None]
    assert not missing, f"modules in no layer of {CONFIG['contracts'][0]['name']!r}: {missing}"
    assert len(code_modules()) > 90  # the walk found the code


def test_a_module_in_no_layer_is_found(tmp_path):
    layers = CONFIG["contracts"][0]["layers"]
    assert layer_of("players.decomposition.runner", layers) is not None
    assert layer_of("players.new_module", layers) is None  # players is split module by module
    assert layer_of("tournaments.match.run", layers) == 1
    assert layer_of("base.errors", layers) == len(layers) - 1
    # inside players: the parallel searches above the player, above the searcher, above the
    # engine's search, above the evaluation, above the board
    order = [layer_of(m, layers) for m in ("players.decomposition.session", "players.player", "players.searcher",
                                           "players.core.search", "evaluation.evaluate", "players.core.movegen")]
    assert order == sorted(order) and len(set(order)) == len(order), order


# The import cycles tolerated (issue 57 removed the four of players/decomposition's refactor plan,
# section 5).  This list may only shrink: a cycle that is gone must leave it (a cycle broken in
# part is replaced by the smaller one that is left), and a new one fails the test below.
KNOWN_CYCLES: set[frozenset[str]] = set()


def import_cycles(graph) -> set[frozenset[str]]:
    """The import cycles of a grimp graph as its strongly connected components of more than one
    module: a module's component is what it imports, directly or not, that also imports it.
    Imports inside functions count: they are only put off to run time."""
    cycles = set()
    for module in graph.modules:
        around = graph.find_upstream_modules(module) & graph.find_downstream_modules(module)
        if around:
            cycles.add(frozenset(around | {module}))
    return cycles


def describe_cycle(graph, cycle: frozenset[str]) -> str:
    """A cycle's modules and the imports between them, with their lines."""
    imports = [f"    {d['importer']}:{d['line_number']}: {d['line_contents']}"
               for importer in sorted(cycle) for imported in sorted(graph.find_modules_directly_imported_by(importer))
               if imported in cycle for d in graph.get_import_details(importer=importer, imported=imported)]
    return "  " + ", ".join(sorted(cycle)) + "\n" + "\n".join(imports)


def test_the_only_import_cycles_are_the_known_ones():
    import grimp
    graph = grimp.build_graph(*CONFIG["root_packages"], cache_dir=None)
    found = import_cycles(graph)
    new, gone = found - KNOWN_CYCLES, KNOWN_CYCLES - found
    assert not new, "import cycles not in KNOWN_CYCLES:\n" + "\n".join(describe_cycle(graph, c) for c in new)
    assert not gone, ("KNOWN_CYCLES lists cycles that no longer exist (take them off the list): "
                      + "; ".join(", ".join(sorted(c)) for c in gone))


def test_an_import_cycle_is_found_with_its_imports():
    import grimp
    graph = grimp.ImportGraph()
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("p.e", "p.f"),
                               ("p.f", "p.e")):
        graph.add_import(importer=importer, imported=imported, line_number=3, line_contents=f"import {imported}")
    assert import_cycles(graph) == {frozenset({"p.a", "p.b", "p.c"}), frozenset({"p.e", "p.f"})}
    assert describe_cycle(graph, frozenset({"p.e", "p.f"})) == \
           "  p.e, p.f\n    p.e:3: import p.f\n    p.f:3: import p.e"
