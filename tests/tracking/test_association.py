"""The two-stage match (``tracking.association``): confident detections first, weak ones after, on real
``vision.detections.Detections`` fed to the tracker as the pipeline feeds them."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableModel
from tests.tracking.records import dets, feed
from tracking import association
from tracking.tracker import Tracker, TrackerSettings

TABLE = TableModel()
R = TABLE.ball_radius_mm
WEAK, CLEAR = 0.4, 0.95  # below and above TrackerSettings.new_track_confidence (0.55)


def _bounce_path(t: float, start: np.ndarray, v: float, t0: float) -> np.ndarray:
    """A ball set rolling at ``t0`` straight down the table's width at ``v`` mm/s, off the cushion at y = R."""
    y = start[1] - v * max(t - t0, 0.0)
    return np.array([start[0], y if y >= R else 2 * R - y])


def test_a_weak_detection_continues_a_ball_but_never_starts_one() -> None:
    # 30 fps: a ball struck at 4 m/s into the near cushion; from the frame it bounces its blurred picture is
    # weak and lies off its prediction (which ran on into the cushion), so only the second stage offers it to
    # the ball. A weak blob of a ball's size (the player's hand) sits still away from every ball all along.
    fps, t0 = 30.0, 1.0
    start, other, hand = np.array([1500.0, 400.0]), np.array([2600.0, 1200.0]), np.array([700.0, 1300.0])
    tracker = Tracker(TABLE, known_ids={"cue": tuple(start), "1": tuple(other)})
    t_bounce = t0 + (start[1] - R) / 4000.0
    frames, truth = [], []
    for i in range(int((t0 + 0.35) * fps)):
        t = i / fps
        p = _bounce_path(t, start, 4000.0, t0)
        conf = WEAK if t > t_bounce else CLEAR
        frames.append((t, dets([p, other, hand], [conf, CLEAR, WEAK])))
        truth.append(p)
    out = feed(tracker, frames)
    ids: set[str] = set()
    for f in out:
        ids.update(f.by_id())
    assert ids == {"cue", "1"}  # the hand never became a ball
    after = [(p, f.by_id()["cue"]) for p, f in zip(truth, out, strict=True) if f.t > t_bounce]
    assert len(after) >= 5
    for p, cue in after:
        assert cue.meas is not None and np.hypot(*(np.array(cue.pos) - p)) < 10.0, cue


def test_a_clear_new_ball_is_born_beside_a_resting_ball_seen_weakly() -> None:
    # 60 fps: ball 1 rests; the player's arm shades it, so its detection turns weak, still on its place. At the
    # same moment a ball is placed 80 mm away (a clear detection outside ball 1's anchor gate, but within its
    # reach through the kink tier). Ball 1 keeps its weak detection on its place, and the clear one is a new
    # ball: the resting ball does not jump onto it because its own detection is weak.
    fps = 60.0
    one, cue = np.array([1800.0, 900.0]), np.array([600.0, 400.0])
    new = one + np.array([80.0, 0.0])
    tracker = Tracker(TABLE, known_ids={"1": tuple(one), "cue": tuple(cue)})
    rng = np.random.default_rng(3)
    frames = []
    for i in range(int(2.0 * fps)):
        t = i / fps
        noise = rng.normal(0.0, 0.3, (3, 2))
        if t < 1.0:
            frames.append((t, dets(np.array([one, cue]) + noise[:2], CLEAR)))
        else:
            frames.append((t, dets(np.array([one, cue, new]) + noise, [WEAK, CLEAR, CLEAR])))
    out = feed(tracker, frames)
    for f in out:
        if f.t < 1.0:
            continue
        ball = f.by_id()["1"]
        assert ball.resting and ball.meas is not None and np.hypot(*(np.array(ball.pos) - one)) < 2.0, f.t
    last = out[-1].by_id()
    placed = [b for k, b in last.items() if k not in ("1", "cue")]
    assert len(placed) == 1 and np.hypot(*(np.array(placed[0].pos) - new)) < 2.0


@pytest.mark.parametrize("seed", range(6))
def test_owned_elsewhere_weighs_each_track_against_the_likeliest_other_claimant(seed: int) -> None:
    # colour distances on a coarse scale (ties between tracks) with unknown colours and unclaimed pairs
    rng = np.random.default_rng(seed)
    s = TrackerSettings()
    for _ in range(200):
        tracks, n = int(rng.integers(2, 17)), int(rng.integers(0, 17))
        dc = rng.choice([0.5, 1.0, 2.0, 3.0, 5.0, 8.0], size=(tracks, n)) * s.colour_gate_sigma / 2.0
        dc[rng.random((tracks, n)) < 0.1] = np.nan
        claims = rng.random((tracks, n)) < 0.7
        d2 = np.where(np.isnan(dc) | ~claims, np.inf, dc * dc)
        want = np.zeros((tracks, n), bool)
        for i in range(tracks):
            others = np.delete(d2, i, axis=0).min(axis=0)
            want[i] = (dc[i] > s.colour_gate_sigma) & (0.5 * (dc[i] * dc[i] - others) > s.colour_owner_nats)
        assert np.array_equal(association.owned_elsewhere(dc, claims, s), want)
