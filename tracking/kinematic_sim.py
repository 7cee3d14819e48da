"""A small 2-D billiards simulator with exact event times: truth for testing the tracker and the event
extractor without video (and a fallback benchmark when the rendered synth suite is not available).

Physics, deliberately plain: balls roll in straight lines with a constant deceleration; ball-ball
collisions are elastic between equal masses (the normal components are exchanged); cushions and pocket
jaws (segments from the tip into the pocket) reflect the normal component with a restitution and keep most
of the tangential one; a ball whose centre crosses a pocket's mouth line (by half a radius) between the
jaws is potted. The mouths are only a few millimetres wider than a ball, so most pots brush a jaw on the
way in: that touch is a ``cushion`` event ``jaw:<pocket>`` (CONTRACT.md section 3: "a ball touched a
cushion segment or a pocket jaw"), as in the rendered truth. The step is short (0.5 ms) and every event time is
solved exactly inside its step from the linear motion, so the truth is good to well under a millisecond.

``detections_from_truth`` turns the truth positions at frame times into noisy detections with dropouts
and an occluder (an arm over part of the table for a while).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from calibration.contract import Event, jaw_cushion
from calibration.table import TableModel

# a centre this close to a line is on it, on neither side (the rack's middle balls are on the long line,
# and a hit leaves them a few hundredths of a millimetre off it): it crosses by going beyond this on the
# other side, at the time its centre passed the line itself
_ON_LINE_MM = 0.1


@dataclass(frozen=True)
class SimSettings:
    decel_mm_s2: float = 500.0
    cushion_restitution: float = 0.8
    cushion_tangential: float = 0.95
    step_s: float = 0.0005
    stop_speed_mm_s: float = 2.0
    max_time_s: float = 12.0


@dataclass
class SimResult:
    events: list[Event]
    # (t, {id: (x, y)}) samples at frame times; a potted ball is absent from then on
    frames: list[tuple[float, dict[str, tuple[float, float]]]]
    fps: float


@dataclass
class _Ball:
    id: str
    p: np.ndarray
    v: np.ndarray = field(default_factory=lambda: np.zeros(2))
    on: bool = True


def simulate_shot(
    table: TableModel,
    balls: dict[str, tuple[float, float]],
    struck: str,
    velocity: tuple[float, float],
    fps: float = 60.0,
    lead_s: float = 0.2,
    tail_s: float = 0.6,
    settings: SimSettings | None = None,
) -> SimResult:
    """One shot: ``struck`` is set moving with ``velocity`` (mm/s) at ``lead_s``; sampled at ``fps``."""
    s = settings or SimSettings()
    R, D = table.ball_radius_mm, table.ball_diameter_mm
    bs = [_Ball(k, np.array(v, dtype=float)) for k, v in balls.items()]
    idx = {b.id: i for i, b in enumerate(bs)}
    events: list[Event] = []
    positions0 = {b.id: (float(b.p[0]), float(b.p[1])) for b in bs}
    events.append(
        Event(type="shot_start", t=lead_s, frame=round(lead_s * fps), shot=0, ball=struck, positions=positions0)
    )
    bs[idx[struck]].v = np.array(velocity, dtype=float)
    lines = [("house", 0, table.lines["house"].value_mm), ("center", 0, table.lines["center"].value_mm),
             ("long", 1, table.lines["long"].value_mm)]  # fmt: skip
    t = lead_s
    frames: list[tuple[float, dict[str, tuple[float, float]]]] = []
    frame_i = 0

    def ev(kind: str, when: float, **kw: object) -> None:
        events.append(Event(type=kind, t=when, frame=round(when * fps), shot=0, **kw))  # type: ignore[arg-type]

    def sample_until(t_end: float) -> None:
        nonlocal frame_i
        while frame_i / fps <= t_end + 1e-12:
            ft = frame_i / fps
            frames.append((ft, {b.id: _at(b, ft - t, s) for b in bs if b.on}))
            frame_i += 1

    sample_until(lead_s - 1e-9)
    last_contact: dict[frozenset[str], float] = {}
    last_jaw: dict[tuple[str, str], float] = {}
    zero: dict[tuple[str, str], float] = {}
    side = {
        (b.id, name): bool(b.p[axis] > val)
        for b in bs
        for name, axis, val in lines
        if abs(b.p[axis] - val) > _ON_LINE_MM
    }
    merge_s = 0.010
    end_t = lead_s
    while t < lead_s + s.max_time_s:
        moving = [b for b in bs if b.on and np.any(b.v)]
        if not moving:
            break
        h = s.step_s
        # frames inside this step are sampled from the state at its start
        sample_until(t + h - 1e-12)
        old = {b.id: b.p.copy() for b in bs}
        # when inside this step each ball got its present velocity: a contact it makes with that velocity
        # cannot be earlier (a ball set moving against a frozen neighbour touches it at that instant)
        since = {b.id: t for b in bs}
        for b in moving:
            sp = float(np.linalg.norm(b.v))
            nsp = sp - s.decel_mm_s2 * h
            if nsp <= s.stop_speed_mm_s:
                tau = sp / s.decel_mm_s2
                b.p = b.p + b.v / sp * (sp * tau - 0.5 * s.decel_mm_s2 * tau * tau)
                b.v = np.zeros(2)
                end_t = max(end_t, t + tau)
                continue
            b.p = b.p + b.v / sp * (sp * h - 0.5 * s.decel_mm_s2 * h * h)
            b.v = b.v * (nsp / sp)
        # line crossings by the centre: from one side of the line to the other (a centre on the line, as
        # the rack's middle balls are on the long line, is on neither side: leaving it is no crossing)
        for b in moving:
            for name, axis, val in lines:
                a0, a1 = old[b.id][axis] - val, b.p[axis] - val
                if a0 * a1 < 0:
                    zero[(b.id, name)] = t + a0 / (a0 - a1) * h  # where the centre is exactly on it
                if abs(a1) <= _ON_LINE_MM:
                    continue
                was = side.get((b.id, name))
                side[(b.id, name)] = a1 > 0
                if was is not None and was != (a1 > 0):
                    d = ("+" if a1 > 0 else "-") + ("x" if axis == 0 else "y")
                    ev("line_cross", zero.get((b.id, name), t), ball=b.id, line=name, direction=d)
        # ball-ball collisions (solved inside the step from the linear relative motion); vectorised
        # screening, then the few overlapping pairs one by one
        on = [b for b in bs if b.on]
        pos = np.array([b.p for b in on])
        diff = pos[None, :, :] - pos[:, None, :]
        dist2 = np.einsum("ijk,ijk->ij", diff, diff)
        ii, jj = np.nonzero(np.triu(dist2 < D * D, 1))
        for i, j in zip(ii.tolist(), jj.tolist(), strict=True):
            a, c = on[i], on[j]
            if not (np.any(a.v) or np.any(c.v)):
                continue
            d = c.p - a.p
            w = c.v - a.v
            if float(d @ w) >= 0:
                continue  # already separating
            d0 = old[c.id] - old[a.id]
            dd = d - d0
            qa, qb, qc = float(dd @ dd), 2 * float(d0 @ dd), float(d0 @ d0) - D * D
            disc = qb * qb - 4 * qa * qc
            f = (-qb - math.sqrt(max(disc, 0.0))) / (2 * qa) if qa > 0 else 0.0
            f = min(max(f, 0.0), 1.0)
            f = max(f, (since[a.id] - t) / h, (since[c.id] - t) / h)
            tc = t + f * h
            since[a.id] = since[c.id] = tc
            # place both at contact, exchange normal velocity components, run out the step
            pa = old[a.id] + (a.p - old[a.id]) * f
            pc = old[c.id] + (c.p - old[c.id]) * f
            n = (pc - pa) / max(float(np.linalg.norm(pc - pa)), 1e-9)
            va, vc = a.v.copy(), c.v.copy()
            an, cn = float(va @ n), float(vc @ n)
            a.v = va + (cn - an) * n
            c.v = vc + (an - cn) * n
            rest = (1 - f) * h
            a.p, c.p = pa + a.v * rest, pc + c.v * rest
            first, second = (a, c) if np.linalg.norm(va) >= np.linalg.norm(vc) else (c, a)
            mid = (pa + pc) / 2
            key = frozenset((a.id, c.id))
            if tc - last_contact.get(key, -1.0) >= merge_s:  # repeated touches of a pair are one contact
                ev("contact", tc, balls=(first.id, second.id), pos=(float(mid[0]), float(mid[1])))
            last_contact[key] = tc
        # cushions and pockets
        for b in moving:
            if not b.on:
                continue
            for pk in table.pockets.values():
                # it drops when the centre is half a radius past the mouth line (the near edge of the hole)
                d0, d1 = pk.depth(_pt(old[b.id])) - 0.5 * R, pk.depth(_pt(b.p)) - 0.5 * R
                if d0 < 0 <= d1:
                    f = -d0 / (d1 - d0)
                    q = old[b.id] + (b.p - old[b.id]) * f
                    if abs(pk.lateral(_pt(q))) <= pk.mouth_width_mm / 2:
                        ev("pot", t + f * h, ball=b.id, pocket=pk.name)
                        b.on = False
                        b.v = np.zeros(2)
                        end_t = max(end_t, t + f * h)
                        break
            if not b.on:
                continue
            if _jaw_touch(table, b, old[b.id], t, h, s, ev, last_jaw, merge_s):
                continue
            for cu in table.cushions.values():
                o0, o1 = cu.offset(_pt(old[b.id])) - R, cu.offset(_pt(b.p)) - R
                if o0 >= 0 > o1:
                    f = o0 / (o0 - o1)
                    q = old[b.id] + (b.p - old[b.id]) * f
                    al = cu.along(_pt(q))
                    if 0 <= al <= cu.length_mm:
                        n = np.array(cu.inward)
                        vn = float(b.v @ n)
                        vt = b.v - vn * n
                        b.v = vt * s.cushion_tangential - vn * s.cushion_restitution * n
                        b.p = q + b.v * (1 - f) * h
                        touch = q - n * R
                        ev("cushion", t + f * h, ball=b.id, cushion=cu.name, pos=(float(touch[0]), float(touch[1])))
                        break
        t += h
    end_t = max(end_t, t)
    sample_until(end_t + tail_s)
    final = {b.id: (float(b.p[0]), float(b.p[1])) for b in bs if b.on}
    ev("shot_end", end_t, positions=final)
    events.extend(_cluster_contacts(table, positions0, events, fps))
    events.sort(key=lambda e: e.t or 0.0)
    return SimResult(events, frames, fps)


def _cluster_contacts(
    table: TableModel, start: dict[str, tuple[float, float]], events: list[Event], fps: float
) -> list[Event]:
    """The truth convention of the rendered synth (pooltool): when a group of touching balls is first hit,
    every touching pair in it is in contact at that instant. The sequential collisions above find only the
    pairs the impulse travels along; this adds the others."""
    D = table.ball_diameter_mm
    ids = list(start)
    touch = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :] if math.dist(start[a], start[b]) <= D + 0.5]
    groups: list[set[str]] = []
    for a, b in touch:
        hit = [x for x in groups if a in x or b in x]
        merged = {a, b}.union(*hit)
        groups = [x for x in groups if x not in hit] + [merged]
    out: list[Event] = []
    contacts = sorted((e for e in events if e.type == "contact"), key=lambda e: e.t or 0.0)
    for g in groups:
        first = next((e for e in contacts if set(e.balls or ()) & g), None)
        if first is None or first.t is None:
            continue
        t0 = first.t
        for a, b in touch:
            if a not in g:
                continue
            if any(set(e.balls or ()) == {a, b} and abs((e.t or 0) - t0) <= 0.010 for e in contacts):
                continue
            mid = ((start[a][0] + start[b][0]) / 2, (start[a][1] + start[b][1]) / 2)
            out.append(Event(type="contact", t=t0, frame=round(t0 * fps), shot=0, balls=(a, b), pos=mid))
    return out


def _jaw_touch(
    table: TableModel,
    b: _Ball,
    p0: np.ndarray,
    t: float,
    h: float,
    s: SimSettings,
    ev: Callable[..., None],
    last: dict[tuple[str, str], float],
    merge_s: float,
) -> bool:
    """The ball's centre came to one radius of a pocket jaw in this step (moving linearly from ``p0``): the
    touch time is bisected on that motion, the normal (from the touched point of the jaw to the centre)
    component is reflected like a cushion's, and a ``jaw:<pocket>`` cushion event is recorded. A ball
    rattling between the two jaws of a mouth touches them every few milliseconds: as with repeated touches
    of a pair of balls, touches of one mouth within ``merge_s`` of the previous one are one touch."""
    R = table.ball_radius_mm
    for pk in table.pockets.values():
        for jaw in pk.jaws:
            if jaw.distance(_pt(b.p)) >= R or jaw.distance(_pt(p0)) < R:
                continue
            lo, hi = 0.0, 1.0
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                if jaw.distance(_pt(p0 + (b.p - p0) * mid)) >= R:
                    lo = mid
                else:
                    hi = mid
            q = p0 + (b.p - p0) * lo
            near = np.array(jaw.closest_point(_pt(q)))
            n = (q - near) / max(float(np.linalg.norm(q - near)), 1e-9)
            vn = float(b.v @ n)
            if vn >= 0:
                continue  # moving away from it
            vt = b.v - vn * n
            b.v = vt * s.cushion_tangential - vn * s.cushion_restitution * n
            b.p = q + b.v * (1 - lo) * h
            tc, key = t + lo * h, (b.id, pk.name)
            if tc - last.get(key, -1.0) >= merge_s:
                ev("cushion", tc, ball=b.id, cushion=jaw_cushion(pk.name), pos=(float(near[0]), float(near[1])))
            last[key] = tc
            return True
    return False


def _at(b: _Ball, dt: float, s: SimSettings) -> tuple[float, float]:
    """Position of ``b`` ``dt`` seconds after the current state (dt <= one step), on its straight path."""
    sp = float(np.linalg.norm(b.v))
    if sp == 0 or dt <= 0:
        return _pt(b.p)
    tau = min(dt, sp / s.decel_mm_s2)
    q = b.p + b.v / sp * (sp * tau - 0.5 * s.decel_mm_s2 * tau * tau)
    return _pt(q)


def _pt(a: np.ndarray) -> tuple[float, float]:
    return (float(a[0]), float(a[1]))


@dataclass(frozen=True)
class Occluder:
    """An axis-aligned box over the table (mm) hiding every ball inside it from ``t0`` to ``t1``."""

    x0: float
    y0: float
    x1: float
    y1: float
    t0: float
    t1: float

    def hides(self, p: tuple[float, float], t: float) -> bool:
        return self.t0 <= t <= self.t1 and self.x0 <= p[0] <= self.x1 and self.y0 <= p[1] <= self.y1


@dataclass(frozen=True)
class Detection:
    """Detections of one frame as parallel arrays (the fields the tracker reads)."""

    pos_mm: np.ndarray
    confidence: np.ndarray
    is_cue: np.ndarray


def detections_from_truth(
    sim: SimResult,
    rng: np.random.Generator,
    noise_mm: float = 0.8,
    dropout: float = 0.02,
    occluders: tuple[Occluder, ...] = (),
    cue_id: str | None = "cue",
) -> list[tuple[float, Detection]]:
    out = []
    for t, balls in sim.frames:
        ps, cs, cue = [], [], []
        for bid, p in balls.items():
            if rng.random() < dropout or any(o.hides(p, t) for o in occluders):
                continue
            ps.append((p[0] + rng.normal(0, noise_mm), p[1] + rng.normal(0, noise_mm)))
            cs.append(0.9)
            cue.append(bid == cue_id)
        out.append((t, Detection(np.array(ps, dtype=float).reshape(-1, 2), np.array(cs), np.array(cue, dtype=bool))))
    return out


# ---- a small scenario library ----------------------------------------------------------------------------
SCENARIOS = ("break", "straight_pot", "cut_pot", "bank", "random", "frozen_pair", "occluded", "slow")


@dataclass(frozen=True)
class ShotSetup:
    name: str
    balls: dict[str, tuple[float, float]]
    struck: str
    velocity: tuple[float, float]
    occluders: tuple[Occluder, ...] = ()


def _free(
    table: TableModel, rng: np.random.Generator, taken: list[tuple[float, float]], margin: float
) -> tuple[float, float]:
    D = table.ball_diameter_mm
    for _ in range(1000):
        p = (float(rng.uniform(margin, table.length_mm - margin)), float(rng.uniform(margin, table.width_mm - margin)))
        if all(math.dist(p, q) > 1.5 * D for q in taken):
            return p
    raise ValueError("no free place on the table")


def _aim(
    table: TableModel, obj: tuple[float, float], pocket: str, cut_deg: float, dist: float, speed: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Cue position and velocity sending ``obj`` toward ``pocket`` with a cut of ``cut_deg``."""
    D = table.ball_diameter_mm
    target = np.array(table.pockets[pocket].mouth_center)
    o = np.array(obj)
    u = (target - o) / np.linalg.norm(target - o)
    ghost = o - u * D
    a = math.radians(cut_deg)
    w = np.array([u[0] * math.cos(a) - u[1] * math.sin(a), u[0] * math.sin(a) + u[1] * math.cos(a)])
    cue = ghost - w * dist
    return (float(cue[0]), float(cue[1])), (float(w[0] * speed), float(w[1] * speed))


def make_setup(table: TableModel, name: str, rng: np.random.Generator) -> ShotSetup:
    D, R = table.ball_diameter_mm, table.ball_radius_mm
    L, W = table.length_mm, table.width_mm
    m = 2 * D
    if name == "break":
        balls = dict(zip([str(i) for i in range(1, 16)], table.rack_positions(), strict=True))
        cue = (float(rng.uniform(L * 0.1, L * 0.22)), float(rng.uniform(W * 0.3, W * 0.7)))
        balls["cue"] = cue
        apex = np.array(table.spots["pyramid"]) + rng.normal(0, 8, 2)
        d = (apex - np.array(cue)) / np.linalg.norm(apex - np.array(cue))
        sp = float(rng.uniform(5000, 9500))
        return ShotSetup(name, balls, "cue", (float(d[0] * sp), float(d[1] * sp)))
    if name in ("straight_pot", "cut_pot", "occluded"):
        pocket = str(rng.choice(list(table.pockets)))
        pk = table.pockets[pocket]
        for _ in range(200):
            back = float(rng.uniform(250, 900))
            o_arr = np.array(pk.mouth_center) - np.array(pk.outward) * back + rng.normal(0, 60, 2)
            if not (m < o_arr[0] < L - m and m < o_arr[1] < W - m):
                continue
            cut = 0.0 if name == "straight_pot" else float(rng.uniform(-35, 35))
            cue, vel = _aim(
                table,
                (float(o_arr[0]), float(o_arr[1])),
                pocket,
                cut,
                float(rng.uniform(300, 900)),
                float(rng.uniform(1500, 3500)),
            )
            if m < cue[0] < L - m and m < cue[1] < W - m:
                pot_balls = {"cue": cue, "1": (float(o_arr[0]), float(o_arr[1]))}
                placed = list(pot_balls.values())
                for k in range(int(rng.integers(2, 6))):
                    p = _free(table, rng, placed, m)
                    placed.append(p)
                    pot_balls[str(k + 2)] = p
                occ: tuple[Occluder, ...] = ()
                if name == "occluded":
                    c = np.array(cue) + rng.normal(0, 150, 2)
                    occ = (Occluder(c[0] - 250, c[1] - 120, c[0] + 250, c[1] + 120, 0.0, float(rng.uniform(0.5, 1.0))),)
                return ShotSetup(name, pot_balls, "cue", vel, occ)
        raise ValueError("could not place a pot")
    if name == "bank":
        obj = _free(table, rng, [], m)
        cu = table.cushions[str(rng.choice(list(table.cushions)))]
        along = float(rng.uniform(0.3, 0.7)) * cu.length_mm
        hit = np.array(cu.point_at(along, R))
        mirror = np.array(obj) - 2 * np.array(cu.inward) * (cu.offset(obj) - R)  # obj seen in the cushion
        d = (hit - mirror) / np.linalg.norm(hit - mirror)
        far = hit - d * float(rng.uniform(400, 1200))
        cue = (float(np.clip(far[0], m, L - m)), float(np.clip(far[1], m, W - m)))
        d = (hit - np.array(cue)) / np.linalg.norm(hit - np.array(cue))
        sp = float(rng.uniform(1500, 3500))
        return ShotSetup(name, {"cue": cue, "1": obj}, "cue", (float(d[0] * sp), float(d[1] * sp)))
    if name == "frozen_pair":
        a = _free(table, rng, [], 3 * D)
        ang = float(rng.uniform(0, 2 * math.pi))
        b = (a[0] + D * math.cos(ang), a[1] + D * math.sin(ang))
        cue = _free(table, rng, [a, b], m)
        d = np.array(a) - np.array(cue)
        d = d / np.linalg.norm(d)
        sp = float(rng.uniform(1500, 4000))
        return ShotSetup(name, {"cue": cue, "1": a, "2": b}, "cue", (float(d[0] * sp), float(d[1] * sp)))
    if name == "slow":
        cue = _free(table, rng, [], m)
        obj = _free(table, rng, [cue], m)
        d = np.array(obj) - np.array(cue)
        d = d / np.linalg.norm(d)
        sp = float(rng.uniform(400, 900))
        return ShotSetup(name, {"cue": cue, "1": obj}, "cue", (float(d[0] * sp), float(d[1] * sp)))
    # random
    layout: dict[str, tuple[float, float]] = {}
    spots: list[tuple[float, float]] = []
    for k in range(int(rng.integers(4, 11))):
        p = _free(table, rng, spots, m)
        spots.append(p)
        layout["cue" if k == 0 else str(k)] = p
    tgt = np.array(layout["1"]) + rng.normal(0, 25, 2)
    d = (tgt - np.array(layout["cue"])) / np.linalg.norm(tgt - np.array(layout["cue"]))
    sp = float(rng.uniform(1000, 5000))
    return ShotSetup("random", layout, "cue", (float(d[0] * sp), float(d[1] * sp)))
