"""The hitter of a ball set off inside a loose pack, read off the way it first left its place
(``breaks.first_step``): a neighbour just hit runs the gap to it within a frame, and the ball, hit again by
another neighbour a frame later, turns before a path fitted over its first samples can say where it went."""

from __future__ import annotations

import json

import numpy as np

from api.pipeline import Pipeline
from calibration.table import TableModel, TableSpec
from tests.tracking.real_records import DATA
from tracking.detect import contacts
from tracking.detect.breaks import first_step
from tracking.detect.segments import MovingSamples, SetOffView
from tracking.detect.settings import ContactSettings
from tracking.trajectory import PathFit
from vision.detections import Detections

S = ContactSettings()
D = TableModel().ball_diameter_mm
WHITE = (215.0, 215.0, 215.0)
RECORD = "chain-through-a-loose-pack.json"

# Read off the 60 fps render of the same chain: ball 14 rests at P14; ball 5, hit at 3.715 s, runs into it
# (seen at these samples, the first three of its path from rest); 14 leaves along the line of centres from 5,
# then meets 11 within the frame and comes back off it.
DT60 = 1.0 / 60.0
P14 = np.array([2832.2, 756.6])
RUN5 = MovingSamples(
    "5",
    np.array([3.7333, 3.75, 3.7667, 3.7833, 3.8]),
    np.array([[2793.5, 810.8], [2806.1, 817.4], [2811.6, 814.0], [2814.3, 810.6], [2817.7, 807.0]]),
    np.zeros(5, dtype=np.int64),
    np.full(5, 3.7333),
    np.array([True, True, True, False, False]),
)
FIRST_STEP_14 = np.array([8.0, -14.2])  # its place to its first sample off it
FITTED_14 = np.array([-76.0, -125.0])  # its path over its first samples, turned back off 11


def test_a_ball_that_came_to_its_place_hit_it_along_the_way_it_first_left() -> None:
    hit = contacts.reached_by([RUN5], "14", P14, FIRST_STEP_14, 3.545, 3.7667, D, S, DT60)
    assert hit is not None and hit[0] == "5"
    assert 3.70 <= hit[1] <= 3.75  # (truth: 3.727)


def test_the_path_fitted_after_a_second_touch_points_away_from_its_hitter() -> None:
    # why the first step is read: the fitted path, turned by the second touch, is 67 degrees off the line of
    # centres from 5, beyond nudge_angle_deg, and 5 would be no hitter
    assert contacts.reached_by([RUN5], "14", P14, FITTED_14, 3.545, 3.7667, D, S, DT60) is None


def test_the_first_step_is_the_first_sample_clear_of_the_noise() -> None:
    place = np.array([100.0, 100.0])
    xy = np.array([[101.0, 100.5], [108.0, 94.0], [110.0, 80.0]])  # jitter, the first step, then turned
    view = SetOffView("b", place, 0.0, 0.1, np.zeros(0), np.zeros((0, 2)), np.arange(3) * DT60, xy,
                      PathFit.still(place, 0.0, 1.0))  # fmt: skip
    assert np.allclose(first_step(view, 3.0), [8.0, -6.0])
    assert first_step(view, 50.0) is None


def _run_record() -> tuple[dict, list]:
    doc = json.loads((DATA / RECORD).read_text())
    (length, width), (corner, middle) = doc["table_mm"], doc["mouths_mm"]
    spec = TableSpec(length_mm=length, width_mm=width, ball_diameter_mm=doc["ball_mm"], corner_mouth_mm=corner,
                     middle_mouth_mm=middle)  # fmt: skip
    known = {k: (float(v[0]), float(v[1])) for k, v in doc["known_ids"].items()}
    pipe = Pipeline(table=TableModel(spec), meas_sigma_mm=doc["settings"]["meas_sigma_mm"], known_ids=known)
    for i, f in enumerate(doc["frames"]):
        z = np.array(f["pos_mm"], dtype=float).reshape(-1, 2)
        n = len(z)
        d = Detections(z * 0.5 + 20.0, z, np.full(n, 15.0), np.array(f["confidence"]), np.array(f["cls"]),
                       np.tile(WHITE, (n, 1)), np.zeros(n, bool), np.zeros(n, bool))  # fmt: skip
        pipe.step_detections(d, i, f["t"])
    pipe.finish()
    return doc, pipe.sorted_events()


def test_a_chain_through_a_loose_pack_is_contacts_not_a_touched_ball() -> None:
    doc, events = _run_record()
    # a ball set off by a neighbour hit in the same frame is no ball touched by hand (a foul, 2.1.22(4))
    assert not [e for e in events if e.type == "disturbed"]
    found = [(frozenset(e.balls or ()), e.t) for e in events if e.type == "contact"]
    dt = 1.0 / doc["fps"]
    for a, b, t in doc["truth"]["contacts"][:3]:  # 7->5, 5->14, 14->11: the chain that set 11 off
        assert any(pair == {a, b} and abs(t_f - t) <= 1.5 * dt for pair, t_f in found), (a, b, t)
