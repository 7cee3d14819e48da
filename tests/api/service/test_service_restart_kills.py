"""A video match killed at any frame and started again on the same database is the same match: every camera
event and every verdict equals the uninterrupted run's.

The service (``tableref serve`` over a video file, as fast as it goes) is ended abruptly, as ``kill -9``
would, right after a chosen frame is committed (the runner's ``TABLEREF_EXIT_AFTER_FRAME`` hook makes the
kill land on a known frame, so a failure names it), then served again to the end of the video. Twenty
frames picked at random (a fixed seed: the same twenty every run) of the bundled demo clip and of a rendered
full frame of play (five shots) are each compared with the uninterrupted run.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from api.runner import EXIT_AFTER_FRAME_ENV
from api.store import Store
from tests.paths import REPO

DEMO = REPO / "api" / "data" / "demo"
KILLS = int(os.environ.get("TABLEREF_TEST_KILLS", "20"))  # fewer for a quick local look
SEED = 37


def _serve(source: Path, db: Path, exit_after: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != EXIT_AFTER_FRAME_ENV}
    if exit_after is not None:
        env[EXIT_AFTER_FRAME_ENV] = str(exit_after)
    cmd = [sys.executable, "-m", "api.cli", "serve", "--source", str(source), "--game", "moscow", "--db", str(db),
           "--port", "0", "--fast", "--exit-when-done"]  # fmt: skip
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


def _calls(db: Path) -> tuple[list[tuple[str, dict[str, Any]]], int]:
    """Match 1's camera events and verdicts in stream order, and how many matches the database holds."""
    con = sqlite3.connect(db)
    try:
        matches = int(con.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    finally:
        con.close()
    store = Store(db)
    try:
        msgs = store.messages(1)
    finally:
        store.close()
    return [(m.kind, m.data) for m in msgs if m.kind in ("event", "verdict")], matches


def _killed_and_restarted(source: Path, folder: Path, frame: int) -> tuple[int, list[tuple[str, dict[str, Any]]], int]:
    db = folder / f"killed-at-{frame}.db"
    killed = _serve(source, db, exit_after=frame)
    again = _serve(source, db)
    assert again.returncode == 0, again.stderr[-2000:]
    calls, matches = _calls(db)
    return killed.returncode, calls, matches


def _check_kills(source: Path, folder: Path, frames: int) -> None:
    reference = _serve(source, folder / "reference.db")
    assert reference.returncode == 0, reference.stderr[-2000:]
    want, _ = _calls(folder / "reference.db")
    verdicts = [d for k, d in want if k == "verdict"]
    assert len(verdicts) >= 3, "the reference run calls its shots"
    picks = sorted(random.Random(SEED).sample(range(frames - 1), KILLS))
    with ThreadPoolExecutor(2) as pool:  # two at a time: the CI machine has two cores
        results = dict(zip(picks, pool.map(lambda n: _killed_and_restarted(source, folder, n), picks), strict=True))
    differ = []
    for n, (rc, got, matches) in results.items():
        assert rc == 137, f"the run to be killed at frame {n} ended by itself (exit {rc})"
        assert matches == 1, f"killed at frame {n}, the restart opened a new match"
        if got != want:
            first = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want))
            )
            differ.append(f"frame {n}: record {first}: {json.dumps(got[first:first + 1])} != "
                          f"{json.dumps(want[first:first + 1])}")  # fmt: skip
    assert not differ, "killed and restarted, the match differs from the uninterrupted one:\n" + "\n".join(differ)


@pytest.mark.slow
def test_the_demo_clip_killed_at_twenty_random_frames_gives_the_uninterrupted_calls(tmp_path):
    _check_kills(DEMO, tmp_path, 651)


@pytest.fixture(scope="module")
def full_frame(tmp_path_factory) -> Path:
    pytest.importorskip("pooltool")
    out = tmp_path_factory.mktemp("frame") / "frame-s1"
    cmd = [sys.executable, "-m", "api.cli", "synth", "--out", str(out), "--scenario", "frame", "--seed", "1",
           "--resolution", "960x540", "--fps", "25", "--camera", "tilt=8"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.mark.slow
@pytest.mark.synth
def test_a_rendered_full_frame_killed_at_twenty_random_frames_gives_the_uninterrupted_calls(full_frame, tmp_path):
    scenario = json.loads((full_frame / "truth" / "scenario.json").read_text())
    frames = int(scenario["duration_s"] * scenario["fps"])
    _check_kills(full_frame, tmp_path, frames)
