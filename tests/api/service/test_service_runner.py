"""The runner's parts: the bounded frame queue (drop the oldest and count, or wait), the grouping of a
recorded log into per-frame steps, and what ``--source`` names."""

from __future__ import annotations

import threading

import pytest

from api.runner import FrameQueue, SourceError, group_log, parse_source
from calibration.contract import Event, read_jsonl
from tests.paths import REPO
from tests.service_support import MATCH_LOG

DEMO = REPO / "api" / "data" / "demo"


def test_a_live_queue_drops_the_oldest_frames_and_counts_them():
    q = FrameQueue(3, drop_oldest=True)
    for i in range(10):
        q.put(i)
    assert q.dropped == 7
    assert [q.get() for _ in range(3)] == [7, 8, 9]


def test_a_fast_file_queue_waits_for_the_consumer_and_drops_nothing():
    q = FrameQueue(2, drop_oldest=False)
    got: list[int] = []

    def consume() -> None:
        for _ in range(50):
            got.append(q.get())

    th = threading.Thread(target=consume)
    th.start()
    for i in range(50):
        q.put(i)
    th.join(10)
    assert got == list(range(50)) and q.dropped == 0


def test_a_recorded_log_becomes_one_step_per_video_frame_with_inputs_joining_the_next():
    events = read_jsonl(MATCH_LOG)
    steps = list(group_log(events))
    assert [e for _, _, evs in steps for e in evs] == events
    frames = [f for f, _, _ in steps]
    assert frames == sorted(set(frames))
    first_frame, first_t, first = steps[0]
    assert [e.type for e in first] == ["frame_start", "shot_start"] and first_frame == 30 and first_t == 1.0
    only_inputs = [Event(type="call_any", shot=0)]
    assert list(group_log(only_inputs)) == [(0, None, only_inputs)]


def test_what_a_source_names(tmp_path):
    assert parse_source("0").kind == "camera"
    assert parse_source("rtsp://camera.local/stream").kind == "url"
    assert parse_source(str(MATCH_LOG)).kind == "events"
    demo = parse_source(str(DEMO))
    assert demo.kind == "file" and demo.scenario_dir == DEMO.resolve() and demo.location.endswith("video.mp4")
    with pytest.raises(SourceError, match="no such file"):
        parse_source(str(tmp_path / "missing.mp4"))
    with pytest.raises(SourceError, match=r"video\.mp4"):
        parse_source(str(tmp_path))
