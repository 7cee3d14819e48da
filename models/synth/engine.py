"""One stroke simulated by pooltool, and its exact continuous trajectories in our frame.

``simulate_stroke`` sets up a pooltool ``System`` from ball positions (our frame, mm) and a ``Stroke``,
runs the event-based simulation and returns a ``SimulatedShot``. Positions between events come from
pooltool's own equations of motion (``evolve_ball_motion``) started at the ball's last event state, so
they are the physics' continuous trajectory at any time, not an interpolation of samples.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from models.synth.physics import PhysicsTable, direction_to_phi, ensure_numba_cache, to_ours

POCKETED = 4  # pooltool.constants.pocketed
STATIONARY = 0
ROLLING = 3
MAX_EVENTS = 4000  # a shot with more events than this is a physics runaway: rejected


class SimulationFailed(ValueError):
    """pooltool raised while resolving the stroke (e.g. a ball moving exactly along a cushion it touches)."""


@dataclass(frozen=True)
class Stroke:
    """How the struck ball is hit. Angles and directions in our frame."""

    ball: str
    direction_deg: float  # 0 = toward the pyramid cushion (+x), 90 = toward the right cushion (+y)
    speed_mps: float  # cue speed V0, m/s
    side: float = 0.0  # horizontal tip offset, fraction of the radius (+ = right english)
    follow: float = 0.0  # vertical tip offset, fraction of the radius (+ = top, - = draw)
    elevation_deg: float = 0.0  # cue elevation

    @property
    def unit(self) -> np.ndarray:
        a = np.radians(self.direction_deg)
        return np.array([np.cos(a), np.sin(a)])


@dataclass
class BallHistory:
    """A ball's event states: times, pooltool rvw (3x3, metres) and motion state codes."""

    ball_id: str
    t: np.ndarray
    rvw: np.ndarray
    s: np.ndarray
    params: tuple[float, float, float, float, float, float]  # R, m, u_s, u_sp, u_r, g


@dataclass
class SimulatedShot:
    """A simulated stroke. Times are seconds from the cue's contact with the ball (pooltool's t = 0)."""

    ptable: PhysicsTable
    stroke: Stroke
    start: dict[str, tuple[float, float]]  # ball positions just before the stroke (mm)
    events: list = field(repr=False)  # pooltool Event objects, in time order
    histories: dict[str, BallHistory] = field(repr=False)
    duration: float = 0.0  # time of the last event: every ball at rest
    runaway: bool = False

    def states_at(self, ball_id: str, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions (N x 2, mm, NaN once pocketed) and state codes (N,) of one ball at ``times``."""
        from pooltool.physics.evolve import evolve_ball_motion

        h = self.histories[ball_id]
        times = np.asarray(times, dtype=np.float64)
        idx = np.clip(np.searchsorted(h.t, times, side="right") - 1, 0, len(h.t) - 1)
        pos = np.empty((len(times), 2))
        st = np.empty(len(times), dtype=np.int64)
        R, m, u_s, u_sp, u_r, g = h.params
        for k in np.unique(idx):
            sel = np.nonzero(idx == k)[0]
            s0, rvw0, t0 = int(h.s[k]), h.rvw[k], h.t[k]
            if s0 in (STATIONARY, POCKETED):
                pos[sel] = rvw0[0, :2]
                st[sel] = s0
                continue
            for i in sel:
                rvw, s = evolve_ball_motion(s0, rvw0, R, m, u_s, u_sp, u_r, g, max(times[i] - t0, 0.0))
                pos[i] = rvw[0, :2]
                st[i] = s
        out = to_ours(pos)
        out[st == POCKETED] = np.nan
        return out, st

    def position_at(self, ball_id: str, t: float) -> np.ndarray:
        return self.states_at(ball_id, np.array([t]))[0][0]

    def final_positions(self) -> dict[str, tuple[float, float]]:
        """Balls left on the table at the end (mm)."""
        out: dict[str, tuple[float, float]] = {}
        for bid, h in self.histories.items():
            if int(h.s[-1]) != POCKETED:
                x, y = to_ours(h.rvw[-1, 0, :2])
                out[bid] = (float(x), float(y))
        return out

    def moving_intervals(self, ball_id: str) -> list[tuple[float, float]]:
        """Time spans in which the ball moves (between its event states)."""
        h = self.histories[ball_id]
        spans = []
        for k in range(len(h.t) - 1):
            if int(h.s[k]) not in (STATIONARY, POCKETED) and h.t[k + 1] > h.t[k]:
                spans.append((float(h.t[k]), float(h.t[k + 1])))
        return spans


def simulate_stroke(
    ptable: PhysicsTable,
    positions: dict[str, tuple[float, float]],
    stroke: Stroke,
    also: tuple[Stroke, ...] = (),
) -> SimulatedShot:
    """Simulate one stroke from a layout (our frame, mm). ``also``: balls set rolling at t = 0 besides the
    struck one (both balls of a lag are played at once). pooltool strikes with the cue only a system at
    rest, so with ``also`` every listed ball, the struck one included, starts rolling at ``speed_mps``."""
    ensure_numba_cache()
    import pooltool as pt
    from pooltool.objects import Cue

    if stroke.ball not in positions:
        raise KeyError(f"the struck ball {stroke.ball!r} is not on the table")
    balls = {bid: ptable.make_ball(bid, xy) for bid, xy in positions.items()}
    system = pt.System(cue=Cue(cue_ball_id=stroke.ball), table=ptable.pt_table, balls=balls)
    system.strike(
        V0=stroke.speed_mps,
        phi=direction_to_phi(*stroke.unit),
        theta=stroke.elevation_deg,
        a=stroke.side,
        b=stroke.follow,
    )
    for extra in (stroke, *also) if also else ():
        v = extra.unit[::-1] * extra.speed_mps  # pooltool (x, y) of our direction
        rvw = balls[extra.ball].state.rvw
        rvw[1, :2] = v
        rvw[2, :2] = (-v[1] / ptable.radius_m, v[0] / ptable.radius_m)
        balls[extra.ball].state.s = ROLLING
    try:
        with warnings.catch_warnings():
            # pooltool's quartic root filter divides by zero for exactly real roots; harmless there.
            warnings.simplefilter("ignore", RuntimeWarning)
            sim = pt.simulate(system, inplace=True, max_events=MAX_EVENTS)
    except (AssertionError, ValueError, ZeroDivisionError, FloatingPointError) as exc:
        raise SimulationFailed(f"pooltool failed on this stroke: {type(exc).__name__} {exc}") from None
    histories: dict[str, BallHistory] = {}
    for bid, ball in sim.balls.items():
        states = ball.history.states
        p = ball.params
        histories[bid] = BallHistory(
            bid,
            np.array([s.t for s in states], dtype=np.float64),
            np.array([s.rvw for s in states], dtype=np.float64),
            np.array([s.s for s in states], dtype=np.int64),
            (p.R, p.m, p.u_s, p.u_sp, p.u_r, p.g),
        )
    events = list(sim.events)
    duration = float(events[-1].time) if events else 0.0
    runaway = len(events) >= MAX_EVENTS
    return SimulatedShot(ptable, stroke, dict(positions), events, histories, duration, runaway)
