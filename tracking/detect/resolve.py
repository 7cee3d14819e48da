"""The resolver: candidates (``tracking.detect.candidate``) that read a touch already given out are merged
into it, by one rule (``same_touch``); the others become ``calibration.contract.Event`` records (``make_event``).
Every function here is pure, of candidates and records: the state change (recording a touch given out) is the
extractor's (``EventExtractor.give``, ``EventExtractor.record_event``)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from calibration.contract import Event
from tracking.detect import contacts
from tracking.detect.candidate import Candidate, Evidence
from tracking.detect.segments import PairTrack
from tracking.detect.settings import ContactSettings

# The resolver's rule: a candidate is another reading of a touch already given out when it is of the same ball
# (a cushion touch, whichever cushion or jaw) or the same pair of balls (a contact) and timed within its
# reading's window of that touch; two balls that touched and have not been seen apart since touch once. The
# window is how far apart the reading may time one touch from another reading of it, in frames: a kink is
# timed on the paths either side of the bend, within a fraction of a frame, and is never merged away; a V of
# the distance to a cushion is timed on its lowest sample (up to a few frames off on a slow, shallow graze);
# a ball that stops against a cushion reaches it over several frames.
SAME_TOUCH_FRAMES: dict[Evidence, float] = {
    "kink": 0.0,
    "cushion_after_jaw": 0.5,
    "jaw_exit": 0.5,
    "rattle": 1.0,
    "bounce_before": 3.0,
    "graze": 4.0,
    "jaw_graze": 4.0,
    "rest_touch": 6.0,
    "hit": 2.5,
    "frozen_hit": 2.5,
    "stroke_hit": 2.5,
    "slow_hit": 2.5,
    "lost_hit": 2.5,
    "unseen_hit": 2.5,
    "nudge": 2.5,
    "kiss": 3.5,
}


# A ball moved by hand between shots is no part of a shot: its ``disturbed`` carries none.
BETWEEN_SHOTS: frozenset[Evidence] = frozenset({"hand_push", "slow_set_off"})


@dataclass(frozen=True)
class Given:
    """The touches given out so far, as the resolver's rule reads them: each contact (its pair, its time), each
    cushion or jaw touch (the ball, its time, the cushion or jaw, the decision it was given out in: one call of
    the extractor's ``update`` or ``finish``), and the decision being made now."""

    contacts: tuple[tuple[frozenset[str], float], ...]
    cushions: tuple[tuple[str, float, str | None, int], ...]
    decision: int


def last_touch(given: Given, c: Candidate) -> float | None:
    """The time of the latest contact given out between the balls of the contact ``c``, before ``c``."""
    key = frozenset(c.balls)
    return max((t for k, t in given.contacts if k == key and t < c.t), default=None)


def same_touch(
    c: Candidate, given: Given, since: PairTrack | None, s: ContactSettings, diameter_mm: float, dt: float
) -> bool:
    """Whether ``c`` reads a touch already given out (``given``), by the rule above. ``since``: the pair's centres
    from their last contact given out (``last_touch``) to ``c``, for a contact of two balls that touched before.
    A line crossing, a ball leaving the table, a shot's start or end and a ``disturbed`` are each read once, by
    one detector: never merged."""
    if c.kind not in ("cushion", "contact"):
        return False
    if c.kind == "cushion":
        ball = c.balls[0]
        if c.evidence == "jaw_touch":
            # a potted ball's path is read for a jaw once, as it drops: a touch of that jaw given out in the same
            # decision (the kink it turned at on the way in) is that touch
            return any(b == ball and o == c.obstacle and d == given.decision for b, _, o, d in given.cushions)
        w = SAME_TOUCH_FRAMES[c.evidence] * dt
        return any(b == ball and abs(t - c.seen_at) <= w for b, t, _, _ in given.cushions) if w > 0 else False
    a, b = c.balls
    if a == b:
        return True
    key = frozenset(c.balls)
    # a push through a frozen cluster reaches its balls over a few frames: the pairs it went through within
    # chain_repeat_s are not hit again
    w = s.chain_repeat_s if c.evidence == "chain" else SAME_TOUCH_FRAMES[c.evidence] * dt
    if any(k == key and abs(t - c.seen_at) <= w for k, t in given.contacts):
        return True
    if any(k == key and abs(t - c.t) <= SAME_TOUCH_FRAMES["hit"] * dt for k, t in given.contacts):
        return True
    # the two have stayed together since they last touched (one pushing the other): one contact
    return since is not None and last_touch(given, c) is not None and not contacts.parted(since, diameter_mm, s)


# A ball set off this near its last touch given out was set off by that touch (a contact found from the hitter's
# side first, or a push through a cluster): up to three frames before its start (the touch is timed on the
# hitter's path, the start on the ball's own, run back) and a frame after (its start is known to a frame; a
# creep's, where its speed jumped, to two).
SET_OFF_BEFORE_FRAMES = 3
SET_OFF_AFTER_FRAMES = 1
CREEP_AFTER_FRAMES = 2


def set_off_explained(last: float | None, t_s: float, crept: bool, dt: float) -> bool:
    """Whether a ball set off at ``t_s`` (``crept``: timed where a creep sped up) whose last touch given out
    (``Ball.last_event_t``) was at ``last`` reads that touch (the window above): nothing more sets it off."""
    late = (CREEP_AFTER_FRAMES if crept else SET_OFF_AFTER_FRAMES) * dt
    return last is not None and t_s - SET_OFF_BEFORE_FRAMES * dt <= last <= t_s + late


def contact_between(
    given: Sequence[tuple[frozenset[str], float]], ball: str, lo: float, hi: float
) -> tuple[str, float] | None:
    """The latest contact of ``ball`` among the contacts ``given`` out (pair, time) between ``lo`` and ``hi``:
    the other ball and its time."""
    for key, t in reversed(given):
        if ball in key and lo <= t <= hi:
            (other,) = key - {ball}
            return other, t
    return None


def nearest_frame(times: Sequence[float], frames: Sequence[int], t: float) -> int:
    """The number of the frame (``frames``, taken at ``times``, in time order) nearest ``t``: of two equally near,
    the earlier; 0 before any frame."""
    i = bisect.bisect_left(times, t)
    near = [j for j in (i - 1, i) if 0 <= j < len(times)]
    return frames[min(near, key=lambda j: abs(times[j] - t))] if near else 0


def make_event(
    kind: str, t: float, frame: int, shot: int | str | None, confidence: float, review_below: float, **kw: object
) -> Event:
    """The ``Event`` record: its confidence within [0, 1], flagged for review below ``review_below`` (given out
    all the same: the referee judges it, the report highlights it)."""
    conf = float(min(max(confidence, 0.0), 1.0))
    return Event(
        type=kind,  # type: ignore[arg-type]
        t=round(t, 6),
        frame=frame,
        shot=shot,  # type: ignore[arg-type]
        confidence=round(conf, 3),
        review=conf < review_below,
        **kw,  # type: ignore[arg-type]
    )


def in_shots(out: list[Event]) -> list[Event]:
    """The events in time order, without the lines, cushions and contacts of balls moved between shots (by hand:
    their ``disturbed`` says so; the rules judge such events only within a shot)."""
    out = [e for e in out if e.shot is not None or e.type not in ("line_cross", "cushion", "contact")]
    out.sort(key=lambda e: e.t or 0.0)
    return out
