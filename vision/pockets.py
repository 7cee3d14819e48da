"""The inside of each pocket is not the table.

A pocket's mouth is the line between its two jaw tips (``calibration.table``); its jaws run on from the tips,
parallel to its axis, into the rail. A ball whose centre is past that line, between the jaws, is over the
pocket's shelf or its hole: it is dropping, hangs there after rolling in, or has dropped and lies in the net
or the hole, where the camera still sees it. None of these is a ball to start a track on, and a ball lying
in the hole must not be taken for one that was on the table (a hidden ball "found again" there is then
potted a second time). Only a ball already going into that pocket may be seen there.

``PocketInteriors.which`` says which pocket's inside holds each detection (its ``pos_mm``, the cloth point
below the ball's centre); the tracker starts no ball there, and lets only a ball it saw going into that
pocket take such a detection.
"""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel

# Slack beside the jaws (mm): a detection's position scatters by a few mm, and a ball in the hole sits below
# the cloth, so the cloth point computed for it (as for a ball on the cloth) moves toward the camera.
SIDE_SLACK_MM = 10.0


class PocketInteriors:
    """Each pocket's inside, past its mouth line between its jaws, on the table model's cloth coordinates."""

    def __init__(self, table: TableModel) -> None:
        pockets = list(table.pockets.values())
        self.names = tuple(pk.name for pk in pockets)
        self._centre = np.array([pk.mouth_center for pk in pockets], dtype=float).reshape(-1, 2)
        self._out = np.array([pk.outward for pk in pockets], dtype=float).reshape(-1, 2)
        self._half = np.array([pk.mouth_width_mm / 2.0 for pk in pockets], dtype=float)

    def _depth_lateral(self, pos_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(pockets x N) depth past each mouth line and distance off each pocket's axis."""
        p = np.asarray(pos_mm, dtype=float).reshape(-1, 2)
        dx = p[None, :, 0] - self._centre[:, 0:1]
        dy = p[None, :, 1] - self._centre[:, 1:2]
        depth = dx * self._out[:, 0:1] + dy * self._out[:, 1:2]
        lateral = np.abs(dy * self._out[:, 0:1] - dx * self._out[:, 1:2])
        return depth, lateral

    def which(self, pos_mm: np.ndarray) -> np.ndarray:
        """For each position (N x 2 mm), the index (into ``names``) of the pocket whose inside holds it, or -1."""
        depth, lateral = self._depth_lateral(pos_mm)
        inside = (depth > 0.0) & (lateral <= self._half[:, None] + SIDE_SLACK_MM)
        out = np.full(inside.shape[1], -1, np.int64)
        hit = inside.any(axis=0)
        out[hit] = np.argmax(inside[:, hit], axis=0)
        return out

    def contains(self, pos_mm: np.ndarray) -> np.ndarray:
        """For each position (N x 2 mm): is it inside a pocket?"""
        return self.which(pos_mm) >= 0
