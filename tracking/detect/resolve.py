"""The records the detectors produce: every event goes through ``record_event``; cushion touches are kept so that
no second reading of the same touch is given out."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from tracking.events import Event

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


def record_cushion(
    ex: EventExtractor, ball: str, t: float, name: str, pos: tuple[float, float], confidence: float
) -> Event:
    """A cushion (or jaw) touch, kept in ``_cushion_times`` so that no other reading finds it again."""
    ex.cushion_times.append((ball, t))
    return record_event(ex, "cushion", t, ball=ball, cushion=name, pos=pos, confidence=confidence)


def touched_near(ex: EventExtractor, ball: str, t: float, within: float, inclusive: bool = False) -> bool:
    """Whether a touch of ``ball`` was already found within ``within`` seconds of ``t``."""
    return any(
        bb == ball and (abs(tt - t) <= within if inclusive else abs(tt - t) < within) for bb, tt in ex.cushion_times
    )


def record_event(
    ex: EventExtractor, kind: str, t: float, confidence: float = 1.0, shot: int | str | None = "auto", **kw: object
) -> Event:
    t = max(float(t), 0.0)
    i = bisect.bisect_left(ex.times, t)
    cands = [j for j in (i - 1, i) if 0 <= j < len(ex.times)]
    frame = min(cands, key=lambda j: abs(ex.times[j] - t)) if cands else 0
    frame_no = ex.frames[frame] if cands else 0
    if shot == "auto":
        shot = ex.shot if ex.shot_active or kind == "shot_end" else None
    if ex.shot_active and shot == ex.shot and kind not in ("shot_start", "shot_end"):
        # the shot ends no sooner than its last event (a touch timed on a hinge's corner may come a moment
        # after the time the ball was found to stop): the referee closes the shot at its end
        ex.shot_last_t = max(ex.shot_last_t, t)
    conf = float(min(max(confidence, 0.0), 1.0))
    return Event(
        type=kind,  # type: ignore[arg-type]
        t=round(t, 6),
        frame=frame_no,
        shot=shot,  # type: ignore[arg-type]
        confidence=round(conf, 3),
        review=conf < ex.s.review_below,
        **kw,  # type: ignore[arg-type]
    )


def in_shots(out: list[Event]) -> list[Event]:
    """The events in time order, without the lines, cushions and contacts of balls moved between shots (by hand:
    their ``disturbed`` says so; the rules judge such events only within a shot)."""
    out = [e for e in out if e.shot is not None or e.type not in ("line_cross", "cushion", "contact")]
    out.sort(key=lambda e: e.t or 0.0)
    return out
