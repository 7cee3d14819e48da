"""The design's layer order, as the import-linter contract in ``.importlinter`` states it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_layer_imports_one_above_it() -> None:
    # beside this interpreter first (a virtual environment's or pyenv's bin, whether or not it is on PATH)
    here = Path(sys.executable).parent / "lint-imports"
    exe = str(here) if here.exists() else shutil.which("lint-imports")
    assert exe is not None, "import-linter is not installed: pip install -e '.[test]' (scripts/dev-install does)"
    res = subprocess.run([exe, "--config", str(ROOT / ".importlinter")], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "0 broken" in res.stdout
