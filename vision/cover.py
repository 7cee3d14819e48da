"""What covers the table in a frame: the player's body, arm and hands, a graphic laid over the picture.

The empty table is learned from the footage itself, on a coarse grid (cells a third of a ball across, each
read at one pixel through the calibration: a few thousand reads, well under a millisecond). The grid covers
the playing surface and a ring of the rail around it (``RAIL_BALLS`` wide, the pockets left out): a hand
bridged on the cloth by the cushion, or a glove resting there, shows on the cloth as a ball-sized blob, and
only the arm over the rail behind it says what it is.

Each cell is compared with two colours: its group's (the cloth; each ring of the rail, by distance from the
cushion's nose, where cushion rubber and rail top run along a side alike, each of the four sides apart: the
camera sees the far cushion's face and the near rail's top, under different light), taken from the first frame
(the median: a player covers a small part of it) and followed as the light changes; and its own, learned where
the cell matches (for local marks and uneven light). A cell matches a colour scaled by a shade (a shadow,
uneven light: brightness ``DARK_K``..``BRIGHT_K`` times, with little change of chroma).

What matches neither is balls, the table's small marks, the cue, and what covers the table. Marks and the
cue's shaft are thinner than a ball, and a morphological opening one ball wide removes them. Balls are
explained by the frame's detections: a piece that holds at least ``MIN_COVER_BALLS`` ball discs that no
detection explains is cover, all of it (the glove or watch detected on it included). A hand with its arm, a
sleeve or a body is many ball discs; a rack is all explained; a lone ball the detector missed, or two
touching, are under the limit.

A detection is ``covered`` when cover lies within ``TOUCH_CELLS`` of its disc: a glove, a watch, a badge on a
shirt sits on what covers the table; a ball a player is about to strike lies well clear of the bridge hand
(15-30 cm) and only the cue's thin tip comes near it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.mapping import Calibration
from vision.cover_kernels import learn, table_like
from vision.pockets import PocketInteriors

CELL_BALLS = 1.0 / 3.0  # a cell is this many ball diameters across
RAIL_BALLS = 2.0  # the band of rail read around the cloth, in ball diameters (cushion rubber and rail top)
DARK_K = 0.35  # a cell this much darker than its colour does not match it (a shadow scales it by 0.5-0.9)
BRIGHT_K = 1.35  # nor one this much brighter (a highlight on cloth stays under ~1.2)
# Chroma residual (BGR units) that never matches, or this share of the colour's brightness if larger:
# compression and sensor noise move a pixel's chroma by 5-10 units.
CHROMA_MIN = 18.0
CHROMA_REL = 0.22
LEARN_RATE = 0.05  # a cell's colour follows the light at this rate, per frame it matches
MIN_COVER_BALLS = 3.0  # a covering piece is at least this many ball discs (two touching balls are 2)
TOUCH_CELLS = 1.5  # a detection whose disc has cover within this many cells is on or against it
POCKET_CLEAR_BALLS = 1.0  # the rail this far (ball diameters) around a pocket's mouth is its hole and liner
_TESTS = (DARK_K, BRIGHT_K, CHROMA_MIN, CHROMA_REL)


@dataclass(frozen=True)
class CoverMask:
    """One frame's cover on the cell grid (``cover[j, i]``: row j across the width, column i along)."""

    cover: np.ndarray  # (ny, nx) bool
    cell_mm: float

    @property
    def share(self) -> float:
        return float(np.mean(self.cover)) if self.cover.size else 0.0


class CoverModel:
    """Feed each frame that shows the table to ``update`` (with its detections); read ``covered``."""

    def __init__(self, calibration: Calibration) -> None:
        t = calibration.table
        self.calibration = calibration
        self.cell_mm = t.ball_diameter_mm * CELL_BALLS
        rings = max(1, round(RAIL_BALLS / CELL_BALLS))
        self._rim = rings * self.cell_mm
        n_in = (max(1, int(np.ceil(t.length_mm / self.cell_mm))), max(1, int(np.ceil(t.width_mm / self.cell_mm))))
        self._step = (t.length_mm / n_in[0], t.width_mm / n_in[1])
        self.nx, self.ny = n_in[0] + 2 * rings, n_in[1] + 2 * rings
        xs = (np.arange(self.nx) - rings + 0.5) * self._step[0]
        ys = (np.arange(self.ny) - rings + 0.5) * self._step[1]
        gx, gy = np.meshgrid(xs, ys)
        pts = np.column_stack([gx.ravel(), gy.ravel()])
        px = calibration.table_to_image(pts)
        w, h = calibration.image_size
        self._map_x = px[:, 0].reshape(self.ny, self.nx).astype(np.float32)
        self._map_y = px[:, 1].reshape(self.ny, self.nx).astype(np.float32)
        seen = (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
        # group: 0 the cloth; 1 + side * rings + (k - 1) the k-th ring of rail outside the cushion's nose on one
        # side (the four rails are seen at different angles: the far rail shows its cushion's face, the near one
        # its top, and the light falls on each differently); -1 not read
        beyond = np.column_stack([-pts[:, 0], pts[:, 0] - t.length_mm, -pts[:, 1], pts[:, 1] - t.width_mm])
        side = np.argmax(beyond, axis=1)
        out = beyond[np.arange(len(pts)), side]
        ring = np.clip(np.ceil(out / min(self._step)).astype(np.int64), 1, rings)
        group = np.where(out <= 0, 0, 1 + side * rings + ring - 1)
        clear = POCKET_CLEAR_BALLS * t.ball_diameter_mm
        for pk in t.pockets.values():
            near = (
                np.hypot(pts[:, 0] - pk.mouth_center[0], pts[:, 1] - pk.mouth_center[1])
                <= pk.mouth_width_mm / 2 + clear
            )
            group[near & (group > 0)] = -1
        group[PocketInteriors(t).contains(pts)] = -1
        group[~seen] = -1
        self._group = group.reshape(self.ny, self.nx)
        self._group_colour: np.ndarray | None = None  # (groups, 3) each group's colour
        self._ref: np.ndarray | None = None  # (ny, nx, 3) each cell's own colour
        self.radius_cells = t.ball_radius_mm / self.cell_mm
        k = max(1, round(1.0 / CELL_BALLS))  # one ball across
        self._open_kernel = np.ones((k, k), np.uint8)
        self._min_cells = MIN_COVER_BALLS * np.pi * self.radius_cells**2
        self.last: CoverMask | None = None

    # ---- the cells --------------------------------------------------------------------------------------
    def sample(self, frame_bgr: np.ndarray) -> np.ndarray:
        """Each cell's colour in the frame (ny x nx x 3 float32)."""
        cells = cv2.remap(frame_bgr, self._map_x, self._map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return cells.astype(np.float32)

    def cell_of(self, pts_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (row, column) of the cells holding cloth points ``pts_mm`` (N x 2), clipped to the grid."""
        p = np.asarray(pts_mm, dtype=float).reshape(-1, 2)
        i = np.clip(np.floor((p[:, 0] + self._rim) / self._step[0]).astype(np.int64), 0, self.nx - 1)
        j = np.clip(np.floor((p[:, 1] + self._rim) / self._step[1]).astype(np.int64), 0, self.ny - 1)
        return j, i

    def _ball_cells(self, px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The cells where balls imaged at ``px`` (N x 2) show: the cloth points their image centres fall on."""
        p = np.asarray(px, dtype=float).reshape(-1, 2)
        if not len(p):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return self.cell_of(np.asarray(self.calibration.image_to_table(p), dtype=float))

    # ---- the model --------------------------------------------------------------------------------------
    def update(self, frame_bgr: np.ndarray, ball_px: np.ndarray) -> CoverMask:
        """This frame's cover, given the image centres of its detections (N x 2 px); learns the table's colours
        from the cells that match them and hold no ball."""
        col = self.sample(frame_bgr)
        if self._group_colour is None or self._ref is None:
            self._start(col)
        assert self._group_colour is not None and self._ref is not None
        like, _ = table_like(col, self._ref, self._group, self._group_colour, *_TESTS)
        read = self._group >= 0
        balls = np.zeros((self.ny, self.nx), np.uint8)
        j, i = self._ball_cells(ball_px)
        rad = max(1, round(self.radius_cells + 0.5))
        for jj, ii in zip(j.tolist(), i.tolist(), strict=True):
            cv2.circle(balls, (ii, jj), rad, 1, -1)
        opened = cv2.morphologyEx((~like & read).astype(np.uint8), cv2.MORPH_OPEN, self._open_kernel)
        n, labels = cv2.connectedComponents(opened, connectivity=8)
        # each piece's cells that no detected ball explains (a rack is all balls; a glove's arm is not)
        unexplained = np.bincount(labels[(opened > 0) & (balls == 0)], minlength=n)
        big = np.flatnonzero(unexplained[1:] >= self._min_cells) + 1
        cover = np.isin(labels, big) if len(big) else np.zeros((self.ny, self.nx), bool)
        # learn where the cell matches, away from balls and from what covers the table
        near = cv2.dilate((cover | (balls > 0)).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        learn(col, self._ref, self._group, self._group_colour, like & read & ~near, LEARN_RATE)
        self.last = CoverMask(cover, self.cell_mm)
        return self.last

    def _start(self, col: np.ndarray) -> None:
        """Each group's colour from the first frame (its median), each cell's own where it matches it."""
        n_groups = int(self._group.max()) + 1
        gc = np.zeros((max(n_groups, 1), 3))
        for g in range(n_groups):
            cells = col[self._group == g]
            gc[g] = np.median(cells, axis=0) if len(cells) else 0.0
        self._group_colour = gc
        ref = np.zeros_like(col)
        read = self._group >= 0
        ref[read] = gc[self._group[read]]
        _, overall = table_like(col, ref, self._group, gc, *_TESTS)
        ref[overall] = col[overall]
        self._ref = ref

    def covered(self, mask: CoverMask, ball_px: np.ndarray) -> np.ndarray:
        """For each detection (image centres, N x 2 px): does cover lie on or against its disc?"""
        px = np.asarray(ball_px, dtype=float).reshape(-1, 2)
        if not len(px) or not mask.cover.any():
            return np.zeros(len(px), bool)
        gap = cv2.distanceTransform((~mask.cover).astype(np.uint8), cv2.DIST_L2, 3)
        j, i = self._ball_cells(px)
        return gap[j, i] <= self.radius_cells + TOUCH_CELLS
