"""Rendered frames with known ball centres for the detector tests, drawn by ``models.synth``'s own parts
(the table background and the ray-traced ball painter), without a physics run."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraModel
from calibration.mapping import Calibration
from calibration.table import TableModel


def top_down_corners(size: tuple[int, int], table: TableModel, margin: int) -> dict[str, tuple[float, float]]:
    """The four field corners of a straight top-down view whose field spans the width less ``margin`` each side."""
    w, h = size
    sx = (w - 2 * margin) / table.length_mm
    top = (h - table.width_mm * sx) / 2
    bottom = top + table.width_mm * sx
    return {"house-left": (margin, top), "house-right": (margin, bottom),
            "pyramid-left": (w - margin, top), "pyramid-right": (w - margin, bottom)}  # fmt: skip


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    calibration: Calibration
    camera: CameraModel
    pos: np.ndarray  # (N, 2) table mm
    px: np.ndarray  # (N, 2) image of the ball centres
    cue: np.ndarray  # (N,) bool


def top_down_calibration(size: tuple[int, int], table: TableModel, margin: int = 60) -> Calibration:
    """A straight-down view of ``table`` filling a ``size`` frame but for ``margin`` pixels."""
    return Calibration.from_corners(top_down_corners(size, table, margin), size, table)


def calibration_for(cam: CameraModel, table: TableModel) -> Calibration:
    k = cam.dist_coeffs
    return Calibration.from_corners(
        cam.corners_px(table), cam.image_size, table, camera_matrix=cam.camera_matrix, k1=float(k[0]),
        k2=float(k[1]), source="truth", camera_height_mm=float(-cam.centre_mm[2]),
    )  # fmt: skip


def render(
    balls: list[tuple[float, float]],
    *,
    cue_index: int | None = None,
    size: tuple[int, int] = (1280, 720),
    tilt_deg: float = 0.0,
    k1: float = 0.0,
    seed: int = 0,
    lighting: str = "even",
) -> Frame:
    from models.synth.balls import CUE_BGR, IVORY_BGR, BallPainter, BallStyle, composite, darken
    from models.synth.table_render import render_table

    table = TableModel()
    cam = CameraModel.overhead(table, size, tilt_deg=tilt_deg, k1=k1)
    rng = np.random.default_rng(seed)
    img = render_table(cam, table, rng, lighting=lighting)  # type: ignore[arg-type]
    painter = BallPainter(cam, table.ball_radius_mm, 3, True)
    pos = np.asarray(balls, dtype=np.float64).reshape(-1, 2)
    for p in pos:
        box = painter.bbox(p, grow=1.6)
        if box is not None:
            darken(img, box, painter.shadow(p, box))
    depth = [(cam.rotation @ np.array([p[0], p[1], 0.0]) + cam.tvec)[2] for p in pos]
    for i in np.argsort(depth)[::-1]:
        box = painter.bbox(pos[i])
        if box is None:
            continue
        style = BallStyle(CUE_BGR if i == cue_index else IVORY_BGR, None if i == cue_index else str(i % 15 + 1))
        pm, cov = painter.sprite(pos[i], style, np.eye(3), box)
        composite(img, box, pm, cov)
    cue = np.zeros(len(pos), bool)
    if cue_index is not None:
        cue[cue_index] = True
    px = cam.project(pos, table.ball_radius_mm) if len(pos) else np.zeros((0, 2))
    return Frame(img, calibration_for(cam, table), cam, pos, px, cue)


def match_errors(found: np.ndarray, truth: np.ndarray, tol: float) -> tuple[np.ndarray, int, int]:
    """Distances of optimally matched pairs within ``tol``, misses, extras."""
    from scipy.optimize import linear_sum_assignment

    if len(found) == 0 or len(truth) == 0:
        return np.zeros(0), len(truth), len(found)
    d = np.linalg.norm(found[:, None, :] - truth[None, :, :], axis=2)
    r, c = linear_sum_assignment(d)
    ok = d[r, c] <= tol
    return d[r, c][ok], len(truth) - int(ok.sum()), len(found) - int(ok.sum())
