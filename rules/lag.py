"""The lag for the break (001 2.1.4), judged from the events of a lag "shot".

Both players strike at once from the house, one each side of the longitudinal line, toward the back
cushion. The lag shot's ``shot_start`` lists the two balls; which ball is whose comes from the side it
starts on (``sides``: the side of player A and of player B). A ball loses if it (а) did not touch the back
cushion, (б) went into the opponent's half of the table (across the longitudinal line), (в) was potted or
left the table, or (г) touched a long cushion. The valid ball that stops nearer the front cushion wins;
both invalid or equally near (within the frozen tolerance) -> repeat. Touching the front cushion is
allowed (digest A25).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.predicates import LONG_CUSHIONS, cushion_segment
from rules.shot import Shot


@dataclass(frozen=True)
class LagResult:
    winner: str | None
    notes: tuple[str, ...]


def lag_faults(shot: Shot, ball: str, side: str) -> list[str]:
    table = shot.table
    out = []
    touched = {cushion_segment(table, e) for e in shot.of_type("cushion") if e.ball == ball}
    if "pyramid" not in touched:
        out.append("did not touch the back cushion (001 2.1.4а)")
    crossed = any(e.type == "line_cross" and e.ball == ball and e.line == "long" for e in shot.events)
    end = shot.end.get(ball)
    if crossed or (end is not None and table.side(end) not in (side, "on")):
        out.append("went into the opponent's half (001 2.1.4б)")
    if ball in shot.potted or ball in shot.off_table:
        out.append("was potted or left the table (001 2.1.4в)")
    if touched & set(LONG_CUSHIONS):
        out.append("touched a long cushion (001 2.1.4г)")
    return out


def judge_lag(shot: Shot, sides: tuple[str, str] = ("left", "right")) -> LagResult:
    table = shot.table
    by_player: dict[str, str] = {}
    for b, p in shot.start.items():
        if table.in_house(p):
            s = table.side(p)
            for player, side in zip(("A", "B"), sides, strict=True):
                if s == side and player not in by_player:
                    by_player[player] = b
    if len(by_player) != 2:
        return LagResult(None, ("lag needs one ball in the house on each side of the longitudinal line",))
    notes = []
    dist: dict[str, float] = {}
    for player, side in zip(("A", "B"), sides, strict=True):
        ball = by_player[player]
        faults = lag_faults(shot, ball, side)
        notes += [f"{player}'s ball {f}" for f in faults]
        if not faults and ball in shot.end:
            dist[player] = shot.end[ball][0]
    if not dist:
        return LagResult(None, tuple(notes))
    if len(dist) == 1:
        return LagResult(next(iter(dist)), tuple(notes))
    if abs(dist["A"] - dist["B"]) <= table.spec.frozen_tolerance_mm:
        return LagResult(None, (*notes, "both balls equally near the front cushion"))
    return LagResult("A" if dist["A"] < dist["B"] else "B", tuple(notes))
