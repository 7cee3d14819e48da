"""A resting ball hit between two frames of a fast striker (``contacts.swept_reading``): at 25 fps a ball at
2.9 m/s runs 116 mm between samples, so the contact is solved from the motion between them."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import contacts
from tracking.detect.segments import Kink, Neighbour
from tracking.detect.settings import ContactSettings
from tracking.extractor import EventExtractor
from tracking.tracker import BallObs, TrackerFrame, TrackState
from tracking.trajectory import PathFit, fit_path, intersect_paths

S = ContactSettings()
TABLE = TableModel()
D = TABLE.ball_diameter_mm
DT = 0.04  # 25 fps
V_IN = np.array([2900.0, 0.0])  # the striker rolls along +x
PLACE = np.array([1000.0, 620.0])  # the struck ball, 20 mm off the striker's line
T_LAST = 1.36  # the striker's last sample in, 106 mm short of the struck ball
MU_G = 1962.0  # cloth friction on a sliding ball (mm/s2): follow bends the striker's path out forward


def _contact() -> tuple[float, np.ndarray, np.ndarray]:
    """The true contact: its instant, the striker's centre then and the line of centres."""
    x_c = PLACE[0] - np.sqrt(D * D - (PLACE[1] - 600.0) ** 2)
    c = np.array([x_c, 600.0])
    return T_LAST + (x_c - (PLACE[0] - 106.0)) / V_IN[0], c, (PLACE - c) / D


def _striker(t: float) -> np.ndarray:
    """Rolling in along +x; after the contact it keeps its speed across the line of centres and its follow
    (the spin along +x) pulls it forward at the cloth's friction."""
    t_c, c, n = _contact()
    if t <= t_c:
        return c + V_IN * (t - t_c)
    u = t - t_c
    return c + (V_IN - (V_IN @ n) * n) * u + 0.5 * MU_G * u * u * np.array([1.0, 0.0])


def _struck(t: float, stays: bool = False) -> np.ndarray:
    """At rest, then away along the line of centres at the striker's speed along it (equal masses)."""
    t_c, _, n = _contact()
    return PLACE.copy() if stays or t <= t_c else PLACE + (V_IN @ n) * n * (t - t_c)


def _kink(first_out: float = 1.44) -> Kink:
    """The striker's kink as ``segments.kink_view`` builds it: six samples in (the last at T_LAST), the frame
    of the hit lost in its blur, five out from ``first_out``."""
    t_in = np.array([T_LAST - (5 - i) * DT for i in range(6)])
    t_out = np.array([first_out + i * DT for i in range(5)])
    old = fit_path(t_in, np.array([_striker(t) for t in t_in]))
    new = fit_path(t_out, np.array([_striker(t) for t in t_out]))
    t_k = intersect_paths(old, new, T_LAST - 0.5 * DT, first_out)
    lo, hi = T_LAST - DT, first_out + 0.5 * DT
    return Kink("cue", old, new, old, T_LAST, t_k, old.at(t_k), lo, hi, lo, T_LAST, first_out)


def _resting(stays: bool = False, seen_after: bool = True) -> Neighbour:
    ts = np.array([T_LAST + i * DT for i in range(1, 6)]) if seen_after else np.empty(0)
    xy = np.array([_struck(t, stays) for t in ts]).reshape(-1, 2)
    return Neighbour("2", PathFit.still(PLACE, 0.0, T_LAST), False, None, ts, xy)


def test_the_corner_of_the_paths_lies_off_a_diameter_when_follow_bends_the_path_out() -> None:
    # the case the sweep is for: the corner test alone (a diameter within contact_tol_mm) misses it
    k = _kink()
    assert abs(float(np.linalg.norm(k.p - PLACE)) - D) > S.contact_tol_mm


def test_a_resting_ball_reached_between_samples_was_hit_when_the_centres_were_a_diameter_apart() -> None:
    t_c, c, _ = _contact()
    got = contacts.kink_readings(_kink(), [_resting()], D, S, DT)
    assert len(got) == 1
    r = got[0]
    assert (r.kind, r.name) == ("ball", "2")
    assert abs(r.t - t_c) < 0.002  # the instant, not a sample's time (a frame is 40 ms)
    assert np.allclose(r.pos, (c + PLACE) / 2, atol=2.0)
    assert r.residual_mm < 1.0
    # a ball that vanished from its place at the hit (lost in its own blur) was hit as well
    assert len(contacts.kink_readings(_kink(), [_resting(seen_after=False)], D, S, DT)) == 1


def test_a_ball_seen_still_at_its_place_after_the_sweep_reached_it_was_not_hit() -> None:
    assert contacts.swept_reading(_kink(), [_resting(stays=True)], D, S, DT) is None


def test_a_striker_that_keeps_its_speed_toward_the_ball_did_not_hit_it() -> None:
    # the same path in bent away from the ball's side by something else: the path out still closes on the
    # ball along the line of centres at the speed it came in with
    k = _kink()
    t_out = np.array([1.44 + i * DT for i in range(5)])
    _, c, n = _contact()
    on = fit_path(t_out, np.array([c + (V_IN @ n) * n * (t - k.t) for t in t_out]))
    bent = Kink("cue", k.old, on, k.into, k.t_last, k.t, k.p, k.lo, k.hi, k.lo_into, k.t_lo, k.t_hi)
    assert contacts.swept_reading(bent, [_resting()], D, S, DT) is None


def test_a_ball_beside_the_sweep_out_of_reach_was_not_hit() -> None:
    far = PLACE + np.array([0.0, D + S.contact_tol_mm + 5.0])
    o = Neighbour("3", PathFit.still(far, 0.0, T_LAST), False, None, np.empty(0), np.empty((0, 2)))
    assert contacts.swept_reading(_kink(), [o], D, S, DT) is None


def _frames() -> list[TrackerFrame]:
    """The scene as the tracker reports it at 25 fps: the striker seen up to T_LAST, lost in the frame of the
    hit, seen again from the next; the struck ball resting, then lost from sight as it leaves."""
    out = []
    t_c = _contact()[0]
    for i in range(20, 46):  # 0.8 s to 1.8 s
        t = i * DT
        obs = []
        if not (T_LAST < t < 1.44 - 1e-9):
            p = _striker(t)
            xy = (float(p[0]), float(p[1]))
            obs.append(BallObs("cue", xy, xy, (0.0, 0.0), False, TrackState.CONFIRMED, quality=0.95))
        if t <= t_c:
            q = (float(PLACE[0]), float(PLACE[1]))
            obs.append(BallObs("2", q, q, (0.0, 0.0), True, TrackState.CONFIRMED, quality=0.95))
        out.append(TrackerFrame(i, t, tuple(obs), ()))
    return out


def test_the_extractor_gives_one_contact_at_the_instant_of_a_hit_between_frames() -> None:
    ex = EventExtractor(TABLE, frame_dt=DT)
    events = [e for tf in _frames() for e in ex.update(tf)]
    events += ex.finish()
    hits = [e for e in events if e.type == "contact"]
    assert [e.balls for e in hits] == [("cue", "2")]
    assert abs(hits[0].t - _contact()[0]) < 0.005


def test_the_sweep_names_the_first_ball_it_reaches_not_one_behind_it() -> None:
    # a second resting ball just behind the struck one, on the striker's line: the path in could only reach it
    # through the first
    behind = PLACE + np.array([D + 2.0, -20.0])
    o = Neighbour("3", PathFit.still(behind, 0.0, T_LAST), False, None, np.empty(0), np.empty((0, 2)))
    for others in ([o, _resting()], [_resting(), o]):
        r = contacts.swept_reading(_kink(), others, D, S, DT)
        assert r is not None and r.name == "2"
