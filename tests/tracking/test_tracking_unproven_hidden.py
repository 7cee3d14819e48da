"""What the tracker holds while unseen must have been a ball. A weak blob taken for a ball as the video opens
(a pocket's pale facing flickering in and out of the detector) and then gone is forgotten once it has been gone
longer than a ball takes to prove itself; a ball seen clearly and then hidden (an arm over it) is held."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.tracker import Tracker

from .records import dets, feed

FPS = 25.0
CLEAR = np.array([900.0, 500.0])
BLOB = np.array([1400.0, 640.0])


def _opening_then_gone(blob_conf: float) -> tuple[list, str]:
    """A clear ball seen throughout; a second thing, of confidence ``blob_conf``, seen in frames 1-2 only;
    3 s in all. Returns the tracker's frames and the second thing's public id."""
    frames = []
    for i in range(int(3 * FPS)):
        pts, conf = [CLEAR], [0.95]
        if i in (1, 2):
            pts.append(BLOB)
            conf.append(blob_conf)
        frames.append((i / FPS, dets(pts, conf)))
    tracker = Tracker(TableModel())
    out = feed(tracker, frames)
    ids = {b.id for b in out[3].balls if float(np.hypot(*(np.array(b.pos) - BLOB))) < 5.0}
    assert len(ids) == 1, "the second thing became a public ball in the opening"
    return out, ids.pop()


def test_a_weak_blob_seen_twice_then_gone_is_forgotten_without_a_loss() -> None:
    out, name = _opening_then_gone(0.55)
    assert name not in out[-1].by_id()
    gone = next(f.t for f in out[3:] if name not in f.by_id())
    assert 1.0 < gone < 1.3  # kept while it could still have been a ball under an arm
    assert not [x for f in out for x in f.losses]


def test_a_clear_ball_seen_twice_then_hidden_is_held() -> None:
    out, name = _opening_then_gone(0.95)
    ball = out[-1].by_id()[name]
    assert not ball.visible and float(np.hypot(*(np.array(ball.pos) - BLOB))) < 5.0
    assert not [x for f in out for x in f.losses]
