"""Each gate of ``tracking.gates`` on a small scene built from real detection records: the pair it exists to
rule out is ruled out, and its clear counterpart is not."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from api.pipeline import Pipeline
from calibration.table import TableModel, TableSpec
from tracking import association, gates
from tracking.association import Scene
from tracking.tracker import Tracker, TrackerFrame, TrackerSettings
from vision.detections import CUE, Detections

from . import real_records
from .records import RED, WHITE, YELLOW, dets, feed, row

TABLE = TableModel()
FPS = 60.0
DATA = Path(__file__).parents[1] / "data" / "tracking"
GATE = {g.name: g for g in gates.GATES}


def _forbids(name: str, sc: Scene) -> np.ndarray:
    """The pairs gate ``name`` forbids in ``sc``, after the gates before it (as the tracker applies them)."""
    cost, tier = association.costs(sc)
    allowed = np.isfinite(cost)
    for g in gates.GATES:
        if g.name == name:
            return allowed & g.forbid(sc, allowed, tier)
        allowed = g.allows(sc, allowed, tier)
    raise KeyError(name)


def _rest(tracker: Tracker, balls: dict[str, tuple[float, float]], seconds: float = 1.0) -> float:
    """The balls at rest, seen in every frame for ``seconds``; returns the next frame's time."""
    pts = list(balls.values())
    n = int(seconds * FPS)
    feed(tracker, [(i / FPS, dets(pts, cue=[k == "cue" for k in balls])) for i in range(n)])
    return n / FPS


def test_every_gate_has_a_name_and_a_one_line_reason() -> None:
    assert len(GATE) == len(gates.GATES)
    for g in gates.GATES:
        assert g.name and g.reason and "\n" not in g.reason and len(g.reason) <= 100


def _hit_ball_one() -> tuple[Tracker, float]:
    """The cue rolls at 2 m/s along y = 889 into ball 1 resting at x = 1500; stops a frame short of the hit."""
    balls = {"cue": (1000.0, 889.0), "1": (1500.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    frames = []
    for k in range(1, 14):
        frames.append((t, dets([(1000.0 + 2000.0 * k / FPS, 889.0), balls["1"]], cue=[True, False])))
        t += 1 / FPS
    feed(tr, frames, start=100)
    return tr, t


def test_backward_kick_a_struck_ball_does_not_take_the_hitter_behind_it() -> None:
    tr, t = _hit_ball_one()
    sc = tr.scene(t, dets([(1432.0, 889.0), (1530.0, 889.0)], cue=[True, False]))
    forbid = _forbids("backward_kick", sc)
    one = row(sc.ids, "1")
    assert sc.hits[row(sc.ids, "cue")]
    assert forbid[one, 0]  # behind ball 1, back along the cue's run: the cue itself
    assert not forbid[one, 1]  # ahead of it: ball 1 struck away


def test_tunnel_a_moving_ball_does_not_pass_through_a_still_one() -> None:
    tr, t = _hit_ball_one()
    sc = tr.scene(t, dets([(1500.0, 889.0), (1580.0, 889.0), (1440.0, 900.0)], cue=[False, True, True]))
    forbid = _forbids("tunnel", sc)
    cue = row(sc.ids, "cue")
    assert forbid[cue, 1]  # beyond ball 1, which is still at its place
    assert not forbid[cue, 2]


def test_lone_rest_weak_a_blob_beside_a_lone_ball_does_not_set_it_moving() -> None:
    balls = {"cue": (500.0, 400.0), "1": (1500.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    sc = tr.scene(t, dets([(500.0, 400.0), (1540.0, 889.0), (1500.0, 940.0)], conf=[0.95, 0.4, 0.9], cue=[True, 0, 0]))
    forbid = _forbids("lone_rest_weak", sc)
    one = row(sc.ids, "1")
    assert forbid[one, 1]  # a weak blob 40 mm off: a hand
    assert not forbid[one, 2]  # a clear detection 51 mm off: the ball may have been struck


def _struck_from_rest(second: tuple[float, float]) -> tuple[Scene, int]:
    """Ball 1, lone at rest, is missed the frame it is struck (a weak blur 30 mm out: the hit came late in the
    frame, the blob no ball takes); the next frame's scene, with a weak blob at ``second``."""
    balls = {"cue": (500.0, 400.0), "1": (1500.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    feed(tr, [(t, dets([balls["cue"], (1530.0, 889.0)], conf=[0.95, 0.4], cue=[True, False]))], start=60)
    sc = tr.scene(t + 1 / FPS, dets([balls["cue"], second], conf=[0.95, 0.4], cue=[True, False]))
    return sc, row(sc.ids, "1")


def test_struck_away_a_weak_blur_running_on_straight_out_from_a_ball_s_place_is_that_ball() -> None:
    sc, one = _struck_from_rest((1580.0, 890.0))  # 50 mm on in a whole frame, after 30 in part of one
    assert gates.struck_away(sc)[one, 1]
    assert not _forbids("lone_rest_weak", sc)[one, 1]
    assert not _forbids("hidden_weak", sc)[one, 1]


def test_struck_away_a_blob_hovering_or_off_the_line_is_still_a_hand() -> None:
    for hand in ((1540.0, 889.0), (1570.0, 940.0)):  # 10 mm on (a hand's pace); 51 mm off the line
        sc, one = _struck_from_rest(hand)
        assert not gates.struck_away(sc)[one, 1]
        assert _forbids("lone_rest_weak", sc)[one, 1] or _forbids("hidden_weak", sc)[one, 1]


def _lost_from_rest(before: list[tuple[list[tuple[float, float]], float]]) -> tuple[Tracker, float]:
    """Ball 1 at rest at (1500, 889), then the frames ``before`` (blobs no ball takes, at 0.45, and ball 1's own
    confidence), then a frame where it is missed and a weak blob lies 30 mm out (the blob no ball takes): the
    tracker and the next frame's time. The cue ball rests far off; no shot is in play."""
    balls = {"cue": (500.0, 400.0), "1": (1500.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    frames = []
    for k, (blobs, one) in enumerate(before):
        pts = [balls["cue"], balls["1"], *blobs]
        cue = [True] + [False] * (1 + len(blobs))
        frames.append((t + k / FPS, dets(pts, conf=[0.95, one] + [0.45] * len(blobs), cue=cue)))
    frames.append((t + len(before) / FPS, dets([balls["cue"], (1530.0, 889.0)], conf=[0.95, 0.4], cue=[True, False])))
    feed(tr, frames, start=60)
    return tr, t + (len(before) + 1) / FPS


# a hand sweeping along y = 889 at 1.8 m/s: seen coming from behind, then over the ball (its sightings weak)
HAND_SWEEP = [([(1400.0, 889.0)], 0.95), ([(1430.0, 889.0)], 0.95), ([], 0.6), ([], 0.45)]
# a stroke along the same line: the cue seen as a blob behind the ball, the ball clear up to the stroke
STROKE = [([], 0.95), ([], 0.95), ([(1400.0, 889.0)], 0.95), ([], 0.95)]


def test_swept_a_ball_a_hand_came_over_is_not_struck_by_its_blob_running_on() -> None:
    tr, t = _lost_from_rest(HAND_SWEEP)
    sc = tr.scene(t, dets([(500.0, 400.0), (1580.0, 890.0)], conf=[0.95, 0.4], cue=[True, False]))
    one = row(sc.ids, "1")
    assert gates.swept(sc)[one]
    assert not gates.struck_away(sc)[one, 1]  # the run is a ball's, but it is the hand going on
    assert _forbids("lone_rest_weak", sc)[one, 1] or _forbids("hidden_weak", sc)[one, 1]


def test_swept_a_ball_seen_clear_up_to_the_stroke_is_struck_though_the_cue_is_seen_behind_it() -> None:
    tr, t = _lost_from_rest(STROKE)
    sc = tr.scene(t, dets([(500.0, 400.0), (1580.0, 890.0)], conf=[0.95, 0.4], cue=[True, False]))
    one = row(sc.ids, "1")
    assert not gates.swept(sc)[one]
    assert gates.struck_away(sc)[one, 1]
    assert not _forbids("lone_rest_weak", sc)[one, 1]
    assert not _forbids("hidden_weak", sc)[one, 1]


def test_a_hand_sweeping_over_a_resting_ball_with_no_shot_in_play_leaves_it_at_its_place() -> None:
    """The hand runs on at 1.8-3 m/s and is gone; ball 1 shows again, weak then clear, where it rested."""
    tr, t = _lost_from_rest(HAND_SWEEP)
    frames = [(t + k / FPS, dets([(500.0, 400.0), (1580.0 + 40 * k, 890.0)], conf=[0.95, 0.4], cue=[True, False]))
              for k in range(4)]  # fmt: skip
    frames += [(t + (4 + k) / FPS, dets([(500.0, 400.0), (1500.0, 889.0)], conf=[0.95, 0.37 if k < 2 else 0.9],
                                        cue=[True, False])) for k in range(8)]  # fmt: skip
    for f in feed(tr, frames, start=70):
        one = {b.id: b for b in f.balls}["1"]
        assert np.hypot(one.pos[0] - 1500.0, one.pos[1] - 889.0) < 3.0, f.frame


def test_hidden_weak_a_hidden_ball_comes_back_only_on_a_clear_detection() -> None:
    balls = {"cue": (500.0, 400.0), "1": (1500.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    feed(tr, [(t + k / FPS, dets([balls["cue"]], cue=[True])) for k in range(10)], start=100)
    t += 10 / FPS
    sc = tr.scene(t, dets([balls["cue"], (1500.0, 889.0), (1501.0, 980.0)], conf=[0.95, 0.4, 0.9], cue=[True, 0, 0]))
    forbid = _forbids("hidden_weak", sc)
    one = row(sc.ids, "1")
    assert sc.occluded[one]
    assert forbid[one, 1]
    assert not forbid[one, 2]


def _into_pyramid_right(second: bool) -> tuple[Tracker, float, np.ndarray]:
    """Ball 1 (and, with ``second``, ball 2 150 mm behind it) rolls at 3 m/s into the pyramid-right pocket;
    ball 1 vanishes in the jaws. Returns the tracker, the next frame's time and ball 2's last position."""
    u = np.array([1.0, 1.0]) / np.sqrt(2.0)
    a = np.array([3000.0, 1209.0])
    balls = {"cue": (500.0, 400.0), "1": tuple(a)}
    if second:
        balls["2"] = tuple(a - 150 * u)
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    frames, k = [], 1
    while True:
        p1 = a + u * 3000.0 * k / FPS
        pts = [balls["cue"], p1] + ([p1 - 150 * u] if second else [])
        if p1[0] > 3450.0:
            break
        frames.append((t, dets(pts, cue=[True] + [False] * (len(pts) - 1))))
        t += 1 / FPS
        k += 1
    feed(tr, frames, start=100)
    last2 = frames[-1][1].pos_mm[-1]
    return tr, t, last2


def test_pocket_run_a_ball_gone_into_a_pocket_is_not_found_far_from_its_run_in() -> None:
    tr, t, _ = _into_pyramid_right(second=False)
    feed(tr, [(t, dets([(500.0, 400.0)], cue=[True]))], start=200)  # ball 1 gone from sight
    t += 1 / FPS
    sc = tr.scene(t, dets([(500.0, 400.0), (3200.0, 1500.0), (3515.0, 1724.0)], cue=[True, 0, 0]))
    forbid = _forbids("pocket_run", sc)
    one = row(sc.ids, "1")
    assert sc.entering_pocket[one]
    assert forbid[one, 1]  # 300 mm back from its run: another ball
    assert not forbid[one, 2]  # in the jaws, on its run


def test_pocket_follower_a_potted_ball_does_not_return_as_the_ball_behind_it() -> None:
    tr, t, last2 = _into_pyramid_right(second=True)
    u = np.array([1.0, 1.0]) / np.sqrt(2.0)
    feed(tr, [(t, dets([(500.0, 400.0), last2 + 50 * u], cue=[True, False]))], start=200)
    t += 1 / FPS
    # beside ball 2 (within a diameter of where it was last seen) but outside its statistical gate: a bounce
    near2 = last2 + 100 * u + 30 * np.array([u[1], -u[0]])
    sc = tr.scene(t, dets([(500.0, 400.0), near2, (3515.0, 1724.0)], cue=[True, 0, 0]))
    forbid = _forbids("pocket_follower", sc)
    one = row(sc.ids, "1")
    assert forbid[one, 1]  # beside ball 2: ball 2, not ball 1 back out of the jaws
    assert not forbid[one, 2]


def test_visible_ball_a_hidden_ball_does_not_take_a_visible_ones_detection() -> None:
    balls = {"cue": (1580.0, 500.0), "1": (1500.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    frames = []
    for k in range(1, 11):  # the cue rolls along x = 1580 toward ball 1's row while ball 1 is hidden
        frames.append((t, dets([(1580.0, 500.0 + 2000.0 * k / FPS)], cue=[True])))
        t += 1 / FPS
    feed(tr, frames, start=100)
    sc = tr.scene(t, dets([(1580.0, 500.0 + 2000.0 * 11 / FPS)], cue=[True]))
    forbid = _forbids("visible_ball", sc)
    one, cue = row(sc.ids, "1"), row(sc.ids, "cue")
    assert sc.occluded[one] and not sc.occluded[cue]
    assert forbid[one, 0]  # inside the rolling cue's gate: the cue's
    assert not forbid[cue, 0]


def test_new_ball_a_new_track_does_not_take_a_known_balls_detection() -> None:
    balls = {"cue": (500.0, 400.0), "1": (2560.0, 500.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    feed(tr, [(t, dets([balls["cue"], balls["1"], (2500.0, 560.0)], cue=[True, 0, 0]))], start=100)
    t += 1 / FPS
    # ball 1 seen 3 mm off its anchor, on the side of the new track (its path stops short of ball 1)
    sc = tr.scene(t, dets([balls["cue"], (2557.9, 502.1)], cue=[True, False]))
    forbid = _forbids("new_ball", sc)
    new = [i for i, name in enumerate(sc.ids) if name is None]
    assert len(new) == 1 and sc.tentative[new[0]]
    assert forbid[new[0], 1]  # ball 1's detection, inside ball 1's anchor gate


def test_known_place_at_the_start_a_ball_does_not_jump_to_its_neighbours_place() -> None:
    balls = {"1": (1500.0, 889.0), "2": (1568.0, 889.0), "cue": (600.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    feed(tr, [(0.0, dets(list(balls.values()), cue=[False, False, True]))])
    sc = tr.scene(1 / FPS, dets([(1568.0, 889.0), (600.0, 889.0)], cue=[False, True]))
    forbid = _forbids("known_place", sc)
    assert sc.at_known[0]
    assert forbid[row(sc.ids, "1"), 0]  # ball 2's place is ball 2's, never ball 1's kink
    assert not forbid[row(sc.ids, "2"), 0]


def test_colour_class_the_cue_ball_does_not_take_a_ball_of_another_colour_and_class() -> None:
    balls = {"cue": (1000.0, 889.0), "1": (2500.0, 400.0)}
    tr = Tracker(TABLE, known_ids=balls)
    pts = list(balls.values())
    feed(tr, [(i / FPS, dets(pts, cue=[True, False], colour=[YELLOW, WHITE])) for i in range(60)])
    red, blurred = (1050.0, 889.0), (1000.0, 940.0)
    sc = tr.scene(1.0, dets([red, blurred, balls["1"]], cue=[False, False, False], colour=[RED, YELLOW, WHITE]))
    forbid = _forbids("colour_class", sc)
    cue = row(sc.ids, "cue")
    assert forbid[cue, 0]  # another colour, another class: another ball
    assert not forbid[cue, 1]  # the cue's colour, its class lost (a blurred cue ball): may be the cue


def _white_beside_red(colour: tuple[float, float, float]) -> Scene:
    """A white ball and a red one at rest 60 mm apart (just touching); the next frame's detection of the white
    ball lies inside the red one's anchor gate, in the colour given (the red ball unseen: hidden under the
    white one's blob)."""
    balls = {"1": (1000.0, 889.0), "2": (1060.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    pts = list(balls.values())
    feed(tr, [(i / FPS, dets(pts, cue=[False, False], colour=[WHITE, RED])) for i in range(60)])
    return tr.scene(1.0, dets([(1058.0, 889.0)], cue=[False], colour=[colour]))


def test_colour_owner_a_resting_ball_does_not_take_a_touching_balls_detection_of_another_colour() -> None:
    sc = _white_beside_red(WHITE)
    forbid = _forbids("colour_owner", sc)
    assert forbid[row(sc.ids, "2"), 0]  # white, inside the red ball's anchor gate: the white ball's
    assert not forbid[row(sc.ids, "1"), 0]


def test_colour_owner_a_detection_as_like_either_ball_is_left_to_the_motion() -> None:
    between = tuple((w + r) / 2 for w, r in zip(WHITE, RED, strict=True))
    assert not _forbids("colour_owner", _white_beside_red(between)).any()  # type: ignore[arg-type]


def test_colour_owner_forbids_nothing_in_a_set_of_one_colour() -> None:
    balls = {"cue": (1000.0, 889.0), "1": (1060.0, 889.0), "2": (1200.0, 700.0)}
    tr = Tracker(TABLE, known_ids=balls)
    pts = list(balls.values())
    feed(tr, [(i / FPS, dets(pts, cue=[True, False, False], colour=[WHITE] * 3)) for i in range(60)])
    greyed = (150.0, 150.0, 150.0)  # a white ball blurred into the cloth, 4.5 sigma off its resting colour
    sc = tr.scene(1.0, dets([(1058.0, 889.0), (1010.0, 889.0), (1200.0, 700.0)], colour=[greyed, WHITE, WHITE]))
    assert not _forbids("colour_owner", sc).any()


def test_pocket_inside_only_the_ball_going_into_a_pocket_is_seen_inside_it() -> None:
    tr, t, _ = _into_pyramid_right(second=False)
    pyramid_right = list(TABLE.pockets).index("pyramid-right")
    inside = (3550.0, 1760.0)  # in the pocket's hole, past the mouth line
    pocket = np.array([-1, pyramid_right])
    sc = tr.scene(t, dets([(500.0, 400.0), inside], cue=[True, False]), pocket=pocket)
    cost, tier = association.costs(sc)
    forbid = GATE["pocket_inside"].forbid(sc, np.isfinite(cost), tier)
    assert not forbid[row(sc.ids, "1"), 1]  # ball 1 was running into that pocket
    assert forbid[row(sc.ids, "cue"), 1]  # the cue, resting across the table, is not in there
    assert not forbid[:, 0].any()  # a detection on the cloth is no pocket's


def test_hidden_weak_a_ball_rolling_unseen_comes_back_weakly_while_its_run_is_extrapolated() -> None:
    # 30 fps: a ball rolling at 2 m/s is missed for 4 frames (a shadow), then seen weakly where it was predicted
    fps = 30.0
    balls = {"cue": (500.0, 400.0), "1": (1000.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    feed(tr, [(i / fps, dets(list(balls.values()), cue=[True, False])) for i in range(30)])
    t = 1.0
    x = 1000.0
    for _ in range(10):
        x += 2000.0 / fps
        feed(tr, [(t, dets([balls["cue"], (x, 889.0)], cue=[True, False]))], start=100)
        t += 1 / fps
    for _ in range(4):
        feed(tr, [(t, dets([balls["cue"]], cue=[True]))], start=200)
        t += 1 / fps
    ahead = (x + 2000.0 * 5 / fps, 889.0)
    sc = tr.scene(t, dets([balls["cue"], ahead], conf=[0.95, 0.45], cue=[True, False]))
    assert sc.occluded[row(sc.ids, "1")]
    assert not _forbids("hidden_weak", sc)[row(sc.ids, "1"), 1]  # 0.13 s unseen, inside its gate: ball 1
    for _ in range(5):
        feed(tr, [(t, dets([balls["cue"]], cue=[True]))], start=300)
        t += 1 / fps
    later = (x + 100.0, 889.0)  # within reach of where it was last seen
    sc = tr.scene(t, dets([balls["cue"], later], conf=[0.95, 0.45], cue=[True, False]))
    assert _forbids("hidden_weak", sc)[row(sc.ids, "1"), 1]  # past coast_s: a weak blob may be anything


def test_still_at_place_a_ball_seen_at_its_place_keeps_it_and_its_detection() -> None:
    balls = {"cue": (1300.0, 889.0), "1": (1500.0, 889.0)}
    tr = Tracker(TABLE, known_ids=balls)
    t = _rest(tr, balls)
    # the cue is struck (its detection gone in the blur); ball 1 is seen at its place; a blob 80 mm from it
    sc = tr.scene(t, dets([(1500.5, 889.3), (1420.0, 889.0)], cue=[False, False]))
    forbid = _forbids("still_at_place", sc)
    one, cue = row(sc.ids, "1"), row(sc.ids, "cue")
    assert forbid[one, 1]  # ball 1 is still at its place: the blob is not ball 1
    assert forbid[cue, 0]  # ball 1's detection is ball 1's, not the struck cue's 200 mm away
    assert not forbid[one, 0]
    assert not forbid[cue, 1]


def test_colour_kink_no_kink_to_a_detection_of_a_far_off_colour() -> None:
    # neither ball classed as the cue (a set the detector does not class): the colour alone tells them apart
    balls = {"cue": (1000.0, 889.0), "1": (2500.0, 400.0)}
    tr = Tracker(TABLE, known_ids=balls)
    pts = list(balls.values())
    feed(tr, [(i / FPS, dets(pts, cue=[False, False], colour=[WHITE, RED])) for i in range(60)])
    sleeve, blurred = (1100.0, 889.0), (1060.0, 900.0)
    dark, greyed = (40.0, 30.0, 20.0), (150.0, 160.0, 150.0)  # a dark sleeve; the white ball half blurred
    sc = tr.scene(1.0, dets([sleeve, blurred, balls["1"]], colour=[dark, greyed, RED]))
    forbid = _forbids("colour_kink", sc)
    cue = row(sc.ids, "cue")
    assert forbid[cue, 0]
    assert not forbid[cue, 1]


# ---- the gates on real detection records (tests/data/tracking) ---------------------------------------------
def _real(name: str) -> tuple[Tracker, list[tuple[float, bool, Detections, np.ndarray]]]:
    """A tracker for the record's table and detector noise, and its frames (t, shot in play, detections, the
    pocket whose inside holds each detection)."""
    doc = json.loads((DATA / name).read_text())
    (length, width), (corner, middle) = doc["table_mm"], doc["mouths_mm"]
    spec = TableSpec(length_mm=length, width_mm=width, ball_diameter_mm=doc["ball_mm"], corner_mouth_mm=corner,
                     middle_mouth_mm=middle)  # fmt: skip
    noise = doc["settings"]
    s = TrackerSettings()
    s = replace(s, filter=replace(s.filter, meas_sigma_mm=noise["meas_sigma_mm"]))
    # the rest gates the record was taken with are the noise's two and four sigmas, as the settings compute them
    assert abs(s.rest_radius_mm - noise.get("rest_radius_mm", s.rest_radius_mm)) < 0.002
    assert abs(s.anchor_gate_mm - noise.get("anchor_gate_mm", s.anchor_gate_mm)) < 0.004
    frames = []
    for f in doc["frames"]:
        z = np.array(f["pos_mm"], dtype=float).reshape(-1, 2)
        d = Detections(
            z * 0.4 + 20.0, z, np.full(len(z), 11.0), np.array(f["confidence"]), np.array(f["cls"]),
            np.array(f["colour"], dtype=float).reshape(-1, 3), np.array(f["in_pocket"]), np.array(f["covered"]),
        )  # fmt: skip
        frames.append((f["t"], f["shot_active"], d, np.array(f["pocket"], dtype=np.int64)))
    return Tracker(TableModel(spec), s), frames


def _step(tracker: Tracker, frames: list[tuple[float, bool, Detections, np.ndarray]]) -> list[TrackerFrame]:
    """As ``api.pipeline`` steps it: no new ball where vision saw no room for one (inside a pocket, under the
    player's arm)."""
    out = []
    for i, (t, shot, d, pocket) in enumerate(frames):
        assert d.in_pocket is not None and d.covered is not None
        out.append(tracker.step(i, t, d.pos_mm, d.confidence, d.cls == CUE, d.colour, shot_active=shot,
                                may_start=~(d.in_pocket | d.covered), pocket=pocket))  # fmt: skip
    return out


def _place(out: list[TrackerFrame], frame: int, at: tuple[float, float]) -> str:
    """The id of the ball nearest ``at`` in ``frame``."""
    return min(out[frame].balls, key=lambda b: np.hypot(b.pos[0] - at[0], b.pos[1] - at[1])).id


def test_still_at_place_balls_at_rest_hold_their_places_while_new_gates_are_wide() -> None:
    tracker, frames = _real("balls-at-rest-in-the-first-frames.json")
    out = _step(tracker, frames)
    d = tracker.table.ball_diameter_mm
    for a, b in itertools.pairwise(out):
        before = a.by_id()
        for ball in b.balls:
            if ball.id in before:
                p, q = before[ball.id].pos, ball.pos
                assert np.hypot(p[0] - q[0], p[1] - q[1]) < d, f"{ball.id} jumped at frame {b.frame}"


def test_colour_kink_the_struck_cue_ball_does_not_become_the_players_sleeve() -> None:
    tracker, frames = _real("sleeve-beside-the-struck-cue.json")
    out = _step(tracker, frames)
    cue = _place(out, 10, (385.0, 762.0))
    for f in out[11:]:
        ball = f.by_id().get(cue)
        assert ball is None or np.hypot(ball.pos[0] - 90.0, ball.pos[1] - 968.0) > 200.0
    end = out[-1].by_id()[cue].pos
    assert end[1] < 450.0  # it ran up the table, past the green solid it hit


def _ends(out: list[TrackerFrame], frame: int, start: tuple[float, float], end: tuple[float, float]) -> float:
    """How far from ``end`` the ball that was nearest ``start`` in ``frame`` is in the last frame."""
    ball = out[-1].by_id()[_place(out, frame, start)]
    return float(np.hypot(ball.pos[0] - end[0], ball.pos[1] - end[1]))


def test_colour_owner_the_cue_ball_coming_to_rest_against_the_maroon_keeps_its_id() -> None:
    out = real_records.frames_of("cue-at-rest-against-the-maroon.json")
    assert {b.id for b in out[5].balls} == {b.id for b in out[-1].balls}  # three balls, the same three ids
    assert _ends(out, 5, (1990.0, 918.0), (2011.0, 910.0)) < 15.0  # the maroon, pushed 22 mm
    assert _ends(out, 5, (2137.0, 503.0), (1948.0, 933.0)) < 15.0  # the cue ball, at rest beside it


def test_colour_owner_the_same_contact_in_a_set_of_one_colour_is_left_to_the_motion() -> None:
    doc, table, frames = real_records.load("cue-at-rest-against-the-maroon.json")
    pipe = Pipeline(table=table, meas_sigma_mm=doc["settings"]["meas_sigma_mm"])
    for i, (t, d) in enumerate(frames):
        assert d.colour is not None
        d.colour[:] = WHITE  # an all-white set: every ball the same colour
        if i:  # (from the second frame: the first has no tracks to pair)
            assert not _forbids("colour_owner", pipe.tracker.scene(t, d)).any()
        pipe.step_detections(d, i, t)
