"""A track's life as explicit states, and every change of state in one table.

A track is born ``TENTATIVE`` (a ball-like blob: a ball, a hand or the cue tip), becomes a public ball when it
is confirmed, and then is seen (``MOVING`` or ``RESTING``) or hidden (``HIDDEN_MOVING``, ``HIDDEN_RESTING``)
until it leaves the table (``POTTED`` or ``OFF_TABLE``). Whether it rests and whether it is seen are the two
facts the association reads: a resting ball is held on its anchor and gated by the detector's noise, a moving
one by its Kalman prediction; a hidden one comes back only on the gates' terms.
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    TENTATIVE = "tentative"  # seen, not yet a public ball; moving, or not seen long enough to tell
    TENTATIVE_AT_REST = "tentative_at_rest"  # seen at rest, not yet a public ball (a placed ball, a still hand)
    MOVING = "moving"  # a public ball seen in its last frame, rolling: its Kalman filter follows it
    RESTING = "resting"  # a public ball seen, still: anchored at the mean of its detections
    HIDDEN_MOVING = "hidden_moving"  # a public ball not seen: predicted along its run (bouncing), then held
    HIDDEN_RESTING = "hidden_resting"  # a public ball not seen while at rest: held on its anchor
    POTTED = "potted"  # vanished in a pocket mouth and stayed gone
    OFF_TABLE = "off_table"  # vanished beyond the playing field


class Change(StrEnum):
    CONFIRMED = "confirmed"  # a tentative track became a public ball
    SEEN = "seen"  # matched to a detection
    MISSED = "missed"  # no detection this frame
    SETTLED = "settled"  # its detections stayed within the rest circle for the rest window
    SET_MOVING = "set_moving"  # a detection beyond its anchor gate, or one through the kink tier
    POT = "pot"  # judged gone into a pocket
    OFF = "off"  # judged gone over a rail


P, C = Phase, Change
TRANSITIONS: dict[tuple[Phase, Change], Phase] = {
    (P.TENTATIVE, C.CONFIRMED): P.MOVING,
    (P.TENTATIVE_AT_REST, C.CONFIRMED): P.RESTING,
    (P.TENTATIVE, C.SETTLED): P.TENTATIVE_AT_REST,
    (P.TENTATIVE_AT_REST, C.SET_MOVING): P.TENTATIVE,
    (P.MOVING, C.SETTLED): P.RESTING,
    (P.RESTING, C.SET_MOVING): P.MOVING,
    (P.MOVING, C.MISSED): P.HIDDEN_MOVING,
    (P.RESTING, C.MISSED): P.HIDDEN_RESTING,
    (P.HIDDEN_MOVING, C.SEEN): P.MOVING,
    (P.HIDDEN_RESTING, C.SEEN): P.RESTING,
    # a ball held hidden at its known starting place (the player's arm over the rack) rests there
    (P.HIDDEN_MOVING, C.SETTLED): P.HIDDEN_RESTING,
    # a hidden resting ball found again through the kink tier was moved while hidden
    (P.HIDDEN_RESTING, C.SET_MOVING): P.HIDDEN_MOVING,
    (P.HIDDEN_MOVING, C.POT): P.POTTED,
    (P.HIDDEN_RESTING, C.POT): P.POTTED,
    (P.HIDDEN_MOVING, C.OFF): P.OFF_TABLE,
    (P.HIDDEN_RESTING, C.OFF): P.OFF_TABLE,
}
# changes that leave a state as it is (a seen ball seen again, a hidden one missed again, a tentative one seen
# or missed: it is confirmed or dropped by the tracker's own tests)
STAYS: frozenset[tuple[Phase, Change]] = frozenset(
    {(p, C.SEEN) for p in (P.TENTATIVE, P.TENTATIVE_AT_REST, P.MOVING, P.RESTING)}
    | {(p, C.MISSED) for p in (P.TENTATIVE, P.TENTATIVE_AT_REST, P.HIDDEN_MOVING, P.HIDDEN_RESTING)}
    | {(p, C.SET_MOVING) for p in (P.TENTATIVE, P.MOVING, P.HIDDEN_MOVING)}  # a kink of a moving ball
)

RESTING = frozenset({P.TENTATIVE_AT_REST, P.RESTING, P.HIDDEN_RESTING})
HIDDEN = frozenset({P.HIDDEN_MOVING, P.HIDDEN_RESTING})
TENTATIVE = frozenset({P.TENTATIVE, P.TENTATIVE_AT_REST})
GONE = frozenset({P.POTTED, P.OFF_TABLE})


def after(phase: Phase, change: Change) -> Phase:
    """The state a track in ``phase`` is in after ``change``; a change the table does not allow is a bug."""
    if (phase, change) in STAYS:
        return phase
    try:
        return TRANSITIONS[(phase, change)]
    except KeyError:
        raise ValueError(f"a track {phase} cannot be {change}") from None
