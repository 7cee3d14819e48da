"""A ball seen in a corner pocket's hole, past its mouth line, has dropped (``TrackerSettings.dropped_depth_mm``).

The detector keeps centres up to 17 mm outside the field's rectangle, which in a corner reaches 60 mm past the
mouth line: a ball resting in the hole (a net seen from above) is still detected there, and only the ball
going into that pocket may take such a detection."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.table import TableModel
from tracking.tracker import Tracker
from tracking.tracker_settings import TrackerSettings

TABLE = TableModel()
FPS = 60.0
RUN_MM = 400.0  # the ball's run to the mouth line, at 1 m/s
OTHER = (2000.0, 900.0)  # a resting ball elsewhere


def _into_the_corner(settings: TrackerSettings, sit_mm: float) -> list[tuple[int, str, str | None]]:
    """Ball 1 rolls into the house-left pocket and stays in sight ``sit_mm`` past its mouth line for two
    seconds; returns the tracker's losses (frame, kind, pocket)."""
    pk = TABLE.pockets["house-left"]
    mouth, out = np.array(pk.mouth_center), np.array(pk.outward)
    start = mouth - out * RUN_MM
    tracker = Tracker(TABLE, settings, known_ids={"1": tuple(start), "2": OTHER})
    losses = []
    for i in range(int(2.5 * FPS)):
        t = i / FPS
        d = min(1000.0 * t, RUN_MM + sit_mm)
        inside = 0 if d > RUN_MM else -1  # vision marks a detection past the mouth, between the jaws
        f = tracker.step(i, t, np.array([OTHER, start + out * d]), np.array([0.95, 0.9]), pocket=np.array([-1, inside]))
        losses += [(i, loss.kind, loss.pocket) for loss in f.losses if loss.id == "1"]
    return losses


@pytest.mark.parametrize("sit_mm", [40.0, 55.0])
def test_a_ball_seen_in_the_hole_of_a_corner_pocket_is_potted(sit_mm: float) -> None:
    s = TrackerSettings()
    assert s.dropped_depth_mm < sit_mm
    losses = _into_the_corner(s, sit_mm)
    assert [(k, p) for _, k, p in losses] == [("pot", "house-left")]
    # reaching the mouth line at 0.4 s, gone from the cloth at once, confirmed after pot_confirm_s
    assert losses[0][0] / FPS < (RUN_MM + sit_mm) / 1000.0 + s.pot_confirm_s + 0.1


def test_taking_its_detections_in_the_hole_the_ball_is_never_potted() -> None:
    # the case above is the depth's doing: with every depth on the cloth, the ball in the hole stays in play
    assert _into_the_corner(replace(TrackerSettings(), dropped_depth_mm=1e9), 40.0) == []
