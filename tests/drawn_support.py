"""A straight-down camera over a table drawn with OpenCV: the calibration the drawn test videos share."""

from __future__ import annotations

from calibration.mapping import Calibration
from calibration.table import TableModel


def overhead_calibration(table: TableModel, size: tuple[int, int], margin_px: int) -> Calibration:
    """The playing field centred in a ``size`` image, its length filling the width less ``margin_px`` a side."""
    w, h = size
    sx = (w - 2 * margin_px) / table.length_mm
    hh = table.width_mm * sx
    top = (h - hh) / 2
    corners = {
        "house-left": (margin_px, top),
        "house-right": (margin_px, top + hh),
        "pyramid-left": (w - margin_px, top),
        "pyramid-right": (w - margin_px, top + hh),
    }
    return Calibration.from_corners(corners, size, table)
