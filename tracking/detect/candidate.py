"""The typed output of every detector: a ``Candidate`` touch, before the resolver (``tracking.detect.resolve``)
decides whether it is a new physical touch or another reading of one already given out."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

# How each detector reads a touch off the paths (``Candidate.evidence``):
#   cushion readings: "kink" (a moving path bent one radius from a nose line or jaw), "graze" (a V of the
#   distance to a nose line inside one straight path), "jaw_graze" (the same for a jaw's surface), "rest_touch"
#   (a ball stopping against a cushion), "bounce_before" (a ball hit into a cushion before it was seen moving),
#   "jaw_exit" (a second jaw touch a fraction of a frame after the first), "cushion_after_jaw" (a jaw, then the
#   cushion beside it), "jaw_touch" (a potted ball's path within a radius of a jaw), "rattle" (between the
#   jaw faces on the way down);
#   contact readings: "hit" (a ball set off, or a kink, one diameter from another ball's path), "frozen_hit" (set
#   off by a frozen neighbour just hit), "stroke_hit" (by the struck ball before either was seen moving),
#   "slow_hit" (a ball came to its place just before a slow start), "lost_hit" (by a ball lost from sight),
#   "unseen_hit" (by a ball that left its place unseen), "kiss" (centres a diameter apart with no visible
#   bend), "chain" (a push through a frozen cluster), "nudge" (a ball the tracker kept resting that ended the
#   shot moved);
#   line readings: "crossing" (a finished path clear of the line on both sides by a quarter radius or more),
#   "crossing_near" (a path starting or ending nearer the line than that);
#   the ball leaving the table: "drop" (gone in a pocket mouth), "off_table" (gone elsewhere); the tracker judges
#   how it went (``tracking.pocket_watch.gone``): "drop" (seen running into a mouth and gone), "drop_at_end"
#   (running into a mouth when the stream ended, before it could stay gone long enough), "off_table" (seen riding
#   at a rail fast enough to climb it, and gone), "lay_in_mouth" (lying in a mouth and gone);
#   shot readings: "struck" (a resting ball set off faster than a hand sends one), "struck_unseen" (a ball first
#   seen already moving, or back far from its place, with no shot in play), "all_rest" (every ball has rested);
#   a ball moved by hand: "hand_push" (set off between shots and stopped too soon for a struck ball),
#   "slow_set_off" (set off between shots slower than a strike), "unhit" (set off in a shot with nothing seen to
#   set it off), "moved_hidden" (a hidden resting ball came back elsewhere).
Evidence = Literal[
    "kink",
    "graze",
    "jaw_graze",
    "rest_touch",
    "bounce_before",
    "jaw_exit",
    "cushion_after_jaw",
    "jaw_touch",
    "rattle",
    "hit",
    "frozen_hit",
    "stroke_hit",
    "slow_hit",
    "lost_hit",
    "unseen_hit",
    "kiss",
    "chain",
    "nudge",
    "crossing",
    "crossing_near",
    "drop",
    "drop_at_end",
    "off_table",
    "lay_in_mouth",
    "struck",
    "struck_unseen",
    "all_rest",
    "hand_push",
    "slow_set_off",
    "unhit",
    "moved_hidden",
]

# The event each candidate becomes (CONTRACT.md section 3).
Kind = Literal["cushion", "contact", "line_cross", "pot", "off_table", "disturbed", "shot_start", "shot_end"]


@dataclass(frozen=True)
class Candidate:
    """One reading of an event: a touch, a line crossing, a ball leaving the table, a shot's start or end.

    ``kind``: the event it becomes. "cushion": ``obstacle`` names the cushion or jaw; "contact": ``balls`` the
    hitter, then the ball hit; "line_cross": ``obstacle`` the line, ``direction`` the way over it ("+x");
    "pot": ``obstacle`` the pocket; "shot_start" and "shot_end": ``positions`` the balls' places. ``t``,
    ``pos``: when and where (mm, table frame) the reading puts it (``pos`` None where the event carries no
    position). ``residual_mm``: how far from exactly touching the reading's fit had the ball(s) (0 where the
    touch time is solved as a root; a line crossing's: how near the path's ends came to the line).
    ``t_seen``: the sample time the reading rests on, where it differs from ``t`` (a graze's lowest sample, a
    kiss's closest frame): the resolver compares readings there. ``confidence``: the detector's (see
    docs/events.md)."""

    kind: Kind
    balls: tuple[str, ...]
    obstacle: str | None
    t: float
    pos: tuple[float, float] | None
    residual_mm: float
    evidence: Evidence
    confidence: float
    t_seen: float | None = None
    direction: str | None = None
    positions: dict[str, tuple[float, float]] | None = None

    @property
    def seen_at(self) -> float:
        return self.t if self.t_seen is None else self.t_seen


# An event's confidence is one function of the fit that read it (``confidence``):
#   PRIOR[evidence] * fit(misfit) * support(samples) * pace(speed) * UNSEEN (if not seen through) * AMBIGUOUS
# where the prior is what the reading can be at best: READ for a reading of the touch itself off the paths (a kink,
# a hit, a V of the distance to a cushion or jaw, a potted ball's path within a radius of a jaw, a crossing, a
# strike, every ball seen resting), less for one that infers a touch it did not see (below); the other factors are
# each 1 for a perfect fit and fall smoothly. Each caller passes its reading's own residual and tolerance: a kink's
# score, a hit's two estimates of the instant frames apart, a V's lowest sample off the nose line or jaw, a push
# through a cluster's share not passed along a pair's line of centres. A ball gone from the table is judged by the
# tracker (``tracking.pocket_watch.gone``) with its prior alone: its fit is the tracker's, not a path's.
READ = 0.95

# Readings that infer what they did not see, by how much of it they saw: a push from a frozen neighbour just hit,
# a hidden resting ball come back elsewhere, a ball running into a mouth when the stream ended (it had no time to
# stay gone) (0.8); a ball hit by the struck one before either was seen moving, a cushion before the ball was seen
# moving (0.75); a ball set off between shots slower than a strike, a ball gone after running at a rail fast enough
# to climb it (a hand or a body near the rail hides a ball as well) (0.7); a second jaw touch or the cushion beside
# a jaw a fraction of a frame after the first, a kiss with no visible bend, a push through a frozen cluster, a ball
# moved by hand, a crossing from or to within a quarter radius of the line (a ball on the line is not over it), a
# ball gone while lying in a mouth (a hand could hide it) (0.6); a stop against a cushion over a few frames, a
# nudge, a ball come to its place just before a slow start (0.55); a rattle between jaw faces (0.5); a hitter lost
# from sight or never seen near the ball, a shot started by a ball first seen moving, a ball set off with nothing
# seen to set it off (0.45: below review, always flagged). A ball seen running into a mouth and gone reads the
# drop itself (READ).
PRIOR: dict[Evidence, float] = {
    "frozen_hit": 0.8,
    "moved_hidden": 0.8,
    "drop_at_end": 0.8,
    "stroke_hit": 0.75,
    "bounce_before": 0.75,
    "slow_set_off": 0.7,
    "off_table": 0.7,
    "jaw_exit": 0.6,
    "cushion_after_jaw": 0.6,
    "kiss": 0.6,
    "chain": 0.6,
    "hand_push": 0.6,
    "crossing_near": 0.6,
    "lay_in_mouth": 0.6,
    "nudge": 0.55,
    "slow_hit": 0.55,
    "rest_touch": 0.55,
    "rattle": 0.5,
    "lost_hit": 0.45,
    "unseen_hit": 0.45,
    "struck_unseen": 0.45,
    "unhit": 0.45,
}

# The fit: a reading whose residual is MISFIT_HALF of its tolerance is half as sure as an exact one; one within its
# tolerance keeps four fifths or more (the tolerance is where a true touch's residual ends).
MISFIT_HALF = 2.0
# The samples: a fit to n samples keeps 1 - exp(-n / SAMPLES_SCALE): one sample (a place, no direction) 0.63, two
# (a direction, unchecked) 0.86, three or more (a direction checked) 0.95 and up.
SAMPLES_SCALE = 1.0
# The speed: a touch at PACE_HALF_MM_S is half as sure: a ball that slow moves under a millimetre a frame at
# 30 fps, within the measurement noise, so its bend or V hardly stands out; at five times that it keeps 0.96.
PACE_HALF_MM_S = 20.0
# The ball unseen over the bend (the touch is read off paths run on into it) and another kind of touch that
# explains the bend about as well.
UNSEEN = 0.7
AMBIGUOUS = 0.7


def confidence(
    evidence: Evidence,
    misfit: float = 0.0,
    samples: int | None = None,
    speed_mm_s: float | None = None,
    seen_through: bool = True,
    ambiguous: bool = False,
) -> float:
    """How sure a reading is of the event it reports, from its fit (the formula above): ``misfit`` the reading's
    residual in its tolerance (0: an exact touch); ``samples`` how many samples its fit used and ``speed_mm_s``
    the ball's speed at the touch (None where the reading has no fit of its own); ``seen_through`` whether the
    ball was seen over the touch; ``ambiguous`` whether another kind of touch explains it about as well."""
    conf = PRIOR.get(evidence, READ) / (1.0 + (abs(misfit) / MISFIT_HALF) ** 2)
    if samples is not None:
        conf *= 1.0 - math.exp(-samples / SAMPLES_SCALE)
    if speed_mm_s is not None:
        conf *= speed_mm_s**2 / (speed_mm_s**2 + PACE_HALF_MM_S**2)
    if not seen_through:
        conf *= UNSEEN
    if ambiguous:
        conf *= AMBIGUOUS
    return conf
