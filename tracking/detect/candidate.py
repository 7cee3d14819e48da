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
#   contact readings: "hit" (a ball set off, or a kink, one diameter from another ball), "kiss" (centres a
#   diameter apart with no visible bend), "chain" (a push through a frozen cluster), "nudge" (a ball the
#   tracker kept resting that ended the shot moved).
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
    "kiss",
    "chain",
    "nudge",
]


@dataclass(frozen=True)
class Candidate:
    """One reading of a touch.

    ``kind``: "cushion" (a cushion or a jaw: ``obstacle`` names it) or "contact" (``balls``: the hitter, then the
    ball hit). ``t``, ``pos``: when and where (mm, table frame) the reading puts the touch. ``residual_mm``: how
    far from exactly touching the reading's fit had the ball(s) (0 where the touch time is solved as a root).
    ``t_seen``: the sample time the reading rests on, where it differs from ``t`` (a graze's lowest sample, a
    kiss's closest frame): the resolver compares readings there. ``confidence``: the detector's (see
    docs/events.md)."""

    kind: Literal["cushion", "contact"]
    balls: tuple[str, ...]
    obstacle: str | None
    t: float
    pos: tuple[float, float]
    residual_mm: float
    evidence: Evidence
    confidence: float
    t_seen: float | None = None

    @property
    def seen_at(self) -> float:
        return self.t if self.t_seen is None else self.t_seen
