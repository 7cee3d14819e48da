"""Where a hidden ball can be: how far from where it went under, where to look for it again, and which hidden
ball a new one coming out of hiding is.

Plain functions of the table, the tracker's settings, the clock and the tracks; they own no state. The
association reads ``reach`` (a ball's gate); the tracker's second pass looks for hidden balls with
``where_hidden_ball_may_be``, and a new ball takes a hidden one's id through ``hidden_behind``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from calibration.table import TableModel
from tracking import pocket_watch
from tracking.kalman import seeded_speed_sigma
from tracking.states import HIDDEN, TENTATIVE
from tracking.tracker_settings import REACQUIRE_RADIUS_MM, TrackerSettings

if TYPE_CHECKING:
    from tracking.tracker import _Track

# How long (s) a ball may go unseen and still be looked for within its top speed's reach: a blink (a frame or
# a few dropped by the detector). Past it a hidden ball is looked for where it went under or along its path.
_BLINK_S = 0.2
# Below this speed (mm/s) a new ball's first step says nothing of where it came from: it is looked for at its
# first sighting, within ``REACQUIRE_RADIUS_MM``, not along a line.
_BARELY_MOVING_MM_S = 50.0


def reach(
    table: TableModel, s: TrackerSettings, tracks: Sequence[_Track], t: float, frame_dt: float, shot_active: bool
) -> np.ndarray:
    """How far from where it was last seen each track's ball can be now. A ball in sight: at top speed since
    then. A ball hidden at rest stays where it went under (within ``reacquire_radius``) unless something
    could have set it moving unseen, and then no farther than that could send it (``struck_speed``). A ball
    hidden while rolling: no farther than its speed carries it (the cloth only slows it), give or take a
    collision's kick or a cushion's rebound (``hidden_speedup``), and not across the table to a blob (the
    player's hand)."""
    out = np.empty(len(tracks))
    for i, tr in enumerate(tracks):
        gap = max(t - tr.last_t, 1e-6)
        out[i] = s.max_speed_mm_s * gap + table.ball_radius_mm
        if tr.phase not in HIDDEN:
            continue
        if gap > _BLINK_S:
            # past a blink a hidden ball is looked for where it went under (struck unseen, it comes back as a
            # new ball whose path leads there: ``Tracker._adopt_hidden``) or along its path (``Tracker._reacquire``)
            out[i] = min(out[i], reacquire_radius(s, tr, t, shot_active))
        if tr.resting:  # where it went under, or as far as a stroke or a hit could have sent it since
            struck = struck_speed(table, s, tr, tracks, t, frame_dt) * gap + table.ball_radius_mm
            out[i] = min(out[i], max(reacquire_radius(s, tr, t, shot_active), struck))
        if not tr.resting and gap > 1.5 * frame_dt:
            speed = float(np.hypot(*tr.kf.x[2:4]))
            out[i] = min(out[i], s.hidden_speedup * speed * gap + 2.0 * table.ball_diameter_mm)
    return out


def struck_speed(
    table: TableModel, s: TrackerSettings, tr: _Track, tracks: Sequence[_Track], t: float, frame_dt: float
) -> float:
    """How fast a ball hidden at rest may have been set moving unseen by now (``t``); 0 where nothing could
    have struck it. While every ball rests the cue may strike any of them, and drive it at top speed (the
    stroke hidden under the cue and the player's arm). Once balls move, only a moving ball that could have
    reached it, or one that reached a ball frozen to it (a hit passes through a chain: a rack at the break),
    sets it moving, and no faster than that ball went (equal masses: a hit gives at most the hitter's speed,
    and the cloth only slows a ball), as far as it was measured before this ball went under
    (``speed_since``); a ball whose speed was not measured by then may have gone at top speed."""
    movers = [o for o in tracks if not o.resting and o.phase not in TENTATIVE and o is not tr]
    if not movers:
        return s.max_speed_mm_s
    D = table.ball_diameter_mm
    resting = [o for o in tracks if o.resting and o.phase not in TENTATIVE]
    chain, todo = [tr], [tr]
    while todo:  # the balls frozen to it, and to those, ...
        a = todo.pop()
        for o in resting:
            if not any(o is c for c in chain) and float(np.linalg.norm(o.pos - a.pos)) <= D + s.frozen_tol_mm:
                chain.append(o)
                todo.append(o)
    places = np.array([c.pos for c in chain], dtype=float).reshape(-1, 2)
    top = 0.0
    for mv in movers:
        speed = speed_since(s, mv, tr.last_t, frame_dt)
        run = speed * (t - min(tr.last_t, mv.last_t))  # centres a diameter apart at the touch
        if float(np.min(np.linalg.norm(places - mv.last_meas, axis=1))) <= 2.0 * D + run:
            top = max(top, speed)
    return top


def speed_since(s: TrackerSettings, mv: _Track, t0: float, frame_dt: float) -> float:
    """The most moving ball ``mv`` can have gone at any time since ``t0``: the fastest it was seen to go
    between two sightings a frame apart, both since it was set moving (the launch's own step starts from
    rest partway through the frame and reads slow) and the later by ``t0``, with the measurement's
    spread (``gate_chi2``'s sigmas of a two-sighting speed); after that it only slowed (the cloth) or took
    at most a faster ball's speed (a hit between equal masses). A speed that was not measured by ``t0`` is
    not a speed of 0: a ball whose set-off was unseen (struck under the cue or hidden at a hit, at 30 fps
    one frame is enough) or seen moving only once may have been sent at top speed (``max_speed_mm_s``)."""
    dt = frame_dt
    seen = [(rt, x, y) for rt, x, y in mv.recent if mv.left_t - 1e-9 <= rt <= t0 + 1e-9]
    steps = [
        math.hypot(xb - xa, yb - ya) / (tb - ta)
        for (ta, xa, ya), (tb, xb, yb) in itertools.pairwise(seen)
        if 0.0 < tb - ta <= 1.5 * dt
    ]
    if not steps:
        return s.max_speed_mm_s
    spread = math.sqrt(s.gate_chi2) * seeded_speed_sigma(s.filter, dt)
    return min(max(steps) + spread, s.max_speed_mm_s)


def reacquire_radius(s: TrackerSettings, tr: _Track, t: float, shot_active: bool) -> float:
    """How far from where it was a hidden ball may be seen again and keep its id. Between shots a hand may
    have moved it (``REACQUIRE_RADIUS_MM``). In play a ball hidden at rest for a while (under the player's
    arm) comes back at its place, within ``inplay_reacquire_mm``; struck while hidden, it comes back as a
    new ball whose path leads back to its place (``Tracker._adopt_hidden``), not as the hand that comes out
    from over it."""
    if shot_active and tr.resting and t - tr.last_t > s.inplay_hidden_s:
        return s.inplay_reacquire_mm
    return REACQUIRE_RADIUS_MM


def where_hidden_ball_may_be(
    table: TableModel, s: TrackerSettings, tr: _Track, zf: np.ndarray, t: float, shot_active: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Each detection's distance from where hidden ``tr`` may be now, and whether it is near enough: along
    its run into a pocket; at its place if it rests (or has been gone too long to extrapolate); else
    along its extrapolated path, the window widening with its speed (it may have slowed or been kicked)."""
    gap = t - tr.last_t
    d_pk = None if tr.resting else pocket_watch.from_pocket_run(table, s, tr, zf)
    if d_pk is not None:
        d, radius = d_pk, 2 * table.ball_diameter_mm
    else:
        if tr.resting or gap > s.moving_reacquire_s:
            centre, radius = tr.pos, reacquire_radius(s, tr, t, shot_active)
        else:
            centre = tr.kf.x[:2]
            radius = REACQUIRE_RADIUS_MM + 0.5 * float(np.linalg.norm(tr.kf.x[2:4])) * gap
        d = np.linalg.norm(zf - centre, axis=1)
    near = d <= radius
    if tr.coast_end is not None and not tr.resting and gap <= s.moving_reacquire_s:
        # held where it was last seen once its extrapolation stopped: it is as likely where that
        # extrapolation (cushion bounces in it) had taken it by then, and on from there
        d_end = np.linalg.norm(zf - tr.coast_end, axis=1)
        on = d_end <= REACQUIRE_RADIUS_MM + 0.5 * tr.coast_speed * (gap - s.coast_s)
        d, near = np.where(on, np.minimum(d, d_end), d), near | on
    return d, near


def hidden_named(tracks: Sequence[_Track], tr: _Track) -> list[_Track]:
    """The hidden public balls other than ``tr``."""
    return [o for o in tracks if o is not tr and o.phase in HIDDEN and o.id is not None]


def hidden_behind(
    table: TableModel, s: TrackerSettings, tracks: Sequence[_Track], tr: _Track, prev: np.ndarray, prev_t: float
) -> _Track | None:
    """The hidden ball whose place lies nearest the new ball ``tr``'s path run back from its first sighting
    ``prev`` (within a ball's diameter of it), or None."""
    v = (tr.last_meas - prev) / max(tr.last_t - prev_t, 1e-6)
    best, best_d = None, 2.0 * table.ball_radius_mm
    for old in hidden_named(tracks, tr):
        d = gap_from_path(table, s, old, prev, prev_t, v)
        if d is not None and d < best_d:
            best, best_d = old, d
    return best


def gap_from_path(
    table: TableModel, s: TrackerSettings, old: _Track, prev: np.ndarray, prev_t: float, v: np.ndarray
) -> float | None:
    """How far the hidden ball ``old``'s place lies from the path of a new ball first seen at ``prev`` (at
    ``prev_t``) moving with ``v``: from ``prev`` itself where the new ball is barely moving, else across the
    line it came along. None where ``old`` cannot be the new ball: it went into a pocket far away, lies ahead
    of the new ball, or too far behind it to have got there at top speed."""
    far = float(np.linalg.norm(prev - old.last_meas)) > 2 * table.ball_diameter_mm
    if far and pocket_watch.entering_pocket(table, s, old):
        return None  # it vanished running into a pocket: it is in there, not coming out of hiding far away
    back = old.pos - prev
    speed = float(np.linalg.norm(v))
    if speed < _BARELY_MOVING_MM_S:
        d = float(np.linalg.norm(back))
        return d if d <= REACQUIRE_RADIUS_MM else None
    u = v / speed
    along = float(back @ u)
    if along > 0:  # the hidden ball lies ahead of the new one, not behind it
        return None
    if -along > s.max_speed_mm_s * max(prev_t - old.last_t, 0.0) + table.ball_radius_mm:
        return None
    return abs(float(back[0] * u[1] - back[1] * u[0]))
