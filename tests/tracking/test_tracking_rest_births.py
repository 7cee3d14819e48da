"""Every ball at rest has a track, and nothing is born where no ball can be (issue 34 items 3-4), on detection
records cut from real footage (``tests/data/tracking/real-*.json``: what ``tableref detect`` found around one
place, frame by frame)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from api.pipeline import noise_settings
from calibration.table import TableModel, TableSpec
from tracking.detect.settings import ExtractorSettings
from tracking.tracker import Tracker, TrackerFrame, TrackerSettings

DATA = Path(__file__).parents[1] / "data" / "tracking"
GHOST = ExtractorSettings().ghost_below  # a track reported below this is no ball to the events or tracks.csv


def _pool_table(doc: dict) -> TableModel:
    length, width = doc["table_mm"]
    d = doc["ball_mm"]
    return TableModel(TableSpec(length_mm=length, width_mm=width, ball_diameter_mm=d, corner_mouth_mm=2 * d,
                                middle_mouth_mm=2.25 * d))  # fmt: skip


def _settings(px_per_mm: float) -> TrackerSettings:
    """The tracker's settings for a camera of ``px_per_mm``, as the pipeline makes them from its detection noise."""
    return noise_settings(max(1.2, 1.2 / px_per_mm))[0]


def _run(name: str) -> tuple[dict, list[TrackerFrame]]:
    doc = json.loads((DATA / name).read_text())
    tracker = Tracker(_pool_table(doc), _settings(doc["px_per_mm"]))
    out = []
    for i, f in enumerate(doc["frames"]):
        z = np.array(f["pos_mm"], dtype=float).reshape(-1, 2)
        col = None if f.get("colour") is None else np.array(f["colour"], dtype=float).reshape(-1, 3)
        out.append(tracker.step(i, f["t"], z, np.array(f["confidence"], dtype=float), np.zeros(len(z), bool), col))
    return doc, out


def _believed(frame: TrackerFrame) -> list:
    return [b for b in frame.balls if b.quality >= GHOST]


def _first_believed_t(out: list[TrackerFrame]) -> float | None:
    return next((f.t for f in out if _believed(f)), None)


def test_a_dark_ball_at_rest_scored_weakly_is_a_ball_within_a_second() -> None:
    # A black ball on blue cloth: detections 0.48-0.60 (a ball's track averages under the ghost line), its
    # centre found some 15 mm about (a faint rim). Held still, it is a ball after rest_vouch_s.
    doc, out = _run("real-dark-ball-at-rest.json")
    t0 = out[0].t
    t = _first_believed_t(out)
    assert t is not None, "the ball at rest never became a believed ball"
    assert t - t0 <= Tracker(_pool_table(doc)).s.rest_vouch_s + 0.2
    assert all(len(_believed(f)) == 1 for f in out if f.t >= t), "it must stay one ball once believed"
    seen = np.array([p for f in doc["frames"] for p in f["pos_mm"]])
    assert np.hypot(*(np.array(_believed(out[-1])[0].pos) - seen.mean(axis=0))) < 10.0


def test_a_ball_too_weak_to_start_a_track_gets_one_once_it_has_held_still() -> None:
    # Every detection below new_track_confidence (a green ball on blue cloth): no track starts on any one of
    # them, but a second of them at one place is a ball at rest.
    doc, out = _run("real-weak-ball-at-rest.json")
    tracker = Tracker(_pool_table(doc))
    assert max(max(f["confidence"], default=0.0) for f in doc["frames"]) < tracker.s.new_track_confidence
    t = _first_believed_t(out)
    assert t is not None, "a ball held still for over a second never got a track"
    assert t - out[0].t <= tracker.s.rest_vouch_s + 0.2
    assert len({b.id for f in out for b in f.balls}) == 1
    assert out[-1].balls[0].resting


def test_a_hand_on_the_cushion_is_never_a_ball() -> None:
    # The player's bridge hand on the near cushion, scored 0.50-0.70: its centre lies past the cushion nose,
    # where no ball's centre can be, so it is never born, however confident.
    doc, out = _run("real-hand-on-cushion.json")
    width = doc["table_mm"][1]
    assert any(max(f["confidence"], default=0.0) > 0.65 for f in doc["frames"])
    assert all(p[1] > width - 0.5 * doc["ball_mm"] / 2 for f in doc["frames"] for p in f["pos_mm"])
    assert not any(f.balls for f in out)


def test_a_bridge_hand_held_still_briefly_is_not_believed() -> None:
    # A gloved bridge hand held still on the cloth for 0.4 s before the stroke, then gone: too short a rest to be
    # a ball, it never reaches the ghost line.
    _, out = _run("real-bridge-hand-still.json")
    assert not any(_believed(f) for f in out)


def test_a_ball_in_a_corner_pockets_mouth_may_be_born() -> None:
    # A ball hanging in a pocket's jaws lies nearer the cushions' lines than a radius, where the mouth opens.
    doc = {"table_mm": [2540, 1270], "ball_mm": 57.15}
    tracker = Tracker(_pool_table(doc))
    jaws = np.array([[30.0, 30.0]])  # 15 mm past the mouth line, 10 mm from each cushion line
    out = [tracker.step(i, i / 25.0, jaws, np.array([0.9]), np.zeros(1, bool)) for i in range(3)]
    assert out[-1].balls, "a ball resting in a corner pocket's mouth is a ball"
    beside = np.array([[600.0, 6.0]])  # as near the cushion line, away from any mouth: the cushion itself
    tracker = Tracker(_pool_table(doc))
    out = [tracker.step(i, i / 25.0, beside, np.array([0.9]), np.zeros(1, bool)) for i in range(3)]
    assert not out[-1].balls
