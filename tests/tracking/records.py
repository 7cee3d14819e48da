"""Detection records for tracker tests: real ``vision.detections.Detections`` rows, and a feed that steps a
tracker through them as the pipeline does."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from tracking.tracker import Tracker, TrackerFrame
from vision.detections import BALL, CUE, Detections

WHITE = (215.0, 215.0, 215.0)  # BGR of a white ball's inner disc under the table lights
YELLOW = (40.0, 160.0, 215.0)  # a Russian set's coloured cue ball
RED = (40.0, 40.0, 190.0)
PX_PER_MM = 0.45  # a 1080p overhead view of a 3.6 m table


def dets(
    points: Sequence[Sequence[float]],
    conf: float | Sequence[float] = 0.95,
    cue: Sequence[bool] | None = None,
    colour: Sequence[Sequence[float]] | None = None,
) -> Detections:
    """One frame's detections at table positions ``points`` (mm), as a detector reports them."""
    z = np.asarray(points, dtype=float).reshape(-1, 2)
    n = len(z)
    c = np.broadcast_to(np.asarray(conf, dtype=float), (n,)).copy()
    cls = np.array([CUE if k else BALL for k in (cue or [False] * n)], dtype=np.int64)
    col = np.array(colour if colour is not None else [WHITE] * n, dtype=float).reshape(n, 3)
    return Detections(z * PX_PER_MM + 20.0, z, np.full(n, 34.0 * PX_PER_MM), c, cls, col)


def feed(tracker: Tracker, frames: Iterable[tuple[float, Detections]], start: int = 0) -> list[TrackerFrame]:
    """Steps ``tracker`` through ``frames`` ((t, detections) pairs) as ``api.pipeline`` does."""
    return [
        tracker.step(start + i, t, d.pos_mm, d.confidence, d.cls == CUE, d.colour) for i, (t, d) in enumerate(frames)
    ]


def row(tracker_scene_ids: Sequence[str | None], name: str) -> int:
    """The scene row of the public ball ``name``."""
    return list(tracker_scene_ids).index(name)


def between_walls(
    y0: float, v0: float, e: float, play: float, t_end: float, fps: float
) -> tuple[np.ndarray, list[float]]:
    """A ball bouncing between walls at +-``play`` (a pocket's jaw faces; restitution ``e``), stepped every
    0.05 ms from offset ``y0`` at ``v0``: its offset at each frame (``fps``) and the times it met a wall."""
    h, y, v = 5e-5, y0, v0
    frames, walls = [], []
    for k in range(int(t_end / h) + 1):
        t = k * h
        if abs(t * fps - round(t * fps)) < h * fps / 2:
            frames.append(y)
        y += v * h
        if abs(y) >= play and y * v > 0:
            y, v = float(np.sign(y)) * play, -e * v
            walls.append(t + h)
    return np.array(frames), walls
