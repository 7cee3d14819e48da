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
    colour: np.ndarray  # (N, 3) mean BGR of the inner disc


def _ballness(cloth: ClothModel, samples: np.ndarray) -> np.ndarray:
    """0 on cloth (shadows included), rising to 1 and beyond on anything that is not cloth."""
    k, chroma = cloth.describe(samples)
    thr = cloth.chroma_threshold()
    s = np.maximum(chroma / thr, (k - 1.0) / (cloth.bright_k - 1.0))
    return np.maximum(s, (1.0 - k) / (1.0 - cloth.dark_k) * (k < cloth.dark_k * 1.6)).astype(np.float32)


def refine_centres(
    frame_bgr: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    cloth: ClothModel,
    n_rays: int = 32,
    n_samples: int = 28,
    iterations: int = 2,
) -> RefineResult:
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2).copy()
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    n = len(centres)
    if n == 0:
        return RefineResult(np.zeros((0, 2)), np.zeros(0), np.zeros((0, 3)))
    ang = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    dirs = np.stack([np.cos(ang), np.sin(ang)], axis=1)  # (R, 2)
    rho = np.linspace(0.5, 1.5, n_samples)  # in radii
    frac = np.zeros(n)
    start = centres.copy()
    for _ in range(iterations):
        # (n, R, S, 2) sample positions
        d = rho[None, None, :, None] * radii[:, None, None, None] * dirs[None, :, None, :]
        pos = centres[:, None, None, :] + d
        mx = pos[..., 0].reshape(n * n_rays, n_samples).astype(np.float32)
        my = pos[..., 1].reshape(n * n_rays, n_samples).astype(np.float32)
        samp = cv2.remap(frame_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        score = _ballness(cloth, samp).reshape(n, n_rays, n_samples)
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
        new = centres.copy()
        for b in range(n):
            m = ok[b]
            frac[b] = m.mean()
            if m.sum() < 8:
                continue
            used = dirs[m]
            # The rim points must surround the centre, not lie on one side (a half-hidden ball).
            if np.linalg.norm(used.mean(axis=0)) > 0.5:
                continue
            new[b] = _fit_centre(pts[b][m], radii[b], centres[b])
        moved = np.linalg.norm(new - start, axis=1)
        new[moved > 0.6 * radii] = start[moved > 0.6 * radii]
        centres = new
    # Appearance: the inner ring of the ball.
    inner = np.linspace(0.15, 0.6, 4)
    d = inner[None, None, :, None] * radii[:, None, None, None] * dirs[None, :, None, :]
    pos = centres[:, None, None, :] + d
    mx = pos[..., 0].reshape(n, -1).astype(np.float32)
    my = pos[..., 1].reshape(n, -1).astype(np.float32)
    samp = cv2.remap(frame_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    colour = np.median(samp.astype(np.float64), axis=1)
    return RefineResult(centres, frac, colour)


def _fit_centre(pts: np.ndarray, radius: float, guess: np.ndarray) -> np.ndarray:
    """Least-squares centre of a circle of known radius through ``pts``, trimming outliers once."""
    c = guess.astype(np.float64).copy()
    keep = np.ones(len(pts), bool)
    for it in range(6):
        v = pts[keep] - c
        dist = np.linalg.norm(v, axis=1)
        dist = np.maximum(dist, 1e-9)
        res = dist - radius
        jac = -v / dist[:, None]
        step, *_ = np.linalg.lstsq(jac, -res, rcond=None)
        c = c + step
        if it == 2:
            full = np.linalg.norm(pts - c, axis=1) - radius
            mad = np.median(np.abs(full)) + 0.15
            keep = np.abs(full) < 3.0 * mad
            if keep.sum() < 6:
                keep = np.ones(len(pts), bool)
    return c
