"""The base game: a fixed order of steps, parameters as class-level data, differences as overrides.

A game is a subclass of :class:`Game`. Rule differences that are only parameters are class attributes
(``target``, ``penalty``, ``calls``, ``safety``, ``spotting``, ``cue_potted``...); differences in how play
works are overridden methods. :meth:`Game.judge` is a pure function ``(state, shot) -> (verdict, state)``
that runs the steps in this order (digest G21):

1. :meth:`retake` - shots that are replayed with no verdict on the balls (2.1.5г, 2.1.15);
2. :meth:`fouls` - operator fouls first, then the camera's (2.1.22), one penalty at most;
3. :meth:`counted` - the pots that count after the exclusions (2.1.5а, 2.1.10, 2.1.15, calls);
4. :meth:`safety_ok` - when nothing counted in a game with safety rules (2.1.11/2.7.6 + 2.1.12);
5. :meth:`apply_penalty`, :meth:`settle_debts` - the game's penalty and penalty-ball debts;
6. :meth:`spot` - every ball put back, at exact positions;
7. :meth:`score_and_win` - scores and the end of the frame;
8. :meth:`advance` - who plays next, ball in hand, "play on" (2.1.8).

A game's name, titles, ball set, rack order and target are declared once, as data, in
:mod:`calibration.contract.games` (the bottom layer, which the records' validation and every layer read);
each game here subclasses its declaration together with :class:`Game`, which attaches the logic
(``class Moscow(games.Moscow, Game)``). To add a game: declare it there, subclass it here, set the
parameters, override what plays differently, and register the class in :mod:`rules.registry`. A game
with its own state (the Cluster game ball) keeps it in ``FrameState.extra`` or subclasses
:class:`~rules.state.FrameState` and sets ``state_class``; its own fouls are a
:class:`~calibration.contract.FoulKind` enum of its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from calibration.contract import FoulKind, SpotPlacement, Verdict
from calibration.contract.games import GameDeclaration
from calibration.table import TableModel
from rules import predicates as P
from rules.fouls import MANUAL_FOULS, Foul
from rules.inhand import counted_from_hand, hand_shot, in_hand_area, use_temporary_house
from rules.lag import judge_lag
from rules.shot import Point, Shot
from rules.spotting import side_away_from, spot_at_back_cushion, spot_on_line
from rules.state import FrameState, freeze_positions, idx, other, set_pair
from rules.warnings import Warning, mandatory_warnings

Spotting = Literal["line", "back_cushion"]
OBJECT_BALLS_15 = tuple(str(n) for n in range(1, 16))


@dataclass
class Judging:
    """Working notes of one judgement (mutable scratch inside ``judge``; never leaves it)."""

    state: FrameState
    shot: Shot
    temporary: bool = False
    fouls: list[FoulKind] = field(default_factory=list)
    opponent_fouls: list[FoulKind] = field(default_factory=list)
    counted: list[str] = field(default_factory=list)
    void: list[str] = field(default_factory=list)
    put_back: dict[str, Point] = field(default_factory=dict)  # balls returned to where they were
    to_spot: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    removed_from_table: set[str] = field(default_factory=set)
    cue_lost: bool = False  # cue ball potted or off the table: next shot from hand
    cue_counts: bool = False  # Moscow: the potted cue ball counts as a ball
    paid: list[str] = field(default_factory=list)  # counted balls that paid a penalty debt
    rolled: list[str] = field(default_factory=list)  # 2.1.10: frozen balls rolled in (void)
    review: bool = False  # a clause the records cannot decide (the reason is in notes)

    def note_unsure_touch(self, balls: Iterable[str], clause: str) -> None:
        """Balls the camera is not sure were touched (``predicates.touched_balls``): no penalty, the verdict says so
        and is flagged for review; the operator may give the foul."""
        self.notes.append(
            f"ball {', '.join(balls)} may have moved with no ball contact (an uncertain reading): {clause} is the "
            "operator's to give (manual_foul touched_ball)"
        )
        self.review = True


class Game(GameDeclaration):
    # ---- parameters (class-level data) -----------------------------------------------------------------
    # name, title, target, scoring, cue_ball: declared with the game in calibration.contract.games
    clause: ClassVar[str] = ""
    penalty: ClassVar[int] = 1  # points (both ways) or balls from the shelf
    fast: ClassVar[bool] = False  # fast break (2.1.5а second paragraph)
    outside_contact_counts: ClassVar[bool] = True  # fast break: pots count after touching a ball outside
    calls: ClassVar[Literal["none", "ball", "ball_or_cue"]] = "none"
    call_any: ClassVar[bool] = False  # "заказ с падающим" before the opening break
    safety: ClassVar[Literal["none", "2.1.11", "2.7.6"]] = "none"
    pocket_zone: ClassVar[bool] = False  # 2.1.12
    spotting: ClassVar[Spotting] = "line"
    spot_in_number_order: ClassVar[bool] = False
    cue_potted: ClassVar[Literal["foul", "counts"]] = "foul"
    cue_off_table: ClassVar[Literal["hand", "spot"]] = "hand"
    spotted_ball_is_cue_foul: ClassVar[bool] = False  # Americanka (digest A19)
    temporary_house_rule: ClassVar[bool] = True  # 2.1.20: Russian, Moscow, 8-ball families
    seventy_seventy: ClassVar[bool] = False
    last_ball_bonus: ClassVar[int] = 0
    hanging_grace_s: float = 2.0  # 2.1.15 [rec]: a setting (the constructor takes it too)
    cushion_identity: ClassVar[str] = "segment"  # digest A6
    # 001 2.1.8 orders play on after a penalty on the striker only; Cluster (000 5) after any penalty.
    play_on_after_opponent_foul: ClassVar[bool] = False
    play_on_clause: ClassVar[str] = "001 2.1.8"
    placement_rule: ClassVar[bool] = True  # 001 2.1.5в warning and 2.1.22(14) foul for the cue ball in hand
    state_class: ClassVar[type[FrameState]] = FrameState

    def __init__(self, table: TableModel | None = None, hanging_grace_s: float | None = None) -> None:
        self.table = table or TableModel()
        if hanging_grace_s is not None:
            self.hanging_grace_s = hanging_grace_s

    def __repr__(self) -> str:
        return f"<game {self.name}>"

    # ---- balls ---------------------------------------------------------------------------------------------
    def object_balls(self, positions: Mapping[str, Point]) -> list[str]:
        return [b for b in positions if b != self.cue_ball]

    def ball_value(self, ball: str) -> int:
        """Points of a counted ball (Russian: face value, the ace 11, 001 2.2.4); 1 in ball games."""
        if self.scoring == "balls":
            return 1
        try:
            n = int(ball)
        except ValueError:
            return 0
        return 11 if n == 1 else n

    def struck_is_cue(self, shot: Shot) -> bool:
        """The struck ball is the cue ball (always so in Americanka, where any ball may be)."""
        return self.cue_ball is None or shot.struck == self.cue_ball

    # ---- frame lifecycle ---------------------------------------------------------------------------------------
    def new_frame(self, frame: int, breaker: str) -> FrameState:
        return self.state_class(game=self.name, frame=frame, breaker=breaker, to_play=breaker, in_hand=True)

    # ---- the fixed order of steps ---------------------------------------------------------------------------------
    def judge(self, state: FrameState, shot: Shot) -> tuple[Verdict, FrameState]:
        if state.awaiting_lag:
            return self.judge_lag(state, shot)
        j = Judging(state, shot)
        if state.in_hand:
            j.temporary = self.temporary_house_rule and use_temporary_house(
                self.table, shot.start, self.object_balls(shot.start)
            )
        retake = self.retake(j) or self.referee_error(j)
        if retake is not None:
            return retake
        self.fouls(j)
        self.counted(j)
        if not j.fouls and not j.counted and self.safety != "none":
            self.check_safety(j)
        new = self.apply_penalty(j)
        new = self.settle_debts(j, new)
        spots = self.spot(j)
        new = self.score_and_win(j, new)
        return self.advance(j, new, spots)

    # 1 ---------------------------------------------------------------------------------------------------------
    def retake(self, j: Judging) -> tuple[Verdict, FrameState] | None:
        shot, state = j.shot, j.state
        reason = None
        put_back: list[SpotPlacement] = []
        hand = state.in_hand and self.struck_is_cue(shot)
        if hand and not j.shot.manual_fouls() and hand_shot(shot, j.temporary).in_play_at is None:
            reason = "re-take: the cue ball neither left the house nor touched a ball (001 2.1.5г)"
        dropped = P.aimed_ball_dropped_first(shot)
        if reason is None and dropped is not None:
            reason = f"re-take: ball {dropped} fell from the jaws before the cue ball reached it (001 2.1.15)"
            put_back.append(SpotPlacement(dropped, shot.start[dropped]))
        if reason is None:
            return None
        verdict = Verdict(
            shot=shot.index, player=state.to_play, legal=True, spot=tuple(put_back), score=state.score,
            next_player=state.to_play, ball_in_hand=state.in_hand, notes=(reason,),
        )  # fmt: skip
        return verdict, state

    def referee_error(self, j: Judging) -> tuple[Verdict, FrameState] | None:
        """001 2.1.5в with 2.1.21(1): a shot from hand played from outside the house when no warning was
        given is the referee's error: no penalty, nothing counts, the balls that moved go back where they
        were, and the opponent plays from hand."""
        shot, state = j.shot, j.state
        cue = shot.struck
        if not state.in_hand or not self.struck_is_cue(shot) or state.placement_warned:
            return None
        if in_hand_area(self.table, shot.start[cue], j.temporary):
            return None
        tol = self.table.spec.frozen_tolerance_mm
        restore = [
            SpotPlacement(b, p0)
            for b, p0 in shot.start.items()
            if b != cue and (b not in shot.end or math.dist(p0, shot.end[b]) > tol)
        ]
        nxt = other(state.to_play)
        table = {b: p for b, p in shot.start.items() if b != cue}
        new = state.evolve(
            to_play=nxt, in_hand=True, shots=state.shots + 1, table=freeze_positions(table),
            placement_warned=False, just_spotted=(),
        )  # fmt: skip
        verdict = Verdict(
            shot=shot.index, player=state.to_play, legal=True,
            void=tuple(b for b in shot.potted if b != cue), spot=tuple(restore), score=state.score,
            next_player=nxt, ball_in_hand=True,
            notes=("played from outside the house with no warning: referee's error, position restored, "
                   "the opponent plays from hand (001 2.1.5в, 2.1.21(1))",),
        )  # fmt: skip
        return verdict, new

    # 2 ---------------------------------------------------------------------------------------------------------
    def fouls(self, j: Judging) -> None:
        """Operator fouls first, then the ones the camera sees (001 2.1.22)."""
        shot, state = j.shot, j.state
        for code in shot.manual_fouls():
            f = MANUAL_FOULS[code]
            if f is Foul.INTERFERENCE:
                j.opponent_fouls.append(f)
            elif code == "body_over_rail" and not state.in_hand:
                j.notes.append("body over the rail outside a shot from hand is no foul (001 2.1.5а)")
            elif f not in j.fouls:
                j.fouls.append(f)
        for cf in self.camera_fouls(j):
            if cf not in j.fouls:
                j.fouls.append(cf)

    def camera_fouls(self, j: Judging) -> list[FoulKind]:
        shot, state = j.shot, j.state
        out: list[FoulKind] = []
        if shot.early:
            out.append(Foul.EARLY_SHOT)  # 2.1.22(3)
        if self.cue_ball is not None and shot.struck != self.cue_ball:
            if self.cue_ball in shot.start or state.cue_seen:
                out.append(Foul.NOT_CUE_BALL)  # 2.1.22(11)
            else:
                # no ball in this frame was ever known as the cue ball (a set whose cue ball the camera cannot tell
                # by its colour): the struck ball may be it, so 2.1.22(11) is the operator's (a rename judges again);
                # a cue ball seen before and now in hand (potted) is known: another ball struck is the foul
                j.notes.append(
                    f"no ball on the table is known as the cue ball, so whether ball {shot.struck} was the cue ball is "
                    "not judged (001 2.1.22(11)): rename the cue ball to judge it"
                )
                j.review = True
        if self.spotted_ball_is_cue_foul and shot.struck in state.just_spotted:
            out.append(Foul.SPOTTED_BALL_AS_CUE)  # 2.1.14, digest A19
        sure, unsure = P.touched_balls(shot.events)
        if sure:
            out.append(Foul.TOUCHED_BALL)  # 2.1.22(4)
        elif unsure:
            j.note_unsure_touch(unsure, "001 2.1.22(4)")
        if state.in_hand and self.struck_is_cue(shot):
            p0 = shot.start[shot.struck]
            if not in_hand_area(self.table, p0, j.temporary):
                out.append(Foul.HAND_OUTSIDE_HOUSE)  # 2.1.22(14), 2.1.5в (unwarned: see referee_error)
            elif hand_shot(shot, j.temporary).house_ball_hit is not None:
                out.append(Foul.HOUSE_BALL_HIT)  # 2.1.22(10), 2.1.5д
        if P.first_ball_hit(shot) is None:
            out.append(Foul.NO_CONTACT)  # 2.1.22(1)
        elif not P.frozen_cue_angle_ok(shot):
            out.append(Foul.FROZEN_CUE_ANGLE)  # 2.1.22(7)
            j.notes.append(self.warned_note(j.state, "cue_frozen", shot.struck))
        if shot.struck in shot.off_table:
            out.append(Foul.CUE_OFF_TABLE)  # 2.1.22(2)
        if self.cue_potted == "foul" and shot.struck in shot.potted:
            out.append(Foul.CUE_POTTED)  # 2.1.22(12)
        return out

    # 3 ---------------------------------------------------------------------------------------------------------
    def counted(self, j: Judging) -> None:
        shot, state = j.shot, j.state
        cue = shot.struck
        # Hanging balls that fell after the shot ended (2.1.15).
        late_counting: list[str] = []
        for e in shot.late:
            b = str(e.ball)
            if b == cue:
                j.put_back[b] = shot.end.get(b, shot.start[b])
                j.notes.append("hanging cue ball fell after the shot: put back, no foul (001 2.1.15)")
            elif P.late_pot_counts(shot, e, self.hanging_grace_s) and not j.fouls:
                late_counting.append(b)
                j.notes.append(f"ball {b} fell within {self.hanging_grace_s:g} s of the stop: counts (001 2.1.15)")
            else:
                j.put_back[b] = shot.end.get(b, shot.start[b])
                j.void.append(b)
                j.notes.append(f"ball {b} fell after the shot ended: put back in the jaws (001 2.1.15)")
        potted = [b for b in shot.potted]
        objects = [b for b in potted if b != cue or self.cue_potted == "counts"]
        if cue in shot.potted or cue in shot.off_table:
            j.cue_lost = self.cue_ball is not None
        if j.fouls:
            j.void += [b for b in objects if b != self.cue_ball]
            if self.cue_ball is None and cue in objects and cue not in j.void:
                j.void.append(cue)
            return
        candidates = objects + late_counting
        # 2.1.10: a cushion-frozen ball rolled in does not count.
        rolled = [b for b in candidates if b != cue and P.rolled_frozen_ball(shot, b)]
        j.rolled = rolled
        for b in rolled:
            j.notes.append(f"ball {b} was rolled along the cushion: not counted (001 2.1.10)")
            j.notes.append(self.warned_note(state, "cushion_frozen", b))
        candidates = [b for b in candidates if b not in rolled]
        excluded = list(rolled)
        if state.in_hand:
            late_events = [e for e in shot.late if e.ball in late_counting]
            ok, not_ok = counted_from_hand(
                shot, candidates, self.fast, j.temporary, self.outside_contact_counts, late_events
            )
            if not_ok:
                j.notes.append(f"from hand, not counted: {', '.join(not_ok)} (001 2.1.5а)")
            excluded += [b for b in not_ok if b not in ok]
            candidates = [b for b in candidates if b in ok]
        candidates, uncalled = self.apply_call(j, candidates)
        excluded += uncalled
        j.counted = candidates
        j.void += [b for b in excluded if b != self.cue_ball]
        if self.cue_ball is not None and cue in potted and self.cue_potted == "counts":
            if cue in j.counted:
                j.cue_counts = True
            else:
                j.notes.append("potted cue ball not counted: it goes to hand (001 2.6.3, digest A18)")

    def current_call(self, j: Judging) -> tuple[str, str | None, str | None] | None:
        """The call in force: ("ball", ball, pocket), ("cue", None, pocket), ("any", None, None) or None."""
        call = None
        for e in j.shot.inputs:
            if e.type == "call":
                call = ("cue", None, e.cue_pocket) if e.cue_pocket else ("ball", e.ball, e.pocket)
            elif e.type == "call_any":
                call = ("any", None, None)
        return call

    def apply_call(self, j: Judging, candidates: list[str]) -> tuple[list[str], list[str]]:
        """001 2.2.6, 2.6.3, 2.11.6: with calls, pots count only when the called ball went legally into the
        called pocket; then every pot of the shot counts. "С падающим" before the opening break: all count."""
        if self.calls == "none" or not candidates:
            return candidates, []
        call = self.current_call(j)
        shot = j.shot
        if call is not None and call[0] == "any":
            if self.call_any and j.state.shots == 0:
                j.notes.append("заказ с падающим on the opening break: every pot counts")
                return candidates, []
            j.notes.append("заказ с падающим is allowed only before the opening break of a fast game")
            call = None
        if call is not None and call[0] == "cue" and self.calls != "ball_or_cue":
            j.notes.append("a call of the cue ball is not part of this game")
            call = None
        if call is None:
            j.notes.append("no call: nothing counts (001 2.2.6)")
            return [], candidates
        ball = shot.struck if call[0] == "cue" else call[1]
        pot = next((e for e in shot.pots + list(shot.late) if e.ball == ball), None)
        if pot is not None and pot.pocket == call[2] and ball in candidates:
            return candidates, []
        j.notes.append(f"called {ball} into {call[2]} did not go: nothing counts")
        return [], candidates

    # 4 ---------------------------------------------------------------------------------------------------------
    def check_safety(self, j: Judging) -> None:
        shot = j.shot
        if j.rolled:
            return  # 2.1.10: the rolled ball is void with no penalty (digest G21(5))
        ok = self.safety_ok(shot)
        if ok:
            j.notes.append(f"safety ({ok.clause})")
            return
        if self.pocket_zone:
            call = self.current_call(j)
            balls = pockets = None
            if call is not None and call[0] in ("ball", "cue"):
                balls = {shot.struck if call[0] == "cue" else str(call[1])}
                pockets = {str(call[2])}
            pz = P.pocket_zone_exception(shot, balls, pockets)
            if pz is None:
                for e in shot.pots:  # a ball that went into a pocket certainly reached its zone
                    wanted = (balls is None or e.ball in balls) and (pockets is None or e.pocket in pockets)
                    start = shot.start.get(str(e.ball), (0.0, 0.0))
                    if wanted and not P.in_blind_zone(self.table, str(e.pocket), start):
                        pz = (str(e.ball), str(e.pocket))
                        break
            if pz is not None:
                j.notes.append(f"play at {pz[1]} with ball {pz[0]}: no foul (001 2.1.12)")
                return
        j.fouls.append(Foul.BAD_SAFETY)
        j.void += [b for b in shot.potted if b not in j.void and b != self.cue_ball]

    def safety_ok(self, shot: Shot) -> P.SafetyResult:
        if self.safety == "2.7.6":
            return P.safety_americanka(shot, self.cushion_identity)
        return P.safety_2_1_11(shot, self.cushion_identity)

    # 5 ---------------------------------------------------------------------------------------------------------
    def apply_penalty(self, j: Judging) -> FrameState:
        """One penalty per shot (001 2.1.22), of this game's size and kind."""
        state = j.state
        if j.fouls:
            return self.penalise(j, state, state.to_play)
        if j.opponent_fouls:
            return self.penalise(j, state, other(state.to_play))
        return state

    def penalise(self, j: Judging, state: FrameState, offender: str) -> FrameState:
        if self.scoring == "points":
            s = set_pair(state.score, offender, state.score[idx(offender)] - self.penalty)
            s = set_pair(s, other(offender), s[idx(other(offender))] + self.penalty)
            return state.evolve(score=s)
        shelves, credits, debts = state.shelves, state.credits, state.debts
        for _ in range(self.penalty):
            shelf = shelves[idx(offender)]
            if shelf:
                ball = shelf[-1]
                shelves = set_pair(shelves, offender, shelf[:-1])
                j.to_spot.append(ball)
                j.notes.append(f"penalty ball {ball} from {offender}'s shelf")
            elif credits[idx(offender)]:
                credits = set_pair(credits, offender, credits[idx(offender)] - 1)
                j.notes.append(f"penalty: one credited ball taken from {offender}")
            else:
                debts = set_pair(debts, offender, debts[idx(offender)] + 1)
                j.notes.append(f"penalty ball owed by {offender} (debt)")
        return state.evolve(shelves=shelves, credits=credits, debts=debts)

    def settle_debts(self, j: Judging, state: FrameState) -> FrameState:
        """001 2.4.7: a debt is collected after the debtor's next potted ball (digest A13: one per ball)."""
        me = state.to_play
        debt = state.debts[idx(me)]
        if self.scoring == "points" or debt == 0 or j.fouls:
            return state
        paid = [b for b in j.counted if b != self.cue_ball][:debt]
        for b in paid:
            j.to_spot.append(b)
            j.notes.append(f"ball {b} pays {me}'s penalty debt")
        if paid:
            state = state.evolve(debts=set_pair(state.debts, me, debt - len(paid)))
            j.paid = paid
        return state

    # 6 ---------------------------------------------------------------------------------------------------------
    def spot(self, j: Judging) -> list[SpotPlacement]:
        """Every ball to put back: penalty balls and debts, void pots, off-table balls (digest order)."""
        shot = j.shot
        cue = shot.struck
        off = [b for b in shot.off_table if b != self.cue_ball]
        order: list[str] = []
        for b in j.to_spot + [v for v in j.void if v not in j.put_back] + off:
            if b not in order and b != self.cue_ball:
                order.append(b)
        extra = self.extra_spots(j)
        order += [b for b in extra if b not in order]
        occupied = {b: p for b, p in shot.end.items() if b not in order and b not in shot.off_table}
        occupied.update(j.put_back)
        placements = [SpotPlacement(b, p) for b, p in j.put_back.items()]
        if self.spot_in_number_order:
            order.sort(key=_number_key)
        if self.cue_ball is None and cue in shot.off_table and cue in order and self.cue_off_table == "spot":
            order.remove(cue)
            order.insert(0, cue)
        placements += [SpotPlacement(b, p) for b, p in self.spot_positions(order, occupied, shot)]
        return placements

    def extra_spots(self, j: Judging) -> list[str]:
        return []

    def spot_positions(
        self, balls: Sequence[str], occupied: Mapping[str, Point], shot: Shot
    ) -> list[tuple[str, Point]]:
        if self.spotting == "back_cushion":
            cue_pos = occupied.get(self.cue_ball) if self.cue_ball else None
            return spot_at_back_cushion(self.table, balls, occupied, side_away_from(self.table, cue_pos))
        return spot_on_line(self.table, balls, occupied)

    # 7 ---------------------------------------------------------------------------------------------------------
    def score_and_win(self, j: Judging, state: FrameState) -> FrameState:
        me = state.to_play
        paid = set(j.paid)
        gained = [b for b in j.counted if b != self.cue_ball]
        shelf = state.shelf(me) + tuple(b for b in gained if b not in paid)
        shelves = set_pair(state.shelves, me, shelf)
        credits = state.credits
        if j.cue_counts:
            credits = set_pair(credits, me, credits[idx(me)] + 1)
        state = state.evolve(shelves=shelves, credits=credits)
        if self.scoring == "points":
            pts = sum(self.ball_value(b) for b in gained)
            score = set_pair(state.score, me, state.score[idx(me)] + pts)
        else:
            score = (len(shelves[0]) + credits[0], len(shelves[1]) + credits[1])
        last = gained[-1] if gained else state.last_potted
        state = state.evolve(score=score, last_potted=last)
        return self.check_win(j, state)

    def check_win(self, j: Judging, state: FrameState) -> FrameState:
        a, b = state.score
        if a >= self.target or b >= self.target:
            return state.evolve(frame_over=True, winner="A" if a > b else "B")
        return state

    # 8 ---------------------------------------------------------------------------------------------------------
    def advance(self, j: Judging, state: FrameState, spots: list[SpotPlacement]) -> tuple[Verdict, FrameState]:
        shot = j.shot
        me = j.state.to_play
        foul = bool(j.fouls)
        nxt = other(me) if foul or not j.counted else me
        if j.rolled and not foul:
            # 2.1.10: "удар переходит к сопернику" - the turn passes even when another ball counted (the
            # document wins over digest A9, which would keep the turn then).
            nxt = other(me)
        play_on = [e.player for e in shot.inputs if e.type == "play_on" and e.player]
        if play_on and foul:
            nxt = str(play_on[-1])
            j.notes.append(f"play on: {nxt} takes the next shot ({self.play_on_clause})")
        in_hand = j.cue_lost and self.cue_ball is not None
        if in_hand and shot.struck in shot.off_table:
            j.notes.append("cue ball to the middle of the front cushion, next shot from hand (001 2.1.13)")
        table = {b: p for b, p in shot.end.items() if b not in shot.off_table}
        for b in j.counted:
            table.pop(b, None)
        for s in spots:
            table[s.ball] = s.pos
        if in_hand:
            table.pop(str(self.cue_ball), None)
        state = state.evolve(
            to_play=nxt,
            in_hand=in_hand,
            shots=j.state.shots + 1,
            table=freeze_positions(table),
            just_spotted=tuple(s.ball for s in spots),
            placement_warned=False,
            pending_removal=me if j.cue_counts else None,
            cue_seen=j.state.cue_seen or self.cue_ball in shot.start,
        )
        state = self.after_shot(j, state)
        if state.frame_over:
            nxt = state.to_play
        state = state.evolve(warnings=self.rest_warnings(table, state.in_hand))
        verdict = Verdict(
            shot=shot.index,
            player=me,
            legal=not j.fouls,
            fouls=tuple(j.fouls) + tuple(j.opponent_fouls),
            counted=tuple(j.counted),
            void=tuple(dict.fromkeys(j.void)),
            spot=tuple(spots),
            score=state.score,
            next_player=state.to_play,
            ball_in_hand=state.in_hand,
            frame_over=state.frame_over,
            winner=state.winner,
            notes=tuple(j.notes),
            review=j.review,
        )
        return verdict, state

    @staticmethod
    def warned_note(state: FrameState, code: str, ball: str) -> str:
        """The warning a call relies on, as given before the stroke (digest G18: verdicts cite the warnings)."""
        for w in state.warnings:
            if w.code == code and (ball in w.balls or code == "cue_frozen"):
                return f"warned before the stroke: {w.text} ({w.rule})"
        return f"no {code.replace('_', ' ')} warning was published before the stroke (001 2.1.20)"

    def rest_warnings(
        self, table: Mapping[str, Point], in_hand: bool, struck: str | None = None
    ) -> tuple[Warning, ...]:
        """001 2.1.20: the mandatory warnings for the balls at rest at ``table`` (this game's share of them);
        ``struck``: the ball about to be struck, where any ball may be (Americanka)."""
        cue = self.cue_ball if self.cue_ball is not None else struck
        objects = [b for b in self.object_balls(table) if b != cue]
        return mandatory_warnings(
            self.table, table, cue, objects, in_hand, self.temporary_house_rule, self.safety != "none"
        )

    def after_shot(self, j: Judging, state: FrameState) -> FrameState:
        """Hook for game-specific flow after the turn is decided (Russian 70:70)."""
        return state

    # ---- lag ---------------------------------------------------------------------------------------------------
    lag_sides: ClassVar[tuple[str, str]] = ("left", "right")  # sides of players A and B

    def judge_lag(self, state: FrameState, shot: Shot) -> tuple[Verdict, FrameState]:
        res = judge_lag(shot, self.lag_sides)
        if res.winner is None:
            v = Verdict(
                shot=shot.index, player=state.to_play, legal=True, score=state.score,
                next_player=state.to_play, ball_in_hand=state.in_hand, notes=("lag: repeat", *res.notes),
            )  # fmt: skip
            return v, state
        new = state.evolve(awaiting_lag=False, to_play=res.winner, in_hand=True, table=None)
        v = Verdict(
            shot=shot.index, player=res.winner, legal=True, score=state.score, next_player=res.winner,
            ball_in_hand=True, notes=(f"lag won by {res.winner} (001 2.1.4)", *res.notes),
        )  # fmt: skip
        return v, new


def _number_key(b: str) -> tuple[int, str]:
    try:
        return (int(b), b)
    except ValueError:
        return (1000, b)
