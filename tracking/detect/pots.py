"""Balls leaving the table: ``pot`` (the tracker confirmed the ball gone in a pocket mouth) timed where its path
crosses the drop depth, with the jaw touches on the way in, or ``off_table``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.table import Pocket, TableModel
from tracking.detect import cushions
from tracking.detect.candidate import Candidate
from tracking.detect.geometry import as_pt
from tracking.detect.segments import LostView
from tracking.detect.settings import CushionSettings, PotSettings
from tracking.tracker import Loss
from tracking.trajectory import PathFit, solve_root


@dataclass(frozen=True)
class Gone:
    """How a ball the tracker lost left the table (``lost``): when and where (the drop, or half a frame after its
    last sighting), the jaw touches read off its last path on the way in (the resolver gives out the first not
    already given out), its rattle between the jaw faces, and its ``pot`` or ``off_table``."""

    t: float
    pos: np.ndarray
    jaws: tuple[Candidate, ...]
    rattles: tuple[Candidate, ...]
    event: Candidate


def lost(loss: Loss, view: LostView, table: TableModel, s: PotSettings, cs: CushionSettings, dt: float) -> Gone:
    """The reading of a ball the tracker lost (``loss``; ``view``: its last path and every sample): in a pocket
    mouth a ``pot``, timed at the drop (``drop_time``) where its last path gets there, with the jaws that path
    brushed (``cushions.jaw_touches``) and its rattle (``cushions.rattle``); elsewhere ``off_table``. Both carry
    the tracker's confidence."""
    t_ev = loss.last_t + 0.5 * dt
    p_ev = np.array(loss.last_pos)
    f = view.path
    if loss.kind != "pot" or loss.pocket is None:
        c = Candidate("off_table", (view.ball,), None, t_ev, as_pt(p_ev), 0.0, "off_table", loss.confidence)
        return Gone(t_ev, p_ev, (), (), c)
    pk = table.pockets[loss.pocket]
    R = table.ball_radius_mm
    jaws: list[Candidate] = []
    if f is not None:
        drop = drop_time(loss, f, pk, s, dt, R)
        if drop is not None:
            t_ev, p_ev = drop, f.at(drop)
        # the jaws it brushed on the way in
        jaws = cushions.jaw_touches(view.ball, pk, f, loss.last_t - 2 * dt, t_ev, cs, R)
    rattles = cushions.rattle(view.trail, pk, t_ev, R, cs.rattle, dt)
    c = Candidate("pot", (view.ball,), loss.pocket, t_ev, None, 0.0, "drop", loss.confidence)
    return Gone(t_ev, p_ev, tuple(jaws), tuple(rattles), c)


def drop_time(loss: Loss, f: PathFit, pk: Pocket, s: PotSettings, dt: float, radius_mm: float) -> float | None:
    """When a ball the tracker lost in ``pk``'s mouth dropped: where its last path ``f`` crosses
    ``pot_depth_fraction`` radii past the mouth line (the near edge of the hole), run on if it was still short of
    it when last seen; None where the path never gets there."""
    # the ball drops once its centre is pot_depth past the mouth line (the near edge of the hole)
    pd = s.pot_depth_fraction * radius_mm
    depth0 = pk.depth(as_pt(f.at(loss.last_t))) - pd
    if depth0 < 0:
        root = solve_root(lambda u: pk.depth(as_pt(f.at(u))) - pd, loss.last_t, loss.last_t + 0.3, steps=60)
    else:
        root = solve_root(lambda u: pk.depth(as_pt(f.at(u))) - pd, f.t0 - dt, loss.last_t, steps=60)
    if root is not None and float(np.linalg.norm(f.vel(loss.last_t))) < s.slow_drop_mm_s:
        # a ball rattling in the jaws drops from near rest: gone from the next frame on, it fell by then,
        # whenever its creep run on would reach the hole (a faster ball's path says when)
        return min(root, loss.last_t + dt)
    return root
