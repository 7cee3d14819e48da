"""What each ball looks like: its mean colour as the detector measured it, by tracker id.

A ball the camera could not number (``t6``) is named for people by what they see (api.names: "the yellow
ball" in a coloured set, "a ball" in a white one). The detector measures every detection's mean colour (BGR of
the inner disc, ``vision.detections.Detections.colour``); this keeps, for each tracked ball, the mean over
the frames it was seen at rest, where the disc is sharp (a moving ball's disc is smeared with the cloth), and
imaged large enough for its colour to be read (``names.named_size``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from api import names

MATCH_MM = 10.0  # a tracked ball's measurement is one of the frame's detections: well within a radius of it
MIN_SEEN = 5  # frames at rest before a colour names a ball (one frame can be a hand's shadow over it)


class BallLooks:
    def __init__(self) -> None:
        self._sum: dict[str, np.ndarray] = {}
        self._n: dict[str, int] = {}

    def observe(self, balls: Iterable[Any], detections: Any) -> None:
        """One frame: ``balls`` are the tracker's ``BallObs`` (id, meas, resting), ``detections`` what it was
        given (``pos_mm`` and, when the detector measures it, ``colour``)."""
        colour = getattr(detections, "colour", None)
        if colour is None:
            return
        pos = np.asarray(detections.pos_mm, dtype=float).reshape(-1, 2)
        col = np.asarray(colour, dtype=float).reshape(-1, 3)
        if not len(pos) or len(col) != len(pos):
            return
        still = [b for b in balls if b.meas is not None and b.resting]
        if not still:
            return
        radius = getattr(detections, "radius_px", None)
        sized = np.ones(len(pos), bool) if radius is None else np.array([names.named_size(float(r)) for r in radius])
        # each resting ball's nearest detection, all balls at once (balls x detections)
        meas = np.array([b.meas for b in still], dtype=float)
        d = np.hypot(pos[None, :, 0] - meas[:, 0:1], pos[None, :, 1] - meas[:, 1:2])
        nearest = np.argmin(d, axis=1)
        gaps = d[np.arange(len(still)), nearest]
        for b, k, gap in zip(still, nearest.tolist(), gaps.tolist(), strict=True):
            if gap > MATCH_MM or not sized[k]:
                continue
            self._sum[b.id] = self._sum.get(b.id, np.zeros(3)) + col[k]
            self._n[b.id] = self._n.get(b.id, 0) + 1

    def rename(self, mapping: Mapping[str, str]) -> None:
        """Ids corrected (all at once: a swap keeps both colours)."""
        if not mapping:
            return
        self._sum = {mapping.get(k, k): v for k, v in self._sum.items()}
        self._n = {mapping.get(k, k): v for k, v in self._n.items()}

    def colours(self, min_seen: int = MIN_SEEN) -> dict[str, tuple[float, float, float]]:
        """Each ball's mean BGR colour at rest, once seen at rest ``min_seen`` times."""
        out = {}
        for ball, n in self._n.items():
            if n >= min_seen:
                b, g, r = (float(c) for c in self._sum[ball] / n)
                out[ball] = (b, g, r)
        return out

    def words(self) -> dict[str, str]:
        """The colour word of each ball the camera could not number that its colour names (api.names.looks)."""
        return names.looks(self.colours())
