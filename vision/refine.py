"""Sub-pixel ball centres in the recorded frame: edge points along rays, then a robust circle fit.

Around each coarse centre, ``n_rays`` rays are sampled (bilinear, one ``cv2.remap`` for all balls) from
half a radius inside to half a radius outside the expected rim. Along each ray a "not cloth" score falls
from ball to cloth at the rim; the steepest fall, located to a fraction of a pixel, is an edge point. Rays
that run into a neighbouring ball, an arm or a pocket see no fall to cloth and are dropped. The centre is
the least-squares fit of a circle of the expected radius to the edge points (Gauss-Newton with
outlier trimming), or the coarse centre where too few rays, or rays on one side only, found an edge.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cloth import ClothModel


@dataclass(frozen=True)
class RefineResult:
    px: np.ndarray  # (N, 2) refined centres
    edge_fraction: np.ndarray  # (N,) share of rays that found a rim against cloth
    radius: np.ndarray  # (N,) rim radius as this frame shows it
    support: np.ndarray  # (N,) share of rays that found the rim, against cloth or a frozen neighbour
    colour: np.ndarray  # (N, 3) mean BGR of the inner disc


@dataclass(frozen=True)
class _Rays:
    """Constants of a ray pattern: directions, sample radii and the sample indices the refinement reads."""

    dirs: np.ndarray  # (R, 2) unit directions
    rho: np.ndarray  # (S,) sample radii in ball radii
    rdx: np.ndarray  # (R, S) x offsets of the samples per unit radius
    rdy: np.ndarray  # (R, S) y offsets
    lo: int  # valley search from sample lo ...
    hi: int  # ... to hi (exclusive)
    i_in: int  # sample inside the rim (0.6 radius)
    i_out: int  # sample beyond the rim (1.4 radius)
    inner: np.ndarray  # (S,) bool: samples within 0.75 radius (appearance)
    n_inner: int  # ... the first this many
    rdxy: np.ndarray  # (R, S, 2): rdx and rdy side by side


@functools.lru_cache(maxsize=8)
def _rays(n_rays: int, n_samples: int) -> _Rays:
    ang = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    dirs = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    rho = np.linspace(0.5, 1.5, n_samples)
    return _Rays(
        dirs, rho, dirs[:, 0:1] * rho[None, :], dirs[:, 1:2] * rho[None, :],
        int(np.searchsorted(rho, 0.75)), int(np.searchsorted(rho, 1.25)), int(np.searchsorted(rho, 0.6)),
        int(np.searchsorted(rho, 1.4)), rho <= 0.75, int((rho <= 0.75).sum()),
        np.stack([dirs[:, 0:1] * rho[None, :], dirs[:, 1:2] * rho[None, :]], axis=2),
    )  # fmt: skip


def _score_matrix(cloth: ClothModel) -> tuple[np.ndarray, ...]:
    """The rows (1 x 4 each, with offsets) of the ``cv2.transform`` matrix taking BGR samples to
    ((k - 1) / (bright_k - 1), the two chroma components over the chroma threshold, mean of B, G, R): the
    ballness terms (see ``ClothModel``) and the brightness the valley search reads (cached per colour)."""
    key = (cloth.basis().tobytes(), cloth.chroma_threshold(), cloth.bright_k)
    cached = cloth.__dict__.get("_refine_matrix")
    if cached is not None and cached[0] == key:
        out: tuple[np.ndarray, ...] = cached[1]
        return out
    basis = cloth.basis()
    kb = cloth.bright_k - 1.0
    m = np.zeros((4, 4), np.float64)
    m[0, :3], m[0, 3] = basis[0] / kb, -1.0 / kb
    m[1:3, :3] = basis[1:] / cloth.chroma_threshold()
    m[3, :3] = 1.0 / 3.0
    rows = tuple(m[i : i + 1].astype(np.float32) for i in range(4))
    cloth.__dict__["_refine_matrix"] = (key, rows)
    return rows


def _sub_sample(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Offset (-1..1) of the extremum of a parabola through three equally spaced values."""
    den = a - 2 * b + c
    flat = np.abs(den) <= 1e-6
    return _clamp(0.5 * (a - c) / np.where(flat, 1.0, den) * ~flat, -1.0, 1.0)


def refine_centres(
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
    centres = np.array(centres, dtype=np.float64).reshape(-1, 2)
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    n = len(centres)
    if n == 0:
        return RefineResult(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, 3)))
    rays = _rays(n_rays, n_samples)
    dirs, rho, S = rays.dirs, rays.rho, n_samples
    frac = np.zeros(n)
    support = np.zeros(n)
    dark_counts = np.ones(n, bool) if dark_counts is None else np.asarray(dark_counts, bool)
    m = _score_matrix(cloth)
    kb = cloth.bright_k - 1.0
    dark_gain = kb / (1.0 - cloth.dark_k)  # (1 - k) / (1 - dark_k) in units of the first score channel
    dark_below = (cloth.dark_k * 1.6 - 1.0) / kb  # k < 1.6 dark_k, likewise
    no_valley = None if toward_camera is None else (np.asarray(toward_camera) @ dirs.T) >= 0.3
    start = centres.copy()
    ratio = 1.0
    flat = np.arange(n * n_rays) * S  # first sample of each ray in the flattened (n * R * S) arrays
    rr = radii[:, None, None]
    step = (rho[1] - rho[0]) * radii[:, None]
    r0 = rho[0] * radii[:, None]
    for _ in range(iterations):
        # One two-channel map (x, y) of every sample of every ray of every ball.
        mxy = (centres[:, None, None, :] + rr[..., None] * rays.rdxy).astype(np.float32).reshape(n * n_rays, S, 2)
        samp = cv2.remap(frame_bgr, mxy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)  # type: ignore[call-overload]
        f = samp.astype(np.float32)
        # One single-row transform per term: contiguous (n, R, S) planes.
        kk, e1, e2, gray = (cv2.transform(f, row).reshape(n, n_rays, S) for row in m)
        score = np.maximum(cv2.magnitude(e1, e2), kk)
        if dark_counts.any():
            dark = kk * np.float32(-dark_gain)
            dark *= (kk < dark_below) & dark_counts[:, None, None]
            np.maximum(score, dark, out=score)
        np.minimum(score, np.float32(2.0), out=score)
        drop = score[:, :, :-2] - score[:, :, 2:]  # central difference of the fall, outward
        idx = _clamp(np.argmax(drop, axis=2), 1, S - 4).reshape(-1)
        dflat = drop.reshape(-1)
        at = np.arange(n * n_rays) * (S - 2) + idx
        d0, d1, d2 = dflat[at - 1], dflat[at], dflat[at + 1]
        pos_idx = idx + 1 + _sub_sample(d0, d1, d2)  # drop[i] centres on sample i + 1
        sflat = score.reshape(-1)
        inside = sflat[flat + idx - 1]
        outside = sflat[flat + np.minimum(idx + 4, S - 1)]
        ok = ((d1 > 0.6) & (outside < 0.6) & (inside > 0.8)).reshape(n, n_rays)
        r_edge = r0 + pos_idx.reshape(n, n_rays) * step
        pts = centres[:, None, :] + r_edge[..., None] * dirs[None, :, :]
        count = ok.sum(axis=1)
        frac = count / n_rays
        # The rim points must surround the centre, not lie on one side (a half-hidden ball).
        spread = np.hypot(*(ok @ dirs).T) / np.maximum(count, 1)
        full = (count >= 16) & (spread < 0.25)
        new = centres.copy()
        if full.any():
            okf = ok[full]
            new[full] = _fit_centres(pts[full], okf, radii[full], centres[full])
            # The rim as this frame shows it (blur, shading) against the radius the calibration predicts:
            # fits on part of the rim (a ball by a pocket's hole or half under an arm) need it right.
            r_obs = _norm(pts[full] - new[full][:, None, :], axis=2)
            r_obs = (r_obs * okf).sum(axis=1) / okf.sum(axis=1) / radii[full]
            ratio = float(np.clip(_median_rows(r_obs[None, :])[0], 0.8, 1.4))
        # Where a ray runs into a frozen neighbour instead of cloth, the contact shows as a valley of
        # brightness (both balls' limbs are darker than their middles) one radius out: a rim point too. Its
        # darkest point may lie a little inside the outline ``ratio`` measures against cloth: ``valley_scale``
        # (the classical detector uses 0.94, measured on the rendered benchmark suite: p95 3.0 -> 2.0 mm).
        v = rays.lo + np.argmin(gray[:, :, rays.lo : rays.hi], axis=2).reshape(-1)
        gflat = gray.reshape(-1)
        g0, g1, g2 = gflat[flat + v - 1], gflat[flat + v], gflat[flat + v + 1]
        g_in = gray[:, :, rays.i_in].reshape(-1)
        g_out = gray[:, :, rays.i_out].reshape(-1)
        beyond = score[:, :, rays.i_out].reshape(-1)
        valley = (~ok) & ((g1 < 0.8 * np.minimum(g_in, g_out)) & (beyond > 0.8)).reshape(n, n_rays)
        if no_valley is not None:
            # In an oblique view a nearer ball hides the rim on the camera's side: no valleys there.
            valley &= ~no_valley
        r_valley = valley_scale * (r0 + (v + _sub_sample(g0, g1, g2)).reshape(n, n_rays) * step * ratio)
        both = ok | valley
        count = both.sum(axis=1)
        support = count / n_rays
        spread = np.hypot(*(both @ dirs).T) / np.maximum(count, 1)
        partial = (count >= 8) & (spread < 0.8) & ~full
        if partial.any():
            pts_all = np.where(ok[..., None], pts, centres[:, None, :] + r_valley[..., None] * dirs[None, :, :])
            new[partial] = _fit_centres(pts_all[partial], both[partial], ratio * radii[partial], centres[partial])
        moved = np.hypot(*(new - start).T)
        far = moved > 0.6 * radii
        new[far] = start[far]
        centres = new
    # Appearance: the inner part of the rays (half to three quarters of the radius).
    inner = samp.reshape(n, n_rays * S, 3) if rays.n_inner == S else samp.reshape(n, n_rays, S, 3)[:, :, : rays.n_inner]
    colour = inner.reshape(n, -1, 3).mean(axis=1, dtype=np.float64)
    return RefineResult(centres, frac, ratio * radii, support, colour)


def _fit_centres(pts: np.ndarray, ok: np.ndarray, radius: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """Least-squares centres of circles of known radius through rim points ``pts`` (B, R, 2) where ``ok``
    (B, R), all balls at once (Gauss-Newton on the 2 x 2 normal equations), trimming outliers once.

    Points and centres are complex numbers: with unit Jacobian rows j = (p - c) / |p - c|, the normal
    matrix [[a, b], [b, d]] is ((W + Re S) / 2, Im S / 2, (W - Re S) / 2) with W = sum w, S = sum w j^2,
    and the gradient gx + i gy = sum w res j."""
    p = pts[..., 0] + 1j * pts[..., 1]
    c = guess[:, 0] + 1j * guess[:, 1]
    w = ok.astype(np.float64)
    r = radius[:, None]
    tw = w.sum(axis=1)
    for it in range(4):
        v = p - c[:, None]
        dist = np.maximum(np.abs(v), 1e-9)
        res = dist - r
        if it == 2:
            # The median absolute residual of balls whose every ray found the rim; 0 for the others.
            mad = np.where(ok.all(axis=1), _median_rows(np.abs(res)), 0.0) + 0.15
            trimmed = ok & (np.abs(res) < 3.0 * mad[:, None])
            w = np.where(trimmed.sum(axis=1, keepdims=True) >= 6, trimmed, ok).astype(np.float64)
            tw = w.sum(axis=1)
        u = v / dist
        wj = w * u  # minus d(res)/d(centre), weighted: signs cancel in the step below
        ss = (wj * u).sum(axis=1)
        g = (wj * res).sum(axis=1)
        # The 2 x 2 solve in complex form: tw s + S conj(s) = 2 g, so s = 2 (tw g - S conj(g)) / (tw^2 - |S|^2).
        den = tw * tw - (ss.real * ss.real + ss.imag * ss.imag)
        good = np.abs(den) > 4e-9
        c = c + (tw * g - ss * g.conj()) * np.where(good, 2.0 / np.where(good, den, 1.0), 0.0)
    return np.column_stack([c.real, c.imag])


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


def _norm(a: np.ndarray, axis: int, keepdims: bool = False) -> np.ndarray:
    """``np.linalg.norm(a, axis=axis)`` of a real array (the same values: root of the summed squares)."""
    out: np.ndarray = np.sqrt(np.add.reduce(a * a, axis=axis, keepdims=keepdims))
    return out
