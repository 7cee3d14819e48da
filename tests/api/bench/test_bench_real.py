"""``tableref bench real``'s scorer on small made-up labels and runs, and one real run on the demo clip."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from api.bench import real
from api.bench._real_labels import LabelError, load_label, parse_label
from api.bench._real_score import Track, image_pocket_names, run_cue, score_clip
from calibration.mapping import Calibration
from calibration.table import TableModel, TableSpec
from tests.paths import REPO

REPO = REPO
FIXTURE = REPO / "tests" / "data" / "real" / "fixture-demo.json"
POOL = TableModel(TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=57.15))
FPS = 25.0


def lying_calibration() -> Calibration:
    """A camera straight above a pool table lying across a 1280x720 picture, house end on the left."""
    corners = {"house-left": (100.0, 100.0), "house-right": (100.0, 600.0),
               "pyramid-left": (1100.0, 100.0), "pyramid-right": (1100.0, 600.0)}  # fmt: skip
    return Calibration.from_corners(corners, (1280, 720), POOL)


def px_of(cal: Calibration, xy: tuple[float, float]) -> list[float]:
    """The pixel at which a ball centred above table point ``xy`` is seen (``ball_px_to_table`` inverted)."""
    target = np.array([xy], dtype=np.float64)
    px = cal.table_to_image(target)
    for _ in range(30):
        px = px + (cal.table_to_image(target) - cal.table_to_image(cal.ball_px_to_table(px)))
    return [float(px[0, 0]), float(px[0, 1])]


def label(cal: Calibration, **over: Any) -> Any:
    """Two balls at rest: the cue at (600, 635) and the 3 at (1800, 400); 100 frames at 25 fps."""
    balls = [{"ball": "cue", "px": px_of(cal, (600.0, 635.0))}, {"ball": "3", "px": px_of(cal, (1800.0, 400.0))}]
    obj = {"source": "x.mp4", "split": "tuning", "game": "eight", "table_mm": [2540, 1270], "ball_mm": 57.15,
           "fps": FPS, "frames": 100, "balls_first": balls, "balls_last": balls, "pots": [], "shots": [],
           "cuts": []}  # fmt: skip
    obj.update(over)
    return parse_label(obj, "made-up")


def still(ball: str, xy: tuple[float, float], frames: range = range(100)) -> Track:
    f = np.array(list(frames), dtype=np.int64)
    return Track(ball, f, np.tile(np.array(xy, dtype=np.float64), (len(f), 1)))


def resting() -> dict[str, Track]:
    return {"t1": still("t1", (600.0, 635.0)), "t2": still("t2", (1800.0, 400.0))}


def pot_event(t: float, pocket: str, ball: str = "t2") -> dict[str, Any]:
    return {"type": "pot", "t": t, "frame": round(t * FPS), "shot": 0, "ball": ball, "pocket": pocket}


def test_pockets_are_named_by_where_the_calibration_puts_them_in_the_image() -> None:
    names = image_pocket_names(lying_calibration())
    assert names == {
        "house-left": "top-left",
        "house-right": "bottom-left",
        "middle-left": "top-middle",
        "middle-right": "bottom-middle",
        "pyramid-left": "top-right",
        "pyramid-right": "bottom-right",
    }
    # The same table standing upright, house end at the top: the long sides are the picture's left and right.
    upright = {"house-left": (900.0, 100.0), "house-right": (400.0, 100.0),
               "pyramid-left": (900.0, 1100.0), "pyramid-right": (400.0, 1100.0)}  # fmt: skip
    names = image_pocket_names(Calibration.from_corners(upright, (1280, 1280), POOL))
    assert names["house-left"] == "right-top" and names["pyramid-right"] == "left-bottom"
    assert names["middle-left"] == "right-middle"


def test_a_pot_in_the_right_pocket_counts_only_inside_the_widened_window() -> None:
    cal = lying_calibration()
    lab = label(cal, pots=[{"ball": "3", "pocket": "top-right", "frames": [50, 60]}])
    # Frame 60 is 2.4 s; the window closes 0.2 s later.
    inside = score_clip(lab, cal, [pot_event(2.55, "pyramid-left")], resting())
    assert (inside.pots_labelled, inside.pots_found, inside.pots_right_pocket) == (1, 1, 1)
    late = score_clip(lab, cal, [pot_event(2.65, "pyramid-left")], resting())
    assert (late.pots_found, late.pots_right_pocket) == (1, 0)
    assert any("not in the labels" in n for n in late.notes)
    wrong_pocket = score_clip(lab, cal, [pot_event(2.2, "pyramid-right")], resting())
    assert wrong_pocket.pots_right_pocket == 0


def test_an_oblique_table_s_pockets_are_named_the_way_its_label_names_them() -> None:
    # The long axis runs up to the right at 40 degrees: lying by its slope, though a person may read it as
    # standing and name its near-left corner "left-bottom"
    c, s = np.cos(np.radians(40.0)), np.sin(np.radians(40.0))
    centre = np.array([640.0, 640.0])

    def at(along: float, across: float) -> tuple[float, float]:
        x, y = centre + along * np.array([c, -s]) + across * np.array([s, c])
        return float(x), float(y)

    corners = {"house-left": at(-400.0, -200.0), "house-right": at(-400.0, 200.0),
               "pyramid-left": at(400.0, -200.0), "pyramid-right": at(400.0, 200.0)}  # fmt: skip
    cal = Calibration.from_corners(corners, (1280, 1280), POOL)
    standing = image_pocket_names(cal, lying=False)
    pocket = next(k for k, v in standing.items() if v == "left-bottom")
    assert image_pocket_names(cal)[pocket] != "left-bottom"  # named by its slope, it is another name
    lab = label(cal, pots=[{"ball": "3", "pocket": "left-bottom", "frames": [50, 60]}])
    assert score_clip(lab, cal, [pot_event(2.2, pocket)], resting()).pots_right_pocket == 1
    other = next(k for k in standing if k != pocket)
    assert score_clip(lab, cal, [pot_event(2.2, other)], resting()).pots_right_pocket == 0


def test_the_potted_ball_is_judged_only_where_both_sides_name_it() -> None:
    cal = lying_calibration()
    lab = label(cal, pots=[{"ball": "3", "pocket": "top-right", "frames": [50, 60]},
                           {"ball": "red", "pocket": "top-left", "frames": [70, 80]}])  # fmt: skip
    events = [pot_event(2.2, "pyramid-left", ball="5"), pot_event(3.0, "house-left", ball="4")]
    s = score_clip(lab, cal, events, resting())
    assert s.pots_right_pocket == 2
    assert (s.pots_ball_comparable, s.pots_ball_right) == (1, 0)  # "red" compares with no number
    s = score_clip(lab, cal, [pot_event(2.2, "pyramid-left", ball="3")], resting())
    assert (s.pots_ball_comparable, s.pots_ball_right) == (1, 1)


def test_balls_tracked_at_the_edges_take_one_track_per_ball_within_a_diameter() -> None:
    cal = lying_calibration()
    tracks = {
        "t1": still("t1", (600.0, 635.0), range(2, 100)),  # born two frames late: still "at" the first frame
        "t9": still("t9", (610.0, 640.0)),  # a second track on the same ball counts once
        "t2": still("t2", (1800.0 + 80.0, 400.0)),  # 80 mm off the 3: more than a diameter
    }
    s = score_clip(label(cal), cal, [], tracks)
    assert (s.first_tracked, s.first_labelled, s.last_tracked, s.last_labelled) == (1, 2, 1, 2)


def test_a_track_on_no_labelled_ball_is_a_phantom_unless_it_is_a_ball_rolling_after_a_stroke() -> None:
    cal = lying_calibration()
    lab = label(cal, shots=[{"strike_frame": 20, "striker": "cue", "first_hit": "3"}])
    glove = still("t7", (1200.0, 1250.0), range(30, 55))  # a second at rest on the rail side
    s = score_clip(lab, cal, [], {**resting(), "t7": glove})
    assert s.phantoms == 1
    assert s.phantom_s == pytest.approx(1.0)
    assert s.phantom_longest_s == pytest.approx(1.0)
    assert any("phantom t7" in n for n in s.notes)
    f = np.arange(40, 50)
    rolling = Track("t8", f, np.c_[300.0 + 40.0 * (f - 40), np.full(len(f), 300.0)])  # 1000 mm/s
    s = score_clip(lab, cal, [], {**resting(), "t8": rolling})
    assert (s.phantoms, s.excused_moving) == (0, 1)
    early = Track("t8", f - 30, rolling.xy)  # the same motion before any stroke: not a ball
    s = score_clip(lab, cal, [], {**resting(), "t8": early})
    assert (s.phantoms, s.excused_moving) == (1, 0)


def _shot(t: float, ball: str, other: str | None) -> list[dict[str, Any]]:
    ev = [{"type": "shot_start", "t": t, "frame": round(t * FPS), "shot": 0, "ball": ball, "positions": {}}]
    if other is not None:
        ev.append({"type": "contact", "t": t + 0.3, "frame": round((t + 0.3) * FPS), "shot": 0,
                   "balls": [ball, other], "pos": [0, 0]})  # fmt: skip
    return ev


def test_first_contact_compares_ids_else_the_labelled_ball_the_track_lies_on() -> None:
    cal = lying_calibration()
    lab = label(cal, shots=[{"strike_frame": 20, "striker": "cue", "first_hit": "3"}])
    assert score_clip(lab, cal, _shot(0.82, "t1", "t2"), resting()).first_contact_right == 1  # t2 lies on the 3
    assert score_clip(lab, cal, _shot(0.82, "cue", "3"), resting()).first_contact_right == 1  # same id
    assert score_clip(lab, cal, _shot(0.82, "cue", "5"), resting()).first_contact_right == 0
    assert score_clip(lab, cal, _shot(0.82, "t1", None), resting()).first_contact_right == 0
    late = score_clip(lab, cal, _shot(1.5, "t1", "t2"), resting())  # no shot start within 0.5 s of the stroke
    assert late.first_contact_right == 0 and any("no shot start" in n for n in late.notes)
    no_hit = label(cal, shots=[{"strike_frame": 20, "striker": "cue", "first_hit": None}])
    assert score_clip(no_hit, cal, _shot(0.82, "t1", None), resting()).first_contact_right == 1


def test_the_cue_track_on_another_ball_is_an_identity_transfer() -> None:
    cal = lying_calibration()
    lab = label(cal)
    fine = {"cue": still("cue", (600.0, 635.0)), "t2": still("t2", (1800.0, 400.0))}
    assert score_clip(lab, cal, [], fine).cue_transfers == 0
    moved = {"cue": Track("cue", np.arange(100), np.array([(600.0, 635.0)] * 50 + [(1800.0, 400.0)] * 50)),
             "t2": still("t2", (1800.0, 400.0), range(50))}  # fmt: skip
    s = score_clip(lab, cal, [], moved)
    assert s.cue_transfers == 1 and any("on the labelled 3 at the last frame" in n for n in s.notes)
    # A tracker that names no cue ball: the first shot's struck ball stands for it.
    events = _shot(0.82, "t2", None)
    assert run_cue(resting(), events) == "t2"
    assert score_clip(lab, cal, events, resting()).cue_transfers == 2


def test_a_cue_ball_resting_against_another_ball_is_not_on_it() -> None:
    """Touching balls' centres lie one diameter apart: the cue track a few mm toward the 3 is within a
    diameter of both labels and stays the cue ball's; a track nearer the 3's label is on the 3."""
    cal = lying_calibration()
    balls = [{"ball": "cue", "px": px_of(cal, (600.0, 635.0))}, {"ball": "3", "px": px_of(cal, (657.15, 635.0))}]
    lab = label(cal, balls_first=balls, balls_last=balls)
    toward = {"cue": still("cue", (603.0, 635.0)), "t2": still("t2", (657.15, 635.0))}
    assert score_clip(lab, cal, [], toward).cue_transfers == 0
    on_the_3 = {"cue": still("cue", (650.0, 635.0)), "t2": still("t2", (600.0, 635.0))}
    s = score_clip(lab, cal, [], on_the_3)
    assert s.cue_transfers == 2 and any("on the labelled 3 at the last frame" in n for n in s.notes)


def test_events_inside_a_cut_and_off_table_matching() -> None:
    cal = lying_calibration()
    lab = label(cal, cuts=[[40, 50]], off_table=[{"ball": "cue", "frame": 70}])
    events = [
        {"type": "off_table", "t": 1.8, "frame": 45, "shot": 0, "ball": "t1", "pos": [0, 0]},
        {"type": "off_table", "t": 2.9, "frame": 72, "shot": 0, "ball": "t1", "pos": [0, 0]},
    ]
    s = score_clip(lab, cal, events, resting())
    assert s.events_in_cuts == 1
    assert (s.off_labelled, s.off_found, s.off_right) == (1, 2, 1)


def test_a_malformed_label_is_one_clear_line(tmp_path: Path) -> None:
    cal = lying_calibration()
    with pytest.raises(LabelError, match="not an image position"):
        label(cal, pots=[{"ball": "3", "pocket": "house-left", "frames": [1, 2]}])
    with pytest.raises(LabelError, match="neither 'tuning' nor 'heldout'"):
        label(cal, split="train")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(LabelError, match=r"^bad\.json: cannot read"):
        load_label(bad)
    labels, errors = real.find_labels(tmp_path, "all", None)
    assert labels == [] and len(errors) == 1 and "\n" not in errors[0]
    parser = argparse.ArgumentParser()
    real.add_arguments(parser)
    with pytest.raises(ValueError, match="no label folder or file at"):
        real.run(parser.parse_args(["--labels", str(tmp_path / "absent"), "--realdata", str(tmp_path)]))


def test_an_image_sequence_becomes_a_video_at_the_labels_rate(tmp_path: Path) -> None:
    seq = tmp_path / "frames"
    seq.mkdir()
    for i in range(54, 60):
        img = np.full((72, 128, 3), 40 * (i - 54), np.uint8)
        cv2.imwrite(str(seq / f"{i:05d}.jpg"), img)
    obj = {"source": "frames/%05d.jpg", "first_image": 54, "split": "tuning", "table_mm": [2840, 1420],
           "ball_mm": 61.5, "fps": 30, "frames": 10, "balls_first": [], "balls_last": []}  # fmt: skip
    lab = parse_label(obj, "seq")
    video = real.sequence_video(lab, tmp_path, tmp_path)
    cap = cv2.VideoCapture(str(video))
    n = 0
    grey = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        grey.append(float(frame.mean()))
        n += 1
    fps = cap.get(cv2.CAP_PROP_FPS)
    cap.release()
    assert n == 6 and fps == pytest.approx(30.0)
    assert grey[0] < 5 and abs(grey[-1] - 200) < 5  # in order, the first image first


def test_the_demo_clip_scores_and_a_clip_that_fails_does_not_stop_the_others(tmp_path: Path) -> None:
    """One real run: analyze in its own process on the bundled demo clip's first 400 frames, scored against
    the label written for it; beside it a "clip" that is not a video, whose one-line error is its row."""
    demo = load_label(FIXTURE)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "broken.mp4").write_text("not a video", encoding="utf-8")
    broken = parse_label({**json.loads(FIXTURE.read_text()), "source": "broken.mp4"}, "broken")
    scores = real.run_all([broken], tmp_path / "data", tmp_path / "work", "classical", 300.0, 1)
    scores += real.run_all([demo], REPO / "api" / "data", tmp_path / "work", "classical", 300.0, 1)
    bad, s = scores
    assert bad.error and "\n" not in bad.error and "broken.mp4" in bad.error
    assert s.error is None, s.error
    assert (s.pots_labelled, s.pots_found, s.pots_right_pocket) == (2, 2, 2)
    assert s.last_labelled == 14 and s.last_tracked >= 12
    assert s.first_labelled == 16 and s.first_tracked >= 12
    assert s.phantoms == 0 and s.events_in_cuts == 0
    assert s.speed is not None and s.speed > 0 and s.cpu_speed is not None and s.cpu_speed > 0
    text = real.report(scores, [], "scores")
    assert "did not run: " in text and "fixture-demo" in text and "held-out" in text
    # Rescoring the kept run gives the same figures without running analyze again.
    again = real.run_all([demo], REPO / "api" / "data", tmp_path / "work", "classical", 300.0, 1, rescore=True)[0]
    assert (again.pots_right_pocket, again.last_tracked, again.speed) == (2, s.last_tracked, s.speed)
    # The command itself, on the kept run: the printout and the figures in --out.
    parser = argparse.ArgumentParser()
    real.add_arguments(parser)
    argv = ["--labels", str(FIXTURE), "--realdata", str(REPO / "api" / "data"), "--keep", str(tmp_path / "work")]
    assert real.run(parser.parse_args([*argv, "--rescore", "--out", str(tmp_path / "out")])) == 0
    assert "fixture-demo" in (tmp_path / "out" / "real.txt").read_text()
    clips = json.loads((tmp_path / "out" / "real.json").read_text())["clips"]
    assert [(c["name"], c["pots_right_pocket"]) for c in clips] == [("fixture-demo", 2)]
