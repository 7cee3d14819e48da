"""The Cluster lag for the first break (000 3.3), judged from the events of one lag "shot".

Both players strike at once from the house along the longitudinal line (3.3а); whose ball is whose comes
from the side of the longitudinal line it starts on, as in the federation lag (``rules.lag``). A ball
fulfils the conditions (3.3б) when it started in the house, touched the pyramid cushion exactly once
(digest C12; a jaw of a pyramid pocket counts for that cushion) and came back without crossing the
longitudinal line, neither potted nor off the table. Unlike 001 2.1.4, touching a long cushion is allowed
and reaching the house cushion is not required (digest C12). The winner fulfilled every condition and
stopped nearer the house cushion (3.3в); when that cannot be told (both within the line tolerance, or
neither ball valid) the lag is repeated (3.3г).
"""

from __future__ import annotations

from rules.cluster import geometry as geo
from rules.lag import LagResult
from rules.shot import Shot


def lag_faults(shot: Shot, ball: str, side: str) -> list[str]:
    table = shot.table
    out = []
    if not table.in_house(shot.start[ball]):
        out.append("was not played from the house (000 3.3а)")
    touches = [
        geo.touch_segment(table, e.cushion, e.pos)
        for e in shot.of_type("cushion")
        if e.ball == ball and e.cushion is not None and e.pos is not None
    ]
    n = touches.count("pyramid")
    if n != 1:
        out.append(f"touched the pyramid cushion {n} times, not once (000 3.3б)")
    crossed = any(e.type == "line_cross" and e.ball == ball and e.line == "long" for e in shot.events)
    end = shot.end.get(ball)
    if crossed or (end is not None and table.side(end) not in (side, "on")):
        out.append("crossed the longitudinal line (000 3.3б)")
    if ball in shot.potted or ball in shot.off_table:
        out.append("was potted or left the table, so did not come back (000 3.3б)")
    return out


def judge_lag(shot: Shot, sides: tuple[str, str] = ("left", "right")) -> LagResult:
    table = shot.table
    by_player: dict[str, str] = {}
    for b in sorted(shot.start):
        s = table.side(shot.start[b])
        for player, side in zip(("A", "B"), sides, strict=True):
            if s == side and player not in by_player and b not in by_player.values():
                by_player[player] = b
    if len(by_player) != 2:
        return LagResult(None, ("lag needs one ball on each side of the longitudinal line (000 3.3а)",))
    notes: list[str] = []
    dist: dict[str, float] = {}
    for player, side in zip(("A", "B"), sides, strict=True):
        ball = by_player[player]
        faults = lag_faults(shot, ball, side)
        notes += [f"{player}'s ball {ball} {f}" for f in faults]
        if not faults and ball in shot.end:
            dist[player] = shot.end[ball][0]
    if not dist:
        return LagResult(None, (*notes, "neither ball fulfilled the conditions: repeat (000 3.3г)"))
    if len(dist) == 1:
        return LagResult(next(iter(dist)), tuple(notes))
    if abs(dist["A"] - dist["B"]) <= table.spec.line_tolerance_mm:
        return LagResult(None, (*notes, "cannot tell which ball is nearer the house cushion: repeat (000 3.3г)"))
    return LagResult("A" if dist["A"] < dist["B"] else "B", tuple(notes))
