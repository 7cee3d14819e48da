"""Russian pyramid, 71 points (001 2.2)."""

from __future__ import annotations

from calibration.contract import games
from rules.game import Game, Judging
from rules.inhand import far_corners
from rules.state import FrameState


class Russian71(games.Russian71, Game):
    clause = "001 2.2"
    penalty = 5  # 2.2.8: -5 to the offender, +5 to the opponent
    calls = "ball"  # 2.2.6
    spotting = "line"  # 2.2.7
    spot_in_number_order = True  # 2.2.7: ascending numbers
    cue_potted = "foul"  # 2.1.22(12)
    seventy_seventy = True  # 2.2.9
    last_ball_bonus = 10  # 2.2.4

    def apply_call(self, j: Judging, candidates: list[str]) -> tuple[list[str], list[str]]:
        """2.2.5 with digest A3: on the non-fast break the called ball must go into a far corner."""
        counted, uncalled = super().apply_call(j, candidates)
        if counted and j.state.in_hand and not self.fast:
            call = self.current_call(j)
            if call is not None and call[0] == "ball" and call[2] not in far_corners(j.temporary):
                j.notes.append("from hand the called ball must go into a far corner (001 2.2.5)")
                return [], candidates
        return counted, uncalled

    def score_and_win(self, j: Judging, state: FrameState) -> FrameState:
        state = super().score_and_win(j, state)
        gained = [b for b in j.counted if b != self.cue_ball]
        table_left = [b for b in j.shot.end if b != self.cue_ball and b not in gained]
        table_left += [b for b in j.void + j.to_spot + j.shot.off_table if b != self.cue_ball]
        if gained and not table_left and not j.fouls:
            me = j.state.to_play
            i = 0 if me == "A" else 1
            s = list(state.score)
            s[i] += self.last_ball_bonus
            j.notes.append(f"+{self.last_ball_bonus} for the last ball (001 2.2.4)")
            state = state.evolve(score=(s[0], s[1]))
            state = self.check_win(j, state)
        return state

    def extra_spots(self, j: Judging) -> list[str]:
        """2.2.9: at 70:70 the last potted ball goes back to the back spot."""
        if self._reaches_70_70(j):
            last = [b for b in j.counted if b != self.cue_ball]
            return last[-1:]
        return []

    def _reaches_70_70(self, j: Judging) -> bool:
        if j.state.at_70 or j.fouls:
            return False
        me = j.state.to_play
        pts = sum(self.ball_value(b) for b in j.counted if b != self.cue_ball) + (
            self.last_ball_bonus if j.counted else 0
        )
        s = list(j.state.score)
        s[0 if me == "A" else 1] += pts
        return tuple(s) == (self.target - 1, self.target - 1)

    def after_shot(self, j: Judging, state: FrameState) -> FrameState:
        if state.score == (self.target - 1, self.target - 1) and not state.at_70 and not state.frame_over:
            j.notes.append(
                "70:70: the last potted ball back on the back spot; a lag decides, play from hand (001 2.2.9)"
            )
            me = j.state.to_play
            last = state.last_potted
            shelf = tuple(b for b in state.shelf(me) if b != last)
            shelves = (shelf, state.shelves[1]) if me == "A" else (state.shelves[0], shelf)
            return state.evolve(at_70=True, awaiting_lag=True, in_hand=True, shelves=shelves)
        return state
