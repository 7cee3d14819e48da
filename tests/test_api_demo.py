"""``tableref demo`` runs to completion on the bundled clip: every event and verdict printed as it happens."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parent.parent / "api" / "data" / "demo"


def _demo(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "api.cli", "demo", "--fast", *args],
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def test_demo_replaying_the_true_events_prints_each_event_and_verdict():
    proc = _demo("--no-serve", "--replay-truth")
    assert proc.returncode == 0, proc.stderr
    truth = [json.loads(line) for line in (DEMO / "truth" / "events.jsonl").read_text().splitlines() if line]
    printed = [line for line in proc.stdout.splitlines() if not line.startswith("  =>")]
    assert len(printed) == len(truth)
    assert [line.split()[3] for line in printed] == [e["type"] for e in truth]
    verdicts = [line for line in proc.stdout.splitlines() if line.startswith("  => verdict shot")]
    assert [int(re.search(r"shot (\d+)", v).group(1)) for v in verdicts] == [0, 1, 2]
    assert "replaying the recorded events" in proc.stderr and "done in" in proc.stderr


@pytest.mark.slow
def test_demo_observes_the_video_through_the_pipeline_and_serves_the_pages(tmp_path):
    proc = _demo("--port", "0", "--exit-after", "0", "--db", str(tmp_path / "demo.db"))
    assert proc.returncode == 0, proc.stderr
    assert "observing the video" in proc.stderr
    assert re.search(r"overlay http://127\.0\.0\.1:\d+/overlay", proc.stderr)
    assert re.search(r"review http://127\.0\.0\.1:\d+/review", proc.stderr)
    assert "shot_start" in proc.stdout and "shot_end" in proc.stdout
    assert "=> verdict shot 0" in proc.stdout
    stats = re.search(r"(\d+) frames \(([\d.]+) fps, (\d+) dropped\)", proc.stderr)
    assert stats is not None and int(stats.group(1)) > 600 and stats.group(3) == "0"
