"""The ball-detector interface and the factory that builds one by name.

A detector is built for one camera view (a ``calibration.mapping.Calibration``) and turns a BGR frame
into ``Detections``. It may keep state between frames of the same view (the classical detector adapts its
cloth-colour model slowly), so use one detector per video stream.

    det = make_detector("classical", calibration)
    for frame in frames:
        dets = det.detect(frame)
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

import numpy as np

from calibration.mapping import Calibration
from vision.detections import Detections

# name -> (module, class, one-line description)
DETECTORS: dict[str, tuple[str, str, str]] = {
    "classical": ("vision.classical", "ClassicalDetector", "cloth model + fixed-radius Hough in the table frame"),
    "neural": ("vision.neural", "NeuralDetector", "YOLO exported to ONNX, run by onnxruntime"),
    "hough": ("vision.hough", "HoughDetector", "cv2.HoughCircles on the raw frame (baseline)"),
}


class DetectorError(ValueError):
    """A detector that cannot be built (unknown name, missing weights), with a one-line reason."""


@runtime_checkable
class Detector(Protocol):
    name: str
    calibration: Calibration

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        """The balls in one frame of the calibrated view."""
        ...


def make_detector(name: str, calibration: Calibration, **opts: Any) -> Detector:
    """A detector by name (``classical``, the default, ``neural`` or ``hough``) for one calibrated view."""
    if name not in DETECTORS:
        raise DetectorError(f"unknown detector {name!r}: choose one of {', '.join(DETECTORS)}")
    module, cls_name, _ = DETECTORS[name]
    cls = getattr(importlib.import_module(module), cls_name)
    det: Detector = cls(calibration, **opts)
    return det


def check_frame(frame_bgr: np.ndarray, calibration: Calibration) -> np.ndarray:
    """The frame as a contiguous uint8 BGR array of the calibrated size, or a ValueError saying why not."""
    frame = np.asarray(frame_bgr)
    if frame.ndim == 2:
        frame = np.repeat(frame[:, :, None], 3, axis=2)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected a uint8 BGR frame, got shape {frame.shape} {frame.dtype}")
    w, h = calibration.image_size
    if frame.shape[:2] != (h, w):
        raise ValueError(f"frame is {frame.shape[1]}x{frame.shape[0]} but the calibration is for {w}x{h}")
    return np.ascontiguousarray(frame)
