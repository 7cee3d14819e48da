"""The extractor's per-frame sample windows where a ball has no usable sample in them.

A shaking camera throws a ball's detections off its fitted path (rejected outliers), and a hidden ball has
none at all; a window over such a stretch is empty, and every reader of it must take that as "not seen"."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import contacts, segments
from tracking.detect.segments import Ball
from tracking.extractor import EventExtractor

TABLE = TableModel()


def _ball(name: str, ts: list[float], xy: list[tuple[float, float]], sid: int) -> Ball:
    b = Ball(name)
    for t, p in zip(ts, xy, strict=True):
        b.ts.append(t)
        b.xy.append(np.array(p))
        b.sid.append(sid)
        b.ts_arr[len(b.ts) - 1] = t
        b.xy_arr[len(b.ts) - 1] = p
    return b


def test_a_window_with_no_kept_sample_is_empty_not_a_crash() -> None:
    ex = EventExtractor(TABLE)
    shaken = _ball("1", [0.0, 1 / 60, 2 / 60], [(500.0, 500.0), (530.0, 470.0), (490.0, 520.0)], sid=-1)
    kept, frames = segments.kept_frames(ex, shaken, 0, 3)
    assert kept.size == 0 and frames.size == 0
    hidden = _ball("2", [0.0], [(600.0, 500.0)], sid=1)
    kept, frames = segments.kept_frames(ex, hidden, 1, 1)
    assert kept.size == 0 and frames.size == 0


def test_two_balls_one_unseen_since_their_contact_are_not_known_to_have_stayed_together() -> None:
    ex = EventExtractor(TABLE)
    ts = [i / 60 for i in range(10)]
    a = _ball("1", ts, [(500.0 + 10 * i, 500.0) for i in range(10)], sid=1)
    b = _ball("2", ts[:2], [(568.0, 500.0), (569.0, 500.0)], sid=2)  # hidden from the third frame on
    assert contacts.parted(segments.pair_track(ex, a, b, ts[3], ts[9]), TABLE.ball_diameter_mm, ex.s.contacts)


def test_one_sample_per_frame_the_first_of_two_a_jittery_clock_rounds_together() -> None:
    ex = EventExtractor(TABLE)
    ts = [0.0, 1 / 60, 1 / 60 + 1e-4, 2 / 60]
    b = _ball("1", ts, [(500.0, 500.0), (510.0, 500.0), (511.0, 500.0), (520.0, 500.0)], sid=1)
    kept, frames = segments.kept_frames(ex, b, 0, 4)
    assert kept.tolist() == [0, 1, 3] and frames.tolist() == [0, 1, 2]
