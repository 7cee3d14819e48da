"""The cushion and jaw detectors as pure functions, fed hand-built records (no tracker, no extractor)."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import cushions
from tracking.detect.segments import Trail
from tracking.detect.settings import CushionSettings

S = CushionSettings()
TABLE = TableModel()
R = TABLE.ball_radius_mm
FPS = 60.0
DT = 1 / FPS
PK = TABLE.pockets["house-left"]
PLAY = (PK.mouth_width_mm - 2 * R) / 2  # how far the centre moves sideways between the jaw faces
FACE = PK.depth(PK.jaws[0].face_start)  # the depth where the faces begin


def _bounce(y0: float, v0: float, e: float, t_end: float) -> tuple[np.ndarray, list[float]]:
    """A ball between walls at +-PLAY (restitution ``e``), stepped every 0.05 ms: its offset at each frame and
    the times it met a wall."""
    h, y, v = 5e-5, y0, v0
    frames, walls = [], []
    for k in range(int(t_end / h) + 1):
        t = k * h
        if abs(t * FPS - round(t * FPS)) < h * FPS / 2:
            frames.append(y)
        y += v * h
        if abs(y) >= PLAY and y * v > 0:
            y, v = np.sign(y) * PLAY, -e * v
            walls.append(t + h)
    return np.array(frames), walls


def _trail(lateral: np.ndarray, t0: float = 1.0, before: int = 10) -> Trail:
    """A ball rolling down the mouth's axis at 150 mm/s for ``before`` frames short of the faces, then between
    them at 2.5 mm a frame with the sideways offsets ``lateral``, first there at ``t0``."""
    ps = [PK.point(FACE - 1.0 - 2.5 * k, 0.0) for k in range(before, 0, -1)]
    ps += [PK.point(FACE + 1.0 + 2.5 * k, float(y)) for k, y in enumerate(lateral)]
    ts = t0 + DT * (np.arange(len(ps)) - before)
    return Trail("1", ts, np.array(ps, dtype=float))


def test_a_ball_rattling_between_the_jaw_faces_touches_each_in_turn_before_it_drops() -> None:
    ys, walls = _bounce(-1.6, 330.0, 0.75, 0.2)
    lateral = ys[1:11]  # ten frames between the faces, the first a frame after it came in
    t_drop = 1.0 + 0.17
    got = cushions.rattle(_trail(lateral), PK, t_drop, R, S.rattle, DT)
    truth = [1.0 - DT + w for w in walls if 1.0 - DT + w <= t_drop]
    assert len(got) == len(truth) == 5
    for c, w in zip(got, truth, strict=True):
        assert (c.kind, c.balls, c.obstacle, c.evidence) == ("cushion", ("1",), "jaw:house-left", "rattle")
        assert abs(c.t - w) < 0.25 * DT
    # the touches alternate sides, each with the centre at the face it touched
    sides = [round(PK.lateral(c.pos) / PLAY) for c in got]
    assert sides == [1, -1, 1, -1, 1]
    assert all(abs(abs(PK.lateral(c.pos)) - PLAY) < 0.01 for c in got)


def test_only_the_samples_between_the_faces_are_read() -> None:
    ys, _ = _bounce(-1.6, 330.0, 0.75, 0.2)
    # samples far off the axis short of the faces (the ball coming in at a slant) are not part of the rattle
    trail = _trail(ys[1:11])
    xy = trail.xy.copy()
    xy[:10] = [PK.point(FACE - 1.0 - 2.5 * k, 30.0 * (-1) ** k) for k in range(10, 0, -1)]
    got = cushions.rattle(Trail("1", trail.ts, xy), PK, 1.17, R, S.rattle, DT)
    assert len(got) == 5


def test_a_ball_running_straight_down_the_mouth_does_not_rattle() -> None:
    straight = np.linspace(0.3, 1.5, 10)
    assert cushions.rattle(_trail(straight), PK, 1.17, R, S.rattle, DT) == []


def test_too_few_samples_between_the_faces_are_no_rattle() -> None:
    ys, _ = _bounce(-1.6, 330.0, 0.75, 0.2)
    few = ys[1 : S.rattle.min_samples]
    assert cushions.rattle(_trail(few), PK, 1.17, R, S.rattle, DT) == []
