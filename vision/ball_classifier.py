"""Ball or not a ball: a small learned judge of the classical detector's proposals.

The classical detector finds round, not-cloth things of a ball's size. On real footage a player's glove, a
wristwatch, a shirt badge or a ball lying in a pocket's hole is as round and as contrasted as a dark ball on
blue cloth, so no cut on its confidence separates them. What does is appearance: a ball is a lit sphere with
a specular highlight and a sharp round rim on cloth. A small convolutional network (trained by
``models/ball_classifier/train.py`` on crops of real tuning footage and varied renders, see its README) looks
at a square of ``SPAN_DIAMETERS`` ball diameters around each proposal, resized to ``CROP_PX`` pixels, so it
sees the rim and what lies around it, and says how likely it is a ball.

Runs with onnxruntime on the CPU, all proposals of a frame in one call; where the model file is missing or
onnxruntime cannot run it, ``load_ball_classifier`` warns once and returns None (the detector then keeps its
own confidence).
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from vision.packing import MIN_NEIGHBOURS, frozen_neighbours

CROP_PX = 32  # side of the square the network sees
SPAN_DIAMETERS = 2.5  # the square covers this many ball diameters around the proposal's centre
DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "ball_classifier" / "ball_classifier.onnx"


def cut_crops(frame_bgr: np.ndarray, px: np.ndarray, radius_px: np.ndarray, size: int = CROP_PX) -> np.ndarray:
    """(N, size, size, 3) uint8 BGR squares of ``SPAN_DIAMETERS`` diameters centred on each ``px`` (sub-pixel),
    edges past the frame repeated. One affine warp per crop (only the crop's pixels are touched)."""
    p = np.asarray(px, dtype=np.float64).reshape(-1, 2)
    r = np.asarray(radius_px, dtype=np.float64).reshape(-1)
    out = np.empty((len(p), size, size, 3), np.uint8)
    for i in range(len(p)):
        side = max(2.0 * SPAN_DIAMETERS * r[i], 2.0)
        s = size / side
        # Pixel centres at integers: the square's left edge (u - side/2) goes to the output's (-0.5).
        tx = -s * (p[i, 0] - side / 2.0) - 0.5
        ty = -s * (p[i, 1] - side / 2.0) - 0.5
        m = np.array([[s, 0.0, tx], [0.0, s, ty]])
        interp = cv2.INTER_AREA if s < 1.0 else cv2.INTER_LINEAR
        out[i] = cv2.warpAffine(frame_bgr, m, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return out


def to_input(crops: np.ndarray) -> np.ndarray:
    """The network's input: (N, 3, H, W) float32, BGR scaled to [-1, 1]."""
    x = np.asarray(crops, dtype=np.float32).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(x * (2.0 / 255.0) - 1.0)


class BallClassifier:
    """p(ball) for crops or for proposals in a frame, one onnxruntime call per batch."""

    def __init__(self, path: str | Path = DEFAULT_MODEL, threads: int = 1) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        # One thread: the live path already runs decoding, detection and tracking on the two cores, and a
        # batch of 16 small crops is too little work to share.
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        self._input = self.session.get_inputs()[0].name
        self._made_from = (str(path), threads)

    def __reduce__(self) -> tuple[type[BallClassifier], tuple[str, int]]:
        # a saved observer (``api.resume``) keeps the file it was loaded from; the session is loaded again from it
        return BallClassifier, self._made_from

    def predict_crops(self, crops: np.ndarray) -> np.ndarray:
        """(N,) p(ball) for (N, CROP_PX, CROP_PX, 3) uint8 BGR crops."""
        if len(crops) == 0:
            return np.zeros(0)
        logits = self.session.run(None, {self._input: to_input(crops)})[0]
        return 1.0 / (1.0 + np.exp(-np.asarray(logits, dtype=np.float64).reshape(len(crops), -1)[:, 0]))

    def predict(self, frame_bgr: np.ndarray, px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
        """(N,) p(ball) for proposals centred at ``px`` with image radius ``radius_px`` in ``frame_bgr``."""
        return self.predict_crops(cut_crops(frame_bgr, px, radius_px))


_LOADED: dict[str, BallClassifier | None] = {}


def load_ball_classifier(path: str | Path = DEFAULT_MODEL) -> BallClassifier | None:
    """The classifier at ``path`` (loaded once per process), or None with a one-line warning on stderr where
    the file is missing or onnxruntime cannot load it."""
    key = str(path)
    if key not in _LOADED:
        try:
            if not Path(path).is_file():
                raise FileNotFoundError(f"no model file {path}")
            _LOADED[key] = BallClassifier(path)
        except Exception as exc:  # onnxruntime raises its own types; any failure means: do without it
            print(f"warning: ball classifier not used ({str(exc).splitlines()[0][:160]})", file=sys.stderr)
            _LOADED[key] = None
    return _LOADED[key]


def combine(confidence: np.ndarray, p_ball: np.ndarray) -> np.ndarray:
    """A proposal's confidence as a new ball: the mean of the detector's (geometry: vote peak and rim) and the
    classifier's (appearance) where that is the higher, else the detector's own (NaN p: not judged). A dark ball
    on blue cloth that the rim finds poorly but that looks like a ball rises to where a track may start."""
    conf = np.asarray(confidence, dtype=float)
    return np.clip(np.fmax(conf, 0.5 * (conf + np.asarray(p_ball, dtype=float))), 0.0, 1.0)


def packed(pos_mm: np.ndarray, diameter_mm: float) -> np.ndarray:
    """(N,) bool: the proposal is frozen in a packing (``vision.packing``: one diameter from two or more
    others). A hand, a glove or a cue does not make one, and a crop of 2.5 diameters around a rack ball shows
    mostly other balls, which the network has seen too little of: such proposals are never dropped."""
    return frozen_neighbours(pos_mm, diameter_mm) >= MIN_NEIGHBOURS


def judge(
    classifier: BallClassifier, frame_bgr: np.ndarray, px: np.ndarray, radius_px: np.ndarray,
    min_p: float, sure: np.ndarray, unjudged: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Which proposals look unlike a ball (p(ball) < ``min_p``, unless ``sure`` by their geometry: frozen in a
    packing, see ``packed``, or a clean ball's vote peak and rim, see ``vision.classical``) and every proposal's
    p(ball) (NaN where not judged). Nothing is dropped and no confidence changed: a ball in the cue's shadow
    can look unlike one and must still continue its track; what its look decides is whether a new ball may
    start there (``Detections.unlike_ball``, ``p_ball``). Proposals marked ``unjudged`` (inside a pocket's
    mouth, or a clean ball's rim and vote peak: ``vision.classical``) are not shown to the network."""
    n = len(np.asarray(px).reshape(-1, 2))
    unlike, p_ball = np.zeros(n, bool), np.full(n, np.nan)
    ask = np.flatnonzero(~np.asarray(unjudged, dtype=bool))
    if len(ask) == 0:
        return unlike, p_ball
    p = classifier.predict(frame_bgr, np.asarray(px)[ask], np.asarray(radius_px)[ask])
    p_ball[ask] = p
    unlike[ask] = (p < min_p) & ~np.asarray(sure, dtype=bool)[ask]
    return unlike, p_ball
