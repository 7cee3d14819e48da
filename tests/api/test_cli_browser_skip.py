"""Without Chromium the browser tests are skipped with the reason and the way to install it; with
TABLEREF_REQUIRE_BROWSER=1 (CI, which installs it) they are not skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.paths import REPO

REPO = REPO


def run_browser_tests(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    # outside CI: the run that CI's own TABLEREF_REQUIRE_BROWSER=1 would turn into failures is the one tested
    base = {k: v for k, v in os.environ.items() if k != "TABLEREF_REQUIRE_BROWSER"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "tests/api/test_browser_pages.py", "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=REPO, env={**base, **env}, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_a_missing_browser_skips_the_browser_tests_and_says_why(tmp_path):
    out = run_browser_tests(tmp_path, TABLEREF_CHROMIUM=str(tmp_path / "no-chromium"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "passed" not in out.stdout and "failed" not in out.stdout
    assert "skipped" in out.stdout
    assert "Chromium is not installed" in out.stdout and "sudo apt-get install chromium" in out.stdout


class Item:
    """What the collection hook reads of a test item: its keywords, and the markers added to it."""

    def __init__(self, *keywords: str) -> None:
        self.keywords = dict.fromkeys(keywords, True)
        self.markers: list[object] = []

    def add_marker(self, marker: object) -> None:
        self.markers.append(marker)


def test_ci_does_not_skip_them(tmp_path, monkeypatch):
    from tests import conftest

    monkeypatch.setenv("TABLEREF_CHROMIUM", str(tmp_path / "no-chromium"))
    browser, other = Item("browser", "slow"), Item("slow")
    monkeypatch.setenv("TABLEREF_REQUIRE_BROWSER", "1")
    conftest.pytest_collection_modifyitems(None, [browser, other])  # type: ignore[arg-type, list-item]
    assert browser.markers == [] and other.markers == []
    monkeypatch.delenv("TABLEREF_REQUIRE_BROWSER")
    conftest.pytest_collection_modifyitems(None, [browser, other])  # type: ignore[arg-type, list-item]
    assert len(browser.markers) == 1 and other.markers == []
