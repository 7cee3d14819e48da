"""Scoring predicted events and tracks against the truth: the figures the tracking benchmark prints.

Events are matched per type on a key (contact: the pair of balls; cushion: ball and cushion name; pot: ball
and pocket; line_cross: ball, line and direction) within a time tolerance, closest first, one-to-one.
``first_contact`` compares the first contact of each shot as an ordered pair (which ball hit which).
Track positions are compared row by row (same frame, same ball).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from calibration.contract import Event, jaw_pocket

SCORED = ("contact", "cushion", "line_cross", "pot", "off_table")


def event_key(e: Event) -> tuple[object, ...]:
    if e.type == "contact":
        return (frozenset(e.balls or ()),)
    if e.type == "cushion":
        return (e.ball, e.cushion)
    if e.type == "pot":
        return (e.ball, e.pocket)
    if e.type == "line_cross":
        return (e.ball, e.line, e.direction)
    return (e.ball,)


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    dt: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.dt.extend(other.dt)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def match_events(pred: Sequence[Event], truth: Sequence[Event], kind: str, tol_s: float) -> Tally:
    ps = [e for e in pred if e.type == kind]
    ts = [e for e in truth if e.type == kind]
    pairs = []
    for i, p in enumerate(ps):
        kp = event_key(p)
        for j, t in enumerate(ts):
            if event_key(t) == kp:
                d = abs((p.t or 0.0) - (t.t or 0.0))
                if d <= tol_s:
                    pairs.append((d, i, j))
    pairs.sort()
    used_p: set[int] = set()
    used_t: set[int] = set()
    out = Tally()
    for _d, i, j in pairs:
        if i in used_p or j in used_t:
            continue
        used_p.add(i)
        used_t.add(j)
        out.tp += 1
        out.dt.append((ps[i].t or 0.0) - (ts[j].t or 0.0))
    out.fp = len(ps) - len(used_p)
    out.fn = len(ts) - len(used_t)
    return out


def _shot_spans(events: Sequence[Event]) -> list[tuple[float, float]]:
    starts = sorted(e.t or 0.0 for e in events if e.type == "shot_start")
    return [(s, starts[k + 1] if k + 1 < len(starts) else float("inf")) for k, s in enumerate(starts)]


def first_contacts(pred: Sequence[Event], truth: Sequence[Event], tol_s: float) -> Tally:
    """Per truth shot: the first contact (ordered pair, within tolerance) found by the prediction?"""
    out = Tally()
    for lo, hi in _shot_spans(truth):
        tc = sorted((e for e in truth if e.type == "contact" and lo <= (e.t or 0) < hi), key=lambda e: e.t or 0)
        pc = sorted((e for e in pred if e.type == "contact" and lo - tol_s <= (e.t or 0) < hi), key=lambda e: e.t or 0)
        if not tc:
            if pc:
                out.fp += 1
            continue
        if not pc:
            out.fn += 1
            continue
        t0, p0 = tc[0], pc[0]
        if tuple(p0.balls or ()) == tuple(t0.balls or ()) and abs((p0.t or 0) - (t0.t or 0)) <= tol_s:
            out.tp += 1
            out.dt.append((p0.t or 0) - (t0.t or 0))
        else:
            out.fn += 1
            out.fp += 1
    return out


@dataclass
class Scores:
    events: dict[str, Tally] = field(
        default_factory=lambda: {k: Tally() for k in (*SCORED, "first_contact", "cushion_segment")}
    )
    pos_err: list[float] = field(default_factory=list)
    rows_truth: int = 0
    rows_matched: int = 0
    shots: int = 0

    def add_shot(self, pred: Sequence[Event], truth: Sequence[Event], tol_s: float) -> None:
        for k in SCORED:
            self.events[k].add(match_events(pred, truth, k, tol_s))
        self.events["first_contact"].add(first_contacts(pred, truth, tol_s))
        # cushion segments alone (a jaw touch is the other kind of cushion event)
        seg_p = [e for e in pred if e.type == "cushion" and jaw_pocket(e.cushion) is None]
        seg_t = [e for e in truth if e.type == "cushion" and jaw_pocket(e.cushion) is None]
        self.events["cushion_segment"].add(match_events(seg_p, seg_t, "cushion", tol_s))
        self.shots += sum(1 for e in truth if e.type == "shot_start")

    def add_tracks(
        self, pred: Iterable[tuple[int, str, float, float]], truth: Iterable[tuple[int, str, float, float]]
    ) -> None:
        table = {(f, b): (x, y) for f, b, x, y in pred}
        for f, b, x, y in truth:
            self.rows_truth += 1
            p = table.get((f, b))
            if p is not None:
                self.rows_matched += 1
                self.pos_err.append(float(np.hypot(p[0] - x, p[1] - y)))

    def timing(self) -> list[float]:
        out: list[float] = []
        for k in ("contact", "cushion", "line_cross", "pot"):
            out.extend(abs(d) for d in self.events[k].dt)
        return out
