"""Sub-pixel ball centres in the recorded frame: edge points along rays, then a robust circle fit.

Around each coarse centre, ``n_rays`` rays are sampled (bilinear, as ``cv2.remap`` samples) from half a
radius inside to half a radius outside the expected rim. Along each ray a "not cloth" score falls
from ball to cloth at the rim; the steepest fall, located to a fraction of a pixel, is an edge point. Rays
that run into a neighbouring ball, an arm or a pocket see no fall to cloth and are dropped. The centre is
the least-squares fit of a circle of the expected radius to the edge points (Gauss-Newton with
outlier trimming), fitted again at the radius the rim shows where that is round and whole enough (a rim
the frame shows larger than expected, fitted at the expected radius with the rays towards a ball a few
millimetres away missing, is pushed away from that ball by a pixel), or the coarse centre where too few
rays, or rays on one side only, found an edge.
All balls are done by one compiled kernel (``vision.refine_kernels``); ``tests/refine_support.py`` holds the
same steps in numpy and OpenCV array operations, the reference the tests compare it with.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from vision.cloth import ClothModel
from vision.refine_kernels import refine_kernel


class RefineResult(NamedTuple):
    """The refinement of a frame's balls (a named tuple: made once per frame, the cheapest record)."""

    px: np.ndarray  # (N, 2) refined centres
    edge_fraction: np.ndarray  # (N,) share of rays that found a rim against cloth
    radius: np.ndarray  # (N,) rim radius as this frame shows it
    support: np.ndarray  # (N,) share of rays that found the rim, against cloth or a frozen neighbour
    colour: np.ndarray  # (N, 3) mean BGR of the inner disc
    rim_ratio: float = 1.0  # the rim radius as this frame shows it over the expected one (``radius / radii``)


@dataclass(frozen=True)
class _Rays:
    """Constants of a ray pattern: directions, sample radii and the sample indices the refinement reads."""

    dirs: np.ndarray  # (R, 2) unit directions
    rho: np.ndarray  # (S,) sample radii in ball radii
    lo: int  # valley search from sample lo ...
    hi: int  # ... to hi (exclusive)
    i_in: int  # sample inside the rim (0.6 radius)
    i_out: int  # sample beyond the rim (1.4 radius)
    n_inner: int  # samples within 0.75 radius (appearance): the first this many
    rdx: np.ndarray  # (R * S,) x offsets of the samples per unit radius, ray by ray
    rdy: np.ndarray  # (R * S,) y offsets
    dirs_c: np.ndarray  # (R,) the directions as complex numbers


@functools.lru_cache(maxsize=8)
def _rays(n_rays: int, n_samples: int) -> _Rays:
    ang = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    dirs = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    rho = np.linspace(0.5, 1.5, n_samples)
    return _Rays(
        dirs, rho,
        int(np.searchsorted(rho, 0.75)), int(np.searchsorted(rho, 1.25)), int(np.searchsorted(rho, 0.6)),
        int(np.searchsorted(rho, 1.4)), int((rho <= 0.75).sum()),
        (dirs[:, 0:1] * rho[None, :]).ravel(), (dirs[:, 1:2] * rho[None, :]).ravel(), dirs[:, 0] + 1j * dirs[:, 1],
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
    rim_ratio: float | None = None,
) -> RefineResult:
    """Refined centres of balls near ``centres`` (N x 2 image px) of expected rim radii ``radii`` (px), all
    balls at once. ``dark_counts``: where darkness (below the cloth model's ``dark_k``) means ball, not a
    pocket's hole; ``toward_camera``: unit image vectors toward the camera (rims a nearer ball may hide);
    ``rim_ratio``: the rim radius as the frame shows it over the expected one, where already measured on other
    balls (``RefineResult.rim_ratio`` of an earlier call), else measured on these balls' full rims.
    """
    centres = np.ascontiguousarray(centres, dtype=np.float64).reshape(-1, 2)
    radii = np.ascontiguousarray(radii, dtype=np.float64).reshape(-1)
    n = len(centres)
    if n == 0:
        return RefineResult(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, 3)))
    rays = _rays(n_rays, n_samples)
    dark = np.ones(n, bool) if dark_counts is None else np.ascontiguousarray(dark_counts, dtype=bool)
    toward = _NO_TOWARD if toward_camera is None else np.ascontiguousarray(toward_camera, dtype=np.float64)
    kb = cloth.bright_k - 1.0
    floats = np.array([-kb / (1.0 - cloth.dark_k), (cloth.dark_k * 1.6 - 1.0) / kb, valley_scale, rim_ratio or 0.0])
    floats[:2] = floats[:2].astype(np.float32)  # float32 values, as the kernel computes with them
    px, frac, ratio, support, colour = refine_kernel(
        np.ascontiguousarray(frame_bgr),
        centres,
        radii,
        _score_array(cloth),
        dark,
        toward,
        rays.dirs,
        rays.rho,
        _ints(n_rays, n_samples, iterations),
        floats,
    )
    return RefineResult(px, frac, ratio * radii, support, colour, float(ratio))


_NO_TOWARD = np.zeros((0, 2))


@functools.lru_cache(maxsize=8)
def _ints(n_rays: int, n_samples: int, iterations: int) -> np.ndarray:
    """The kernel's integer arguments: the ray pattern's sample indices and the iterations."""
    rays = _rays(n_rays, n_samples)
    return np.array([rays.lo, rays.hi, rays.i_in, rays.i_out, rays.n_inner, iterations], np.int64)


def _score_array(cloth: ClothModel) -> np.ndarray:
    """``_score_matrix``'s rows as one contiguous 4 x 4 float32 array (cached with them)."""
    rows = _score_matrix(cloth)
    cached = cloth.__dict__.get("_refine_array")
    if cached is not None and cached[0] is rows:
        out: np.ndarray = cached[1]
        return out
    arr = np.ascontiguousarray(np.concatenate(rows))
    cloth.__dict__["_refine_array"] = (rows, arr)
    return arr
