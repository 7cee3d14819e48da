"""The classical ball detector (the default): cloth model and a fixed-radius Hough in the table frame.

Per frame:
1. Rectify the playing surface to a coarse table-aligned grid (``coarse_step`` fine cells per cell, the
   frame pixel nearest each cell: a fraction of the frame's rows) and classify its pixels against the
   cloth model (``vision.cloth``): shadows stay cloth, balls do not. Its not-cloth blobs say where to look
   on the fine grid (``px_per_mm``): a window of it around each small blob (all windows stacked into one
   image, one ``cv2.remap``), a box around each large one, rectified by slices of the fine grid's maps (the
   same values as the whole grid's) and classified there.
2. A fine not-cloth blob of one ball's size and shape is a ball, at its centroid. A window whose blob is
   more (two touching balls, a ball on the cue) becomes a box. In the boxes (wide enough that everything
   inside comes out as on the whole grid), vote for ball centres:
   every luminance edge pixel on or next to a not-cloth blob votes one ball radius along its gradient,
   both ways. A ball's rim (and its darker limb where it touches another ball) puts
   its votes on its centre, so a frozen rack of 15 gives 15 peaks; a cue stick's or an arm's straight
   edges spread theirs along lines.
3. Peaks of the smoothed votes that are at least ``min_votes`` of a clean ball's, covered by not-cloth
   over ``min_cover`` of the disc, and inside the playing field (a pocket mouth included) are balls.
   A weaker peak (``min_votes_packed``) is kept where at least three clear ones lie one diameter around
   it: a ball in the middle of a rack shows only valleys to its neighbours. Vote peaks lie beyond the
   ball, away from the camera (``peak_shift`` radii x tan of the view angle, measured on rendered racks):
   they are moved back, and also refined from where they lie (``peak_two_starts``) where the first start
   found so little of the rim that the second could replace it.
4. Each peak goes back to the recorded frame, is refined to a fraction of a pixel on the ball's rim
   (``vision.refine``), and is corrected for parallax to the cloth point below the ball centre
   (``vision.parallax``).
5. Cue ball: the one ball whose colour stands apart from all the others (or is nearest a given cue
   colour), classified ``cue``.
The cloth model then adapts slowly from the coarse grid's pixels classified as cloth. ``stage_ms`` holds the
milliseconds each stage (``STAGES``) of the last frame took; ``tableref bench detect`` prints their medians.
The per-pixel and per-blob loops run as numba kernels (``vision.classical_kernels``, ``vision.cloth_kernels``,
``vision.rectify_kernels``, ``vision.refine_kernels``, ``vision.blob_kernels``, ``vision.view_kernels``), each
tested equal to the array or OpenCV code it replaced; they compile once per machine (cached beside the
modules), on the first frame, and release the GIL.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from calibration.mapping import Calibration
from vision import view_kernels
from vision.ball_classifier import judge, load_ball_classifier
from vision.blob_kernels import blob_stats
from vision.classical_dark_kernels import DARK_REL, RING_DIRTY, SEED_K, dark_discs
from vision.classical_kernels import (
    box_parts,
    classify_blobs,
    coarse_boxes,
    dilate_3x3,
    grow_boxes,
    keep_balls,
    large_boxes,
    merge_boxes,
    near_labels,
    odd_colour_out,
    plan_windows,
    refine_starts,
    roi_peaks,
    select_peaks,
    settle_starts,
    vote_kernel,
    window_parts,
)
from vision.cloth import ClothModel
from vision.detections import BALL, CUE, Detections
from vision.detector import check_frame
from vision.packing import MIN_NEIGHBOURS, frozen_neighbours, packed_confidence
from vision.parallax import ball_px_to_table, camera_centre_mm, lens_arrays, view_geometry
from vision.pockets import PocketInteriors
from vision.rectify import TableRectifier
from vision.rectify_kernels import stack_windows
from vision.refine import refine_centres

# The keys of ``stage_ms``, in order: the coarse grid's rectification, its cloth classification, its blobs
# and the fine grid's windows and boxes (rectified, classified, single balls), the votes in the boxes, the
# refinement and the rest.
STAGES = ("rectify", "cloth", "fine", "votes", "refine", "output")
TWO_STARTS_MARGIN = 0.15  # the unshifted start of a vote peak wins where it finds this much more of the rim
EDGE_ZONE = 3  # fine cells at a window's or box's cut edge where the opening differs from the whole grid's


class _Single(NamedTuple):
    """A single ball's blob on the fine grid, and where to find its pixels again (the vote threshold). A
    named tuple: a frame makes one per ball, and it is the cheapest record to make."""

    centre: tuple[float, float]  # fine grid (col, row), the blob's centroid
    strength: float
    bbox: tuple[int, int, int, int]  # fine grid (x0, y0, x1, y1) of its blob
    bgr: np.ndarray  # the fine-grid picture it was found in (a window stack or a box)
    fg: np.ndarray  # ... and its not-cloth mask
    row_off: int  # array row = grid row + row_off
    col_off: int  # array col = grid col + col_off
    row_lo: int  # rows of ``bgr`` holding its window or box
    row_hi: int
    width: int


class _Roi(NamedTuple):
    """A box of the fine grid around larger blobs (x0, y0, x1, y1), its picture, mask and blobs. (A named
    tuple: the cheapest record to make, a few per frame.)"""

    box: tuple[int, int, int, int]
    bgr: np.ndarray
    fg: np.ndarray
    labels: np.ndarray
    lut: np.ndarray  # 255 for the labels of larger blobs (the ones votes split)
    has_big: bool
    singles: list[_Single]
    cut: bool  # a blob of a ball's size or more runs out of the box (split by votes inside it all the same)


def _unique_singles(singles: list[_Single]) -> list[_Single]:
    """The singles without repeats (a ball seen from a window and a box), in the grid's labelling order."""
    seen: dict[tuple[float, float], _Single] = {}
    for s in singles:
        seen.setdefault((round(s.centre[0], 4), round(s.centre[1], 4)), s)
    return sorted(seen.values(), key=lambda s: (s.bbox[1], s.bbox[0]))


@dataclass(frozen=True)
class ClassicalSettings:
    px_per_mm: float = 0.15  # table-frame grid resolution (ball radius 34 mm -> 5.1 px)
    margin_mm: float = 40.0  # grid margin around the playing field (pocket mouths, parallax)
    edge_threshold: float = 24.0  # Sobel magnitude of the luminance that counts as an edge
    min_votes: float = 0.3  # a peak must gather this fraction of an ideal isolated ball's votes
    min_votes_packed: float = 0.2  # ... or this much where at least 3 such peaks lie one diameter around it
    min_cover: float = 0.55  # share of the disc (0.8 radius) that must be not-cloth
    peak_shift: float = 0.69  # vote peaks lie this many radii x tan(view angle) beyond the ball (measured)
    peak_shift_max_tan: float = 1.0  # ... measured up to this tan; steeper views get that much shift
    peak_two_starts: bool = True  # also refine a vote peak from where it lies, keep the clearly better rim
    min_rim_support: float = 0.3  # share of rim rays that must find the rim, for balls split from a blob
    outside_mm: float = 17.0  # how far a centre may lie outside the field rectangle (pocket mouths)
    refine: bool = True
    valley_scale: float = 0.94  # where the valley to a frozen neighbour lies, in rim radii (vision.refine)
    cue_colour_bgr: tuple[float, float, float] | None = None  # the cue ball's colour when known
    cue_min_distance: float = 60.0  # BGR distance that sets a ball's colour apart from the others
    adapt: bool = True
    adapt_every: int = 8  # frames between cloth-model updates
    coarse_step: int = 2  # the coarse grid (where blobs are looked for) has this many fine cells per cell
    # The learned judge of each proposal's look (vision.ball_classifier): a proposal it gives less p(ball) than
    # ``ball_min_p`` (chosen on the tuning footage: models/ball_classifier/threshold.json) is flagged
    # ``unlike_ball`` unless frozen in a packing or as confident as ``ball_sure_confidence``: no new ball starts
    # on it, but it may continue a known ball's track (a ball under the cue stick or the player's arm does not
    # look like one to it: p(ball) 0.0-0.4 on renders). Its p(ball) goes with it (``Detections.p_ball``): the
    # tracker may start a dark ball on blue cloth that looks like a ball, as the video opens (``Tracker._opening``).
    # On by default: measured on and off in models/ball_classifier/README.md, "Default".
    ball_classifier: bool = True
    ball_min_p: float = 0.5
    # A proposal with a clean ball's full rim and vote peak is not overruled by its look: no non-ball proposal on
    # the tuning footage scores over 0.70 on the detector's confidence (gloves reach 0.80 on unseen clips),
    # while a ball at rest or rolling on a render can look unlike the real crops the network learnt from.
    ball_sure_confidence: float = 0.85
    # A dark disc of a ball's size standing alone on the cloth (``vision.classical_dark_kernels``), where the cloth
    # mask reads the ball as shadow, is proposed too (only with the ball classifier, and only where its look is a
    # ball's): ``dark_disc_fill`` of its inner cells must be dark. Its strength
    # (``dark_disc_strength``) keeps its confidence at most 0.5 x 0.6 + 0.5 = 0.8, under ``ball_sure_confidence``:
    # its look (the ball classifier) decides whether a track may start on it.
    dark_discs: bool = True
    dark_disc_fill: float = 0.5
    dark_disc_strength: float = 0.6


class ClassicalDetector:
    name = "classical"

    def __init__(self, calibration: Calibration, **opts: object) -> None:
        self.calibration = calibration
        self.settings = ClassicalSettings(**opts)  # type: ignore[arg-type]
        s = self.settings
        self.rectifier = TableRectifier(calibration, s.px_per_mm, s.margin_mm)
        self.coarse_step = max(int(s.coarse_step), 1)
        self.coarse = TableRectifier(calibration, s.px_per_mm / self.coarse_step, s.margin_mm)
        self.cloth = ClothModel()
        self._frames = 0
        # Milliseconds each stage (``STAGES``) of the last ``detect`` took.
        self.stage_ms: dict[str, float] = {}
        self._t_mark = 0.0
        self._cue_seen: tuple[float, ...] | None = None
        self._rim_ratio: float | None = None  # the last refinement's rim radius over the expected one
        self.radius_grid = calibration.table.ball_radius_mm * s.px_per_mm
        self._ball_area = math.pi * self.radius_grid**2
        self._ball_area_coarse = self._ball_area / self.coarse_step**2
        # A coarse blob smaller than this cannot hold a fine blob of a ball (0.45 of its area, see below).
        self._coarse_min_area = max(2.0, 0.2 * self._ball_area_coarse)
        steps = self.radius_grid * np.linspace(0.35, 1.05, 6)
        self._vote_steps = np.concatenate([steps, -steps]).astype(np.float32)
        self._vote_pad = math.ceil(float(np.abs(self._vote_steps).max())) + 1  # no vote reaches further
        self._ideal_votes = self._ideal_peak()
        w, h = self.rectifier.size
        self._peak_kernel = cv2.getStructuringElement(
            cv2.MORPH_RECT, (2 * int(1.1 * self.radius_grid) + 1, 2 * int(1.1 * self.radius_grid) + 1)
        )
        self._grid_shape = (h, w)
        self._grid_max = np.array([w - 1, h - 1])
        self._stack: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._k3 = np.ones((3, 3), np.uint8)
        # Around a large blob: votes reach 1.05 radii, the peak test 1.1 radii, the blurs a few cells.
        self._roi_margin = math.ceil(1.05 * self.radius_grid) + int(1.1 * self.radius_grid) + 6
        # Around a single ball: its edges (within 1.05 radii + 3 cells of the centre) and their 2-cell filters.
        self._single_half = math.ceil(1.05 * self.radius_grid) + 6
        # A fine window around a small coarse blob: room for that window 5 cells off centre.
        self._win = 2 * (self._single_half + 5) + 1
        # Obliquity of the view at each grid cell: how much a ball's image is stretched on the cloth plane.
        cam = camera_centre_mm(calibration)
        self._camera_mm = cam
        # The compiled mapping's arguments (``vision.parallax.view_geometry`` and ``ball_px_to_table`` with the
        # table's ball), fixed with the calibration: no wrapper to run per frame.
        self._lens = lens_arrays(calibration)
        r_mm = calibration.table.ball_radius_mm
        self._view_reach = r_mm / ((-cam[2] - r_mm) / -cam[2]) if -cam[2] > r_mm else math.nan  # parallax's
        jj, ii = np.meshgrid(np.arange(w), np.arange(h))
        xy = self.rectifier.grid_to_table(np.column_stack([jj.ravel(), ii.ravel()]))
        dist = np.linalg.norm(xy - cam[:2], axis=1) / max(-cam[2], 1.0)
        self._stretch = np.sqrt(1.0 + dist * dist).reshape(h, w).astype(np.float32)
        # The same on the coarse grid, and the camera's foot there (the direction a ball's outline stretches).
        ch, cw = self.coarse.surface.shape
        jj, ii = np.meshgrid(np.arange(cw), np.arange(ch))
        xy = self.coarse.grid_to_table(np.column_stack([jj.ravel(), ii.ravel()]))
        dist = np.linalg.norm(xy - cam[:2], axis=1) / max(-cam[2], 1.0)
        self._stretch_coarse = np.sqrt(1.0 + dist * dist).reshape(ch, cw).astype(np.float32)
        self._cam_coarse = self.coarse.table_to_grid(np.asarray(cam[:2], float).reshape(1, 2))[0]
        t = calibration.table
        self._mouths = np.array([pk.mouth_center for pk in t.pockets.values()])
        self._pocket_reach = 2.5 * t.ball_diameter_mm
        self._ball_judge = load_ball_classifier() if s.ball_classifier else None
        # Past a pocket's mouth line, between its jaws (``vision.pockets``), a ball is dropping or hangs in the
        # jaws: its 2.5-diameter crop shows the jaw rubber and the hole's shadow where a ball on cloth shows
        # cloth, so its look says nothing about whether it is a ball (on the tuning footage a ball hanging or
        # dropping there scores p(ball) 0.0-0.5). Such proposals are not judged: they keep the detector's
        # confidence, and the tracker (no ball born inside a pocket; only the ball going into it may take the
        # detection) decides them. Outside that strip, a glove or a hand on the rail beside the pocket is
        # judged as anywhere else.
        self._pocket_inside = PocketInteriors(t)

    # ---- setup ------------------------------------------------------------------------------------------
    def _ideal_peak(self) -> float:
        """The vote peak of one clean, isolated ball of the table's radius on this grid."""
        r = self.radius_grid
        size = int(6 * r) | 1
        img = np.zeros((size, size), np.uint8)
        c = size // 2
        cv2.circle(img, (c * 16, c * 16), int(r * 16), 200, -1, cv2.LINE_AA, 4)
        acc = self._votes(cv2.GaussianBlur(img, (3, 3), 0), np.full_like(img, 255))
        return float(acc.max())

    # ---- core -------------------------------------------------------------------------------------------
    def _votes(self, gray: np.ndarray, near_fg: np.ndarray) -> np.ndarray:
        """Every luminance edge pixel on ``near_fg`` votes along its gradient at ``_vote_steps`` (the
        loops in ``vision.classical_kernels.vote_kernel``, the Sobel gradient taken there)."""
        thr = float(self.settings.edge_threshold)
        return vote_kernel(gray, near_fg, thr, self._vote_steps, np.float32(1.0 / (4 * thr)))

    def _mark(self, stage: str) -> None:
        """Add the time since the previous mark to ``stage`` in ``stage_ms``."""
        now = time.perf_counter()
        self.stage_ms[stage] += (now - self._t_mark) * 1000.0
        self._t_mark = now

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        self.stage_ms = dict.fromkeys(STAGES, 0.0)
        self._t_mark = time.perf_counter()
        self._rim_ratio = None
        frame = check_frame(frame_bgr, self.calibration)
        coarse = self.coarse.rectify_nearest(frame)
        self._mark("rectify")
        if self.cloth.colour is None:
            self.cloth.initialise(self.rectifier.rectify(frame), self.rectifier.surface)
        if not self.cloth.usable():
            self.cloth.colour = None  # a black frame: try again on the next one
            return Detections.empty()
        fg, cloth_fraction = self.cloth.foreground(coarse, self.coarse.surface, self.coarse.dark_ok)
        if cloth_fraction < self.cloth.min_cloth_fraction:
            if self.settings.adapt:
                self.cloth.colour = None  # no table in view (or the model lost it): start over next frame
            return Detections.empty()
        self._mark("cloth")
        pts, strength, blob = self._candidates(frame, fg)
        dets = self._to_detections(frame, pts, strength, blob)
        if self.settings.dark_discs and self.settings.refine and self._ball_judge is not None:
            dets = self._with_dark_discs(frame, coarse, fg, pts, dets)
        self._frames += 1
        if self.settings.adapt and self._frames % self.settings.adapt_every == 0:
            near_fg = cv2.dilate(fg, self._k3)
            self.cloth.adapt(coarse, cv2.bitwise_and(cv2.bitwise_not(near_fg), self.coarse.surface))
        self._mark("output")
        return dets

    def _candidates(self, frame: np.ndarray, fg_coarse: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Grid positions (col, row) of ball candidates, their strength (1 = a clean ball's) and whether
        each is a ball-shaped blob of its own (else a vote peak inside a larger blob).

        The coarse grid's not-cloth blobs say where to look. Each small one gets a window of the fine
        grid, a large one (or a small one that the fine grid shows to be more than one ball) a box wide
        enough for the votes. On the fine grid, a not-cloth blob of about one ball's size and shape is
        one ball, at its centroid; larger blobs (touching balls, a rack, a ball under an arm or beside the
        cue) are split by the Hough votes, whose threshold is set from this frame's single balls where
        there are some. Windows and boxes hold every fine pixel these need, so the result is the one the
        whole fine grid gives."""
        st = self.coarse_step
        # The fine-grid box of each coarse blob (its cells, one coarse cell wider each side), and which are
        # too large for a window.
        fine, large = coarse_boxes(
            *blob_stats(fg_coarse), st, self._stretch, self._coarse_min_area, self._win - 2 * EDGE_ZONE,
            1.5 * self._ball_area_coarse,
        )  # fmt: skip
        h, w = self._grid_shape
        margin = self._roi_margin
        boxes = large_boxes(fine, large, margin, h, w)
        singles: list[_Single] = []
        ox, oy, own, rows, cut = plan_windows(fine, large, boxes, self._win, h, w)
        if len(ox):
            found, escalate = self._window_singles(frame, ox, oy, own, cut)
            singles.extend(found)
            if len(escalate):
                grown = grow_boxes(fine, rows[escalate], margin, h, w)
                boxes = merge_boxes(np.concatenate((boxes, grown)))
        known = np.array([s.bbox for s in singles], dtype=np.int64).reshape(-1, 4)
        rois = [self._fine_box(frame, box, known) for box in boxes.tolist()]
        for roi in rois:
            singles.extend(roi.singles)
        singles = _unique_singles(singles)
        pts = np.array([s.centre for s in singles], dtype=np.float64).reshape(-1, 2)
        strength = np.array([s.strength for s in singles], dtype=np.float64)
        self._mark("fine")
        rois = [roi for roi in rois if roi.has_big]
        if not rois:
            return pts, strength, np.ones(len(singles), bool)
        ref = self._ideal_votes
        masked = len(singles) >= 3
        if masked:
            # This frame's own balls: their vote peaks say what a ball looks like here (contrast, blur).
            ref = float(np.clip(self._single_peaks(singles), 0.25 * ref, ref))
        peaks = [self._roi_peaks(roi, masked, ref) for roi in rois]
        maxima = np.concatenate([pk[0] for pk in peaks])
        p, stg = self._select_peaks(maxima, np.concatenate([pk[1] for pk in peaks]), ref)
        self._mark("votes")
        blob = np.zeros(len(singles) + len(p), bool)
        blob[: len(singles)] = True
        return np.concatenate((pts, p.reshape(-1, 2))), np.concatenate((strength, stg)), blob

    def _with_dark_discs(
        self, frame: np.ndarray, coarse: np.ndarray, fg: np.ndarray, pts: np.ndarray, dets: Detections
    ) -> Detections:
        """``dets`` and after them the coarse grid's dark discs (``vision.classical_dark_kernels``) that are balls of
        their own: refined from the disc's centre (as a blob's centroid is) with this frame's rim ratio, showing a
        ball's rim on ``min_rim_support`` of it (as a vote peak must), and farther than a ball's diameter from every
        ordinary candidate before and every detection after refinement (two balls' centres lie a diameter apart at
        least: nearer, the disc is that ball or its shadow). Within ``_pocket_reach`` of a pocket's mouth darkness is
        the hole: no disc there. Each is judged by its look and kept only where that is a ball's (its confidence
        stays under ``ball_sure_confidence``); it is never the cue ball (a white ball is no dark disc). The ordinary
        detections are not touched. Its time counts to the "refine" stage."""
        self._mark("output")
        s = self.settings
        st = self.coarse_step
        k, _ = self.cloth.describe(coarse)
        found = dark_discs(
            k, fg, self.coarse.dark_ok, self._stretch_coarse, float(self._cam_coarse[0]), float(self._cam_coarse[1]),
            self.radius_grid / st, SEED_K, DARK_REL, float(s.dark_disc_fill), RING_DIRTY,
        )  # fmt: skip
        if len(found) == 0:
            self._mark("refine")
            return dets
        at = (found[:, :2] + 0.5) * st - 0.5  # coarse cell centres on the fine grid
        keep = np.ones(len(at), bool)
        if len(pts):
            keep &= _norm(at[:, None, :] - pts[None, :, :], axis=2).min(axis=1) > 2.0 * self.radius_grid
        if len(self._mouths):
            mm = self.rectifier.grid_to_table(at)
            keep &= _norm(mm[:, None, :] - self._mouths[None, :, :], axis=2).min(axis=1) > self._pocket_reach
        at = np.ascontiguousarray(at[keep])
        if len(at) == 0:
            self._mark("refine")
            return dets
        t = self.calibration.table
        n = len(at)
        starts, _, dark_counts = refine_starts(
            at, np.ones(n, bool), self.rectifier.px_per_mm, self.rectifier.margin_mm, self._camera_mm, 0.0, 0.0,
            False, self._mouths, self._pocket_reach,
        )  # fmt: skip
        px, radius_px, toward = self._view_geometry(starts)
        res = refine_centres(
            frame, px, radius_px, self.cloth, dark_counts=dark_counts, toward_camera=toward,
            valley_scale=s.valley_scale, rim_ratio=self._rim_ratio,
        )  # fmt: skip
        pos = self._ball_px_to_table(res.px)
        sel, confidence = keep_balls(
            pos, res.px, res.radius, res.support, np.full(n, s.dark_disc_strength), np.zeros(n, bool), t.length_mm,
            t.width_mm, s.outside_mm, s.min_rim_support,
        )  # fmt: skip
        if len(dets) and len(sel):
            sel = sel[_norm(pos[sel, None, :] - dets.pos_mm[None, :, :], axis=2).min(axis=1) > t.ball_diameter_mm]
        if len(sel) == 0:
            self._mark("refine")
            return dets
        px, pos, radius_px, colour = res.px[sel], pos[sel], res.radius[sel], res.colour[sel]
        none = np.zeros(len(px), bool)
        unlike, p_ball = judge(self._ball_judge, frame, px, radius_px, s.ball_min_p, none, none)
        # A dark disc is weak evidence (a shape on a few coarse cells): where its look is not a ball's (a cue tip,
        # a hand's shadow) it is nothing, not even the continuation of a known ball's track.
        like = np.flatnonzero(~unlike)
        if len(like) == 0:
            self._mark("refine")
            return dets
        confidence = np.minimum(confidence[sel][like], s.ball_sure_confidence - 0.05)
        new = Detections(
            px[like], pos[like], radius_px[like], confidence, np.full(len(like), BALL, np.int64), colour[like],
            unlike_ball=unlike[like], p_ball=p_ball[like],
        )  # fmt: skip
        self._mark("refine")
        return Detections.concatenate([dets, new])

    def _window_singles(
        self, frame: np.ndarray, ox: np.ndarray, oy: np.ndarray, own: np.ndarray, cut: np.ndarray
    ) -> tuple[list[_Single], np.ndarray]:
        """The single balls in the fine windows at (ox, oy) (``plan_windows``: ``own``, their blobs' boxes;
        ``cut``, their sides cut from the grid), stacked one above the other (a row of no surface between
        them), and which windows hold more than one ball's blob."""
        size = self._win
        n = len(ox)
        rows = size + 1
        m1, m2 = self.rectifier.maps
        sm1, sm2, surf, dark = self._stack_buffers(n)
        stack_windows(
            frame, m1, m2, self.rectifier.surface, self.rectifier.dark_ok, ox, oy, size, sm1, sm2, surf, dark,
        )  # fmt: skip
        bgr = cv2.remap(frame, sm1, sm2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        fg = self.cloth.opened_foreground_at(bgr, surf, dark, 0, 0)
        # Blobs are labelled without the edge zone along each side a window's edge cuts.
        found, escalate = window_parts(
            fg, size, ox, oy, own, cut, EDGE_ZONE, self._stretch, self._ball_area, self.radius_grid
        )
        out = [
            _Single((x, y), st, (int(a + i), int(b + j), int(a1 + i), int(b1 + j)), bgr, fg, int(k) * rows - int(j),
                    -int(i), int(k) * rows, int(k) * rows + size, size)
            for x, y, st, a, b, a1, b1, i, j, k in found.tolist()
        ]  # fmt: skip
        return out, escalate

    def _stack_buffers(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Remap maps, surface and dark-ok masks for ``n`` stacked windows (views of buffers kept between
        frames; each window's row below it, which no window writes, stays a row of no surface)."""
        rows = self._win + 1
        if self._stack is None or len(self._stack[0]) < n * rows:
            cap = max(n, 2 * (0 if self._stack is None else len(self._stack[0]) // rows), 16) * rows
            self._stack = (
                np.zeros((cap, self._win, 2), np.int16),
                np.zeros((cap, self._win), np.uint16),
                np.zeros((cap, self._win), np.uint8),
                np.zeros((cap, self._win), np.uint8),
            )
        m = n * rows
        return self._stack[0][:m], self._stack[1][:m], self._stack[2][:m], self._stack[3][:m]

    def _classify_blobs(self, stats: np.ndarray, cents: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Which fine-grid blobs (stats, grid centroids) are one ball, which are larger, and the strength
        of a single ball (1 = a clean ball's)."""
        return classify_blobs(stats, cents, self._stretch, self._ball_area, self.radius_grid)

    def _fine_box(self, frame: np.ndarray, box: list[int], known: np.ndarray) -> _Roi:
        """The fine grid in one box: its picture, not-cloth mask and blobs, its single balls and the
        larger blobs that the votes split. ``known``: fine boxes (x0, y0, x1, y1) of single balls already
        found in windows (a part of one cut by this box's edge is left to its window)."""
        x0, y0, x1, y1 = box
        m1, m2 = self.rectifier.maps
        bgr = cv2.remap(frame, m1[y0:y1, x0:x1], m2[y0:y1, x0:x1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        fg = self.cloth.opened_foreground_at(bgr, self.rectifier.surface, self.rectifier.dark_ok, y0, x0)
        h, w = self._grid_shape
        bh, bw = fg.shape
        # A blob of a ball's size or more that the box's edge cuts (a ball on a thin cue stick that the
        # coarse grid does not show, a table line) is split by the votes too: a ball on it lies inside the
        # box (its own coarse blob's margin), a ball beyond the edge has a coarse blob of its own.
        labels, lut, found, has_big, any_cut_big = box_parts(
            fg, x0, y0, (x0 > 0, y0 > 0, x1 < w, y1 < h), EDGE_ZONE, known, self._stretch, self._ball_area,
            self.radius_grid,
        )  # fmt: skip
        out = [
            _Single((x, y), st, (int(a), int(b), int(c), int(d)), bgr, fg, -y0, -x0, 0, bh, bw)
            for x, y, st, a, b, c, d in found.tolist()
        ]
        return _Roi((x0, y0, x1, y1), bgr, fg, labels, lut, has_big, out, any_cut_big)

    def _single_peaks(self, singles: list[_Single]) -> float:
        """Median vote peak of the single balls, from windows around them stacked into one image (each
        window holds every edge that votes near its ball's centre)."""
        h, w = self._grid_shape
        half = self._single_half
        size = 2 * half + 1
        bgrs, masks, at = [], [], []
        for s in singles:
            cx = min(max(round(s.centre[0]), 0), w - 1)
            cy = min(max(round(s.centre[1]), 0), h - 1)
            ox = min(max(cx - half, 0), w - size)
            oy = min(max(cy - half, 0), h - size)
            # The same window in the array the ball was found in; where it runs past the part holding its
            # window or box (a box at the grid's edge can be shorter than a window), the rest is left empty.
            y0, x0 = oy + s.row_off, ox + s.col_off
            ya, yb = max(y0, s.row_lo), min(y0 + size, s.row_hi)
            xa, xb = max(x0, 0), min(x0 + size, s.width)
            if (ya, yb, xa, xb) == (y0, y0 + size, x0, x0 + size):
                bgrs.append(s.bgr[y0 : y0 + size, x0 : x0 + size])
                masks.append(s.fg[y0 : y0 + size, x0 : x0 + size])
            else:
                bgr = np.zeros((size, size, 3), np.uint8)
                fg = np.zeros((size, size), np.uint8)
                if ya < yb and xa < xb:
                    bgr[ya - y0 : yb - y0, xa - x0 : xb - x0] = s.bgr[ya:yb, xa:xb]
                    fg[ya - y0 : yb - y0, xa - x0 : xb - x0] = s.fg[ya:yb, xa:xb]
                bgrs.append(bgr)
                masks.append(fg)
            at.append((cy - oy, cx - ox))
        gray = cv2.GaussianBlur(cv2.cvtColor(np.concatenate(bgrs), cv2.COLOR_BGR2GRAY), (3, 3), 0)
        acc = cv2.GaussianBlur(self._votes(gray, dilate_3x3(np.concatenate(masks))), (0, 0), 0.8)
        a = np.array(at)
        win = cv2.dilate(acc, self._k3)[np.arange(len(a)) * size + a[:, 0], a[:, 1]]
        return float(np.median(win))

    def _roi_peaks(self, roi: _Roi, masked: bool, ref: float) -> tuple[np.ndarray, np.ndarray]:
        """Vote maxima (grid col, row, sub-pixel) in one box around large blobs, over the threshold and
        covered by not-cloth, in row-major order, and their votes."""
        s = self.settings
        x0, y0 = roi.box[0], roi.box[1]
        big_near = near_labels(roi.labels, roi.lut)
        gray = cv2.GaussianBlur(cv2.cvtColor(roi.bgr, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        fg_box = roi.fg
        near = dilate_3x3(fg_box) if masked else big_near
        acc = cv2.GaussianBlur(self._votes(gray, near), (0, 0), 0.8)
        thr = min(s.min_votes, s.min_votes_packed) * ref
        # Disc coverage by not-cloth: a box mean over the disc's inscribed square (fast, and close enough),
        # taken only at the vote maxima.
        k = max(3, int(2 * 0.7 * self.radius_grid) | 1)
        return roi_peaks(
            acc, big_near, masked, float(thr), self._peak_kernel.shape[0] // 2, fg_box, k, float(s.min_cover), x0, y0
        )

    def _select_peaks(self, pts: np.ndarray, c0: np.ndarray, ref: float) -> tuple[np.ndarray, np.ndarray]:
        """Of the vote maxima ``pts`` with votes ``c0``, the accepted ball centres and their strength."""
        s = self.settings
        if len(pts) == 0:
            return np.zeros((0, 2)), np.zeros(0)
        # Plateaus can give two maxima closer than a radius: keep the stronger (ties: the first). A ball
        # inside a rack shows no rim against cloth, only the valleys to its frozen neighbours: its peak is
        # weaker, but it sits one diameter from several clear balls (an arm or a hand does not).
        return select_peaks(
            np.ascontiguousarray(pts, dtype=np.float64), np.ascontiguousarray(c0, dtype=np.float32), float(ref),
            self.radius_grid, float(s.min_votes),
        )  # fmt: skip

    def _to_detections(
        self, frame: np.ndarray, grid_pts: np.ndarray, strength: np.ndarray, blob: np.ndarray
    ) -> Detections:
        if len(grid_pts) == 0:
            return Detections.empty()
        s = self.settings
        cal = self.calibration
        t = cal.table
        n = len(grid_pts)
        # Where the ray through each ball centre meets the cloth. A vote peak lies beyond the ball, away from
        # the camera: the ball's outline on the cloth plane is stretched that way, and in a rack its camera side
        # is hidden by the nearer ball. It is moved back; where the camera pose is off (a poor calibration)
        # the refinement also starts from the peak itself.
        peaks = np.count_nonzero(blob) < n  # (a count: the cheapest test of a small array)
        two_starts = bool(s.refine and peaks and s.peak_shift > 0 and s.peak_two_starts)
        starts, peak, dark_counts = refine_starts(
            np.ascontiguousarray(grid_pts, dtype=np.float64), blob, self.rectifier.px_per_mm,
            self.rectifier.margin_mm, self._camera_mm, s.peak_shift * t.ball_radius_mm, s.peak_shift_max_tan,
            two_starts, self._mouths, self._pocket_reach,
        )  # fmt: skip
        px, radius_px, toward = self._view_geometry(starts)
        if s.refine:
            self._mark("output")
            px, colour, radius_px, support = self._refine(
                frame, px, radius_px, dark_counts, toward, peak, n, two_starts
            )
            self._mark("refine")
        else:
            support, colour = np.ones(len(px)), np.zeros((len(px), 3))
        pos = self._ball_px_to_table(px)
        # Inside the playing field (a pocket mouth allowed); a vote peak inside a larger blob (an arm, the cue,
        # a cluster) must show a ball's rim; of two candidates within a radius of each other, the more confident.
        sel, confidence = keep_balls(
            pos, px, radius_px, support, strength, blob, t.length_mm, t.width_mm, s.outside_mm, s.min_rim_support
        )
        px, colour = px[sel], colour[sel]
        neighbours = frozen_neighbours(pos[sel], t.ball_diameter_mm)
        confidence = packed_confidence(support[sel], confidence[sel], neighbours)
        unlike = p_ball = None
        if self._ball_judge is not None and len(px):
            clean = confidence >= s.ball_sure_confidence
            sure = (neighbours >= MIN_NEIGHBOURS) | clean
            # not shown to the network: inside a pocket's mouth (the tracker decides there), and a clean ball's
            # rim and vote peak, which its look can neither flag nor lift past any threshold a track starts at
            unjudged = self._pocket_inside.contains(pos[sel]) | clean
            unlike, p_ball = judge(self._ball_judge, frame, px, radius_px[sel], s.ball_min_p, sure, unjudged)
        cls = self._classify(colour)
        return Detections(px, pos[sel], radius_px[sel], confidence, cls, colour, unlike_ball=unlike, p_ball=p_ball)

    def _refine(
        self,
        frame: np.ndarray,
        px: np.ndarray,
        radius_px: np.ndarray,
        dark_counts: np.ndarray,
        toward: np.ndarray,
        peak: np.ndarray,
        n: int,
        two_starts: bool,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Centres, colours, rim radii and rim support of the ``n`` candidates refined from their starts (rows
        ``n`` on: the vote peaks' second starts, ``refine_starts``). Near a pocket the hole is dark: there darkness
        does not mean "ball" (``dark_counts``). A vote peak's second start is refined only where its first found
        less than ``1 - TWO_STARTS_MARGIN`` of the rim: elsewhere it could not find clearly more (support is at
        most 1), so the first start's result stands either way."""
        s = self.settings
        res = refine_centres(
            frame, px[:n], radius_px[:n], self.cloth, dark_counts=dark_counts[:n], toward_camera=toward[:n],
            valley_scale=s.valley_scale,
        )  # fmt: skip
        self._rim_ratio = res.rim_ratio  # the rim as this frame's balls show it (for the dark discs')
        if not two_starts:
            return res.px, res.colour, res.radius, res.support
        alt = np.flatnonzero(res.support[peak] + TWO_STARTS_MARGIN < 1.0)
        if len(alt) == 0:
            return res.px, res.colour, res.radius, res.support
        rows = n + alt
        res2 = refine_centres(
            frame, px[rows], radius_px[rows], self.cloth, dark_counts=dark_counts[rows], toward_camera=toward[rows],
            valley_scale=s.valley_scale, rim_ratio=res.rim_ratio,  # as the first starts' full rims show it
        )  # fmt: skip
        # Of the two starts of a vote peak, the shifted one unless the other found clearly more of the rim.
        out: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] = settle_starts(
            np.concatenate((res.px, res2.px)), np.concatenate((res.colour, res2.colour)),
            np.concatenate((res.radius, res2.radius)), np.concatenate((res.support, res2.support)), peak[alt], n,
            TWO_STARTS_MARGIN,
        )  # fmt: skip
        return out

    def _view_geometry(self, on_cloth: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``vision.parallax.view_geometry(self.calibration, on_cloth)`` by the compiled mapping directly."""
        if math.isnan(self._view_reach):
            return view_geometry(self.calibration, on_cloth)  # a camera below the balls: as parallax does
        h, _, k, k1, k2, cam = self._lens
        out: tuple[np.ndarray, np.ndarray, np.ndarray] = view_kernels.view_geometry(
            h, k, k1, k2, cam, self._view_reach, 0.2, np.ascontiguousarray(on_cloth, dtype=np.float64).reshape(-1, 2)
        )
        return out

    def _ball_px_to_table(self, px: np.ndarray) -> np.ndarray:
        """``vision.parallax.ball_px_to_table(self.calibration, px)`` by the compiled mapping directly."""
        if math.isnan(self._view_reach):
            return ball_px_to_table(self.calibration, px)  # raises CalibrationError, as it did
        _, hinv, k, k1, k2, cam = self._lens
        out: np.ndarray = view_kernels.ball_px_to_table(
            hinv, k, k1, k2, cam, self.calibration.table.ball_radius_mm, np.ascontiguousarray(px, dtype=np.float64)
        )
        return out

    def _classify(self, colour: np.ndarray) -> np.ndarray:
        s = self.settings
        cls = np.full(len(colour), BALL, np.int64)
        if len(colour) == 0 or not s.refine:
            return cls
        known = s.cue_colour_bgr if s.cue_colour_bgr is not None else self._cue_seen
        if len(colour) >= 3:
            # The one ball whose colour stands apart while the rest agree (a set of like balls and a cue ball).
            odd = odd_colour_out(colour, float(s.cue_min_distance))
            if odd >= 0:
                cls[odd] = CUE
                if s.cue_colour_bgr is None:
                    self._cue_seen = tuple(float(v) for v in colour[odd])  # remembered for later frames
                return cls
        if known is not None:
            d = _norm(colour - np.asarray(known, float), axis=1)
            best = int(np.argmin(d))
            if d[best] < 0.5 * s.cue_min_distance:
                cls[best] = CUE
        return cls


def _clamp(a: np.ndarray, lo: object, hi: object) -> np.ndarray:
    """``np.clip`` (the same values) without its wrapper's cost on small arrays."""
    return np.minimum(np.maximum(a, lo), hi)  # type: ignore[call-overload]


def _norm(a: np.ndarray, axis: int, keepdims: bool = False) -> np.ndarray:
    """``np.linalg.norm(a, axis=axis)`` of a real array (the same values: root of the summed squares)."""
    out: np.ndarray = np.sqrt(np.add.reduce(a * a, axis=axis, keepdims=keepdims))
    return out
