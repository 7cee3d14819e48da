"""`tableref calibrate` through the real command line: images, a video, manual corners and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.bench.calibration import Condition, render_condition
from api.cli import main
from calibration.mapping import CORNER_NAMES, Calibration


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[float]]]:
    img, cam, table = render_condition(Condition("c", tilt_deg=20, k1=-0.08), (1280, 720), np.random.default_rng(1))
    path = tmp_path_factory.mktemp("cal") / "table.png"
    cv2.imwrite(str(path), img)
    return path, cam.corners_px(table)


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert needle in err, err


def test_auto_writes_a_valid_calibration(
    scene: tuple[Path, dict[str, list[float]]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, truth = scene
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(src), "--out", str(out)]) == 0
    assert "residual" in capsys.readouterr().out
    obj = json.loads(out.read_text())
    assert obj["image_size"] == [1280, 720] and obj["source"] == "auto"
    assert obj["quality"]["residual_px"] < 0.5 and "residual_mm" in obj["quality"]
    cal = Calibration.load(out, expect_image_size=(1280, 720))
    assert all(math.dist(cal.corners_px[n], truth[n]) < 2.0 for n in CORNER_NAMES)
    assert main(["calibrate", str(src), "--check", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_manual_corners_and_table_size(scene: tuple[Path, dict[str, list[float]]], tmp_path: Path) -> None:
    src, truth = scene
    out = tmp_path / "manual.json"
    text = ";".join(f"{truth[n][0]:.2f},{truth[n][1]:.2f}" for n in CORNER_NAMES)
    argv = ["calibrate", str(src), "--out", str(out), "--corners", text, "--table", "2540x1270", "--ball", "57.15"]
    assert main(argv) == 0
    obj = json.loads(out.read_text())
    assert obj["source"] == "manual"
    assert obj["table"]["length_mm"] == 2540.0 and obj["table"]["ball_diameter_mm"] == 57.15
    assert obj["corners_px"]["pyramid-left"] == pytest.approx(truth["pyramid-left"], abs=0.01)


def test_video_median_of_first_seconds(tmp_path: Path) -> None:
    img, cam, table = render_condition(Condition("v", tilt_deg=15), (640, 360), np.random.default_rng(3))
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 25.0, (640, 360))
    assert writer.isOpened()
    for i in range(30):  # a dark blob (a player's arm) sweeping over the table: the median removes it
        frame = img.copy()
        cv2.circle(frame, (100 + 15 * i, 180), 45, (20, 20, 20), -1)
        writer.write(frame)
    writer.release()
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(path), "--out", str(out)]) == 0
    cal = Calibration.load(out)
    truth = cam.corners_px(table)
    assert all(math.dist(cal.corners_px[n], truth[n]) < 2.0 for n in CORNER_NAMES)


def test_bad_input(
    scene: tuple[Path, dict[str, list[float]]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "x.json")
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((720, 1280, 3), np.uint8))
    one_line_error(capsys, ["calibrate", str(black), "--out", out], "almost black")
    wall = tmp_path / "wall.png"
    room = np.full((720, 1280, 3), (170, 180, 190), np.uint8)
    cv2.rectangle(room, (300, 200), (500, 400), (40, 60, 200), -1)
    cv2.imwrite(str(wall), room)
    one_line_error(capsys, ["calibrate", str(wall), "--out", out], "no table")
    text = tmp_path / "notes.png"
    text.write_text("this is not an image\n")
    one_line_error(capsys, ["calibrate", str(text), "--out", out], "not a readable image")
    one_line_error(capsys, ["calibrate", str(tmp_path / "missing.mp4"), "--out", out], "no such file")
    # A calibration made for 1280x720 frames, checked against a 1920x1080 image.
    src, _ = scene
    cal_path = tmp_path / "cal720.json"
    assert main(["calibrate", str(src), "--out", str(cal_path)]) == 0
    capsys.readouterr()
    big = tmp_path / "big.png"
    cv2.imwrite(str(big), cv2.resize(cv2.imread(str(src)), (1920, 1080)))
    wanted = "1280x720 frames but these frames are 1920x1080"
    one_line_error(capsys, ["calibrate", str(big), "--check", str(cal_path)], wanted)
    one_line_error(capsys, ["calibrate", str(src), "--out", out, "--corners", "1,2;3,4"], "four")
    assert not Path(out).exists()
