"""A live match restarted on the same database carries on: the same match, frames and shots numbered on
from where the record ends, and a shot the restart interrupted ended and flagged for a referee's review
(a camera cannot be replayed)."""

from __future__ import annotations

import time

import httpx
import pytest

from api.live_feed import FeedSettings
from api.service.launch import BackgroundServer, build
from api.service.settings import ServiceSettings
from tests.mjpeg_support import MjpegServer, VideoFrames
from tests.paths import REPO
from tests.service_support import free_port

DEMO = REPO / "api" / "data" / "demo"
FEED = FeedSettings(open_timeout_s=3.0, read_timeout_s=3.0, backoff_s=(0.2, 0.5))


@pytest.mark.slow
def test_a_live_match_restarted_mid_shot_goes_on_with_that_shot_flagged(tmp_path):
    camera = MjpegServer(VideoFrames(DEMO / "video.mp4"), fps=25)
    settings = ServiceSettings.load({"db": tmp_path / "m.db", "port": 0}, env={})
    try:
        svc = build(camera.url, "moscow", settings, calibration=str(DEMO / "camera.json"), feed_settings=FEED)
        svc.runner.start()
        deadline = time.monotonic() + 120
        while not (svc.match.live.shot == 0 and svc.match.live.moving):
            assert time.monotonic() < deadline, "the break never started"
            time.sleep(0.05)
        svc.runner.stop()  # every frame is committed as it is observed: what a kill leaves
        assert svc.runner.join(30)
        frame_before = svc.match.progress_frame
        assert svc.match.live.shot == 0, "the record has the break in progress"
        svc.store.close()

        again = build(camera.url, "moscow", settings, calibration=str(DEMO / "camera.json"), feed_settings=FEED)
        assert again.match.match_id == 1 and again.match.resumed
        server = BackgroundServer(again.app, "127.0.0.1", free_port())
        base = f"http://127.0.0.1:{server.start()}"
        try:
            again.runner.start()
            verdicts = [m.data for m in again.store.messages(1) if m.kind == "verdict"]
            assert len(verdicts) == 1 and verdicts[0]["shot"] == 0 and verdicts[0]["review"] is True
            assert any("restarted during this shot" in n for n in verdicts[0]["notes"])
            deadline = time.monotonic() + 120
            state = {}
            while time.monotonic() < deadline:
                state = httpx.get(base + "/state", timeout=5).json()
                if (state["video_frame"] or 0) > frame_before + 10:
                    break
                time.sleep(0.1)
            assert state["video_frame"] > frame_before + 10, "frames are numbered on after the record"
            assert state["match"] == 1 and state["shot"]["last"] == 0
        finally:
            again.runner.stop()
            again.runner.join(10)
            server.stop()
            again.store.close()
    finally:
        camera.close()
