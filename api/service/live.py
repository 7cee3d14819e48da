"""What the table looks like now: balls, shot state, score, turn, in-hand and pending spotting.

Built only from the stream's records (events, inputs, verdicts) in their order, so the state after a restart,
rebuilt from the store, is the state before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Pos = tuple[float, float]


@dataclass
class LiveState:
    players: dict[str, str]
    positions: dict[str, Pos] = field(default_factory=dict)
    moving: bool = False
    shot: int | None = None  # the shot in progress, or None between shots
    last_shot: int | None = None  # the last shot that ended
    game_frame: int = 1  # frame of play (партия), 1-based
    frame_started: bool = False  # a frame_start input opened the current frame of play
    breaker: str | None = None
    score: dict[str, float] = field(default_factory=lambda: {"A": 0, "B": 0})
    player: str = "A"
    ball_in_hand: bool = False
    pending_spot: list[dict[str, Any]] = field(default_factory=list)
    last_verdict: dict[str, Any] | None = None
    frame_over: bool = False
    winner: str | None = None
    t: float | None = None
    video_frame: int | None = None
    source: dict[str, Any] = field(default_factory=dict)  # the source's condition (runner), when it has one
    # what the balls the camera could not number look like ("t6" -> "yellow", api.names.looks), from the observer
    looks: dict[str, str] = field(default_factory=dict)

    @property
    def next_shot(self) -> int:
        if self.shot is not None:
            return self.shot
        return 0 if self.last_shot is None else self.last_shot + 1

    def default_input_shot(self, kind: str) -> int:
        """The shot an operator input without a ``shot`` applies to: a manual foul or a play-on choice to
        the shot in progress or just played; anything else to the shot in progress or the next one."""
        if kind in ("manual_foul", "play_on", "void_pot") and self.shot is None and self.last_shot is not None:
            return self.last_shot
        return self.next_shot

    def begin_frame(self, breaker: str | None) -> None:
        """A frame_start input: a new frame of play, unless it opens the first one before any shot."""
        if self.frame_started or self.last_shot is not None or self.shot is not None:
            self.game_frame += 1
        self.frame_started = True
        self.breaker = breaker
        self.score = {"A": 0, "B": 0}
        self.frame_over = False
        self.winner = None
        self.ball_in_hand = False
        self.pending_spot = []
        if breaker is not None:
            self.player = breaker

    def apply_event(self, ev: dict[str, Any]) -> None:
        kind = ev["type"]
        if ev.get("t") is not None:
            self.t = ev["t"]
        if ev.get("frame") is not None:
            self.video_frame = ev["frame"]
        if kind == "frame_start":
            self.begin_frame(ev.get("breaker"))
            self.players.update(ev.get("players") or {})  # the operator names the players at a frame's start
        elif kind == "rename":
            self.rename(str(ev["ball"]), str(ev["to"]))
        elif kind == "shot_start":
            if self.frame_over:
                self.game_frame += 1
                self.frame_over = False
                self.winner = None
                self.score = {"A": 0, "B": 0}
            self.positions = {b: (p[0], p[1]) for b, p in (ev.get("positions") or {}).items()}
            self.moving = True
            self.shot = ev.get("shot")
            self.ball_in_hand = False
            self.pending_spot = [s for s in self.pending_spot if s.get("ball") not in self.positions]
        elif kind in ("pot", "off_table"):
            self.positions.pop(ev["ball"], None)
        elif kind == "shot_end":
            self.positions = {b: (p[0], p[1]) for b, p in (ev.get("positions") or {}).items()}
            self.moving = False
            if ev.get("shot") is not None:
                self.last_shot = ev["shot"]
            elif self.shot is not None:
                self.last_shot = self.shot
            self.shot = None

    def rename(self, old: str, new: str) -> None:
        """An operator's "this ball is number 7": the ball ``old`` is ``new`` from now on."""
        self.positions = {new if b == old else b: p for b, p in self.positions.items()}
        self.looks.pop(old, None)  # numbered (or the cue ball) now: the number names it
        for s in self.pending_spot:
            if s.get("ball") == old:
                s["ball"] = new

    def apply_verdict(self, v: dict[str, Any]) -> None:
        self.last_verdict = v
        score = v.get("score")
        if isinstance(score, dict):
            self.score = {"A": score.get("A", 0), "B": score.get("B", 0)}
        if v.get("next_player") in ("A", "B"):
            self.player = v["next_player"]
        self.ball_in_hand = bool(v.get("ball_in_hand"))
        self.pending_spot = [dict(s) for s in v.get("spot") or []]
        for s in self.pending_spot:
            pos = s.get("pos")
            if s.get("ball") is not None and pos is not None:
                self.positions[str(s["ball"])] = (float(pos[0]), float(pos[1]))
        self.frame_over = bool(v.get("frame_over"))
        self.winner = v.get("winner")

    def end_frame(self, score: dict[str, Any], winner: str | None) -> None:
        """The frame ended with no verdict to say so (conceded before its first stroke, 001 1.5.5)."""
        self.score = {"A": score.get("A", 0), "B": score.get("B", 0)}
        self.frame_over = True
        self.winner = winner

    def summary(self) -> dict[str, Any]:
        """The part of the state whose change is worth a ``state`` message."""
        return {
            "game_frame": self.game_frame,
            "shot": {"index": self.shot, "state": "moving" if self.moving else "at_rest", "last": self.last_shot},
            "score": dict(self.score),
            "player": self.player,
            "player_name": self.players.get(self.player, self.player),
            "ball_in_hand": self.ball_in_hand,
            "pending_spot": [dict(s) for s in self.pending_spot],
            "frame_over": self.frame_over,
            "winner": self.winner,
            "balls": len(self.positions),
            **({"source": dict(self.source)} if self.source else {}),
            **({"looks": dict(self.looks)} if self.looks else {}),
        }
