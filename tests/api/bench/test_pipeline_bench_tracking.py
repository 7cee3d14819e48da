"""``tableref bench tracking --suite``: scene folders (a real mp4 decoded by OpenCV, camera.json, truth/) scored
serially and by worker processes alike, a line per scene, a table per frame rate, errors by ball state, --out."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.bench.tracking import row_states
from calibration.contract import write_jsonl
from calibration.table import TableModel
from tests.detect_support import top_down_corners
from tests.paths import REPO
from tracking.kinematic_sim import SimSettings, simulate_shot

TABLE = TableModel()
REPO = REPO
SIZE = (640, 360)


def _scene(folder: Path, fps: float, velocity: tuple[float, float]) -> None:
    """A drawn scenario folder as ``tableref synth`` writes one: video.mp4, camera.json, truth/."""
    balls = {"cue": (900.0, 700.0), "1": (2300.0, 1000.0)}
    sim = simulate_shot(TABLE, balls, "cue", velocity, fps=fps, settings=SimSettings(decel_mm_s2=1500.0), tail_s=0.3)
    w, h = SIZE
    m = 24
    corners = top_down_corners(SIZE, TABLE, m)
    sx, top = (w - 2 * m) / TABLE.length_mm, corners["house-left"][1]
    (folder / "truth").mkdir(parents=True)
    (folder / "camera.json").write_text(json.dumps({"image_size": list(SIZE), "corners_px": corners}))
    ring = np.array([corners[k] for k in ("house-left", "pyramid-left", "pyramid-right", "house-right")], np.int32)
    vw = cv2.VideoWriter(str(folder / "video.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), fps, SIZE)
    rows = []
    for i, (t, frame_balls) in enumerate(sim.frames):
        img = np.zeros((h, w, 3), np.uint8)
        img[:] = (40, 60, 90)
        cv2.fillPoly(img, [ring], (60, 140, 30))
        for b, (x, y) in frame_balls.items():
            c = (round(m + x * sx), round(top + y * sx))
            cv2.circle(img, c, round(TABLE.ball_radius_mm * sx), (235, 235, 235), -1, cv2.LINE_AA)
            rows.append((i, f"{t:.6f}", b, f"{x:.3f}", f"{y:.3f}", 1))
        vw.write(img)
    vw.release()
    with open(folder / "truth" / "tracks.csv", "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f)
        wr.writerow(["frame", "t", "ball", "x", "y", "visible"])
        wr.writerows(rows)
    write_jsonl(folder / "truth" / "events.jsonl", sim.events)


def _without_speed(text: str) -> str:
    return re.sub(r"\d+\.\d+x real time", "Nx real time", text)


def _bench(*argv: str) -> None:
    # A process of its own with BLAS on one thread, as the workers of --jobs run: the tracker's sums are
    # then the same to the last digit from run to run.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-m", "api.cli", "bench", "tracking", *argv], check=True, env=env, cwd=REPO)


@pytest.mark.slow
def test_suite_scored_by_two_processes_prints_what_one_prints(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    _scene(suite / "a-30", 30.0, (2800.0, 600.0))
    _scene(suite / "b-60", 60.0, (2600.0, 700.0))
    _scene(suite / "c-30", 30.0, (2500.0, 800.0))
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    _bench("--suite", str(suite), "--out", str(one))
    _bench("--suite", str(suite), "--jobs", "2", "--out", str(two))
    a, b = one.read_text(), two.read_text()
    assert _without_speed(a) == _without_speed(b)
    lines = a.splitlines()
    scene_lines = [ln for ln in lines if re.match(r"  [abc]-\d\d: \d+ frames at", ln)]
    assert [ln.split(":")[0].strip() for ln in scene_lines] == ["a-30", "b-60", "c-30"]
    assert "2 scenes: 2 shots at 30 fps" in a and "1 scenes: 1 shots at 60 fps" in a
    assert a.index("at 60 fps (tolerance") < a.index("at 30 fps (tolerance")
    assert a.count("track position error by the truth ball's state") == 2
    contact = next(ln for ln in lines if ln.startswith("contact "))
    assert float(contact.split()[1]) == 1.0  # one contact per shot, found
    resting = next(ln for ln in lines if ln.startswith("resting"))
    assert int(resting.split()[-6]) > 0


@pytest.mark.slow
def test_replayed_tracker_input_scores_as_the_video_did(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    _scene(suite / "a-60", 60.0, (2600.0, 700.0))
    _scene(suite / "b-30", 30.0, (2800.0, 600.0))
    recorded, replayed = tmp_path / "recorded.txt", tmp_path / "replayed.txt"
    _bench("--suite", str(suite), "--record", "--out", str(recorded))
    assert (suite / "a-60" / "tracker-input.npz").exists() and (suite / "b-30" / "tracker-input.npz").exists()
    _bench("--suite", str(suite), "--replay", "--jobs", "2", "--out", str(replayed))
    a, b = recorded.read_text(), replayed.read_text()
    assert "whole pipeline (detection included)" in a and "tracking and events (recorded input)" in b
    keep = [ln for ln in a.splitlines() if not ln.startswith(("whole pipeline", "  a-60:", "  b-30:"))]
    assert keep == [ln for ln in b.splitlines() if not ln.startswith(("tracking and events", "  a-60:", "  b-30:"))]
    assert re.search(r"^contact +1\.0000", a, re.M)
    # an override reaches the replayed extractor: with every track taken for a ghost, the contact is lost
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "api.cli", "bench", "tracking", "--suite", str(suite), "--replay"]
    out = subprocess.run([*cmd, "--set", "ghost_below=2"], env=env, cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0
    assert re.search(r"^contact +0\.0000", out.stdout, re.M), out.stdout


def test_settings_overrides_are_typed_and_checked() -> None:
    from api.bench.tracking import settings_with
    from tracking.extractor import ExtractorSettings

    s = settings_with(
        ExtractorSettings(), ["kiss_tol_mm=3", "contacts.kiss_window=20", "cushions.rattle.min_samples=4"]
    )
    assert s.contacts.kiss_tol_mm == 3.0 and s.contacts.kiss_window == 20 and isinstance(s.contacts.kiss_window, int)
    assert s.cushions.rattle.min_samples == 4
    for bad in ("no_such_field=1", "kiss_tol_mm", "rattle=1", "contacts.graze_tol_mm=1"):
        with pytest.raises(ValueError, match="--set"):
            settings_with(ExtractorSettings(), [bad])


def test_kinematic_suite_takes_the_overrides() -> None:
    # the kinematic suite runs the extractor it is given: with every track taken for a ghost, nothing is found
    from api.bench.tracking import run_kinematic, settings_with
    from tracking.extractor import ExtractorSettings

    plain, _ = run_kinematic(4, 60.0, 1, 0.8, 0.02, False)
    ghosts, _ = run_kinematic(4, 60.0, 1, 0.8, 0.02, False, settings_with(ExtractorSettings(), ["ghost_below=2"]))
    assert plain.events["contact"].tp > 0
    assert ghosts.events["contact"].tp == 0


def test_replay_without_a_recording_says_so(tmp_path: Path) -> None:
    from api.bench.tracking import recorded_frames

    with pytest.raises(ValueError, match="--record"):
        list(recorded_frames(tmp_path / "tracker-input.npz"))


def test_row_states_tell_resting_moving_and_near_balls_apart() -> None:
    fps = 60.0
    truth = []
    for f in range(5):
        truth.append((f, "a", 1000.0, 800.0))  # resting, touching b
        truth.append((f, "b", 1068.0, 800.0))
        truth.append((f, "c", 500.0 + 50.0 * f, 300.0))  # 3 m/s
    pred = {(f, b): (x + (2.0 if b == "c" else 0.5), y) for f, b, x, y in truth if not (b == "c" and f == 4)}
    st = row_states(TABLE, fps, truth, pred)
    assert len(st.err_mm) == 14  # the row with no prediction is left out
    a = st.ball == "a"
    c = st.ball == "c"
    assert np.allclose(st.speed_mm_s[a], 0.0) and np.allclose(st.speed_mm_s[c], 3000.0)
    assert np.allclose(st.ball_gap_mm[a], 0.0, atol=1e-6)
    assert np.allclose(st.err_mm[c], 2.0) and np.allclose(st.err_mm[a], 0.5)
    assert np.all(st.cushion_gap_mm[a] > 600) and np.all(st.cushion_gap_mm[c] > 200)
    assert not st.in_mouth.any()


def test_verdicts_on_found_events_are_compared_with_those_on_the_truth(tmp_path: Path) -> None:
    from api.bench.verdicts import verdict_difference
    from calibration.contract import Event

    (tmp_path / "truth").mkdir()
    (tmp_path / "truth" / "scenario.json").write_text(json.dumps({"scenario": "x", "seed": 0, "game": "moscow"}))
    start = {"cue": (900.0, 700.0), "1": (2300.0, 1000.0), "2": (600.0, 1400.0)}
    truth = [
        Event(type="shot_start", t=1.0, shot=0, ball="cue", positions=start),
        Event(type="contact", t=1.5, shot=0, balls=("cue", "1"), pos=(2250.0, 980.0)),
        Event(type="cushion", t=1.9, shot=0, ball="1", cushion="pyramid", pos=(3500.0, 1100.0)),
        Event(type="shot_end", t=4.0, shot=0, positions={**start, "cue": (2200.0, 960.0), "1": (3400.0, 1120.0)}),
    ]
    assert verdict_difference(tmp_path, truth, truth, TABLE) is None
    # a slow hit seen as a ball moved with no contact to explain it: the referee calls a touched ball
    touched = [*truth[:3], Event(type="disturbed", t=2.0, shot=0, ball="2", pos=(600.0, 1400.0)), truth[3]]
    diff = verdict_difference(tmp_path, touched, truth, TABLE)
    assert diff is not None and "touched_ball" in diff and diff.startswith("verdict 0")
    # a line crossing outside any shot: the referee refuses the stream there
    stray = [Event(type="line_cross", t=0.5, shot=None, ball="2", line="long", direction="+y"), *truth]
    diff = verdict_difference(tmp_path, stray, truth, TABLE)
    assert diff is not None and diff.startswith("referee:") and "outside a shot" in diff
    # a folder that names no game is not refereed
    (tmp_path / "truth" / "scenario.json").write_text(json.dumps({"scenario": "x", "seed": 0}))
    assert verdict_difference(tmp_path, touched, truth, TABLE) is None


def test_confidence_table_splits_right_and_wrong_events_per_type(capsys: pytest.CaptureFixture[str]) -> None:
    from api.bench.tracking import SceneResult, print_confidence
    from tracking.evaluation import Judged
    from tracking.metrics import Scores

    rows = row_states(TABLE, 60.0, [], {})
    judged = {
        "contact": [Judged(0.95, False, True), Judged(0.45, True, False)],
        "cushion": [Judged(0.6, False, True), Judged(0.45, True, True)],
    }
    scene = SceneResult("s", 60.0, 10, 1.0, Scores(), rows, [], None, judged)
    print_confidence([scene])
    table = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[2:]}
    assert table["contact"] == ["1", "1", "1.000", "1.000", "0.000", "1.000"]
    assert table["cushion"] == ["2", "0", "-", "-", "0.500", "0.000"]
    # over all: the wrong contact (0.45) ties one right cushion and is below the other two right events
    assert table["all"] == ["3", "1", "0.833", "1.000", "0.333", "0.500"]
    assert "line_cross" not in table


def test_tracker_overrides_reach_the_tracker_settings_and_every_screened_name_is_a_field() -> None:
    from api.bench._settings_screen import OFF
    from api.bench.tracking import SceneRun

    run = SceneRun(
        feed="replay", overrides=("kiss_tol_mm=3", "tracker.colour_cost=0", "tracker.filter.meas_sigma_mm=2")
    )
    assert run.extractor_settings().contacts.kiss_tol_mm == 3.0
    tr = run.tracker_settings()
    assert tr.colour_cost == 0.0 and tr.filter.meas_sigma_mm == 2.0
    with pytest.raises(ValueError, match="TrackerSettings"):
        SceneRun(overrides=("tracker.kiss_tol_mm=3",)).tracker_settings()
    # the screen's off values name live fields, typed as the fields are
    for name, value in OFF.items():
        s = SceneRun(overrides=(f"{name}={value}",))
        s.extractor_settings(), s.tracker_settings()


def _still_rows(ball: str, xy: tuple[float, float], frames: range) -> list[tuple[int, str, float, float]]:
    return [(f, ball, xy[0], xy[1]) for f in frames]


def test_a_track_far_from_every_truth_ball_is_a_phantom_as_bench_real_counts_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from api.bench.tracking import SceneResult, print_phantoms, scene_phantoms
    from tracking.metrics import Scores

    truth = _still_rows("cue", (900.0, 700.0), range(120)) + _still_rows("1", (2300.0, 1000.0), range(60))
    on_balls = _still_rows("cue", (901.0, 701.0), range(120)) + _still_rows("1", (2301.0, 999.0), range(60))
    glove = _still_rows("t9", (900.0, 900.0), range(20, 60))  # 200 mm from the cue ball, further from the 1
    tally = scene_phantoms(TABLE, 60.0, on_balls + glove, truth, strikes=[30])
    assert (tally.phantoms, len(tally.excused)) == (1, 0)
    assert tally.phantom_s == pytest.approx(40 / 60) and tally.longest_s == pytest.approx(40 / 60)
    assert tally.found[0][0].ball == "t9"
    # the 1 is potted at frame 60: a track still standing where it went is on no ball from then on
    left = _still_rows("t5", (2300.0, 1000.0), range(70, 100))
    assert scene_phantoms(TABLE, 60.0, on_balls + left, truth, strikes=[30]).phantoms == 1
    # a track that lay on a ball once is not a phantom, wherever it went after
    strayed = _still_rows("1", (2300.0, 1000.0), range(50, 60)) + _still_rows("1", (1500.0, 300.0), range(60, 110))
    assert scene_phantoms(TABLE, 60.0, strayed, truth, strikes=[30]).phantoms == 0
    # a fragment rolling at 1.2 m/s 200 mm off every ball is excused after the stroke, not before it
    rolling = [(f, "t8", 1200.0 + 20.0 * (f - 40), 300.0) for f in range(40, 60)]
    tally = scene_phantoms(TABLE, 60.0, on_balls + rolling, truth, strikes=[30])
    assert (tally.phantoms, len(tally.excused)) == (0, 1)
    tally = scene_phantoms(TABLE, 60.0, on_balls + rolling, truth, strikes=[70])
    assert (tally.phantoms, len(tally.excused)) == (1, 0)
    # the suite's figure: totals, then the longest with where it stood
    glove_tally = scene_phantoms(TABLE, 60.0, on_balls + glove, truth, strikes=[30])
    scene = SceneResult("s", 60.0, 120, 1.0, Scores(), row_states(TABLE, 60.0, [], {}), [], phantoms=glove_tally)
    print_phantoms([scene, scene])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("phantom tracks: 2, 1.33 track-seconds, longest 0.67 s")
    assert out[1] == "  s: t9 frames 20-59 (0.67 s) at (900, 900) mm"
