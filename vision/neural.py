"""The neural ball detector: a small YOLO, exported to ONNX, run by onnxruntime (no torch at run time).

The network sees the table frame, not the camera frame: the playing field plus a margin, rectified with
the calibration to ``NeuralInput.width`` pixels across (``vision.rectify``), so tilt and lens distortion
are the calibration's business and a ball is always about 12 px wide. Its boxes are turned back into
ball centres in the recorded frame, refined on the ball's rim like the classical detector's
(``vision.refine``) and corrected for parallax. The weights and their model card live in
``models/detector/`` (``tableref train-detector`` writes them); without them this detector cannot be
built and says so, while the classical detector (the default) needs nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.mapping import Calibration
from vision.cloth import ClothModel
from vision.detections import CUE, Detections
from vision.detector import DetectorError, check_frame
from vision.parallax import ball_px_to_table, ball_radius_px
from vision.rectify import TableRectifier
from vision.refine import refine_centres

WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "models" / "detector"
WEIGHTS = WEIGHTS_DIR / "ball_yolo.onnx"


@dataclass(frozen=True)
class NeuralInput:
    """How a calibrated frame becomes the network's input; training and inference share it."""

    width: int = 640  # network input width (px); the field plus margins spans it
    height: int = 352  # network input height (px, a multiple of 32); the field is padded to it
    margin_mm: float = 60.0

    def rectifier(self, cal: Calibration) -> TableRectifier:
        t = cal.table
        s = self.width / (t.length_mm + 2 * self.margin_mm)
        return TableRectifier(cal, px_per_mm=s * (1 - 1e-9), margin_mm=self.margin_mm)

    def image(self, rect: TableRectifier, frame_bgr: np.ndarray) -> np.ndarray:
        """The network input: the rectified table, padded (grey) to ``height`` x ``width``."""
        img = rect.rectify(frame_bgr)
        out = np.full((self.height, self.width, 3), 114, np.uint8)
        h, w = min(img.shape[0], self.height), min(img.shape[1], self.width)
        out[:h, :w] = img[:h, :w]
        return out


class NeuralDetector:
    name = "neural"

    def __init__(
        self,
        calibration: Calibration,
        weights: str | Path | None = None,
        conf_threshold: float = 0.25,
        iou_threshold: float = 0.45,
        refine: bool = True,
        threads: int = 1,
    ) -> None:
        import onnxruntime as ort

        self.calibration = calibration
        path = Path(weights) if weights is not None else WEIGHTS
        if not path.exists():
            raise DetectorError(f"no neural detector weights at {path}: run `tableref train-detector` (train extra)")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        card = path.with_suffix(".json")
        meta = json.loads(card.read_text(encoding="utf-8")) if card.exists() else {}
        self.spec = NeuralInput(**meta.get("input", {}))
        self.rect = self.spec.rectifier(calibration)
        self.conf_threshold, self.iou_threshold = conf_threshold, iou_threshold
        self.refine = refine
        self.cloth = ClothModel()

    def _infer(self, img: np.ndarray) -> np.ndarray:
        """(N, 6) rows x1, y1, x2, y2, score, class in network-input pixels, after NMS."""
        blob = img[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        out = self.session.run(None, {self.input_name: np.ascontiguousarray(blob)})[0]
        pred = out[0].T  # (anchors, 4 + classes): cx, cy, w, h, class scores
        scores = pred[:, 4:]
        cls = np.argmax(scores, axis=1)
        conf = scores[np.arange(len(scores)), cls]
        keep = conf >= self.conf_threshold
        pred, cls, conf = pred[keep], cls[keep], conf[keep]
        if len(pred) == 0:
            return np.zeros((0, 6))
        boxes = np.column_stack([pred[:, 0] - pred[:, 2] / 2, pred[:, 1] - pred[:, 3] / 2, pred[:, 2], pred[:, 3]])
        kept = cv2.dnn.NMSBoxes(boxes.tolist(), conf.tolist(), self.conf_threshold, self.iou_threshold)
        idx = np.asarray(kept, dtype=np.int64).reshape(-1)
        b = boxes[idx]
        return np.column_stack([b[:, 0], b[:, 1], b[:, 0] + b[:, 2], b[:, 1] + b[:, 3], conf[idx], cls[idx]])

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        frame = check_frame(frame_bgr, self.calibration)
        img = self.spec.image(self.rect, frame)
        rows = self._infer(img)
        if len(rows) == 0:
            return Detections.empty()
        cal = self.calibration
        centre_grid = np.column_stack([(rows[:, 0] + rows[:, 2]) / 2, (rows[:, 1] + rows[:, 3]) / 2])
        on_cloth = self.rect.grid_to_table(centre_grid - 0.5)  # grid pixel centres sit at +0.5
        px = cal.table_to_image(on_cloth)
        radius = ball_radius_px(cal, on_cloth)
        colour = np.zeros((len(px), 3))
        if self.refine:
            if self.cloth.colour is None:
                self.cloth.initialise(img, np.full(img.shape[:2], 255, np.uint8))
            res = refine_centres(frame, px, radius, self.cloth)
            px, colour, radius = res.px, res.colour, res.radius
        pos = ball_px_to_table(cal, px)
        cls = np.where(rows[:, 5] == 1, CUE, 0).astype(np.int64)
        return Detections(px, pos, radius, np.clip(rows[:, 4], 0, 1), cls, colour)
