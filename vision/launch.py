"""Where a ball struck hard from rest went, when its own blur hides it from the detector.

A break or a power shot sends the struck ball off at 8-10 m/s: at 60 fps it covers 170 mm a frame, and with
the shutter open for half of it the ball is a streak one and a half diameters long, too faint and too long
for a circle detector. The tracker then knows only that the ball is gone from where it rested, not where it
went, so the streak measurement (``vision.streaks``), which needs a predicted path, cannot start.

The launch itself tells where to look: a ball set off from rest moves in a straight line away from its
resting place, so its streak is a blob about one ball wide, longer than wide, whose long axis points back at
that place. ``LaunchFinder.find`` looks for such a blob around the resting place (within the distance the
ball can have covered), on a coarse rectified grid of the cloth with the marked lines painted over, and
takes one with the mass of one ball (as ``vision.streaks`` weighs a streak); its weighted centroid is the
ball's centre at the frame time. ``place_is_clear`` says first whether the resting place shows plain cloth:
a ball merely hidden under a hand or the cue, or still there but missed by the detector, is not looked for
elsewhere. Where nothing fits against the patch's one cloth colour, the search is made again for a faint streak
(a dark ball on dark cloth: its contrast is the ball's against the cloth times the share of the exposure it
spent over each cell) against the cloth's colour fitted cell by cell, the streak read with its rim.

    finder = LaunchFinder(calibration)
    if place_is_clear(frame, calibration, rest_xy):
        found = finder.find(frame, rest_xy, reach_mm, frame_path_mm, other_balls_xy)
        found.pos_mm, found.direction   # found is None when nothing fits
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.mapping import Calibration
from vision.streaks import centre_px


@dataclass(frozen=True)
class LaunchSettings:
    mm_per_px: float = 4.0  # the rectified patch's grid: a ball is 17 cells across
    noise_k: float = 4.0  # cells differing from the cloth by this many noise sigmas are not cloth
    min_diff: float = 10.0  # ... and by at least this many grey levels
    ball_margin_mm: float = 10.0  # other balls are masked out to this beyond their radius
    line_band_mm: float = 5.0  # the marked lines are painted over this far either side
    max_angle_deg: float = 10.0  # the streak's long axis within this of the line back to the resting place
    min_elongation: float = 1.2  # long axis spread over the short one: a still ball's is 1
    clear_fraction: float = 0.6  # share of the resting place's disc that must look like cloth
    min_mass: float = 0.6  # the streak's mass against a still ball's of the same contrast
    max_mass: float = 1.6
    # a faint streak's rim (its ends, where the ball covered a cell for part of the exposure, and its sides)
    # falls under the threshold: its shape and mass are read from the thresholded blob widened by this share
    # of a ball's radius, above the level of the cloth around it
    rim_radius: float = 0.5
    # where nothing stands off the patch's one cloth colour, a faint streak is looked for against the cloth's
    # colour fitted cell by cell: a polynomial of this degree in x and y (the light falls off smoothly; a
    # rail's or a pocket's darkening bends it)
    cloth_degree: int = 2


@dataclass(frozen=True)
class Launch:
    pos_mm: tuple[float, float]  # the ball's centre at the frame time
    direction: tuple[float, float]  # unit vector, away from the resting place
    blur_mm: float  # the streak's length
    mass_ratio: float


def place_is_clear(
    frame_bgr: np.ndarray, cal: Calibration, xy_mm: tuple[float, float], settings: LaunchSettings | None = None
) -> bool:
    """Does the disc where a ball rested (at ball-centre height) show the cloth of the wide ring around it? (The
    ring's median colour is the cloth's even with the cue, after the stroke, or a hand across part of it.)"""
    s = settings or LaunchSettings()
    r = cal.table.ball_radius_mm
    c = centre_px(cal, np.array([xy_mm]), r)[0]
    rad = r * cal.px_per_mm(xy_mm)
    lo = np.floor(c - 4.0 * rad).astype(int)
    hi = np.ceil(c + 4.0 * rad).astype(int)
    h, w = frame_bgr.shape[:2]
    if lo[0] < 0 or lo[1] < 0 or hi[0] >= w or hi[1] >= h:
        return False
    crop = frame_bgr[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1].astype(np.float32)
    ys, xs = np.mgrid[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1]
    d = np.hypot(xs - c[0], ys - c[1])
    ring = (d > 1.4 * rad) & (d <= 4.0 * rad)
    disc = d <= rad
    cloth = np.median(crop[ring], axis=0)
    diff = np.linalg.norm(crop - cloth, axis=2)
    noise = 1.4826 * float(np.median(diff[ring])) + 1.0
    frac = float(np.mean(diff[disc] <= max(s.noise_k * noise, s.min_diff)))
    return frac >= s.clear_fraction


class LaunchFinder:
    """``find``: the streak of a ball that left a resting place, on a coarse rectified grid of the whole
    cloth (its maps computed once per calibration, sliced per search)."""

    def __init__(self, cal: Calibration, settings: LaunchSettings | None = None) -> None:
        self.cal = cal
        self.s = s = settings or LaunchSettings()
        table = cal.table
        g = s.mm_per_px
        self.xs = np.arange(g / 2, table.length_mm, g)
        self.ys = np.arange(g / 2, table.width_mm, g)
        gx, gy = np.meshgrid(self.xs, self.ys)
        px = cal.table_to_image(np.column_stack([gx.ravel(), gy.ravel()])).astype(np.float32)
        self.map_x = np.ascontiguousarray(px[:, 0].reshape(gx.shape))
        self.map_y = np.ascontiguousarray(px[:, 1].reshape(gx.shape))
        # the marked lines: painted over with the cloth beside them, so a streak across one keeps its shape
        lines = np.zeros(gx.shape, bool)
        for line in table.lines.values():
            lines |= np.abs((gx if line.axis == "x" else gy) - line.value_mm) <= s.line_band_mm
        self.lines = lines.astype(np.uint8)

    def find(
        self,
        frame_bgr: np.ndarray,
        origin_mm: tuple[float, float],
        reach_mm: float,
        frame_path_mm: float,
        others_mm: np.ndarray,
        near: tuple[tuple[float, float], float] | None = None,
    ) -> Launch | None:
        """The streak of a ball that left ``origin_mm`` and whose centre is at most ``reach_mm`` from it now
        (``frame_path_mm``: the most a ball covers in a frame, the longest its streak can be; ``others_mm``:
        where the other balls are, masked out), or None. ``near`` (centre, radius of the ball's centre): look
        only there (the ball was found launched in an earlier frame, and is followed)."""
        s, cal = self.s, self.cal
        r = cal.table.ball_radius_mm
        g = s.mm_per_px
        o = np.asarray(origin_mm, dtype=np.float64)
        tail = r + frame_path_mm / 2.0 + 2.0 * g  # from a streak's centre to its far edge, at most
        centre, ext = (o, reach_mm) if near is None else (np.asarray(near[0], dtype=np.float64), near[1])
        ext += tail
        i0, i1 = np.searchsorted(self.ys, [centre[1] - ext, centre[1] + ext])
        j0, j1 = np.searchsorted(self.xs, [centre[0] - ext, centre[0] + ext])
        if i1 - i0 < 4 * r / g or j1 - j0 < 4 * r / g:
            return None
        map_x, map_y = self.map_x[i0:i1, j0:j1], self.map_y[i0:i1, j0:j1]
        patch = cv2.remap(frame_bgr, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        lines = self.lines[i0:i1, j0:j1]
        if lines.any():
            patch = cv2.inpaint(patch, lines, 2, cv2.INPAINT_TELEA)
        h, w = frame_bgr.shape[:2]
        # the cells' table coordinates as a row and a column (broadcast: no full grids to fill)
        xs, ys = self.xs[j0:j1], self.ys[i0:i1]
        gx, gy = xs[None, :], ys[:, None]
        valid = (map_x >= 0) & (map_y >= 0) & (map_x <= w - 1) & (map_y <= h - 1)
        from_origin = np.hypot(gx - o[0], gy - o[1])
        edge = from_origin > reach_mm + tail - 1.5 * g  # cells on the search's rim
        valid &= from_origin <= reach_mm + tail
        if near is not None:
            from_near = np.hypot(gx - centre[0], gy - centre[1])
            edge |= from_near > ext - 1.5 * g
            valid &= from_near <= ext
        others = np.asarray(others_mm, dtype=np.float64).reshape(-1, 2)
        keep_off = r + s.ball_margin_mm
        for q in others[np.all(np.abs(others - centre) <= ext + r, axis=1)]:
            # only the cells within the square around the ball can be within its disc
            a0, a1 = np.searchsorted(ys, [q[1] - keep_off, q[1] + keep_off], side="right")
            b0, b1 = np.searchsorted(xs, [q[0] - keep_off, q[0] + keep_off], side="right")
            a0, b0 = max(a0 - 1, 0), max(b0 - 1, 0)
            valid[a0:a1, b0:b1] &= np.hypot(gx[:, b0:b1] - q[0], gy[a0:a1] - q[1]) > keep_off
        if valid.sum() < 100:
            return None
        best = self._best(patch, valid, edge, xs, ys, o, reach_mm, faint=False)
        if best is None:
            # none of the plain contrast: a faint streak (a dark ball on dark cloth, a long blur) looked for again
            best = self._best(patch, valid, edge, xs, ys, o, reach_mm, faint=True)
        if best is None:
            return None
        length, c, u, _, ratio = best
        # the blob's centroid is on the cloth below the image of the ball's centre, beyond it from the camera
        centre = cal.ball_px_to_table(cal.table_to_image(c[None, :]))[0]
        return Launch((float(centre[0]), float(centre[1])), (float(u[0]), float(u[1])), length, ratio)

    def _best(
        self,
        patch: np.ndarray,
        valid: np.ndarray,
        edge: np.ndarray,
        xs: np.ndarray,
        ys: np.ndarray,
        o: np.ndarray,
        reach_mm: float,
        faint: bool,
    ) -> tuple[float, np.ndarray, np.ndarray, float, float] | None:
        """The streak in ``patch`` most in line with ``o``: (length, centroid, direction, angle, mass ratio), or
        None. ``xs``, ``ys``: the table coordinates of the patch's columns and rows. ``faint``: against a cloth
        surface fitted cell by cell, the streak read with its rim under the threshold (``_streak_cells``); else
        against the patch's one cloth colour, from its thresholded cells."""
        s, r, g = self.s, self.cal.table.ball_radius_mm, self.s.mm_per_px
        if faint:
            # the cloth's colour cell by cell: the light falls off smoothly across the cloth, and against one
            # colour for the whole patch that slope, not the streak, sets the noise and hides a faint streak near
            # a rail; a smooth surface fitted to the cloth's cells (the other balls masked, what stands off it
            # left out)
            cloth = _cloth_surface(patch, valid, xs, ys, s.cloth_degree)
        else:
            cloth = _median_levels(patch[valid]).astype(np.float32)
        diff = np.linalg.norm(patch.astype(np.float32) - cloth, axis=2)
        noise = 1.4826 * float(np.median(diff[valid])) + 1.0
        thr = max(s.noise_k * noise, s.min_diff)
        mask = (valid & (diff > thr)).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        ball_cells = np.pi * (r / g) ** 2
        rim = max(1, round(s.rim_radius * r / g))
        best: tuple[float, np.ndarray, np.ndarray, float, float] | None = None
        for k in range(1, n):
            bx, by, bw, bh, area = stats[k]
            if area < 0.3 * ball_cells or area > 10.0 * ball_cells:
                continue
            if bx == 0 or by == 0 or bx + bw >= mask.shape[1] or by + bh >= mask.shape[0]:
                continue  # cut by the patch's edge: part of something larger
            sel = labels[by : by + bh, bx : bx + bw] == k
            if edge[by : by + bh, bx : bx + bw][sel].any():
                continue  # cut by the search's rim: part of something larger (the cue and the arm behind)
            if faint:
                streak = _streak_cells(diff, labels, valid, k, (bx, by, bw, bh), rim)
                if streak is None:
                    continue
                wts, rows, cols, peak = streak
                cx, cy = xs[cols], ys[rows]
            else:
                dd = diff[by : by + bh, bx : bx + bw][sel]
                wts, peak = dd - thr, float(np.percentile(dd, 99.5))
                rows, cols = np.nonzero(sel)
                cx, cy = xs[bx + cols], ys[by + rows]
            m = float(wts.sum())
            if m <= 0.0:
                continue
            c = np.array([float((wts * cx).sum()) / m, float((wts * cy).sum()) / m])
            dx, dy = cx - c[0], cy - c[1]
            sxy = float((wts * dx * dy).sum())
            cov = np.array([[float((wts * dx * dx).sum()), sxy], [sxy, float((wts * dy * dy).sum())]]) / m
            evals, evecs = np.linalg.eigh(cov)
            minor, major = np.sqrt(np.maximum(evals, 0.0))
            if not (0.25 * r <= minor <= 0.8 * r and major >= 0.6 * r and major >= s.min_elongation * minor):
                continue
            d = c - o
            dist = float(np.hypot(*d))
            length = float(np.sqrt(max(12.0 * (major * major - r * r / 4.0), 0.0)))
            if dist < r or dist > reach_mm:
                continue
            u = evecs[:, 1] * (1.0 if float(evecs[:, 1] @ d) >= 0 else -1.0)
            angle = float(np.degrees(np.arccos(np.clip(float(u @ d) / dist, -1.0, 1.0))))
            if angle > s.max_angle_deg:
                continue
            # One ball's worth of streak: a disc of radius r swept over the streak's length, its brightest
            # cells having seen the ball for 2r / length of the exposure (as in vision.streaks).
            seen = min(1.0, 2.0 * r / length) if length > 0 else 1.0
            mass = m if faint else float(dd.sum())
            ratio = mass / (ball_cells * max(peak, 1.0) / seen * 0.75)
            if not (s.min_mass <= ratio <= s.max_mass):
                continue
            if best is None or angle < best[3]:
                best = (length, c, d / dist, angle, ratio)
        return best


def _median_levels(levels: np.ndarray) -> np.ndarray:
    """``np.median(levels, axis=0)`` of 8-bit colours (N x 3), read from each channel's histogram: a search's
    patch holds up to 10^5 cells, and counting 256 levels is cheaper than partitioning them."""
    n = len(levels)
    out = np.empty(levels.shape[1], dtype=np.float64)
    for c in range(levels.shape[1]):
        cum = np.cumsum(np.bincount(levels[:, c], minlength=256))
        lo = int(np.searchsorted(cum, (n - 1) // 2, side="right"))  # the middle value (the lower of two)
        hi = int(np.searchsorted(cum, n // 2, side="right"))
        out[c] = (lo + hi) / 2.0
    return out


def _streak_cells(
    diff: np.ndarray,
    labels: np.ndarray,
    valid: np.ndarray,
    k: int,
    bbox: tuple[int, int, int, int],
    rim: int,
    ring: int = 3,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | None:
    """Blob ``k`` (its box ``bbox`` in the patch) read as a streak: the weights, rows and columns of its cells
    widened by ``rim`` cells, and its peak contrast, each above the level of the cloth in a ``ring`` of cells
    around it. A ball's blur is its colour mixed with the cloth's in proportion to the exposure it spends over
    each cell: where that contrast is faint (a dark ball on dark cloth, a long blur) the threshold keeps only the
    streak's core, whose weighted spread is shorter than the blur and whose axis rests on a few cells; the rim
    under the threshold still carries the rest of the ball's mass. The cloth's level is the ring's own (the
    light falls off across the cloth), and other blobs' cells are not the streak's. None where no ring is left."""
    bx, by, bw, bh = bbox
    pad = rim + ring
    i0, i1 = max(by - pad, 0), min(by + bh + pad, diff.shape[0])
    j0, j1 = max(bx - pad, 0), min(bx + bw + pad, diff.shape[1])
    lab = labels[i0:i1, j0:j1]
    core = (lab == k).astype(np.uint8)
    free = valid[i0:i1, j0:j1] & ((lab == 0) | (lab == k))
    region = (cv2.dilate(core, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)) > 0) & free
    around = (cv2.dilate(region.astype(np.uint8), np.ones((2 * ring + 1, 2 * ring + 1), np.uint8)) > 0) & ~region
    around &= free
    if not around.any():
        return None
    d = diff[i0:i1, j0:j1]
    level = float(np.median(d[around]))
    rows, cols = np.nonzero(region)
    wts = np.maximum(d[rows, cols] - level, 0.0)
    peak = float(np.percentile(d[core > 0], 99.5)) - level
    return wts, rows + i0, cols + j0, peak


def _cloth_surface(
    patch: np.ndarray, valid: np.ndarray, xs: np.ndarray, ys: np.ndarray, degree: int, step: int = 4, rounds: int = 3
) -> np.ndarray:
    """The cloth's colour at each cell of ``patch`` (its columns at ``xs``, its rows at ``ys``): per channel, a
    polynomial of ``degree`` in the cell's place fitted to the ``valid`` cells of every ``step``-th row and column
    (the surface is smooth), each round without the cells that stand off the last fit by more than three noise
    sigmas (balls, streaks, a hand), so what lies on the cloth does not pull its level."""
    x = (xs - float(xs.mean())) / max(float(np.ptp(xs)), 1.0)
    y = (ys - float(ys.mean())) / max(float(np.ptp(ys)), 1.0)
    powers = [(i, d - i) for d in range(degree + 1) for i in range(d + 1)]  # (of x, of y) in each term
    px = np.stack([x**i for i, _ in powers], axis=1)  # columns' terms
    py = np.stack([y**j for _, j in powers], axis=1)  # rows' terms
    use = valid[::step, ::step]
    rows, cols = np.nonzero(use)
    b = py[::step][rows] * px[::step][cols]
    col = patch[::step, ::step][rows, cols].astype(np.float64)
    if len(col) < 4 * len(powers):
        return np.broadcast_to(np.median(patch[valid], axis=0).astype(np.float32), patch.shape)
    keep = np.ones(len(col), bool)
    for _ in range(rounds):
        coef, *_ = np.linalg.lstsq(b[keep], col[keep], rcond=None)
        resid = np.linalg.norm(col - b @ coef, axis=1)
        noise = 1.4826 * float(np.median(resid[keep])) + 1.0
        keep = resid <= 3.0 * noise
        if keep.sum() < 4 * len(powers):
            break
    # the surface at every cell: per channel, the rows' terms times the coefficients times the columns' terms
    out = np.stack([(py * coef[:, c]) @ px.T for c in range(patch.shape[2])], axis=-1)
    return out.astype(np.float32)
