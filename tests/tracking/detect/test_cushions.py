"""The cushion and jaw detectors as pure functions, fed hand-built records (no tracker, no extractor)."""

from __future__ import annotations

import numpy as np

from calibration.table import TableModel
from tracking.detect import breaks, cushions
from tracking.detect.geometry import as_pt
from tracking.detect.segments import Kink, PathView, Trail
from tracking.detect.settings import CushionSettings
from tracking.trajectory import PathFit, fit_path

from ..records import between_walls

S = CushionSettings()
TABLE = TableModel()
R = TABLE.ball_radius_mm
FPS = 60.0
DT = 1 / FPS
PK = TABLE.pockets["house-left"]
PLAY = (PK.mouth_width_mm - 2 * R) / 2  # how far the centre moves sideways between the jaw faces
FACE = PK.depth(PK.jaws[0].face_start)  # the depth where the faces begin


def _trail(lateral: np.ndarray, t0: float = 1.0, before: int = 10) -> Trail:
    """A ball rolling down the mouth's axis at 150 mm/s for ``before`` frames short of the faces, then between
    them at 2.5 mm a frame with the sideways offsets ``lateral``, first there at ``t0``."""
    ps = [PK.point(FACE - 1.0 - 2.5 * k, 0.0) for k in range(before, 0, -1)]
    ps += [PK.point(FACE + 1.0 + 2.5 * k, float(y)) for k, y in enumerate(lateral)]
    ts = t0 + DT * (np.arange(len(ps)) - before)
    return Trail("1", ts, np.array(ps, dtype=float))


def test_a_ball_rattling_between_the_jaw_faces_touches_each_in_turn_before_it_drops() -> None:
    ys, walls = between_walls(-1.6, 330.0, 0.75, PLAY, 0.2, FPS)
    lateral = ys[1:11]  # ten frames between the faces, the first a frame after it came in
    t_drop = 1.0 + 0.17
    got = cushions.rattle(_trail(lateral), PK, t_drop, R, S.rattle, DT)
    truth = [1.0 - DT + w for w in walls if 1.0 - DT + w <= t_drop]
    assert len(got) == len(truth) == 5
    for c, w in zip(got, truth, strict=True):
        assert (c.kind, c.balls, c.obstacle, c.evidence) == ("cushion", ("1",), "jaw:house-left", "rattle")
        assert abs(c.t - w) < 0.25 * DT
    # the touches alternate sides, each with the centre at the face it touched
    centres = [c.pos for c in got if c.pos is not None]
    assert [round(PK.lateral(p) / PLAY) for p in centres] == [1, -1, 1, -1, 1]
    assert all(abs(abs(PK.lateral(p)) - PLAY) < 0.01 for p in centres)


def test_only_the_samples_between_the_faces_are_read() -> None:
    ys, _ = between_walls(-1.6, 330.0, 0.75, PLAY, 0.2, FPS)
    # samples far off the axis short of the faces (the ball coming in at a slant) are not part of the rattle
    trail = _trail(ys[1:11])
    xy = trail.xy.copy()
    xy[:10] = [PK.point(FACE - 1.0 - 2.5 * k, 30.0 * (-1) ** k) for k in range(10, 0, -1)]
    got = cushions.rattle(Trail("1", trail.ts, xy), PK, 1.17, R, S.rattle, DT)
    assert len(got) == 5


def test_a_ball_running_straight_down_the_mouth_does_not_rattle() -> None:
    straight = np.linspace(0.3, 1.5, 10)
    assert cushions.rattle(_trail(straight), PK, 1.17, R, S.rattle, DT) == []


def test_too_few_samples_between_the_faces_are_no_rattle() -> None:
    ys, _ = between_walls(-1.6, 330.0, 0.75, PLAY, 0.2, FPS)
    few = ys[1 : S.rattle.min_samples]
    assert cushions.rattle(_trail(few), PK, 1.17, R, S.rattle, DT) == []


N = np.array([0.0, 1.0])  # the inward normal of the left-house cushion, its nose line along y = 0
D = TABLE.ball_diameter_mm
START = 150.0  # mm/s: slower than this, nothing was struck


def _line(p0: tuple[float, float], v: tuple[float, float], t0: float, ts: np.ndarray) -> np.ndarray:
    return np.array(p0) + np.outer(ts - t0, np.array(v))


def _away(t_b: float, p_b: tuple[float, float], v: tuple[float, float], first: int, n: int = 10) -> PathView:
    """The kept samples of a path leaving the point ``p_b`` at ``t_b`` with velocity ``v``, from frame ``first``."""
    ts = np.arange(first, first + n) * DT
    return PathView("1", tuple(ts), tuple(_line(p_b, v, t_b, ts)))


def test_the_paths_away_from_a_bounce_are_fitted_from_the_first_second_and_third_sample() -> None:
    away = _away(1.0, (800.0, 34.0), (1200.0, 1600.0), 61, n=5)
    got = list(cushions.paths_out(away, 1.005, 10))
    # from the first: seen on the way in until the bounce; then until the sample left out
    assert [t_in for t_in, _ in got] == [1.005, away.ts[0], away.ts[1]]
    assert [f.t0 for _, f in got] == [away.ts[0], away.ts[1], away.ts[2]]
    assert all(np.allclose(f.vel(f.t0), [1200.0, 1600.0]) for _, f in got)
    assert len(list(cushions.paths_out(_away(1.0, (800.0, 34.0), (1200.0, 1600.0), 61, n=4), 1.005, 10))) == 2


def test_a_ball_hit_into_a_cushion_bounced_off_it_before_it_was_seen_moving() -> None:
    # ball 1 at (800, 60), 26 mm short of touching the cushion, hit at 1.0 s along (0.6, -0.8) at 2 m/s: it meets
    # the cushion 16.25 ms later and comes away mirrored; first seen two frames after the hit
    a, u, speed = np.array([800.0, 60.0]), np.array([0.6, -0.8]), 2000.0
    t_b = 1.0 + (a[1] - R) / (0.8 * speed)
    p_b = (a[0] + 0.6 * speed * (t_b - 1.0), R)
    away = _away(t_b, p_b, (0.6 * speed, 0.8 * speed), 62)
    c = cushions.bounce_off_start("1", a, a - u * D, 1.0, cushions.paths_out(away, 1.0, 10), TABLE, S, START, DT)
    assert c is not None
    assert (c.kind, c.balls, c.obstacle, c.evidence) == ("cushion", ("1",), "left-house", "bounce_before")
    assert abs(c.t - t_b) < 0.05 * DT
    assert c.pos is not None and np.allclose(c.pos, (p_b[0], 0.0), atol=0.5)  # the touch on the nose line
    # hit away from the cushion, its path away from it is no bounce
    assert (
        cushions.bounce_off_start("1", a, a + u * D, 1.0, cushions.paths_out(away, 1.0, 10), TABLE, S, START, DT)
        is None
    )
    # coming away at right angles to the mirrored hit: not the bounce of that hit (beyond bounce_angle_deg)
    askew = _away(t_b, p_b, (-0.8 * speed, 0.6 * speed), 62)
    assert (
        cushions.bounce_off_start("1", a, a - u * D, 1.0, cushions.paths_out(askew, 1.0, 10), TABLE, S, START, DT)
        is None
    )


def test_a_ball_hit_along_a_cushion_first_seen_at_the_touch_bounced_off_it() -> None:
    # at 30 fps: ball 1, 10 mm short of touching the cushion, hit at 0.99 s almost along it (2 m/s along, 0.24 m/s
    # into it) meets it at 1.032 s: its first sample (1.0 s) is on the way in, its second the frame of the touch,
    # the centre there half a millimetre behind the nose line (noise): the path away from that sample, run back,
    # meets the nose line just after it
    dt, t_hit, w = 1 / 30, 0.99, 10.0 / 0.042
    a = np.array([800.0, R + 10.0])
    u = np.array([2000.0, -w]) / np.hypot(2000.0, w)
    t_b = t_hit + 0.042
    p_b = (a[0] + 2000.0 * 0.042, R)
    ts = 1.0 + np.arange(0, 8) * dt
    ps = _line(p_b, (2000.0, w), t_b, ts)
    ps[0] = a + (1.0 - t_hit) * np.array([2000.0, -w])
    ps[1, 1] = R - 0.5
    away = PathView("1", tuple(ts), tuple(ps))
    c = cushions.bounce_off_start("1", a, a - u * D, t_hit, cushions.paths_out(away, t_hit, 10), TABLE, S, START, dt)
    assert c is not None and (c.obstacle, c.evidence) == ("left-house", "bounce_before")
    assert abs(c.t - t_b) < 0.25 * dt


def test_a_thin_hit_sends_the_ball_along_the_line_of_centres_where_the_hitter_came_a_diameter_from_it() -> None:
    # the hitter runs along +x at 3 m/s, its path 60 mm beside the resting ball's centre: it touches it where it
    # is one diameter from it, 32 mm short of passing it, and sends it along (0.47, 0.88); given the hit a third of
    # a 30 fps frame late, its centre then (32 mm on, abreast of the ball) would send it straight across, along y
    dt = 1 / 30
    a = np.array([800.0, 400.0])
    t_touch, back = 1.0, float(np.sqrt(D**2 - 60.0**2))
    hitter = PathFit(t_touch, (a[0] - back, 3000.0, 0.0), (a[1] - 60.0, 0.0, 0.0), 0.0, t_touch, 0.0, 10)
    got = cushions.hitter_at_touch(hitter, a, t_touch + dt / 3, D, dt)
    assert np.allclose(got, (a[0] - back, a[1] - 60.0), atol=0.1)
    u = (a - got) / np.linalg.norm(a - got)
    assert np.allclose(u, (back / D, 60.0 / D), atol=1e-3)
    # a path that never comes a diameter from it (measured a little wide): its nearest, abreast of the ball
    wide = PathFit(t_touch, (a[0] - back, 3000.0, 0.0), (a[1] - D - 2.0, 0.0, 0.0), 0.0, t_touch, 0.0, 10)
    assert np.allclose(cushions.hitter_at_touch(wide, a, t_touch, D, dt), (a[0], a[1] - D - 2.0), atol=0.5)


def test_a_ball_glancing_off_another_beside_a_cushion_went_into_it_before_it_was_seen_again() -> None:
    # ball 1 rolls along +x at y = 60 at 1 m/s and meets resting ball 2 at (800, 60) + D (0.6, 0.8) at 1.0 s: it
    # keeps the part of its velocity across their line of centres, 0.8 m/s along (0.8, -0.6), into the cushion
    tc, p = 1.0, np.array([800.0, 60.0])
    ts_in = np.arange(50, 60) * DT
    old = fit_path(ts_in, _line((800.0, 60.0), (1000.0, 0.0), tc, ts_in))
    other = PathFit.still(p + D * np.array([0.6, 0.8]), 0.0, tc)
    t_b = tc + (p[1] - R) / (0.6 * 800.0)
    p_b = (p[0] + 640.0 * (t_b - tc), R)
    first = int(np.ceil(t_b / DT))
    away = _away(t_b, p_b, (640.0, 480.0), first)
    new = fit_path(np.array(away.ts), np.array(away.ps))
    c = cushions.bounce_after_hit("1", old, other, False, tc, new, away.ts[0], TABLE, S, START, DT)
    assert c is not None and c.obstacle == "left-house"
    assert abs(c.t - t_b) < 0.05 * DT
    # ball 2 coming at it along their line of centres at 1 m/s sends it almost straight into the cushion: it would
    # come straight back off it, not along the path seen
    towards = PathFit(tc, (float(other.at(tc)[0]), -600.0, 0.0), (float(other.at(tc)[1]), -800.0, 0.0), 0.0, tc, 0.0, 5)
    assert cushions.bounce_after_hit("1", old, towards, True, tc, new, away.ts[0], TABLE, S, START, DT) is None
    assert cushions.bounce_after_hit("1", old, other, False, tc, new, None, TABLE, S, START, DT) is None


def test_a_touch_past_the_flat_nose_is_of_the_jaw_tip() -> None:
    # the physics' cushion ends at its flat nose and the jaw's rounded tip begins: a centre touching the nose line
    # past the flat by more than tip_past_mm touched the jaw at that end
    cu = TABLE.cushions["pyramid"]
    lo, hi = TABLE.cushion_flats["pyramid"]
    assert cushions.jaw_tip(TABLE, S, cu, (lo + hi) / 2) is None
    assert cushions.jaw_tip(TABLE, S, cu, hi + 0.5) is None  # within the noise of the flat's end: the cushion
    right, left = cushions.jaw_tip(TABLE, S, cu, hi + 2.7), cushions.jaw_tip(TABLE, S, cu, lo - 2.7)
    assert right is not None and right.pocket == "pyramid-right" and right.cushion == "pyramid"
    assert left is not None and left.pocket == "pyramid-left"


def test_a_graze_soon_after_a_bounce_is_timed_on_its_own_v() -> None:
    # at 30 fps ball 1 runs along the left-house cushion at 0.76 m/s. Its path starts at the kink of a bounce (the
    # paths' meeting point, 6.8 mm behind the nose line), comes away to 10 mm, then drifts back in at 57 mm/s,
    # touches at t_b and leaves at 30 mm/s. The V's falling side starts after the bounce: fitted through the
    # kink's point it reads as a slow fall, late, and the samples near its bottom as a ball rolling along
    dt = 1 / 30
    t0, t_b = 10.0, 10.0 + 5.6 * dt
    ts = t0 + np.arange(0, 18) * dt
    off = np.where(ts < t_b, 57.0 * (t_b - ts), 30.0 * (ts - t_b))
    off = np.minimum(off, 10.0)
    off[0] = -6.8
    ps = np.column_stack([800.0 + 760.0 * (ts - t0), R + off])
    into = PathView("1", (t0 - 0.2, t0), (ps[0] + (-200.0, 60.0), ps[0]))  # the path that ended at the kink
    path = PathView("1", tuple(ts), tuple(ps), 0.0, into)
    got = cushions.grazes(path, path, TABLE, S, dt)
    assert [c.obstacle for c in got] == ["left-house"]
    assert abs(got[0].t - t_b) < 0.5 * dt


def test_a_slow_ball_rebounding_off_a_cushion_as_it_stops_touched_it() -> None:
    # a ball's distances from touching the left-house cushion as the tracker measured them at 30 fps (tune30): it
    # rolls in, nearest (0.3 mm) between two frames, and rebounds 3 mm as it stops. The first sample within
    # the plateau of its nearest is 2.2 mm off; the corner of its approach and rebound, 0.3 mm off, is how near it
    # came: it touched, between those samples
    dt = 1 / 30
    off = [12.1, 10.8, 8.9, 5.9, 4.5, 2.2, 0.6, 0.3, 1.5, 3.2, 3.0, 3.0, 2.9, 3.0, 3.0, 3.1]
    ts = 7.2667 + np.arange(len(off)) * dt
    ps = np.column_stack([1200.0 + 30.0 * (ts - ts[0]), R + np.array(off)])
    path = PathView("8", tuple(ts), tuple(ps))
    got = cushions.rest_touches(path, path, TABLE, S, 10, dt)
    assert [(c.obstacle, c.evidence) for c in got] == [("left-house", "rest_touch")]
    assert ts[5] - 0.5 * dt <= got[0].t <= ts[7]
    # stopping 3 mm short after coming straight in: no touch
    short = np.column_stack([ps[:, 0], R + np.array([o + 3.0 for o in off[:8]] + [3.3] * 8)])
    assert cushions.rest_touches(PathView("8", tuple(ts), tuple(short)), path, TABLE, S, 10, dt) == []


def _one_out(p_in: tuple[float, float], v: tuple[float, float], p_out: tuple[float, float]) -> Kink:
    """A ball rolling with ``v`` whose last of six samples in is at ``p_in`` (t = 1.0) and whose only sample out,
    a frame later, is at ``p_out``: the paths' meeting point is unknown, so the kink sits half a frame on."""
    ts = 1.0 - DT * np.arange(5, -1, -1)
    into = fit_path(ts, np.array([[p_in[0] + v[0] * (t - 1.0), p_in[1] + v[1] * (t - 1.0)] for t in ts]))
    t_hi = 1.0 + DT
    new = PathFit.still(np.array(p_out), t_hi, t_hi)
    t_k = 1.0 + 0.5 * DT
    return Kink("1", into, new, into, 1.0, t_k, into.at(t_k), 1.0 - DT, t_hi + 0.5 * DT, 1.0 - 1.5 * DT, 1.0, t_hi)


def test_a_fast_ball_seen_once_after_its_path_in_met_a_jaw_turned_on_that_jaw() -> None:
    # 3.2 m/s at a slant into the pyramid-right mouth: half a frame on its path in is 10 mm inside the jaw, but
    # that path meets the jaw's touching distance between its last sighting in and its one sighting out
    pk = TABLE.pockets["pyramid-right"]
    k = _one_out((3541.9, 1749.8), (3000.0, 1000.0), (3554.3, 1762.9))
    assert pk.jaws[1].distance(as_pt(k.p)) - R < -S.jaw_kink_mm
    reads = [r for r in cushions.jaw_kink_readings(k, TABLE, S) if r.name == "jaw:pyramid-right"]
    assert len(reads) == 1 and reads[0].residual_mm == 0.0
    assert 1.0 < reads[0].t < 1.0 + DT
    call = breaks.best_reading(k, reads, False, S, DT)  # potted with one sample out: still the jaw it turned on
    assert call is not None and call.reading.name == "jaw:pyramid-right"
    # running straight down the mouth's axis, its path in meets no jaw: no turn on one there
    axis = np.array(pk.outward)
    p0 = np.array(pk.mouth_center) - 20.0 * axis
    straight = _one_out(as_pt(p0), as_pt(3000.0 * axis), as_pt(p0 + 50.0 * axis))
    assert all(r.residual_mm > 0.0 for r in cushions.jaw_kink_readings(straight, TABLE, S))


def _kink(into: PathFit, t_last: float, new: PathFit, t_hi: float, t_k: float) -> Kink:
    """A kink whose path in (``into``, last sample at ``t_last``) and path out (``new``, first sample at ``t_hi``)
    meet at ``t_k``."""
    dt = 1 / 30
    lo = t_last - dt
    return Kink("1", into, new, into, t_last, t_k, into.at(t_k), lo, t_hi + 0.5 * dt, lo, t_last, t_hi)


def test_a_ball_lost_from_sight_after_its_path_in_ran_into_a_cushion_touched_it_there() -> None:
    # at 30 fps the cue ball runs at 3.7 m/s toward the left-pyramid cushion, last seen 33 mm short of touching
    # it, and is seen again six frames later coming from a ball it hit after the bounce: the paths either side
    # meet 31 mm inside the nose line, but its path in reaches the nose before it is seen again, and a ball
    # does not pass through a cushion
    dt = 1 / 30
    v = np.array([2922.0, -2143.0])
    ts = 1.5333 - dt * np.arange(5, -1, -1)
    into = fit_path(ts, np.array([[2550.9, R + 33.7]]) + np.outer(ts - ts[-1], v))
    new = fit_path(
        1.7333 + dt * np.arange(4), np.array([[2974.9, 259.0]]) + np.outer(dt * np.arange(4), (912.0, -446.0))
    )
    k = _kink(into, 1.5333, new, 1.7333, 1.5343)
    reads = cushions.kink_readings(k, PathView("1", tuple(ts), tuple(into.at(t) for t in ts)), TABLE, S, dt)
    assert [(r.name, r.residual_mm) for r in reads] == [("left-pyramid", 0.0)]
    assert abs(reads[0].t - (1.5333 + 33.7 / 2143.0)) < 0.1 * dt
    # the same path in, seen again before it reached the nose line: nothing says it touched
    early = _kink(into, 1.5333, new, 1.5333 + 0.3 * dt, 1.5343)
    assert cushions.kink_readings(early, PathView("1", (), ()), TABLE, S, dt) == []
    # run on into a pocket's mouth, past the flat nose: it may have gone on into the pocket
    mouth = fit_path(ts, np.array([[3480.0, R + 33.7]]) + np.outer(ts - ts[-1], v))
    assert cushions.kink_readings(_kink(mouth, 1.5333, new, 1.7333, 1.5343), PathView("1", (), ()), TABLE, S, dt) == []


def test_where_along_the_nose_a_ball_touched_is_where_its_path_in_met_it() -> None:
    # 30 fps, a ball comes steeply into the pyramid cushion 19 mm short of its flat end by the pyramid-right
    # pocket, and a frame later meets the right-pyramid cushion: its paths in and out meet 3 mm inside the
    # nose line but 2.4 mm past the flat. It touched the flat nose, not the jaw's rounded tip
    dt = 1 / 30
    hi = TABLE.cushion_flats["pyramid"][1]
    cu = TABLE.cushions["pyramid"]
    y_touch = cu.start[1] + hi - 19.0
    v = np.array([600.0, 720.0])
    t_touch = 2.4649
    ts = t_touch - 0.5 * dt - dt * np.arange(5, -1, -1)
    into = fit_path(ts, np.array([[3569.0 - R, y_touch]]) + np.outer(ts - t_touch, v))
    out_ts = t_touch + 1.5 * dt + dt * np.arange(4)
    new = fit_path(
        out_ts,
        np.array([[3569.0 - R - 20.0, cu.start[1] + hi - 30.0]]) + np.outer(out_ts - out_ts[0], (-386.0, -232.0)),
    )
    k = Kink("1", into, new, into, ts[-1], t_touch + 0.5 * dt, np.array([3569.0 - R - 3.0, cu.start[1] + hi + 2.4]),
             ts[-1] - dt, out_ts[0] + 0.5 * dt, ts[-1] - dt, ts[-1], out_ts[0])  # fmt: skip
    seen = PathView("1", tuple(ts), tuple(into.at(t) for t in ts))
    reads = cushions.kink_readings(k, seen, TABLE, S, dt) + cushions.jaw_kink_readings(k, TABLE, S)
    call = breaks.best_reading(k, reads, True, S, dt)
    assert call is not None and call.reading.name == "pyramid"
    # the path in follows the ball to its last sample: read on it at the touch, 19 mm short of the flat's end
    centre = cushions.centre_at(k, seen, cu, R, dt, t_touch)
    assert abs(cu.offset(as_pt(centre)) - R) < 0.01 and abs(cu.along(as_pt(centre)) - (hi - 19.0)) < 0.5
    # a path in bent 12 mm off that sample (fitted over an earlier bounce): the sample run on straight instead
    bent = fit_path(ts, np.array([into.at(t) for t in ts]) + np.array([0.0, -12.0]))
    kb = Kink("1", into, new, bent, ts[-1], k.t, k.p, k.lo, k.hi, k.lo_into, ts[-1], out_ts[0])
    centre = cushions.centre_at(kb, seen, cu, R, dt, t_touch)
    assert abs(cu.offset(as_pt(centre)) - R) < 0.01 and abs(cu.along(as_pt(centre)) - (hi - 19.0)) < 0.5


def test_a_bounce_off_a_cushion_by_a_corner_into_the_other_cushion_touches_both() -> None:
    # off the pyramid cushion 19 mm short of the pyramid-right corner at t = 2.4671 and into the right-pyramid
    # cushion 1.6 frames later: the path away, run back, comes from behind that cushion's nose line after the
    # first touch
    dt = 1 / 30
    t2 = 2.5204
    v = np.array([-386.0, -232.0])
    ts = 2.5333 + dt * np.arange(5)
    away = fit_path(ts, np.array([[3505.0, 1778.0 - R]]) + np.outer(ts - t2, v))
    paths = list(cushions.paths_out(PathView("4", tuple(ts), tuple(away.at(t) for t in ts)), 2.4671, 10))
    cu = TABLE.cushions["pyramid"]
    c = cushions.cushion_after_cushion("4", cu, np.array([3535.0, 1713.8]), paths, 2.4671, TABLE, S)
    assert c is not None and c.obstacle == "right-pyramid" and abs(c.t - t2) < 0.1 * dt
    # the same bounce in the middle of the pyramid cushion is near no corner: no second cushion is looked for
    assert cushions.cushion_after_cushion("4", cu, np.array([3535.0, 900.0]), paths, 2.4671, TABLE, S) is None
