"""``tableref demo`` runs to completion on the bundled clip: each shot in words, in time order, and its verdict."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.paths import REPO

DEMO = REPO / "api" / "data" / "demo"


def _demo(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "api.cli", "demo", "--fast", *args],
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def test_demo_replaying_the_true_events_prints_each_event_and_verdict():
    proc = _demo("--no-serve", "--replay-truth")
    assert proc.returncode == 0, proc.stderr
    truth = [json.loads(line) for line in (DEMO / "truth" / "events.jsonl").read_text().splitlines() if line]
    lines = proc.stdout.splitlines()
    # One line per shot, in time order, each followed by its verdict (not one line per contact of a break).
    shots = [line for line in lines if re.match(r"^\s+[\d.]+ s  shot \d+: ", line)]
    starts = [e for e in truth if e["type"] == "shot_start"]
    assert [int(re.search(r"shot (\d+):", s).group(1)) for s in shots] == [e["shot"] + 1 for e in starts]
    times = [float(s.split()[0]) for s in shots]
    assert times == sorted(times) == [round(e["t"], 2) for e in starts]
    assert shots[0].split(": ", 1)[1].startswith("break: 15 balls moved, 1 potted (ball 12)")
    verdicts = [line for line in lines if line.lstrip().startswith("=> verdict")]
    assert len(verdicts) == len(starts) and len(lines) == len(shots) + len(verdicts)
    assert [lines.index(v) for v in verdicts] == [lines.index(s) + 1 for s in shots]
    assert "replaying the recorded events" in proc.stderr and "done in" in proc.stderr


@pytest.mark.slow
def test_demo_observes_the_video_through_the_pipeline_and_serves_the_pages(tmp_path):
    proc = _demo("--port", "0", "--exit-after", "0", "--db", str(tmp_path / "demo.db"))
    assert proc.returncode == 0, proc.stderr
    assert "observing the video" in proc.stderr
    assert re.search(r"overlay http://127\.0\.0\.1:\d+/overlay", proc.stderr)
    assert re.search(r"review http://127\.0\.0\.1:\d+/review", proc.stderr)
    assert re.search(r"shot 1: break: \d+ balls moved", proc.stdout)
    assert "=> verdict, Player A: " in proc.stdout
    assert not re.search(r"\bt\d+\b", proc.stdout), "no tracker id reaches the terminal"
    stats = re.search(r"(\d+) frames \(([\d.]+) fps, (\d+) dropped\)", proc.stderr)
    assert stats is not None and int(stats.group(1)) > 600 and stats.group(3) == "0"
