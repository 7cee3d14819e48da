"""Who a ball is: the balls' known starting places, the ids handed out, and the ids of balls that left.

``Identities`` owns the public ids (``tracking.ids.IdAssigner``: the known starting places and the ids in use)
and the ids of the balls that left the table, most recent last (a respotted ball takes one back). It says
whether a detection is at a known ball's place in the first moments, names a new ball, and gives a lost ball
found again at rest its id back (``recover``). The tracker decides when a track is a ball; it alone makes and
removes tracks, but for the hidden track a recovered ball replaces, which ``recover`` takes off its list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from calibration.table import TableModel
from tracking import pocket_watch
from tracking.ids import IdAssigner
from tracking.states import HIDDEN
from tracking.tracker_settings import TrackerSettings

if TYPE_CHECKING:
    from tracking.tracker import _Track


@dataclass(frozen=True)
class Found:
    """A hidden ball found again (``Identities.recover``): its id, and, where it was hidden at rest and is found
    more than a radius from its place (moved while unseen), that place and where it is now."""

    id: str
    moved: tuple[np.ndarray, np.ndarray] | None


class Identities:
    """The public ids of one stream's balls: ``ids`` (known starting places, ids in use) and ``lost`` (the ids
    of balls that left the table, most recent last)."""

    def __init__(self, table: TableModel, settings: TrackerSettings, known: dict[str, tuple[float, float]]) -> None:
        self.table = table
        self.s = settings
        self.ids = IdAssigner(dict(known), match_radius_mm=table.ball_radius_mm)
        self.lost: list[str] = []

    def claim(self, tr: _Track, t0: float | None, respot: bool) -> str:
        """The id of a new public ball ``tr`` that is no hidden ball come out of hiding: where ``respot`` (no shot
        in play, no ball moving, past the first half second), a ball placed back on the table is the ball that
        left most recently (a respotted ball; the operator can correct it); else the known ball whose starting
        place it was first seen at, or a fresh id. A known ball taken at its known place is vouched for."""
        if respot and self.lost:
            return self.lost.pop()
        first = first_seen(tr)
        name = self.ids.claim(first, tr.cue_votes > 0)
        known = name in self.ids.known and self.at_known_place(first, tr.recent[0][0] if tr.recent else None, t0)
        tr.vouched = tr.vouched or known
        return name

    def in_warmup(self, t: float | None, t0: float | None) -> bool:
        """Could a detection at ``t`` be at a known ball's place (``at_known_place``'s test of the time): the
        starting places are known and ``t`` is within ``warmup_s`` of the first ball seen (``t0``)?"""
        return not (t is None or (t0 is not None and t - t0 > self.s.warmup_s) or not self.ids.known)

    def at_known_place(self, z: np.ndarray, t: float | None, t0: float | None) -> bool:
        """In the first moments, a detection within a quarter radius of a ball's known starting place (the rack
        order or the operator's placement) is that ball, however weak the detector's confidence (a ball frozen
        in a cluster has little visible rim)."""
        return self.in_warmup(t, t0) and self.known_gap(z) <= 0.25 * self.table.ball_radius_mm

    def off_known_places(self, tr: _Track) -> bool:
        """The balls' starting places are known and the track was first seen a radius or more from each."""
        return bool(self.ids.known) and self.known_gap(first_seen(tr)) >= self.table.ball_radius_mm

    def known_gap(self, p: np.ndarray) -> float:
        """Distance (mm) from ``p`` to the nearest known starting place (infinite where none is known)."""
        return min((math.hypot(p[0] - q[0], p[1] - q[1]) for q in self.ids.known.values()), default=math.inf)

    def recover(self, tracks: list[_Track], tr: _Track, rolling: bool = False) -> Found | None:
        """A lost ball seen at rest again gets its track back: a new track seen clearly at rest (a placed ball's
        test) while a public ball of its colour is hidden is that ball, found where it stopped unseen (under the
        player, after a blurred run). Of several, the one whose last known place (its coasted run's end, for a
        ball hidden moving) is nearest, as the balls' motion has it; in a set of one colour that is the only
        guide. The hidden track leaves ``tracks``; ``tr`` takes its id, its vouching and its cue votes.
        ``rolling``: ``tr`` is a vouched run on a rolling course (``births.BirthWatch.watch_runs``), measured
        from where it was first seen."""
        s = self.s
        at_rest = tr.resting and tr.anchor is not None
        if not ((at_rest or (rolling and tr.vouched)) and tr.hits >= 2 * s.confirm_hits):
            return None
        if not was_ball(tr, s):
            return None  # neither seen clearly nor held still for ``rest_vouch_s``: a hand at rest, not a ball
        # where and when ``tr`` was first seen: a hidden ball it is had got there by then
        t_first, seen = (tr.recent[0][0], first_seen(tr)) if tr.recent else (tr.last_t, tr.last_meas)
        hidden = [
            o for o in tracks
            if o is not tr and o.phase in HIDDEN and o.id is not None and same_colour(o, tr, s)
            and pocket_watch.may_be_back_at(self.table, s, o, seen, t_first)
            and not seen_apart(o, tr, self.table.ball_diameter_mm, s.max_speed_mm_s)
        ]  # fmt: skip
        if not hidden:
            return None
        anchor = tr.anchor if at_rest else first_seen(tr)
        assert anchor is not None

        def gap(o: _Track) -> float:
            where = o.coast_end if (o.coast_end is not None and not o.resting) else o.pos
            return float(np.hypot(*(where - anchor)))

        best = min(hidden, key=gap)
        name = best.id
        assert name is not None
        moved = (best.pos, anchor) if best.resting and gap(best) > self.table.ball_radius_mm else None
        best.id = None
        tr.vouched = tr.vouched or best.vouched
        tr.cue_votes = max(tr.cue_votes, best.cue_votes) if best.cue_votes > 0 else tr.cue_votes
        tracks.remove(best)
        return Found(name, moved)


def seen_apart(o: _Track, tr: _Track, diameter_mm: float, max_speed_mm_s: float) -> bool:
    """Were ``o`` and ``tr`` seen at once in two places, too far apart to be one ball: a sighting of ``o``
    more than a diameter (the two centres' noise) plus the fastest ball's run in the time between from
    ``tr``'s sighting nearest in time? A ball is in one place at a time, so a hidden ball that was still
    being seen elsewhere after ``tr`` was first seen is another ball, however near its last place lies."""
    if not tr.recent or not o.recent:
        return False
    seen = np.array(tr.recent, dtype=float)
    for to, xo, yo in o.recent:
        if to < seen[0, 0]:
            continue
        k = int(np.argmin(np.abs(seen[:, 0] - to)))
        gap = math.hypot(seen[k, 1] - xo, seen[k, 2] - yo)
        if gap > diameter_mm + max_speed_mm_s * abs(seen[k, 0] - to):
            return True
    return False


def was_ball(o: _Track, s: TrackerSettings) -> bool:
    """Was ``o`` a ball, not a ghost: seen clearly (a placed ball's test), or vouched for by its place, its
    stillness or its rolling course? A hand or the cue tip is a weak blob that is none of these."""
    return o.vouched or o.quality >= s.placed_confidence


def same_colour(a: _Track, b: _Track, s: TrackerSettings) -> bool:
    """Could ``a`` and ``b`` be one ball by their looks: not firmly of different classes (cue or not), and
    of colours within colour_gate_sigma of each other where both are measured?"""
    firm = s.colour_class_votes
    if (a.cue_votes >= firm and b.cue_votes < 0) or (b.cue_votes >= firm and a.cue_votes < 0):
        return False
    if a.colour is None or b.colour is None:
        return True
    return float(np.linalg.norm(a.colour - b.colour)) <= s.colour_gate_sigma * s.colour_sigma


def first_seen(tr: _Track) -> np.ndarray:
    """Where a track was first seen (its oldest sample still kept)."""
    return np.array(tr.recent[0][1:]) if tr.recent else tr.last_meas
