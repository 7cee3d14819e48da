"""Each gate of ``tracking.gates`` on a small scene built from real detection records: the pair it exists to
rule out is ruled out, and its clear counterpart is not."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking import association, gates
from tracking.association import Scene
from tracking.tracker import Tracker

from .records import RED, WHITE, YELLOW, dets, feed, row

TABLE = TableModel()
FPS = 60.0
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
