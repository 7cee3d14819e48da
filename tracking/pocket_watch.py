"""Where a ball leaves the table: the pocket it was running into, the rail it rode over, and whether a hidden
ball has been gone long enough there to be potted or off the table.

Plain functions of the table, the tracker's settings and a track; they own no state. The tracker asks them
when a ball goes unseen (``gone``), and its association asks which hidden balls may have gone down a pocket
(``entering_pockets``, ``pocket_runs``) and which ball a blob inside a pocket can be (``pocket_claims``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from calibration.table import TableModel
from tracking.detect.candidate import confidence
from tracking.tracker_settings import TrackerSettings

if TYPE_CHECKING:
    from tracking.tracker import _Track

# A ball slower than this (mm/s) at its last sighting is not running into a pocket: one drifting in the jaws
# that vanishes is judged by where it lies (``gone``'s mouth case), not by where it was heading.
_RUNNING_MM_S = 30.0


@dataclass(frozen=True)
class Gone:
    """A hidden ball judged gone from the table: how (``"pot"`` or ``"off_table"``), into which pocket, the
    velocity it was last seen with, and how sure the judgement is (``candidate.confidence`` of how it went: a
    run into a mouth, a run cut short by the stream's end, a ride over a rail, a lie in a mouth)."""

    kind: str
    pocket: str | None
    vel: np.ndarray
    confidence: float


def last_velocity(tr: _Track) -> np.ndarray:
    """How ``tr`` was last seen moving (mm/s): its last two sightings' step over their interval, the filter's
    velocity where it has only one, nothing where it rests. A ball gone from view carries on as it was last
    seen: the filter's smoothed velocity lags a ball that just turned off a jaw or a ball."""
    if tr.resting:
        return np.zeros(2)
    if tr.prev_meas is None or tr.prev_t is None:
        return tr.kf.x[2:4]
    return (tr.last_meas - tr.prev_meas) / max(tr.last_t - tr.prev_t, 1e-6)


def gone(table: TableModel, s: TrackerSettings, tr: _Track, gap: float, final: bool = False) -> Gone | None:
    """Whether hidden ``tr``, unseen for ``gap`` seconds of watched frames, has left the table: it ran into a
    pocket's mouth and stayed gone for ``pot_confirm_s``; it ran at a rail fast enough to ride over it; or it
    lay in a mouth and stayed gone. ``final``: the stream ended, so no more time will come."""
    if final:
        gap = max(gap, s.pot_confirm_s)
    p = tr.last_meas
    v = last_velocity(tr)
    speed = float(np.linalg.norm(v))
    R = table.ball_radius_mm
    pocket = pocket_ahead(table, s, p, v)
    if pocket is not None and speed > _RUNNING_MM_S and gap >= s.pot_confirm_s:
        return Gone("pot", pocket, v, confidence("drop_at_end" if final else "drop"))
    if pocket is None and speed > _RUNNING_MM_S and gap >= s.pot_confirm_s and climbed_rail(table, s, tr):
        # it ran at a rail fast enough to ride over it: gone off the table where its path leaves the field
        # within a frame or two, or where it vanished close to the rail
        ahead = p + v * min(gap, 0.1)
        margin = R + 5.0
        outside = not (
            -margin <= ahead[0] <= table.length_mm + margin and -margin <= ahead[1] <= table.width_mm + margin
        )
        near_rail = first_rail(table, p, v)[2] < 3 * R  # the rail it ran at, not one it ran along
        if outside or near_rail:
            return Gone("off_table", None, v, confidence("off_table"))
    mouth = table.in_pocket_mouth(_pt(p))
    if mouth is not None and (gap >= s.pot_confirm_s or final):
        # A ball hanging in the mouth that drops later (001 2.1.15): less certain than a running pot,
        # since a hand could hide it; flagged for review by the extractor.
        return Gone("pot", mouth, v, confidence("lay_in_mouth"))
    return None


def going_pockets(table: TableModel, s: TrackerSettings, tracks: Sequence[_Track], in_pocket: np.ndarray) -> np.ndarray:
    """For each track, the index (``table.pockets``' order) of the pocket it was last seen going into, or lying
    in the mouth of; -2 for none. Computed only where a detection lies inside a pocket (``in_pocket``: each
    detection's pocket index, -1 for none; -2 for all tracks where no detection does)."""
    out = np.full(len(tracks), -2)
    if not (in_pocket >= 0).any():
        return out
    names = list(table.pockets)
    for i, tr in enumerate(tracks):
        going = pocket_ahead(table, s, tr.last_meas, last_velocity(tr)) or table.in_pocket_mouth(_pt(tr.last_meas))
        out[i] = names.index(going) if going else -2
    return out


def pocket_claims(table: TableModel, s: TrackerSettings, tracks: Sequence[_Track], in_pocket: np.ndarray) -> np.ndarray:
    """Which detections each track may take back (n x m): one inside a pocket's hole or net only the ball
    that was last seen going into that pocket (a ball does not climb out of a pocket; a hand reaches in)."""
    inside = in_pocket >= 0
    return ~inside[None, :] | (in_pocket[None, :] == going_pockets(table, s, tracks, in_pocket)[:, None])


def entering_pocket(table: TableModel, s: TrackerSettings, tr: _Track) -> bool:
    """Was ``tr`` last seen moving into a pocket (its last two sightings' velocity, as ``gone`` reads it)?"""
    if tr.resting or tr.prev_meas is None or tr.prev_t is None:
        return False
    v = last_velocity(tr)
    return float(np.linalg.norm(v)) > _RUNNING_MM_S and pocket_ahead(table, s, tr.last_meas, v) is not None


def may_be_back_at(table: TableModel, s: TrackerSettings, tr: _Track, p: np.ndarray, t: float) -> bool:
    """Could hidden ``tr`` be the ball seen at ``p`` at time ``t``? Not where it was last seen running into a
    pocket's mouth and ``p`` lies beyond its reach: a ball that ran into the jaws dropped, or came back out of
    them no faster than it went in (the jaws take speed from it, never add any), so by ``t`` it is within its
    entry speed times the time since it was last seen of where it was last seen (and a diameter's slack, for
    the two centres' noise). Any other hidden ball may be anywhere."""
    if not entering_pocket(table, s, tr):
        return True
    speed = float(np.linalg.norm(last_velocity(tr)))
    reach = speed * max(t - tr.last_t, 0.0) + 2.0 * table.ball_radius_mm
    return float(np.linalg.norm(np.asarray(p, dtype=float) - tr.last_meas)) <= reach


def entering_pockets(
    table: TableModel, s: TrackerSettings, tracks: Sequence[_Track], occluded: np.ndarray
) -> np.ndarray:
    """Hidden balls last seen running into a pocket's mouth (they may be gone down it)."""
    flags = [bool(o) and entering_pocket(table, s, tr) for tr, o in zip(tracks, occluded, strict=True)]
    return np.array(flags, bool)


def from_pocket_run(table: TableModel, s: TrackerSettings, tr: _Track, z: np.ndarray) -> np.ndarray | None:
    """For a hidden ball that was entering a pocket, the distances of detections ``z`` from its run in: the
    line from where it was last seen to the pocket's mouth (a fast ball unseen for a frame or two, at 30 fps,
    is seen again in the jaws, a frame's travel or more from where it was last seen). None for any other."""
    name = pocket_ahead(table, s, tr.last_meas, tr.kf.x[2:4])
    if name is None:
        return None
    a = np.asarray(tr.last_meas, dtype=float)
    ab = np.asarray(table.pockets[name].mouth_center, dtype=float) - a
    u = np.clip(((z - a) @ ab) / max(float(ab @ ab), 1e-9), 0.0, 1.0)
    return np.linalg.norm(z - (a + u[:, None] * ab), axis=1)


def pocket_runs(
    table: TableModel, s: TrackerSettings, tracks: Sequence[_Track], occluded: np.ndarray, z: np.ndarray
) -> np.ndarray:
    """For each hidden ball that was entering a pocket, each detection's distance from its run in (a fast
    ball unseen for a frame is seen again in the jaws); inf for every other pair."""
    pocket_run = np.full((len(tracks), len(z)), np.inf)
    for i in np.flatnonzero(occluded):
        d_pk = from_pocket_run(table, s, tracks[i], z)
        if d_pk is not None:
            pocket_run[i] = d_pk
    return pocket_run


def pocket_ahead(table: TableModel, s: TrackerSettings, p: np.ndarray, v: np.ndarray) -> str | None:
    """The pocket a ball last seen at ``p`` moving with ``v`` was entering: already in or just short of
    the mouth, or reaching the mouth line between its jaws within 0.1 s along its path."""
    R = table.ball_radius_mm
    best, best_tau = None, math.inf
    for pk in table.pockets.values():
        depth = pk.depth(_pt(p))
        vn = v[0] * pk.outward[0] + v[1] * pk.outward[1]
        # when (within 0.1 s) its path crosses the mouth line, and whether it does so between the jaws
        tau = -depth / vn if vn > 0 else math.inf
        crosses = tau <= 0.1
        between = crosses and abs(pk.lateral(_pt(p + v * tau))) <= pk.mouth_width_mm / 2 + R * 0.5
        if depth >= -R - 10.0 and abs(pk.lateral(_pt(p))) <= pk.mouth_width_mm / 2 + R:
            # Beside the mouth and heading out over the rail: a ball whose centre crosses the mouth line beyond
            # the jaws' tips meets the rail, not the hole, and if it vanishes it jumped off the table. A ball
            # rolling along the cushion into the pocket crosses that line slowly (past 0.1 s): this pocket's.
            if depth < 0 and crosses and not between and first_rail(table, p, v)[1] >= s.climb_speed_mm_s:
                continue
            return pk.name
        if between and tau < best_tau:
            best, best_tau = pk.name, tau
    return best


def first_rail(table: TableModel, p: np.ndarray, v: np.ndarray) -> tuple[int, float, float]:
    """The rail a ball at ``p`` moving with ``v`` reaches first: its axis (0: an end rail, across x; 1: a side
    rail, across y), the ball's speed normal to it (0 for a ball at rest) and its centre's distance from it."""
    taus, speeds, gaps = [], [], []
    for axis, hi in ((0, table.length_mm), (1, table.width_mm)):
        vn = float(v[axis])
        gap = (hi - float(p[axis])) if vn > 0 else float(p[axis])
        taus.append(max(gap, 0.0) / abs(vn) if vn != 0.0 else math.inf)
        speeds.append(abs(vn))
        gaps.append(gap)
    k = int(np.argmin(taus))
    return k, speeds[k], gaps[k]


def climbed_rail(table: TableModel, s: TrackerSettings, tr: _Track) -> bool:
    """Was ``tr`` seen running at a rail fast enough to ride over its cushion (``climb_speed_mm_s``)? Both of
    its last two steps must be that fast toward the same rail: one such step after a standstill, or from a
    ball's first sighting, is a detection taken from another ball or a blob, not a run."""
    if tr.resting or len(tr.recent) < 3:
        return False
    (t0, x0, y0), (t1, x1, y1), (t2, x2, y2) = list(tr.recent)[-3:]
    v_prev = np.array([x1 - x0, y1 - y0]) / max(t1 - t0, 1e-6)
    v_last = np.array([x2 - x1, y2 - y1]) / max(t2 - t1, 1e-6)
    k, speed, _ = first_rail(table, np.array([x2, y2]), v_last)
    # the earlier step's speed toward that same rail
    prev = float(v_prev[k]) * math.copysign(1.0, float(v_last[k]))
    return min(speed, prev) >= s.climb_speed_mm_s


def _pt(a: np.ndarray) -> tuple[float, float]:
    return (float(a[0]), float(a[1]))
