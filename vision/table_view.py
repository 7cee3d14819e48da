"""Is the table in the picture where the calibration puts it?

Broadcast footage cuts away (a close-up, a replay, a full-screen graphics wipe) and cameras get bumped. A
frame that does not show the table where the calibration says must not be observed: its "detections" are
graphics and faces, and the balls' sudden absence reads as pots.

The test is the cloth itself. A fixed grid of points on the playing surface is read in every frame, each
against the colour it had (and against the cloth's overall colour, for a point a ball has since left). Seen
from above, a player covers at most about a third of the surface, even lying across the table, and the balls a
few per cent; when fewer than ``MIN_CLOTH_SHARE`` of the points look like cloth, the picture is not the table.

When the table is back after such frames the camera may have been bumped (or the director cut back to a
slightly different shot). ``moved`` tells: two rings of points follow the cushions, one a ball and a half in
from the nose (cloth) and one as far out (rail). In the first frame each point is cloth or not; a table where
the calibration puts it shows the same pattern (a player leaning over covers a few of them), a table shifted
by more than a ball shows rail where cloth was, or cloth where rail was, along whole sides.
"""

from __future__ import annotations

import numpy as np

from calibration.mapping import Calibration

MIN_CLOTH_SHARE = 0.3
# Colour distance (BGR, grey levels) within which a point still looks like its cloth: sensor noise and
# compression move a pixel by 5-10 levels, a passing shadow or a slow change of the light by some tens.
CLOTH_TOL = 40.0
GRID = (24, 12)  # points along the length and across the width
DRIFT = 0.05  # how fast a point's colour follows the light, per frame it matches
EDGE_OFFSET_BALLS = 1.5  # the edge rings' distance from the cushion nose, in and out, in ball diameters
EDGE_STEP_BALLS = 2.0  # the spacing of their points along the cushions
MIN_EDGE_AGREEMENT = 0.8  # below this share of edge points as in the first frame, the table has moved


class TableView:
    """Feed every frame to ``check``; it says whether the table is in view."""

    def __init__(self, calibration: Calibration) -> None:
        t = calibration.table
        inset = t.ball_diameter_mm  # off the cushions' faces and shadows
        xs = np.linspace(inset, t.length_mm - inset, GRID[0])
        ys = np.linspace(inset, t.width_mm - inset, GRID[1])
        pts = np.array([(x, y) for x in xs for y in ys], dtype=float)
        px = np.rint(calibration.table_to_image(pts)).astype(np.int64)
        w, h = calibration.image_size
        inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        self._u, self._v = px[inside, 0], px[inside, 1]
        self._ref: np.ndarray | None = None  # each point's cloth colour
        self.last_share = 1.0
        self._edge_u, self._edge_v = _edge_rings(calibration)
        self._edge_ref: np.ndarray | None = None  # which edge points were cloth in the first frame
        self.last_agreement = 1.0

    def check(self, frame_bgr: np.ndarray) -> bool:
        """True where the frame shows the table (and learns from it), False where it does not."""
        if frame_bgr.ndim != 3 or len(self._u) == 0:
            return True
        h, w = frame_bgr.shape[:2]
        if self._u.max() >= w or self._v.max() >= h:
            return False  # not the calibrated picture size: another source
        col = frame_bgr[self._v, self._u].astype(float)
        if self._ref is None:
            self._ref = col  # the first frame shows the table: the calibration was found on it
            self._edge_ref = self._edge_cloth(frame_bgr)
            return True
        cloth = np.median(self._ref, axis=0)
        own = np.linalg.norm(col - self._ref, axis=1) <= CLOTH_TOL
        like = own | (np.linalg.norm(col - cloth, axis=1) <= CLOTH_TOL)
        self.last_share = float(np.mean(like))
        if self.last_share < MIN_CLOTH_SHARE:
            return False
        self._ref[own] += DRIFT * (col[own] - self._ref[own])
        return True

    def _edge_cloth(self, frame_bgr: np.ndarray) -> np.ndarray:
        """Which edge-ring points look like the cloth (its colour: the median of the grid's references)."""
        assert self._ref is not None
        cloth = np.median(self._ref, axis=0)
        col = frame_bgr[self._edge_v, self._edge_u].astype(float)
        return np.asarray(np.linalg.norm(col - cloth, axis=1) <= CLOTH_TOL)

    def moved(self, frame_bgr: np.ndarray) -> bool:
        """Is the table in this frame (one ``check`` found showing the table) away from where the calibration
        puts it? Compares the edge rings with the first frame; False before there was one."""
        if self._edge_ref is None or len(self._edge_u) == 0:
            return False
        h, w = frame_bgr.shape[:2]
        if self._edge_u.max() >= w or self._edge_v.max() >= h:
            return True
        self.last_agreement = float(np.mean(self._edge_cloth(frame_bgr) == self._edge_ref))
        return self.last_agreement < MIN_EDGE_AGREEMENT


def _edge_rings(calibration: Calibration) -> tuple[np.ndarray, np.ndarray]:
    """Image pixels (u, v) of points along the four cushions, a ball and a half in from each nose and as far out,
    clear of the pockets, that lie in the picture."""
    t = calibration.table
    d = t.ball_diameter_mm
    off = EDGE_OFFSET_BALLS * d
    pts = []
    for along_len, axis in ((t.length_mm, 0), (t.width_mm, 1)):
        for s in np.arange(2 * d, along_len - 2 * d + 1e-9, EDGE_STEP_BALLS * d):
            if axis == 0 and abs(s - t.length_mm / 2) < 2 * d:
                continue  # the middle pockets
            other = t.width_mm if axis == 0 else t.length_mm
            for across in (-off, off, other - off, other + off):
                pts.append((s, across) if axis == 0 else (across, s))
    px = np.rint(calibration.table_to_image(np.array(pts, dtype=float))).astype(np.int64)
    w, h = calibration.image_size
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    return px[inside, 0], px[inside, 1]
