"""The baseline: ``cv2.HoughCircles`` on the raw frame, as a naive detector would use it.

It knows only the ball radius the calibration predicts (a range around it) and keeps circles whose
centre maps inside the playing field. No cloth model, no rectification, no refinement: the yardstick the
other detectors are measured against.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.mapping import Calibration
from vision.detections import BALL, Detections
from vision.detector import check_frame
from vision.parallax import ball_px_to_table, ball_radius_px


class HoughDetector:
    name = "hough"

    def __init__(
        self, calibration: Calibration, param1: float = 100.0, param2: float = 18.0, radius_tolerance: float = 0.25
    ) -> None:
        self.calibration = calibration
        self.param1, self.param2 = param1, param2
        t = calibration.table
        probe = np.array([t.spots["center"], (t.ball_radius_mm, t.ball_radius_mm), (t.length_mm, t.width_mm)])
        r = ball_radius_px(calibration, probe)
        self.min_radius = max(2, int(np.floor(r.min() * (1 - radius_tolerance))))
        self.max_radius = int(np.ceil(r.max() * (1 + radius_tolerance)))

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        frame = check_frame(frame_bgr, self.calibration)
        gray = cv2.medianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), 5)
        circles = cv2.HoughCircles(
            gray, cv2.HOUGH_GRADIENT, dp=1, minDist=1.6 * self.min_radius, param1=self.param1, param2=self.param2,
            minRadius=self.min_radius, maxRadius=self.max_radius,
        )  # fmt: skip
        if circles is None:
            return Detections.empty()
        c = circles.reshape(-1, 3).astype(np.float64)
        t = self.calibration.table
        pos = ball_px_to_table(self.calibration, c[:, :2])
        r = t.ball_radius_mm
        inside = (pos[:, 0] > -r / 2) & (pos[:, 0] < t.length_mm + r / 2) & (pos[:, 1] > -r / 2)
        inside &= pos[:, 1] < t.width_mm + r / 2
        c, pos = c[inside], pos[inside]
        n = len(c)
        xi = np.clip(np.round(c[:, 0]).astype(int), 0, frame.shape[1] - 1)
        yi = np.clip(np.round(c[:, 1]).astype(int), 0, frame.shape[0] - 1)
        colour = frame[yi, xi].astype(np.float64)
        return Detections(c[:, :2], pos, c[:, 2], np.full(n, 0.5), np.full(n, BALL, np.int64), colour)
