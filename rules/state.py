"""Immutable state of a frame and of a match. Transitions use ``dataclasses.replace``.

Players are ``"A"`` and ``"B"``; per-player values are pairs ``(A, B)``. ``table`` holds the balls
the engine believes are on the table, with their positions (from the last shot's end, after spotting);
it is ``None`` until the first ``shot_start`` of the frame shows the rack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, TypeVar

from rules.shot import Point
from rules.warnings import Warning

T = TypeVar("T")


def other(player: str) -> str:
    return "B" if player == "A" else "A"


def idx(player: str) -> int:
    return 0 if player == "A" else 1


def set_pair(pair: tuple[T, T], player: str, value: T) -> tuple[T, T]:
    return (value, pair[1]) if player == "A" else (pair[0], value)


def freeze_positions(d: Mapping[str, Point]) -> Mapping[str, Point]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class FrameState:
    game: str
    frame: int = 1
    breaker: str = "A"
    to_play: str = "A"
    score: tuple[int, int] = (0, 0)  # points (Russian games) or balls
    shelves: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # potted balls credited, in order
    credits: tuple[int, int] = (0, 0)  # balls credited but not yet on a shelf (Moscow: cue ball potted)
    debts: tuple[int, int] = (0, 0)  # penalty balls owed (001 2.4.7 ...)
    table: Mapping[str, Point] | None = None
    in_hand: bool = True
    shots: int = 0  # shots judged in this frame (0: the next one is the opening break)
    frame_over: bool = False
    winner: str | None = None
    at_70: bool = False  # 001 2.2.9 in force
    awaiting_lag: bool = False  # the next shot is a lag (2.1.4, 2.1.16, 2.2.9)
    placement_warned: bool = False  # 2.1.5в: the warning about a cue ball placed outside was given
    just_spotted: tuple[str, ...] = ()
    pending_removal: str | None = None  # 001 2.4.5: the player to whom the removed ball goes
    last_potted: str | None = None
    cue_seen: bool = False  # the camera has named a ball the cue ball in this frame (it is on the table or in hand)
    warnings: tuple[Warning, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # game-specific data

    def evolve(self, **changes: Any) -> FrameState:
        return replace(self, **changes)

    def shelf(self, player: str) -> tuple[str, ...]:
        return self.shelves[idx(player)]

    def to_dict(self) -> dict[str, Any]:
        """The public snapshot the live service shows."""
        return {
            "game": self.game,
            "frame": self.frame,
            "breaker": self.breaker,
            "score": {"A": self.score[0], "B": self.score[1]},
            "to_play": self.to_play,
            "ball_in_hand": self.in_hand,
            "shelves": {"A": list(self.shelves[0]), "B": list(self.shelves[1])},
            "debts": {"A": self.debts[0], "B": self.debts[1]},
            "frame_over": self.frame_over,
            "winner": self.winner,
            "at_70_70": self.at_70,
            "awaiting_lag": self.awaiting_lag,
            "pending_removal": self.pending_removal,
            "placement_warned": self.placement_warned,
            "warnings": [w.to_dict() for w in self.warnings],
        }


@dataclass(frozen=True)
class MatchState:
    frames_to_win: int = 1
    frames_won: tuple[int, int] = (0, 0)
    last_breaker: str | None = None
    lag_winner: str | None = None

    @property
    def over(self) -> bool:
        return max(self.frames_won) >= self.frames_to_win

    @property
    def deciding_frame_next(self) -> bool:
        """001 2.1.4: before the deciding frame the lag is repeated."""
        return self.frames_to_win > 1 and self.frames_won == (self.frames_to_win - 1,) * 2
