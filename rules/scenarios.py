"""Event streams written shot by shot, for golden tests, property tests and the rules benchmark.

A :class:`Script` keeps the layout of the table and a :class:`~rules.referee.Referee` beside it, so every
stroke starts from where the balls really are (spotted balls included, the cue ball put in hand where the
verdict says so). Steps are small tuples::

    s = Script("moscow", breaker="A")
    v = s.play("cue", ("cross", "cue", "house", "+x"), ("hit", "cue", "4"), ("pot", "4", "pyramid-left"))

``("hit", a, b)`` a contact (``a`` the faster ball), ``("rail", ball, cushion[, pos])`` a cushion or jaw
touch, ``("cross", ball, line, direction)``, ``("pot", ball, pocket)``, ``("off", ball)``,
``("disturb", ball)``. ``end`` moves balls to given positions at rest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from calibration.contract import Event, Verdict, games, jaw_pocket
from calibration.table import TableModel
from rules.referee import Referee
from rules.shot import Point

RUSSIAN_RACK = games.Russian71.rack_order  # 001 2.2.3


def racked(table: TableModel, cue: Point | None = None, balls: tuple[str, ...] = RUSSIAN_RACK) -> dict[str, Point]:
    """The opening layout: the pyramid of 001 2.2.3 and the cue ball in the house."""
    pos = dict(zip(balls, table.rack_positions(), strict=True))
    pos["cue"] = cue or (table.length_mm / 8, table.width_mm / 2)
    return pos


class Script:
    def __init__(
        self,
        game: str,
        breaker: str = "A",
        table: TableModel | None = None,
        layout: Mapping[str, Point] | None = None,
        frames_to_win: int = 1,
        start_frame: bool = True,
    ) -> None:
        self.table = table or TableModel()
        self.game = game
        self.ref = Referee(game, table=self.table, frames_to_win=frames_to_win)
        self.events: list[Event] = []
        self.verdicts: list[Verdict] = []
        self.t = 0.0
        self.index = 0
        self.pos: dict[str, Point] = dict(layout) if layout is not None else racked(self.table)
        if start_frame:
            self.add(Event.model_validate({"type": "frame_start", "game": game, "breaker": breaker}))

    # ---- raw stream ------------------------------------------------------------------------------------
    def add(self, ev: Event) -> list[Verdict]:
        self.events.append(ev)
        out = self.ref.feed(ev)
        self.verdicts += out
        return out

    def _tick(self, dt: float = 0.1) -> float:
        self.t = round(self.t + dt, 3)
        return self.t

    def new_frame(self, breaker: str, layout: Mapping[str, Point] | None = None) -> None:
        self.pos = dict(layout) if layout is not None else racked(self.table)
        self.add(Event.model_validate({"type": "frame_start", "game": self.game, "breaker": breaker}))

    # ---- operator inputs ---------------------------------------------------------------------------------
    def call(self, ball: str, pocket: str) -> None:
        self.add(Event(type="call", shot=self.index, ball=ball, pocket=pocket))

    def call_cue(self, pocket: str) -> None:
        self.add(Event(type="call", shot=self.index, cue_pocket=pocket))

    def call_any(self) -> None:
        self.add(Event(type="call_any", shot=self.index))

    def manual(self, code: str, shot: int | None = None) -> list[Verdict]:
        return self.add(Event(type="manual_foul", shot=self.index - 1 if shot is None else shot, code=code))

    def play_on(self, player: str) -> list[Verdict]:
        return self.add(Event.model_validate({"type": "play_on", "shot": self.index - 1, "player": player}))

    # ---- a stroke ------------------------------------------------------------------------------------------
    def _cushion_pos(self, ball: str, cushion: str) -> Point:
        p = self.pos.get(ball, (self.table.length_mm / 2, self.table.width_mm / 2))
        jawed = jaw_pocket(cushion)
        if jawed is not None:
            return self.table.pockets[jawed].jaws[0].tip
        cu = self.table.cushions[cushion]
        s = min(max(cu.along(p), 0.0), cu.length_mm)
        return cu.point_at(s, self.table.ball_radius_mm)

    def play(
        self,
        struck: str,
        *steps: tuple[Any, ...],
        end: Mapping[str, Point] | None = None,
        manual: tuple[str, ...] = (),
        late: tuple[tuple[str, str, float], ...] = (),
    ) -> Verdict:
        """One stroke; returns the verdict on it as it stands after ``manual`` inputs and ``late`` pots
        (ball, pocket, seconds after the end)."""
        i = self.index
        start = dict(self.pos)
        self.add(Event(type="shot_start", t=self._tick(), shot=i, ball=struck, positions=start))
        gone: set[str] = set()
        for st in steps:
            kind = st[0]
            t = self._tick()
            if kind == "hit":
                a, b = st[1], st[2]
                pa, pb = self.pos.get(a, (0.0, 0.0)), self.pos.get(b, (0.0, 0.0))
                pos = st[3] if len(st) > 3 else ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
                self.add(Event(type="contact", t=t, shot=i, balls=(a, b), pos=pos))
            elif kind == "rail":
                pos = st[3] if len(st) > 3 else self._cushion_pos(st[1], st[2])
                self.add(Event(type="cushion", t=t, shot=i, ball=st[1], cushion=st[2], pos=pos))
            elif kind == "cross":
                self.add(Event(type="line_cross", t=t, shot=i, ball=st[1], line=st[2], direction=st[3]))
            elif kind == "pot":
                self.add(Event(type="pot", t=t, shot=i, ball=st[1], pocket=st[2]))
                gone.add(st[1])
            elif kind == "off":
                self.add(Event(type="off_table", t=t, shot=i, ball=st[1], pos=(-50.0, self.table.width_mm / 2)))
                gone.add(st[1])
            elif kind in ("disturb", "disturb?"):  # "disturb?": the camera's reading flagged review
                unsure = kind == "disturb?"
                self.add(Event(type="disturbed", t=t, shot=i, ball=st[1], pos=self.pos[st[1]], review=unsure))
            else:
                raise ValueError(f"unknown step {kind!r}")
        final = {b: p for b, p in self.pos.items() if b not in gone}
        final.update({b: p for b, p in (end or {}).items() if b not in gone})
        t_end = self._tick(1.0)
        out = self.add(Event(type="shot_end", t=t_end, shot=i, positions=final))
        for code in manual:
            out = self.add(Event(type="manual_foul", shot=i, code=code)) or out
        for ball, pocket, dt in late:
            out = self.add(Event(type="pot", t=round(t_end + dt, 3), shot=i, ball=ball, pocket=pocket)) or out
        self.index += 1
        verdict = out[-1]
        self._apply(verdict, final)
        return verdict

    def _apply(self, v: Verdict, final: dict[str, Point]) -> None:
        """The layout for the next stroke: counted balls gone, spotted balls placed, the cue ball in hand."""
        pos = dict(final)
        for b in v.counted:
            pos.pop(b, None)
        for s in v.spot:
            pos[s.ball] = s.pos
        if v.ball_in_hand and "cue" not in pos and self.ref.game.cue_ball is not None:
            pos["cue"] = self.free_in_house(pos)
        self.pos = pos

    def free_in_house(self, pos: Mapping[str, Point]) -> Point:
        T = self.table
        y = T.width_mm / 2
        for x in (T.length_mm / 8, T.length_mm / 16, T.length_mm / 5):
            for dy in (0.0, 200.0, -200.0, 400.0, -400.0):
                p = (x, y + dy)
                if all(math.dist(p, q) > T.ball_diameter_mm + 2 for q in pos.values()):
                    return p
        return (T.length_mm / 8, y)

    def jsonl(self) -> str:
        return "".join(e.to_json() + "\n" for e in self.events)


def generated_log(game: str, shots: int, seed: int = 0, table: TableModel | None = None) -> Script:
    """A long, deterministic stream of plausible shots over as many frames as it takes (benchmarks)."""
    import random

    from calibration.contract import CUSHIONS, POCKETS

    rng = random.Random(seed)
    s = Script(game, table=table)
    called = s.ref.game.calls != "none"
    while s.index < shots:
        st = s.ref.state
        if st.frame_over or st.awaiting_lag or len(s.pos) < 3:
            s.new_frame("B" if st.breaker == "A" else "A")
            continue
        balls = sorted(s.pos)
        striker = "cue" if "cue" in s.pos else rng.choice(balls)
        others = [b for b in balls if b != striker]
        target = rng.choice(others)
        steps: list[tuple[Any, ...]] = [("cross", striker, "house", "+x")] if st.in_hand else []
        steps.append(("hit", striker, target))
        if rng.random() < 0.5:
            steps.append(("rail", target, rng.choice(CUSHIONS)))
        if rng.random() < 0.5:
            steps.append(("cross", rng.choice([striker, target]), "center", rng.choice(["+x", "-x"])))
        if rng.random() < 0.5:
            steps.append(("rail", striker, rng.choice(CUSHIONS)))
        pocket = rng.choice(POCKETS)
        if called:
            s.call(target, pocket)
        if rng.random() < 0.45:
            steps.append(("pot", target, pocket))
        if rng.random() < 0.05:
            steps.append(("pot", striker, rng.choice(POCKETS)))
        s.play(striker, *steps)
    return s
