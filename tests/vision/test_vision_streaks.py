"""The centre of a motion-blur streak: drawn frames where a ball's image is averaged over an exposure."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.mapping import Calibration
from calibration.table import TableModel
from tests.detect_support import top_down_corners
from vision.streaks import centre_px, measure_streak

TABLE = TableModel()
SIZE = (1920, 1080)
CLOTH = np.array([40.0, 140.0, 60.0])
BALL = np.array([235.0, 235.0, 235.0])


def _calibration() -> Calibration:
    corners = top_down_corners(SIZE, TABLE, 80)
    return Calibration.from_corners(corners, SIZE, TABLE)


def _frame(
    cal: Calibration, balls: list[tuple[tuple[float, float], tuple[float, float]]], fps: float, exposure: float
) -> np.ndarray:
    """Cloth with balls (centre at the frame time, velocity) averaged over an exposure centred on that time."""
    rng = np.random.default_rng(3)
    img = np.broadcast_to(CLOTH, (SIZE[1], SIZE[0], 3)).astype(np.float64).copy()
    ys, xs = np.mgrid[0 : SIZE[1], 0 : SIZE[0]]
    for p, v in balls:
        q = centre_px(cal, np.array([p]), TABLE.ball_radius_mm)[0]
        rad = TABLE.ball_radius_mm * cal.px_per_mm(p)
        span = np.hypot(*v) * exposure / fps * cal.px_per_mm(p)
        x0, x1 = int(q[0] - rad - span - 4), int(q[0] + rad + span + 4)
        y0, y1 = int(q[1] - rad - span - 4), int(q[1] + rad + span + 4)
        sub_x, sub_y = xs[y0:y1, x0:x1].astype(float), ys[y0:y1, x0:x1].astype(float)
        cover = np.zeros(sub_x.shape)
        steps = 64
        for k in range(steps):
            dt = ((k + 0.5) / steps - 0.5) * exposure / fps
            c = centre_px(cal, np.array([(p[0] + v[0] * dt, p[1] + v[1] * dt)]), TABLE.ball_radius_mm)[0]
            d = np.hypot(sub_x - c[0], sub_y - c[1])
            cover += np.clip(rad + 0.5 - d, 0.0, 1.0)
        cover /= steps
        img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - cover[..., None]) + BALL * cover[..., None]
    img += rng.normal(0, 2.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("fps", "exposure"), [(60.0, 0.5), (30.0, 0.9)])
def test_the_streak_centre_is_the_ball_at_the_frame_time(fps: float, exposure: float) -> None:
    cal = _calibration()
    p, v = (1500.0, 800.0), (4000.0, 1500.0)
    frame = _frame(cal, [(p, v)], fps, exposure)
    for off in ((0.0, 0.0), (8.0, -6.0), (-10.0, 4.0)):
        guess = (p[0] + off[0], p[1] + off[1])
        m = measure_streak(frame, cal, guess, v, fps)
        assert m.pos_mm is not None, m.reason
        assert np.hypot(m.pos_mm[0] - p[0], m.pos_mm[1] - p[1]) < 1.5
        assert m.blur_mm == pytest.approx(np.hypot(*v) * exposure / fps, rel=0.25)  # about the path while open
        assert 0.8 < m.mass_ratio < 1.5  # a flat drawn disc: no shading, a little above a rendered ball


def test_a_second_ball_in_the_window_refuses_the_measurement() -> None:
    cal = _calibration()
    p, v = (1500.0, 800.0), (4000.0, 0.0)
    frame = _frame(cal, [(p, v), ((1500.0, 860.0), (0.0, 0.0))], 60.0, 0.5)
    m = measure_streak(frame, cal, p, v, 60.0)
    assert m.pos_mm is None


def test_an_empty_window_gives_no_position() -> None:
    cal = _calibration()
    frame = _frame(cal, [((600.0, 400.0), (0.0, 0.0))], 60.0, 0.5)
    m = measure_streak(frame, cal, (1500.0, 800.0), (4000.0, 0.0), 60.0)
    assert m.pos_mm is None and m.reason
