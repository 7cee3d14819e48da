"""The shot detectors as pure functions, fed hand-built records (no tracker, no extractor)."""

from __future__ import annotations

from tracking.detect import shots
from tracking.detect.settings import ShotSettings

S = ShotSettings()


def test_a_shot_ends_once_every_ball_has_rested_the_hold() -> None:
    assert not shots.quiet_long_enough(2.0, 2.0 + 0.5 * S.shot_end_hold_s, S)
    assert shots.quiet_long_enough(2.0, 2.0 + S.shot_end_hold_s, S)


def test_the_shot_end_carries_the_last_stop_and_the_resting_places() -> None:
    rests = {"cue": (900.0, 600.0), "1": (2000.0, 600.0)}
    c = shots.shot_end(3.25, rests)
    assert (c.kind, c.evidence, c.t, c.balls) == ("shot_end", "all_rest", 3.25, ())
    assert c.positions == rests and c.positions is not rests  # a copy: the extractor's record may change later
