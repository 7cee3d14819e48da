"""Balls leaving the table: ``pot`` (the tracker confirmed the ball gone in a pocket mouth) timed where its path
crosses the drop depth, with the jaw touches on the way in, or ``off_table``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from calibration.contract import Event
from calibration.table import Pocket
from tracking.detect import breaks, cushions, resolve, segments
from tracking.detect.candidate import Candidate
from tracking.detect.geometry import (
    as_pt,
)
from tracking.detect.settings import PotSettings
from tracking.tracker import Loss
from tracking.trajectory import PathFit, solve_root

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


def lost(ex: EventExtractor, loss: Loss, out: list[Event]) -> None:
    b = ex.balls.get(loss.id)
    if b is None:
        return
    b.on_table = False
    b.pending = None
    dt = ex.dt
    t_ev = loss.last_t + 0.5 * dt
    p_ev = np.array(loss.last_pos)
    good = [i for i in b.seg.idx if b.sid[i] >= 0] if b.segs else []
    f = segments.fit(ex, b, good) if b.segs and b.seg.kind == "move" and len(good) >= 2 else None
    if loss.kind == "pot" and loss.pocket is not None:
        b.potted = True
        pk = ex.table.pockets[loss.pocket]
        if f is not None:
            drop = drop_time(loss, f, pk, ex.s.pots, dt, ex.table.ball_radius_mm)
            if drop is not None:
                t_ev, p_ev = drop, f.at(drop)
            # the jaws it brushed on the way in: the first not already found
            jaws = cushions.jaw_touches(b.id, pk, f, loss.last_t - 2 * dt, t_ev, ex.s.cushions, ex.table.ball_radius_mm)
            next((c for c in jaws if resolve.give(ex, c, out)), None)
        R, rs = ex.table.ball_radius_mm, ex.s.cushions.rattle
        for c in cushions.rattle(segments.trail(b), pk, t_ev, R, rs, dt):
            resolve.give(ex, c, out)
        if b.segs and b.seg.kind == "move":
            breaks.close_move(ex, b, (t_ev, p_ev), out)
        resolve.give(ex, Candidate("pot", (b.id,), loss.pocket, t_ev, None, 0.0, "drop", loss.confidence), out)
        if ex.shot_active:
            ex.shot_last_t = max(ex.shot_last_t, t_ev)
    else:
        if b.segs and b.seg.kind == "move":
            breaks.close_move(ex, b, (t_ev, p_ev), out)
        c = Candidate("off_table", (b.id,), None, t_ev, as_pt(p_ev), 0.0, "off_table", loss.confidence)
        resolve.give(ex, c, out)
        if ex.shot_active:
            ex.shot_last_t = max(ex.shot_last_t, t_ev)


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
