"""What happened in one Cluster shot, read from its camera events: the facts the rules of 000 3.6-4.1 ask
about, computed once and frozen.

The events of a shot are taken in time order. From them:

- the cue ball (the struck ball, ``shot_start.ball``; 000 2.2 "биток") and the first object ball (the first
  ball it touched; "прицельный шар");
- the causal past of an event (digest 4.4 "taking part"): the balls whose contacts could have influenced a
  ball before a moment, found by walking the contacts backward in time. The balls that took part in a pot
  are the causal past of the pot; contacts after the pot do not count;
- forward reach (000 3.7 "directly or through third balls"): the balls a ball touched after it was moving,
  directly or through balls it set moving or deflected;
- attack-zone entries (000 2.1/2.2/3.6а) with the passive-attack conditions of 000 2.2 (digest C3/C4);
- the safety conditions of 000 3.8: distinct cushion segments per ball (a jaw counts for its segment; a
  ball frozen to a cushion at the start does not touch that cushion by being pushed off it) and crossings
  of the middle line by the centre;
- clusters at the start (000 2.2, digest C1) and which of them were broken (motion passed to two or more
  of their balls).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from calibration.contract import Event
from calibration.table import Point, TableModel
from rules.cluster import geometry as geo
from rules.predicates import touched_balls

# A ball counts as moved when its centre ends this far from where it started (tracker noise is below it).
DEFAULT_MOVE_TOLERANCE_MM = 5.0


@dataclass(frozen=True)
class ZoneEntry:
    """A ball reaching a pocket's attack zone (000 2.2 "попадание в зону атаки лузы").

    ``index`` is the event index of the first touch in the zone (or of the shot's end for a ball that came
    to rest in the mouth without touching a jaw). ``passive`` names the 000 2.2 condition that makes the
    attack passive: ``"i"`` (corner zone reached after touching an adjacent cushion), ``"ii"`` (no touch
    of the second adjacent cushion afterwards), ``"iii"`` (a middle pocket attacked by a struck ball from
    the passive zone); None when the entry is not passive."""

    ball: str
    pocket: str
    index: int
    passive: str | None


@dataclass(frozen=True)
class Pot:
    ball: str
    pocket: str
    index: int


@dataclass(frozen=True)
class ShotFacts:
    cue: str
    first_object: str | None
    events: tuple[Event, ...]
    start: Mapping[str, Point]
    end: Mapping[str, Point]
    pots: tuple[Pot, ...]
    off_table: tuple[str, ...]
    disturbed: tuple[str, ...]
    moved: frozenset[str]
    clusters: tuple[frozenset[str], ...]
    broken: tuple[frozenset[str], ...]
    entries: tuple[ZoneEntry, ...]
    cushions: Mapping[str, frozenset[str]]
    crossed: frozenset[str]
    _contacts: tuple[tuple[int, str, str], ...] = field(repr=False, default=())

    # ---- causality --------------------------------------------------------------------------------------
    def past(self, ball: str, index: int) -> frozenset[str]:
        """The balls that could have influenced ``ball`` before event ``index``: ``ball`` itself and,
        walking the contacts backward, every ball that touched a member before the member's own link
        (a ball that deflected another influenced it as much as one that drove it)."""
        join = {ball: index}
        for i, a, b in reversed(self._contacts):
            if i >= index:
                continue
            if join.get(a, -1) > i and join.get(b, -1) < i:
                join[b] = i
            elif join.get(b, -1) > i and join.get(a, -1) < i:
                join[a] = i
        return frozenset(join)

    def reaches(self, source: str, target: str) -> bool:
        """000 3.7: ``source`` touched ``target`` directly or through third balls. A direct touch is any
        contact of the two; through third balls means ``source`` drove a ball (it was the faster ball of
        the contact, CONTRACT.md section 3) that touched ``target`` or drove another that did, and so on.
        A ball that merely hit ``source`` is not driven by it."""
        if source == target:
            return False
        members = {source}
        for _, a, b in self._contacts:
            if target in (a, b) and (a in members or b in members):
                return True
            if a in members:
                members.add(b)
        return False

    def pot_participants(self, pot: Pot) -> frozenset[str]:
        """Digest 4.4: the balls that took part in a pot, the cue ball and the first object ball always
        among them (the attack is the cue ball's hit on the object ball, 000 3.6а)."""
        base = {self.cue} | ({self.first_object} if self.first_object else set())
        return self.past(pot.ball, pot.index) | base

    def entry_participants(self, entry: ZoneEntry) -> frozenset[str]:
        base = {self.cue} | ({self.first_object} if self.first_object else set())
        return self.past(entry.ball, entry.index) | base

    @property
    def potted(self) -> tuple[str, ...]:
        return tuple(p.ball for p in self.pots)

    def two_cushion_balls(self) -> frozenset[str]:
        return frozenset(b for b, segs in self.cushions.items() if len(segs) >= 2)

    @property
    def safety_made(self) -> bool:
        """000 3.8: the cue ball hit an object ball, and one ball touched two cushions while another (or the
        same) crossed the middle line; third balls count (3.8б), order does not matter (3.8в)."""
        return self.first_object is not None and bool(self.two_cushion_balls()) and bool(self.crossed)


def analyse(
    table: TableModel,
    cue: str,
    events: Sequence[Event],
    start: Mapping[str, Point],
    end: Mapping[str, Point],
    move_tolerance_mm: float = DEFAULT_MOVE_TOLERANCE_MM,
) -> ShotFacts:
    """The facts of one shot. ``events`` are the shot's camera events between ``shot_start`` and
    ``shot_end`` (either may be included; they are skipped), in time order."""
    evs = tuple(e for e in events if e.type not in ("shot_start", "shot_end") and e.is_camera_event)
    contacts = tuple(
        (i, e.balls[0], e.balls[1]) for i, e in enumerate(evs) if e.type == "contact" and e.balls is not None
    )
    first_object = None
    for _, a, b in contacts:
        if cue in (a, b):
            first_object = b if a == cue else a
            break
    pots = tuple(Pot(e.ball, e.pocket, i) for i, e in enumerate(evs) if e.type == "pot" and e.ball and e.pocket)
    off = tuple(e.ball for e in evs if e.type == "off_table" and e.ball)
    disturbed = tuple(touched_balls(evs)[0])  # a penalty rests on the camera's sure readings alone

    moved: set[str] = {cue}
    for _, a, b in contacts:
        moved |= {a, b}
    moved |= {p.ball for p in pots} | set(off)
    for b, p in start.items():
        q = end.get(b)
        if q is not None and math.dist(p, q) > move_tolerance_mm:
            moved.add(b)

    found = tuple(geo.clusters(start, table))
    broken = tuple(geo.broken_clusters(found, moved, struck=cue))

    cushions = _cushions_by_ball(table, evs, start)
    crossed = _crossed(table, cue, evs, start)
    entries = _entries(table, cue, evs, start, end, frozenset(moved))
    return ShotFacts(
        cue=cue,
        first_object=first_object,
        events=evs,
        start=dict(start),
        end=dict(end),
        pots=pots,
        off_table=off,
        disturbed=disturbed,
        moved=frozenset(moved),
        clusters=found,
        broken=broken,
        entries=entries,
        cushions=cushions,
        crossed=crossed,
        _contacts=contacts,
    )


def _cushions_by_ball(table: TableModel, evs: Sequence[Event], start: Mapping[str, Point]) -> dict[str, frozenset[str]]:
    """Distinct cushion segments each ball touched (000 3.8, digest A6). A ball frozen to a cushion at the
    start is not credited with that cushion by its first touch of it near where it lay (digest G11: it
    has to move away first)."""
    out: dict[str, set[str]] = {}
    seen_cushion: set[str] = set()
    D = table.ball_diameter_mm
    for e in evs:
        if e.type != "cushion" or e.ball is None or e.cushion is None or e.pos is None:
            continue
        seg = geo.touch_segment(table, e.cushion, e.pos)
        first = e.ball not in seen_cushion
        seen_cushion.add(e.ball)
        p0 = start.get(e.ball)
        if first and p0 is not None and table.frozen_to_cushion(p0) == seg and math.dist(p0, e.pos) < 2 * D:
            continue
        out.setdefault(e.ball, set()).add(seg)
    return {b: frozenset(s) for b, s in out.items()}


def _crossed(table: TableModel, cue: str, evs: Sequence[Event], start: Mapping[str, Point]) -> frozenset[str]:
    dirs: dict[str, list[str]] = {}
    for e in evs:
        if e.type == "line_cross" and e.line == "center" and e.ball and e.direction:
            dirs.setdefault(e.ball, []).append(e.direction)
    cue_start = start.get(cue, (0.0, 0.0))
    cue_dirs = dirs.get(cue, [])
    striker = geo.striker_half(table, cue_start, cue_dirs[0] if cue_dirs else None)
    out = set()
    for b, ds in dirs.items():
        p0 = start.get(b)
        if p0 is None or geo.crossed_center(table, p0, ds, striker):
            out.add(b)
    return frozenset(out)


def _entries(
    table: TableModel,
    cue: str,
    evs: Sequence[Event],
    start: Mapping[str, Point],
    end: Mapping[str, Point],
    moved: frozenset[str],
) -> tuple[ZoneEntry, ...]:
    """Each ball's first entry into each pocket's attack zone, with the 000 2.2 passive conditions."""
    touches: dict[str, list[tuple[int, str, geo.ZoneTouch | None]]] = {}
    for i, e in enumerate(evs):
        if e.type == "cushion" and e.ball and e.cushion and e.pos is not None:
            seg = geo.touch_segment(table, e.cushion, e.pos)
            touches.setdefault(e.ball, []).append((i, seg, geo.zone_touch(table, e.cushion, e.pos)))
    out: list[ZoneEntry] = []
    for ball, seq in touches.items():
        done: set[str] = set()
        for k, (i, _seg, zt) in enumerate(seq):
            if zt is None or zt.pocket in done:
                continue
            done.add(zt.pocket)
            out.append(ZoneEntry(ball, zt.pocket, i, _passive(table, ball, cue, zt, seq[:k], seq[k + 1 :], start, end)))
    # A ball that moved and came to rest in a mouth without a recorded jaw touch entered that pocket's zone.
    n = len(evs)
    for ball, p in sorted(end.items()):
        pocket = geo.in_mouth_zone(table, p) if ball in moved else None
        if pocket is None or any(x.ball == ball and x.pocket == pocket for x in out):
            continue
        passive = "iii" if _middle_from_passive(table, ball, cue, pocket, start) else None
        out.append(ZoneEntry(ball, pocket, n, passive))
    return tuple(sorted(out, key=lambda x: (x.index, x.ball, x.pocket)))


def _middle_from_passive(table: TableModel, ball: str, cue: str, pocket: str, start: Mapping[str, Point]) -> bool:
    """000 2.2 (iii), digest C4: a struck ball (not the cue ball: a "свояк" is exempt) attacking a middle
    pocket from that pocket's passive zone, judged by where it lay when the shot began."""
    if geo.is_corner(table, pocket) or ball == cue or ball not in start:
        return False
    return geo.in_passive_zone_of(table, start[ball], pocket)


def _passive(
    table: TableModel,
    ball: str,
    cue: str,
    zt: geo.ZoneTouch,
    before: Sequence[tuple[int, str, geo.ZoneTouch | None]],
    after: Sequence[tuple[int, str, geo.ZoneTouch | None]],
    start: Mapping[str, Point],
    end: Mapping[str, Point],
) -> str | None:
    if not geo.is_corner(table, zt.pocket):
        return "iii" if _middle_from_passive(table, ball, cue, zt.pocket, start) else None
    adjacent = geo.adjacent_cushions(table, zt.pocket)
    # (i) the zone was reached after touching a cushion adjacent to the pocket
    if any(seg in adjacent for _, seg, _ in before):
        return "i"
    # (ii) after reaching the zone, no touch of the pocket's second adjacent cushion (digest C3: anywhere
    # on it, jaw included), unless the ball went on past the mouth line
    second = adjacent[0] if adjacent[1] == zt.cushion else adjacent[1]
    if any(seg == second for _, seg, _ in after):
        return None
    p_end = end.get(ball)
    if p_end is not None and geo.past_mouth(table, zt.pocket, p_end):
        return None
    return "ii"
