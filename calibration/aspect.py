"""Does the calibrated table have the shape the user said it has?

A calibration maps the four playing-field corners onto a rectangle of the ``--table`` size. If the corners
were assigned the wrong way round (a table filmed cropped to its cloth, turned by 90 degrees) or the size is
wrong, the mapping still exists, and every position it gives is wrong. The image can tell: a pinhole camera
with square pixels sees a plane through ``H = K [r1 r2 t]`` with ``|r1| = |r2|`` and ``r1 . r2 = 0``. Scaling
the table's x axis by ``s`` scales the first column of ``H`` by ``1/s``, so the two columns' lengths in the
camera's normalised coordinates measure ``s``: the ratio of the true length/width to the assumed one. The
orthogonality of the columns gives the focal length where the view is tilted; a straight-down view leaves it
free, and the calibration's own intrinsics stand in (there the ratio barely depends on it).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.mapping import Calibration

# A factor of 1.25 on the aspect is beyond what the corner fit's error or a lens left uncorrected make
# (a few per cent) and well inside the factor 4 of a 2:1 table turned by 90 degrees.
ASPECT_TOLERANCE = 1.25

# Focal lengths, in image widths, of a camera that frames a whole table: from a 90-degree wide-angle lens
# (0.5) to a 19-degree telephoto (3). Where the view does not fix the focal length, the measured aspect is
# whatever this range allows.
PLAUSIBLE_FOCAL_WIDTHS = (0.5, 3.0)


def measured_aspect(cal: Calibration) -> float:
    """Length over width of the playing field as the image measures it, in the calibration's own frame."""
    h = np.array(cal.homography, dtype=float)
    k = np.array(cal.camera_matrix, dtype=float)
    # image px about the principal point, so that the camera matrix is diag(f, f, 1)
    centred = np.array([[1.0, 0.0, -k[0, 2]], [0.0, 1.0, -k[1, 2]], [0.0, 0.0, 1.0]]) @ h
    h1, h2 = centred[:, 0], centred[:, 1]
    f2 = float(k[0, 0] * k[1, 1])
    denom = h1[2] * h2[2]
    if abs(denom) > 1e-18:
        est = -(h1[0] * h2[0] + h1[1] * h2[1]) / denom
        # trust the tilted view's own focal length only where it is a plausible camera's (0.3 to 5 image widths)
        w = float(cal.image_size[0])
        if (0.3 * w) ** 2 <= est <= (5.0 * w) ** 2:
            f2 = est
    n1 = (h1[0] ** 2 + h1[1] ** 2) / f2 + h1[2] ** 2
    n2 = (h2[0] ** 2 + h2[1] ** 2) / f2 + h2[2] ** 2
    s = math.sqrt(n1 / n2) if n2 > 0 else float("nan")
    return cal.table.length_mm / cal.table.width_mm * s


def aspect_problem(cal: Calibration) -> str | None:
    """A one-line warning when the calibrated table's measured aspect contradicts the table size, else None."""
    want = cal.table.length_mm / cal.table.width_mm
    got = measured_aspect(cal)
    if not math.isfinite(got) or got <= 0:
        return "the calibration's corners give no measurable table shape"
    if max(got / want, want / got) <= ASPECT_TOLERANCE:
        return None
    turned = " (the table may be calibrated turned by 90 degrees)" if got < 1.0 < want else ""
    return (
        f"the calibrated playing field measures {got:.2f}:1 (length:width) in the image, but the table given is "
        f"{cal.table.length_mm:g}x{cal.table.width_mm:g} mm ({want:.2f}:1){turned}; check --table and the "
        f"calibration"
    )


# How far a fitted corner may lie from the true one, in pixels: the cushion lines' fit residuals are under a
# pixel, and each corner is two such lines' intersection.
CORNER_SPREAD_PX = 1.0


def side_ratio_range(
    corners_px: np.ndarray, camera_matrix: np.ndarray, image_size: tuple[int, int], spread_px: float = CORNER_SPREAD_PX
) -> tuple[float, float]:
    """Length of side 0 over side 1 of the rectangle whose image is the quadrilateral ``corners_px`` (ring
    order, side i from corner i to corner i+1, undistorted pixels), with the foreshortening undone: the
    lowest and highest value the corners' spread and the camera allow.

    With ``H ~ K [a r1, b r2, t]`` mapping the unit square onto the corners, the sides are ``a`` and ``b``.
    The orthogonality of ``r1`` and ``r2`` does not depend on ``a`` and ``b``, so where the view is tilted
    across both image axes it fixes the focal length; where it does not (a straight-down view, or one
    tilted along one image axis only) the ratio is taken over the plausible focal lengths, which changes
    nothing straight down and a lot in a view along the table. The focal length from orthogonality is
    ill-conditioned in views near those, so every corner is also moved by ``spread_px`` each way."""
    base = np.asarray(corners_px, np.float64).reshape(4, 2)
    k = np.asarray(camera_matrix, np.float64)
    w = float(image_size[0])
    lo_f, hi_f = PLAUSIBLE_FOCAL_WIDTHS
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], np.float32)
    centre = np.array([[1.0, 0.0, -k[0, 2]], [0.0, 1.0, -k[1, 2]], [0.0, 0.0, 1.0]])
    quads = [base]
    for i in range(4):
        for step in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            q = base.copy()
            q[i] += spread_px * np.array(step, np.float64)
            quads.append(q)
    lows, highs = [], []
    for q in quads:
        h = centre @ cv2.getPerspectiveTransform(unit, q.astype(np.float32)).astype(np.float64)
        h1, h2 = h[:, 0], h[:, 1]
        denom = h1[2] * h2[2]
        est = -(h1[0] * h2[0] + h1[1] * h2[1]) / denom if abs(denom) > 1e-18 else -1.0
        observed = (lo_f * w) ** 2 <= est <= (hi_f * w) ** 2
        # the ratio is monotonic in 1/f^2: where the focal length is free, the range's ends suffice
        focals = np.array([math.sqrt(est)]) if observed else w * np.array([lo_f, hi_f])
        n1 = (h1[0] ** 2 + h1[1] ** 2) / focals**2 + h1[2] ** 2
        n2 = (h2[0] ** 2 + h2[1] ** 2) / focals**2 + h2[2] ** 2
        ratios = np.sqrt(n1 / n2)
        lows.append(float(ratios.min()))
        highs.append(float(ratios.max()))
    return min(lows), max(highs)


def contradiction(ratio_range: tuple[float, float], want: float) -> float:
    """How far, as a log factor, the table's aspect ``want`` lies outside a measured aspect range (0 inside)."""
    lo, hi = ratio_range
    if want < lo:
        return math.log(lo / want)
    if want > hi:
        return math.log(want / hi)
    return 0.0


def long_pair_by_aspect(
    corners_px: np.ndarray,
    camera_matrix: np.ndarray,
    image_size: tuple[int, int],
    want: float,
    preferred: tuple[int, int],
) -> tuple[tuple[int, int], bool]:
    """Which pair of opposite sides of the quadrilateral are the long cushions, given the table's aspect
    ``want`` (> 1) and the pair the image cues (middle pockets, perspective) ``preferred``.

    Each choice is a candidate calibration whose measured aspect must agree with the table. A candidate
    that contradicts it by more than ``ASPECT_TOLERANCE`` is refused and the other taken; where both are
    refused, the one nearer the table, if nearer by more than that tolerance; otherwise the cues decide.
    Returns the pair and whether the measured aspect overrode the cues."""
    lo, hi = side_ratio_range(corners_px, camera_matrix, image_size)
    measured = {(0, 2): (lo, hi), (1, 3): (1.0 / hi, 1.0 / lo)}  # long side over short side for each choice
    other = (1, 3) if preferred == (0, 2) else (0, 2)
    off_pref, off_other = contradiction(measured[preferred], want), contradiction(measured[other], want)
    limit = math.log(ASPECT_TOLERANCE)
    if off_pref > limit and (off_other <= limit or off_other < off_pref - limit):
        return other, True
    return preferred, False
