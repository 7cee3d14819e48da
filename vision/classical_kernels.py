"""Compiled loops of the classical detector (``vision.classical``): numba kernels for the parts that
were many small numpy calls per frame, each doing exactly what the array code it replaced did."""

from __future__ import annotations

import math

import numba
import numpy as np

from vision.blob_kernels import blob_labels, blob_stats


@numba.njit(cache=True, nogil=True, inline="always")
def _reflect(i: int, n: int) -> int:
    """Index ``i`` (one off the ends at most) of a row of ``n`` mirrored at the end pixels (OpenCV's default
    border, BORDER_REFLECT_101)."""
    if i < 0:
        return min(1, n - 1)
    if i >= n:
        return max(n - 2, 0)
    return i


@numba.njit(cache=True, nogil=True)
def sobel_3x3(gray: np.ndarray, y: int, x: int) -> tuple[np.float32, np.float32]:
    """``cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)`` and ``(0, 1)`` of a uint8 image at one pixel (the border
    mirrored as OpenCV does): integer sums, exact in float32."""
    h, w = gray.shape
    ya, yb = _reflect(y - 1, h), _reflect(y + 1, h)
    xa, xb = _reflect(x - 1, w), _reflect(x + 1, w)
    p00, p01, p02 = np.int32(gray[ya, xa]), np.int32(gray[ya, x]), np.int32(gray[ya, xb])
    p10, p12 = np.int32(gray[y, xa]), np.int32(gray[y, xb])
    p20, p21, p22 = np.int32(gray[yb, xa]), np.int32(gray[yb, x]), np.int32(gray[yb, xb])
    gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20)
    gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02)
    return np.float32(gx), np.float32(gy)


@numba.njit(cache=True, nogil=True)
def vote_kernel(
    gray: np.ndarray,
    near_fg: np.ndarray,
    threshold: float,
    steps: np.ndarray,
    wgt_scale: np.float32,
) -> np.ndarray:
    """The vote accumulator (float32, the image's shape) of the edge pixels on ``near_fg`` of the uint8
    ``gray``: those whose Sobel gradient (``sobel_3x3``) has a magnitude over ``threshold`` (float32, correctly
    rounded: ``cv2.magnitude`` is within an ulp of it), each voting its weight min(magnitude ``wgt_scale``, 1)
    at ``steps`` along its unit gradient (float32 arithmetic, rounded half to even), the votes falling off the
    image dropped. The gradient is taken only where ``near_fg`` is set. The sums run in float64 in the order
    ``np.bincount`` took them (step by step, edge pixels in row-major order)."""
    h, w = gray.shape
    thr = np.float32(threshold)
    one = np.float32(1.0)
    cap = 0
    for y in range(h):
        for x in range(w):
            if near_fg[y, x] != 0:
                cap += 1
    xs = np.empty(cap, np.float32)
    ys = np.empty(cap, np.float32)
    ux = np.empty(cap, np.float32)
    uy = np.empty(cap, np.float32)
    wg = np.empty(cap)
    n = 0
    for y in range(h):
        for x in range(w):
            if near_fg[y, x] == 0:
                continue
            gx, gy = sobel_3x3(gray, y, x)
            m = np.float32(np.sqrt(gx * gx + gy * gy))
            if m > thr:
                xs[n] = x
                ys[n] = y
                ux[n] = gx / m
                uy[n] = gy / m
                wg[n] = min(m * wgt_scale, one)
                n += 1
    acc = np.zeros(h * w)
    cell = np.empty(n, np.int64)
    for s in steps:
        # The cells of this step's votes (a loop that vectorises), then their sums in order.
        for i in range(n):
            xi = np.int64(np.rint(xs[i] + s * ux[i]))
            yi = np.int64(np.rint(ys[i] + s * uy[i]))
            inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            cell[i] = yi * w + xi if inside else -1
        for i in range(n):
            c = cell[i]
            if c >= 0:
                acc[c] += wg[i]
    return acc.reshape(h, w).astype(np.float32)


@numba.njit(cache=True, nogil=True)
def classify_blobs(
    stats: np.ndarray, cents: np.ndarray, stretch: np.ndarray, ball_area: float, radius: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which fine-grid blobs (``cv2.connectedComponentsWithStats`` rows, grid centroids) are one ball, which
    are larger, and a single ball's strength (see ``ClassicalDetector._classify_blobs``; float32 where the
    numpy version's float scalars times the float32 ``stretch`` were float32)."""
    n = stats.shape[0]
    h, w = stretch.shape
    single = np.zeros(n, np.bool_)
    big = np.zeros(n, np.bool_)
    strength = np.zeros(n)
    most_f = np.float32(1.7 * ball_area)
    long_f = np.float32(2.7 * radius)
    for i in range(n):
        bw = stats[i, 2]
        bh = stats[i, 3]
        area = np.float64(stats[i, 4])
        fill = area / max(bw * bh, 1)
        cx = min(max(int(np.rint(cents[i, 0])), 0), w - 1)
        cy = min(max(int(np.rint(cents[i, 1])), 0), h - 1)
        k = stretch[cy, cx]
        most = np.float64(np.float32(most_f * k))
        sized = area >= 0.45 * ball_area
        one = sized and area <= most and fill >= 0.5
        one = one and np.float64(max(bw, bh)) <= np.float64(np.float32(long_f * k)) and min(bw, bh) >= radius
        single[i] = one
        big[i] = area > most or (sized and not one)
        strength[i] = min(max(min(area / ball_area, 1.0) * 1.25 * fill, 0.0), 1.0)
    return single, big, strength


@numba.njit(cache=True, nogil=True)
def window_blobs(
    stats: np.ndarray,
    cents: np.ndarray,
    size: int,
    ox: np.ndarray,
    oy: np.ndarray,
    own: np.ndarray,
    cut: np.ndarray,
    edge_zone: int,
    stretch: np.ndarray,
    ball_area: float,
    radius: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The single balls of the stacked fine windows (``ClassicalDetector._window_singles``) from the blobs
    of the stack (``stats``, ``cents``: its components without the background, windows ``size`` rows
    and a row apart): one row per ball (grid centroid x, y, strength, bbox x0, y0, x1, y1 in its window,
    the window's origin x, y and index), and the windows holding more than one ball's blob. A blob
    counts for the window whose own blob box (``own``) holds its centroid; ``cut`` (n x 4: left, top,
    right, bottom): the window sides cut by its edge, where a blob touching the edge zone is not whole."""
    n_win = ox.shape[0]
    rows = size + 1
    m = stats.shape[0]
    gxy = np.empty((m, 2))
    win = np.empty(m, np.int64)
    for i in range(m):
        wi = stats[i, 1] // rows
        win[i] = wi
        gxy[i, 0] = cents[i, 0] + ox[wi]
        gxy[i, 1] = (cents[i, 1] - wi * rows) + oy[wi]
    single, big, strength = classify_blobs(stats, gxy, stretch, ball_area, radius)
    mine = np.zeros(m, np.bool_)
    interior = np.zeros(m, np.bool_)
    bad = np.zeros(n_win, np.bool_)
    for i in range(m):
        wi = win[i]
        sx = stats[i, 0]
        sy = stats[i, 1] - wi * rows
        lx = cents[i, 0]
        ly = cents[i, 1] - wi * rows
        mine[i] = lx >= own[wi, 0] and lx < own[wi, 2] and ly >= own[wi, 1] and ly < own[wi, 3]
        edge = (
            (cut[wi, 0] and sx < edge_zone)
            or (cut[wi, 1] and sy < edge_zone)
            or (cut[wi, 2] and sx + stats[i, 2] > size - edge_zone)
            or (cut[wi, 3] and sy + stats[i, 3] > size - edge_zone)
        )
        interior[i] = not edge
        ball_sized = stats[i, 4] >= 0.45 * ball_area
        if mine[i] and (big[i] or (edge and ball_sized)):
            bad[wi] = True
    n_ok = 0
    for i in range(m):
        if mine[i] and single[i] and interior[i] and not bad[win[i]]:
            n_ok += 1
    out = np.empty((n_ok, 10))
    q = 0
    for i in range(m):
        wi = win[i]
        if mine[i] and single[i] and interior[i] and not bad[wi]:
            sy = stats[i, 1] - wi * rows
            out[q, 0] = gxy[i, 0]
            out[q, 1] = gxy[i, 1]
            out[q, 2] = strength[i]
            out[q, 3] = stats[i, 0]
            out[q, 4] = sy
            out[q, 5] = stats[i, 0] + stats[i, 2]
            out[q, 6] = sy + stats[i, 3]
            out[q, 7] = ox[wi]
            out[q, 8] = oy[wi]
            out[q, 9] = wi
            q += 1
    return out, np.flatnonzero(bad)


@numba.njit(cache=True, nogil=True)
def select_peaks(
    pts: np.ndarray, c0: np.ndarray, ref: float, radius: float, min_votes: float
) -> tuple[np.ndarray, np.ndarray]:
    """Of the vote maxima ``pts`` (grid x, y) with votes ``c0`` (float32), the accepted ball centres and
    their strength (float32 votes over ``ref``, clamped to 0..1; see ``ClassicalDetector._select_peaks``):
    of maxima closer than ``radius`` the stronger (ties: the first), then those over ``min_votes`` of
    ``ref`` and those with at least three such 1.6 to 2.5 radii away."""
    n = pts.shape[0]
    d = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            dx = pts[i, 0] - pts[j, 0]
            dy = pts[i, 1] - pts[j, 1]
            d[i, j] = np.sqrt(dx * dx + dy * dy)
    alive = np.ones(n, np.bool_)
    for i in range(n):
        for j in range(n):
            stronger = c0[j] > c0[i] or (c0[j] == c0[i] and j < i)
            if stronger and d[i, j] < radius:
                alive[i] = False
                break
    thr = np.float32(min_votes * ref)
    strong = np.zeros(n, np.bool_)
    for i in range(n):
        strong[i] = alive[i] and c0[i] > thr
    keep = np.zeros(n, np.bool_)
    for i in range(n):
        if not alive[i]:
            continue
        near = 0
        for j in range(n):
            if strong[j] and d[i, j] > 1.6 * radius and d[i, j] < 2.5 * radius:
                near += 1
        keep[i] = strong[i] or near >= 3
    m = keep.sum()
    out = np.empty((m, 2))
    strength = np.empty(m, np.float32)
    q = 0
    ref32 = np.float32(ref)
    for i in range(n):
        if keep[i]:
            out[q, 0] = pts[i, 0]
            out[q, 1] = pts[i, 1]
            strength[q] = min(max(c0[i] / ref32, np.float32(0.0)), np.float32(1.0))
            q += 1
    return out, strength


@numba.njit(cache=True, nogil=True)
def box_blobs(
    stats: np.ndarray,
    cents: np.ndarray,
    x0: int,
    y0: int,
    bw: int,
    bh: int,
    cut: np.ndarray,
    edge_zone: int,
    known: np.ndarray,
    stretch: np.ndarray,
    ball_area: float,
    radius: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The blobs of a fine box at grid (x0, y0), ``bw`` x ``bh`` cells (``cv2.connectedComponentsWithStats``
    rows and centroids in the box, label 0 the cloth; see ``ClassicalDetector._fine_box``): which are
    single balls, which larger blobs the votes split, the singles' strength, and whether a blob of a
    ball's size or more runs out of the box (``cut``: its left, top, right, bottom sides cut from the grid)
    and lies in none of the ``known`` single balls' boxes (x0, y0, x1, y1), which the votes split too."""
    n = stats.shape[0]
    gc = np.empty((n, 2))
    for i in range(n):
        gc[i, 0] = cents[i, 0] + x0
        gc[i, 1] = cents[i, 1] + y0
    single, big, strength = classify_blobs(stats, gc, stretch, ball_area, radius)
    any_cut_big = False
    for i in range(n):
        sx = stats[i, 0]
        sy = stats[i, 1]
        interior = (
            (sx >= edge_zone or not cut[0])
            and (sy >= edge_zone or not cut[1])
            and (sx + stats[i, 2] <= bw - edge_zone or not cut[2])
            and (sy + stats[i, 3] <= bh - edge_zone or not cut[3])
        )
        cut_big = not interior and stats[i, 4] >= 0.45 * ball_area
        if cut_big:
            gx0 = sx + x0
            gy0 = sy + y0
            gx1 = stats[i, 2] + x0 + sx
            gy1 = stats[i, 3] + y0 + sy
            for k in range(known.shape[0]):
                if gx0 >= known[k, 0] and gy0 >= known[k, 1] and gx1 <= known[k, 2] and gy1 <= known[k, 3]:
                    cut_big = False
                    break
        if i == 0:
            single[i] = False
            big[i] = False
            continue
        single[i] = single[i] and interior
        big[i] = (big[i] and interior) or cut_big
        any_cut_big = any_cut_big or cut_big
    return single, big, strength, any_cut_big


@numba.njit(cache=True, nogil=True)
def roi_peaks(
    acc: np.ndarray,
    mask: np.ndarray,
    use_mask: bool,
    thr: float,
    half: int,
    fg: np.ndarray,
    cover_k: int,
    min_cover: float,
    x0: int,
    y0: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Vote maxima of one box (``ClassicalDetector._roi_peaks``): cells of ``acc`` (float32; zero where
    ``mask`` is 0 when ``use_mask``) over ``thr`` that are the maximum of the (2 ``half`` + 1)-square around
    them (within the box) and whose not-cloth cover (``box_cover``: ``cv2.blur(fg, (cover_k, cover_k))`` of
    the 0/255 mask ``fg``, taken only at these cells) is at least ``min_cover``, in row-major order; their grid
    position refined by a parabola through the 3 x 3 neighbourhood along each axis (float32), and their votes."""
    h, w = acc.shape
    a = acc.copy()
    if use_mask:
        for y in range(h):
            for x in range(w):
                if mask[y, x] == 0:
                    a[y, x] = 0.0
    t = np.float32(thr)
    mc = np.float32(min_cover)
    inv = np.float32(255.0)
    xs = []
    ys = []
    for y in range(h):
        for x in range(w):
            v = a[y, x]
            if not v > t:
                continue
            top = True
            for yy in range(max(y - half, 0), min(y + half + 1, h)):
                for xx in range(max(x - half, 0), min(x + half + 1, w)):
                    if a[yy, xx] > v:
                        top = False
                        break
                if not top:
                    break
            if top and np.float32(box_cover(fg, y, x, cover_k)) / inv >= mc:
                xs.append(x)
                ys.append(y)
    n = len(xs)
    pts = np.empty((n, 2))
    c0 = np.empty(n, np.float32)
    for i in range(n):
        x = min(max(xs[i], 1), w - 2)
        y = min(max(ys[i], 1), h - 2)
        c = a[y, x]
        c0[i] = c
        pts[i, 0] = x + np.float64(_parabola(a[y, x - 1], c, a[y, x + 1])) + x0
        pts[i, 1] = y + np.float64(_parabola(a[y - 1, x], c, a[y + 1, x])) + y0
    return pts, c0


@numba.njit(cache=True, nogil=True)
def box_cover(fg: np.ndarray, y: int, x: int, k: int) -> np.uint8:
    """``cv2.blur(fg, (k, k))[y, x]`` of a 0/255 uint8 mask (``k`` odd): the mean of the k x k square around the
    cell, borders reflected as OpenCV's default (``BORDER_REFLECT_101``), which for such a mask is the count n
    of set cells in it as round(255 n / k**2) (OpenCV's rounding: no count lands on a half; tested equal)."""
    h, w = fg.shape
    r = k // 2
    n = 0
    for dy in range(-r, r + 1):
        yy = _reflect101(y + dy, h)
        for dx in range(-r, r + 1):
            if fg[yy, _reflect101(x + dx, w)] != 0:
                n += 1
    return np.uint8((255 * n * 2 + k * k) // (2 * k * k))


@numba.njit(cache=True, nogil=True, inline="always")
def _reflect101(i: int, n: int) -> int:
    """OpenCV's ``borderInterpolate`` for ``BORDER_REFLECT_101``: the index of ``i`` reflected into 0..n-1."""
    if n == 1:
        return 0
    while i < 0 or i >= n:
        i = -i if i < 0 else 2 * n - 2 - i
    return i


@numba.njit(cache=True, nogil=True, inline="always")
def _parabola(a: np.float32, b: np.float32, c: np.float32) -> np.float32:
    """The vertex offset (-0.5..0.5, float32) of the parabola through three equally spaced values."""
    den = np.float32(np.float32(a - np.float32(2.0) * b) + c)
    if abs(den) > np.float32(1e-9):
        off = np.float32(np.float32(np.float32(0.5) * np.float32(a - c)) / den)
    else:
        off = np.float32(0.0)
    return min(max(off, np.float32(-0.5)), np.float32(0.5))


@numba.njit(cache=True, nogil=True)
def label_mask(labels: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """``lut[labels]``: the uint8 value of each pixel's connected-component label."""
    h, w = labels.shape
    out = np.empty((h, w), np.uint8)
    for y in range(h):
        for x in range(w):
            out[y, x] = lut[labels[y, x]]
    return out


@numba.njit(cache=True, nogil=True)
def keep_balls(
    pos: np.ndarray,
    px: np.ndarray,
    radius: np.ndarray,
    support: np.ndarray,
    strength: np.ndarray,
    blob: np.ndarray,
    length: float,
    width: float,
    outside: float,
    min_rim_support: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The candidates kept as balls (indices, ascending) and every candidate's confidence: inside the field
    (``outside`` mm beyond it allowed: pocket mouths), a vote peak (not ``blob``) with at least
    ``min_rim_support`` of its rim found, and of candidates whose images lie within one another's radius the
    most confident (ties: the first). Confidence: half the blob or peak strength (at most 1), half the rim
    support (at least 0.3)."""
    n = pos.shape[0]
    conf = np.empty(n)
    cand = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        c = 0.5 * min(strength[i], 1.0) + 0.5 * max(support[i], 0.3)
        conf[i] = min(max(c, 0.0), 1.0)
        x = pos[i, 0]
        y = pos[i, 1]
        on_field = -outside < x < length + outside and -outside < y < width + outside
        if on_field and (blob[i] or support[i] >= min_rim_support):
            cand[m] = i
            m += 1
    cand = cand[:m]
    keep = np.ones(m, np.bool_)
    # Most confident first (a stable order: equal confidences keep their order).
    order = np.argsort(-conf[cand], kind="mergesort")
    for a in order:
        if not keep[a]:
            continue
        i = cand[a]
        for b in range(m):
            if b != a and keep[b]:
                j = cand[b]
                dx = px[i, 0] - px[j, 0]
                dy = px[i, 1] - px[j, 1]
                if math.sqrt(dx * dx + dy * dy) < radius[i]:
                    keep[b] = False
    return cand[keep], conf


@numba.njit(cache=True, nogil=True)
def refine_starts(
    grid_pts: np.ndarray,
    blob: np.ndarray,
    px_per_mm: float,
    margin_mm: float,
    camera: np.ndarray,
    shift_mm: float,
    max_tan: float,
    two_starts: bool,
    mouths: np.ndarray,
    pocket_reach: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the refinement starts from (cloth mm) for candidates at fine-grid points ``grid_pts`` (col, row):
    a blob's centroid as it is; a vote peak (not ``blob``) moved ``shift_mm`` x tan of the view angle (at most
    ``max_tan``) toward the camera (``camera``: its centre, z < 0), and with ``two_starts`` also from where it
    lies, those starts after all the others. Also the vote peaks' indices and, for every start, whether it
    lies farther than ``pocket_reach`` from every pocket mouth (there darkness may mean a ball)."""
    n = grid_pts.shape[0]
    n_peaks = 0
    for i in range(n):
        if not blob[i]:
            n_peaks += 1
    m = n + n_peaks if two_starts else n
    starts = np.empty((m, 2))
    peak = np.empty(n_peaks, np.int64)
    height = max(-camera[2], 1.0)
    k = 0
    for i in range(n):
        x = (grid_pts[i, 0] + 0.5) / px_per_mm - margin_mm
        y = (grid_pts[i, 1] + 0.5) / px_per_mm - margin_mm
        if not blob[i]:
            if two_starts:
                starts[n + k, 0] = x
                starts[n + k, 1] = y
            peak[k] = i
            k += 1
            ax = x - camera[0]
            ay = y - camera[1]
            dist = max(math.sqrt(ax * ax + ay * ay), 1e-9)
            tan = min(dist / height, max_tan)
            x -= shift_mm * tan * ax / dist
            y -= shift_mm * tan * ay / dist
        starts[i, 0] = x
        starts[i, 1] = y
    dark_counts = np.ones(m, np.bool_)
    for i in range(m):
        for j in range(mouths.shape[0]):
            dx = starts[i, 0] - mouths[j, 0]
            dy = starts[i, 1] - mouths[j, 1]
            if math.sqrt(dx * dx + dy * dy) < pocket_reach:
                dark_counts[i] = False
                break
    return starts, peak, dark_counts


@numba.njit(cache=True, nogil=True)
def without_cut_edges(mask: np.ndarray, part_rows: int, part_h: int, cut: np.ndarray, zone: int) -> np.ndarray:
    """A copy of ``mask`` (parts stacked every ``part_rows`` rows, each ``part_h`` rows high and as wide as the
    mask) cleared ``zone`` cells deep along each side of each part that ``cut`` (parts x 4: left, top, right,
    bottom) marks as cut from the grid: where a cut window's or box's opening differs from the whole grid's."""
    out = mask.copy()
    w = mask.shape[1]
    for k in range(cut.shape[0]):
        r0 = k * part_rows
        if cut[k, 0]:
            out[r0 : r0 + part_rows, :zone] = 0
        if cut[k, 1]:
            out[r0 : r0 + zone, :] = 0
        if cut[k, 2]:
            out[r0 : r0 + part_rows, w - zone :] = 0
        if cut[k, 3]:
            out[r0 + part_h - zone : r0 + part_h, :] = 0
    return out


@numba.njit(cache=True, nogil=True)
def coarse_boxes(
    stats: np.ndarray,
    cents: np.ndarray,
    step: int,
    stretch: np.ndarray,
    min_area: float,
    win_limit: int,
    large_area: float,
) -> tuple[np.ndarray, np.ndarray]:
    """For the coarse blobs (statistics and centroids, ``blob_stats``) of at least ``min_area`` cells: their
    boxes on the fine grid (x0, y0, x1, y1: their cells, one coarse cell (``step`` fine cells) wider each
    side) and whether each is large: wider or taller than ``win_limit`` fine cells, or over ``large_area``
    coarse cells times the view's stretch at its centroid (float32, as ``stretch``)."""
    h, w = stretch.shape
    n = stats.shape[0]
    boxes = np.empty((n, 4), np.int64)
    large = np.empty(n, np.bool_)
    m = 0
    for i in range(n):
        area = stats[i, 4]
        if area < min_area:
            continue
        x0 = np.int64(stats[i, 0]) * step - step
        y0 = np.int64(stats[i, 1]) * step - step
        x1 = (np.int64(stats[i, 0]) + stats[i, 2]) * step + step
        y1 = (np.int64(stats[i, 1]) + stats[i, 3]) * step + step
        cx = min(np.int64(cents[i, 0] * step), w - 1)
        cy = min(np.int64(cents[i, 1] * step), h - 1)
        k = stretch[cy, cx]
        boxes[m, 0] = x0
        boxes[m, 1] = y0
        boxes[m, 2] = x1
        boxes[m, 3] = y1
        large[m] = max(x1 - x0, y1 - y0) > win_limit or area > np.float32(large_area) * k
        m += 1
    return boxes[:m], large[:m]


@numba.njit(cache=True, nogil=True)
def settle_starts(
    px: np.ndarray, colour: np.ndarray, radius: np.ndarray, support: np.ndarray, peak: np.ndarray, n: int, margin: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The first ``n`` rows of the refined starts (``refine_starts``: one per candidate, then a second start for
    each vote peak ``peak[k]`` at row ``n + k``), each vote peak taking its second start's result where that
    found ``margin`` more of the rim (support) than its first: copies, the inputs unchanged."""
    px_out = px[:n].copy()
    colour_out = colour[:n].copy()
    radius_out = radius[:n].copy()
    support_out = support[:n].copy()
    for k in range(peak.shape[0]):
        i = peak[k]
        alt = n + k
        if support[alt] > support[i] + margin:
            px_out[i] = px[alt]
            colour_out[i] = colour[alt]
            radius_out[i] = radius[alt]
            support_out[i] = support[alt]
    return px_out, colour_out, radius_out, support_out


@numba.njit(cache=True, nogil=True)
def odd_colour_out(colour: np.ndarray, min_distance: float) -> int:
    """The row of the one colour (BGR rows, at least 3) more than ``min_distance`` from the rows' per-channel
    median while every other lies within half that (``ClassicalDetector._classify``: the cue ball among like
    balls), or -1. The median and the distances as numpy computes them (a sort per channel; the root of the
    summed squares in channel order)."""
    k = colour.shape[0]
    med = np.empty(3)
    col = np.empty(k)
    for c in range(3):
        for i in range(k):
            col[i] = colour[i, c]
        col.sort()
        med[c] = col[k // 2] if k % 2 else (col[k // 2 - 1] + col[k // 2]) * 0.5
    best = -1
    d_best = -1.0
    d_second = -1.0
    for i in range(k):
        d0 = colour[i, 0] - med[0]
        d1 = colour[i, 1] - med[1]
        d2 = colour[i, 2] - med[2]
        d = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        if d > d_best:
            d_second = d_best
            d_best = d
            best = i
        elif d > d_second:
            d_second = d
    if d_best > min_distance and d_second < 0.5 * min_distance:
        return best
    return -1


@numba.njit(cache=True, nogil=True)
def dilate_3x3(mask: np.ndarray) -> np.ndarray:
    """``cv2.dilate(mask, np.ones((3, 3), np.uint8))`` of a uint8 mask: each pixel the maximum of its 3 x 3
    neighbourhood, neighbours off the image left out (OpenCV's default border for a dilation)."""
    h, w = mask.shape
    rows = np.empty((h, w), np.uint8)
    for y in range(h):
        for x in range(w):
            v = mask[y, x]
            if x > 0:
                v = max(v, mask[y, x - 1])
            if x < w - 1:
                v = max(v, mask[y, x + 1])
            rows[y, x] = v
    out = np.empty((h, w), np.uint8)
    for y in range(h):
        for x in range(w):
            v = rows[y, x]
            if y > 0:
                v = max(v, rows[y - 1, x])
            if y < h - 1:
                v = max(v, rows[y + 1, x])
            out[y, x] = v
    return out


@numba.njit(cache=True, nogil=True)
def near_labels(labels: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """``dilate_3x3(label_mask(labels, lut))``: the pixels on or next to a blob whose label ``lut`` marks, in
    one call."""
    return dilate_3x3(label_mask(labels, lut))


@numba.njit(cache=True, nogil=True)
def box_parts(
    fg: np.ndarray,
    x0: int,
    y0: int,
    cut: tuple[bool, bool, bool, bool],
    edge_zone: int,
    known: np.ndarray,
    stretch: np.ndarray,
    ball_area: float,
    radius: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool, bool]:
    """The blob work of one fine box at grid (``x0``, ``y0``) in one call (``ClassicalDetector._fine_box``):
    the blobs of its not-cloth mask ``fg`` without the zone along the sides ``cut`` from the grid (left, top,
    right, bottom), sorted by ``box_blobs``. Returns the label image, the label lookup (255 for the larger
    blobs the votes split), the single balls (one row each: grid centroid x, y, strength and grid bbox x0,
    y0, x1, y1), whether there are larger blobs and whether one of a ball's size or more runs out of the box."""
    bh, bw = fg.shape
    cuts = np.zeros((1, 4), np.bool_)
    for i in range(4):
        cuts[0, i] = cut[i]
    labels, rows, blob_cents = blob_labels(without_cut_edges(fg, bh, bh, cuts, edge_zone - 1))
    # Row 0 stands for the cloth (label 0), as in OpenCV's statistics: ``box_blobs`` skips it.
    n = rows.shape[0] + 1
    stats = np.zeros((n, 5), np.int32)
    stats[1:] = rows
    cents = np.zeros((n, 2))
    cents[1:] = blob_cents
    single, big, strength, any_cut_big = box_blobs(
        stats, cents, x0, y0, bw, bh, cuts[0], edge_zone, known, stretch, ball_area, radius
    )
    lut = np.zeros(n, np.uint8)
    has_big = False
    n_single = 0
    for j in range(n):
        if big[j]:
            lut[j] = 255
            has_big = True
        if single[j]:
            n_single += 1
    singles = np.empty((n_single, 7))
    q = 0
    for j in range(n):
        if single[j]:
            singles[q, 0] = cents[j, 0] + x0
            singles[q, 1] = cents[j, 1] + y0
            singles[q, 2] = strength[j]
            singles[q, 3] = stats[j, 0] + x0
            singles[q, 4] = stats[j, 1] + y0
            singles[q, 5] = stats[j, 0] + x0 + stats[j, 2]
            singles[q, 6] = stats[j, 1] + y0 + stats[j, 3]
            q += 1
    return labels, lut, singles, has_big, any_cut_big


@numba.njit(cache=True, nogil=True)
def merge_boxes(boxes: np.ndarray) -> np.ndarray:
    """The boxes (x0, y0, x1, y1 rows) with overlapping ones merged into their bounding box: the first
    overlapping pair in order (i, then j > i) merged into row i, row j removed, and over again until no two
    overlap (``ClassicalDetector``'s order of boxes, which sets the order of its vote peaks)."""
    out = boxes.copy()
    n = out.shape[0]
    merged = True
    while merged and n > 1:
        merged = False
        for i in range(n):
            for j in range(i + 1, n):
                if out[i, 0] < out[j, 2] and out[j, 0] < out[i, 2] and out[i, 1] < out[j, 3] and out[j, 1] < out[i, 3]:
                    out[i, 0] = min(out[i, 0], out[j, 0])
                    out[i, 1] = min(out[i, 1], out[j, 1])
                    out[i, 2] = max(out[i, 2], out[j, 2])
                    out[i, 3] = max(out[i, 3], out[j, 3])
                    for k in range(j, n - 1):
                        out[k] = out[k + 1]
                    n -= 1
                    merged = True
                    break
            if merged:
                break
    return out[:n].copy()


@numba.njit(cache=True, nogil=True)
def grow_boxes(fine: np.ndarray, rows: np.ndarray, margin: int, h: int, w: int) -> np.ndarray:
    """The fine boxes ``fine[rows]`` grown by ``margin`` cells each side, within the h x w grid."""
    out = np.empty((rows.shape[0], 4), np.int64)
    for q in range(rows.shape[0]):
        i = rows[q]
        out[q, 0] = max(fine[i, 0] - margin, 0)
        out[q, 1] = max(fine[i, 1] - margin, 0)
        out[q, 2] = min(fine[i, 2] + margin, w)
        out[q, 3] = min(fine[i, 3] + margin, h)
    return out


@numba.njit(cache=True, nogil=True)
def plan_windows(
    fine: np.ndarray, large: np.ndarray, boxes: np.ndarray, size: int, h: int, w: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``size`` x ``size`` windows of the fine grid (h x w) around the small coarse blobs (``fine``
    rows not ``large``), but for those lying inside one of ``boxes``: their origins x, y (centred on the
    blob's box, within the grid), the blobs' boxes in window coordinates, the blobs' rows of ``fine`` and
    each window's sides cut from the grid (left, top, right, bottom)."""
    n = fine.shape[0]
    ox = np.empty(n, np.int64)
    oy = np.empty(n, np.int64)
    rows = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        if large[i]:
            continue
        x = min(max((fine[i, 0] + fine[i, 2]) // 2 - size // 2, 0), w - size)
        y = min(max((fine[i, 1] + fine[i, 3]) // 2 - size // 2, 0), h - size)
        inside = False
        for b in range(boxes.shape[0]):
            if x >= boxes[b, 0] and y >= boxes[b, 1] and x + size <= boxes[b, 2] and y + size <= boxes[b, 3]:
                inside = True
                break
        if inside:
            continue
        ox[m] = x
        oy[m] = y
        rows[m] = i
        m += 1
    own = np.empty((m, 4), np.int64)
    cut = np.empty((m, 4), np.bool_)
    for q in range(m):
        i = rows[q]
        own[q, 0] = fine[i, 0] - ox[q]
        own[q, 1] = fine[i, 1] - oy[q]
        own[q, 2] = fine[i, 2] - ox[q]
        own[q, 3] = fine[i, 3] - oy[q]
        cut[q, 0] = ox[q] > 0
        cut[q, 1] = oy[q] > 0
        cut[q, 2] = ox[q] + size < w
        cut[q, 3] = oy[q] + size < h
    return ox[:m].copy(), oy[:m].copy(), own, rows[:m].copy(), cut


@numba.njit(cache=True, nogil=True)
def window_parts(
    fg: np.ndarray,
    size: int,
    ox: np.ndarray,
    oy: np.ndarray,
    own: np.ndarray,
    cut: np.ndarray,
    edge_zone: int,
    stretch: np.ndarray,
    ball_area: float,
    radius: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The blob work of the stacked fine windows in one call (``ClassicalDetector._window_singles``): the
    stack's not-cloth mask ``fg`` cleared along the cut sides' zone (``without_cut_edges``), its blobs
    (``blob_stats``) sorted by ``window_blobs``, whose single balls and escalated windows it returns."""
    stats, cents = blob_stats(without_cut_edges(fg, size + 1, size, cut, edge_zone - 1))
    return window_blobs(stats, cents, size, ox, oy, own, cut, edge_zone, stretch, ball_area, radius)


@numba.njit(cache=True, nogil=True)
def large_boxes(fine: np.ndarray, large: np.ndarray, margin: int, h: int, w: int) -> np.ndarray:
    """``merge_boxes`` of the ``large`` rows of ``fine`` grown by ``grow_boxes``: the fine boxes the large
    coarse blobs need, in one call."""
    return merge_boxes(grow_boxes(fine, np.flatnonzero(large), margin, h, w))
