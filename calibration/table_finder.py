"""Find a billiard table's playing field in one image: cloth segmentation and cushion-nose edge points.

The image analysis half of automatic calibration (``calibration.auto`` turns the result into a
``Calibration``). Steps:

1. **Cloth colour.** The cloth is the large region of one colour around the image centre: its colour is
   the median, in Lab, of the central part of the image; nothing assumes green (pool cloth is blue).
2. **Segmentation.** Each pixel's Lab distance to that colour (lightness weighted down, so lamp pools and
   shade stay cloth); the threshold is Otsu's on the distance histogram, kept between fixed limits. The
   largest connected region near the centre, with holes (balls, marks) filled, is the cloth.
3. **Coarse quadrilateral.** The convex hull of that region (it bridges pocket notches and a player
   leaning over a cushion) reduced to four vertices.
4. **Edge points.** Along each side, profiles across the boundary at full resolution: walking outward
   from the cloth, the first strong step away from the local cloth colour is the cushion nose; its
   position is refined to sub-pixel precision by a parabola through the gradient peak.
5. **Robust curves.** Per side, a RANSAC quadratic (straight lines bow under lens distortion) keeps the
   edge points on the nose and drops those on balls, pockets and players.

The result is a ``TableEdges``: four sides in ring order with their inlier edge points (distorted image
pixels). Failures raise ``TableNotFoundError`` with a one-line reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class TableNotFoundError(ValueError):
    """No playing field could be found in the image, with a one-line reason."""


class ImageReadError(ValueError):
    """The source is not a readable image or video."""


@dataclass(frozen=True)
class Side:
    """One side of the playing field as seen in the image."""

    p0: np.ndarray  # coarse start vertex (px)
    p1: np.ndarray  # coarse end vertex (px)
    points: np.ndarray  # N x 2 edge points on the cushion nose (distorted px), inliers only
    strength: float  # median edge contrast of the inliers (Lab units)

    @property
    def length_px(self) -> float:
        return float(np.linalg.norm(self.p1 - self.p0))


@dataclass(frozen=True)
class TableEdges:
    image_size: tuple[int, int]
    sides: tuple[Side, Side, Side, Side]  # ring order; side i runs from vertex i to vertex i+1
    quad: np.ndarray  # 4 x 2 coarse vertices (px), clockwise on screen
    cloth_lab: np.ndarray  # the cloth colour (Lab, OpenCV 8-bit scale)
    mask: np.ndarray  # uint8 cloth mask at the analysis scale
    mask_scale: float  # analysis px per image px


# ---- reading sources ------------------------------------------------------------------------------------


def read_source(path: str | Path, seconds: float = 2.0, max_frames: int = 15) -> np.ndarray:
    """A BGR image from an image file, or the per-pixel median of frames from the first ``seconds`` of a
    video (players and balls in motion drop out of the median)."""
    p = Path(path)
    if not p.exists():
        raise ImageReadError(f"{p}: no such file")
    if p.is_dir():
        raise ImageReadError(f"{p} is a directory, not an image or video")
    if p.suffix.lower() in IMAGE_SUFFIXES:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise ImageReadError(f"{p}: not a readable image")
        return img
    cap = cv2.VideoCapture(str(p))
    try:
        if not cap.isOpened():
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise ImageReadError(f"{p}: not a readable image or video")
            return img
        fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        span = int(max(1, min(fps * seconds, total if total > 0 else fps * seconds)))
        step = max(1, span // max_frames)
        frames = []
        for i in range(span):
            ok, frame = cap.read()
            if not ok:
                break
            if i % step == 0:
                frames.append(frame)
    finally:
        cap.release()
    if not frames:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise ImageReadError(f"{p}: not a readable image or video")
        return img
    if len(frames) == 1:
        return frames[0]
    return np.median(np.stack(frames), axis=0).astype(np.uint8)


# ---- the finder ---------------------------------------------------------------------------------------------


def find_table(img: np.ndarray) -> TableEdges:
    """The playing field's four sides with sub-pixel cushion-nose points (see the module docstring)."""
    if img is None or img.ndim != 3 or img.shape[2] != 3:
        raise TableNotFoundError("expected a colour image")
    h, w = img.shape[:2]
    if w < 64 or h < 64:
        raise TableNotFoundError(f"image {w}x{h} is too small")
    grey_mean = float(img.mean())
    if grey_mean < 12.0:
        raise TableNotFoundError(f"the image is almost black (mean level {grey_mean:.1f} of 255): no table in view")
    if float(img.std()) < 4.0:
        raise TableNotFoundError("the image is almost uniform: no table in view")
    scale = min(1.0, 640.0 / max(w, h))
    small = cv2.resize(img, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else img
    lab_small = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    cloth = _cloth_colour(lab_small)
    mask = _cloth_mask(lab_small, cloth)
    quad_small = _quad_from_mask(mask)
    quad = quad_small / scale
    lab = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32), (0, 0), 0.7)
    sides = []
    for i in range(4):
        p0, p1 = quad[i], quad[(i + 1) % 4]
        sides.append(_side_points(lab, p0, p1, quad))
    return TableEdges((w, h), (sides[0], sides[1], sides[2], sides[3]), quad, cloth, mask, scale)


def _cloth_colour(lab: np.ndarray) -> np.ndarray:
    """Median Lab colour of the densest colour cluster in the central part of the image."""
    h, w = lab.shape[:2]
    centre = lab[int(h * 0.3) : int(h * 0.7), int(w * 0.3) : int(w * 0.7)].reshape(-1, 3)
    # Mode of the chroma (a, b) histogram: balls, marks and arms are small minorities.
    a, b = centre[:, 1], centre[:, 2]
    hist, ae, be = np.histogram2d(a, b, bins=32, range=[[0, 256], [0, 256]])
    hist = cv2.GaussianBlur(hist.astype(np.float32), (0, 0), 1.0)
    ia, ib = np.unravel_index(int(np.argmax(hist)), hist.shape)
    sel = (np.abs(a - (ae[ia] + 4)) < 12) & (np.abs(b - (be[ib] + 4)) < 12)
    if sel.sum() < 50:
        sel = np.ones(len(centre), bool)
    return np.median(centre[sel], axis=0)


def _colour_distance(lab: np.ndarray, ref: np.ndarray, l_weight: float = 0.35) -> np.ndarray:
    d = lab - ref.reshape(1, 1, 3)
    return np.sqrt(l_weight * l_weight * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def _cloth_mask(lab: np.ndarray, cloth: np.ndarray) -> np.ndarray:
    h, w = lab.shape[:2]
    dist = _colour_distance(lab, cloth)
    d8 = np.clip(dist * 4.0, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = float(np.clip(otsu / 4.0, 7.0, 30.0))
    # Very dark pixels have no reliable chroma: keep them out unless their lightness is near the cloth's.
    mask = ((dist < thr) & (lab[..., 0] > 0.35 * cloth[0])).astype(np.uint8) * 255
    k = max(3, round(min(h, w) / 160)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        raise TableNotFoundError("no cloth-coloured region in the image: no table found")
    # The biggest region, preferring ones near the centre.
    best, best_score = 0, 0.0
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        cx, cy = cents[i]
        off = math.hypot((cx - w / 2) / w, (cy - h / 2) / h)
        score = area * (1.0 - min(off, 0.7))
        if score > best_score:
            best, best_score = i, score
    area_frac = stats[best, cv2.CC_STAT_AREA] / float(h * w)
    if area_frac < 0.08:
        raise TableNotFoundError(
            f"no table found: the largest cloth-coloured region covers only {100 * area_frac:.1f}% of the image"
        )
    region = (labels == best).astype(np.uint8) * 255
    # Fill holes (balls, marks): everything not reachable from outside the region.
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


def _quad_from_mask(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(cnt)
    hull_area = cv2.contourArea(hull)
    if cv2.contourArea(cnt) < 0.6 * hull_area:
        raise TableNotFoundError("the cloth-coloured region is not table-shaped: no table found")
    peri = cv2.arcLength(hull, True)
    quad = None
    lo, hi = 0.002, 0.2
    for _ in range(40):
        eps = (lo + hi) / 2
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) > 4:
            lo = eps
        elif len(approx) < 4:
            hi = eps
        else:
            quad = approx.reshape(4, 2).astype(np.float64)
            hi = eps  # prefer the tightest four-vertex fit
    if quad is None:
        box = cv2.boxPoints(cv2.minAreaRect(cnt))
        quad = np.asarray(box, np.float64)
    # Refine: each side a line fitted to the hull points nearest it; vertices at the intersections.
    quad = _refine_quad(hull.reshape(-1, 2).astype(np.float64), quad)
    # Clockwise on screen (v down): positive shoelace area in (u, v).
    area = 0.5 * sum(quad[i, 0] * quad[(i + 1) % 4, 1] - quad[(i + 1) % 4, 0] * quad[i, 1] for i in range(4))
    if area < 0:
        quad = quad[::-1].copy()
    ring = np.vstack([quad, quad[:1]])
    if min(np.linalg.norm(np.diff(ring, axis=0), axis=1)) < 0.05 * max(mask.shape):
        raise TableNotFoundError("the cloth-coloured region is not four-sided: no table found")
    return quad


def _refine_quad(hull: np.ndarray, quad: np.ndarray) -> np.ndarray:
    # Densify the hull so long straight hull edges contribute points along their length.
    pts = []
    for i in range(len(hull)):
        a, b = hull[i], hull[(i + 1) % len(hull)]
        n = max(2, int(np.linalg.norm(b - a) / 2))
        t = np.linspace(0, 1, n, endpoint=False)[:, None]
        pts.append(a + t * (b - a))
    dense = np.vstack(pts)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        L = float(np.linalg.norm(b - a))
        d = (b - a) / max(L, 1e-9)
        nrm = np.array([-d[1], d[0]])
        t = (dense - a) @ d
        off = (dense - a) @ nrm
        # Hull points beside the middle of this side, generously: the approximated vertices may sit on the
        # chamfers that corner pockets cut, some way inside the true side.
        sel = (t > 0.15 * L) & (t < 0.85 * L) & (np.abs(off) < 0.1 * L + 3)
        line = _ransac_line(dense[sel], tol=1.5) if sel.sum() >= 5 else None
        lines.append(line if line is not None else (a, d))
    out = np.empty((4, 2))
    for i in range(4):
        p = intersect_lines(lines[i - 1], lines[i])
        out[i] = p if p is not None else quad[i]
    return out


def _ransac_line(pts: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The line through most of ``pts`` (within ``tol``), refitted by least squares on its inliers."""
    n = len(pts)
    if n < 2:
        return None
    rng = np.random.default_rng(7)
    best = np.zeros(n, bool)
    for _ in range(100):
        i, j = rng.choice(n, 2, replace=False)
        d = pts[j] - pts[i]
        norm = float(np.linalg.norm(d))
        if norm < 1e-6:
            continue
        nrm = np.array([-d[1], d[0]]) / norm
        inl = np.abs((pts - pts[i]) @ nrm) < tol
        if inl.sum() > best.sum():
            best = inl
    if best.sum() < 2:
        return None
    q = pts[best]
    c = q.mean(axis=0)
    _, _, vt = np.linalg.svd(q - c, full_matrices=False)
    return c, vt[0]


def intersect_lines(l1: tuple[np.ndarray, np.ndarray], l2: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    """Intersection of two lines given as (point, direction); None when they are parallel."""
    (p, d), (q, e) = l1, l2
    m = np.array([[d[0], -e[0]], [d[1], -e[1]]])
    if abs(np.linalg.det(m)) < 1e-9:
        return None
    s, _ = np.linalg.solve(m, q - p)
    return p + s * d


def _side_points(lab: np.ndarray, p0: np.ndarray, p1: np.ndarray, quad: np.ndarray) -> Side:
    """Sub-pixel nose points along the coarse side p0 -> p1 (inward = toward the quad's centre)."""
    length = float(np.linalg.norm(p1 - p0))
    d = (p1 - p0) / length
    nrm = np.array([-d[1], d[0]])
    if (quad.mean(axis=0) - p0) @ nrm < 0:
        nrm = -nrm
    span = float(min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
    out_px = max(6.0, 0.035 * span)  # outward reach: bowing of the side plus the rail
    in_px = max(12.0, 0.16 * span)  # inward reach: the cushion band (wide in tilted views) plus bowing
    step_t = max(2.0, length / 400.0)
    ts = np.arange(0.03 * length, 0.97 * length, step_t)
    offs = np.arange(-out_px, in_px + 0.5, 0.5)
    base = p0[None, :] + ts[:, None] * d[None, :]
    grid = base[:, None, :] + offs[None, :, None] * nrm[None, None, :]
    mx = grid[..., 0].astype(np.float32)
    my = grid[..., 1].astype(np.float32)
    prof = cv2.remap(lab, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)  # (T, S, 3)
    # Local cloth colour: the median of the innermost quarter of each profile.
    inner = prof[:, -max(4, len(offs) // 4) :, :]
    ref = np.median(inner, axis=1)  # (T, 3)
    diff = prof - ref[:, None, :]
    dist = np.sqrt((0.6 * diff[..., 0]) ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)  # (T, S)
    dist = cv2.GaussianBlur(dist, (0, 1), sigmaX=1.5) if dist.shape[1] > 5 else dist
    # Gradient per pixel (samples are half a pixel apart): > 0 where the profile becomes cloth going inward.
    grad = np.zeros_like(dist)
    grad[:, 1:-1] = dist[:, :-2] - dist[:, 2:]
    # Contrast of a step: the colour distance 3 px outward minus that 3 px inward.
    k = 6
    step = np.zeros_like(dist)
    step[:, k:-k] = dist[:, : -2 * k] - dist[:, 2 * k :]
    quarter = max(4, len(offs) // 4)
    step_noise = np.median(np.abs(step[:, -quarter - k : -k]), axis=1)
    is_peak = np.zeros_like(grad, dtype=bool)
    is_peak[:, 1:-1] = (grad[:, 1:-1] >= grad[:, :-2]) & (grad[:, 1:-1] >= grad[:, 2:]) & (grad[:, 1:-1] >= 1.0)
    pts: list[np.ndarray] = []
    strengths: list[float] = []
    n_s = len(offs)
    for i in range(len(ts)):
        g = grad[i]
        # The innermost gradient peak whose step stands out from the cloth: walking outward from the cloth,
        # the first real edge (a slow shading change across the cloth has no contrast over 6 px).
        ok = is_peak[i] & (step[i] >= max(8.0, 6.0 * step_noise[i]))
        js = np.nonzero(ok)[0]
        if len(js) == 0:
            continue
        idx = int(js[-1])
        if idx <= 0 or idx >= n_s - 1:
            continue
        ga, gb, gc = g[idx - 1], g[idx], g[idx + 1]
        den = ga - 2 * gb + gc
        frac = 0.5 * (ga - gc) / den if abs(den) > 1e-9 else 0.0
        frac = float(np.clip(frac, -0.5, 0.5))
        off = offs[idx] + frac * 0.5
        pts.append(base[i] + off * nrm)
        strengths.append(float(gb))
    arr = np.asarray(pts, np.float64).reshape(-1, 2)
    st = np.asarray(strengths)
    keep = _ransac_curve(arr, p0, d, nrm)
    inl = arr[keep]
    return Side(p0, p1, inl, float(np.median(st[keep])) if keep.any() else 0.0)


def _ransac_curve(pts: np.ndarray, p0: np.ndarray, d: np.ndarray, nrm: np.ndarray, thr: float = 1.5) -> np.ndarray:
    """Inliers of a quadratic offset(t) through the points (lens distortion bows the sides slightly)."""
    n = len(pts)
    if n < 8:
        return np.zeros(n, bool)
    t = (pts - p0) @ d
    o = (pts - p0) @ nrm
    tn = (t - t.mean()) / max(float(t.std()), 1e-9)
    rng = np.random.default_rng(12345)
    best = np.zeros(n, bool)
    best_count = 0
    design = np.column_stack([np.ones(n), tn, tn * tn])
    for _ in range(200):
        idx = rng.choice(n, 3, replace=False)
        try:
            coef = np.linalg.solve(design[idx], o[idx])
        except np.linalg.LinAlgError:
            continue
        inl = np.abs(design @ coef - o) < thr * 2
        c = int(inl.sum())
        if c > best_count:
            best, best_count = inl, c
    for _ in range(3):  # refit on the inliers and tighten
        if best.sum() < 4:
            break
        coef, *_ = np.linalg.lstsq(design[best], o[best], rcond=None)
        res = np.abs(design @ coef - o)
        best = res < thr
    return best
