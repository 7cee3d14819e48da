"""Rendered scenes: balls where the camera puts them, real video files, sane sizes, blur and occluders."""

from __future__ import annotations

import json
import math
from functools import cache

import cv2
import numpy as np
import pytest

from api.cli import main
from calibration.camera import CameraModel
from calibration.mapping import Calibration
from calibration.table import TableModel
from models.synth import library
from models.synth.balls import rolling_rotation
from models.synth.physics import PhysicsTable, ensure_numba_cache
from models.synth.truth import Truth, run_scenario
from models.synth.video import CameraSpec, RenderSettings, SceneRenderer, write_scene

ensure_numba_cache()  # before pooltool loads: numba's cache must be writable
pytest.importorskip("pooltool")

pytestmark = pytest.mark.synth

TABLE = TableModel()
PTABLE = PhysicsTable(TABLE)


@cache
def truth_of(name: str, seed: int = 0) -> Truth:
    return run_scenario(library.build(name, seed, TABLE, PTABLE), TABLE, PTABLE)


def _quiet(res: tuple[int, int], fps: float = 30.0, **cam: float) -> RenderSettings:
    return RenderSettings(
        res, fps, CameraSpec(**cam), noise_sigma=0.0, flicker=0.0, occluders=False, shadows=False
    )  # fmt: skip


@pytest.mark.parametrize("cam", [{"tilt_deg": 0.0}, {"tilt_deg": 28.0, "k1": -0.1, "k2": 0.01, "azimuth_deg": 200.0}])
def test_resting_ball_centres_project_onto_blob_centroids(tmp_path, cam: dict) -> None:
    tr = truth_of("cluster-random")
    settings = _quiet((1280, 720), **cam)
    r = SceneRenderer(tr, settings)
    frame = r.frame(0)
    # The camera as camera.json records it, not the renderer's object.
    write = r.camera_json()
    camera = CameraModel.from_json(json.loads(json.dumps(write))["camera"])
    diff = np.abs(frame.astype(np.int16) - r.background.astype(np.int16)).max(axis=2)
    mask = (diff > 3).astype(np.uint8)  # noise-free frames: every touched pixel, edges included
    _n, labels, stats, _centroids = cv2.connectedComponentsWithStats(mask, 8)
    start = tr.positions_at(0.0)
    proj = camera.project(np.array(list(start.values())), TABLE.ball_radius_mm)
    errors = []
    for u, v in proj:
        lab = labels[round(v), round(u)]
        assert lab > 0, "no blob at a projected ball centre"
        ys, xs = np.nonzero(labels == lab)
        if stats[lab, cv2.CC_STAT_AREA] > 1.5 * math.pi * (stats[lab, cv2.CC_STAT_WIDTH] / 2) ** 2:
            continue  # two touching balls merged into one blob
        errors.append(math.hypot(xs.mean() - u, ys.mean() - v))
    assert len(errors) >= len(proj) // 2
    assert max(errors) <= 0.25, f"centroid errors {sorted(errors)[-3:]}"


def test_camera_json_loads_as_calibration_and_corners_match(tmp_path) -> None:
    tr = truth_of("pot-middle-left")
    settings = RenderSettings((640, 360), 25.0, CameraSpec(tilt_deg=20.0, k1=-0.08))
    r = SceneRenderer(tr, settings)
    obj = r.camera_json()
    (tmp_path / "camera.json").write_text(json.dumps(obj))
    cal = Calibration.load(tmp_path / "camera.json", expect_image_size=(640, 360))
    assert obj["fps"] == 25.0 and obj["image_size"] == [640, 360]
    for name, (u, v) in obj["corners_px"].items():
        x, y = TABLE.corners[name]
        assert math.dist(cal.table_to_image(np.array([[x, y]]))[0], (u, v)) < 0.05
    assert cal.camera_height_mm == pytest.approx(obj["camera_height_mm"])
    assert obj["camera_height_mm"] > 3000


@pytest.mark.parametrize(
    ("res", "fps"),
    [
        ((1280, 720), 25.0),
        ((1920, 1080), 30.0),
        ((640, 360), 50.0),
        ((480, 270), 120.0),
        pytest.param((3840, 2160), 60.0, marks=pytest.mark.slow),
    ],
)
def test_video_files_are_real_and_sane(tmp_path, res: tuple[int, int], fps: float) -> None:
    tr = truth_of("pot-house-left")
    short = Truth(tr.scenario, tr.table, tr.ptable, tr.shots, tr.events, duration_s=4.0 / fps)
    fig = write_scene(short, tmp_path, RenderSettings(res, fps, CameraSpec(tilt_deg=10.0)))
    cap = cv2.VideoCapture(str(tmp_path / "video.mp4"))
    assert cap.get(cv2.CAP_PROP_FPS) == pytest.approx(fps, rel=0.01)
    frames = []
    while True:
        ok, img = cap.read()
        if not ok:
            break
        frames.append(img)
    cap.release()
    assert len(frames) == int(fig["frames"]) == 5
    assert frames[0].shape == (res[1], res[0], 3)
    size = (tmp_path / "video.mp4").stat().st_size
    raw = res[0] * res[1] * 3 * len(frames)
    assert 1000 < size < raw / 5, "the video is not compressed"
    # The decoded frame shows the table: mostly cloth green inside the playing field.
    centre = frames[0][res[1] // 2 - 5 : res[1] // 2 + 5, res[0] // 2 - 5 : res[0] // 2 + 5].mean(axis=(0, 1))
    assert centre[1] > centre[0] and centre[1] > centre[2]
    truth_rows = (tmp_path / "truth" / "tracks.csv").read_text().splitlines()
    assert truth_rows[0] == "frame,t,ball,x,y,visible" and len(truth_rows) > 5


def test_motion_blur_stretches_a_fast_ball_along_its_path() -> None:
    tr = truth_of("pot-house-left")
    settings = _quiet((1280, 720), 30.0)
    r = SceneRenderer(tr, settings)
    t0 = tr.shots[0].t0
    f = math.ceil((t0 + 0.02) * 30)
    for i in range(f + 1):
        img = r.frame(i)
    diff = np.abs(img.astype(np.int16) - r.background.astype(np.int16)).max(axis=2) > 12
    p0, p1 = tr.ball_positions("cue", np.array([f / 30 - 0.25 / 30, f / 30 + 0.25 / 30]))
    uv = r.camera.project(np.array([p0, p1]), TABLE.ball_radius_mm)
    along = (uv[1] - uv[0]) / np.linalg.norm(uv[1] - uv[0])
    _n, labels = cv2.connectedComponents(diff.astype(np.uint8))
    mid = uv.mean(axis=0)
    lab = labels[round(mid[1]), round(mid[0])]
    assert lab > 0
    ys, xs = np.nonzero(labels == lab)
    pts = np.column_stack([xs, ys]).astype(float)
    pts -= pts.mean(axis=0)
    across = np.array([-along[1], along[0]])
    spread_along, spread_across = np.std(pts @ along), np.std(pts @ across)
    assert spread_along > 1.5 * spread_across
    assert np.linalg.norm(uv[1] - uv[0]) > 10  # the ball moved more than 10 px during the exposure


def test_player_and_cue_occlude_around_the_stroke() -> None:
    tr = truth_of("pot-house-left")
    base = _quiet((640, 360), 25.0)
    with_player = RenderSettings(base.resolution, 25.0, base.camera, noise_sigma=0.0, flicker=0.0, shadows=False)
    a, b = SceneRenderer(tr, base), SceneRenderer(tr, with_player)
    t0 = tr.shots[0].t0
    during = round((t0 - 0.5) * 25)
    after = round((t0 + 1.5) * 25)
    assert np.array_equal(a.frame(after), b.frame(after))  # the player has left the table
    changed = np.abs(a.frame(during).astype(int) - b.frame(during).astype(int)).max(axis=2) > 30
    assert changed.sum() > 200  # the cue and arm cover a few hundred pixels at 640x360
    uv = a.camera.project(np.array([tr.shots[0].sim.start["cue"]]), TABLE.ball_radius_mm)[0]
    ys, xs = np.nonzero(changed)
    assert np.min(np.hypot(xs - uv[0], ys - uv[1])) < 20  # the cue tip is near the struck ball


def test_rolling_turns_the_ball_forward() -> None:
    R = 34.0
    up = np.array([0.0, 0.0, -1.0])
    quarter = rolling_rotation(np.array([math.pi * R / 2, 0.0]), R)
    assert np.allclose(quarter @ up, [1.0, 0.0, 0.0], atol=1e-9)  # the top rolls toward +x
    half = rolling_rotation(np.array([0.0, math.pi * R]), R)
    assert np.allclose(half @ up, -up, atol=1e-9)


def test_synth_cli_lists_and_writes(tmp_path, capsys) -> None:
    assert main(["synth", "--list"]) == 0
    out = capsys.readouterr().out
    assert "break" in out and "stop-in-mouth" in out and "events-1080p60" in out
    assert main(["synth", "--out", str(tmp_path / "s"), "--scenario", "pot-pyramid-left", "--truth-only"]) == 0
    assert (tmp_path / "s" / "truth" / "events.jsonl").is_file()
    assert main(["synth", "--out", str(tmp_path / "x"), "--scenario", "no-such"]) == 2
    assert main(["synth", "--out", str(tmp_path / "x"), "--camera", "tilt=80"]) == 2
    assert "unknown scenario" in capsys.readouterr().err


@pytest.mark.slow
def test_small_suite(tmp_path) -> None:
    from models.synth.suites import write_suite

    summary = write_suite("detect", tmp_path, limit=1, small=True)
    assert summary["items"] + len(summary["skipped"]) == 1
    lines = (tmp_path / "labels.jsonl").read_text().splitlines()
    assert len(lines) == 5 * summary["items"]
    lab = json.loads(lines[0])
    img = cv2.imread(str(tmp_path / lab["image"]))
    assert img is not None and [img.shape[1], img.shape[0]] == lab["image_size"]
    assert lab["balls"] and all(b["radius_px"] > 2 for b in lab["balls"])


@pytest.mark.slow
def test_small_event_suite(tmp_path) -> None:
    from models.synth.suites import write_suite

    summary = write_suite("events-1080p30", tmp_path, limit=2, small=True)
    index = json.loads((tmp_path / "suite.json").read_text())
    assert index["items"] == summary["items"] == 2 and index["shots"] >= 2
    for item in index["written"]:
        cam = json.loads((tmp_path / item["folder"] / "camera.json").read_text())
        assert cam["image_size"] == [320, 180] and cam["fps"] == 30.0
        assert (tmp_path / item["folder"] / "video.mp4").stat().st_size > 1000


@pytest.mark.slow
def test_suite_skip_writes_the_rest_as_a_whole_write_does(tmp_path) -> None:
    from models.synth.suites import write_suite

    whole = write_suite("events-heldout-1080p30", tmp_path / "whole", limit=2, small=True)
    part_dir = tmp_path / "part"
    args = ["synth", "--suite", "events-heldout-1080p30", "--out", str(part_dir), "--skip", "1", "--limit", "1"]
    assert main([*args, "--small"]) == 0
    part = json.loads((part_dir / "suite.json").read_text())
    skipped, kept = (w["folder"] for w in whole["written"])
    assert part["first_item"] == 1 and part["written"] == whole["written"][1:]
    assert not (part_dir / skipped).exists()
    files = sorted(p.relative_to(tmp_path / "whole" / kept) for p in (tmp_path / "whole" / kept).rglob("*"))
    assert files == sorted(p.relative_to(part_dir / kept) for p in (part_dir / kept).rglob("*"))
    for rel in files:  # the same camera, truth and frames: the item keeps its place's render settings
        if (part_dir / kept / rel).is_file():
            assert (part_dir / kept / rel).read_bytes() == (tmp_path / "whole" / kept / rel).read_bytes(), rel
    with pytest.raises(ValueError, match="not negative"):
        write_suite("events-heldout-1080p30", tmp_path / "bad", skip=-1)
