"""``tableref detect IMAGE [--calibration FILE] [--detector NAME]``: the balls one image shows.

Prints one JSON object per detected ball (docs/CONTRACT.md section 7): ``px`` [u, v], ``pos`` [x, y] mm,
``radius_px``, ``confidence``, ``cls`` (``ball`` or ``cue``). Without ``--calibration`` the table is
found in the image itself (``calibration.auto``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from calibration.mapping import Calibration
from vision.detector import DETECTORS, make_detector


class ImageError(ValueError):
    """An image that cannot be read."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", help="an image file (PNG, JPEG, ...) or a video, whose first frame is used")
    parser.add_argument(
        "--calibration", metavar="FILE", help="calibration JSON from `tableref calibrate` (default: find the table)"
    )
    parser.add_argument(
        "--detector", choices=list(DETECTORS), default="classical", help="which detector (default: classical)"
    )
    parser.add_argument("--frame", type=int, default=0, help="frame index when IMAGE is a video (default 0)")


def read_image(path: str, frame: int = 0) -> cv2.typing.MatLike:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no image at {path}")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is not None:
        return img
    cap = cv2.VideoCapture(str(p))
    try:
        if frame:
            cap.set(cv2.CAP_PROP_POS_FRAMES, frame)
        ok, img = cap.read()
    finally:
        cap.release()
    if not ok or img is None:
        raise ImageError(f"{path} is not an image or video OpenCV can read")
    return img


def run(args: argparse.Namespace) -> int:
    img = read_image(args.image, args.frame)
    h, w = img.shape[:2]
    if args.calibration:
        cal = Calibration.load(args.calibration, expect_image_size=(w, h))
    else:
        from calibration.auto import auto_calibrate

        cal = auto_calibrate(img)
    det = make_detector(args.detector, cal)
    for rec in det.detect(img).to_records():
        sys.stdout.write(json.dumps(rec) + "\n")
    return 0
