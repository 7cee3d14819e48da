"""Where the tests find the repository and their data, wherever in tests/ they sit."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
