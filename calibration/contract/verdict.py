"""The verdict on one shot (CONTRACT.md section 4), frozen, and the base of every foul enum it carries.

``to_dict`` gives the contract's JSON object, key order as listed there. Two documented extensions
follow the contract keys: ``notes`` (why the engine decided as it did: re-take, lag, hanging ball,
warnings relied on...), ``amended`` (true when this verdict replaces an earlier one for the same shot
after an operator input) and ``review`` (true when the shot was judged without camera records the referee
could not place; the reasons are in ``notes``); each appears only when it says something.

``legal`` says whether the striker's shot was legal; ``fouls`` then can still hold the opponent's foul
(001 2.1.22(15), interference), whose penalty falls on the opponent.

A foul is a member of a :class:`FoulKind` enum whose value is ``(code, rule)``: ``code`` is the stable key
written to ``verdicts.jsonl`` and ``rule`` the clause as the contract wants it (seed prefix, then the clause
as written in that document, e.g. ``"001 2.1.22(1)"`` or ``"000 4.1ж"``). The rules engine defines the
members (``rules.fouls``, ``rules.cluster.fouls``); the human text lives in a table filled with
:func:`register_texts`, so wording can change without touching the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

Point = tuple[float, float]

_TEXTS: dict[FoulKind, str] = {}


class FoulKind(Enum):
    """Base of every foul enum. Members are ``NAME = (code, rule)``."""

    @property
    def code(self) -> str:
        return str(self.value[0])

    @property
    def rule(self) -> str:
        return str(self.value[1])

    @property
    def text(self) -> str:
        return _TEXTS.get(self, self.code.replace("_", " "))

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "rule": self.rule, "text": self.text}


def register_texts(texts: Mapping[FoulKind, str]) -> None:
    """Add display texts for foul members (any ``FoulKind`` subclass)."""
    _TEXTS.update(texts)


@dataclass(frozen=True)
class SpotPlacement:
    """A ball put back on the table after the shot, at an exact position in table millimetres."""

    ball: str
    pos: Point

    def to_dict(self) -> dict[str, Any]:
        return {"ball": self.ball, "pos": [round(self.pos[0], 1), round(self.pos[1], 1)]}


@dataclass(frozen=True)
class Verdict:
    shot: int
    player: str
    legal: bool
    fouls: tuple[FoulKind, ...] = ()
    counted: tuple[str, ...] = ()
    void: tuple[str, ...] = ()
    spot: tuple[SpotPlacement, ...] = ()
    score: tuple[int | float, int | float] = (0, 0)  # (A, B)
    next_player: str = "A"
    ball_in_hand: bool = False
    frame_over: bool = False
    winner: str | None = None
    notes: tuple[str, ...] = field(default=(), compare=True)
    amended: bool = False
    review: bool = False  # judged without records the referee could not place (the reasons are in notes)

    def __post_init__(self) -> None:
        if self.player not in ("A", "B") or self.next_player not in ("A", "B"):
            raise ValueError("players are 'A' and 'B'")
        if self.winner not in (None, "A", "B"):
            raise ValueError("winner is 'A', 'B' or None")
        for f in self.fouls:
            if not isinstance(f, FoulKind):
                raise TypeError(f"foul {f!r} is not a FoulKind member")

    @property
    def score_dict(self) -> dict[str, int | float]:
        return {"A": self.score[0], "B": self.score[1]}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "shot": self.shot,
            "player": self.player,
            "legal": self.legal,
            "fouls": [f.to_dict() for f in self.fouls],
            "counted": list(self.counted),
            "void": list(self.void),
            "spot": [s.to_dict() for s in self.spot],
            "score": self.score_dict,
            "next_player": self.next_player,
            "ball_in_hand": self.ball_in_hand,
            "frame_over": self.frame_over,
            "winner": self.winner,
        }
        if self.notes:
            out["notes"] = list(self.notes)
        if self.amended:
            out["amended"] = True
        if self.review:
            out["review"] = True
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)
