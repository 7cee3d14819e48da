"""The compiled loop of ``vision.refine.refine_centres``: every ball, ray and sample in one numba kernel.

It does what the numpy reference (``tests/refine_support.py``) does with ``cv2.remap`` and array operations, step
for step and with the same constants: bilinear samples along the rays (OpenCV's float-map
``INTER_LINEAR`` arithmetic in float32, rounded to uint8, the border replicated), the not-cloth score,
the steepest fall (the rim against cloth), the brightness valley (the rim against a frozen neighbour)
and the Gauss-Newton circle fits with their trimming. Float32 where the numpy version computes in
float32 (its comparisons against float32 constants too), float64 for the geometry.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from vision.kernel_ops import fma32, load_u64

_F0 = np.float32(0.0)
_F1 = np.float32(1.0)
_BYTE = np.uint64(255)


@numba.njit(cache=True, nogil=True)
def _ball_scores(
    frame: np.ndarray,
    cx: float,
    cy: float,
    r: float,
    offx: np.ndarray,
    offy: np.ndarray,
    mat: np.ndarray,
    dark_counts: bool,
    dark_gain: np.float32,
    dark_below: np.float32,
    buf: np.ndarray,
    corners: np.ndarray,
    pix: np.ndarray,
) -> None:
    """One ball's samples (``buf`` rows 0-2: B, G, R), not-cloth score (row 8) and grey (row 9), the
    samples at ``(cx, cy) + r (offx, offy)``: the gathers in one loop, the arithmetic in loops of their own
    (rows 3-4 hold the bilinear weights; ``corners`` (3 x samples, int64): room for the flat indices of each
    sample's upper and lower left pixel and the bytes to its right one; ``pix`` (3 x samples, uint64): room
    for the bytes the gathers read). Each sample's two frame rows are read by one 8-byte load each (both
    pixels of the row: a scalar loop of two loads, where twelve byte loads took most of the time)."""
    h, w = frame.shape[0], frame.shape[1]
    m = offx.shape[0]
    flat = frame.reshape(-1)
    fxs = buf[3]
    fys = buf[4]
    i_top = corners[0]
    i_bot = corners[1]
    right = corners[2]
    for q in range(m):
        x = np.float32(cx + r * offx[q])
        y = np.float32(cy + r * offy[q])
        xf = np.floor(x)
        yf = np.floor(y)
        fxs[q] = x - xf
        fys[q] = y - yf
        x0 = np.int32(xf)
        y0 = np.int32(yf)
        xa = min(max(x0, 0), w - 1)
        xb = min(max(x0 + 1, 0), w - 1)
        ya = min(max(y0, 0), h - 1) * w
        yb = min(max(y0 + 1, 0), h - 1) * w
        i_top[q] = (ya + xa) * 3
        i_bot[q] = (yb + xa) * 3
        right[q] = (xb - xa) * 3
    tops = pix[0]
    bots = pix[1]
    shift = pix[2]
    for q in range(m):
        tops[q] = _row_bytes(flat, i_top[q])
        bots[q] = _row_bytes(flat, i_bot[q])
        shift[q] = np.uint64(8 * right[q])
    for ch in range(3):
        out = buf[ch]
        sl = np.uint64(8 * ch)
        for q in range(m):
            t = tops[q]
            u = bots[q]
            sr = shift[q] + sl
            a = np.float32((t >> sl) & _BYTE)
            b = np.float32((t >> sr) & _BYTE)
            c = np.float32((u >> sl) & _BYTE)
            d = np.float32((u >> sr) & _BYTE)
            top = a + fxs[q] * (b - a)
            bot = c + fxs[q] * (d - c)
            out[q] = np.rint(top + fys[q] * (bot - top))
    s0 = buf[0]
    s1 = buf[1]
    s2 = buf[2]
    kk = buf[5]
    e1 = buf[6]
    e2 = buf[7]
    sc = buf[8]
    gr = buf[9]
    _transform_rows(s0, s1, s2, mat[0, 0], mat[0, 1], mat[0, 2], mat[0, 3], kk)
    _transform_rows(s0, s1, s2, mat[1, 0], mat[1, 1], mat[1, 2], mat[1, 3], e1)
    _transform_rows(s0, s1, s2, mat[2, 0], mat[2, 1], mat[2, 2], mat[2, 3], e2)
    _transform_rows(s0, s1, s2, mat[3, 0], mat[3, 1], mat[3, 2], mat[3, 3], gr)
    two = np.float32(2.0)
    for q in range(m):
        v = max(np.float32(np.sqrt(e1[q] * e1[q] + e2[q] * e2[q])), kk[q])
        if dark_counts and kk[q] < dark_below:
            v = max(v, kk[q] * dark_gain)
        sc[q] = min(v, two)


@numba.njit(cache=True, nogil=True, inline="always")
def _row_bytes(flat: np.ndarray, i: int) -> np.uint64:
    """Bytes ``flat[i:i + 8]`` as a little-endian uint64 (``load_u64``); at the end of the frame, the bytes
    that remain (the rest zero)."""
    if i + 8 <= flat.shape[0]:
        return load_u64(flat, i)
    v = np.uint64(0)
    for k in range(min(8, flat.shape[0] - i)):
        v |= np.uint64(flat[i + k]) << np.uint64(8 * k)
    return v


@numba.njit(cache=True, nogil=True)
def _transform_rows(
    v0: np.ndarray,
    v1: np.ndarray,
    v2: np.ndarray,
    m0: np.float32,
    m1: np.float32,
    m2: np.float32,
    m3: np.float32,
    out: np.ndarray,
) -> None:
    """One row of ``cv2.transform`` as this OpenCV build computes it: fma(m2, v2, fma(m0, v0, m1 v1)) + m3."""
    for q in range(v0.shape[0]):
        out[q] = fma32(m2, v2[q], fma32(m0, v0[q], m1 * v1[q])) + m3


@numba.njit(cache=True, nogil=True)
def _sub_sample(a: np.float32, b: np.float32, c: np.float32) -> np.float32:
    """Offset (-1..1) of the extremum of the parabola through three equally spaced values."""
    den = np.float32(np.float32(a - np.float32(2.0) * b) + c)
    slope = np.float32(np.float32(np.float32(0.5) * a) - np.float32(np.float32(0.5) * c))
    off = np.float32(slope / den) if abs(den) > np.float32(1e-6) else _F0
    return np.float32(min(max(off, -_F1), _F1))


@numba.njit(cache=True, nogil=True)
def _beyond_threshold(score: np.ndarray, ends: np.ndarray, low: np.float32) -> np.float32:
    """The most a rim point's cloth beyond it may score (``BEYOND_MARGIN``): from the ray ends of one ball's
    scores (rays x samples) that score as cloth; ``ends``: room for them."""
    n_rays, n_s = score.shape
    m = 0
    for k in range(n_rays):
        v = score[k, n_s - 1]
        if v < np.float32(BEYOND_MAX):
            ends[m] = v
            m += 1
    if 3 * m < 2 * n_rays:
        return low
    level = np.float32(_median_sorted(ends[:m])) + np.float32(BEYOND_MARGIN)
    return np.float32(min(max(level, low), np.float32(BEYOND_MAX)))


@numba.njit(cache=True, nogil=True)
def _median_sorted(a: np.ndarray) -> float:
    return _median_of_sorted(np.sort(a))


@numba.njit(cache=True, nogil=True)
def _median_of_sorted(s: np.ndarray) -> float:
    """``np.median`` of an array already sorted."""
    k = len(s)
    if k % 2:
        return float(s[k // 2])
    return float((s[k // 2 - 1] + s[k // 2]) * 0.5)


@numba.njit(cache=True, nogil=True)
def _fit_one(
    px: np.ndarray, py: np.ndarray, ok: np.ndarray, radius: float, gx: float, gy: float, scratch: np.ndarray
) -> tuple[float, float]:
    """Least-squares centre of a circle of known radius through the rim points (px, py) where ``ok``,
    from (gx, gy): four Gauss-Newton steps on the 2 x 2 normal equations, trimming outliers once (the
    numpy version's ``_fit_centres`` for one ball). ``scratch`` (5 x rays, float64): room for the weights,
    residuals, unit vectors and the sorted absolute residuals (a fit runs a few times per ball and frame:
    no arrays of its own to allocate). Distances are the root of the summed squares: at pixel scale
    nothing over- or underflows, and ``math.hypot``'s guarded library call took most of the fit's time."""
    n_rays = len(px)
    cx, cy = gx, gy
    w = scratch[0]
    w[:] = 0.0
    all_ok = True
    tw = 0.0
    for k in range(n_rays):
        if ok[k]:
            w[k] = 1.0
            tw += 1.0
        else:
            all_ok = False
    res = scratch[1]
    ux = scratch[2]
    uy = scratch[3]
    for it in range(4):
        for k in range(n_rays):
            vx = px[k] - cx
            vy = py[k] - cy
            dist = max(math.sqrt(vx * vx + vy * vy), 1e-9)
            res[k] = dist - radius
            ux[k] = vx / dist
            uy[k] = vy / dist
        if it == 2:
            mad = 0.15
            if all_ok:
                srt = scratch[4]
                for k in range(n_rays):
                    srt[k] = abs(res[k])
                srt.sort()
                mad += _median_of_sorted(srt)
            n_trim = 0
            for k in range(n_rays):
                if ok[k] and abs(res[k]) < 3.0 * mad:
                    n_trim += 1
            tw = 0.0
            for k in range(n_rays):
                keep = ok[k] and (n_trim < 6 or abs(res[k]) < 3.0 * mad)
                w[k] = 1.0 if keep else 0.0
                tw += w[k]
        # S = sum w j^2 and g = sum w res j with j = u as a complex number.
        s_re = 0.0
        s_im = 0.0
        g_re = 0.0
        g_im = 0.0
        for k in range(n_rays):
            if w[k] != 0.0:
                s_re += ux[k] * ux[k] - uy[k] * uy[k]
                s_im += 2.0 * ux[k] * uy[k]
                g_re += ux[k] * res[k]
                g_im += uy[k] * res[k]
        den = max(tw * tw - (s_re * s_re + s_im * s_im), 4e-9)
        # (tw g - S conj(g)) * 2 / den
        nx = tw * g_re - (s_re * g_re + s_im * g_im)
        ny = tw * g_im - (s_im * g_re - s_re * g_im)
        cx += nx * (2.0 / den)
        cy += ny * (2.0 / den)
    return cx, cy


# A rim point needs the cloth a little beyond it to score under 0.6, or, where the cloth around the ball scores
# higher (a corner of the table lit brighter than the model's cloth: 0.9), under that level plus
# BEYOND_MARGIN, and never as high as a ball (one). The level: the median of the ray ends that score as cloth
# (under one), where two thirds of them or more do (a lone ball: not one beside the player's hand, nor in a rack).
BEYOND_MARGIN = 0.15
BEYOND_MAX = 1.0
OWN_RADIUS_TOL = 0.25  # a full rim within this fraction of the expected radius is refitted at its own


# Where too few rays found the rim for a least-squares fit (a dark ball whose shaded side fades into its shadow:
# 6-10 of 24 rays), the circle through three rim points that most others agree with: a shadow or a lit top's edge
# adds points off that circle, which lose the vote. Its radius may lie within VOTE_RADIUS of the expected one (a
# dark ball's score falls where its limb, lit by the cloth, turns brighter than a dark ball can be: 0.8 of the
# radius), and a point agrees within VOTE_TOL of a radius (a rim point is placed to a tenth of a sample, 0.05
# radius, on a sharp rim; a blurred one spreads it).
VOTE_MIN = 4  # agreeing rim points: three define any circle, a fourth is the first that can disagree
VOTE_RADIUS = (0.7, 1.1)
VOTE_TOL = 0.1


@numba.njit(cache=True, nogil=True)
def _vote_circle(
    px: np.ndarray, py: np.ndarray, ok: np.ndarray, radius: float, sx: float, sy: float, agree: np.ndarray
) -> tuple[int, float, float, float]:
    """The circle through three of the rim points (px, py) where ``ok`` that the most of them lie on (within
    ``VOTE_TOL`` radius; ties: the smaller summed distance), its radius within ``VOTE_RADIUS`` of ``radius`` and its
    centre within 0.6 radius of the start (sx, sy): the number of points on it (0: none), its centre and radius;
    ``agree`` (rays) is set to the points on it."""
    idx = np.empty(len(px), np.int64)
    m = 0
    for k in range(len(px)):
        if ok[k]:
            idx[m] = k
            m += 1
    best_n = 0
    best_res = 0.0
    bx, by, br = sx, sy, radius
    tol = VOTE_TOL * radius
    far2 = (0.6 * radius) * (0.6 * radius)
    for i in range(m):
        x1, y1 = px[idx[i]], py[idx[i]]
        for j in range(i + 1, m):
            x2, y2 = px[idx[j]], py[idx[j]]
            for k in range(j + 1, m):
                x3, y3 = px[idx[k]], py[idx[k]]
                d = 2.0 * (x1 * (y2 - y3) + x2 * (y3 - y1) + x3 * (y1 - y2))
                if abs(d) < 1e-9:
                    continue
                s1 = x1 * x1 + y1 * y1
                s2 = x2 * x2 + y2 * y2
                s3 = x3 * x3 + y3 * y3
                ux = (s1 * (y2 - y3) + s2 * (y3 - y1) + s3 * (y1 - y2)) / d
                uy = (s1 * (x3 - x2) + s2 * (x1 - x3) + s3 * (x2 - x1)) / d
                if (ux - sx) * (ux - sx) + (uy - sy) * (uy - sy) > far2:
                    continue
                rr = math.sqrt((x1 - ux) * (x1 - ux) + (y1 - uy) * (y1 - uy))
                if rr < VOTE_RADIUS[0] * radius or rr > VOTE_RADIUS[1] * radius:
                    continue
                cnt = 0
                res = 0.0
                for q in range(m):
                    dx = px[idx[q]] - ux
                    dy = py[idx[q]] - uy
                    e = abs(math.sqrt(dx * dx + dy * dy) - rr)
                    if e < tol:
                        cnt += 1
                        res += e
                if cnt > best_n or (cnt == best_n and res < best_res):
                    best_n = cnt
                    best_res = res
                    bx, by, br = ux, uy, rr
    agree[:] = False
    if best_n:
        for q in range(m):
            dx = px[idx[q]] - bx
            dy = py[idx[q]] - by
            agree[idx[q]] = abs(math.sqrt(dx * dx + dy * dy) - br) < tol
    return best_n, bx, by, br


@numba.njit(cache=True, nogil=True)
def _rim_points(
    cx: float, cy: float, r0: float, step: float, pos: np.ndarray, dirs: np.ndarray, ptx: np.ndarray, pty: np.ndarray
) -> None:
    """Each ray's rim point into ``ptx``/``pty``: ``pos`` samples of ``step`` px out from ``r0`` px along the ray
    from the start ``cx, cy``."""
    for k in range(dirs.shape[0]):
        rr = r0 + pos[k] * step
        ptx[k] = cx + rr * dirs[k, 0]
        pty[k] = cy + rr * dirs[k, 1]


@numba.njit(cache=True, nogil=True)
def _mean_radius(px: np.ndarray, py: np.ndarray, ok: np.ndarray, cx: float, cy: float) -> float:
    """The mean distance of the rim points (px, py) where ``ok`` from (cx, cy)."""
    tot = 0.0
    cnt = 0
    for k in range(len(px)):
        if ok[k]:
            dx = px[k] - cx
            dy = py[k] - cy
            tot += math.sqrt(dx * dx + dy * dy)
            cnt += 1
    return tot / cnt


@numba.njit(cache=True, nogil=True)
def refine_kernel(
    frame: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    mat: np.ndarray,
    dark_counts: np.ndarray,
    toward: np.ndarray,
    dirs: np.ndarray,
    rho: np.ndarray,
    ints: np.ndarray,
    floats: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
    """Refined centres (N, 2), edge fractions, the rim-radius ratio, support and inner-disc colours of
    the balls at ``centres`` (see ``vision.refine.refine_centres``). ``mat``: the 4 x 4 float32 score
    matrix (rows: brightness term, two chroma terms, grey; last column an offset); ``toward`` (N, 2): unit
    image vectors toward the camera (a valley counts only on rays pointing less than 0.3 that way), or no
    rows (every ray). ``ints``: the ray pattern's sample indices lo, hi, i_in, i_out, n_inner (``_Rays``) and the
    iterations; ``floats``: the dark gain and threshold (float32 values), the valley scale and the rim radius
    over the expected one where known (> 0: from the other balls of the frame), else measured on the full
    rims here. (Few arguments: each costs the call a little.)"""
    lo, hi, i_in, i_out, n_inner, iterations = ints[0], ints[1], ints[2], ints[3], ints[4], ints[5]
    dark_gain = np.float32(floats[0])
    dark_below = np.float32(floats[1])
    valley_scale = floats[2]
    rim_ratio = floats[3]
    n = centres.shape[0]
    n_rays = dirs.shape[0]
    n_s = rho.shape[0]
    cx = centres[:, 0].copy()
    cy = centres[:, 1].copy()
    sx = cx.copy()
    sy = cy.copy()
    frac = np.zeros(n)
    support = np.zeros(n)
    ratio = rim_ratio if rim_ratio > 0.0 else 1.0
    score = np.empty((n, n_rays, n_s), np.float32)
    gray = np.empty((n, n_rays, n_s), np.float32)
    inner = np.zeros((n, 3), np.int64)
    dark_ball = np.zeros(n, np.bool_)
    ok = np.zeros((n, n_rays), np.bool_)
    valley = np.zeros((n, n_rays), np.bool_)
    valley_ok = np.ones((n, n_rays), np.bool_)
    if toward.shape[0] == n:
        for b in range(n):
            for k in range(n_rays):
                valley_ok[b, k] = toward[b, 0] * dirs[k, 0] + toward[b, 1] * dirs[k, 1] < 0.3
    pos_idx = np.empty((n, n_rays))
    v_pos = np.empty((n, n_rays))
    full = np.zeros(n, np.bool_)
    ptx = np.empty(n_rays)
    pty = np.empty(n_rays)
    both = np.empty(n_rays, np.bool_)
    scratch = np.empty((5, n_rays))
    px_ = np.empty(n)
    py_ = np.empty(n)
    offx = np.empty(n_rays * n_s)
    offy = np.empty(n_rays * n_s)
    for k in range(n_rays):
        for j in range(n_s):
            offx[k * n_s + j] = dirs[k, 0] * rho[j]
            offy[k * n_s + j] = dirs[k, 1] * rho[j]
    buf = np.empty((10, n_rays * n_s), np.float32)
    corners = np.empty((3, n_rays * n_s), np.int64)
    pix = np.empty((3, n_rays * n_s), np.uint64)
    d_rho = rho[1] - rho[0]
    thr_drop = np.float32(0.6)
    thr_in = np.float32(0.8)
    ends = np.empty(n_rays, np.float32)
    for _ in range(iterations):
        inner[:] = 0
        # Samples, score and grey of every ray (loops over one ball's samples at a time, which vectorise).
        for b in range(n):
            _ball_scores(
                frame, cx[b], cy[b], radii[b], offx, offy, mat, dark_counts[b], dark_gain, dark_below, buf, corners, pix
            )
            sc_b = buf[8].reshape(n_rays, n_s)
            gr_b = buf[9].reshape(n_rays, n_s)
            score[b] = sc_b
            gray[b] = gr_b
            n_dark = 0
            for k in range(n_rays):
                for j in range(n_inner):
                    q = k * n_s + j
                    inner[b, 0] += int(buf[0, q])
                    inner[b, 1] += int(buf[1, q])
                    inner[b, 2] += int(buf[2, q])
                    if buf[5, q] < dark_below:
                        n_dark += 1
            dark_ball[b] = dark_counts[b] and 2 * n_dark >= n_rays * n_inner
        # The steepest fall of each ray: a rim point against cloth.
        for b in range(n):
            thr_out = _beyond_threshold(score[b], ends, thr_drop)
            count = 0
            sum_x = 0.0
            sum_y = 0.0
            for k in range(n_rays):
                sr = score[b, k]
                best = 0
                best_v = sr[0] - sr[2]
                for j in range(1, n_s - 2):
                    dv = sr[j] - sr[j + 2]
                    if dv > best_v:
                        best_v = dv
                        best = j
                idx = min(max(best, 1), n_s - 4)
                d0 = np.float32(sr[idx - 1] - sr[idx + 1])
                d1 = np.float32(sr[idx] - sr[idx + 2])
                d2 = np.float32(sr[idx + 1] - sr[idx + 3])
                pos_idx[b, k] = idx + 1 + np.float64(_sub_sample(d0, d1, d2))
                io0 = sr[idx - 1]
                io1 = sr[min(idx + 4, n_s - 1)]
                good = d1 > thr_drop and io1 < thr_out and io0 > thr_in
                ok[b, k] = good
                if good:
                    count += 1
                    sum_x += dirs[k, 0]
                    sum_y += dirs[k, 1]
            frac[b] = count / n_rays
            full[b] = count >= 16 and math.hypot(sum_x, sum_y) < 0.25 * max(count, 1)
        # Full rims: fitted at the calibration's radius, and their observed radius sets the ratio.
        r_obs = np.empty(n)
        n_full = 0
        for b in range(n):
            px_[b] = cx[b]
            py_[b] = cy[b]
            if not full[b]:
                continue
            _rim_points(cx[b], cy[b], rho[0] * radii[b], d_rho * radii[b], pos_idx[b], dirs, ptx, pty)
            fx, fy = _fit_one(ptx, pty, ok[b], radii[b], cx[b], cy[b], scratch)
            # Fitted again at the radius a round rim shows: a circle of the wrong radius through a rim with rays
            # missing on one side (towards a ball close by, whose narrow gap hides the rim) is pushed off that
            # side. (Not a blurred ball's long rim: its fit at the expected radius stays in the middle.)
            own = _mean_radius(ptx, pty, ok[b], fx, fy)
            if abs(own - radii[b]) < OWN_RADIUS_TOL * radii[b]:
                fx, fy = _fit_one(ptx, pty, ok[b], own, fx, fy, scratch)
            px_[b] = fx
            py_[b] = fy
            r_obs[n_full] = _mean_radius(ptx, pty, ok[b], fx, fy) / radii[b]
            n_full += 1
        if n_full and rim_ratio <= 0.0:
            ratio = min(max(_median_sorted(r_obs[:n_full]), 0.8), 1.4)
        # Valleys of brightness one radius out: rim points against a frozen neighbour.
        for b in range(n):
            count = 0
            sum_x = 0.0
            sum_y = 0.0
            for k in range(n_rays):
                gr = gray[b, k]
                v = lo
                for j in range(lo + 1, hi):
                    if gr[j] < gr[v]:
                        v = j
                val = (
                    gr[v] < np.float32(thr_in * min(gr[i_in], gr[i_out]))
                    and score[b, k, i_out] > thr_in
                    and not ok[b, k]
                    and valley_ok[b, k]
                )
                valley[b, k] = val
                v_pos[b, k] = v + np.float64(_sub_sample(gr[v - 1], gr[v], gr[v + 1]))
                if val or ok[b, k]:
                    count += 1
                    sum_x += dirs[k, 0]
                    sum_y += dirs[k, 1]
            support[b] = count / n_rays
            partial = count >= 8 and math.hypot(sum_x, sum_y) < 0.8 * max(count, 1) and not full[b]
            if partial:
                step = d_rho * radii[b]
                r0 = rho[0] * radii[b]
                for k in range(n_rays):
                    rim = r0 + pos_idx[b, k] * step
                    rr = rim if ok[b, k] else valley_scale * (r0 + v_pos[b, k] * (step * ratio))
                    ptx[k] = cx[b] + rr * dirs[k, 0]
                    pty[k] = cy[b] + rr * dirs[k, 1]
                for k in range(n_rays):
                    both[k] = ok[b, k] or valley[b, k]
                fx, fy = _fit_one(ptx, pty, both, ratio * radii[b], cx[b], cy[b], scratch)
                px_[b] = fx
                py_[b] = fy
            elif dark_ball[b] and not full[b]:
                # A dark ball (half its inner samples under 1.6 times the cloth's shadow level) with too few rim
                # points for a least-squares fit, its shaded side fading into its shadow: the circle most of them
                # agree on, where they lie around it (not on one side). Not a light or striped ball: where only part
                # of its rim is found, the points that agree may lie on a stripe's edge, a circle of another size
                # and centre that the vote's free radius would follow.
                _rim_points(cx[b], cy[b], rho[0] * radii[b], d_rho * radii[b], pos_idx[b], dirs, ptx, pty)
                n_on, vx, vy, vr = _vote_circle(ptx, pty, ok[b], ratio * radii[b], sx[b], sy[b], both)
                if n_on >= VOTE_MIN:
                    ax = 0.0
                    ay = 0.0
                    for k in range(n_rays):
                        if both[k]:
                            ax += dirs[k, 0]
                            ay += dirs[k, 1]
                    if math.hypot(ax, ay) < 0.8 * n_on:
                        fx, fy = _fit_one(ptx, pty, both, vr, vx, vy, scratch)
                        px_[b] = fx
                        py_[b] = fy
        for b in range(n):
            if math.hypot(px_[b] - sx[b], py_[b] - sy[b]) > 0.6 * radii[b]:
                px_[b] = sx[b]
                py_[b] = sy[b]
            cx[b] = px_[b]
            cy[b] = py_[b]
    out = np.empty((n, 2))
    out[:, 0] = cx
    out[:, 1] = cy
    colour = inner.astype(np.float64) / (n_rays * n_inner)
    return out, frac, ratio, support, colour
