"""The confidence of a ball frozen among others (a rack, a cluster).

The classical detector's confidence is half the strength of the ball's vote peak (or blob) and half the
share of its rim that shows an edge. Among frozen balls both fall for reasons that say nothing about
whether it is a ball: the cloth-contrast blob is the whole cluster, so its vote peak measures the cluster's
shape; and where two outlines touch there is no cloth between them, so that arc of each rim shows no edge.
A ball inside a rack scores 0.47-0.55 where a lone ball scores 0.96, below a player's glove (0.57-0.80).

What does say it is a ball is the packing: centres one diameter apart from two or more others, which a hand,
a glove or a cue does not make. For such a detection the confidence is its rim support judged against the
rim it can show: each frozen neighbour hides the arc where the two outlines are closer than the edge
operator can resolve (``RIM_HIDDEN_PER_CONTACT``, measured on rendered racks at 720p, 1080p and 4K: the
support falls from 0.92 alone to 0.58 with six neighbours).
"""

from __future__ import annotations

import numpy as np

# A share of the rim hidden per touching neighbour (measured; see the module docstring).
RIM_HIDDEN_PER_CONTACT = 0.055
# Two detections this close to one diameter apart are frozen together: the spread of a centre's position in
# a rack (refinement, parallax) is about a millimetre, and a rack set by hand leaves gaps up to a millimetre.
FROZEN_TOL_MM = 5.0
MIN_NEIGHBOURS = 2  # one neighbour is any ball beside any blob; two at a diameter is a packing


def frozen_neighbours(pos_mm: np.ndarray, diameter_mm: float, tol_mm: float = FROZEN_TOL_MM) -> np.ndarray:
    """How many other detections lie one diameter (within ``tol_mm``) from each of ``pos_mm`` (N x 2)."""
    p = np.asarray(pos_mm, dtype=float).reshape(-1, 2)
    if len(p) < 2:
        return np.zeros(len(p), np.int64)
    d = np.linalg.norm(p[:, None, :] - p[None, :, :], axis=2)
    return np.count_nonzero(np.abs(d - diameter_mm) <= tol_mm, axis=1)


def packed_confidence(support: np.ndarray, confidence: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """Each detection's confidence, raised for a ball frozen among two or more others (``neighbours``: its count
    of ``frozen_neighbours``) to the share of its visible rim that shows an edge (never lowered)."""
    conf = np.asarray(confidence, dtype=float).copy()
    k = np.asarray(neighbours)
    packed = k >= MIN_NEIGHBOURS
    if packed.any():
        visible = np.clip(1.0 - RIM_HIDDEN_PER_CONTACT * k[packed], 0.3, 1.0)
        rim = np.minimum(np.asarray(support, dtype=float)[packed] / visible, 1.0)
        conf[packed] = np.maximum(conf[packed], rim)
    return conf
