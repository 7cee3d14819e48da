"""The Cluster game (seed 000) on the rules base: ``ClusterGame`` and its frame state.

Parameters as data: eight balls to win (3.1), one penalty ball per shot (4.1), sixteen white balls of
which any may be struck (2.2), a potted struck ball counts (3.6г/ж), no ball in hand after the break
(3.4), Cluster spotting (4.1). The judgement of a shot (attack, safety, penalties) is
:func:`rules.cluster.judge.judge` over :func:`rules.cluster.analysis.analyse`; the rest of the base's
fixed order of steps is kept: re-take, judgement, penalty, debts, spotting, score and win, next player.

What the base does not know is kept in :class:`ClusterState`: the game ball of the visit (None: the next
attack is free, 3.6б/г/д). A visit ends whenever the turn passes or a penalty is given (000 5 and digest
4.9: whoever plays next starts a new visit with a free first attack).

Not judged from the camera (operator inputs instead): the 3.6е announcement (``third_ball``), the 3.7
re-order (``reorder``), penalties а/б/в (``manual_foul``), the opponent's choice after a penalty
(``play_on``, 000 5).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from calibration.contract import SpotPlacement, Verdict, games
from calibration.table import TableModel
from rules import predicates as P
from rules.cluster import geometry as geo
from rules.cluster.analysis import DEFAULT_MOVE_TOLERANCE_MM, analyse
from rules.cluster.fouls import ClusterFoul
from rules.cluster.judge import Judgement, judge
from rules.cluster.lag import judge_lag as judge_cluster_lag
from rules.game import Game, Judging
from rules.shot import Point, Shot
from rules.state import FrameState
from rules.warnings import mandatory_warnings


@dataclass(frozen=True)
class ClusterState(FrameState):
    game_ball: str | None = None  # the ball later attacks of the visit must involve; None: free choice

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["game_ball"] = self.game_ball
        return out


class ClusterGame(games.Cluster, Game):
    play_on_after_opponent_foul = True  # 000 5: after either player's penalty, the other chooses who plays
    play_on_clause = "000 5"
    placement_rule = False  # 000 3.4: a break from outside the house is re-taken, no warning and no foul
    clause = "000"
    penalty = 1  # 4.1
    cue_potted = "counts"  # 3.6г/ж
    cue_off_table = "hand"  # only for the base's in-hand flag, which needs a distinct cue ball: never set
    safety = "none"  # the 000 3.8 safety is part of the Cluster judgement, not the base's 2.1.11 step
    temporary_house_rule = False
    hanging_grace_s = 3.0  # 3.9 / 2.2 "3-5 s" window (digest C11): a ball falling within it belongs to the shot
    state_class = ClusterState
    # Cluster's own parameters
    strict_passive: ClassVar[bool] = False  # digest C6: True makes a passive attack a penalty even with 3.8 met
    move_tolerance_mm: ClassVar[float] = DEFAULT_MOVE_TOLERANCE_MM
    spot_clearance_mm: ClassVar[float] = geo.DEFAULT_SPOT_CLEARANCE_MM

    def __init__(
        self,
        table: TableModel | None = None,
        hanging_grace_s: float | None = None,
        strict_passive: bool | None = None,
    ) -> None:
        super().__init__(table, hanging_grace_s)
        if strict_passive is not None:
            self.strict_passive = strict_passive  # type: ignore[misc]

    # ---- the fixed order of steps, with the Cluster judgement in steps 2-4 ----------------------------------
    def judge(self, state: FrameState, shot: Shot) -> tuple[Verdict, FrameState]:
        if state.awaiting_lag:
            return self.judge_lag(state, shot)
        joined = ""
        if state.in_hand and state.shots == 0 and not geo.is_racked(shot.start, self.table):
            # The first shot seen is not a break (the pyramid is not racked): the stream joined a frame in
            # play, so the shot is judged as an ordinary one; the shelves before it are unknown (0:0).
            state = state.evolve(in_hand=False)
            joined = "no racked pyramid at the first shot: frame joined in play, judged as an ordinary shot"
        j = Judging(state, shot)
        if joined:
            j.notes.append(joined)
        retake = self.retake(j)
        if retake is not None:
            return retake
        result = self.judgement(j)
        new = self.apply_penalty(j)
        new = self.settle_debts(j, new)
        spots = self.spot(j)
        new = self.score_and_win(j, new)
        verdict, new = self.advance(j, new, spots)
        keeps_visit = (
            result.continues
            and not j.fouls
            and not j.opponent_fouls  # any penalty starts a new visit (digest 4.9)
            and new.to_play == state.to_play
            and not new.frame_over
        )
        return verdict, new.evolve(game_ball=result.game_ball if keeps_visit else None)

    # 1: the break (3.4) -------------------------------------------------------------------------------------------
    def retake(self, j: Judging) -> tuple[Verdict, FrameState] | None:
        shot, state = j.shot, j.state
        reason = None
        put_back: list[SpotPlacement] = []
        if state.in_hand:
            if not self.table.in_house(shot.start[shot.struck]):
                reason = "re-take: the break is played from the house (000 3.4в)"
            elif not any(
                e.type == "line_cross" and e.line == "house" and e.ball == shot.struck and e.direction == "+x"
                for e in shot.events
            ):
                reason = (
                    "re-take: the cue ball's centre did not cross the house line, so the game has not begun"
                    " (000 3.4а, digest C13)"
                )
        dropped = P.aimed_ball_dropped_first(shot)
        if reason is None and dropped is not None:
            reason = (
                f"re-take: ball {dropped} fell from the jaws before the cue ball reached it (001 2.1.15, digest C14)"
            )
            put_back.append(SpotPlacement(dropped, shot.start[dropped]))
        if reason is None:
            return None
        notes = [reason]
        if state.in_hand and shot.manual_fouls():
            notes.append("operator fouls on a re-taken break do not count: the game had not begun (000 3.4а)")
        verdict = Verdict(
            shot=shot.index, player=state.to_play, legal=True, spot=tuple(put_back), score=state.score,
            next_player=state.to_play, ball_in_hand=state.in_hand, notes=tuple(notes),
        )  # fmt: skip
        return verdict, state

    # 2-4: attack, safety and penalties (3.5-3.8, 4.1) -------------------------------------------------------------
    def judgement(self, j: Judging) -> Judgement:
        shot, state = j.shot, j.state
        events = list(shot.events)
        for e in shot.late:  # a ball falling within the 3.9 window belongs to the shot; later ones go back
            b = str(e.ball)
            if P.late_pot_counts(shot, e, self.hanging_grace_s):
                events.append(e)
                j.notes.append(
                    f"ball {b} fell within {self.hanging_grace_s:g} s of the stop: part of the shot (000 3.9)"
                )
            else:
                j.put_back[b] = shot.end.get(b, shot.start[b])
                j.notes.append(f"ball {b} fell after the shot was over: put back in the jaws (001 2.1.15, digest C14)")
        end = {b: p for b, p in shot.end.items() if not any(e.ball == b for e in events if e.type == "pot")}
        facts = analyse(self.table, shot.struck, events, shot.start, end, self.move_tolerance_mm)
        announced = [b for e in shot.inputs_of("third_ball") for b in (e.balls or ())]
        reorders = [e.ball for e in shot.inputs_of("reorder") if e.ball]
        game_ball = state.game_ball if isinstance(state, ClusterState) else None
        result = judge(
            facts,
            game_ball=game_ball if game_ball in shot.start else None,
            manual_codes=shot.manual_fouls(),
            announced=announced,
            reorder=reorders[-1] if reorders else None,
            early=shot.early,
            strict_passive=self.strict_passive,
        )
        fouls = list(result.fouls)
        if facts.first_object is not None and not P.frozen_cue_angle_ok(shot):
            fouls.append(ClusterFoul.FROZEN_CUE_ANGLE)  # digest C14: 001 2.1.2 with the Cluster penalty
        if fouls and result.counted:
            result = Judgement("foul", tuple(fouls), result.opponent_fouls, (), result.counted, None, result.notes)
        j.fouls += fouls
        j.opponent_fouls += list(result.opponent_fouls)
        j.counted = list(result.counted)
        j.void += list(result.void)
        j.notes.append(self._describe(result, game_ball))
        j.notes += list(result.notes)
        _, unsure = P.touched_balls(events)
        if unsure and not facts.disturbed:
            j.note_unsure_touch(unsure, "000 4.1б")
        return result

    @staticmethod
    def _describe(result: Judgement, game_ball: str | None) -> str:
        head = {
            "productive": "productive attack (000 3.6а)",
            "attack": "unproductive attack (000 3.6а)",
            "safety": "safety (000 3.8)",
            "foul": "penalty (000 4.1)",
        }[result.kind]
        before = f"game ball {game_ball}" if game_ball else "free choice (000 3.6б)"
        if result.kind != "productive":
            return f"{head}; {before}"
        after = f"game ball now {result.game_ball}" if result.game_ball else "next attack free"
        return f"{head}; {before}; {after}"

    # 6: Cluster spotting (4.1) --------------------------------------------------------------------------------------
    def spot_positions(self, balls: Any, occupied: Any, shot: Shot) -> list[tuple[str, Point]]:
        return geo.spot_positions(self.table, list(balls), dict(occupied), self.spot_clearance_mm)

    # 8: the next shot, with the Cluster warnings ---------------------------------------------------------------------
    def advance(self, j: Judging, state: FrameState, spots: list[SpotPlacement]) -> tuple[Verdict, FrameState]:
        verdict, new = super().advance(j, state, spots)
        if j.opponent_fouls and not j.fouls and not new.frame_over:
            # 000 5: after the opponent's penalty the turn is the striker's, who may hand it back (play_on)
            me = j.state.to_play
            chosen = [e.player for e in j.shot.inputs if e.type == "play_on" and e.player]
            nxt = str(chosen[-1]) if chosen else me
            new = new.evolve(to_play=nxt)
            verdict = replace(verdict, next_player=nxt)
        return verdict, new.evolve(warnings=self.rest_warnings(new.table or {}, new.in_hand))

    def rest_warnings(self, table: Any, in_hand: bool, struck: str | None = None) -> tuple[Any, ...]:
        keep = ("on_center_line",)  # 3.8 crossings; the 001 2.1.10 rolling warnings have no place in Cluster
        warnings = mandatory_warnings(self.table, dict(table), None, list(table), False, False, True)
        return tuple(w for w in warnings if w.code in keep)

    # the lag (3.3) ---------------------------------------------------------------------------------------------------
    def judge_lag(self, state: FrameState, shot: Shot) -> tuple[Verdict, FrameState]:
        res = judge_cluster_lag(shot, self.lag_sides)
        if res.winner is None:
            v = Verdict(
                shot=shot.index, player=state.to_play, legal=True, score=state.score,
                next_player=state.to_play, ball_in_hand=state.in_hand, notes=("lag: repeat (000 3.3г)", *res.notes),
            )  # fmt: skip
            return v, state
        new = state.evolve(awaiting_lag=False, to_play=res.winner, breaker=res.winner, in_hand=True, table=None)
        v = Verdict(
            shot=shot.index, player=res.winner, legal=True, score=state.score, next_player=res.winner,
            ball_in_hand=True, notes=(f"lag won by {res.winner}: breaks or cedes (000 3.3в, 3.3д)", *res.notes),
        )  # fmt: skip
        return v, new
