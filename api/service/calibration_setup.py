"""The calibration a service observes its source with: a file given with ``--calibration`` (a hand-made one
missing the camera's pose has it estimated from its corners, or is refused with the reason), a synth
scenario's exact camera, or one found automatically from the first seconds of the source.

Why the pose matters: a ball's centre is a radius above the cloth, so where the camera's ray through it meets
the cloth depends on where the camera is. A file with only the corners and a lens model leaves the focal
length, hence the camera's height, unknown; assuming one (one image width) put ball positions 10-19 mm off on
a camera tilted 13 degrees. A tilted view shows its focal length in the corners' perspective; a view from
straight above does not, and such a file needs ``camera_height_mm`` or ``lens.camera_matrix``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from calibration.mapping import CORNER_NAMES, Calibration, CalibrationError, default_camera_matrix


class CalibrationRefused(ValueError):
    """A calibration the service cannot observe with, and why (one line)."""


def load_for_service(path: str | Path) -> tuple[Calibration, dict[str, Any]]:
    """The calibration in ``path`` with its pose, and what /state says about it."""
    path = Path(path)
    try:
        cal = Calibration.load(path)
        raw = json.loads(path.read_text(encoding="utf-8"))
    except CalibrationError as exc:
        raise CalibrationRefused(f"{path}: {exc}") from None
    info: dict[str, Any] = {"status": "loaded", "file": str(path), "source": cal.source, "quality": cal.quality}
    lens = raw.get("lens") if isinstance(raw.get("lens"), dict) else {}
    if "camera_matrix" in lens or raw.get("camera_height_mm"):
        return cal, info
    completed = with_estimated_pose(cal)
    if completed is None:
        raise CalibrationRefused(
            f"{path} gives no camera pose (neither lens.camera_matrix nor camera_height_mm) and the view is too "
            "close to straight down to estimate the focal length from its corners: add camera_height_mm (the "
            "lens's height above the cloth, mm) or the lens's camera_matrix"
        )
    f = float(completed.camera_matrix[0, 0])
    height = -float(completed.camera_centre_mm()[2])
    info["pose"] = f"estimated from the corners' perspective: focal length {f:.0f} px, camera {height:.0f} mm high"
    return completed, info


def with_estimated_pose(cal: Calibration) -> Calibration | None:
    """``cal`` with the focal length its corners' perspective implies (square pixels, principal point at the
    centre), the lens's distortion kept the same in pixels; None where the view does not show it."""
    from calibration.auto import _focal_from_homography  # the automatic calibration's own estimate

    k0 = default_camera_matrix(cal.image_size)
    base = Calibration.from_corners(cal.corners_px, cal.image_size, cal.table, camera_matrix=k0, k1=cal.k1, k2=cal.k2)
    und = base.undistort_px(np.array([cal.corners_px[n] for n in CORNER_NAMES]))
    corners_und = {n: und[i] for i, n in enumerate(CORNER_NAMES)}
    kmat, how = _focal_from_homography(corners_und, cal.table, k0, cal.image_size, False)
    if how != "homography":
        return None
    s2 = (kmat[0, 0] / k0[0, 0]) ** 2
    quality = {**cal.quality, "focal_source": "homography (hand-made calibration)"}
    return Calibration.from_corners(
        cal.corners_px, cal.image_size, cal.table, camera_matrix=kmat, k1=cal.k1 * s2, k2=cal.k2 * s2 * s2,
        source=cal.source, quality=quality,
    )  # fmt: skip


def auto_for_file(video: Path) -> tuple[Calibration, dict[str, Any]]:
    """Found in the first seconds of a recorded video (as ``analyze`` does), or refused with the reason."""
    from calibration.auto import auto_calibrate
    from calibration.table_finder import read_source

    try:
        cal = auto_calibrate(read_source(video))
    except (ValueError, OSError) as exc:
        raise CalibrationRefused(
            f"automatic calibration from the first seconds of {video.name} failed ({exc}); give --calibration FILE "
            "(tableref calibrate)"
        ) from None
    return cal, {"status": "automatic", "detail": f"found in the first seconds of {video.name}",
                 "source": cal.source, "quality": cal.quality}  # fmt: skip


def auto_from_frames(frames: list[np.ndarray]) -> Calibration:
    """Found in the per-pixel median of a live source's first frames (players and moving balls drop out)."""
    from calibration.auto import auto_calibrate

    img = np.median(np.stack(frames), axis=0).astype(np.uint8)
    return auto_calibrate(img)
