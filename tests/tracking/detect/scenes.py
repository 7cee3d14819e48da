"""Hand-made ball paths as the tracker reports them (``tracking.tracker.TrackerFrame`` records), fed to a real
``EventExtractor``: each ball's position is a function of time, resting where it does not move."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from calibration.table import TableModel
from tracking.extractor import EventExtractor
from tracking.tracker import BallObs, Loss, TrackerFrame, TrackState

FPS = 60.0
TABLE = TableModel()
D = TABLE.ball_diameter_mm


@dataclass(frozen=True)
class Leg:
    """A ball from ``t0`` at ``p0`` moving at ``v`` (mm/s; zero: resting) until the next leg starts."""

    t0: float
    p0: tuple[float, float]
    v: tuple[float, float] = (0.0, 0.0)


def path(*legs: Leg) -> Callable[[float], tuple[np.ndarray, bool]]:
    """Position and resting flag at ``t`` along ``legs`` (in time order)."""

    def at(t: float) -> tuple[np.ndarray, bool]:
        leg = next(g for g in reversed(legs) if g.t0 <= t + 1e-9)
        p = np.array(leg.p0) + np.array(leg.v) * (t - leg.t0)
        return p, leg.v == (0.0, 0.0)

    return at


def frames(
    balls: dict[str, Callable[[float], tuple[np.ndarray, bool]]],
    until: float,
    gone: dict[str, tuple[float, str]] | None = None,
) -> list[TrackerFrame]:
    """Tracker frames at FPS from 0 to ``until``; ``gone``: ball -> (time it vanished, pocket or "" for off the
    table), reported as a ``Loss`` in the frame after its last sighting."""
    gone = gone or {}
    out = []
    for i in range(round(until * FPS) + 1):
        t = i / FPS
        obs, losses = [], []
        for name, at in balls.items():
            if name in gone and t > gone[name][0]:
                t_last = (np.floor(gone[name][0] * FPS)) / FPS
                if t - 1 / FPS <= t_last + 1e-9:  # the first frame without it
                    p, _ = at(t_last)
                    pocket = gone[name][1] or None
                    kind = "pot" if pocket else "off_table"
                    losses.append(Loss(name, kind, pocket, (float(p[0]), float(p[1])), (0.0, 0.0), t_last, 0.9))
                continue
            p, resting = at(t)
            xy = (float(p[0]), float(p[1]))
            obs.append(BallObs(name, xy, xy, (0.0, 0.0), resting, TrackState.CONFIRMED, quality=0.95))
        out.append(TrackerFrame(i, t, tuple(obs), tuple(losses)))
    return out


def run(tfs: Sequence[TrackerFrame]) -> tuple[EventExtractor, list]:
    """The events of a fresh extractor fed ``tfs``, then finished."""
    ex = EventExtractor(TABLE)
    events = [e for tf in tfs for e in ex.update(tf)]
    return ex, events + ex.finish()
