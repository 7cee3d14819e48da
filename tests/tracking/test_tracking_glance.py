"""Where two rolling balls meet: a glancing hit timed on the paths they came in on, and a ball rolled along a
cushion that meets another is no touch of the cushion.

A glancing hit bends each path only a little, so the tracker may take the first frame after the hit into the
incoming path before the bend shows. A contact timed on such a path (and on the other ball's, bent the same
way) comes out a frame or more late; timed on the paths up to the frame before, it is within the frame.
"""

from __future__ import annotations

import pytest

from tests.replay_support import contacts, replay
from tracking.detect import cushions, segments


@pytest.mark.parametrize("trimmed", [True, False])
def test_a_glancing_hit_of_two_rolling_balls_is_timed_on_their_paths_before_it(trimmed: bool, monkeypatch) -> None:
    # The suite's cluster-frame-s4 at 1080p60 (tests/data: every detection of frames 96-150). Ball 14 (1.2 m/s)
    # glances off ball 6 (0.45 m/s) at 2.1941 s; the frame at 2.2000 s is the last of both incoming paths.
    if not trimmed:
        monkeypatch.setattr(segments, "trimmed_before_kink", lambda ex, *a, **k: None)
    d, events = replay("glance-60fps-cluster-frame-s4.json")
    found = contacts(events, {"14", "6"})
    assert len(found) == 1
    late = (found[0].t or 0.0) - d["truth_contact_t"]
    if trimmed:
        assert abs(late) <= 0.5 / 60
    else:
        assert late > 1 / 60  # outside the one-frame tolerance of the suite's scoring


@pytest.mark.parametrize("hugs", [True, False])
def test_a_ball_rolled_along_its_cushion_does_not_touch_it_anew(hugs: bool, monkeypatch) -> None:
    # The suite's frozen-cushion-roll-s5 at 1080p60 (tests/data: every detection of frames 40-110). The cue ball,
    # frozen to the left cushion, is struck along it and hits ball 1, frozen to it 416 mm on, at 1.1780 s; its
    # path bends there. It never left the cushion (its detections within 2 mm of touching it over the 0.1 s
    # before): the bend is the hit, not a touch of the cushion (the truth's rule, RULES-DIGEST: a frozen ball's
    # touches of its own cushion do not count until it has moved away).
    if not hugs:
        monkeypatch.setattr(cushions, "hugs", lambda ex, *a, **k: False)
    d, events = replay("roll-60fps-frozen-cushion-roll-s5.json")
    found = contacts(events, {"cue", "1"})
    assert len(found) == 1 and abs((found[0].t or 0.0) - d["truth_contact_t"]) <= 0.5 / 60
    touches = [e for e in events if e.type == "cushion" and e.ball == "cue"]
    assert (touches == []) == hugs


def test_samples_that_round_to_one_frame_do_not_break_the_kiss_check() -> None:
    # The suite's frame-s1 at 1080p60 (tests/data: frames 1000-1125, their times rounded to 0.1 ms). The kiss
    # check keys each ball's samples by frame number, its time over the running frame period; rounded times
    # put two samples of a ball on one key, and the pairing of two balls' samples read past the end of a window
    # (IndexError). A jittery camera clock does the same.
    d, events = replay("jitter-60fps-frame-s1.json")
    found = contacts(events, {"cue", "5"})
    assert [e.balls for e in found] == [("cue", "5")] and abs((found[0].t or 0.0) - d["truth_contact_t"]) <= 1 / 60
