"""Lens from a checkerboard (the option for users who have one): rendered boards through a known lens."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.auto import checkerboard_lens, undistort
from calibration.mapping import CalibrationError

SIZE = (640, 480)
K = np.array([[520.0, 0.0, 320.0], [0.0, 520.0, 240.0], [0.0, 0.0, 1.0]])
K1, K2 = -0.18, 0.05
SQUARE = 25.0
PATTERN = (7, 5)  # inner corners: a board of 8 x 6 squares


def render_board(rvec: np.ndarray, tvec: np.ndarray) -> np.ndarray:
    """Each pixel traced through the lens to the board plane (z = 0 in board coordinates)."""
    w, h = SIZE
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    und = undistort(np.column_stack([u.ravel(), v.ravel()]), K, K1, K2)
    rays = np.column_stack([(und[:, 0] - K[0, 2]) / K[0, 0], (und[:, 1] - K[1, 2]) / K[1, 1], np.ones(len(und))])
    rot, _ = cv2.Rodrigues(rvec)
    centre = -rot.T @ tvec
    d = rays @ rot  # board-frame directions (rows: R^T ray)
    t = -centre[2] / d[:, 2]
    x = centre[0] + t * d[:, 0]
    y = centre[1] + t * d[:, 1]
    nx, ny = PATTERN[0] + 1, PATTERN[1] + 1  # squares
    squares = (x >= 0) & (x < nx * SQUARE) & (y >= 0) & (y < ny * SQUARE)
    paper = (x >= -SQUARE) & (x < (nx + 1) * SQUARE) & (y >= -SQUARE) & (y < (ny + 1) * SQUARE)
    dark = ((np.floor(x / SQUARE) + np.floor(y / SQUARE)) % 2 == 0) & squares
    img = np.full(len(x), 90, np.uint8)  # the room behind
    img[paper] = 235
    img[dark] = 25
    grey = cv2.GaussianBlur(img.reshape(h, w), (0, 0), 0.8)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


@pytest.mark.slow
def test_checkerboard_recovers_the_lens() -> None:
    rng = np.random.default_rng(0)
    views = []
    for _ in range(8):
        rvec = np.array([rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-0.3, 0.3)])
        tvec = np.array([-100.0 + rng.uniform(-70, 70), -75.0 + rng.uniform(-50, 50), rng.uniform(270, 330)])
        views.append(render_board(rvec, tvec))
    kmat, k1, k2 = checkerboard_lens(views, PATTERN, SQUARE)
    assert kmat[0, 0] == pytest.approx(520.0, rel=0.03)
    # The distortion itself, compared where it matters: the pixel shift at the image corner.
    corner = np.array([[0.0, 0.0]])
    true_shift = undistort(corner, K, K1, K2) - corner
    est_shift = undistort(corner, kmat, k1, k2) - corner
    assert np.abs(est_shift - true_shift).max() < 3.0
    assert np.abs(true_shift).max() > 30.0  # the lens is strong enough for this to mean something


def test_no_checkerboard_is_a_clear_error() -> None:
    blank = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="no checkerboard"):
        checkerboard_lens([blank], PATTERN)
