"""The referee's mandatory warnings (001 2.1.20), computed from a layout at rest.

Published in the state before each shot (the live service shows them) and kept with the state the
next verdict is judged from, so a verdict that relies on a warning (2.1.10, 2.1.5в) can cite it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from calibration.table import TableModel
from rules.inhand import use_temporary_house
from rules.shot import Point


@dataclass(frozen=True)
class Warning:
    code: str
    rule: str
    text: str
    balls: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "rule": self.rule, "text": self.text, "balls": list(self.balls)}


def mandatory_warnings(
    table: TableModel,
    positions: Mapping[str, Point],
    cue: str | None,
    object_balls: Iterable[str],
    in_hand: bool,
    temporary_house_rule: bool,
    safety_rules: bool,
) -> tuple[Warning, ...]:
    """001 2.1.20 for the layout ``positions`` with ``cue`` to be struck next (None: any ball may be, so every
    frozen pair is one the striker may meet as cue ball and object ball)."""
    objs = [b for b in object_balls if b in positions]
    out: list[Warning] = []
    if cue is None and not in_hand:
        for a, b in itertools.combinations(sorted(objs), 2):
            if table.frozen_together(positions[a], positions[b]):
                text = f"balls {a} and {b} are frozen together: struck, either is played at 45° or more"
                out.append(Warning("balls_frozen", "001 2.1.20", text, (a, b)))
    if cue is not None and cue in positions and not in_hand:
        c = positions[cue]
        frozen = tuple(sorted(b for b in objs if table.frozen_together(c, positions[b])))
        if frozen:
            out.append(
                Warning("cue_frozen", "001 2.1.20", "cue ball frozen to an object ball: play at 45° or more", frozen)
            )
    for b in sorted(objs):
        p = positions[b]
        seg = table.frozen_to_cushion(p)
        if seg is None:
            continue
        out.append(
            Warning(
                "cushion_frozen", "001 2.1.20", f"ball {b} frozen to the cushion: rolled in, it will not count", (b,)
            )
        )
        near = table.frozen_ball_in_pocket(p)
        if near is not None:
            out.append(
                Warning("in_pocket", "001 2.1.10а", f"ball {b} stands in the pocket {near}: rolling it in counts", (b,))
            )
        else:
            corners = [k for k in table.cushions[seg].pockets if table.pockets[k].kind == "corner"]
            for k in corners:
                tip, away = table.cushion_pocket_end(seg, k)
                s = (p[0] - tip[0]) * away[0] + (p[1] - tip[1]) * away[1]
                if s <= table.ball_diameter_mm:
                    out.append(
                        Warning(
                            "out_of_pocket",
                            "001 2.1.10б",
                            f"ball {b} is at the cushion outside {k}: counts only if played on impact",
                            (b,),
                        )
                    )
    if in_hand and temporary_house_rule and use_temporary_house(table, positions, objs):
        out.append(
            Warning("temporary_house", "001 2.1.5б", "every object ball is in the house: play from the temporary house")
        )
    if safety_rules:
        on = tuple(sorted(b for b, p in positions.items() if table.on_line(p, "center")))
        if on:
            out.append(Warning("on_center_line", "001 2.1.20", "a ball lies exactly on the centre line", on))
    return tuple(out)
