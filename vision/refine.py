"""Sub-pixel ball centres in the recorded frame: edge points along rays, then a robust circle fit.

Around each coarse centre, ``n_rays`` rays are sampled (bilinear, one ``cv2.remap`` for all balls) from
half a radius inside to half a radius outside the expected rim. Along each ray a "not cloth" score falls
from ball to cloth at the rim; the steepest fall, located to a fraction of a pixel, is an edge point. Rays
that run into a neighbouring ball, an arm or a pocket see no fall to cloth and are dropped. The centre is
the least-squares fit of a circle of the expected radius to the edge points (Gauss-Newton with
outlier trimming), or the coarse centre where too few rays, or rays on one side only, found an edge.
"""

from __future__ import annotations

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


def _describe(cloth: ClothModel, samp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, chroma, mean of B, G, R) of a BGR sample image, by one ``cv2.transform`` (see ``ClothModel``)."""
    m = np.vstack([cloth.basis(), np.full((1, 3), 1.0 / 3.0)]).astype(np.float32)
    t = cv2.transform(samp.astype(np.float32), m)
    return t[..., 0], np.hypot(t[..., 1], t[..., 2]), t[..., 3]


def _ballness(cloth: ClothModel, k: np.ndarray, chroma: np.ndarray, dark_counts: np.ndarray) -> np.ndarray:
    """0 on cloth (shadows included), rising to 1 and beyond on anything that is not cloth, from the
    pixels' (k, chroma). Very dark pixels count as not-cloth (a black ball) only for the balls (first
    axis) where ``dark_counts``."""
    thr = cloth.chroma_threshold()
    s = np.maximum(chroma / thr, (k - 1.0) / (cloth.bright_k - 1.0))
    dark = (1.0 - k) / (1.0 - cloth.dark_k) * (k < cloth.dark_k * 1.6)
    dark = dark * dark_counts.reshape((-1,) + (1,) * (dark.ndim - 1))
    return np.maximum(s, dark).astype(np.float32)


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
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2).copy()
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    n = len(centres)
    if n == 0:
        return RefineResult(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, 3)))
    ang = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    dirs = np.stack([np.cos(ang), np.sin(ang)], axis=1)  # (R, 2)
    rho = np.linspace(0.5, 1.5, n_samples)  # in radii
    frac = np.zeros(n)
    support = np.zeros(n)
    dark_counts = np.ones(n, bool) if dark_counts is None else np.asarray(dark_counts, bool)
    start = centres.copy()
    ratio = 1.0
    for _ in range(iterations):
        # (n, R, S, 2) sample positions
        d = rho[None, None, :, None] * radii[:, None, None, None] * dirs[None, :, None, :]
        pos = centres[:, None, None, :] + d
        mx = pos[..., 0].reshape(n * n_rays, n_samples).astype(np.float32)
        my = pos[..., 1].reshape(n * n_rays, n_samples).astype(np.float32)
        samp = cv2.remap(frame_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        k, chroma, gray = (a.reshape(n, n_rays, n_samples) for a in _describe(cloth, samp))
        score = _ballness(cloth, k, chroma, dark_counts)
        score = np.minimum(score, 2.0)
        drop = score[:, :, :-2] - score[:, :, 2:]  # central difference of the fall, outward
        idx = np.argmax(drop, axis=2)
        idx = np.clip(idx, 1, n_samples - 4)
        ii = np.arange(n)[:, None]
        jj = np.arange(n_rays)[None, :]
        d0 = drop[ii, jj, idx - 1]
        d1 = drop[ii, jj, idx]
        d2 = drop[ii, jj, idx + 1]
        den = d0 - 2 * d1 + d2
        off = np.where(np.abs(den) > 1e-6, 0.5 * (d0 - d2) / np.where(np.abs(den) > 1e-6, den, 1.0), 0.0)
        off = np.clip(off, -1.0, 1.0)
        pos_idx = idx + 1 + off  # drop[i] centres on sample i + 1
        step = (rho[1] - rho[0]) * radii[:, None]
        r_edge = (rho[0] * radii[:, None]) + pos_idx * step
        inside = score[ii, jj, np.clip(idx - 1, 0, n_samples - 1)]
        outside = score[ii, jj, np.clip(idx + 4, 0, n_samples - 1)]
        ok = (d1 > 0.6) & (outside < 0.6) & (inside > 0.8)
        pts = centres[:, None, :] + r_edge[..., None] * dirs[None, :, :]
        frac = ok.mean(axis=1)
        # The rim points must surround the centre, not lie on one side (a half-hidden ball).
        spread = np.linalg.norm((ok[:, :, None] * dirs[None]).sum(axis=1), axis=1) / np.maximum(ok.sum(axis=1), 1)
        count = ok.sum(axis=1)
        full = (count >= 16) & (spread < 0.25)
        usable = (count >= 8) & (spread < 0.8)
        new = centres.copy()
        if full.any():
            new[full] = _fit_centres(pts[full], ok[full], radii[full], centres[full])
            # The rim as this frame shows it (blur, shading) against the radius the calibration predicts:
            # fits on part of the rim (a ball by a pocket's hole or half under an arm) need it right.
            r_obs = np.linalg.norm(pts[full] - new[full][:, None, :], axis=2)
            r_obs = (r_obs * ok[full]).sum(axis=1) / ok[full].sum(axis=1) / radii[full]
            ratio = float(np.clip(np.median(r_obs), 0.8, 1.4))
        # Where a ray runs into a frozen neighbour instead of cloth, the contact shows as a valley of
        # brightness (both balls' limbs are darker than their middles) one radius out: a rim point too. Its
        # darkest point may lie a little inside the outline ``ratio`` measures against cloth: ``valley_scale``
        # (the classical detector uses 0.94, measured on the rendered benchmark suite: p95 3.0 -> 2.0 mm).
        lo, hi = int(np.searchsorted(rho, 0.75)), int(np.searchsorted(rho, 1.25))
        v = lo + np.argmin(gray[:, :, lo:hi], axis=2)
        g0, g1, g2 = gray[ii, jj, v - 1], gray[ii, jj, v], gray[ii, jj, v + 1]
        g_in = gray[:, :, int(np.searchsorted(rho, 0.6))]
        g_out = gray[:, :, int(np.searchsorted(rho, 1.4))]
        beyond = score[:, :, int(np.searchsorted(rho, 1.4))]
        valley = ~ok & (g1 < 0.8 * np.minimum(g_in, g_out)) & (beyond > 0.8)
        if toward_camera is not None:
            # In an oblique view a nearer ball hides the rim on the camera's side: no valleys there.
            valley &= (toward_camera @ dirs.T) < 0.3
        vden = g0 - 2 * g1 + g2
        voff = np.clip(
            np.where(np.abs(vden) > 1e-6, 0.5 * (g0 - g2) / np.where(np.abs(vden) > 1e-6, vden, 1.0), 0.0), -1, 1
        )
        r_valley = valley_scale * ((rho[0] * radii[:, None]) + (v + voff) * step * ratio)
        both = ok | valley
        support = both.mean(axis=1)
        pts_all = np.where(ok[..., None], pts, centres[:, None, :] + r_valley[..., None] * dirs[None, :, :])
        count = both.sum(axis=1)
        spread = np.linalg.norm((both[:, :, None] * dirs[None]).sum(axis=1), axis=1) / np.maximum(count, 1)
        usable = (count >= 8) & (spread < 0.8)
        partial = usable & ~full
        if partial.any():
            new[partial] = _fit_centres(pts_all[partial], both[partial], ratio * radii[partial], centres[partial])
        moved = np.linalg.norm(new - start, axis=1)
        far = moved > 0.6 * radii
        new[far] = start[far]
        centres = new
    # Appearance: the inner part of the rays (half to three quarters of the radius).
    inner = samp.reshape(n, n_rays, n_samples, 3)[:, :, rho <= 0.75].reshape(n, -1, 3)
    colour = inner.mean(axis=1, dtype=np.float64)
    return RefineResult(centres, frac, ratio * radii, support, colour)


def _fit_centres(pts: np.ndarray, ok: np.ndarray, radius: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """Least-squares centres of circles of known radius through rim points ``pts`` (B, R, 2) where ``ok``
    (B, R), all balls at once (Gauss-Newton on the 2 x 2 normal equations), trimming outliers once."""
    px, py = pts[..., 0], pts[..., 1]
    cx, cy = guess[:, 0].astype(np.float64), guess[:, 1].astype(np.float64)
    w = ok.astype(np.float64)
    r = radius[:, None]
    for it in range(4):
        vx, vy = px - cx[:, None], py - cy[:, None]
        dist = np.maximum(np.sqrt(vx * vx + vy * vy), 1e-9)
        res = dist - r
        if it == 2:
            # The median absolute residual of balls whose every ray found the rim; 0 for the others.
            mad = np.where(ok.all(axis=1), np.median(np.abs(res), axis=1), 0.0) + 0.15
            trimmed = ok & (np.abs(res) < 3.0 * mad[:, None])
            w = np.where(trimmed.sum(axis=1, keepdims=True) >= 6, trimmed, ok).astype(np.float64)
        jx, jy = vx / dist, vy / dist  # minus d(res)/d(centre): signs cancel in the step below
        wjx, wjy = w * jx, w * jy
        a, b, d = (wjx * jx).sum(axis=1), (wjx * jy).sum(axis=1), (wjy * jy).sum(axis=1)
        gx, gy = (wjx * res).sum(axis=1), (wjy * res).sum(axis=1)
        det = a * d - b * b
        good = np.abs(det) > 1e-9
        inv_det = np.where(good, 1.0 / np.where(good, det, 1.0), 0.0)
        cx = cx + (d * gx - b * gy) * inv_det
        cy = cy + (a * gy - b * gx) * inv_det
    return np.column_stack([cx, cy])
