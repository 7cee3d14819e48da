"""The games, declared once: each a class carrying its contract name and the data every layer reads about it.

In the manner of python-chess's ``variant.py``, a game is a class and what is known about it is class data:
its CONTRACT.md section 7 ``name``, what a viewer calls it (``human``), the rule document's own ``title``,
its ball set (``cue_ball``: a distinct cue ball, or None where every ball is white and any may be struck),
the numbered order its rack puts the balls in (``rack_order``, empty where the numbers are not fixed) and
what wins a frame (``target`` in ``scoring`` units).

Data only, so it sits in the contract (the bottom layer): the records' validation needs the names, the
tracker numbers a racked pyramid by ``rack_order``, the synthetic scenes and the pages name and rack the
balls by it. The rules engine attaches its logic to these classes: each game of ``rules.games`` (and
``rules.cluster.ClusterGame``) subclasses its declaration together with ``rules.game.Game``, so a game's
name, title, target and ball set are written here and nowhere else. The names may not change: acceptance
checks and recorded ``events.jsonl`` files read them.
"""

from __future__ import annotations

from typing import ClassVar, Literal

# 001 2.2.3: the Russian pyramid racks the numbered balls in a fixed order, apex on the pyramid spot and the
# base toward the back cushion, row by row, each row left (y small) to right, as seen by the breaker at the
# house end facing the pyramid (the order ``calibration.table.TableModel.rack_positions`` lists places in):
# row 1: 4; row 2: 5, 6; row 3: 7, 15, 8; row 4: 9, 14, 13, 10; row 5: 2, 1, 12, 11, 3.
RUSSIAN_PYRAMID_RACK_ORDER: tuple[str, ...] = (
    "4", "5", "6", "7", "15", "8", "9", "14", "13", "10", "2", "1", "12", "11", "3",
)  # fmt: skip


class GameDeclaration:
    """The declared data of a game; every game class below overrides what differs."""

    name: ClassVar[str] = ""  # the CONTRACT.md section 7 code
    human: ClassVar[str] = ""  # what a viewer calls it, in English
    title: ClassVar[str] = ""  # the rule document's own (Russian) title
    cue_ball: ClassVar[str | None] = "cue"  # None: all balls white, the struck ball is the cue ball
    rack_order: ClassVar[tuple[str, ...]] = ()  # the rack's fixed numbering (001 2.2.3); () where none
    target: ClassVar[int] = 8  # what wins a frame, in ``scoring`` units
    scoring: ClassVar[Literal["points", "balls"]] = "balls"


class Cluster(GameDeclaration):
    name = "cluster"
    human = "Cluster"
    title = "Кластер"
    cue_ball = None  # 000 2.2: all balls white, the struck ball is the cue ball
    target = 8  # 000 3.1


class Russian71(GameDeclaration):
    name = "russian71"
    human = "Russian pyramid, 71 points"
    title = "Русская пирамида (71 очко)"
    rack_order = RUSSIAN_PYRAMID_RACK_ORDER  # 001 2.2.3
    target = 71  # 001 2.2.1
    scoring = "points"  # 001 2.2.4: face value, the ace 11


class Russian71Fast(Russian71):
    name = "russian71-fast"
    human = "Russian pyramid, fast, 71 points"
    title = "Русская пирамида - быстрая (71 очко)"


class Moscow(GameDeclaration):
    name = "moscow"
    human = "Moscow pyramid"
    title = "Московская пирамида"
    target = 8  # 001 2.4.1


class MoscowFast(Moscow):
    name = "moscow-fast"
    human = "Moscow pyramid, fast"
    title = "Московская пирамида - быстрая"


class MoscowFastCalled(Moscow):
    name = "moscow-fast-called"
    human = "Moscow pyramid, fast, called"
    title = "Московская пирамида - быстрая заказная"


class Americanka(GameDeclaration):
    name = "americanka"
    human = "American pyramid"
    title = "Американка"
    cue_ball = None  # 001 2.7.2: every ball may be the cue ball
    target = 8  # 001 2.7.1


class AmericankaFast(Americanka):
    name = "americanka-fast"
    human = "American pyramid, fast"
    title = "Американка - быстрая"


class Eight(GameDeclaration):
    name = "eight"
    human = "Pyramid of 8 balls"
    title = "Пирамида 8 шаров"
    target = 8  # 001 2.9.1


class EightFast(Eight):
    name = "eight-fast"
    human = "Pyramid of 8 balls, fast"
    title = "Пирамида 8 шаров - быстрая"


class EightFastCalled(EightFast):
    name = "eight-fast-called"
    human = "Pyramid of 8 balls, fast, called"
    title = "Пирамида 8 шаров - быстрая заказная"


# Every game of the contract, in CONTRACT.md section 7's order.
DECLARED: tuple[type[GameDeclaration], ...] = (
    Cluster, Russian71, Russian71Fast, Moscow, MoscowFast, MoscowFastCalled,
    Americanka, AmericankaFast, Eight, EightFast, EightFastCalled,
)  # fmt: skip
GAMES: tuple[str, ...] = tuple(g.name for g in DECLARED)
_BY_NAME = {g.name: g for g in DECLARED}


def declaration(name: str | None) -> type[GameDeclaration] | None:
    """The declared game of that contract name; None for no game or an unknown name."""
    return _BY_NAME.get(name or "")


def all_white(name: str | None) -> bool:
    """Whether the game's balls are all white (no distinct cue ball: the striker may hit any ball)."""
    g = declaration(name)
    return g is not None and g.cue_ball is None


def rack_order(name: str | None) -> tuple[str, ...]:
    """The numbered order the game's rack puts the balls in, row by row; () where the numbers are not fixed."""
    g = declaration(name)
    return g.rack_order if g is not None else ()
