"""A picture to check a calibration by eye: the table the calibration describes, drawn over the camera's
own image. Where the drawn cushion lines lie on the real cushion noses, the pockets on the real pockets and
the house line on the cloth's drawn line, the mapping is right; a line off by a ball's width is not."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.mapping import Calibration

CUSHION = (60, 220, 60)  # green: the cushion noses
LINE = (255, 200, 0)  # light blue: house, centre and long lines
POCKET = (0, 200, 255)  # orange: pocket mouths
LABEL = (255, 255, 255)
SAMPLES = 40  # points per line, so a distorted lens draws its curves


def _polyline(img: np.ndarray, cal: Calibration, a: tuple[float, float], b: tuple[float, float],
              colour: tuple[int, int, int], width: int) -> None:  # fmt: skip
    s = np.linspace(0.0, 1.0, SAMPLES)[:, None]
    pts = (1 - s) * np.asarray(a, dtype=float) + s * np.asarray(b, dtype=float)
    px = cal.table_to_image(pts)
    cv2.polylines(img, [np.round(px).astype(np.int32)], False, colour, width, cv2.LINE_AA)


def draw_calibration(image: np.ndarray, cal: Calibration) -> np.ndarray:
    """A copy of ``image`` with the calibrated table drawn on it."""
    out = np.ascontiguousarray(image.copy())
    table = cal.table
    width = max(1, round(max(out.shape[:2]) / 640))
    for cushion in table.cushions.values():
        _polyline(out, cal, cushion.start, cushion.end, CUSHION, width)
    length, breadth = table.length_mm, table.width_mm
    for name in ("house", "center", "long"):
        line = table.lines[name]
        if line.axis == "x":
            _polyline(out, cal, (line.value_mm, 0.0), (line.value_mm, breadth), LINE, width)
        else:
            _polyline(out, cal, (0.0, line.value_mm), (length, line.value_mm), LINE, width)
    for name, pocket in table.pockets.items():
        mouth = np.array(pocket.mouth_center, dtype=float)
        half = np.array((pocket.mouth_width_mm / 2, 0.0))
        centre, edge = cal.table_to_image(np.array([mouth, np.add(mouth, half)]))
        radius = max(3, round(float(np.hypot(*(edge - centre)))))
        cv2.circle(out, (round(centre[0]), round(centre[1])), radius, POCKET, width, cv2.LINE_AA)
        scale = 0.3 + 0.15 * width
        (text_w, _), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        # The name on the table's side of the pocket, so that it stays inside the picture.
        x = centre[0] + radius + 2 if centre[0] < out.shape[1] / 2 else centre[0] - radius - 2 - text_w
        y = centre[1] + (radius + 14 * width if centre[1] < out.shape[0] / 2 else -radius - 4)
        cv2.putText(out, name, (round(x), round(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, LABEL, 1, cv2.LINE_AA)
    house = cal.table_to_image(np.array([[length / 8, breadth / 2]], dtype=float))[0]
    cv2.putText(out, "house", (round(house[0]) - 20 * width, round(house[1])), cv2.FONT_HERSHEY_SIMPLEX,
                0.6 * width, LABEL, width, cv2.LINE_AA)  # fmt: skip
    return out
