"""Scoring predicted events and tracks against the truth: the figures the tracking benchmark prints.

Events are matched per type on a key (contact: the pair of balls; cushion: ball and cushion name; pot: ball
and pocket; line_cross: ball, line and direction) within a time tolerance, closest first, one-to-one.
``first_contact`` compares the first contact of each shot as an ordered pair (which ball hit which).
``contact_apart`` scores only the contacts between two balls that were apart when their shot began: balls
already touching then (a rack, a frozen pair) pass the push on through gaps of fractions of a millimetre, and
which of those pairs the physics logs as a contact depends on gaps below what a camera measures
(measured/rackchain-2026-12-07.txt); the row shows how the rest are found.
Track positions are compared row by row (same frame, same ball).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from calibration.contract import Event, jaw_pocket

SCORED = ("contact", "cushion", "line_cross", "pot", "off_table")
# Two balls whose centres lie within a diameter and this much when a shot begins are touching: a rack set by
# hand leaves gaps up to about a millimetre, and a ball that must roll to reach another crosses more than this.
TOUCHING_GAP_MM = 1.0

Pair = frozenset[str]


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


def touching_at_shots(
    truth: Sequence[Event], rows: Iterable[tuple[int, str, float, float]], diameter_mm: float
) -> list[tuple[float, set[Pair]]]:
    """Per truth shot, in time order: its start time and the pairs of balls touching at its start frame."""
    at: dict[int, dict[str, tuple[float, float]]] = {}
    starts = sorted((e for e in truth if e.type == "shot_start" and e.frame is not None), key=lambda e: e.t or 0.0)
    frames = {int(e.frame or 0) for e in starts}
    for f, b, x, y in rows:
        if f in frames:
            at.setdefault(f, {})[b] = (x, y)
    out: list[tuple[float, set[Pair]]] = []
    for e in starts:
        places = at.get(int(e.frame or 0), {})
        names = sorted(places)
        xy = np.array([places[b] for b in names], dtype=float).reshape(-1, 2)
        d = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
        i, j = np.nonzero(np.triu(d <= diameter_mm + TOUCHING_GAP_MM, 1))
        out.append((e.t or 0.0, {frozenset((names[a], names[b])) for a, b in zip(i, j, strict=True)}))
    return out


def _touching_at_start(e: Event, touching: Sequence[tuple[float, set[Pair]]]) -> bool:
    """Was this contact's pair touching when the shot it falls in began (the first shot for an earlier one)?"""
    pairs: set[Pair] = touching[0][1] if touching else set()
    for t0, p in touching:
        if t0 <= (e.t or 0.0):
            pairs = p
    return frozenset(e.balls or ()) in pairs


@dataclass
class Scores:
    events: dict[str, Tally] = field(
        default_factory=lambda: {k: Tally() for k in (*SCORED, "first_contact", "cushion_segment", "contact_apart")}
    )
    pos_err: list[float] = field(default_factory=list)
    rows_truth: int = 0
    rows_matched: int = 0
    shots: int = 0

    def add_shot(
        self,
        pred: Sequence[Event],
        truth: Sequence[Event],
        tol_s: float,
        touching: Sequence[tuple[float, set[Pair]]] = (),
    ) -> None:
        """Score one scene's events; ``touching`` (``touching_at_shots``) splits off the contacts of balls that
        were touching when their shot began (``contact_apart`` counts the others)."""
        for k in SCORED:
            self.events[k].add(match_events(pred, truth, k, tol_s))
        self.events["first_contact"].add(first_contacts(pred, truth, tol_s))
        # cushion segments alone (a jaw touch is the other kind of cushion event)
        seg_p = [e for e in pred if e.type == "cushion" and jaw_pocket(e.cushion) is None]
        seg_t = [e for e in truth if e.type == "cushion" and jaw_pocket(e.cushion) is None]
        self.events["cushion_segment"].add(match_events(seg_p, seg_t, "cushion", tol_s))
        apart_p = [e for e in pred if e.type == "contact" and not _touching_at_start(e, touching)]
        apart_t = [e for e in truth if e.type == "contact" and not _touching_at_start(e, touching)]
        self.events["contact_apart"].add(match_events(apart_p, apart_t, "contact", tol_s))
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
