"""One shot as the rules see it: the camera events from ``shot_start`` to ``shot_end``, the positions at
both ends, the operator inputs that apply to it, and the table model for geometric predicates.

A :class:`Shot` is built by :class:`ShotBuilder` from the event stream and is immutable. ``events`` keeps
the order of the stream (which is time order); ``late`` holds pots of this shot that arrive after its
``shot_end`` (a hanging ball falling, 001 2.1.15). Ball positions are table millimetres (CONTRACT.md
section 1); a ball's position is its centre.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from calibration.table import TableModel
from tracking.events import Event

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
    """Collects the camera events of one shot and checks them against the balls on the table."""

    def __init__(self, start: Event, table: TableModel, index: int, early: bool = False) -> None:
        if start.type != "shot_start" or start.ball is None or start.positions is None:
            raise ShotInputError("a shot begins with shot_start")
        if start.ball not in start.positions:
            raise ShotInputError(f"struck ball '{start.ball}' is not on the table")
        self.start = start
        self.table = table
        self.index = index
        self.early = early
        self.events: list[Event] = []
        self._potted: set[str] = set()
        self._gone: set[str] = set()  # potted or off the table

    def _check_ball(self, ball: str) -> None:
        if ball not in (self.start.positions or {}):
            raise ShotInputError(f"ball '{ball}' is not on the table")
        if ball in self._gone:
            raise ShotInputError(f"ball '{ball}' already left the table in this shot")

    def add(self, ev: Event) -> None:
        if ev.type in ("shot_start", "shot_end"):
            raise ShotInputError(f"{ev.type} inside a shot")
        names = list(ev.balls or ()) + ([ev.ball] if ev.ball else [])
        if ev.type == "pot" and ev.ball in self._potted:
            raise ShotInputError(f"ball '{ev.ball}' is potted twice")
        for b in names:
            self._check_ball(b)
        if ev.type == "pot" and ev.ball:
            self._potted.add(ev.ball)
            self._gone.add(ev.ball)
        if ev.type == "off_table" and ev.ball:
            self._gone.add(ev.ball)
        self.events.append(ev)

    def finish(self, end: Event | None, inputs: Iterable[Event] = ()) -> Shot:
        """Close the shot at ``end`` (a shot_end), or, with ``end`` None, because the next stroke came
        first: then the end positions are those the shot had reached (unknown, so the start positions
        of the balls not potted stand in) and ``ended`` is False."""
        if end is not None:
            # A ball that left the table and bounced back is still "off" (001 2.1.13): drop it here.
            positions = {b: p for b, p in (end.positions or {}).items() if b not in self._gone or b in self._potted}
            for b in positions:
                if b in self._potted:
                    raise ShotInputError(f"ball '{b}' was potted but is listed at shot_end")
                if b not in (self.start.positions or {}):
                    raise ShotInputError(f"ball '{b}' at shot_end was not on the table")
        else:
            positions = {b: p for b, p in (self.start.positions or {}).items() if b not in self._gone}
        return Shot(
            index=self.index,
            struck=str(self.start.ball),
            start=_frozen(self.start.positions),
            end=_frozen(positions),
            events=tuple(self.events),
            t_start=float(self.start.t or 0.0),
            t_end=float(end.t if end is not None and end.t is not None else (self.start.t or 0.0)),
            inputs=tuple(inputs),
            table=self.table,
            ended=end is not None,
            early=self.early,
        )


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
    b = ShotBuilder(Event(type="shot_start", t=t_start, shot=index, ball=struck, positions=dict(start)), tbl, index)
    for e in events:
        b.add(e)
    gone = set(b._gone)
    end_pos = dict(end) if end is not None else {k: v for k, v in start.items() if k not in gone}
    return b.finish(Event(type="shot_end", t=t_end, shot=index, positions=end_pos), inputs)
