"""A ball confirmed in the opening on its look is a ball to the events from its birth: a dark ball on dark cloth
whose rim the detector finds poorly (confidence 0.40-0.47) but whose look is a ball's is reported above the
extractor's ghost threshold, so it never "vanishes" to the events and never strikes the cue ball from afar."""

from __future__ import annotations

import numpy as np

from api.pipeline import Pipeline
from calibration.contract import Event
from tests.tracking import real_records
from tracking.detect.settings import ExtractorSettings

RECORD = "real-dark-balls-born-on-their-look.json"
GHOST = ExtractorSettings().ghost_below
SIX, TWO, CUE = (75.0, 612.0), (1677.0, 623.0), (1136.0, 1072.0)  # their places at rest, table mm
STRUCK = 22  # the frame the cue ball is first seen moving


def _replay() -> tuple[list[dict[tuple[float, float], float]], list[Event]]:
    """Per frame, the quality the tracker reports for the public ball at each of SIX and TWO (absent
    where none is there), and the events."""
    doc, table, frames = real_records.load(RECORD)
    pipe = Pipeline(table=table, meas_sigma_mm=doc["settings"]["meas_sigma_mm"])
    seen = []
    for i, (t, d) in enumerate(frames):
        pipe.step_detections(d, i, t)
        assert pipe.last is not None
        near = {}
        for place in (SIX, TWO):
            for b in pipe.last.balls:
                if np.hypot(b.pos[0] - place[0], b.pos[1] - place[1]) < 20.0:
                    near[place] = b.quality
        seen.append(near)
    pipe.finish()
    return seen, pipe.sorted_events()


def test_dark_balls_born_on_their_look_are_balls_from_their_birth() -> None:
    seen, _ = _replay()
    for place in (SIX, TWO):
        frames = [i for i, near in enumerate(seen) if place in near]
        assert frames and frames[0] <= 3, (place, frames)  # public from the opening on
        low = [(i, seen[i][place]) for i in frames if seen[i][place] < GHOST]
        assert not low, (place, low)


def test_no_shot_starts_before_the_cue_ball_is_struck() -> None:
    _, events = _replay()
    starts = [e for e in events if e.type == "shot_start"]
    assert starts, "the cue ball's stroke starts a shot"
    first = starts[0]
    assert first.positions is not None and first.ball is not None and first.frame is not None
    # the striker is the ball resting at the cue ball's place, struck in frame 22: not the 6 on the far rail
    assert first.frame >= STRUCK - 1, first
    assert real_records.nearest(first.positions, CUE) == first.ball, first
