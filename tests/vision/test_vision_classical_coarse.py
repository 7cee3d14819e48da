"""The classical detector looks for blobs on a coarse grid and works on the fine grid only around them:
the balls it finds are the ones a search of the whole fine grid finds (``coarse_step=1``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from api.bench.detect import match
from calibration.table import TableModel
from tests.detect_support import match_errors, render
from vision.classical import ClassicalDetector

pytest.importorskip("models.synth.balls")

TABLE = TableModel()
R = TABLE.ball_radius_mm


@pytest.fixture(scope="module")
def scene():
    L, W = TABLE.length_mm, TABLE.width_mm
    balls = [
        *TABLE.rack_positions(),
        (700.0, 900.0),  # the cue ball, alone
        (R, 600.0),  # frozen to a cushion
        (1500.0, 300.0),
        (1500.0 + 2 * R, 300.0),  # a frozen pair
        (L - R - 150.0, W - R),
        (2200.0, 1000.0),
    ]
    return render(balls, cue_index=15, size=(1920, 1080), tilt_deg=15.0, k1=-0.04)


def test_coarse_search_finds_the_same_balls_as_the_whole_fine_grid(scene):
    coarse = ClassicalDetector(scene.calibration).detect(scene.image)
    whole = ClassicalDetector(scene.calibration, coarse_step=1).detect(scene.image)
    assert len(coarse) == len(whole) == len(scene.pos)
    d = np.linalg.norm(coarse.px[:, None, :] - whole.px[None, :, :], axis=2)
    assert d.min(axis=1).max() < 0.05
    err, missed, extra = match_errors(coarse.pos_mm, scene.pos, R / 2)
    assert (missed, extra) == (0, 0) and np.median(err) < 2.0


def test_rack_is_split_into_fifteen_on_the_fine_grid(scene):
    det = ClassicalDetector(scene.calibration)
    dets = det.detect(scene.image)
    rack = scene.pos[:15]
    d = np.linalg.norm(dets.pos_mm[:, None, :] - rack[None, :, :], axis=2)
    assert (d.min(axis=0) < R / 2).all()
    assert det.stage_ms["votes"] > 0.0  # found by the votes in a box, not as blobs of their own


def test_a_ball_on_a_thin_cue_is_split_from_it_in_a_box_the_cue_runs_out_of(monkeypatch):
    """A rendered frame (from the detection benchmark) where the cue stick lies against a ball: the coarse
    grid shows only the ball, the fine grid the ball joined to the stick, which runs out of the ball's
    window and out of the box around it. The votes in the box find the ball, as on the whole fine grid."""
    scenes = pytest.importorskip("models.detector.scenes")
    pytest.importorskip("pooltool")  # the frame's layout is a simulated stroke (the synth extra)
    case = scenes.Case(
        "cluster-hit", 101, (1920, 1080), 8.85797138668502, 187.15319186214197, 4112.029077812001,
        -0.05647652925933851, moments=(1.0,), lighting="uneven", noise_sigma=2.106412866043986,
        exposure=0.5925348471822232, render_seed=1039,
    )  # fmt: skip
    (fr,) = scenes.render_cases([case])
    cut = []
    fine_box = ClassicalDetector._fine_box

    def recording(self, frame, box, known):
        roi = fine_box(self, frame, box, known)
        cut.append(roi.cut)
        return roi

    monkeypatch.setattr(ClassicalDetector, "_fine_box", recording)
    dets = ClassicalDetector(fr.calibration).detect(fr.image)
    assert any(cut)
    _, _, tp, fp, fn = match(dets.px, fr.px, fr.radius_px, fr.hidden)
    assert (fp, fn) == (0, 0) and tp == len(fr.px)
    monkeypatch.undo()
    whole = ClassicalDetector(fr.calibration, coarse_step=1).detect(fr.image)
    assert len(whole) == len(dets)
    assert np.linalg.norm(dets.px[:, None, :] - whole.px[None, :, :], axis=2).min(axis=1).max() < 0.05


def test_foreground_mask_is_the_mask_foreground_returns(scene):
    det = ClassicalDetector(scene.calibration)
    det.detect(scene.image)
    rect = det.rectifier.rectify(scene.image)
    mask = det.cloth.foreground_mask(rect, det.rectifier.surface, det.rectifier.dark_ok)
    full, fraction = det.cloth.foreground(rect, det.rectifier.surface, det.rectifier.dark_ok)
    assert np.array_equal(mask, full) and mask.any() and 0.5 < fraction < 1.0


def test_buffers_kept_between_frames_carry_nothing_from_one_frame_to_the_next(scene):
    """The window stack's buffers are reused: a frame detected after another gives what it gave first."""
    other = render([(400.0, 400.0), (3000.0, 1500.0), (1800.0, 900.0)], size=(1920, 1080), tilt_deg=15.0, k1=-0.04)
    det = ClassicalDetector(scene.calibration, adapt=False)
    first = det.detect(scene.image)
    det.detect(other.image)
    again = det.detect(scene.image)
    assert len(first) == len(again) == len(scene.pos)
    assert np.array_equal(first.px, again.px) and np.array_equal(first.confidence, again.confidence)


def test_a_single_ball_in_a_box_shorter_than_its_window_gives_its_vote_peak(scene):
    """A box at the grid's edge can hold fewer rows than a single ball's vote window (seen on a rendered clip:
    a ball dropping into a corner pocket, its box 23 rows high): the window's missing rows are empty, and the
    ball's peak is the one a taller box gives (it used to fail with an index error)."""
    from vision.classical import _Single

    det = ClassicalDetector(scene.calibration)
    r = det.radius_grid
    cx, cy = 540.8, 7.5  # fine grid (col, row), as in the clip
    col_off = -473

    def single(rows: int) -> _Single:
        bgr = np.zeros((rows, 75, 3), np.uint8)
        bgr[:] = (40, 120, 30)  # cloth
        fg = np.zeros((rows, 75), np.uint8)
        centre = (round((cx + col_off) * 16), round(cy * 16))
        cv2.circle(bgr, centre, round(r * 16), (200, 210, 215), -1, cv2.LINE_AA, 4)
        cv2.circle(fg, centre, round(r * 16), 255, -1, cv2.LINE_8, 4)
        return _Single((cx, cy), 1.0, (535, 0, 548, 14), bgr, fg, 0, col_off, 0, rows, 75)

    short = det._single_peaks([single(23)])
    tall = det._single_peaks([single(40)])
    assert short > 0.2 * det._ideal_votes
    assert short == pytest.approx(tall, rel=1e-6)
