"""The rules engine as the service uses it: records in, verdict objects (CONTRACT.md section 4) out.

The engine lives in ``rules/``; this module is the one place that knows how it is called. A build without
the rules engine runs the service with no verdicts (``open_referee`` returns None and /state says so).

A refused operator input raises ValueError with the reason (the service answers 409). A shot that ends with
nothing placeable comes back as a stated-reason record (``judged`` false) instead of silence. Between shots
``placement_due`` gives the referee's own 2.1.5в warning when the cue ball in hand rests outside the house.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from calibration.contract import Event


class RefereeSession(Protocol):
    def feed(self, ev: Event) -> list[dict[str, Any]]:
        """Verdicts (new or amended) caused by this record, as CONTRACT.md section 4 objects."""
        ...

    def snapshot(self) -> dict[str, Any] | None:
        """The referee's own view of the frame of play, when it offers one."""
        ...

    def placement_due(self, positions: dict[str, tuple[float, float]] | None, t: float | None) -> Event | None:
        """Between shots, the tracker's positions now (None: unchanged): the warning record the referee
        gives itself (001 2.1.5в), to be recorded and fed like an operator's input, or None."""
        ...


def open_referee(game: str) -> RefereeSession | None:
    try:
        module = importlib.import_module("rules.referee")
    except ModuleNotFoundError as exc:
        if exc.name in ("rules.referee", "rules"):
            return None
        raise
    return _RulesReferee(module, game)


class _RulesReferee:
    def __init__(self, module: Any, game: str) -> None:
        self._ref = module.Referee(game)
        self._unjudged = getattr(importlib.import_module("rules.errors"), "UnjudgedShot", None)

    def feed(self, ev: Event) -> list[dict[str, Any]]:
        try:
            out = self._ref.feed(ev)
        except ValueError as exc:
            if self._unjudged is not None and isinstance(exc, self._unjudged):
                # A shot that ended with nothing placeable is not judged, and the stream says why: a record in
                # the verdict's shape, judged false, the state as it stands (the overlay keeps its score).
                return [self._ref.unjudged_record(exc.shot, exc.why)]
            reason = getattr(exc, "reason", None)
            if isinstance(reason, str):
                # The engine numbers the records it was fed ("line 28: ..."), which names a line of a JSON-lines
                # upload; an operator posted one record, so the reason alone is the answer.
                raise ValueError(reason) from None
            raise
        if out is None:
            return []
        if not isinstance(out, list | tuple):
            out = [out]
        return [v if isinstance(v, dict) else v.to_dict() for v in out]

    def placement_due(self, positions: dict[str, tuple[float, float]] | None, t: float | None) -> Event | None:
        """Between shots: the 001 2.1.5в warning the referee gives now that the cue ball in hand rests outside
        the (temporary) house (a ``placement_warning`` record to store and feed), or None."""
        due = getattr(self._ref, "placement_due", None)
        return due(positions, t) if due is not None else None

    def snapshot(self) -> dict[str, Any] | None:
        snap = getattr(self._ref, "snapshot", None)
        if snap is None:
            return None
        value = snap() if callable(snap) else snap
        if value is None:
            return None
        return value if isinstance(value, dict) else value.to_dict()
