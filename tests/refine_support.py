"""``vision.refine.refine_centres`` in numpy and OpenCV array operations: the reference its compiled kernel
(``vision.refine_kernels``) follows step for step, for the tests that compare the two."""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from vision.cloth import ClothModel
from vision.refine import RefineResult, _rays, _score_matrix
from vision.refine_kernels import BEYOND_MARGIN, BEYOND_MAX, OWN_RADIUS_TOL, VOTE_MIN, VOTE_RADIUS, VOTE_TOL

_PARABOLA = np.array([[1.0, 0.5], [-2.0, 0.0], [1.0, -0.5]], np.float32)  # three values -> (curvature, slope)


def _sub_sample(v: np.ndarray) -> np.ndarray:
    """Offset (-1..1) of the extremum of a parabola through rows of three equally spaced values (K, 3)."""
    ds = v @ _PARABOLA
    den, slope = ds[:, 0], ds[:, 1]
    off = np.divide(slope, den, out=np.zeros_like(den), where=np.abs(den) > 1e-6)
    return _clamp(off, -1.0, 1.0)


def refine_centres_numpy(
    frame_bgr: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    cloth: ClothModel,
    dark_counts: np.ndarray | None = None,
    toward_camera: np.ndarray | None = None,
    n_rays: int = 24,
    n_samples: int = 20,
    iterations: int = 2,
    valley_scale: float = 1.0,
) -> RefineResult:
    """``refine_centres`` in numpy and OpenCV array operations: the reference the compiled kernel
    (``vision.refine_kernels``) follows step for step, kept for the tests that compare the two."""
    centres = np.array(centres, dtype=np.float64).reshape(-1, 2)
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    n = len(centres)
    if n == 0:
        return RefineResult(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, 3)))
    rays = _rays(n_rays, n_samples)
    dirs, dirs_c, rho, S, nr = rays.dirs, rays.dirs_c, rays.rho, n_samples, n * n_rays
    frac = np.zeros(n)
    support = np.zeros(n)
    dark_counts = np.ones(n, bool) if dark_counts is None else np.asarray(dark_counts, bool)
    m = _score_matrix(cloth)
    kb = cloth.bright_k - 1.0
    dark_gain = np.float32(-kb / (1.0 - cloth.dark_k))  # -(1 - k) / (1 - dark_k) in units of the first score channel
    dark_below = (cloth.dark_k * 1.6 - 1.0) / kb  # k < 1.6 dark_k, likewise
    any_dark = bool(dark_counts.any())
    no_valley = None if toward_camera is None else (np.asarray(toward_camera) @ dirs.T) >= 0.3
    c = centres[:, 0] + 1j * centres[:, 1]  # centres as complex numbers x + iy
    start = c
    ratio = 1.0
    ray0 = np.arange(nr) * S  # first sample of each ray in the flattened (n * R * S) arrays
    ray3 = ray0[:, None] + np.arange(-1, 2)  # ... and the samples before and after it
    drop3 = ray3 - 2 * np.arange(nr)[:, None]  # the same in the central differences (rows of S - 2)
    in_out = np.array([-1, 4])  # the samples inside and beyond a rim point
    rc = radii[:, None]
    step = (rho[1] - rho[0]) * rc
    r0 = rho[0] * rc
    off_x, off_y = rc * rays.rdx, rc * rays.rdy
    dark_sel = None if dark_counts.all() else np.repeat(dark_counts, n_rays)[:, None]
    valley_ok = None if no_valley is None else ~no_valley
    far_px = 0.6 * radii
    for _ in range(iterations):
        # The x and y maps of every sample of every ray of every ball (n * R rows of S samples).
        mx = (c.real[:, None] + off_x).astype(np.float32).reshape(nr, S)
        my = (c.imag[:, None] + off_y).astype(np.float32).reshape(nr, S)
        samp = cv2.remap(frame_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        f = samp.astype(np.float32)
        # One single-row transform per term: contiguous (n * R, S) planes.
        kk, e1, e2, gray = (cv2.transform(f, row) for row in m)
        score = np.maximum(cv2.magnitude(e1, e2), kk)
        if any_dark:
            dark = kk * dark_gain
            dark *= kk < dark_below if dark_sel is None else (kk < dark_below) & dark_sel
            np.maximum(score, dark, out=score)
        np.minimum(score, np.float32(2.0), out=score)
        drop = score[:, :-2] - score[:, 2:]  # central difference of the fall, outward
        idx = _clamp(np.argmax(drop, axis=1), 1, S - 4)
        col = idx[:, None]
        d3 = drop.reshape(-1).take(drop3 + col)
        pos_idx = idx + 1 + _sub_sample(d3)  # drop[i] centres on sample i + 1
        io = score.reshape(-1).take(ray0[:, None] + np.minimum(col + in_out, S - 1))
        ok = ((d3[:, 1] > 0.6) & (io[:, 1] < np.repeat(_beyond(score, n, n_rays), n_rays)) & (io[:, 0] > 0.8)).reshape(
            n, n_rays
        )
        pts = c[:, None] + (r0 + pos_idx.reshape(n, n_rays) * step) * dirs_c
        count = ok.sum(axis=1)
        frac = count / n_rays
        # The rim points must surround the centre, not lie on one side (a half-hidden ball).
        full = (count >= 16) & (np.abs(ok @ dirs_c) < 0.25 * np.maximum(count, 1))
        new = c.copy()
        if full.any():
            every = bool(full.all())
            pf, okf, rf = (pts, ok, radii) if every else (pts[full], ok[full], radii[full])
            cf = _fit_centres(pf, okf, rf, new if every else new[full])
            # ... and again at the radius a round rim shows (rays missing on one side push a wrong radius's fit
            # off that side), not a blurred one's
            own = _mean_radius(pf, okf, cf)
            refit = np.abs(own - rf) < OWN_RADIUS_TOL * rf
            if refit.any():
                cf[refit] = _fit_centres(pf[refit], okf[refit], own[refit], cf[refit])
            new[full] = cf
            # The rim as this frame shows it (blur, shading) against the radius the calibration predicts:
            # fits on part of the rim (a ball by a pocket's hole or half under an arm) need it right.
            r_obs = sorted((_mean_radius(pf, okf, cf) / rf).tolist())
            half = len(r_obs) // 2
            med = r_obs[half] if len(r_obs) % 2 else (r_obs[half - 1] + r_obs[half]) * 0.5
            ratio = min(max(med, 0.8), 1.4)
        # Where a ray runs into a frozen neighbour instead of cloth, the contact shows as a valley of
        # brightness (both balls' limbs are darker than their middles) one radius out: a rim point too. Its
        # darkest point may lie a little inside the outline ``ratio`` measures against cloth: ``valley_scale``
        # (the classical detector uses 0.94, measured on the rendered benchmark suite: p95 3.0 -> 2.0 mm).
        v = rays.lo + np.argmin(gray[:, rays.lo : rays.hi], axis=1)
        g3 = gray.reshape(-1).take(ray3 + v[:, None])
        valley = (g3[:, 1] < 0.8 * np.minimum(gray[:, rays.i_in], gray[:, rays.i_out])) & (score[:, rays.i_out] > 0.8)
        valley = valley.reshape(n, n_rays) & ~ok
        if valley_ok is not None:
            # In an oblique view a nearer ball hides the rim on the camera's side: no valleys there.
            valley &= valley_ok
        both = ok | valley
        count = both.sum(axis=1)
        support = count / n_rays
        partial = (count >= 8) & (np.abs(both @ dirs_c) < 0.8 * np.maximum(count, 1)) & ~full
        if partial.any():
            r_valley = valley_scale * (r0 + (v + _sub_sample(g3)).reshape(n, n_rays) * (step * ratio))
            pts_all = np.where(ok, pts, c[:, None] + r_valley * dirs_c)
            new[partial] = _fit_centres(pts_all[partial], both[partial], ratio * radii[partial], c[partial])
        # A dark ball (half its inner samples darker than the cloth's shadows) with too few rim points for a
        # least-squares fit, its shaded side fading into its shadow: the circle most of them agree on (a shadow's
        # or a lit top's edge adds points off it), where they lie around it.
        inner_dark = (kk[:, : rays.n_inner] < dark_below).reshape(n, -1).mean(axis=1) >= 0.5
        for b in np.flatnonzero(~full & ~partial & inner_dark & dark_counts):
            on, centre, r_on = _vote_circle(pts[b], ok[b], ratio * radii[b], start[b])
            if on.sum() >= VOTE_MIN and abs(on @ dirs_c) < 0.8 * on.sum():
                new[b] = _fit_centres(pts[b][None], on[None], np.array([r_on]), np.array([centre]))[0]
        far = np.abs(new - start) > far_px
        new[far] = start[far]
        c = new
    # Appearance: the inner part of the rays (half to three quarters of the radius), whole-number sums
    # (exact in float32).
    inner = f.reshape(n, n_rays, S * 3)[:, :, : rays.n_inner * 3].sum(axis=1)
    colour = inner.reshape(n, rays.n_inner, 3).sum(axis=1, dtype=np.float64) / (n_rays * rays.n_inner)
    return RefineResult(np.column_stack([c.real, c.imag]), frac, ratio * radii, support, colour, float(ratio))


def _vote_circle(p: np.ndarray, ok: np.ndarray, radius: float, start: complex) -> tuple[np.ndarray, complex, float]:
    """The circle through three of the rim points ``p`` (complex, R) where ``ok`` that the most of them lie on
    (within ``VOTE_TOL`` radius; ties: the smaller summed distance, then the first triple), its radius within
    ``VOTE_RADIUS`` of ``radius``, its centre within 0.6 radius of ``start``: the points on it (R, bool; none
    where no circle qualifies), its centre and its radius."""
    q = p[ok]
    tri = np.array(list(itertools.combinations(range(len(q)), 3)), np.int64).reshape(-1, 3)
    z1, z2, z3 = (q[tri[:, i]] for i in range(3))
    x1, y1, x2, y2, x3, y3 = z1.real, z1.imag, z2.real, z2.imag, z3.real, z3.imag
    d = 2.0 * (x1 * (y2 - y3) + x2 * (y3 - y1) + x3 * (y1 - y2))
    s1, s2, s3 = x1 * x1 + y1 * y1, x2 * x2 + y2 * y2, x3 * x3 + y3 * y3
    good = np.abs(d) >= 1e-9
    d = np.where(good, d, 1.0)
    c = (
        (s1 * (y2 - y3) + s2 * (y3 - y1) + s3 * (y1 - y2)) + 1j * (s1 * (x3 - x2) + s2 * (x1 - x3) + s3 * (x2 - x1))
    ) / d
    r = np.abs(z1 - c)
    good &= (np.abs(c - start) <= 0.6 * radius) & (r >= VOTE_RADIUS[0] * radius) & (r <= VOTE_RADIUS[1] * radius)
    tol = VOTE_TOL * radius
    err = np.abs(np.abs(q[None, :] - c[:, None]) - r[:, None])
    near = err < tol
    cnt = np.where(good, near.sum(axis=1), 0)
    res = (err * near).sum(axis=1)
    on = np.zeros(len(p), bool)
    if not len(cnt) or cnt.max() == 0:
        return on, start, radius
    best = np.flatnonzero(cnt == cnt.max())
    k = best[np.argmin(res[best])]
    on[np.flatnonzero(ok)] = near[k]
    return on, complex(c[k]), float(r[k])


def _beyond(score: np.ndarray, n: int, n_rays: int) -> np.ndarray:
    """Per ball, the most a rim point's cloth beyond it may score: 0.6, or the median of the ray ends that score
    as cloth (under ``BEYOND_MAX``, two thirds of them or more) plus ``BEYOND_MARGIN``, at most ``BEYOND_MAX``."""
    ends = score[:, -1].reshape(n, n_rays)
    out = np.full(n, np.float32(0.6), np.float32)
    for b in range(n):
        cloth = ends[b][ends[b] < np.float32(BEYOND_MAX)]
        if 3 * len(cloth) >= 2 * n_rays:
            level = np.float32(np.median(cloth)) + np.float32(BEYOND_MARGIN)
            out[b] = min(max(level, np.float32(0.6)), np.float32(BEYOND_MAX))
    return out


def _mean_radius(p: np.ndarray, ok: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Each ball's mean distance of its rim points ``p`` (complex, N x R) where ``ok`` from its centre ``c``."""
    return (np.abs(p - c[:, None]) * ok).sum(axis=1) / ok.sum(axis=1)


def _fit_centres(p: np.ndarray, ok: np.ndarray, radius: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """Least-squares centres (complex x + iy) of circles of known radius through rim points ``p`` (B, R,
    complex) where ``ok`` (B, R), all balls at once (Gauss-Newton on the 2 x 2 normal equations), trimming
    outliers once. ``guess``: the starting centres (B, complex).

    With unit Jacobian rows j = (p - c) / |p - c| as complex numbers, the normal matrix [[a, b], [b, d]]
    is ((W + Re S) / 2, Im S / 2, (W - Re S) / 2) with W = sum w, S = sum w j^2, and the gradient
    gx + i gy = sum w res j. So the step s solves W s + S conj(s) = 2 g: s = 2 (W g - S conj(g)) / (W^2 -
    |S|^2), where W^2 - |S|^2 >= 0 (Cauchy-Schwarz) is 0 only for points on one line through the centre,
    and then so is W g - S conj(g)."""
    c = guess
    w = ok.astype(np.float64)
    r = radius[:, None]
    tw = w.sum(axis=1)
    for it in range(4):
        v = p - c[:, None]
        dist = np.abs(v)
        np.maximum(dist, 1e-9, out=dist)
        res = dist - r
        if it == 2:
            # The median absolute residual of balls whose every ray found the rim; 0 for the others.
            ares = np.abs(res)
            mad = np.where(ok.all(axis=1), _median_rows(ares), 0.0) + 0.15
            trimmed = ok & (ares < 3.0 * mad[:, None])
            w = np.where(trimmed.sum(axis=1, keepdims=True) >= 6, trimmed, ok).astype(np.float64)
            tw = w.sum(axis=1)
        u = v / dist
        wj = w * u  # minus d(res)/d(centre), weighted: signs cancel in the step
        ss = (wj * u).sum(axis=1)
        g = (wj * res).sum(axis=1)
        den = np.abs(ss)
        den *= den
        np.subtract(tw * tw, den, out=den)
        np.maximum(den, 4e-9, out=den)  # where it is 0, so is the numerator: no step
        c = c + (tw * g - ss * g.conj()) * (2.0 / den)
    return c


def _median_rows(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=1)`` of a 2-D array, by one sort (cheaper on the small arrays here)."""
    k = a.shape[1]
    srt = np.sort(a, axis=1)
    if k % 2:
        return srt[:, k // 2]
    return (srt[:, k // 2 - 1] + srt[:, k // 2]) * 0.5


def _clamp(a: np.ndarray, lo: object, hi: object) -> np.ndarray:
    """``np.clip`` (the same values) without its wrapper's cost on small arrays."""
    return np.minimum(np.maximum(a, lo), hi)  # type: ignore[call-overload]
