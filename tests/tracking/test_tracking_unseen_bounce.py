"""A fast ball that vanishes beside a cushion, bounces off it unseen and comes back far along its rebound is the
same ball, not a ball off the table.

cushion-first-s1 at 30 fps: the cue ball, struck at 3.9 m/s, is last seen 92 mm from the left cushion. It
bounces off the cushion and hits ball 1 while the detector misses its blur for 8 frames; it is seen again
beside ball 1, 690 mm from where it vanished. Its extrapolation (bounce included) stops after ``coast_s`` and
the ball is then held where it was last seen; looked for only around that place, it was never found again, and
at the rail's edge at that speed it was called off the table (a foul: 001's cue ball off the table), the hit on
ball 1 unseen. Where the extrapolation had taken it is looked at too.
"""

from __future__ import annotations

import pytest

from tests.replay_support import replay
from tracking.tracker import _Track

FIXTURE = "unseen-bounce-30fps-cushion-first-s1.json"


def test_the_ball_seen_again_along_its_rebound_keeps_its_id() -> None:
    d, events = replay(FIXTURE)
    assert not [e for e in events if e.type == "off_table"]
    hits = [e for e in events if e.type == "contact"]
    assert [set(e.balls or ()) for e in hits] == [{"cue", "1"}]
    assert abs((hits[0].t or 0.0) - d["truth_contact_t"]) <= 1 / 30


def test_looked_for_only_where_it_was_held_it_is_called_off_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: the place its extrapolation reached never kept, the same detections give the false call
    monkeypatch.setattr(_Track, "coast_end", property(lambda self: None, lambda self, value: None))
    _, events = replay(FIXTURE)
    assert [e.ball for e in events if e.type == "off_table"] == ["cue"]
