"""One shot as the rules see it: the camera events from ``shot_start`` to ``shot_end``, the positions at
both ends, the operator inputs that apply to it, and the table model for geometric predicates.

A :class:`Shot` is built by :class:`ShotBuilder` from the event stream and is immutable. ``events`` keeps
the order of the stream (which is time order); ``late`` holds pots of this shot that arrive after its
``shot_end`` (a hanging ball falling, 001 2.1.15). Ball positions are table millimetres (CONTRACT.md
section 1); a ball's position is its centre.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from calibration.contract import Event
from calibration.table import TableModel

Point = tuple[float, float]


class ShotInputError(ValueError):
    """An event that cannot belong to the shot being built (names the reason; the caller adds the line)."""


def _frozen(d: Mapping[str, Point] | None) -> Mapping[str, Point]:
    return MappingProxyType({k: (float(v[0]), float(v[1])) for k, v in (d or {}).items()})


@dataclass(frozen=True)
class Shot:
    index: int
    struck: str  # the ball set in motion by the tip (shot_start.ball)
    start: Mapping[str, Point]  # every ball on the table just before the stroke
    end: Mapping[str, Point]  # every ball at rest on the table at shot_end
    events: tuple[Event, ...]  # camera events between shot_start and shot_end, in order
    t_start: float = 0.0
    t_end: float = 0.0
    inputs: tuple[Event, ...] = ()  # operator inputs for this shot (calls, manual fouls, third balls...)
    late: tuple[Event, ...] = ()  # pots of this shot after shot_end (hanging balls)
    table: TableModel = field(default_factory=TableModel)
    ended: bool = True  # False when the next stroke came before this shot's end
    early: bool = False  # this stroke came before the previous shot ended (001 2.1.22(3))
    unplaced: tuple[str, ...] = ()  # why records of the shot were left out of the judgement (for review)
    records: tuple[Event, ...] = ()  # every camera record of the shot in stream order, placed or not
    end_record: Event | None = None  # the shot_end as it came

    # ---- simple views -------------------------------------------------------------------------------
    def of_type(self, *types: str) -> list[Event]:
        return [e for e in self.events if e.type in types]

    @property
    def pots(self) -> list[Event]:
        """Pots during the shot (not the late ones), in order."""
        return self.of_type("pot")

    @property
    def potted(self) -> list[str]:
        return [e.ball for e in self.pots if e.ball is not None]

    @property
    def off_table(self) -> list[str]:
        return [e.ball for e in self.of_type("off_table") if e.ball is not None]

    @property
    def contacts(self) -> list[Event]:
        return self.of_type("contact")

    def manual_fouls(self) -> list[str]:
        return [e.code for e in self.inputs if e.type == "manual_foul" and e.code is not None]

    def inputs_of(self, type_: str) -> list[Event]:
        return [e for e in self.inputs if e.type == type_]

    def moved(self) -> set[str]:
        """Balls seen moving: the struck ball and every ball named by an event."""
        out = {self.struck}
        for e in self.events:
            if e.ball:
                out.add(e.ball)
            if e.balls:
                out.update(e.balls)
        return out

    def with_inputs(self, inputs: Iterable[Event]) -> Shot:
        return replace(self, inputs=tuple(inputs))

    def with_late(self, late: Iterable[Event]) -> Shot:
        return replace(self, late=tuple(late))


class ShotBuilder:
    """Collects the camera events of one shot and checks them against the balls on the table.

    A record the shot cannot place (a ball not on the table at the stroke, one already gone, a pot named
    twice, a record numbered for another shot) is kept aside in ``unplaced`` with the reason; the shot is
    judged on the rest and its verdict flagged for review. ``records`` keeps every record in stream order,
    placed or not, so the shot can be built again after an operator's ``rename`` (:func:`rebuild_shot`).
    """

    def __init__(
        self, start: Event, table: TableModel, index: int, early: bool = False, check_numbers: bool = True
    ) -> None:
        if start.type != "shot_start" or start.ball is None or start.positions is None:
            raise ShotInputError("a shot begins with shot_start")
        if start.ball not in start.positions:
            raise ShotInputError(f"struck ball '{start.ball}' is not on the table")
        self.start = start
        self.table = table
        self.index = index
        self.early = early
        self.check_numbers = check_numbers
        self.events: list[Event] = []
        self.records: list[Event] = []
        self.unplaced: list[tuple[Event, str]] = []
        self._potted: set[str] = set()
        self._gone: set[str] = set()  # potted or off the table

    def copy(self) -> ShotBuilder:
        """An independent copy (the referee keeps one to put back when a record is refused)."""
        twin = copy.copy(self)
        twin.events = list(self.events)
        twin.records = list(self.records)
        twin.unplaced = list(self.unplaced)
        twin._potted = set(self._potted)
        twin._gone = set(self._gone)
        return twin

    def _problem(self, ev: Event) -> str | None:
        """Why ``ev`` cannot be placed in this shot, or None."""
        if self.check_numbers and ev.shot is not None and ev.shot != self.index:
            return f"{ev.type} numbered for shot {ev.shot} came during shot {self.index}"
        if ev.type == "pot" and ev.ball in self._potted:
            return f"ball '{ev.ball}' is potted twice"
        for b in list(ev.balls or ()) + ([ev.ball] if ev.ball else []):
            if b not in (self.start.positions or {}):
                return f"ball '{b}' is not on the table"
            if b in self._gone:
                return f"ball '{b}' already left the table in this shot"
        return None

    def add(self, ev: Event) -> None:
        if ev.type in ("shot_start", "shot_end"):
            raise ShotInputError(f"{ev.type} inside a shot")
        self.records.append(ev)
        problem = self._problem(ev)
        if problem is not None:
            where = f"frame {ev.frame}" if ev.frame is not None else f"{ev.t:g} s"
            self.unplaced.append((ev, f"{problem} ({ev.type} at {where})"))
            return
        if ev.type == "pot" and ev.ball:
            self._potted.add(ev.ball)
            self._gone.add(ev.ball)
        if ev.type == "off_table" and ev.ball:
            self._gone.add(ev.ball)
        self.events.append(ev)

    def finish(self, end: Event | None, inputs: Iterable[Event] = ()) -> Shot:
        """Close the shot at ``end`` (a shot_end), or, with ``end`` None, because the next stroke came
        first: then the end positions are those the shot had reached (unknown, so the start positions
        of the balls not potted stand in) and ``ended`` is False. End positions that contradict the shot (a
        potted ball listed, a ball that was not on the table) are left out with the reason; a ball that
        vanished with no pot or off-table record is kept where it stood, for review."""
        start = self.start.positions or {}
        reasons = [r for _, r in self.unplaced]
        if end is not None:
            if self.check_numbers and end.shot is not None and end.shot != self.index:
                reasons.append(f"shot_end numbered for shot {end.shot} closed shot {self.index}")
            positions: dict[str, Point] = {}
            for b, p in (end.positions or {}).items():
                if b in self._potted:
                    reasons.append(f"ball '{b}' was potted but is listed at shot_end")
                elif b not in start:
                    reasons.append(f"ball '{b}' at shot_end was not on the table at the stroke")
                elif b not in self._gone:  # a ball off the table that bounced back is still off (2.1.13)
                    positions[b] = p
            for b, p in start.items():
                if b not in positions and b not in self._gone:
                    reasons.append(
                        f"ball '{b}' is missing at shot_end with no pot or off-table record: kept where it stood"
                    )
                    positions[b] = p
        else:
            positions = {b: p for b, p in start.items() if b not in self._gone}
        return Shot(
            index=self.index,
            struck=str(self.start.ball),
            start=_frozen(start),
            end=_frozen(positions),
            events=tuple(self.events),
            t_start=float(self.start.t or 0.0),
            t_end=float(end.t if end is not None and end.t is not None else (self.start.t or 0.0)),
            inputs=tuple(inputs),
            table=self.table,
            ended=end is not None,
            early=self.early,
            unplaced=tuple(reasons),
            records=tuple(self.records),
            end_record=end,
        )


def rebuild_shot(shot: Shot, relabel: Callable[[Event], Event]) -> Shot:
    """``shot`` built again from its records with ``relabel`` applied to each (an operator's rename), so
    records that named an unknown ball may now be placed. Inputs and late pots are relabelled too."""
    start = Event(type="shot_start", t=shot.t_start, shot=shot.index, ball=shot.struck, positions=dict(shot.start))
    b = ShotBuilder(relabel(start), shot.table, shot.index, early=shot.early)
    for e in shot.records:
        b.add(relabel(e))
    end = relabel(shot.end_record) if shot.end_record is not None else None
    new = b.finish(end, [relabel(e) for e in shot.inputs])
    return replace(new, late=tuple(relabel(e) for e in shot.late))


def make_shot(
    index: int,
    struck: str,
    start: Mapping[str, Point],
    events: Iterable[Event] = (),
    end: Mapping[str, Point] | None = None,
    inputs: Iterable[Event] = (),
    table: TableModel | None = None,
    t_start: float = 0.0,
    t_end: float = 1.0,
) -> Shot:
    """A shot built directly (tests, generators): events are checked as the builder checks them."""
    tbl = table or TableModel()
    start_ev = Event(type="shot_start", t=t_start, shot=index, ball=struck, positions=dict(start))
    b = ShotBuilder(start_ev, tbl, index, check_numbers=False)
    for e in events:
        b.add(e)
        if b.unplaced:
            raise ShotInputError(b.unplaced[0][1])
    gone = set(b._gone)
    end_pos = dict(end) if end is not None else {k: v for k, v in start.items() if k not in gone}
    return b.finish(Event(type="shot_end", t=t_end, shot=index, positions=end_pos), inputs)
