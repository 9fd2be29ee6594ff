"""The import direction of the layers (front door > tournaments > ensemble > players >
engine > base), and inside the ensemble selection > trained criteria > ballot (the
cycle selection <-> learned/dynamic/features, once hidden by function-level imports,
breaks it), as the import-linter contracts in ``pyproject.toml`` state it."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_layer_contract_is_kept():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    done = subprocess.run([lint, "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 kept, 0 broken" in done.stdout
