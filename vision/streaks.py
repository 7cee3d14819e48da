"""The centre of a fast ball's motion-blur streak, measured where the tracker expects it.

A camera's exposure averages the ball's image over the time the shutter is open: a ball moving at ``v``
leaves a streak ``v x exposure`` long that a circle detector places at one end (or splits into two weak
blobs, or misses). The streak's mass, ``|pixel - cloth|`` summed over it, is the mass of the still ball
averaged over the exposure, so its centroid is the ball's image centroid at the middle of the exposure:
the frame's time when the exposure is centred on it (as a renderer's is, and most cameras' nearly are),
whatever the exposure length, with no model of the blur.

    m = measure_streak(frame_bgr, calibration, pos_mm, vel_mm_s, fps)
    m.pos_mm    # the ball centre's table position at the frame time (None: nothing trustworthy there)

The window is a capsule around the path the ball can have covered during the frame (``pos_mm`` is the
predicted centre at the frame time, ``vel_mm_s`` its velocity), widened by the prediction's uncertainty;
the cloth colour comes from a ring around it. Anything else in the window (another ball, a cue, a cushion)
makes the measurement unusable, so the caller decides where to ask (a lone fast ball, clear of cushions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.mapping import Calibration

# Shorter paths per frame (1.5 m/s at 60 fps, 0.75 m/s at 30 fps), a circle detector finds the ball as well.
STREAK_MIN_PATH_MM = 25.0
# A shorter streak (blur) than this share of a diameter: the detector's circle is nearer than the centroid,
# whose lighting bias (the lit side weighs more, ~2 mm on the rendered scenes) is then the larger error.
STREAK_MIN_BLUR_DIAMETERS = 0.25


@dataclass(frozen=True)
class StreakSettings:
    margin_mm: float = 12.0  # added to the ball radius around the path: the prediction's error
    ring_px: int = 5  # width of the cloth ring around the window
    noise_k: float = 3.0  # weights below this many cloth noise sigmas are taken as cloth
    min_mass: float = 0.6  # the streak's mass against a still ball's (about the ball's area x contrast)
    max_mass: float = 1.6  # more: something else is in the window
    max_ring_spread: float = 18.0  # grey levels: a ring that is not plain cloth refuses the measurement


@dataclass(frozen=True)
class StreakMeasurement:
    pos_mm: tuple[float, float] | None
    centroid_px: tuple[float, float] | None
    mass_ratio: float  # the streak's mass over the expected mass of the ball
    reason: str = ""  # why there is no position
    blur_mm: float = 0.0  # the streak's length (the path during the exposure), from its spread along the path


def centre_px(cal: Calibration, xy_mm: np.ndarray, height_mm: float) -> np.ndarray:
    """Image pixels of points ``height_mm`` above the cloth at table positions ``xy_mm`` (N x 2)."""
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    c = cal.camera_centre_mm()
    h = -float(c[2])
    ground = c[:2] + (xy - c[:2]) * h / (h - height_mm)  # where the ray through the point meets the cloth
    return cal.table_to_image(ground)


def measure_streak(
    frame_bgr: np.ndarray,
    cal: Calibration,
    pos_mm: tuple[float, float],
    vel_mm_s: tuple[float, float],
    fps: float,
    settings: StreakSettings | None = None,
) -> StreakMeasurement:
    s = settings or StreakSettings()
    r = cal.table.ball_radius_mm
    p = np.asarray(pos_mm, dtype=np.float64)
    v = np.asarray(vel_mm_s, dtype=np.float64)
    half = v / (2.0 * fps)  # the exposure is at most the frame: the path is within p +- v / (2 fps)
    ends = centre_px(cal, np.array([p - half, p + half, p]), r)
    scale = cal.px_per_mm((float(p[0]), float(p[1])))
    rad = (r + s.margin_mm) * scale
    ball_rad = r * scale
    a, b = ends[0], ends[1]
    lo = np.floor(np.minimum(a, b) - rad - s.ring_px - 1).astype(int)
    hi = np.ceil(np.maximum(a, b) + rad + s.ring_px + 1).astype(int)
    hgt, wid = frame_bgr.shape[:2]
    if lo[0] < 0 or lo[1] < 0 or hi[0] >= wid or hi[1] >= hgt:
        return StreakMeasurement(None, None, 0.0, "window leaves the image")
    crop = frame_bgr[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1].astype(np.float32)
    ys, xs = np.mgrid[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1].astype(np.float32)
    dist = _segment_distance(xs, ys, a, b)
    inside = dist <= rad
    ring = (dist > rad) & (dist <= rad + s.ring_px)
    cloth = np.median(crop[ring], axis=0)
    diff = np.linalg.norm(crop - cloth, axis=2)
    ring_diff = diff[ring]
    noise = 1.4826 * float(np.median(ring_diff)) + 1.0
    if float(np.percentile(ring_diff, 90)) > s.max_ring_spread:
        return StreakMeasurement(None, None, 0.0, "the ring around the path is not plain cloth")
    w = np.where(inside, np.maximum(diff - s.noise_k * noise, 0.0), 0.0)
    mass = float(w.sum())
    if mass <= 0:
        return StreakMeasurement(None, None, 0.0, "nothing in the window")
    cx, cy = float((w * xs).sum() / mass), float((w * ys).sum() / mass)
    # The streak's length from its spread along the path (a disc of radius rho swept over L has the variance
    # L^2 / 12 + rho^2 / 4 along it); its brightest pixels saw the ball for about 2 rho / L of the exposure,
    # so the ball's own contrast is theirs divided by that.
    d = b - a
    u = d / max(float(np.hypot(*d)), 1e-9)
    var_along = float((w * ((xs - cx) * u[0] + (ys - cy) * u[1]) ** 2).sum() / mass)
    length = float(np.sqrt(max(12.0 * (var_along - ball_rad * ball_rad / 4.0), 0.0)))
    seen = min(1.0, 2.0 * ball_rad / length) if length > 0 else 1.0
    peak = float(np.percentile(diff[inside], 99.5)) - s.noise_k * noise
    expected = np.pi * ball_rad * ball_rad * max(peak, 1.0) / seen * 0.75
    ratio = mass / expected
    blur = length / scale
    if ratio < s.min_mass:
        return StreakMeasurement(None, (cx, cy), ratio, "too little in the window", blur)
    if ratio > s.max_mass:
        return StreakMeasurement(None, (cx, cy), ratio, "more than one ball's worth in the window", blur)
    xy = cal.ball_px_to_table(np.array([[cx, cy]]))[0]
    return StreakMeasurement((float(xy[0]), float(xy[1])), (cx, cy), ratio, "", blur)


def _segment_distance(xs: np.ndarray, ys: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = b - a
    den = float(d @ d)
    if den < 1e-9:
        return np.hypot(xs - a[0], ys - a[1])
    t = np.clip(((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / den, 0.0, 1.0)
    return np.hypot(xs - (a[0] + t * d[0]), ys - (a[1] + t * d[1]))
