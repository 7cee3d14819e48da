"""A resting ball's one-frame jump: its centre measured again, not the ball set moving.

A ball at rest whose detected centre steps off its place in one frame and in the next frame stands on the new
spot would have lost that step's speed within one frame. A ball set moving by a hit cannot: rolling, the cloth
slows it by about mu_roll g (~0.1 m/s2), sliding by about mu_slide g (~2 m/s2). A step of 40 mm in 1/25 s
(1 m/s) followed by a frame at rest is a deceleration of 25 m/s2: the detector fitted the still ball's rim in
two places (a dark or half-lit ball whose fit sits between two rims), and the step is a re-measurement. (A step
out and back, the other re-measurement, is ``back_at_place`` in the tracker and ``shots.back_at_place``.)

Only another ball can stop a moving ball within a frame (a stun shot into a ball a step away): where another
ball is near the new spot (the tracker's ``_stood_after_step``), the step stands as motion.

The rule needs one frame of delay: a step is known to be a re-measurement only once the next detection is in,
so the frame of the step reads the ball as set moving and the next one takes it back to rest (``stood_after``);
the events judge the set-off once that frame is in (``shots.stood_after_step``).
"""

from __future__ import annotations

import numpy as np

# The most speed a ball on the cloth can lose per second (mm/s2) without hitting something: sliding friction's
# ~2 m/s2 (mu_slide g) with room to spare (a ball struck with screw slides and spins back). Lower: a ball
# braked hard by its spin could read as one that stood; higher: a still ball's fit that jumps a small step
# (a few mm over a frame at 60 fps) reads as motion.
MAX_CLOTH_DECEL_MM_S2 = 5000.0


def stood_after(
    place: np.ndarray,
    away: np.ndarray,
    dt_away: float,
    seen: np.ndarray,
    dt_seen: float,
    still_mm: float,
    max_decel_mm_s2: float = MAX_CLOTH_DECEL_MM_S2,
) -> bool:
    """Whether a ball at rest at ``place``, seen ``away`` from it ``dt_away`` later and at ``seen`` ``dt_seen``
    after that, stood on the new spot: ``seen`` within ``still_mm`` of it (the spread of a still ball's
    sightings), where a ball that took that step, slowing as fast as the cloth can (``max_decel_mm_s2``), would
    have gone on by more than ``still_mm`` beyond that spread (a slow roll's next step is within the noise too,
    and so is what it would have covered)."""
    if dt_away <= 0.0 or dt_seen <= 0.0:
        return False
    on_spot = float(np.linalg.norm(np.asarray(seen) - np.asarray(away)))
    if on_spot > still_mm:
        return False
    v_step = float(np.linalg.norm(np.asarray(away) - np.asarray(place))) / dt_away
    t_stop = min(dt_seen, v_step / max_decel_mm_s2)
    would_go = v_step * t_stop - 0.5 * max_decel_mm_s2 * t_stop * t_stop
    return would_go - on_spot > still_mm
