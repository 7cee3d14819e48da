"""The classical detector's compiled blob loops (``vision.classical_kernels``) against the numpy code they
replaced, kept here as the plain reference: the blob classes and strengths, and the single balls and
escalated windows of a stack of fine windows."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import TableModel
from tests.detect_support import top_down_calibration
from vision.blob_kernels import blob_labels, blob_stats
from vision.classical import EDGE_ZONE, ClassicalDetector
from vision.classical_kernels import (
    box_blobs,
    box_cover,
    box_parts,
    classify_blobs,
    coarse_boxes,
    dilate_3x3,
    grow_boxes,
    keep_balls,
    label_mask,
    large_boxes,
    merge_boxes,
    near_labels,
    odd_colour_out,
    plan_windows,
    refine_starts,
    roi_peaks,
    select_peaks,
    settle_starts,
    window_blobs,
    window_parts,
    without_cut_edges,
)

TABLE = TableModel()


@pytest.fixture(scope="module")
def detector() -> ClassicalDetector:
    return ClassicalDetector(top_down_calibration((1280, 720), TABLE))


def _classify_reference(det: ClassicalDetector, stats: np.ndarray, cents: np.ndarray):
    ball_area = det._ball_area
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    bw, bh = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    fill = area / np.maximum(bw * bh, 1)
    ci = np.clip(np.round(cents).astype(np.intp), 0, det._grid_max)
    k = det._stretch[ci[:, 1], ci[:, 0]]
    most = 1.7 * ball_area * k
    sized = area >= 0.45 * ball_area
    single = sized & (area <= most) & (fill >= 0.5)
    single &= (np.maximum(bw, bh) <= 2.7 * det.radius_grid * k) & (np.minimum(bw, bh) >= det.radius_grid)
    big = (area > most) | (sized & ~single)
    strength = np.clip(np.minimum(area / ball_area, 1.0) * 1.25 * fill, 0.0, 1.0)
    return single, big, strength


def _random_stats(det: ClassicalDetector, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    r = det.radius_grid
    bw = rng.integers(1, int(4 * r), n)
    bh = rng.integers(1, int(4 * r), n)
    area = np.minimum(rng.integers(1, int(6 * det._ball_area), n), bw * bh)
    # Areas on the thresholds themselves.
    area[:4] = [np.ceil(0.45 * det._ball_area), np.floor(1.7 * det._ball_area), 2 * bw[2] * bh[2] // 4, 1]
    stats = np.column_stack([rng.integers(0, 300, n), rng.integers(0, 150, n), bw, bh, area]).astype(np.int32)
    h, w = det._grid_shape
    cents = np.column_stack([rng.uniform(-3, w + 3, n), rng.uniform(-3, h + 3, n)])
    cents[:3] = [[0.5, 2.5], [w - 0.5, h - 1.5], [10.5, 11.5]]  # rounding ties and the grid's edge
    return stats, cents


def test_blob_classes_match_the_numpy_reference(detector):
    stats, cents = _random_stats(detector, 3000, 1)
    got = classify_blobs(stats, cents, detector._stretch, detector._ball_area, detector.radius_grid)
    ref = _classify_reference(detector, stats, cents)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    np.testing.assert_allclose(got[2], ref[2], rtol=0, atol=0)
    assert got[0].sum() > 10 and got[1].sum() > 10  # both classes occur


def _window_reference(det: ClassicalDetector, stats, cents, ox, oy, own, cut):
    """``_window_singles``' numpy blob code: rows of single balls and the escalated windows."""
    size, n = det._win, len(ox)
    rows = size + 1
    win = stats[:, 1] // rows
    sx, sy = stats[:, 0], stats[:, 1] - win * rows
    lx, ly = cents[:, 0], cents[:, 1] - win * rows
    o = own[win]
    mine = (lx >= o[:, 0]) & (lx < o[:, 2]) & (ly >= o[:, 1]) & (ly < o[:, 3])
    c = cut[win]
    sx1, sy1 = sx + stats[:, 2], sy + stats[:, 3]
    interior = ~(
        (c[:, 0] & (sx < EDGE_ZONE))
        | (c[:, 1] & (sy < EDGE_ZONE))
        | (c[:, 2] & (sx1 > size - EDGE_ZONE))
        | (c[:, 3] & (sy1 > size - EDGE_ZONE))
    )
    wx, wy = ox[win], oy[win]
    gx, gy = lx + wx, ly + wy
    single, big, strength = _classify_reference(det, stats, np.column_stack([gx, gy]))
    ball_sized = stats[:, cv2.CC_STAT_AREA] >= 0.45 * det._ball_area
    n_bad = np.bincount(win[mine & (big | (~interior & ball_sized))], minlength=n)
    ok = np.flatnonzero(mine & single & interior & (n_bad == 0)[win])
    found = np.column_stack([gx[ok], gy[ok], strength[ok], sx[ok], sy[ok], sx1[ok], sy1[ok], wx[ok], wy[ok], win[ok]])
    return found, np.flatnonzero(n_bad)


def test_window_singles_match_the_numpy_reference(detector):
    det = detector
    size = det._win
    rows = size + 1
    rng = np.random.default_rng(3)
    n = 40
    h, w = det._grid_shape
    ox = np.clip(rng.integers(-5, w - size + 5, n), 0, w - size)
    oy = np.clip(rng.integers(-5, h - size + 5, n), 0, h - size)
    own = np.column_stack([rng.integers(0, 12, n), rng.integers(0, 12, n), rng.integers(20, size, n),
                           rng.integers(20, size, n)])  # fmt: skip
    cut = np.column_stack([ox > 0, oy > 0, ox + size < w, oy + size < h])
    # Each window: a ball, sometimes a second touching one, a blob on the edge, a speck.
    stack = np.zeros((n * rows, size), np.uint8)
    r = det.radius_grid
    for i in range(n):
        win = stack[i * rows : i * rows + size]
        cx, cy = rng.uniform(8, size - 8, 2)
        cv2.circle(win, (int(cx * 16), int(cy * 16)), int(r * 16), 255, -1, cv2.LINE_AA, 4)
        if i % 3 == 0:
            cv2.circle(win, (int((cx + 2 * r) * 16), int(cy * 16)), int(r * 16), 255, -1, cv2.LINE_AA, 4)
        if i % 4 == 1:
            cv2.circle(win, (0, int(cy * 16)), int(1.2 * r * 16), 255, -1, cv2.LINE_AA, 4)
        if i % 5 == 2:
            win[2:4, size - 6 : size - 4] = 255
    stack = np.where(stack > 127, 255, 0).astype(np.uint8)
    _, _, stats, cents = cv2.connectedComponentsWithStats(stack, connectivity=8)
    stats, cents = stats[1:], cents[1:]
    got, esc = window_blobs(stats, cents, size, ox, oy, own, cut, EDGE_ZONE, det._stretch, det._ball_area, r)
    ref, ref_esc = _window_reference(det, stats, cents, ox, oy, own, cut)
    np.testing.assert_array_equal(esc, ref_esc)
    np.testing.assert_array_equal(got, ref)
    assert len(ref) >= 5 and len(ref_esc) >= 5  # singles found and windows escalated


def _select_reference(det: ClassicalDetector, pts: np.ndarray, c0: np.ndarray, ref: float):
    """``_select_peaks``' numpy code."""
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    order = np.arange(len(c0))
    stronger = (c0[None, :] > c0[:, None]) | ((c0[None, :] == c0[:, None]) & (order[None, :] < order[:, None]))
    shadowed = ((d < det.radius_grid) & stronger).any(axis=1)
    pts, c0, d = pts[~shadowed], c0[~shadowed], d[~shadowed][:, ~shadowed]
    strong = c0 > det.settings.min_votes * ref
    r = det.radius_grid
    packed = ((d > 1.6 * r) & (d < 2.5 * r) & strong[None, :]).sum(axis=1) >= 3
    keep = strong | packed
    return pts[keep], np.clip(c0[keep] / ref, 0.0, 1.0)


def test_peak_selection_matches_the_numpy_reference(detector):
    det = detector
    r = det.radius_grid
    rng = np.random.default_rng(9)
    # A rack-like lattice of maxima (strong rim, weak middle), plateau twins and stray weak ones.
    lattice = np.array([[40 + 2 * r * i + r * (j % 2), 40 + 1.75 * r * j] for j in range(5) for i in range(5 - j)])
    twins = lattice[:6] + rng.uniform(-0.4 * r, 0.4 * r, (6, 2))
    stray = rng.uniform(0, 200, (30, 2))
    pts = np.concatenate([lattice, twins, stray])
    ref = 30.0
    c0 = np.concatenate([rng.uniform(0.15, 0.6, len(lattice)), rng.uniform(0.1, 0.5, 6), rng.uniform(0, 0.35, 30)])
    c0 = (c0 * ref).astype(np.float32)
    c0[len(lattice)] = c0[0]  # a tie
    got_pts, got_strength = select_peaks(pts, c0, ref, r, det.settings.min_votes)
    want_pts, want_strength = _select_reference(det, pts, c0, ref)
    np.testing.assert_array_equal(got_pts, want_pts)
    np.testing.assert_array_equal(got_strength, want_strength)
    assert 5 < len(want_pts) < len(pts)  # some kept for packing, some dropped


def _box_reference(det: ClassicalDetector, stats, cents, x0, y0, bw, bh, cut, known):
    """``_fine_box``' numpy blob code."""
    sx, sy = stats[:, 0], stats[:, 1]
    interior = (
        ((sx >= EDGE_ZONE) | (not cut[0]))
        & ((sy >= EDGE_ZONE) | (not cut[1]))
        & ((sx + stats[:, 2] <= bw - EDGE_ZONE) | (not cut[2]))
        & ((sy + stats[:, 3] <= bh - EDGE_ZONE) | (not cut[3]))
    )
    single, big, strength = _classify_reference(det, stats, cents + np.array([x0, y0]))
    cut_big = ~interior & (stats[:, cv2.CC_STAT_AREA] >= 0.45 * det._ball_area)
    if cut_big.any() and len(known):
        gb = stats[:, :4] + np.array([x0, y0, x0, y0])
        gb[:, 2:] += stats[:, :2]
        cut_big &= ~(
            (gb[:, None, 0] >= known[None, :, 0])
            & (gb[:, None, 1] >= known[None, :, 1])
            & (gb[:, None, 2] <= known[None, :, 2])
            & (gb[:, None, 3] <= known[None, :, 3])
        ).any(axis=1)
    single &= interior
    big = (big & interior) | cut_big
    single[0] = big[0] = cut_big[0] = False
    return single, big, strength, bool(cut_big.any())


@pytest.mark.parametrize("cut", [(True, True, True, True), (False, True, True, False), (False,) * 4])
def test_box_blobs_match_the_numpy_reference(detector, cut):
    det = detector
    r = det.radius_grid
    bh, bw = 70, 120
    x0, y0 = 30, 20
    rng = np.random.default_rng(4)
    fg = np.zeros((bh, bw), np.uint8)
    for cx, cy in rng.uniform([0, 0], [bw, bh], (12, 2)):
        cv2.circle(fg, (int(cx * 16), int(cy * 16)), int(r * rng.uniform(0.6, 1.6) * 16), 255, -1, cv2.LINE_AA, 4)
    fg[:, 60:62] = 255  # a cue-like line through the box
    fg = np.where(fg > 127, 255, 0).astype(np.uint8)
    _, _, stats, cents = cv2.connectedComponentsWithStats(fg, connectivity=8)
    # Known single balls' boxes: the first two blobs', in grid cells.
    known = np.array([[x0 + s[0], y0 + s[1], x0 + s[0] + s[2], y0 + s[1] + s[3]] for s in stats[1:3]])
    for kn in (known, np.zeros((0, 4), np.int64)):
        got = box_blobs(stats, cents, x0, y0, bw, bh, np.array(cut), EDGE_ZONE, kn, det._stretch, det._ball_area, r)
        want = _box_reference(det, stats, cents, x0, y0, bw, bh, cut, kn)
        for g, w in zip(got[:3], want[:3], strict=True):
            np.testing.assert_array_equal(g, w)
        assert got[3] == want[3]
        if len(kn) == 0:
            assert got[3] == any(cut)  # the line runs out of the box through every side
    assert got[0].any() and got[1].any()


def _parabola_reference(a, b, c):
    den = a - 2 * b + c
    safe = np.where(np.abs(den) > 1e-9, den, -1.0)
    return np.clip(np.where(np.abs(den) > 1e-9, 0.5 * (a - c) / safe, 0.0), -0.5, 0.5)


def _roi_peaks_reference(acc, mask, masked, thr, kernel, cover, min_cover, x0, y0):
    """``_roi_peaks``' OpenCV and numpy code after the vote accumulator."""
    if masked:
        acc = cv2.bitwise_and(acc, acc, mask=mask)
    dil = cv2.dilate(acc, kernel)
    peak = cv2.bitwise_and(cv2.compare(acc, dil, cv2.CMP_GE), cv2.compare(acc, float(thr), cv2.CMP_GT))
    nz = cv2.findNonZero(peak)
    if nz is None:
        return np.zeros((0, 2)), np.zeros(0, np.float32)
    nz = nz.reshape(-1, 2).astype(np.intp)
    xs, ys = nz[:, 0], nz[:, 1]
    keep = cover[ys, xs].astype(np.float32) / 255.0 >= min_cover
    ys, xs = ys[keep], xs[keep]
    h, w = acc.shape
    y1, x1 = np.clip(ys, 1, h - 2), np.clip(xs, 1, w - 2)
    c0 = acc[y1, x1]
    dx = _parabola_reference(acc[y1, x1 - 1], c0, acc[y1, x1 + 1])
    dy = _parabola_reference(acc[y1 - 1, x1], c0, acc[y1 + 1, x1])
    return np.column_stack([x1 + dx + x0, y1 + dy + y0]), c0


@pytest.mark.parametrize("masked", [False, True])
def test_roi_peaks_match_the_opencv_reference(detector, masked):
    det = detector
    rng = np.random.default_rng(6 + masked)
    h, w = 60, 90
    acc = cv2.GaussianBlur(rng.uniform(0, 10, (h, w)).astype(np.float32), (0, 0), 2.0)
    acc[10, 10] = acc[10, 12] = 20.0  # a plateau pair
    acc[0, 40] = acc[h - 1, w - 1] = 15.0  # peaks on the box's edge
    mask = np.zeros((h, w), np.uint8)
    mask[5:50, 5:80] = 255
    fg = np.where(rng.uniform(0, 1, (h, w)) < 0.6, 255, 0).astype(np.uint8)
    cover = cv2.blur(fg, (7, 7))
    kernel = det._peak_kernel
    for thr in (2.0, 5.0):
        got = roi_peaks(acc, mask, masked, thr, kernel.shape[0] // 2, fg, 7, 0.55, 30, 40)
        want = _roi_peaks_reference(acc, mask, masked, thr, kernel, cover, 0.55, 30, 40)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert len(want[0]) >= 3


def test_label_mask_is_the_table_lookup():
    rng = np.random.default_rng(8)
    labels = rng.integers(0, 300, (37, 53)).astype(np.uint16)
    lut = np.where(rng.uniform(0, 1, 300) < 0.3, 255, 0).astype(np.uint8)
    got = label_mask(labels, lut)
    np.testing.assert_array_equal(got, lut[labels])
    assert 0 < np.count_nonzero(got) < got.size


def _keep_reference(pos, px, radius, support, strength, blob, length, width, outside, min_rim):
    """The array code ``keep_balls`` replaced: field test, rim test, confidence, duplicates by confidence."""
    inside = (pos[:, 0] > -outside) & (pos[:, 0] < length + outside) & (pos[:, 1] > -outside)
    inside &= pos[:, 1] < width + outside
    inside &= blob | (support >= min_rim)
    conf = np.clip(0.5 * np.minimum(strength, 1.0) + 0.5 * np.maximum(support, 0.3), 0, 1)
    sel = np.flatnonzero(inside)
    p, r, c = px[sel], radius[sel], conf[sel]
    d = np.linalg.norm(p[:, None, :] - p[None, :, :], axis=2)
    keep = np.ones(len(sel), bool)
    for i in np.argsort(-c, kind="stable"):
        if keep[i]:
            close = (d[i] < r[i]) & keep
            close[i] = False
            keep[close] = False
    return sel[keep], conf


def test_kept_balls_match_the_numpy_reference():
    rng = np.random.default_rng(11)
    for n in (0, 1, 2, 9, 40):
        pos = rng.uniform(-40, [TABLE.length_mm + 40, TABLE.width_mm + 40], (n, 2))
        px = rng.uniform(0, 300, (n, 2))
        if n >= 9:
            px[5] = px[4] + 3.0  # duplicates: one within the other's radius
            px[7] = px[6]  # ... at the same point, with equal confidence (the first is kept)
        radius = rng.uniform(8, 14, n)
        support = rng.choice([0.1, 0.25, 0.5, 0.9, 1.0], n)
        strength = rng.choice([0.2, 0.7, 1.0, 1.4], n)
        blob = rng.uniform(0, 1, n) < 0.5
        if n >= 9:
            support[6:8], strength[6:8], blob[6:8] = 1.0, 1.0, True
        args = (pos, px, radius, support, strength, blob, TABLE.length_mm, TABLE.width_mm, 17.0, 0.3)
        sel, conf = keep_balls(*args)
        want_sel, want_conf = _keep_reference(*args)
        np.testing.assert_array_equal(sel, want_sel)
        np.testing.assert_array_equal(conf, want_conf)
        if n >= 9:
            assert 6 in sel and 7 not in sel
            assert 0 < len(sel) < n


def _starts_reference(grid_pts, blob, s, margin, cam, shift_mm, max_tan, two_starts, mouths, reach):
    """The array code ``refine_starts`` replaced."""
    on_cloth = (grid_pts + 0.5) / s - margin
    peak = np.flatnonzero(~blob)
    unshifted = on_cloth[peak]
    if len(peak):
        away = on_cloth[peak] - cam[:2]
        dist = np.maximum(np.linalg.norm(away, axis=1, keepdims=True), 1e-9)
        tan = np.minimum(dist / max(-cam[2], 1.0), max_tan)
        on_cloth[peak] -= shift_mm * tan * away / dist
    starts = np.concatenate([on_cloth, unshifted]) if two_starts else on_cloth
    near = np.linalg.norm(starts[:, None] - mouths[None], axis=2) < reach
    return starts, peak, ~near.any(axis=1)


@pytest.mark.parametrize("two_starts", [True, False])
def test_refine_starts_match_the_numpy_reference(two_starts):
    rng = np.random.default_rng(12)
    mouths = np.array([[0.0, 0.0], [1784.5, -20.0], [3569.0, 0.0], [0.0, 1778.0], [1784.5, 1798.0], [3569.0, 1778.0]])
    cam = np.array([1700.0, 800.0, -2600.0])
    for n in (1, 6, 30):
        grid = rng.uniform(0, [560, 290], (n, 2))
        grid[0] = (mouths[2] + 40.0) * 0.15 - 0.5  # on a pocket mouth
        blob = rng.uniform(0, 1, n) < 0.5
        blob[0] = False
        args = (grid, blob, 0.15, 40.0, cam, 0.69 * 34.0, 1.0, two_starts, mouths, 2.5 * 68.0)
        got = refine_starts(*args)
        want = _starts_reference(*args)
        np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-9)
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[2], want[2])
        assert not got[2][0] and len(got[0]) == (n + len(want[1]) if two_starts else n)


def test_cut_edges_are_cleared_in_each_part():
    """``without_cut_edges``: the window stack's (and a box's) mask without the edge zone along cut sides, as
    the per-pattern masks it replaced gave it."""
    rng = np.random.default_rng(13)
    size, rows, z = 35, 36, EDGE_ZONE - 1
    cut = rng.uniform(0, 1, (16, 4)) < 0.5
    cut[0] = False
    cut[1] = True
    cut[2] = [False, False, False, True]  # the bottom side only
    mask = np.where(rng.uniform(0, 1, (16 * rows, size)) < 0.6, 255, 0).astype(np.uint8)
    got = without_cut_edges(mask, rows, size, cut, z)
    for k, sides in enumerate(cut):
        zone = np.full((rows, size), 255, np.uint8)
        if sides[0]:
            zone[:, :z] = 0
        if sides[1]:
            zone[:z] = 0
        if sides[2]:
            zone[:, size - z :] = 0
        if sides[3]:
            zone[size - z : size] = 0
        part = slice(k * rows, (k + 1) * rows)
        np.testing.assert_array_equal(got[part], mask[part] & zone)
    np.testing.assert_array_equal(got[:rows], mask[:rows])  # nothing cut: unchanged
    assert (got[2 * rows + size] == mask[2 * rows + size]).all()  # the row below a window is not cut
    assert not got[rows : rows + z].any() and mask[rows : rows + z].any()
    box = mask[:50]
    np.testing.assert_array_equal(without_cut_edges(box, 50, 50, np.zeros((1, 4), bool), z), box)


def test_coarse_boxes_match_the_numpy_reference(detector):
    rng = np.random.default_rng(14)
    h, w = detector._grid_shape
    n = 40
    x = rng.integers(0, w // 2 - 20, n)
    y = rng.integers(0, h // 2 - 20, n)
    bw, bh = rng.integers(1, 14, n), rng.integers(1, 14, n)
    area = (bw * bh * rng.uniform(0.3, 1.0, n)).astype(np.int32)
    stats = np.column_stack([x, y, bw, bh, area]).astype(np.int32)
    cents = np.column_stack([x + bw / 2, y + bh / 2])
    st, min_area, limit, big = 2, 4.0, detector._win - 2 * EDGE_ZONE, 1.5 * detector._ball_area / 4
    got_boxes, got_large = coarse_boxes(stats, cents, st, detector._stretch, min_area, limit, big)
    keep = stats[:, 4] >= min_area
    s, c = stats[keep], cents[keep]
    want = np.column_stack([s[:, 0] * st - st, s[:, 1] * st - st, (s[:, 0] + s[:, 2]) * st + st,
                            (s[:, 1] + s[:, 3]) * st + st])  # fmt: skip
    ci = np.minimum((c * st).astype(np.intp), detector._grid_max)
    k = detector._stretch[ci[:, 1], ci[:, 0]]
    fits = np.maximum(want[:, 2] - want[:, 0], want[:, 3] - want[:, 1]) <= limit
    np.testing.assert_array_equal(got_boxes, want)
    np.testing.assert_array_equal(got_large, ~fits | (s[:, 4] > big * k))
    assert 0 < got_large.sum() < len(got_large) < n


def test_settled_starts_match_the_numpy_reference():
    rng = np.random.default_rng(15)
    n, peak = 9, np.array([1, 4, 5, 8])
    m = n + len(peak)
    px, colour = rng.uniform(0, 900, (m, 2)), rng.uniform(0, 255, (m, 3))
    radius, support = rng.uniform(10, 20, m), rng.uniform(0, 1, m)
    support[n + 1] = support[4] + 0.15  # a tie at the margin keeps the shifted start
    args = [a.copy() for a in (px, colour, radius, support)]
    got = settle_starts(*args, peak, n, 0.15)
    wins = support[n:] > support[peak] + 0.15
    better, alt = peak[wins], n + np.flatnonzero(wins)
    assert 0 < wins.sum() < len(peak)
    for g, a, orig in zip(got, (px, colour, radius, support), args, strict=True):
        want = a.copy()
        want[better] = a[alt]
        np.testing.assert_array_equal(g, want[:n])
        np.testing.assert_array_equal(orig, a)  # the inputs are left alone


def test_odd_colour_matches_the_numpy_reference():
    rng = np.random.default_rng(16)
    found = 0
    for k in range(3, 30):
        colour = rng.normal(120, 6, (k, 3))
        if k % 2:
            colour[k // 3] = [230.0, 235.0, 240.0]  # a white ball among like ones
        med = np.median(colour, axis=0)
        d = np.linalg.norm(colour - med, axis=1)
        order = np.argsort(-d)
        want = int(order[0]) if d[order[0]] > 60.0 and d[order[1]] < 30.0 else -1
        assert odd_colour_out(colour, 60.0) == want
        found += want >= 0
    assert 0 < found < 27


def test_dilations_are_opencvs():
    rng = np.random.default_rng(17)
    k3 = np.ones((3, 3), np.uint8)
    for h, w in [(1, 1), (1, 7), (6, 1), (37, 53)]:
        mask = np.where(rng.uniform(0, 1, (h, w)) < 0.1, 255, 0).astype(np.uint8)
        np.testing.assert_array_equal(dilate_3x3(mask), cv2.dilate(mask, k3))
        labels = rng.integers(0, 5, (h, w)).astype(np.uint16)
        lut = np.array([0, 255, 0, 255, 0], np.uint8)
        np.testing.assert_array_equal(near_labels(labels, lut), cv2.dilate(lut[labels], k3))


@pytest.mark.parametrize("cut", [(True, True, True, True), (False, True, True, False), (False,) * 4])
def test_box_parts_are_the_box_blob_steps(detector, cut):
    det = detector
    r = det.radius_grid
    bh, bw, x0, y0 = 70, 120, 30, 20
    rng = np.random.default_rng(18)
    fg = np.zeros((bh, bw), np.uint8)
    for cx, cy in rng.uniform([0, 0], [bw, bh], (12, 2)):
        cv2.circle(fg, (int(cx * 16), int(cy * 16)), int(r * rng.uniform(0.6, 1.6) * 16), 255, -1, cv2.LINE_AA, 4)
    fg[:, 60:62] = 255
    fg = np.where(fg > 127, 255, 0).astype(np.uint8)
    known = np.array([[x0, y0, x0 + 20, y0 + 20]], np.int64)
    labels, lut, singles, has_big, any_cut_big = box_parts(
        fg, x0, y0, cut, EDGE_ZONE, known, det._stretch, det._ball_area, r
    )
    # The steps it replaces: the cut zone cleared, labelled, the cloth's row prepended, sorted by box_blobs.
    want_labels, rows, cents = blob_labels(without_cut_edges(fg, bh, bh, np.array([cut]), EDGE_ZONE - 1))
    stats = np.concatenate((np.zeros((1, 5), np.int32), rows))
    cents = np.concatenate((np.zeros((1, 2)), cents))
    single, big, strength, cut_big = box_blobs(
        stats, cents, x0, y0, bw, bh, np.array(cut), EDGE_ZONE, known, det._stretch, det._ball_area, r
    )
    np.testing.assert_array_equal(labels, want_labels)
    np.testing.assert_array_equal(lut, np.where(big, 255, 0).astype(np.uint8))
    j = np.flatnonzero(single)
    want = np.column_stack([cents[j, 0] + x0, cents[j, 1] + y0, strength[j], stats[j, 0] + x0, stats[j, 1] + y0,
                            stats[j, 0] + x0 + stats[j, 2], stats[j, 1] + y0 + stats[j, 3]])  # fmt: skip
    np.testing.assert_array_equal(singles, want)
    assert has_big == big.any() and any_cut_big == cut_big and len(j) > 0


def _merge_reference(boxes):
    """The detector's former list code: the first overlapping pair merged into the first, again and again."""
    boxes = [list(b) for b in boxes]
    merged = True
    while merged and len(boxes) > 1:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def test_box_planning_matches_the_list_code():
    rng = np.random.default_rng(19)
    h, w, size, margin = 200, 390, 35, 17
    for _ in range(20):
        n = int(rng.integers(0, 25))
        x0, y0 = rng.integers(-4, w - 10, n), rng.integers(-4, h - 10, n)
        fine = np.column_stack([x0, y0, x0 + rng.integers(4, 40, n), y0 + rng.integers(4, 40, n)]).astype(np.int64)
        large = rng.uniform(0, 1, n) < 0.3
        grown = [[max(a - margin, 0), max(b - margin, 0), min(c + margin, w), min(d + margin, h)]
                 for a, b, c, d in fine]  # fmt: skip
        want_boxes = _merge_reference([g for g, big in zip(grown, large, strict=True) if big])
        got = merge_boxes(grow_boxes(fine, np.flatnonzero(large), margin, h, w))
        assert got.tolist() == want_boxes
        ox, oy, own, rows, cut = plan_windows(fine, large, got, size, h, w)
        small = np.flatnonzero(~large)
        wx = np.clip((fine[small, 0] + fine[small, 2]) // 2 - size // 2, 0, w - size)
        wy = np.clip((fine[small, 1] + fine[small, 3]) // 2 - size // 2, 0, h - size)
        b = np.array(want_boxes, np.int64).reshape(-1, 4)
        x, y = wx[:, None], wy[:, None]
        inside = ((x >= b[:, 0]) & (y >= b[:, 1]) & (x + size <= b[:, 2]) & (y + size <= b[:, 3])).any(axis=1)
        wx, wy, keep = wx[~inside], wy[~inside], small[~inside]
        np.testing.assert_array_equal(ox, wx)
        np.testing.assert_array_equal(oy, wy)
        np.testing.assert_array_equal(rows, keep)
        np.testing.assert_array_equal(own, fine[keep] - np.column_stack([wx, wy, wx, wy]))
        np.testing.assert_array_equal(cut, np.column_stack([wx > 0, wy > 0, wx + size < w, wy + size < h]))


@pytest.mark.parametrize("k", [3, 5, 7, 9])
def test_box_cover_is_opencvs_blur(k):
    rng = np.random.default_rng(20 + k)
    for h, w in [(k + 1, 40), (33, 57), (90, 84)]:
        fg = np.where(rng.uniform(0, 1, (h, w)) < rng.uniform(0.1, 0.9), 255, 0).astype(np.uint8)
        want = cv2.blur(fg, (k, k))
        got = np.array([[box_cover(fg, y, x, k) for x in range(w)] for y in range(h)], np.uint8)
        np.testing.assert_array_equal(got, want)


def test_one_call_steps_are_their_parts(detector):
    det = detector
    rng = np.random.default_rng(21)
    h, w, size = 200, 390, det._win
    fine = rng.integers(0, 300, (12, 2))
    fine = np.column_stack([fine, fine + rng.integers(5, 60, (12, 2))]).astype(np.int64)
    large = rng.uniform(0, 1, 12) < 0.5
    want = merge_boxes(grow_boxes(fine, np.flatnonzero(large), 17, h, w))
    np.testing.assert_array_equal(large_boxes(fine, large, 17, h, w), want)
    n, rows = 3, size + 1
    fg = np.zeros((n * rows, size), np.uint8)
    for k, (cx, cy) in enumerate([(17.0, 17.0), (3.0, 15.0), (20.0, 18.0)]):
        cv2.circle(fg[k * rows : k * rows + size], (int(cx * 16), int(cy * 16)), int(det.radius_grid * 16), 255, -1,
                   cv2.LINE_AA, 4)  # fmt: skip
    fg = np.where(fg > 127, 255, 0).astype(np.uint8)
    ox, oy = np.array([40, 120, 300], np.int64), np.array([30, 90, 150], np.int64)
    own = np.tile(np.array([[6, 6, 29, 29]], np.int64), (n, 1))
    cut = np.ones((n, 4), bool)
    args = (size, ox, oy, own, cut, EDGE_ZONE, det._stretch, det._ball_area, det.radius_grid)
    got = window_parts(fg, *args)
    stats, cents = blob_stats(without_cut_edges(fg, rows, size, cut, EDGE_ZONE - 1))
    want_found, want_bad = window_blobs(stats, cents, *args)
    np.testing.assert_array_equal(got[0], want_found)
    np.testing.assert_array_equal(got[1], want_bad)
    assert len(want_found) > 0
