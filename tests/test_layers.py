"""The import direction of the layers (front door > tournaments > ensemble > players >
engine > base), as the import-linter contract in ``pyproject.toml`` states it."""
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
    assert "1 kept, 0 broken" in done.stdout
