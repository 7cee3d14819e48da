"""A fast ball in a corner: cushion, jaw, cushion within three frames.

frame-s0's ball 3 runs into the house-left corner along the left-house cushion, touches it, bounces off the
pocket's jaw into the same cushion a frame later and comes away from it. The segmenter sees the path into the
jaw and the path out; the samples between the jaw and the second touch are one or two, so no V of the distance
to the nose line shows it. The outgoing path, run back, comes from behind the nose line: it met the cushion.
"""

from __future__ import annotations

import pytest

from tests.replay_support import replay
from tracking.detect import cushions

FIXTURE = "corner-60fps-frame-s0.json"


def _touches() -> tuple[list, list]:
    d, events = replay(FIXTURE)
    found = [(e.cushion, e.t or 0.0) for e in events if e.type == "cushion" and e.ball == "3"]
    return [(c, float(t)) for c, t in d["truth_touches"]], found


def test_the_cushion_met_off_a_jaw_is_found_within_a_frame() -> None:
    truth, found = _touches()
    assert len(found) == len(truth) == 3
    for (tc, tt), (fc, ft) in zip(truth, found, strict=True):
        assert fc == tc
        assert abs(ft - tt) <= 0.5 / 60


def test_without_the_cushion_run_back_the_second_touch_is_misnamed(monkeypatch: pytest.MonkeyPatch) -> None:
    # the outgoing path, run back, also leaves the jaws after the first touch: read as a second touch of the jaw
    # (tip, then face), the cushion's is lost
    monkeypatch.setattr(cushions, "cushion_after_jaw", lambda *a, **k: False)
    _, found = _touches()
    assert [c for c, _ in found] == ["left-house", "jaw:house-left", "jaw:house-left"]
