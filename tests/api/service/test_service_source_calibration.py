"""What the service observes its source with when it is given no full calibration.

A hand-made calibration (only ``image_size``, ``corners_px`` and a lens model, CONTRACT.md 6a) has the
camera's pose estimated from its corners' perspective, or is refused with the reason where the view does not
show it; ``serve`` over a video with no calibration finds one in the video's first seconds, and over a live
stream in its first frames.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from api.live_feed import FeedSettings
from api.runner import SourceError
from api.service.calibration_setup import CalibrationRefused, load_for_service
from api.service.launch import BackgroundServer, build
from api.service.settings import ServiceSettings
from calibration.mapping import Calibration
from tests.mjpeg_support import MjpegServer, VideoFrames
from tests.paths import REPO
from tests.service_support import free_port

DEMO = REPO / "api" / "data" / "demo"


def _hand_made(dst: Path) -> Path:
    """The demo camera's calibration as a person would write it: corners and the lens's k1 only (k1 for the
    default focal length of one image width, the same distortion in pixels)."""
    cam = json.loads((DEMO / "camera.json").read_text())
    f_true = cam["lens"]["camera_matrix"][0][0]
    k1 = cam["lens"]["k1"] * (cam["image_size"][0] / f_true) ** 2
    dst.write_text(json.dumps({"image_size": cam["image_size"], "corners_px": cam["corners_px"],
                               "lens": {"model": "radial-k1k2", "k1": k1}}))  # fmt: skip
    return dst


def _ball_errors_mm(cal: Calibration) -> np.ndarray:
    """How far ``cal`` puts balls (centres imaged by the demo's true camera) from where they are, over the bed."""
    cam = json.loads((DEMO / "camera.json").read_text())["camera"]
    pts = np.array([(x, y) for x in np.linspace(100, 3450, 12) for y in np.linspace(100, 1650, 8)])
    r = cal.table.ball_radius_mm
    obj = np.column_stack([pts, np.full(len(pts), -r)])
    px, _ = cv2.projectPoints(obj, np.array(cam["rvec"], float), np.array(cam["tvec"], float),
                              np.array(cam["camera_matrix"], float), np.array(cam["dist_coeffs"], float))  # fmt: skip
    return np.hypot(*(cal.ball_px_to_table(px.reshape(-1, 2)) - pts).T)


def test_a_hand_made_calibration_gets_the_camera_pose_from_its_corners(tmp_path):
    path = _hand_made(tmp_path / "hand.json")
    assumed = Calibration.load(path)  # the focal length assumed: one image width
    cal, info = load_for_service(path)
    truth = Calibration.load(DEMO / "camera.json")
    assert "estimated" in info["pose"]
    assert cal.camera_matrix[0, 0] == pytest.approx(truth.camera_matrix[0, 0], rel=0.01)
    assert cal.camera_centre_mm()[2] == pytest.approx(truth.camera_centre_mm()[2], rel=0.01)
    assert float(np.max(_ball_errors_mm(cal))) < 0.5
    assert float(np.max(_ball_errors_mm(assumed))) > 2.0, "the assumed focal length puts balls off"


def test_a_hand_made_calibration_of_a_straight_down_view_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "overhead.json"  # a camera straight above the centre: no perspective to read
    corners = {"house-left": [140, 860], "house-right": [140, 60], "pyramid-left": [1780, 860],
               "pyramid-right": [1780, 60]}  # fmt: skip
    path.write_text(json.dumps({"image_size": [1920, 920], "corners_px": corners, "lens": {"k1": 0.0}}))
    with pytest.raises(CalibrationRefused, match=r"no camera pose .* camera_height_mm"):
        load_for_service(path)
    settings = ServiceSettings.load({"db": tmp_path / "m.db"}, env={})
    with pytest.raises(SourceError, match="too close to straight down"):
        build(str(DEMO), "moscow", settings, calibration=str(path))
    with_height = json.loads(path.read_text()) | {"camera_height_mm": 3000}
    path.write_text(json.dumps(with_height))
    cal, info = load_for_service(path)
    assert info["status"] == "loaded" and cal.camera_centre_mm()[2] == pytest.approx(-3000)


@pytest.mark.slow
def test_serve_over_a_video_with_no_calibration_finds_it_in_the_first_seconds(tmp_path):
    video = tmp_path / "clip.mp4"  # no camera.json beside it
    shutil.copy(DEMO / "video.mp4", video)
    settings = ServiceSettings.load({"db": tmp_path / "m.db"}, env={})
    svc = build(str(video), "moscow", settings, fast=True)
    try:
        assert svc.match.calibration["status"] == "automatic"
        truth = Calibration.load(DEMO / "camera.json")
        cal = svc.runner.pipeline_factory.cal  # type: ignore[union-attr]
        for name, px in truth.corners_px.items():
            assert np.hypot(*np.subtract(cal.corners_px[name], px)) < 3.0, name
    finally:
        svc.store.close()


@pytest.mark.slow
def test_serve_over_a_live_stream_with_no_calibration_finds_it_in_the_first_frames(tmp_path):
    camera = MjpegServer(VideoFrames(DEMO / "video.mp4", start=300), fps=25)
    settings = ServiceSettings.load({"db": tmp_path / "m.db", "port": 0}, env={})
    svc = build(camera.url, "moscow", settings, feed_settings=FeedSettings(read_timeout_s=3.0))
    server = BackgroundServer(svc.app, "127.0.0.1", free_port())
    base = f"http://127.0.0.1:{server.start()}"
    try:
        assert httpx.get(base + "/state", timeout=5).json()["calibration"]["status"] == "calibrating"
        svc.runner.start()
        deadline = time.monotonic() + 120
        state = {}
        while time.monotonic() < deadline:
            state = httpx.get(base + "/state", timeout=5).json()
            if state["calibration"]["status"] == "automatic" and state["source"]["frames_processed"] >= 10:
                break
            time.sleep(0.2)
        assert state["calibration"]["status"] == "automatic", state["calibration"]
        assert state["source"]["frames_processed"] >= 10 and state["video_frame"] is not None, "observed"
    finally:
        svc.runner.stop()
        svc.runner.join(10)
        server.stop()
        svc.store.close()
        camera.close()
