"""The referee's mandatory warnings of 001 2.1.20 for the position at rest the live page shows.

The game judges them (``rules.warnings``, the same judgement the referee cites in its verdicts); before a stroke
the ball to be struck is not yet known, so in a game where any ball may be struck every frozen pair is warned.
"""

from __future__ import annotations

from typing import Any

from calibration.contract import GAMES
from calibration.table import TableModel
from rules.registry import game_class


def position_warnings(
    table: TableModel, positions: dict[str, tuple[float, float]], game: str, in_hand: bool = False
) -> list[dict[str, Any]]:
    """Warnings for balls at rest at ``positions`` (table mm), each ``{"code", "rule", "text", "balls"}``;
    ``in_hand``: the striker has the cue ball in hand (the temporary house warning, 001 2.1.5б)."""
    if game not in GAMES:
        return []
    pts = {b: (float(p[0]), float(p[1])) for b, p in positions.items()}
    return [w.to_dict() for w in game_class(game)(table).rest_warnings(pts, in_hand)]
