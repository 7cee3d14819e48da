"""The match as lines on a terminal (``tableref demo``, ``tableref analyze``): one line per shot, in time
order, then its verdict; operator inputs as they come.

The tracker reports a shot's events as it becomes sure of them, not in the order they happened (a bounce
is placed once the path after it is seen), and a break is dozens of contacts within a few milliseconds.
A person at a terminal wants the shot in words once it is over, so camera events are held until the shot
ends and told as one line ("break: 15 balls moved, 2 potted (ball 3 and ball 7)").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from api import names


class MatchText:
    """Turns stream records (kind, data) into the lines to print; keeps the open shot's events."""

    def __init__(
        self, players: Mapping[str, str] | None = None, game: str | None = None, looks: names.Looks | None = None
    ) -> None:
        self.players = dict(players or {"A": "A", "B": "B"})
        self.game = game
        # what each ball the camera could not number looks like ("t6" -> "yellow"); the service's state
        # messages keep it up to date as the camera sees the balls
        self.looks: dict[str, str] = dict(looks or {})
        self._open: dict[int, list[Mapping[str, Any]]] = {}
        self._frame_opened = True  # the first shot of a match opens a frame
        self._first_of_frame: set[int] = set()
        self._verdicts: dict[int, int] = {}

    def lines(self, kind: str, data: Mapping[str, Any]) -> list[str]:
        if kind == "input":
            return self._input(data)
        if kind == "event":
            return self._event(data)
        if kind == "verdict":
            return self._verdict(data)
        if kind == "state" and isinstance(data.get("looks"), dict):
            self.looks = dict(data["looks"])
        return []

    def _input(self, d: Mapping[str, Any]) -> list[str]:
        if d.get("type") == "frame_start":
            self.players.update(d.get("players") or {})
            self._frame_opened = True
            if d.get("game"):
                self.game = str(d["game"])
        return [f"   operator: {names.input_text(d, self.players, self.looks)}"]

    def _event(self, d: Mapping[str, Any]) -> list[str]:
        kind = d.get("type")
        shot = d.get("shot")
        if kind == "shot_start" and shot is not None:
            self._open[shot] = [d]
            if self._frame_opened:
                self._first_of_frame.add(shot)
                self._frame_opened = False
            return []
        if shot is not None and shot in self._open:
            self._open[shot].append(d)
            if kind != "shot_end":
                return []
            evs = self._open.pop(shot)
            t0 = evs[0].get("t")
            when = f"{t0:7.2f} s" if t0 is not None else "        "
            text = names.shot_text(evs, first_of_frame=shot in self._first_of_frame, looks=self.looks)
            return [f"{when}  shot {shot + 1}: {text}"]
        t = d.get("t")
        when = f"{t:7.2f} s" if t is not None else "        "
        return [f"{when}  {names.event_text(d, self.looks)}"]

    def _verdict(self, v: Mapping[str, Any]) -> list[str]:
        shot = v.get("shot")
        seen = self._verdicts.get(shot, 0) if isinstance(shot, int) else 0
        if isinstance(shot, int):
            self._verdicts[shot] = seen + 1
        if v.get("frame_over"):
            self._frame_opened = True
        who = names.player_name(self.players, v.get("player"))
        tag = "amended" if (v.get("amended") or seen) else "verdict"
        out = [f"      => {tag}, {who}: {names.verdict_text(v, self.players, self.looks)}"]
        out += [f"         ({note})" for note in names.verdict_notes(v, self.looks)]
        return out


def match_lines(
    records: Iterable[Mapping[str, Any]],
    verdicts: Iterable[Mapping[str, Any]],
    players: Mapping[str, str] | None = None,
    game: str | None = None,
    looks: names.Looks | None = None,
) -> list[str]:
    """A recorded match (events and inputs in time order, and the final verdict of each shot) as the lines
    ``analyze`` prints: each shot in words, followed by its verdict."""
    by_shot: dict[int, Mapping[str, Any]] = {int(v["shot"]): v for v in verdicts if v.get("shot") is not None}
    text = MatchText(players, game, looks)
    out: list[str] = []
    for r in records:
        kind = "event" if r.get("type") in _CAMERA else "input"
        out += text.lines(kind, r)
        if r.get("type") == "shot_end" and r.get("shot") in by_shot:
            out += text.lines("verdict", by_shot.pop(int(r["shot"])))
    for v in by_shot.values():
        out += text.lines("verdict", v)
    return out


_CAMERA = {"shot_start", "contact", "cushion", "line_cross", "pot", "off_table", "disturbed", "shot_end"}
