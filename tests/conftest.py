"""Tests marked ``browser`` need headless Chromium (``scripts/dev-install`` installs it where it runs as root).
Where it is missing they are skipped with the reason, unless ``TABLEREF_REQUIRE_BROWSER=1`` (set by CI,
which installs it), where they run and fail. ``TABLEREF_CHROMIUM`` names another browser path to look for."""

from __future__ import annotations

import os
import shutil

import pytest

BROWSER_PATHS = ("/usr/bin/chromium",)


def chromium() -> str | None:
    named = os.environ.get("TABLEREF_CHROMIUM")
    if named:
        return named if os.path.exists(named) else None
    found = shutil.which("chromium")
    return found or next((p for p in BROWSER_PATHS if os.path.exists(p)), None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if chromium() is not None or os.environ.get("TABLEREF_REQUIRE_BROWSER") == "1":
        return
    skip = pytest.mark.skip(
        reason="Chromium is not installed (no `chromium` on PATH, no /usr/bin/chromium): scripts/dev-install "
        "installs it when run as root; else sudo apt-get install chromium"
    )
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)
