"""The player over the table during a stroke: the cue stick, the bridge hand and arm, the grip hand.

Everything is modelled in the table frame with heights above the cloth and drawn through the camera, so
it occludes balls and shows parallax like the real thing. The stroke's timing (seconds relative to the
cue's contact with the ball): the player leans in over ~0.5 s, takes two practice strokes, a backswing,
hits at t = 0, follows through, holds, and withdraws; outside that window nothing is drawn.

What the player wears (``PlayerLook``) is plain by default: dark sleeves, bare hands. ``varied_look`` draws the
things real footage shows over the cloth that a ball detector can take for a ball: a white or black glove on the
bridge hand, a light shirt sleeve, a round watch face on the bridge wrist, and the free hand resting flat on the
cloth beside the bridge for the whole stroke, and a player who stays down after the stroke while the balls roll.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel

SHAFT_BGR = (150, 196, 222)
BUTT_BGR = (36, 30, 58)
SKIN_BGR = (118, 146, 196)
SLEEVE_BGR = (58, 50, 44)
GLOVE_BGR = ((236, 238, 240), (30, 30, 34))  # a white and a black billiard glove
LIGHT_SLEEVE_BGR = ((228, 230, 232), (215, 196, 170), (196, 200, 226))  # white, pale blue, pale pink shirts
WATCH_FACE_BGR = ((212, 214, 218), (40, 40, 44))  # steel and black faces
STRAP_BGR = (34, 34, 38)

ENTER_S, SETTLE_S, BACKSWING_S, HIT_S, HOLD_S, LEAVE_S = -1.45, -0.95, -0.25, -0.08, 0.6, 1.1
CUE_LENGTH_MM = 1450.0


@dataclass(frozen=True)
class StrokePose:
    """Where the player is at one instant: the cue tip's gap behind the ball and the lean-in offset."""

    gap_mm: float  # tip to ball surface along the cue (negative: follow-through past the ball's start)
    away_mm: float  # the whole player shifted back along the cue (entering / leaving)


@dataclass(frozen=True)
class PlayerLook:
    """What the player wears and where the free hand is."""

    sleeve_bgr: tuple[int, int, int] = SLEEVE_BGR
    bridge_bgr: tuple[int, int, int] = SKIN_BGR  # the bridge hand: bare, or gloved
    watch_bgr: tuple[int, int, int] | None = None  # a round watch face on the bridge wrist
    resting_hand: bool = False  # the free hand flat on the cloth beside the bridge
    stay_s: float = 0.0  # how much longer the player stays down after the follow-through, watching the balls


PLAIN = PlayerLook()


def varied_look(rng: np.random.Generator) -> PlayerLook:
    """A player drawn at random: each of glove, light sleeve, watch and resting hand about one stroke in two."""

    def one(options: tuple[tuple[int, int, int], ...]) -> tuple[int, int, int]:
        return options[int(rng.integers(len(options)))]

    return PlayerLook(
        sleeve_bgr=one(LIGHT_SLEEVE_BGR) if rng.random() < 0.5 else SLEEVE_BGR,
        bridge_bgr=one(GLOVE_BGR) if rng.random() < 0.5 else SKIN_BGR,
        watch_bgr=one(WATCH_FACE_BGR) if rng.random() < 0.5 else None,
        resting_hand=bool(rng.random() < 0.5),
        stay_s=float(rng.uniform(1.0, 3.0)) if rng.random() < 0.5 else 0.0,
    )


def pose_at(t_rel: float, stay_s: float = 0.0) -> StrokePose | None:
    """The player's pose ``t_rel`` seconds from the hit, held ``stay_s`` longer after the follow-through; None
    when the player is not over the table."""
    if HOLD_S <= t_rel < HOLD_S + stay_s:
        return StrokePose(-80.0, 0.0)
    if t_rel >= HOLD_S:
        t_rel -= stay_s
    if t_rel < ENTER_S or t_rel > LEAVE_S:
        return None
    if t_rel < SETTLE_S:
        f = (SETTLE_S - t_rel) / (SETTLE_S - ENTER_S)
        return StrokePose(60.0, 900.0 * f * f)
    if t_rel < BACKSWING_S:
        phase = (t_rel - SETTLE_S) / (BACKSWING_S - SETTLE_S) * 2.0  # two practice strokes
        return StrokePose(60.0 + 90.0 * (1 - math.cos(2 * math.pi * phase)) / 2, 0.0)
    if t_rel < HIT_S:
        f = (t_rel - BACKSWING_S) / (HIT_S - BACKSWING_S)
        return StrokePose(60.0 + 160.0 * f, 0.0)
    if t_rel < 0.0:
        f = (0.0 - t_rel) / (0.0 - HIT_S)
        return StrokePose(220.0 * f, 0.0)
    if t_rel < 0.12:
        return StrokePose(-80.0 * t_rel / 0.12, 0.0)
    if t_rel < HOLD_S:
        return StrokePose(-80.0, 0.0)
    f = (t_rel - HOLD_S) / (LEAVE_S - HOLD_S)
    return StrokePose(-80.0 + 300.0 * f, 900.0 * f * f)


def _quad(a: np.ndarray, b: np.ndarray, wa: float, wb: float, perp: np.ndarray) -> np.ndarray:
    """Four corners (x, y) of a tapered band from a to b."""
    return np.array([a + perp * wa / 2, b + perp * wb / 2, b - perp * wb / 2, a - perp * wa / 2])


def _ellipse(c: np.ndarray, u: np.ndarray, perp: np.ndarray, la: float, lb: float, n: int = 20) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return c + np.outer(np.cos(t) * la / 2, u) + np.outer(np.sin(t) * lb / 2, perp)


def draw_player(
    img: np.ndarray,
    camera: CameraModel,
    ball_xy: tuple[float, float],
    direction_deg: float,
    radius_mm: float,
    t_rel: float,
    side: int = 1,
    look: PlayerLook = PLAIN,
) -> bool:
    """Draw the cue and arms for a stroke of the ball at ``ball_xy`` toward ``direction_deg``.
    ``side`` (+1/-1) puts the elbows on the right or left of the cue; ``look`` is what the player wears.
    Returns whether anything was drawn."""
    pose = pose_at(t_rel, look.stay_s)
    if pose is None:
        return False
    a = math.radians(direction_deg)
    u = np.array([math.cos(a), math.sin(a)])
    perp = np.array([-u[1], u[0]]) * side
    ball = np.asarray(ball_xy, dtype=np.float64)
    back = ball - u * (radius_mm + pose.away_mm)
    tip = back - u * pose.gap_mm
    butt = tip - u * CUE_LENGTH_MM
    elev = math.radians(6.0)
    tip_h = radius_mm * 1.05
    butt_h = tip_h + CUE_LENGTH_MM * math.sin(elev)
    parts: list[tuple[np.ndarray, np.ndarray, tuple[int, int, int]]] = []
    # The bridge arm stays put while the cue slides; it follows only the lean-in.
    bridge = back - u * 230.0
    elbow = bridge - u * 330.0 + perp * 110.0
    shoulder = bridge - u * 640.0 + perp * 260.0
    sleeve = look.sleeve_bgr
    if look.resting_hand:
        # the free hand flat on the cloth across the cue from the bridge arm, its forearm rising to the body
        rest = bridge - perp * 230.0 - u * 80.0
        rest_elbow = rest - u * 320.0 - perp * 90.0
        parts.append((_quad(rest, rest_elbow, 70, 95, perp), np.array([45.0, 190.0, 190.0, 45.0]), sleeve))
        parts.append((_ellipse(rest + u * 30.0, u, perp, 105, 80), np.full(20, 20.0), SKIN_BGR))
    parts.append((_quad(elbow, shoulder, 105, 130, perp), np.array([200.0, 200.0, 460.0, 460.0]), sleeve))
    parts.append((_quad(bridge, elbow, 75, 100, perp), np.array([40.0, 200.0, 200.0, 40.0]), sleeve))
    parts.append((_ellipse(bridge + u * 20.0, u, perp, 110, 85), np.full(20, 30.0), look.bridge_bgr))
    if look.watch_bgr is not None:
        # a strap across the wrist and a round face on it, 40 mm wide (a ball is 68 mm)
        wrist = bridge - u * 55.0
        parts.append((_quad(wrist + perp * 40.0, wrist - perp * 40.0, 24, 24, u), np.full(4, 62.0), STRAP_BGR))
        parts.append((_ellipse(wrist, u, perp, 40, 40), np.full(20, 66.0), look.watch_bgr))
    mid = tip - u * CUE_LENGTH_MM * 0.6
    mid_h = tip_h + CUE_LENGTH_MM * 0.6 * math.sin(elev)
    parts.append((_quad(tip, mid, 11, 22, perp), np.array([tip_h, mid_h, mid_h, tip_h]), SHAFT_BGR))
    parts.append((_quad(mid, butt, 22, 30, perp), np.array([mid_h, butt_h, butt_h, mid_h]), BUTT_BGR))
    grip = tip - u * (CUE_LENGTH_MM - 180.0)
    grip_h = tip_h + (CUE_LENGTH_MM - 180.0) * math.sin(elev)
    g_elbow = grip + perp * 60.0 + u * 40.0
    parts.append((_quad(grip, g_elbow, 80, 100, perp), np.array([grip_h, 520.0, 520.0, grip_h]), sleeve))
    parts.append((_ellipse(grip, u, perp, 100, 80), np.full(20, grip_h + 20.0), SKIN_BGR))
    h, w = img.shape[:2]
    k = camera.camera_matrix
    r_max = 1.3 * math.hypot(w / 2 / k[0, 0], h / 2 / k[1, 1])  # beyond this the lens polynomial folds
    for poly, heights, colour in parts:
        world = np.column_stack([poly, -heights])
        cam = world @ camera.rotation.T + camera.tvec
        if np.any(cam[:, 2] <= 1.0) or np.any(np.hypot(cam[:, 0], cam[:, 1]) / cam[:, 2] > r_max):
            continue
        px = camera.project(poly, heights)
        pts = np.round(px * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(img, [pts], colour, lineType=cv2.LINE_AA, shift=4)
    return True
