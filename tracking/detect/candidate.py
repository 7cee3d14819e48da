"""The typed output of every detector: a ``Candidate`` touch, before the resolver (``tracking.detect.resolve``)
decides whether it is a new physical touch or another reading of one already given out."""

from __future__ import annotations

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
#   the ball leaving the table: "drop" (gone in a pocket mouth), "off_table" (gone elsewhere); their confidence is
#   the tracker's;
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
    "off_table",
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


# How sure each reading is of the touch it reports, by how much of the touch it saw: both paths bent at the
# touch and a fit within half a tolerance (0.95); a touch read off one path or a V of the distance (0.6); a
# touch inferred with the hitter never seen near it (0.45). A kink and a hit scale with their fit (below).
READING_CONFIDENCE: dict[Evidence, float] = {
    "bounce_before": 0.75,
    "jaw_exit": 0.6,
    "cushion_after_jaw": 0.6,
    "jaw_graze": 0.6,
    "graze": 0.6,
    "jaw_touch": 0.6,
    "rest_touch": 0.55,
    "rattle": 0.5,
    "frozen_hit": 0.8,
    "stroke_hit": 0.75,
    "slow_hit": 0.55,
    "lost_hit": 0.45,
    "unseen_hit": 0.45,
    "kiss": 0.6,
    "chain": 0.6,
    "nudge": 0.55,
    "crossing": 0.95,
    "crossing_near": 0.6,
    "all_rest": 0.95,
    "struck_unseen": 0.45,
    "hand_push": 0.6,
    "slow_set_off": 0.7,
    "unhit": 0.45,
    "moved_hidden": 0.8,
}


def confidence(
    evidence: Evidence, misfit: float = 0.0, seen_through: bool = True, ambiguous: bool = False, samples: int = 3
) -> float:
    """The confidence of a reading (``READING_CONFIDENCE``). A kink's grows as its fit comes nearer an exact
    touch (``misfit``: its score, in tolerances), less where the ball went unseen over the bend (not
    ``seen_through``) or another kind of touch explains it about as well (``ambiguous``); a hit's as the two
    balls' estimates of the instant agree (``misfit``: frames apart); a strike's with the samples its first
    path was fitted to (``samples``: three or more give its speed and direction)."""
    if evidence == "kink":
        conf = (0.95 if misfit < 0.5 else 0.75 if misfit < 1.0 else 0.55) * (1.0 if seen_through else 0.7)
        if ambiguous:
            conf *= 0.7
        return conf
    if evidence == "hit":
        return 0.95 if misfit < 1.5 else 0.7
    if evidence == "struck":
        return 0.95 if samples >= 3 else 0.6
    return READING_CONFIDENCE[evidence]
