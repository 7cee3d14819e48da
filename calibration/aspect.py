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

import numpy as np

from calibration.mapping import Calibration

# A factor of 1.25 on the aspect is beyond what the corner fit's error or a lens left uncorrected make
# (a few per cent) and well inside the factor 4 of a 2:1 table turned by 90 degrees.
ASPECT_TOLERANCE = 1.25


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
