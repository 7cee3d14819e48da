"""Automatic calibration: from the cushion-nose edge points ``calibration.table_finder`` finds to a ``Calibration``.

1. **Lens.** Radial ``k1`` (and optionally ``k2``) by the plumb-line method: the values that make the
   edge points of the four cushion noses straightest once undistorted. Intrinsics are the default ones
   (principal point at the image centre, focal length one image width) while this runs; the focal length
   found in step 6 then rescales ``k1, k2`` so the distortion in pixels is unchanged.
2. **Lines and corners.** A straight line per side through the undistorted inliers (total least squares
   after a last outlier cut), the corners at their intersections, mapped back through the lens: the
   ``corners_px`` of CONTRACT.md section 6 are pixels of the image as recorded.
3. **Which end is which.** The long cushions are the pair with a middle pocket: their nose lines break
   off at their middles, or the view across cushion and rail behind their middles differs from the view
   elsewhere along them; failing both, the pair that is longer once the perspective of the default
   intrinsics is undone. Whichever cue names the pair, the choice is a candidate calibration whose
   measured aspect (``calibration.aspect``: foreshortening undone, over the corners' spread and the
   plausible focal lengths) must agree with the table given: a choice that contradicts it is refused and
   the other pair taken (a pocket cue misread in an oblique view, a table with no pockets; the quality
   record's ``long_sides_source`` is then ``"measured aspect"``, otherwise the cue). The house end is the
   short end on whose side of the table the house line (x = L/4) is drawn; when no drawn line stands out
   (``house_end_source: "default"`` in the quality record) the house end is the one on the left of the
   image, or the bottom one if the table stands upright in the picture. ``flip=True`` swaps the ends
   (the operator's override).
4. **Quality.** RMS and maximum distance of the inlier edge points from their fitted lines in pixels,
   the same in millimetres on the cloth, the share of profiles that were inliers, and which pockets show
   as dark holes where the model puts them.
5. **Raised noses** (``nose_height_mm``, default 0). From a camera above the field the innermost edge
   of each cushion is its foot on the cloth, the field's edge; a cushion the camera is beyond hides that
   behind its nose, so its line is moved to where the nose projects onto the cloth, using the pose
   (skipped, and said so in the quality record, where the focal length, hence the pose, is unknown).
6. **Camera.** The focal length the homography implies (square pixels, principal point at the centre),
   where the view is tilted enough to observe it; otherwise the default. With it the camera centre and
   height above the cloth, for the parallax of ball centres (``Calibration.ball_px_to_table``).
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from scipy.optimize import least_squares

from calibration.aspect import long_pair_by_aspect
from calibration.mapping import CORNER_NAMES, Calibration, CalibrationError, default_camera_matrix
from calibration.table import TableModel
from calibration.table_finder import Side, TableEdges, find_table, intersect_lines


def auto_calibrate(
    img: np.ndarray,
    table: TableModel | None = None,
    *,
    distortion: str = "k1",
    flip: bool = False,
    camera_matrix: np.ndarray | None = None,
    fixed_k: tuple[float, float] | None = None,
    nose_height_mm: float = 0.0,
) -> Calibration:
    """Calibrate from one BGR image. ``distortion``: ``"none"``, ``"k1"`` or ``"k1k2"`` (what to estimate
    from the cushion lines); ``camera_matrix`` and ``fixed_k`` give a known lens (e.g. from a
    checkerboard) instead. ``nose_height_mm``: how far above the cloth the edge the finder sees (the
    cushion nose) lies; the playing field is its vertical projection onto the cloth (0: take the edge as
    lying on the cloth)."""
    table = table or TableModel()
    edges = find_table(img)
    return calibration_from_edges(
        edges, table, distortion=distortion, flip=flip, camera_matrix=camera_matrix, fixed_k=fixed_k, img=img,
        nose_height_mm=nose_height_mm,
    )  # fmt: skip


def calibration_from_edges(
    edges: TableEdges,
    table: TableModel,
    *,
    distortion: str = "k1",
    flip: bool = False,
    camera_matrix: np.ndarray | None = None,
    fixed_k: tuple[float, float] | None = None,
    img: np.ndarray | None = None,
    nose_height_mm: float = 0.0,
) -> Calibration:
    if distortion not in ("none", "k1", "k1k2"):
        raise ValueError(f"distortion must be none, k1 or k1k2, not {distortion!r}")
    size = edges.image_size
    sides = list(edges.sides)
    for i, s in enumerate(sides):
        if len(s.points) < 12:
            raise CalibrationError(f"no table found: side {i + 1} of the cloth region has no clear cushion edge")
    k0 = default_camera_matrix(size) if camera_matrix is None else np.asarray(camera_matrix, np.float64)
    if fixed_k is not None:
        k1, k2 = fixed_k
    elif distortion == "none":
        k1, k2 = 0.0, 0.0
    else:
        k1, k2 = estimate_radial(sides, k0, with_k2=distortion == "k1k2")
    und = [undistort(s.points, k0, k1, k2) for s in sides]
    lines = []
    keep = []
    for pts in und:
        line, inl = _fit_line(pts)
        lines.append(line)
        keep.append(inl)
    und = [p[m] for p, m in zip(und, keep, strict=True)]
    corners_und = []
    for i in range(4):
        p = intersect_lines(lines[i - 1], lines[i])
        if p is None:
            raise CalibrationError("no table found: two adjacent cushion lines are parallel")
        corners_und.append(p)
    cu = np.array(corners_und)  # corner i lies between side i-1 and side i
    long_pair = _long_pair_from_perspective(cu, k0)
    long_source = "perspective"
    by_gaps = _long_pair_from_gaps(und, cu)
    if by_gaps is not None:
        long_pair, long_source = by_gaps, "middle-pocket gaps"
    elif img is not None:
        by_pockets = _long_pair_from_pockets(img, cu, k0, k1, k2)
        if by_pockets is not None:
            long_pair, long_source = by_pockets, "middle pockets"
    long_pair, overridden = long_pair_by_aspect(cu, k0, size, table.length_mm / table.width_mm, long_pair)
    if overridden:
        long_source = "measured aspect"
    names, house_source = _name_corners(cu, long_pair, size, flip)
    if img is not None and not flip:
        decided = _house_from_marks(img, cu, names, table, k0, k1, k2)
        if decided is not None:
            house_source = "marks"
            if decided == "swap":
                names = _swap_ends(names)
    corners_px_und = {names[i]: cu[i] for i in range(4)}
    # Focal length from the homography, then rescale k so the distortion in pixels stays the same.
    kmat, f_source = _focal_from_homography(corners_px_und, table, k0, size, camera_matrix is not None)
    s2 = (kmat[0, 0] / k0[0, 0]) ** 2
    k1n, k2n = k1 * s2, k2 * s2 * s2
    dist_px = _distort(np.array([corners_px_und[n] for n in CORNER_NAMES]), kmat, k1n, k2n)
    corners = {n: (float(dist_px[i, 0]), float(dist_px[i, 1])) for i, n in enumerate(CORNER_NAMES)}
    cal = Calibration.from_corners(corners, size, table, camera_matrix=kmat, k1=k1n, k2=k2n, source="auto")
    quality = _quality(cal, sides, und, lines, names, cu, edges)
    if nose_height_mm > 0 and f_source == "default":
        # Where the camera is beyond a cushion depends on the pose, which needs the focal length.
        quality["nose_correction"] = "skipped: focal length not observable in this view"
    elif nose_height_mm > 0:
        cal, offsets = _correct_for_noses(cal, corners_px_und, table, nose_height_mm)
        quality["nose_height_mm"] = float(nose_height_mm)
        quality["nose_offset_mm_max"] = round(max(offsets), 2)
    quality["house_end_source"] = house_source
    quality["focal_source"] = f_source
    quality["long_sides_source"] = long_source
    quality["focal_px"] = float(kmat[0, 0])
    centre = cal.camera_centre_mm()
    height = float(-centre[2])
    if img is not None:
        quality["pockets_seen"] = float(_pockets_seen(cal, img))
    return Calibration(cal.image_size, cal.corners_px, table, kmat, k1n, k2n, quality, "auto", round(height, 1))


def _correct_for_noses(
    cal: Calibration, corners_und: dict[str, np.ndarray], table: TableModel, nose_mm: float
) -> tuple[Calibration, list[float]]:
    """Undo the cushion noses' height where they hide the field's edge.

    From a camera above the field every cushion shows its face, and the innermost edge the finder sees
    is where the cushion meets the cloth: the field's edge itself. A cushion the camera is beyond (seen
    from behind, e.g. the near end in a steep view along the table) hides that edge behind its nose, a
    ``nose_mm`` higher: its line in the image is the nose, which lies on the cloth-plane ray ``h d /
    (H - h)`` inside the field (camera height ``H``, ``d`` how far the camera is beyond that cushion).
    Those offsets and the camera pose depend on each other: a few rounds settle them."""
    L, W = cal.table.length_mm, cal.table.width_mm
    img_pts = np.array([corners_und[n] for n in CORNER_NAMES], np.float64)
    off = {"house": 0.0, "pyramid": 0.0, "left": 0.0, "right": 0.0}
    current = cal
    for _ in range(4):
        src = np.array(
            [
                (off["house"], off["left"]),
                (off["house"], W - off["right"]),
                (L - off["pyramid"], off["left"]),
                (L - off["pyramid"], W - off["right"]),
            ]
        )
        h = cv2.getPerspectiveTransform(src.astype(np.float32), img_pts.astype(np.float32)).astype(np.float64)
        field = _apply_h(h, np.array([table.corners[n] for n in CORNER_NAMES]))
        dist_px = _distort(field, cal.camera_matrix, cal.k1, cal.k2)
        corners = {n: (float(dist_px[i, 0]), float(dist_px[i, 1])) for i, n in enumerate(CORNER_NAMES)}
        current = Calibration.from_corners(
            corners, cal.image_size, table, camera_matrix=cal.camera_matrix, k1=cal.k1, k2=cal.k2, source="auto"
        )
        c = current.camera_centre_mm()
        height = -float(c[2])
        if height <= nose_mm:
            raise CalibrationError("the camera seems to be below the cushions: cannot place the noses")
        beyond = {"house": -c[0], "pyramid": c[0] - L, "left": -c[1], "right": c[1] - W}
        off = {k: (nose_mm * d / (height - nose_mm) if d > 0 else 0.0) for k, d in beyond.items()}
    return current, list(off.values())


# ---- lens ------------------------------------------------------------------------------------------------


def undistort(px: np.ndarray, kmat: np.ndarray, k1: float, k2: float) -> np.ndarray:
    """Undistorted pixels of distorted ones under the radial model (fixed-point inversion)."""
    p = np.asarray(px, np.float64).reshape(-1, 2)
    if k1 == 0.0 and k2 == 0.0:
        return p.copy()
    fx, fy, cx, cy = kmat[0, 0], kmat[1, 1], kmat[0, 2], kmat[1, 2]
    xd, yd = (p[:, 0] - cx) / fx, (p[:, 1] - cy) / fy
    x, y = xd.copy(), yd.copy()
    for _ in range(30):
        r2 = x * x + y * y
        s = 1 + k1 * r2 + k2 * r2 * r2
        x, y = xd / s, yd / s
    return np.column_stack([x * fx + cx, y * fy + cy])


def _distort(px: np.ndarray, kmat: np.ndarray, k1: float, k2: float) -> np.ndarray:
    p = np.asarray(px, np.float64).reshape(-1, 2)
    fx, fy, cx, cy = kmat[0, 0], kmat[1, 1], kmat[0, 2], kmat[1, 2]
    x, y = (p[:, 0] - cx) / fx, (p[:, 1] - cy) / fy
    r2 = x * x + y * y
    s = 1 + k1 * r2 + k2 * r2 * r2
    return np.column_stack([x * s * fx + cx, y * s * fy + cy])


def estimate_radial(sides: list[Side], kmat: np.ndarray, with_k2: bool = False) -> tuple[float, float]:
    """Plumb-line estimate of (k1, k2): the values that make each side's edge points straightest."""
    pts = [s.points for s in sides]

    def residuals(params: np.ndarray) -> np.ndarray:
        k1 = float(params[0])
        k2 = float(params[1]) if with_k2 else 0.0
        out = []
        for p in pts:
            u = undistort(p, kmat, k1, k2)
            c = u.mean(axis=0)
            q = u - c
            _, _, vt = np.linalg.svd(q, full_matrices=False)
            out.append(q @ vt[1])
        return np.concatenate(out)

    x0 = np.zeros(2 if with_k2 else 1)
    try:
        res = least_squares(residuals, x0, loss="soft_l1", f_scale=0.5, bounds=(-0.8, 0.8), x_scale=0.05)
    except ValueError:
        return 0.0, 0.0
    k1 = float(res.x[0])
    k2 = float(res.x[1]) if with_k2 else 0.0
    # Keep the result only if it makes the lines straighter by a clear margin.
    base = float(np.sqrt(np.mean(residuals(np.zeros_like(x0)) ** 2)))
    best = float(np.sqrt(np.mean(residuals(res.x) ** 2)))
    if best > 0.9 * base and base < 0.5:
        return 0.0, 0.0
    return k1, k2


# ---- lines -----------------------------------------------------------------------------------------------


def _fit_line(pts: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """Total-least-squares line with a robust outlier cut; returns ((point, direction), inlier mask)."""
    keep = np.ones(len(pts), bool)
    c = pts.mean(axis=0)
    d = np.array([1.0, 0.0])
    for _ in range(4):
        q = pts[keep]
        c = q.mean(axis=0)
        _, _, vt = np.linalg.svd(q - c, full_matrices=False)
        d = vt[0]
        n = vt[1]
        res = np.abs((pts - c) @ n)
        sigma = 1.4826 * float(np.median(res[keep])) + 0.05
        new = res < max(3.0 * sigma, 0.3)
        if new.sum() < 6 or np.array_equal(new, keep):
            break
        keep = new
    return (c, d), keep


# ---- naming the corners -------------------------------------------------------------------------------------


def _name_corners(
    cu: np.ndarray, long_pair: tuple[int, int], size: tuple[int, int], flip: bool
) -> tuple[list[str], str]:
    """Names of the four ring-ordered corners under the default end choice (house on the left of the
    image, or at the bottom when the table stands upright), ``flip`` swapping the ends."""
    # Short sides are the other pair; side i runs from corner i to corner i+1.
    short = (1, 3) if long_pair == (0, 2) else (0, 2)
    mids = [(cu[i] + cu[(i + 1) % 4]) / 2 for i in short]
    axis = mids[1] - mids[0]
    if abs(axis[0]) >= abs(axis[1]):
        house_idx = 0 if mids[0][0] < mids[1][0] else 1  # left end
    else:
        house_idx = 0 if mids[0][1] > mids[1][1] else 1  # bottom end
    if flip:
        house_idx = 1 - house_idx
    return _names_for_house(cu, short[house_idx], short[1 - house_idx]), "default"


def _long_pair_from_perspective(cu: np.ndarray, kmat: np.ndarray) -> tuple[int, int]:
    """The long pair of sides, from the lengths the corners imply in 3D for the given intrinsics: with
    ``H ~ K [a r1, b r2, t]`` mapping the unit square onto the corners, side 0 has length ``a`` and side 1
    length ``b`` (foreshortening undone, unlike lengths measured in the image)."""
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    h = cv2.getPerspectiveTransform(unit.astype(np.float32), cu.astype(np.float32)).astype(np.float64)
    m = np.linalg.inv(kmat) @ h
    return (0, 2) if np.linalg.norm(m[:, 0]) >= np.linalg.norm(m[:, 1]) else (1, 3)


def _long_pair_from_gaps(und: list[np.ndarray], cu: np.ndarray) -> tuple[int, int] | None:
    """The pair of sides whose cushion-nose points break off at the middle (a middle pocket's mouth),
    when both sides of one pair do and neither of the other does."""
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    h_inv = cv2.getPerspectiveTransform(cu.astype(np.float32), unit.astype(np.float32)).astype(np.float64)
    ratios = []
    for side, pts in enumerate(und):
        if len(pts) < 20:
            return None
        q = _apply_h(h_inv, pts)
        s_along = q[:, 0] if side in (0, 2) else q[:, 1]
        body = ((s_along > 0.15) & (s_along < 0.85)).sum() / 0.7
        centre = (np.abs(s_along - 0.5) < 0.015).sum() / 0.03
        ratios.append(centre / max(body, 1e-9))
    gap = [r < 0.4 for r in ratios]
    full = [r > 0.7 for r in ratios]
    if gap[0] and gap[2] and full[1] and full[3]:
        return (0, 2)
    if gap[1] and gap[3] and full[0] and full[2]:
        return (1, 3)
    return None


def _long_pair_from_pockets(
    img: np.ndarray, cu: np.ndarray, kmat: np.ndarray, k1: float, k2: float
) -> tuple[int, int] | None:
    """The pair of opposite sides with a middle pocket: the long cushions.

    A side's midpoint and outward direction do not depend on the table's aspect, so this works in the
    unit square the four corners span. Outside each side's middle, the view across cushion and rail is
    compared with the same view a quarter of the way along: a middle pocket (mouth, throat, hole) breaks
    the cushion there; a short cushion looks the same at its middle as elsewhere. None when the two pairs
    are not clearly different (a side out of view, a player over a middle)."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    h_img, w_img = lab.shape[:2]
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    h = cv2.getPerspectiveTransform(unit.astype(np.float32), cu.astype(np.float32)).astype(np.float64)
    depths = np.linspace(0.004, 0.1, 25)

    def profile(side: int, s_values: np.ndarray) -> np.ndarray:
        """Median Lab colour at each depth (NaN where outside the image)."""
        a, b = unit[side], unit[(side + 1) % 4]
        out = np.array([(b - a)[1], -(b - a)[0]])  # outward for a clockwise ring in the unit square
        pts = np.array([a + (b - a) * s + out * t for t in depths for s in s_values])
        px = _distort(_apply_h(h, pts), kmat, k1, k2)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w_img - 1) & (px[:, 1] >= 0) & (px[:, 1] < h_img - 1)
        vals = cv2.remap(lab, px[:, 0].astype(np.float32).reshape(1, -1), px[:, 1].astype(np.float32).reshape(1, -1),
                         cv2.INTER_LINEAR)[0]  # fmt: skip
        vals[~inside] = np.nan
        return np.median(vals.reshape(len(depths), len(s_values), 3), axis=1)  # (depths, 3)

    scores = []
    centre = np.linspace(0.49, 0.51, 5)
    for side in range(4):
        mid = profile(side, centre)
        diffs = []
        for shift in (-0.22, 0.22):
            ref = profile(side, centre + shift)
            d = np.linalg.norm(mid - ref, axis=1)
            d = d[np.isfinite(d)]
            if len(d) >= 8:
                diffs.append(float(np.mean(d)))
        scores.append(min(diffs) if diffs else float("nan"))
    sc = np.array(scores)
    if (np.isnan(sc[[0, 2]]).all()) or (np.isnan(sc[[1, 3]]).all()):
        return None
    a, b = float(np.nanmean(sc[[0, 2]])), float(np.nanmean(sc[[1, 3]]))
    if a > 10.0 and a > 2.0 * b:
        return (0, 2)
    if b > 10.0 and b > 2.0 * a:
        return (1, 3)
    return None


def _apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = p @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]


def _sample(grey: np.ndarray, p: np.ndarray) -> float:
    u = min(max(round(p[0]), 0), grey.shape[1] - 1)
    v = min(max(round(p[1]), 0), grey.shape[0] - 1)
    return float(grey[v, u])


def _names_for_house(cu: np.ndarray, house_side: int, pyramid_side: int) -> list[str]:
    h_pts = [house_side, (house_side + 1) % 4]
    p_pts = [pyramid_side, (pyramid_side + 1) % 4]
    hm = (cu[h_pts[0]] + cu[h_pts[1]]) / 2
    pm = (cu[p_pts[0]] + cu[p_pts[1]]) / 2
    d = pm - hm
    ydir = np.array([-d[1], d[0]])  # image direction of table +y for a camera looking down
    names = [""] * 4
    a, b = h_pts if (cu[h_pts[0]] @ ydir) < (cu[h_pts[1]] @ ydir) else h_pts[::-1]
    names[a], names[b] = "house-left", "house-right"
    a, b = p_pts if (cu[p_pts[0]] @ ydir) < (cu[p_pts[1]] @ ydir) else p_pts[::-1]
    names[a], names[b] = "pyramid-left", "pyramid-right"
    return names


def _swap_ends(names: list[str]) -> list[str]:
    """Turn the table round: house <-> pyramid, and left <-> right with it (a half turn)."""
    swap = {"house-left": "pyramid-right", "house-right": "pyramid-left",
            "pyramid-left": "house-right", "pyramid-right": "house-left"}  # fmt: skip
    return [swap[n] for n in names]


def _house_from_marks(
    img: np.ndarray,
    cu: np.ndarray,
    names: list[str],
    table: TableModel,
    kmat: np.ndarray,
    k1: float,
    k2: float,
) -> str | None:
    """``"keep"`` or ``"swap"`` when a drawn line across the table at x = L/4 or x = 3L/4 stands out,
    else None. Works on a top-down rectification at 0.25 px/mm."""
    L, W = table.length_mm, table.width_mm
    s = 0.25
    src = np.array([table.corners[n] for n in names], np.float64) * s
    h_img2top = cv2.getPerspectiveTransform(cu.astype(np.float32), src.astype(np.float32))
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    if k1 != 0.0 or k2 != 0.0:
        size = (img.shape[1], img.shape[0])
        mx, my = cv2.initUndistortRectifyMap(kmat, np.array([k1, k2, 0, 0, 0.0]), None, kmat, size, cv2.CV_32FC1)
        grey = cv2.remap(grey, mx, my, cv2.INTER_LINEAR)
    top = cv2.warpPerspective(grey, h_img2top, (round(L * s), round(W * s)), flags=cv2.INTER_AREA).astype(np.float32)
    band = top[round(0.15 * W * s) : round(0.85 * W * s)]
    # A thin bright line: brighter than the cloth 15 mm either side of it, all along the band.
    bg = cv2.blur(band, (round(40 * s) | 1, 1))
    hat = np.clip(band - bg, 0, None)
    frac_lit = (hat > max(6.0, 3.0 * float(np.median(np.abs(band - bg))))).mean(axis=0)
    prof = cv2.GaussianBlur(frac_lit.reshape(1, -1).astype(np.float32), (0, 0), 1.0).ravel()

    def peak(x_mm: float) -> float:
        a, b = round((x_mm - 0.03 * L) * s), round((x_mm + 0.03 * L) * s)
        return float(prof[max(a, 0) : b].max())

    near, far = peak(L / 4), peak(3 * L / 4)
    if max(near, far) < 0.4 or abs(near - far) < 0.25:
        return None
    return "keep" if near > far else "swap"


# ---- camera ---------------------------------------------------------------------------------------------


def _focal_from_homography(
    corners_und: dict[str, np.ndarray], table: TableModel, k0: np.ndarray, size: tuple[int, int], given: bool
) -> tuple[np.ndarray, str]:
    if given:
        return k0, "given"
    src = np.array([table.corners[n] for n in CORNER_NAMES], np.float64)
    dst = np.array([corners_und[n] for n in CORNER_NAMES], np.float64)
    h = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(np.float64)
    cx, cy = k0[0, 2], k0[1, 2]
    t = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
    hp = t @ h
    h1, h2 = hp[:, 0], hp[:, 1]
    # Orthogonality and equal norm of r1, r2 with K = diag(f, f, 1): a w + b = 0 with w = 1 / f^2.
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    den = float(a @ a)
    w_est = -float(a @ b) / den if den > 0 else -1.0
    # Observability: the perspective part of the homography relative to its affine part.
    persp = math.hypot(h1[2], h2[2]) * max(size) / max(math.hypot(*h1[:2]), math.hypot(*h2[:2]), 1e-12)
    if w_est > 0 and persp > 0.08:
        f = 1.0 / math.sqrt(w_est)
        if 0.3 * size[0] <= f <= 6.0 * size[0]:
            k = k0.copy()
            k[0, 0] = k[1, 1] = f
            return k, "homography"
    return k0, "default"


# ---- quality ------------------------------------------------------------------------------------------------


def _quality(
    cal: Calibration,
    sides: list[Side],
    und: list[np.ndarray],
    lines: list[tuple[np.ndarray, np.ndarray]],
    names: list[str],
    cu: np.ndarray,
    edges: TableEdges,
) -> dict[str, Any]:
    res_px: list[np.ndarray] = []
    res_mm: list[np.ndarray] = []
    L, W = cal.table.length_mm, cal.table.width_mm
    total = sum(max(int((s.length_px - 0) // max(2.0, s.length_px / 400.0)), 1) for s in sides)
    for i, pts in enumerate(und):
        (c, d) = lines[i]
        n = np.array([-d[1], d[0]])
        res_px.append((pts - c) @ n)
        # Side i runs from corner i to corner i+1: which cushion line is it in the table frame?
        ends = {names[i], names[(i + 1) % 4]}
        mm = cal.image_to_table(sides[i].points) if len(sides[i].points) else np.zeros((0, 2))
        if ends == {"house-left", "house-right"}:
            r = mm[:, 0]
        elif ends == {"pyramid-left", "pyramid-right"}:
            r = mm[:, 0] - L
        elif ends == {"house-left", "pyramid-left"}:
            r = mm[:, 1]
        else:
            r = mm[:, 1] - W
        res_mm.append(r)
    rp = np.concatenate(res_px)
    rm = np.concatenate(res_mm)
    n_pts = sum(len(s.points) for s in sides)
    return {
        "residual_px": round(float(np.sqrt(np.mean(rp**2))), 3),
        "residual_px_max": round(float(np.abs(rp).max()), 3),
        "residual_mm": round(float(np.sqrt(np.mean(rm**2))), 3),
        "residual_mm_max": round(float(np.abs(rm).max()), 3),
        "edge_points": float(n_pts),
        "inlier_share": round(min(1.0, n_pts / max(total, 1)), 3),
    }


def _pockets_seen(cal: Calibration, img: np.ndarray) -> int:
    """How many pockets show as dark holes at the model's drop points (a sanity check on the naming and
    the long/short decision)."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    t = cal.table
    cloth_px = cal.table_to_image(np.array([t.spots["center"], (t.length_mm / 3, t.width_mm / 3)]))
    h, w = grey.shape
    vals = []
    for u, v in cloth_px:
        if 0 <= u < w and 0 <= v < h:
            vals.append(grey[int(v), int(u)])
    cloth = float(np.median(vals)) if vals else float(np.median(grey))
    seen = 0
    for pk in t.pockets.values():
        p = np.array(pk.mouth_center) + np.array(pk.outward) * t.ball_radius_mm
        u, v = cal.table_to_image(p[None])[0]
        if 2 <= u < w - 2 and 2 <= v < h - 2:
            patch = grey[int(v) - 2 : int(v) + 3, int(u) - 2 : int(u) + 3]
            if float(patch.mean()) < 0.5 * cloth:
                seen += 1
    return seen


def checkerboard_lens(
    images: list[np.ndarray], pattern: tuple[int, int], square_mm: float = 25.0
) -> tuple[np.ndarray, float, float]:
    """Intrinsics and radial (k1, k2) from checkerboard views (``pattern``: inner corners per row, column)."""
    obj = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    obj[:, :2] = np.mgrid[0 : pattern[0], 0 : pattern[1]].T.reshape(-1, 2) * square_mm
    obj_pts, img_pts = [], []
    size = None
    for im in images:
        grey = cv2.cvtColor(im, cv2.COLOR_BGR2GRAY) if im.ndim == 3 else im
        size = (grey.shape[1], grey.shape[0])
        ok, corners = cv2.findChessboardCorners(grey, pattern)
        if not ok:
            continue
        corners = cv2.cornerSubPix(
            grey, corners, (5, 5), (-1, -1), (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 1e-3)
        )
        obj_pts.append(obj)
        img_pts.append(corners)
    if not obj_pts or size is None:
        raise CalibrationError("no checkerboard found in the images")
    flags = cv2.CALIB_FIX_TANGENT_DIST | cv2.CALIB_FIX_K3 | cv2.CALIB_FIX_ASPECT_RATIO
    _, kmat, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None, flags=flags)
    return kmat, float(dist.ravel()[0]), float(dist.ravel()[1])
