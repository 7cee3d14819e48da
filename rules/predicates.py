"""Shared predicates of the general rules (001 section 2.1) over a :class:`~rules.shot.Shot`.

Plain functions, each answering one question the clauses ask, each citing its clause. Geometry comes
from the shot's :class:`~calibration.table.TableModel` (lines, halves, frozen balls, pocket zones), never
from literals. "After the first contact" means after the first ``contact`` event that involves the struck
ball (the cue ball hitting an object ball).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from calibration.contract import Event, jaw_pocket
from calibration.table import TableModel
from rules.shot import Point, Shot

LONG_CUSHIONS = ("left-house", "left-pyramid", "right-house", "right-pyramid")


# ---- contacts and cushions ----------------------------------------------------------------------------
def first_contact_index(shot: Shot, ball: str | None = None) -> int | None:
    """Index in ``shot.events`` of the first contact involving ``ball`` (default: the struck ball)."""
    b = ball or shot.struck
    for i, e in enumerate(shot.events):
        if e.type == "contact" and e.balls and b in e.balls:
            return i
    return None


def first_ball_hit(shot: Shot) -> str | None:
    """001 2.1.22(1): the first object ball the struck ball touched, or None."""
    i = first_contact_index(shot)
    if i is None:
        return None
    a, b = shot.events[i].balls or ("", "")
    return b if a == shot.struck else a


def cushion_segment(table: TableModel, ev: Event) -> str | None:
    """The cushion segment a ``cushion`` event touched; a jaw counts for the segment it continues
    (digest A6), chosen by the event position when the pocket has two jaws."""
    name = ev.cushion
    if name is None:
        return None
    jawed = jaw_pocket(name)
    if jawed is None:
        return name
    pocket = table.pockets[jawed]
    if ev.pos is None:
        return pocket.jaws[0].cushion
    return min(pocket.jaws, key=lambda j: j.distance(ev.pos)).cushion  # type: ignore[arg-type]


def side_of(segment: str) -> str:
    """The physical cushion a segment belongs to (the two halves of a long cushion are one side)."""
    return segment.split("-")[0] if segment in LONG_CUSHIONS else segment


def frozen_to_cushion_at_start(shot: Shot) -> dict[str, str]:
    """Balls frozen to a cushion at the stroke (digest A7: judged on the resting positions)."""
    out = {}
    for b, p in shot.start.items():
        c = shot.table.frozen_to_cushion(p)
        if c is not None:
            out[b] = c
    return out


def _own_cushion_touch(shot: Shot, ev: Event, frozen: dict[str, str]) -> bool:
    """[rec] A frozen ball's touch of its own cushion near where it rested is not a new touch."""
    b = ev.ball or ""
    if frozen.get(b) != cushion_segment(shot.table, ev) or ev.pos is None:
        return False
    return math.dist(ev.pos, shot.start[b]) <= shot.table.ball_diameter_mm


@dataclass(frozen=True)
class Touch:
    index: int  # position in shot.events
    ball: str  # the ball that reached the cushion
    cushion: str  # segment (or side, see cushion_identity)
    via_frozen: str | None = None  # the ball frozen to that cushion that was hit, if it was reached that way


def cushion_touches(shot: Shot, identity: str = "segment") -> list[Touch]:
    """001 2.1.11(2): cushion touches after the first contact, by whom, in order. Contacts with a ball
    that rests frozen to a cushion are listed as touches of that cushion ``via_frozen`` (whether they
    count is up to the safety test); a frozen ball's own touches of its cushion are dropped."""
    i0 = first_contact_index(shot)
    if i0 is None:
        return []
    frozen = frozen_to_cushion_at_start(shot)
    moved: set[str] = {shot.struck}
    out: list[Touch] = []

    def ident(seg: str) -> str:
        return side_of(seg) if identity == "side" else seg

    for i, e in enumerate(shot.events):
        if e.type == "contact" and e.balls:
            a, b = e.balls
            if i > i0:
                for hitter, target in ((a, b), (b, a)):
                    if target in frozen and target not in moved and hitter in moved:
                        out.append(Touch(i, hitter, ident(frozen[target]), via_frozen=target))
            moved.update((a, b))
        elif e.type == "cushion" and e.ball and i > i0:
            if _own_cushion_touch(shot, e, frozen):
                continue
            seg = cushion_segment(shot.table, e)
            if seg is not None:
                out.append(Touch(i, e.ball, ident(seg)))
    return out


def drives(shot: Shot, i_from: int, ball: str) -> set[str]:
    """Balls ``ball`` set moving (or struck) by contact from event ``i_from`` on, transitively."""
    chain = {ball}
    for e in shot.events[i_from:]:
        if e.type == "contact" and e.balls:
            a, b = e.balls
            if a in chain:
                chain.add(b)
            elif b in chain:
                chain.add(a)
    return chain


# ---- halves and lines ---------------------------------------------------------------------------------
def striker_half(shot: Shot) -> str:
    """001 2.1.6 / digest [rec]: the half the striker plays from, taken from the struck ball's first
    motion: moving toward +x means the cue points from the house half. Fallback: the half it lies in."""
    table = shot.table
    p0 = shot.start[shot.struck]
    for e in shot.events:
        names = (e.balls or ()) + ((e.ball,) if e.ball else ())
        if shot.struck not in names:
            continue
        if e.type == "line_cross" and e.direction in ("+x", "-x"):
            return "house" if e.direction == "+x" else "pyramid"
        if e.pos is not None and abs(e.pos[0] - p0[0]) > 1.0:
            return "house" if e.pos[0] > p0[0] else "pyramid"
    return "house" if p0[0] < table.lines["center"].value_mm else "pyramid"


def crossed_center(shot: Shot, ball: str, half: str | None = None) -> bool:
    """001 2.1.11(1), 2.1.6: did ``ball`` cross the centre line after the stroke? A ball on the line
    belongs to the half away from the striker, so a ball starting on it crosses only by entering the
    striker's half. Uses the line_cross events and, as a second witness, the start and end halves."""
    table = shot.table
    sh = half or striker_half(shot)
    p0 = shot.start.get(ball)
    if p0 is None:
        return False
    h0 = table.half(p0, sh)
    for e in shot.events:
        if e.type == "line_cross" and e.ball == ball and e.line == "center":
            entering = "pyramid" if e.direction == "+x" else "house"
            if not table.on_line(p0, "center") or entering == sh:
                return True
    p1 = shot.end.get(ball)
    return p1 is not None and table.half(p1, sh) != h0


def crossed_into(shot: Shot, ball: str) -> str | None:
    """The half a ball crossed into last (from its line_cross events or end position), or None."""
    last = None
    for e in shot.events:
        if e.type == "line_cross" and e.ball == ball and e.line == "center":
            last = "pyramid" if e.direction == "+x" else "house"
    if last is None and crossed_center(shot, ball):
        p1 = shot.end.get(ball)
        if p1 is not None:
            last = shot.table.half(p1, striker_half(shot))
    return last


# ---- safety (001 2.1.11, 2.7.6) -------------------------------------------------------------------------
@dataclass(frozen=True)
class SafetyResult:
    ok: bool
    clause: str  # the clause that made it legal, or the one that failed

    def __bool__(self) -> bool:
        return self.ok


def _two_cushions_one_ball(shot: Shot, touches: list[Touch]) -> bool:
    """001 2.1.11(2а) / 2.7.6(3): a ball rebounds from one cushion and then touches a second one, or
    drives another ball to it. Reaching a ball frozen to a cushion counts only after a first rebound."""
    for t1 in touches:
        if t1.via_frozen is not None:
            continue
        chain = drives(shot, t1.index + 1, t1.ball)
        for t2 in touches:
            if t2.index > t1.index and t2.cushion != t1.cushion and t2.ball in chain:
                return True
    return False


def _two_cushions_two_balls(touches: list[Touch], struck: str, first_object: str | None) -> bool:
    """001 2.1.11(2б): two cushions touched by different balls. The cue ball bouncing off a ball frozen
    to a cushion on its first contact is no touch (``cushion_touches`` starts after the first contact,
    so that case is already absent); later contacts with frozen balls count."""
    del struck, first_object
    seen: dict[str, set[str]] = {}
    for t in touches:
        seen.setdefault(t.ball, set()).add(t.cushion)
    balls = list(seen)
    for i, a in enumerate(balls):
        for b in balls[i + 1 :]:
            if any(ca != cb for ca in seen[a] for cb in seen[b]):
                return True
    return False


def safety_2_1_11(shot: Shot, identity: str = "segment") -> SafetyResult:
    """001 2.1.11 for the fast games: (1) any ball crosses the centre line, or (2) two cushions are
    touched (2а by one ball after a rebound, 2б by different balls) as a result of the cue ball striking
    an object ball, with the frozen-ball exceptions."""
    if first_contact_index(shot) is None:
        return SafetyResult(False, "001 2.1.22(1)")
    half = striker_half(shot)
    if any(crossed_center(shot, b, half) for b in shot.moved() if b in shot.start):
        return SafetyResult(True, "001 2.1.11(1)")
    touches = cushion_touches(shot, identity)
    if _two_cushions_one_ball(shot, touches):
        return SafetyResult(True, "001 2.1.11(2а)")
    if _two_cushions_two_balls(touches, shot.struck, first_ball_hit(shot)):
        return SafetyResult(True, "001 2.1.11(2б)")
    return SafetyResult(False, "001 2.1.11")


def short_cushion_of(half: str) -> str:
    return "house" if half == "house" else "pyramid"


def safety_americanka(shot: Shot, identity: str = "segment") -> SafetyResult:
    """001 2.7.6: (1) a ball crosses the centre line and touches the short cushion of the half it crossed
    into (or a ball frozen to it, or drives a ball to it); (2) the cue ball and an object ball both cross
    the centre line; (3) as 2.1.11(2а)."""
    if first_contact_index(shot) is None:
        return SafetyResult(False, "001 2.1.22(1)")
    half = striker_half(shot)
    crossed = [b for b in shot.moved() if b in shot.start and crossed_center(shot, b, half)]
    all_touches = cushion_touches(shot, "segment")
    for b in crossed:
        into = crossed_into(shot, b)
        if into is None:
            continue
        target = short_cushion_of(into)
        chain = drives(shot, 0, b)
        if any(t.cushion == target and t.ball in chain for t in all_touches):
            return SafetyResult(True, "001 2.7.6(1)")
    if shot.struck in crossed and any(b != shot.struck for b in crossed):
        return SafetyResult(True, "001 2.7.6(2)")
    touches = all_touches if identity == "segment" else cushion_touches(shot, identity)
    if _two_cushions_one_ball(shot, touches):
        return SafetyResult(True, "001 2.7.6(3)")
    return SafetyResult(False, "001 2.7.6")


# ---- pocket-zone exception (001 2.1.12) ------------------------------------------------------------------
def _heads_into(table: TableModel, pocket: str, frm: Point, to: Point) -> bool:
    """[rec] sufficient angle: the ray from ``frm`` through ``to`` passes through the pocket mouth."""
    pk = table.pockets[pocket]
    dx, dy = to[0] - frm[0], to[1] - frm[1]
    n = math.hypot(dx, dy)
    if n < 1e-6:
        return True
    ux, uy = dx / n, dy / n
    mx, my = pk.mouth_center[0] - to[0], pk.mouth_center[1] - to[1]
    ahead = mx * ux + my * uy
    if ahead < -table.ball_radius_mm:
        return False
    miss = abs(mx * uy - my * ux)
    return miss <= pk.mouth_width_mm / 2 + table.ball_radius_mm


def in_blind_zone(table: TableModel, pocket: str, p: Point) -> bool:
    """Digest [rec] for 001 2.1.12's blind zone: for a middle pocket, the passive triangles on its side.
    (Corner pockets have none here.)"""
    if table.pockets[pocket].kind != "middle":
        return False
    zone = table.passive_zone_at(p)
    return zone is not None and table.passive_zone_pocket(zone) == pocket


def pocket_zone_exception(
    shot: Shot, balls: set[str] | None = None, pockets: set[str] | None = None
) -> tuple[str, str] | None:
    """001 2.1.12: the (ball, pocket) for which a non-scoring shot that failed the safety is still no
    foul: the played ball touched a jaw, touched the cushion within one diameter of a jaw, or stopped
    within two diameters of the mouth in the result sector, with a sufficient angle, and was not played
    from the pocket's blind zone. ``balls``/``pockets`` narrow it to the called ball and pocket."""
    table = shot.table
    played = balls if balls is not None else shot.moved()
    last: dict[str, Point] = {b: p for b, p in shot.start.items()}

    def allowed(b: str, pk: str) -> bool:
        return (pockets is None or pk in pockets) and not in_blind_zone(table, pk, shot.start.get(b, (0.0, 0.0)))

    for e in shot.events:
        if e.type == "cushion" and e.ball in played and e.pos is not None and e.cushion:
            b = e.ball
            frm = last.get(b, e.pos)
            pk = jaw_pocket(e.cushion)
            if pk is not None:
                if allowed(b, pk) and _heads_into(table, pk, frm, e.pos):
                    return b, pk
            else:
                pk2 = table.cushion_pocket_zone(e.cushion, e.pos)
                if pk2 is not None and allowed(b, pk2) and _heads_into(table, pk2, frm, e.pos):
                    return b, pk2
        if e.pos is not None:
            for b in (e.balls or ()) + ((e.ball,) if e.ball else ()):
                last[b] = e.pos
    for b in played:
        p1 = shot.end.get(b)
        if p1 is None:
            continue
        pk3 = table.in_result_sector(p1)
        if pk3 is not None and allowed(b, pk3):
            return b, pk3
    return None


# ---- rolling a cushion-frozen ball (001 2.1.10) -------------------------------------------------------------
def rolled_frozen_ball(shot: Shot, ball: str) -> bool:
    """001 2.1.10: ``ball`` rested frozen to a cushion, was driven along it into a pocket at that cushion's
    end and was rolled there rather than played on impact. [rec] kinematic stand-in from events: it
    touched no other cushion on the way and the ball driving it touched it more than once. A ball that
    counts as "in" a corner pocket (2.1.10а) is never "rolled"."""
    table = shot.table
    p0 = shot.start.get(ball)
    if p0 is None:
        return False
    seg = table.frozen_to_cushion(p0)
    if seg is None or table.frozen_ball_in_pocket(p0) is not None:
        return False
    pot = next((e for e in shot.pots if e.ball == ball), None)
    if pot is None or pot.pocket not in table.cushions[seg].pockets:
        return False
    other_cushions = [
        e for e in shot.of_type("cushion") if e.ball == ball and cushion_segment(table, e) not in (seg, None)
        and jaw_pocket(e.cushion) is None
    ]  # fmt: skip
    if other_cushions:
        return False
    hitters: dict[str, int] = {}
    for e in shot.contacts:
        if e.balls and ball in e.balls:
            other = e.balls[0] if e.balls[1] == ball else e.balls[1]
            hitters[other] = hitters.get(other, 0) + 1
    return any(n >= 2 for n in hitters.values())


# ---- frozen cue ball (001 2.1.2, 2.1.22(7)) -------------------------------------------------------------------
def frozen_cue_angle_ok(shot: Shot, min_angle_deg: float = 45.0) -> bool:
    """001 2.1.2: a cue ball frozen to an object ball must be played at 45 degrees or more from the line
    of centres, or so that it comes back or goes sideways away. Judged (digest G3) from the cue ball's
    displacement to its next seen position after the first contact (or its end position)."""
    table = shot.table
    cue = shot.struck
    c0 = shot.start[cue]
    target = first_ball_hit(shot)
    if target is None or target not in shot.start or not table.frozen_together(c0, shot.start[target]):
        return True
    o0 = shot.start[target]
    i0 = first_contact_index(shot) or 0
    nxt: Point | None = None
    for e in shot.events[i0 + 1 :]:
        if e.pos is not None and ((e.ball == cue) or (e.balls and cue in e.balls)):
            nxt = e.pos
            break
    if nxt is None:
        nxt = shot.end.get(cue)
    if nxt is None:
        return True  # potted straight away: the pocket verdict decides
    ux, uy = o0[0] - c0[0], o0[1] - c0[1]
    dx, dy = nxt[0] - c0[0], nxt[1] - c0[1]
    nu, nd = math.hypot(ux, uy), math.hypot(dx, dy)
    if nd < 1.0:
        return True
    cos = (ux * dx + uy * dy) / (nu * nd)
    return cos <= math.cos(math.radians(min_angle_deg)) + 1e-9


# ---- hanging balls (001 2.1.15) ---------------------------------------------------------------------------
def late_pot_counts(shot: Shot, pot: Event, grace_s: float) -> bool:
    """001 2.1.15: a ball resting in the jaws that drops after the shot ended counts only when it
    drops within the grace time of the apparent stop (it kept spinning); later it is put back."""
    t = pot.t if pot.t is not None else math.inf
    return t - shot.t_end <= grace_s


def aimed_ball_dropped_first(shot: Shot) -> str | None:
    """001 2.1.15 (last paragraph): an object ball hanging in the jaws fell before the struck ball reached
    it: the ball is put back and the shot replayed, no penalty."""
    i0 = first_contact_index(shot)
    for i, e in enumerate(shot.events):
        if i0 is not None and i >= i0:
            break
        if e.type == "pot" and e.ball and e.ball != shot.struck:
            p0 = shot.start.get(e.ball)
            if p0 is not None and shot.table.in_pocket_mouth(p0) is not None and e.ball not in _touched_before(shot, i):
                return e.ball
    return None


def _touched_before(shot: Shot, i: int) -> set[str]:
    out: set[str] = set()
    for e in shot.events[:i]:
        if e.type == "contact" and e.balls:
            out.update(e.balls)
    return out


def touched_balls(events: Iterable[Event]) -> tuple[list[str], list[str]]:
    """The balls the camera saw move with no ball contact (``disturbed``): those it is sure of, and those only
    flagged ``review`` (its own reading is uncertain: a ball's centre read on its lit top, then on its rim, or a
    far end of the table where a pixel spans centimetres). A penalty rests on the first alone."""
    sure = [str(e.ball) for e in events if e.type == "disturbed" and e.ball and not e.review]
    unsure = [str(e.ball) for e in events if e.type == "disturbed" and e.ball and e.review]
    return list(dict.fromkeys(sure)), [b for b in dict.fromkeys(unsure) if b not in sure]
