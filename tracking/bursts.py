"""Bursts: resting balls set moving together (a rack or a cluster broken up), and the check of their ids.

In the frame a cluster bursts its balls are blurred and crowded, and the association may give a ball its
neighbour's detection. Two or three frames on, each ball's path run back to the moment of the burst shows
where it rested, and so which ball it is. ``BurstWatch`` owns the one burst being checked; the tracker feeds
it every frame's tracks and passes on the ids it corrects (``TrackerFrame.relabel``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import linear_sum_assignment

from tracking.paths import distances
from tracking.states import GONE, Phase
from tracking.tracker_settings import TrackerSettings

if TYPE_CHECKING:
    from tracking.tracker import _Track

# the phases of a public ball seen in its last frame
_SEEN = frozenset({Phase.MOVING, Phase.RESTING})

# ids corrected after a burst: (the time from which they hold, the (old, new) id pairs)
Relabel = tuple[float, tuple[tuple[str, str], ...]]


@dataclass
class Burst:
    """Resting balls set moving together: a rack or a cluster broken up. In the frame it bursts the balls are
    blurred and crowded, and the tracker may give a ball its neighbour's detection; two frames later each path,
    run back to the moment of the burst, shows where its ball rested, and so which ball it is."""

    t0: float  # the time of the last frame before the burst (every ball of it at rest)
    anchors: dict[int, np.ndarray]  # track key -> where that track's ball rested


class BurstWatch:
    """Notes a burst, adds the balls that join it in its first frames, and checks their ids when their paths
    show them (``burst_check_frames`` on, and each frame up to ``burst_last_frames``)."""

    def __init__(self) -> None:
        self.burst: Burst | None = None

    @property
    def checking(self) -> bool:
        """Are the ids of a burst's balls still to be checked? Their frames since it may yet be relabelled."""
        return self.burst is not None

    def step(
        self,
        tracks: Sequence[_Track],
        t: float,
        t_prev: float | None,
        frame_dt: float,
        s: TrackerSettings,
        ball_radius_mm: float,
    ) -> Relabel | None:
        """Notes a burst (``Burst``), adds the balls that join it, and checks its ids when their paths show
        them: returns (the time from which, the (old, new) id pairs) where ids changed."""
        left = {
            tr.key: tr.left_anchor
            for tr in tracks
            if tr.id is not None
            and tr.phase not in GONE
            and not tr.resting
            and tr.left_t == t
            and tr.left_anchor is not None
        }
        b = self.burst
        if b is None:
            if t_prev is not None and len(left) >= s.burst_min_balls:
                self.burst = Burst(t_prev, dict(left))
            return None
        dt = frame_dt
        if t - b.t0 <= s.burst_join_frames * dt + 1e-9:
            b.anchors.update(left)
        if t - b.t0 < s.burst_check_frames * dt - 1e-6:
            return None
        if t - b.t0 >= s.burst_last_frames * dt - 1e-6:
            self.burst = None  # the last check
        return check_burst(b, tracks, t, frame_dt, ball_radius_mm)


def check_burst(b: Burst, tracks: Sequence[_Track], t: float, frame_dt: float, ball_radius_mm: float) -> Relabel | None:
    """Each ball of the burst seen in this frame and the one before (both after it): its path run back to
    the burst's moment (searched over the frame interval it happened in) against where the burst's balls
    rested, assigned one to one (least total distance); ids change where that assignment beats the present
    one and each changed ball's path leads back to within a radius of its new place."""
    dt = frame_dt
    members = [
        tr
        for tr in tracks
        if tr.key in b.anchors
        and tr.id is not None
        and tr.phase in _SEEN
        and tr.last_t == t
        and tr.prev_t is not None
        and tr.prev_t > b.t0 + 0.5 * dt
    ]
    if len(members) < 2:
        return None
    z = np.array([tr.last_meas for tr in members])
    v = np.array([(tr.last_meas - tr.prev_meas) / max(tr.last_t - (tr.prev_t or 0.0), 1e-6) for tr in members])
    a = np.array([b.anchors[tr.key] for tr in members])
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for tb in np.linspace(b.t0, b.t0 + dt, 9):
        back = z - v * (t - tb)
        cost = distances(back, a)
        r, c = linear_sum_assignment(cost)
        total = float(cost[r, c].sum())
        if best is None or total < best[0]:
            best = (total, c, cost)
    assert best is not None
    _, c, cost = best
    changed = np.flatnonzero(c != np.arange(len(members)))
    if not len(changed):
        return None
    if float(cost[changed, c[changed]].max()) > ball_radius_mm:
        return None  # a changed ball's path does not lead back to its new place: noise, not an answer
    old = [str(tr.id) for tr in members]  # every member has an id (filtered above)
    pairs = tuple((old[k], old[int(c[k])]) for k in changed)
    for k in changed:
        members[k].id = old[int(c[k])]
        members[k].left_anchor = a[int(c[k])].copy()
        b.anchors[members[k].key] = a[int(c[k])].copy()
    return b.t0 + 0.5 * dt, pairs
