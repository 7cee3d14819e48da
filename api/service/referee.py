"""The rules engine as the service uses it: records in, verdict objects (CONTRACT.md section 4) out.

The engine lives in ``rules/``; this module is the one place that knows how it is called. A build without
the rules engine runs the service with no verdicts (``open_referee`` returns None and /state says so).
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from tracking.events import Event


class RefereeSession(Protocol):
    def feed(self, ev: Event) -> list[dict[str, Any]]:
        """Verdicts (new or amended) caused by this record, as CONTRACT.md section 4 objects."""
        ...

    def snapshot(self) -> dict[str, Any] | None:
        """The referee's own view of the frame of play, when it offers one."""
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

    def feed(self, ev: Event) -> list[dict[str, Any]]:
        out = self._ref.feed(ev)
        if out is None:
            return []
        if not isinstance(out, list | tuple):
            out = [out]
        return [v if isinstance(v, dict) else v.to_dict() for v in out]

    def snapshot(self) -> dict[str, Any] | None:
        snap = getattr(self._ref, "snapshot", None)
        if snap is None:
            return None
        value = snap() if callable(snap) else snap
        if value is None:
            return None
        return value if isinstance(value, dict) else value.to_dict()
