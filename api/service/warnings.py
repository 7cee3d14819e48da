"""The referee's mandatory warnings of 001 2.1.20 for a position at rest, from the table model's predicates.

- balls frozen together (with the cue ball: play at a cut of 45 degrees or more to the line of centres);
- an object ball frozen to a cushion (rolled along it into a pocket, it does not count);
- a cushion-frozen ball beside a corner pocket: whether it stands in the pocket (2.1.10) or outside it;
- every object ball in the house (use the temporary house): the Russian, Moscow and 8-ball families;
- a ball exactly on the centre line (2.1.6: it belongs to the half away from the striker).
"""

from __future__ import annotations

import itertools
from typing import Any

from calibration.contract import GAMES
from calibration.table import TableModel
from rules.registry import game_class


def position_warnings(
    table: TableModel, positions: dict[str, tuple[float, float]], game: str, cue: str | None = None
) -> list[dict[str, Any]]:
    """Warnings for balls at rest at ``positions`` (table mm), each ``{"code", "balls", "text", ...}``."""
    out: list[dict[str, Any]] = []
    pts = {b: (float(p[0]), float(p[1])) for b, p in positions.items()}
    for a, b in itertools.combinations(sorted(pts), 2):
        if table.frozen_together(pts[a], pts[b]):
            with_cue = cue is not None and cue in (a, b)
            text = f"balls {a} and {b} are frozen together"
            if with_cue:
                text += ": play at a cut of 45 degrees or more to the line of centres"
            out.append({"code": "frozen_balls", "balls": [a, b], "cue": with_cue, "text": text, "rule": "001 2.1.20"})
    for ball in sorted(pts):
        p = pts[ball]
        cushion = table.frozen_to_cushion(p)
        if cushion is None:
            continue
        if ball != cue:
            out.append({
                "code": "frozen_cushion", "balls": [ball], "cushion": cushion, "rule": "001 2.1.20",
                "text": f"ball {ball} is frozen to the {cushion} cushion: rolled along it into a pocket, no count",
            })  # fmt: skip
        in_pocket = table.frozen_ball_in_pocket(p)
        if in_pocket is not None:
            out.append({
                "code": "frozen_in_pocket", "balls": [ball], "pocket": in_pocket, "rule": "001 2.1.10",
                "text": f"ball {ball} stands in the {in_pocket} pocket: it may be rolled in",
            })  # fmt: skip
            continue
        near = table.cushion_pocket_zone(cushion, p)
        if near is not None and table.pockets[near].kind == "corner":
            out.append({
                "code": "frozen_outside_pocket", "balls": [ball], "pocket": near, "rule": "001 2.1.10",
                "text": f"ball {ball} stands on the cushion outside the {near} pocket: it counts only when struck",
            })  # fmt: skip
    objects = [b for b in pts if b != cue]
    # 2.1.20's "all object balls in the house" applies where the game has the temporary house rule
    house_game = game in GAMES and game_class(game).temporary_house_rule
    if house_game and objects and all(table.in_house(pts[b]) for b in objects):
        out.append({
            "code": "all_in_house", "balls": sorted(objects), "rule": "001 2.1.20",
            "text": "every object ball is in the house: the cue ball in hand is played from the temporary house",
        })  # fmt: skip
    for ball in sorted(pts):
        if table.on_line(pts[ball], "center"):
            out.append({
                "code": "on_center_line", "balls": [ball], "rule": "001 2.1.6",
                "text": f"ball {ball} is exactly on the centre line: it belongs to the half away from the striker",
            })  # fmt: skip
    return out
