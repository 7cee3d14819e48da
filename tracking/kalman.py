"""The per-ball Kalman filter: a constant-velocity model in table millimetres.

A ball between events moves in a straight line and decelerates slowly (rolling resistance, about
0.1 m/s^2; sliding friction after a hit, a few m/s^2). The filter models that as constant velocity plus
white acceleration noise: the noise absorbs the deceleration and the slight curve of a ball with side
spin. Collisions and cushion reflections are not in the model; the tracker's assignment gate lets a
measurement through after such a kink and the filter is then re-seeded (``reseed``), so a kink never
drags the estimate for several frames.

State ``x = [x, y, vx, vy]`` (mm, mm/s), ordered by dimension pairs as filterpy's helpers expect when
``order_by_dim=False``: we build the matrices by hand, so the order is written here once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from filterpy.kalman import KalmanFilter


@dataclass(frozen=True)
class FilterSettings:
    """Noise settings of the ball filter (all in table units)."""

    # Standard deviation of one detection's table position (mm). A 1080p overhead view of a 3.6 m
    # table is about 0.45 px/mm; a detector centre good to 0.5 px gives ~1 mm (the pipeline sets it from the
    # view; the rest circle and the anchor gate are multiples of it). Smaller: a resting ball's jitter leaves
    # its anchor gate (read as starts); larger: a soft hit's first millimetres are lost and a slow roll is
    # called rest
    meas_sigma_mm: float = 1.2
    # Standard deviation of the unmodelled acceleration (mm/s^2): sliding friction is ~2000 mm/s^2
    # (mu ~0.2 * g), rolling ~100; 3000 covers both with a margin for the curve of a spinning ball.
    # Smaller: a sliding ball's slowing leaves its gate (read as kinks); larger: the gate widens over a
    # neighbour's detections
    accel_sigma_mm_s2: float = 3000.0


# The velocity uncertainty (mm/s) of a ball whose velocity is unknown (a new track; one back in sight after an
# unseen collision): it may be moving at anything up to a break's 10 m/s, two and a half of these. Smaller: a
# ball first seen already rolling fast falls out of its gate at its second sighting; larger: a new track's gate
# takes in anything near it (no rendered suite moved at half or twice this)
UNKNOWN_SPEED_SIGMA_MM_S = 4000.0


def seeded_speed_sigma(settings: FilterSettings, frame_dt: float) -> float:
    """The uncertainty (mm/s) of a velocity taken from two detections ``frame_dt`` apart: the difference of two
    noisy positions over the interval (sigma * sqrt 2 / dt), and the change of speed within it that the
    difference cannot see (friction and spin: the filter's acceleration noise held for dt), in quadrature."""
    noise = settings.meas_sigma_mm * math.sqrt(2.0) / frame_dt
    drift = settings.accel_sigma_mm_s2 * frame_dt
    return math.sqrt(noise * noise + drift * drift)


def make_ball_filter(
    pos: np.ndarray, settings: FilterSettings, vel: np.ndarray | None, frame_dt: float
) -> KalmanFilter:
    """A filter seeded at ``pos`` (mm) with velocity ``vel`` (mm/s, unknown -> 0 with a wide spread); a given
    velocity is as good as two detections ``frame_dt`` seconds apart (the stream's frame interval)."""
    kf = KalmanFilter(dim_x=4, dim_z=2)
    # x: state [x, y, vx, vy]; a new ball starts where it was seen.
    kf.x = np.array([pos[0], pos[1], 0.0, 0.0]) if vel is None else np.array([pos[0], pos[1], vel[0], vel[1]])
    # H: we measure the position only (the cloth point below the ball centre, in mm).
    kf.H = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    # R: detection noise, independent in x and y (isotropic: the camera is overhead).
    kf.R = np.eye(2) * settings.meas_sigma_mm**2
    # P: initial uncertainty: the position is as good as one detection; the velocity is unknown unless
    # given (then it is as good as two detections one frame apart).
    v_sigma = UNKNOWN_SPEED_SIGMA_MM_S if vel is None else seeded_speed_sigma(settings, frame_dt)
    kf.P = np.diag([settings.meas_sigma_mm**2] * 2 + [v_sigma**2] * 2)
    # F and Q depend on the frame interval and are set by ``predict_dt`` before every prediction.
    return kf


def transition(dt: float) -> np.ndarray:
    """F: constant velocity over ``dt`` seconds (position += velocity * dt)."""
    f = np.eye(4)
    f[0, 2] = f[1, 3] = dt
    return f


def process_noise(dt: float, accel_sigma: float) -> np.ndarray:
    """Q: discrete white-noise acceleration of standard deviation ``accel_sigma`` held over ``dt``,
    independent in x and y: G = [dt^2/2, dt]^T per axis, Q = G G^T sigma^2."""
    g = np.array([0.5 * dt * dt, dt])
    q1 = np.outer(g, g) * accel_sigma**2
    q = np.zeros((4, 4))
    for axis in (0, 1):
        idx = [axis, axis + 2]
        q[np.ix_(idx, idx)] = q1
    return q


@lru_cache(maxsize=256)
def _motion(dt: float, accel_sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """F and Q for one frame interval, built once per distinct interval (a stream's frames mostly share one)
    and shared read-only by every filter: filterpy's predict only reads them."""
    f, q = transition(dt), process_noise(dt, accel_sigma)
    f.setflags(write=False)
    q.setflags(write=False)
    return f, q


def predict_dt(kf: KalmanFilter, dt: float, settings: FilterSettings) -> None:
    """Advance the filter by ``dt`` seconds (frame timestamps may be uneven: dropped frames, VFR): filterpy's
    ``KalmanFilter.predict()`` (no control input) by the same numpy calls in the same order, so the same state
    and covariance bit for bit, without the copies of the prior it keeps for inspection, which nothing reads."""
    kf.F, kf.Q = F, Q = _motion(dt, settings.accel_sigma_mm_s2)
    kf.x = np.dot(F, kf.x)
    kf.P = kf._alpha_sq * np.dot(np.dot(F, kf.P), F.T) + Q


_I4 = np.eye(4)


def update_position(kf: KalmanFilter, z: np.ndarray) -> None:
    """filterpy's ``KalmanFilter.update(z)`` for one position measurement: the same equations evaluated by the
    same numpy calls in the same order (so the same state and covariance, bit for bit), with Joseph's form of
    the covariance update, but without what filterpy keeps for inspection (residual, gain, system
    uncertainty, copies of the posterior, a deep copy of ``z``), which nothing here reads: per call it spent
    more time on those than on the update."""
    H, P, R = kf.H, kf.P, kf.R
    y = np.asarray(z, dtype=float).reshape(2) - np.dot(H, kf.x)
    PHT = np.dot(P, H.T)
    S = np.dot(H, PHT) + R
    K = np.dot(PHT, np.linalg.inv(S))
    kf.x = kf.x + np.dot(K, y)
    I_KH = _I4 - np.dot(K, H)
    kf.P = np.dot(np.dot(I_KH, P), I_KH.T) + np.dot(np.dot(K, R), K.T)


def reseed(
    kf: KalmanFilter, pos: np.ndarray, vel: np.ndarray | None, settings: FilterSettings, frame_dt: float
) -> None:
    """Restart the filter after a kink (collision, cushion): position from the new detection, velocity
    from the last two detections (``frame_dt`` seconds apart), both with the uncertainty of such a difference;
    or, with ``vel`` None (a ball back in sight after an unseen collision), an unknown velocity, as a new
    ball's."""
    s = settings.meas_sigma_mm
    v_sigma = UNKNOWN_SPEED_SIGMA_MM_S if vel is None else seeded_speed_sigma(settings, frame_dt)
    v = np.zeros(2) if vel is None else vel
    kf.x = np.array([pos[0], pos[1], v[0], v[1]], dtype=float)
    kf.P = np.diag([s * s, s * s, v_sigma**2, v_sigma**2])


def mahalanobis_sq(kf: KalmanFilter, z: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distance of measurements ``z`` (M x 2) from the filter's predicted position,
    under the innovation covariance S = H P H^T + R."""
    s = kf.H @ kf.P @ kf.H.T + kf.R
    inv = np.linalg.inv(s)
    d = np.asarray(z, dtype=float).reshape(-1, 2) - kf.x[:2]
    return np.einsum("ij,jk,ik->i", d, inv, d)


def mahalanobis_sq_many(kfs: Sequence[KalmanFilter], z: np.ndarray) -> np.ndarray:
    """``mahalanobis_sq`` of each of ``kfs`` (filters made by ``make_ball_filter``) as the rows of one K x M
    array, computed for all at once with the same numbers: for this H (it picks the position), H P H^T is
    exactly the top-left block of P; the inverses are one LAPACK solve each, batched; and the quadratic form
    is summed term by term in the order einsum sums it for three or more measurements (for one or two it
    orders the loops differently, so those are left to it)."""
    z = np.asarray(z, dtype=float).reshape(-1, 2)
    if len(z) < 3 or not kfs:
        return np.array([mahalanobis_sq(kf, z) for kf in kfs]).reshape(len(kfs), len(z))
    inv = np.linalg.inv(np.array([kf.P[:2, :2] + kf.R for kf in kfs]))
    x = np.array([kf.x[:2] for kf in kfs])
    d0 = z[None, :, 0] - x[:, 0:1]
    d1 = z[None, :, 1] - x[:, 1:2]
    i00, i01, i10, i11 = inv[:, 0, 0:1], inv[:, 0, 1:2], inv[:, 1, 0:1], inv[:, 1, 1:2]
    return (d0 * i00) * d0 + (d0 * i01) * d1 + (d1 * i10) * d0 + (d1 * i11) * d1
