"""The referee engine: a stream of events and operator inputs in, verdicts out.

One engine serves ``tableref referee``, ``analyze`` and the live service::

    ref = Referee("russian71", table=TableModel(), frames_to_win=3)
    for ev in events:                     # calibration.contract.Event records, in stream order
        for verdict in ref.feed(ev):      # new verdicts, and amended ones (verdict.amended is True)
            ...
    ref.state        # FrameState of the frame in play (score, to_play, in hand, shelves, debts, warnings)
    ref.match        # MatchState (frames won)
    ref.snapshot()   # the public view as a dict, for /state
    ref.finals()     # the verdicts as they stand now, one per shot (what verdicts.jsonl holds)

Flow. ``frame_start`` opens a frame (the operator names the breaker: the lag winner breaks or cedes,
later frames alternate, 001 2.1.4). A ``shot_start`` arriving before any frame, or after a frame is over,
with one ball in the house on each side of the longitudinal line, is a lag and is judged as one; the same
after 70:70 (2.2.9) and a blocked-position re-rack (2.1.16, input ``rerack``). ``shot_end`` yields the
verdict. Until the next ``shot_start`` the verdict stays open: a ``manual_foul`` for that shot, a
``play_on`` numbered for it or for the next shot (001 2.1.8: it decides who takes the next shot), or a
hanging ball that falls (a ``pot`` of that shot after its end, 2.1.15) re-judges it from the same state and
yields the amended verdict; once the next shot starts it is frozen (001 1.5.4 L195).

No silent no-op: an input that cannot apply where the frame stands (play on with no foul pending or naming
the player who plays anyway, a call in a game without calls, a duplicate) is refused with the reason, and
any accepted input that would change nothing the snapshot or the verdicts show is refused too. No silent
gap: a record the shot cannot place (a ball not on the table) is left out and the shot judged on the rest,
``review`` true and the reasons in its notes; a ``shot_end`` of a shot with nothing placeable raises
:class:`~rules.errors.UnjudgedShot` with the reason (:meth:`Referee.unjudged_record` gives its record).
``concede`` ends the frame for the other player, credited with the maximum (001 1.5.5); the frame's last
verdict is given again (amended) with that result.

Corrections (documented extensions). ``rename`` ("this ball is number 7") relabels the ball everywhere
from then on (the state, the shot in progress, waiting inputs) and judges the open verdict again, amending
it when it changes; it never merges two balls. ``void_pot`` judges the open verdict again without that pot
and spots the ball (001 2.1.21); after the next stroke both the void and any amendment are refused.

A lag yields a verdict too: legal, no fouls, nothing counted, ``next_player`` the winner (who also stands
as ``player``), ``ball_in_hand`` true, and notes that start with "lag won by" or "lag: repeat" and give
each ball's faults. The 2.1.5в placement warning is given by the engine when the cue ball in hand rests
outside the (temporary) house: between shots from the tracker's positions (:meth:`Referee.placement_due`,
live), or from ``shot_start``'s positions, where the ball stood at rest before the stroke; a stroke from
there is foul 14 (docs/warnings.md). The operator's ``placement_warning`` stays for manual use; with
``auto_warnings=False`` an unwarned stroke from outside is the referee's error (2.1.21(1)).

Errors. Anything the engine cannot accept raises :class:`~rules.errors.RefereeInputError` naming the
line (``feed(ev, line=N)``; without ``line``, the record's sequence number) and leaves the engine as it
was, so verdicts already produced stand.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any

from calibration.contract import Event, SpotPlacement, Verdict
from calibration.table import TableModel
from rules.errors import RefereeInputError, UnjudgedShot
from rules.game import Game
from rules.inhand import in_hand_area, use_temporary_house
from rules.lag import judge_lag
from rules.registry import get_game
from rules.shot import Shot, ShotBuilder, ShotInputError, rebuild_shot
from rules.state import FrameState, MatchState, freeze_positions, idx, other, set_pair
from rules.warnings import Warning


@dataclass(frozen=True)
class _Judged:
    shot: Shot
    before: FrameState
    match_before: MatchState
    verdict: Verdict
    voided: tuple[str, ...] = ()  # balls whose pot the operator voided (void_pot), spotted after judging


class Referee:
    def __init__(
        self,
        game: str | Game,
        table: TableModel | None = None,
        frames_to_win: int = 1,
        hanging_grace_s: float | None = None,
        auto_warnings: bool = True,
    ) -> None:
        # The engine gives the mandatory warnings the camera can see itself (docs/warnings.md); False leaves
        # the 2.1.5в placement warning to the operator (an unwarned stroke from outside is then 2.1.21(1)).
        self.auto_warnings = auto_warnings
        self.rest_s = 0.5  # how long the cue ball in hand stands still before the warning (digest G7's T_still)
        self.rest_mm = 5.0  # "still": within this of where it was put down (the tracker's noise is ~1 mm)
        self._seen: dict[str, tuple[float, float]] = {}
        self._rest: tuple[tuple[float, float], float | None] | None = None
        self.table = table or (game.table if isinstance(game, Game) else TableModel())
        self._grace = hanging_grace_s
        self.game = (
            game if isinstance(game, Game) else get_game(game, table=self.table, hanging_grace_s=hanging_grace_s)
        )
        self.match = MatchState(frames_to_win=frames_to_win)
        self.state: FrameState = self.game.new_frame(0, "A").evolve(frame_over=True)
        self._started = False
        self._open: ShotBuilder | None = None
        self._inputs: dict[int, list[Event]] = {}
        self._last: _Judged | None = None
        self._verdicts: dict[int, Verdict] = {}
        self._order: list[int] = []
        self._next_index = 0
        self._frame_first = 0  # the index of the first shot of the frame in play (its verdicts are the frame's)
        self._seq = 0
        self._frame_notes: list[str] = []
        self._warned = False
        self._refused_starts: dict[int, str] = {}  # shot -> why its shot_start was refused (stated at its end)

    # ---- public API ------------------------------------------------------------------------------------
    def feed(self, ev: Event, line: int | None = None) -> list[Verdict]:
        """Take one record; return the verdicts it produced (new or amended)."""
        self._seq += 1
        where = line if line is not None else self._seq
        saved = self._save()
        before = self.observable() if ev.is_input else None
        try:
            out = self._dispatch(ev)
        except UnjudgedShot as exc:
            self._restore(saved)
            self._refused_starts.pop(exc.shot, None)
            raise UnjudgedShot(exc.shot, exc.why, where) from None
        except (ShotInputError, _Reject) as exc:
            self._restore(saved)
            if ev.type == "shot_start":
                # Nothing of this shot can be placed: its end will say so (a stated reason, not silence).
                index = ev.shot if ev.shot is not None else self._next_index
                self._refused_starts[index] = f"its shot_start was refused ({exc})"
            raise RefereeInputError(where, str(exc)) from None
        except BaseException:
            self._restore(saved)
            raise
        if before is not None and self.observable() == before:
            # No accepted input is a no-op: one that would change nothing a verdict or the state shows is
            # refused, so the operator knows it was not applied.
            self._restore(saved)
            raise RefereeInputError(where, f"{ev.type} changes nothing where the frame stands: not applied")
        return out

    def observable(self) -> str:
        """What the referee shows: the state (snapshot) and the verdicts as they stand, as one JSON text."""
        return json.dumps([self.snapshot(), [v.to_dict() for v in self.finals()]], sort_keys=True, default=str)

    def _save(self) -> dict[str, Any]:
        """The engine's fields, the mutable ones copied, to put back when a record is refused."""
        d = dict(vars(self))
        d["_inputs"] = {k: list(v) for k, v in self._inputs.items()}
        d["_verdicts"] = dict(self._verdicts)
        d["_order"] = list(self._order)
        d["_frame_notes"] = list(self._frame_notes)
        if self._open is not None:
            d["_open"] = self._open.copy()
        return d

    def _restore(self, saved: dict[str, Any]) -> None:
        self.__dict__.clear()
        self.__dict__.update(saved)

    def finals(self) -> list[Verdict]:
        return [self._verdicts[i] for i in self._order]

    def snapshot(self) -> dict[str, Any]:
        out = self.state.to_dict()
        out["match"] = {"frames_won": {"A": self.match.frames_won[0], "B": self.match.frames_won[1]},
                        "frames_to_win": self.match.frames_to_win, "over": self.match.over}  # fmt: skip
        out["expected_breaker"] = self.expected_breaker
        out["shot_in_progress"] = self._open is not None
        out["verdict_open"] = self._last is not None
        out["balls"] = sorted(self.state.table or {}, key=_num)
        # Inputs waiting for their shot (the call in force, a manual foul during the stroke...).
        out["inputs_waiting"] = [e.to_dict() for k in sorted(self._inputs) for e in self._inputs[k]]
        return out

    @property
    def expected_breaker(self) -> str | None:
        """001 2.1.4: who should break the next frame: the lag winner (or whom he cedes to: the operator's
        ``frame_start`` says), then alternating; before the deciding frame the lag is repeated."""
        if self.match.last_breaker is None or self.match.deciding_frame_next:
            return self.match.lag_winner
        return other(self.match.last_breaker)

    def warn_placement(self) -> None:
        """001 2.1.5в: the referee warned the player that the cue ball is placed outside the house. It holds
        for the next stroke (an amendment of the last verdict does not undo it)."""
        self._warned = True
        self.state = self.state.evolve(placement_warned=True)

    # ---- dispatch ----------------------------------------------------------------------------------------------
    def _dispatch(self, ev: Event) -> list[Verdict]:
        t = ev.type
        if t == "frame_start":
            return self._frame_start(ev)
        if t == "shot_start":
            return self._shot_start(ev)
        if t == "shot_end":
            return self._shot_end(ev)
        if ev.is_camera_event:
            return self._camera(ev)
        return self._input(ev)

    def _frame_start(self, ev: Event) -> list[Verdict]:
        if self._open is not None:
            raise _Reject("frame_start while a shot is in progress")
        self._freeze()
        if ev.game and ev.game != self.game.name:
            self.game = get_game(ev.game, table=self.table, hanging_grace_s=self._grace)
        breaker = str(ev.breaker)
        if self.match.over:
            self.match = replace(self.match, frames_won=(0, 0), last_breaker=None)
        expected = self.expected_breaker
        self._frame_notes = []
        if expected is not None and expected != breaker:
            self._frame_notes.append(f"{breaker} breaks; by 001 2.1.4 it was {expected}'s break")
        self.state = self.game.new_frame(self.state.frame + 1 if self._started else 1, breaker)
        self.match = replace(self.match, last_breaker=breaker, lag_winner=None)
        self._frame_first = self._next_index
        self._started = True
        return []

    def _shot_start(self, ev: Event) -> list[Verdict]:
        out: list[Verdict] = []
        early = False
        if self._open is not None:
            # 001 2.1.22(3): the next stroke came before every ball stopped; close the running shot.
            out += self._judge(self._open.finish(None, self._inputs.pop(self._open.index, [])))
            early = True
        self._freeze()
        index = ev.shot if ev.shot is not None else self._next_index
        if index < self._next_index:
            raise _Reject(f"shot {index} is already over (next shot is {self._next_index})")
        if not self._started or self.state.frame_over:
            if self._is_lag_layout(ev):
                self.state = self.state.evolve(awaiting_lag=True)
            elif not self._started:
                self.state = self.game.new_frame(1, self.match.lag_winner or "A")
                self._started = True
                if not self._looks_racked(ev):
                    # A stream that starts in the middle of a frame (a recording, a synthetic scene): no
                    # opening break from hand, the first stroke is an ordinary one.
                    self.state = self.state.evolve(in_hand=False, shots=1)
                    self._frame_notes.append("no frame_start and no racked pyramid: joined a frame in play")
            elif self._looks_racked(ev):
                # The balls are racked again and no frame_start came: the next frame, broken by whoever
                # 001 2.1.4 says (the operator's frame_start would name him).
                breaker = self.expected_breaker or other(self.state.breaker)
                self._frame_start(Event(type="frame_start", game=self.game.name, breaker=breaker))
                self._frame_notes.append(f"no frame_start: the balls racked again open frame {self.state.frame}, "
                                         f"{breaker} breaks (001 2.1.4)")  # fmt: skip
            else:
                raise _Reject("the frame is over and the balls are not racked: frame_start expected")
        if self.state.pending_removal is not None:
            self._reconcile_removal(ev)
        if self.state.table is None and not self.state.awaiting_lag:
            self.state = self.state.evolve(table=freeze_positions(ev.positions or {}))
        if self._warned:
            self.state = self.state.evolve(placement_warned=True)
            self._warned = False
        self._open = ShotBuilder(ev, self.table, index, early=early)
        self._next_index = index + 1
        self._warn_at_stroke(ev)
        self._seen, self._rest = {}, None  # what the tracker showed before this stroke is past
        return out

    # ---- the referee's own warnings (001 2.1.20, 2.1.5в) ---------------------------------------------------
    def _placement_problem(self, positions: Any, cue: str) -> Warning | None:
        """001 2.1.5в: the warning due when the cue ball in hand rests outside the house, or outside the
        temporary house when every object ball is in the house (2.1.5б); None when none is due."""
        st = self.state
        if not self.game.placement_rule or not st.in_hand or st.frame_over or st.awaiting_lag:
            return None
        if cue not in positions:
            return None
        objs = [b for b in self.game.object_balls(positions) if b != cue]
        temporary = self.game.temporary_house_rule and use_temporary_house(self.table, positions, objs)
        if in_hand_area(self.table, positions[cue], temporary):
            return None
        where = "the temporary house (001 2.1.5б)" if temporary else "the house"
        x, y = positions[cue]
        text = (f"the cue ball in hand stands outside {where} at ({x:.0f}, {y:.0f}): place it inside; a stroke "
                "from there is a foul (001 2.1.22(14))")  # fmt: skip
        return Warning("placement", "001 2.1.5в", text, (cue,))

    def _warn_at_stroke(self, ev: Event) -> None:
        """The warnings for the layout the camera saw at rest just before this stroke (``shot_start``'s
        positions). The 2.1.20 ones are published for the shot; the 2.1.5в placement warning, when the live
        service has not given it already between shots (:meth:`placement_due`), is given here from the
        cue ball's resting place: the camera saw it come to rest there before the stroke, and an automatic
        referee warns the moment it does, so the stroke from there came after the warning (foul 14)."""
        st = self.state
        if st.awaiting_lag:
            return
        positions = ev.positions or {}
        warnings = self.game.rest_warnings(positions, st.in_hand, str(ev.ball))
        cue = self.game.cue_ball if self.game.cue_ball is not None else str(ev.ball)
        w = self._placement_problem(positions, cue)
        if w is not None:
            warnings = (*warnings, w)
            if self.auto_warnings and not st.placement_warned:
                st = st.evolve(placement_warned=True)
                self._frame_notes.append(f"warned by the engine when the cue ball came to rest: {w.text} ({w.rule})")
        self.state = st.evolve(warnings=warnings)

    def placement_due(
        self, positions: Mapping[str, tuple[float, float]] | None, t: float | None = None
    ) -> Event | None:
        """Between shots, the balls as the tracker sees them now (None: unchanged since the last call): when
        the cue ball in hand has stood outside the (temporary) house for ``rest_s`` seconds and no warning is
        given yet, the ``placement_warning`` record the referee gives now (001 2.1.5в). The caller records
        it like an operator's input (so it is on the stream, and replayed after a restart) and feeds it back;
        None when nothing is due."""
        if positions is not None:
            self._seen = dict(positions)
        cue = self.game.cue_ball
        st = self.state
        if self._open is not None or cue is None or self._warned or st.placement_warned:
            self._rest = None
            return None
        w = self._placement_problem(self._seen, cue)
        if w is None:
            self._rest = None
            return None
        p = self._seen[cue]
        if self._rest is None or math.dist(self._rest[0], p) > self.rest_mm:
            self._rest = (p, t)
            return None
        since = self._rest[1]
        if t is not None and since is not None and t - since < self.rest_s:
            return None
        self._rest = None
        return Event(type="placement_warning", t=t, shot=self._next_index)

    def _camera(self, ev: Event) -> list[Verdict]:
        if self._open is None:
            if ev.type == "pot" and self._last is not None and ev.shot in (None, self._last.shot.index):
                last = self._last
                b = str(ev.ball)
                if b not in last.shot.end:
                    raise _Reject(f"ball '{b}' is not on the table")
                if any(e.ball == b for e in last.shot.late):
                    raise _Reject(f"ball '{b}' is potted twice")
                return self._rejudge(last.shot.with_late((*last.shot.late, ev)))
            if ev.type == "disturbed":
                # Between strokes hands move balls all the time (spotting, the cue ball in hand), so a ball
                # moving then is not judged: it is noted on the next verdict for the operator (2.1.22(4)
                # by manual_foul if it was a player).
                self._frame_notes.append(
                    f"ball {ev.ball} moved between shots: not judged (001 2.1.22(4) by the operator if a player)"
                )
                return []
            raise _Reject(f"{ev.type} event outside a shot")
        self._open.add(ev)  # a record it cannot place is kept aside with the reason (review)
        return []

    def _shot_end(self, ev: Event) -> list[Verdict]:
        if self._open is None:
            index = ev.shot if ev.shot is not None else self._next_index
            if index in self._verdicts and index not in self._refused_starts:
                raise _Reject(f"shot {index} has already ended: its verdict stands")
            why = self._refused_starts.pop(index, None)
            if why is None:
                why = "no shot_start came for it, so none of its records could be placed"
            raise UnjudgedShot(index, why)
        shot = self._open.finish(ev, self._inputs.pop(self._open.index, []))
        self._seen = dict(shot.end)  # the balls at rest now, until the tracker shows more (placement_due)
        return self._judge(shot)

    def unjudged_record(self, shot: int, reason: str) -> dict[str, Any]:
        """The stated reason for a shot that ended unjudged, in the shape of a verdict object (CONTRACT.md
        section 4): ``judged`` false, ``legal`` null, nothing counted, the score, the player to play and the
        ball in hand as they stand (unchanged), ``review`` true and the reason in ``notes``."""
        st = self.state
        return {
            "shot": shot, "player": st.to_play, "legal": None, "fouls": [], "counted": [], "void": [], "spot": [],
            "score": {"A": st.score[0], "B": st.score[1]}, "next_player": st.to_play,
            "ball_in_hand": st.in_hand, "frame_over": st.frame_over, "winner": st.winner,
            "notes": [f"not judged: {reason}"], "review": True, "judged": False,
        }  # fmt: skip

    def _input(self, ev: Event) -> list[Verdict]:
        t = ev.type
        if t == "rerack":
            return self._rerack()
        if t == "concede":
            return self._concede(str(ev.player))
        if t == "rename":
            return self._rename(str(ev.ball), str(ev.to))
        if t == "void_pot":
            return self._void_pot(str(ev.ball), ev.shot)
        if t == "placement_warning":
            self._check_placement_warning()
            self.warn_placement()
            return []
        if t == "play_on":
            return self._play_on(ev)
        target = ev.shot
        if t == "manual_foul":
            if target is None:
                target = self._open.index if self._open is not None else (
                    self._last.shot.index if self._last is not None else self._next_index
                )  # fmt: skip
            if self._open is None and self._last is not None and target == self._last.shot.index:
                if ev.code in self._last.shot.manual_fouls():
                    raise _Reject(f"manual foul '{ev.code}' is already recorded on shot {target}")
                return self._rejudge(self._last.shot.with_inputs((*self._last.shot.inputs, ev)))
            if self._open is not None and target == self._open.index:
                self._store(target, ev)
                return []
            if target < self._next_index:
                raise _Reject(f"the verdict on shot {target} is frozen")
            if target > self._next_index:
                raise _Reject(f"manual_foul for shot {target}: the next shot is shot {self._next_index}")
            self._store(target, ev)
            return []
        # calls, third balls, re-order: for the next shot, before its stroke (2.2.6: not during it)
        if target is None:
            target = self._next_index
        if target < self._next_index:
            raise _Reject(f"{t} for shot {target} after its stroke")
        if target > self._next_index:
            raise _Reject(f"{t} for shot {target}: it is made before the next shot, shot {self._next_index}")
        self._check_applies(ev)
        self._store(target, ev)
        return []

    def _store(self, target: int, ev: Event) -> None:
        """Keep an input for the shot it names (judged with it); the same input twice changes nothing."""
        waiting = self._inputs.get(target, [])
        key = _input_key(ev)
        if ev.type in ("call", "call_any"):
            # 001 2.2.6: a call may be changed before the stroke; the last one is in force.
            calls = [e for e in waiting if e.type in ("call", "call_any")]
            if calls and _input_key(calls[-1]) == key:
                raise _Reject(f"that call is already in force for shot {target}")
        elif any(_input_key(e) == key for e in waiting):
            raise _Reject(f"{ev.type} for shot {target} is already recorded")
        self._inputs.setdefault(target, []).append(ev)

    def _check_applies(self, ev: Event) -> None:
        """An input for the next shot that this game, where it stands, would never use is refused with the
        reason (an accepted input always changes something: the call in force, the next verdict)."""
        g, t = self.game, ev.type
        cluster = self.game.name == "cluster"
        if t in ("reorder", "third_ball") and not cluster:
            clause = "000 3.7" if t == "reorder" else "000 3.6е"
            raise _Reject(f"{t} is a Cluster input ({clause}); {g.name} has no such rule")
        if t == "call":
            if cluster:
                raise _Reject("cluster has no calls: a player announces third balls (000 3.6е) or re-orders (000 3.7)")
            if g.calls == "none":
                raise _Reject(f"{g.name} has no calls (001 2.2.6, 2.6.3, 2.11.6: the called games only)")
            if ev.cue_pocket and g.calls != "ball_or_cue":
                raise _Reject(f"{g.name} has no call of the cue ball (001 2.6.3: Moscow fast called only)")
            table = self.state.table
            if ev.ball and table is not None and not self.state.awaiting_lag and ev.ball not in table:
                raise _Reject(f"called ball '{ev.ball}' is not on the table")
        if t == "call_any":
            if not g.call_any:
                raise _Reject(f"{g.name} has no заказ с падающим (001 2.3.2, 2.6.3, 2.11.6: the fast called games)")
            if self.state.shots != 0 or self.state.frame_over:
                raise _Reject("заказ с падающим is made before the opening break only (001 2.3.2, 2.6.3, 2.11.6)")

    def _check_placement_warning(self) -> None:
        """001 2.1.5в: the warning is given to a player placing the cue ball in hand, before the stroke."""
        if self._open is not None:
            raise _Reject("placement_warning during a shot: it is given before the stroke (001 2.1.5в)")
        st = self.state
        if st.frame_over or not st.in_hand or st.awaiting_lag:
            raise _Reject("no cue ball in hand: the placement warning is for a shot from the house (001 2.1.5в)")
        if self._warned or st.placement_warned:
            raise _Reject("the placement warning is already given for this shot (001 2.1.5в)")

    def _play_on(self, ev: Event) -> list[Verdict]:
        """001 2.1.8 (000 5): after a penalty the other player may order the offender to play on. Sent
        between the foul shot's end and the next stroke, numbered for either of the two; it amends the foul
        shot's verdict (``next_player``). Anything else is refused with the reason."""
        last = self._last
        who = str(ev.player)
        rule = self.game.play_on_clause
        if self._open is not None:
            raise _Reject(
                f"play on is chosen after the foul shot has ended, before the next stroke; shot {self._open.index} "
                f"is in progress ({rule})"
            )
        if last is None:
            raise _Reject(f"no foul pending: play on follows a foul, before the next stroke ({rule})")
        i = last.shot.index
        if ev.shot is not None and ev.shot not in (i, i + 1):
            if ev.shot < i:
                raise _Reject(f"the verdict on shot {ev.shot} is frozen: the next stroke was played (001 1.5.4)")
            raise _Reject(f"play on for shot {ev.shot}: the foul pending is shot {i}'s (name shot {i} or {i + 1})")
        v = last.verdict
        if last.before.awaiting_lag:
            raise _Reject(f"shot {i} was a lag: no foul pending ({rule})")
        if v.frame_over:
            raise _Reject(f"shot {i} ended the frame: there is no next shot to play on")
        offender = self._offender(v)
        if offender is None:
            what = "the penalty fell on the opponent (001 2.1.22(15))" if v.fouls else "it was no foul"
            raise _Reject(f"no foul pending: shot {i} was played by {v.player} and {what}; play on follows a "
                          f"penalty on the striker ({rule})")  # fmt: skip
        if who == v.next_player:
            if who == offender:
                raise _Reject(f"{who} is already ordered to play on after the foul of shot {i}")
            raise _Reject(f"wrong player: {who} takes the next shot anyway after {offender}'s foul; play on "
                          f"orders the offender, {offender}, to play ({rule})")  # fmt: skip
        order = ev.model_copy(update={"shot": i})
        return self._rejudge(last.shot.with_inputs((*last.shot.inputs, order)))

    def _offender(self, v: Verdict) -> str | None:
        """The player a penalty fell on in verdict ``v``: the striker (a foul of his), or, where the game lets
        the non-offender choose after the opponent's penalty too (000 5), the opponent; else None."""
        if not v.legal:
            return v.player
        if v.fouls and self.game.play_on_after_opponent_foul:
            return other(v.player)
        return None

    # ---- judging and amending ---------------------------------------------------------------------------------------
    def _judged(self, before: FrameState, shot: Shot) -> tuple[Verdict, FrameState]:
        """The game's judgement of ``shot``; a shot judged without records it could not place is flagged
        for review, the reasons in its notes (the operator's ``rename`` can place them and judge again)."""
        verdict, after = self.game.judge(before, shot)
        if shot.unplaced:
            head = f"judged on the records that could be placed; {len(shot.unplaced)} left out, for review: "
            verdict = replace(verdict, review=True, notes=(*verdict.notes, head + "; ".join(shot.unplaced)))
        return verdict, after

    def _judge(self, shot: Shot) -> list[Verdict]:
        self._open = None
        before, match_before = self.state, self.match
        verdict, after = self._judged(before, shot)
        if self._frame_notes:
            verdict = replace(verdict, notes=(*self._frame_notes, *verdict.notes))
            self._frame_notes = []
        self._commit(_Judged(shot, before, match_before, verdict), after)
        return [verdict]

    def _rejudge(self, shot: Shot, voided: tuple[str, ...] | None = None) -> list[Verdict]:
        last = self._last
        assert last is not None
        voided = last.voided if voided is None else voided
        verdict, after = self._judged(last.before, shot)
        verdict, after = self._spot_voided(verdict, after, shot, voided)
        verdict = replace(verdict, amended=True)
        self.match = last.match_before
        self._commit(_Judged(shot, last.before, last.match_before, verdict, voided), after)
        return [verdict]

    # ---- operator corrections (001 2.1.21, 1.5.4) --------------------------------------------------------
    def _void_pot(self, ball: str, shot: int | None) -> list[Verdict]:
        """The pot of ``ball`` in the last shot did not happen (the camera was wrong) or the referee voids
        it: the shot is judged again without it and the ball goes back on the table on its spot. Only
        while the verdict is open: 001 1.5.4, a ruling may be changed only before the next stroke."""
        last = self._last
        if self._open is not None or last is None or (shot is not None and shot != last.shot.index):
            which = f"shot {shot}" if shot is not None else "the last shot"
            raise _Reject(
                f"the verdict on {which} is final: the next stroke was played (001 1.5.4: a ruling may be "
                "changed only before the next stroke)"
            )
        if last.before.awaiting_lag:
            raise _Reject(f"shot {last.shot.index} was a lag: it has no pot to void")
        old = last.shot
        pots = [e for e in old.events if e.type == "pot" and e.ball == ball]
        late = [e for e in old.late if e.ball == ball]
        if not pots and not late:
            raise _Reject(f"ball '{ball}' was not potted in shot {old.index}")
        # Judged as if the ball never moved (the pot is gone); spotted afterwards (_spot_voided).
        end = dict(old.end)
        end[ball] = old.start[ball]
        new = replace(
            old,
            events=tuple(e for e in old.events if not (e.type == "pot" and e.ball == ball)),
            late=tuple(e for e in old.late if e.ball != ball),
            end=freeze_positions(end),
        )
        return self._rejudge(new, (*last.voided, ball))

    def _spot_voided(
        self, verdict: Verdict, after: FrameState, shot: Shot, voided: tuple[str, ...]
    ) -> tuple[Verdict, FrameState]:
        """Each voided ball on its spot by the game's own spotting (001 2.1.21(2): the pot is void)."""
        if not voided:
            return verdict, after
        notes = list(verdict.notes)
        cue = self.game.cue_ball
        if cue is not None and cue in voided:
            # The cue ball is never spotted: it stays where it lies (the next shot_start shows where).
            notes.append("pot of the cue ball voided by the referee: it plays from where it lies (001 2.1.21, 1.5.4)")
        spotted = [b for b in voided if b != cue]
        if not spotted:
            return replace(verdict, notes=tuple(notes)), after
        table = {b: p for b, p in (after.table or {}).items() if b not in spotted}
        placed = self.game.spot_positions(spotted, table, shot)
        table.update(placed)
        spots = (*(s for s in verdict.spot if s.ball not in spotted), *(SpotPlacement(b, p) for b, p in placed))
        notes.append(f"pot of {', '.join(spotted)} voided by the referee: spotted (001 2.1.21, 1.5.4)")
        verdict = replace(verdict, spot=spots, notes=tuple(notes))
        just = (*(b for b in after.just_spotted if b not in spotted), *spotted)
        return verdict, after.evolve(table=freeze_positions(table), just_spotted=just)

    def _rename(self, old: str, new: str) -> list[Verdict]:
        """ "This ball is number 7": the ball known as ``old`` is ``new`` from now on, in the state, the shot
        in progress, the inputs waiting for a shot and the open verdict (judged again when it changes).

        ``old`` may also be an id that only records left out of a shot name (the tracker gave a ball a new
        id in mid-shot): its records are then placed under ``new``, which may be a ball of that shot's start
        (the one the tracker lost), and the shot is judged again."""
        last, open_ = self._last, self._open
        placed = set(self.state.table or {}) | set(self.state.shelves[0]) | set(self.state.shelves[1])
        if open_ is not None:
            placed |= set(open_.start.positions or {})
        if last is not None:
            placed |= set(last.shot.start)
        loose_open = _loose_ids(open_.start.positions or {}, open_.records, None) if open_ is not None else set()
        loose_last = _loose_ids(last.shot.start, last.shot.records, last.shot.end_record) if last else set()
        taken = set(self.state.table or {}) | set(self.state.shelves[0]) | set(self.state.shelves[1])
        if open_ is not None:
            taken |= set(open_.start.positions or {})
        if old in placed:
            if new in taken:
                raise _Reject(f"ball '{new}' is already on the table: a rename never merges two balls")
        elif old in loose_open or old in loose_last:
            shots = ([open_.records] if old in loose_open and open_ is not None else []) + (
                [(*last.shot.records, *([last.shot.end_record] if last.shot.end_record else []))]
                if old in loose_last and last is not None else []
            )  # fmt: skip
            if any(old in _names(e) and new in _names(e) for recs in shots for e in recs):
                raise _Reject(f"balls '{old}' and '{new}' are both seen at once: a rename never merges two balls")
            lost = (set(open_.start.positions or {}) if old in loose_open and open_ is not None else set()) | (
                set(last.shot.start) if old in loose_last and last is not None else set()
            )  # fmt: skip
            if new in taken and new not in lost:
                raise _Reject(f"ball '{new}' is already on the table: a rename never merges two balls")
        else:
            raise _Reject(f"no ball '{old}' to rename")
        m = {old: new}
        self.state = relabel_state(self.state, m)
        self._inputs = {k: [relabel_event(e, m) for e in v] for k, v in self._inputs.items()}
        if open_ is not None:
            rebuilt = ShotBuilder(relabel_event(open_.start, m), open_.table, open_.index, early=open_.early)
            for e in open_.records:
                rebuilt.add(relabel_event(e, m))
            self._open = rebuilt
        if last is None or (old not in last.shot.start and old not in loose_last):
            return []
        shot = relabel_shot(last.shot, m)
        before = relabel_state(last.before, m)
        voided = tuple(m.get(b, b) for b in last.voided)
        verdict, after = self._judged(before, shot)
        verdict, after = self._spot_voided(verdict, after, shot, voided)
        changed = replace(verdict, notes=()) != replace(last.verdict, notes=(), amended=False)
        verdict = replace(verdict, amended=True) if changed else last.verdict
        self.match = last.match_before
        self._commit(_Judged(shot, before, last.match_before, verdict, voided), after)
        return [verdict] if changed else []

    def _commit(self, judged: _Judged, after: FrameState) -> None:
        self.state = after
        self._last = judged
        i = judged.shot.index
        if i not in self._verdicts:
            self._order.append(i)
        self._verdicts[i] = judged.verdict
        if judged.verdict.frame_over and judged.verdict.winner and not judged.before.frame_over:
            won = set_pair(self.match.frames_won, judged.verdict.winner,
                           self.match.frames_won[idx(judged.verdict.winner)] + 1)  # fmt: skip
            self.match = replace(self.match, frames_won=won)
        if judged.shot.index >= 0 and judged.verdict.notes and judged.verdict.notes[0].startswith("lag won"):
            self.match = replace(self.match, lag_winner=judged.verdict.next_player)

    def _freeze(self) -> None:
        self._last = None

    # ---- operator flow -------------------------------------------------------------------------------------
    def _rerack(self) -> list[Verdict]:
        """001 2.1.16: the remaining object balls are racked as a (shortened) pyramid, apex on the back spot;
        a lag decides who plays, from hand (Americanka: all but one ball, the lag winner takes it in hand,
        digest A24)."""
        if self._open is not None:
            raise _Reject("rerack while a shot is in progress")
        table = dict(self.state.table or {})
        objs = sorted(self.game.object_balls(table), key=_num)
        keep_out = 1 if self.game.cue_ball is None and objs else 0
        rack = self.table.rack_positions(rows=5)
        if len(objs) - keep_out > len(rack):
            # the table as the referee holds it has more balls than a game has (a tracker id for a ball it
            # also knows by number, or something that is no ball): the ids must be put right before a rerack
            raise _Reject(
                f"rerack: the table holds {len(objs)} object balls, more than the {len(rack) + keep_out} a game "
                "has; correct the ball ids first (001 2.1.16)"
            )
        self._freeze()
        placed = {b: rack[i] for i, b in enumerate(objs[: len(objs) - keep_out])}
        self.state = self.state.evolve(table=freeze_positions(placed), awaiting_lag=True, in_hand=True)
        return []

    def _concede(self, player: str) -> list[Verdict]:
        """001 1.5.5 "Объявление поражения": "Участник может признать свое поражение в партии ... его счет в
        партии сохраняется таким, каким он был на момент объявления ему поражения, а сопернику (победителю)
        будет записан максимальный счет (71 очко или 8 шаров)". The frame ends; the conceder's score stands,
        the winner's becomes the game's target. The frame's last verdict is given again with that result
        (amended, the concession in its notes), so every reader of verdicts (the overlay's score, the
        protocol, verdicts.jsonl) sees how the frame ended; a frame conceded before its first stroke has no
        shot to carry it, and the state (``snapshot``) alone shows it."""
        if self._open is not None:
            raise _Reject("concede while a shot is in progress")
        if self.state.frame_over or not self._started:
            raise _Reject("no frame in play to concede (001 1.5.5)")
        winner = other(player)
        s = self.state.score
        s = set_pair(s, winner, max(s[idx(winner)], self.game.target))
        self.state = self.state.evolve(frame_over=True, winner=winner, score=s)
        won = set_pair(self.match.frames_won, winner, self.match.frames_won[idx(winner)] + 1)
        self.match = replace(self.match, frames_won=won)
        self._freeze()
        last = self._order[-1] if self._order and self._order[-1] >= self._frame_first else None
        if last is None:
            return []
        note = (f"{player} concedes the frame: {winner} is credited with the frame's maximum, "
                f"{self.game.target}; {player}'s score stands (001 1.5.5)")  # fmt: skip
        v = self._verdicts[last]
        v = replace(v, score=s, frame_over=True, winner=winner, notes=(*v.notes, note), amended=True)
        self._verdicts[last] = v
        return [v]

    def _looks_racked(self, ev: Event) -> bool:
        """Most of the table's balls stand on the rack positions of 001 2.1.3 (the opening break is next)."""
        rack = self.table.rack_positions()
        tol = self.table.ball_radius_mm
        near = sum(1 for p in (ev.positions or {}).values() if any(math.dist(p, q) <= tol for q in rack))
        return near >= 10

    def _is_lag_layout(self, ev: Event) -> bool:
        pos = ev.positions or {}
        in_house = [p for p in pos.values() if self.table.in_house(p)]
        sides = {self.table.side(p) for p in in_house}
        return len(in_house) == 2 and sides == {"left", "right"}

    def _reconcile_removal(self, ev: Event) -> None:
        """001 2.4.5: the ball the opponent named for a potted cue ball is gone from the table at the next
        stroke; it goes to the shelf of the player it was credited to."""
        st = self.state
        player = str(st.pending_removal)
        known = set(st.table or {})
        now = set(ev.positions or {})
        gone = sorted(b for b in known - now if b != self.game.cue_ball)
        if gone and st.credits[idx(player)] > 0:
            b = gone[0]
            shelves = set_pair(st.shelves, player, (*st.shelf(player), b))
            credits = set_pair(st.credits, player, st.credits[idx(player)] - 1)
            table = {k: v for k, v in (st.table or {}).items() if k != b}
            self.state = st.evolve(shelves=shelves, credits=credits, table=freeze_positions(table))
        self.state = self.state.evolve(pending_removal=None)


class _Reject(Exception):
    pass


# ---- relabelling (rename) -------------------------------------------------------------------------------
_NOT_BALLS = frozenset({"game", "breaker", "to_play", "winner", "pending_removal"})


def _relabel(value: Any, m: dict[str, str]) -> Any:
    """``value`` with every ball id in ``m`` replaced: strings, tuples, lists, mappings (keys and values),
    warnings (their balls)."""
    if isinstance(value, str):
        return m.get(value, value)
    if isinstance(value, tuple):
        return tuple(_relabel(v, m) for v in value)
    if isinstance(value, list):
        return [_relabel(v, m) for v in value]
    if isinstance(value, MappingProxyType):
        return MappingProxyType({_relabel(k, m): _relabel(v, m) for k, v in value.items()})
    if isinstance(value, dict):
        return {_relabel(k, m): _relabel(v, m) for k, v in value.items()}
    if isinstance(value, Warning):
        return replace(value, balls=_relabel(value.balls, m))
    return value


def relabel_state(state: FrameState, m: dict[str, str]) -> FrameState:
    """The frame state with balls renamed (table, shelves, spotted, last potted, game-specific fields)."""
    changes = {f.name: _relabel(getattr(state, f.name), m) for f in fields(state) if f.name not in _NOT_BALLS}
    return replace(state, **changes)


def relabel_event(ev: Event, m: dict[str, str]) -> Event:
    upd: dict[str, Any] = {}
    if ev.ball is not None and ev.ball in m:
        upd["ball"] = m[ev.ball]
    if ev.balls is not None:
        upd["balls"] = tuple(m.get(b, b) for b in ev.balls)
    if ev.positions is not None:
        upd["positions"] = {m.get(b, b): p for b, p in ev.positions.items()}
    return ev.model_copy(update=upd) if upd else ev


def relabel_shot(shot: Shot, m: dict[str, str]) -> Shot:
    """The shot built again from its records with the balls renamed: records that named an unknown ball
    may be placed now."""
    return rebuild_shot(shot, lambda e: relabel_event(e, m))


def _names(ev: Event) -> set[str]:
    """The balls a record names (its ball, its balls, the balls of its positions)."""
    return {*(ev.balls or ()), *((ev.ball,) if ev.ball else ()), *(ev.positions or {})}


def _loose_ids(start: Any, records: Any, end: Event | None) -> set[str]:
    """Ids named by a shot's records (and its shot_end) that were not on the table at its stroke."""
    named: set[str] = set()
    for e in (*records, *((end,) if end is not None else ())):
        named |= _names(e)
    return named - set(start)


def _input_key(ev: Event) -> str:
    """An input's meaning without its time (two records of the same choice are the same input)."""
    return ev.model_copy(update={"t": None, "frame": None}).to_json()


def _num(b: str) -> tuple[int, str]:
    try:
        return (int(b), b)
    except ValueError:
        return (1000, b)


def referee_lines(
    game: str, lines: Any, frames_to_win: int = 1, on_refused: Callable[[int, str], None] | None = None
) -> Any:
    """Verdicts (final, one per shot) for the lines of an events file. A generator over ``(Verdict)``.

    A record the engine refuses where it stands (an operator input that cannot apply, a camera record
    outside any shot, the end of a shot nothing of which could be placed) goes to ``on_refused(line,
    message)`` and refereeing goes on from the state before it; the refusal is also noted on the verdict
    of the shot it named (or the next verdict given), so the output keeps a record of it. Without
    ``on_refused`` the first refusal raises. A malformed line always raises, after every verdict frozen
    before it has been yielded."""
    from calibration.contract import parse_line

    ref = Referee(game, frames_to_win=frames_to_win)
    emitted: set[int] = set()
    notes: list[tuple[int, str]] = []
    for n, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            ev = parse_line(text, n)
        except ValueError:
            yield from _pending(ref, emitted, notes, final=True)
            raise
        try:
            ref.feed(ev, line=n)
        except RefereeInputError as exc:
            if on_refused is None:
                yield from _pending(ref, emitted, notes, final=True)
                raise
            shot = exc.shot if isinstance(exc, UnjudgedShot) else ev.shot
            what = "" if isinstance(exc, UnjudgedShot) else f"{ev.type} refused: "
            on_refused(n, f"line {n}: {what}{exc.reason}")
            notes.append((shot if shot is not None else -1, f"line {n}: {what}{exc.reason}"))
        yield from _pending(ref, emitted, notes, final=False)
    yield from _pending(ref, emitted, notes, final=True)


def _pending(ref: Referee, emitted: set[int], notes: list[tuple[int, str]], final: bool) -> Any:
    open_index = ref._last.shot.index if ref._last is not None and not final else None
    for v in ref.finals():
        if v.shot not in emitted and v.shot != open_index:
            emitted.add(v.shot)
            mine = [text for shot, text in notes if shot <= v.shot]
            if mine:
                notes[:] = [(shot, text) for shot, text in notes if shot > v.shot]
                v = replace(v, notes=(*v.notes, *mine))
            yield v


__all__ = ["Referee", "RefereeInputError", "judge_lag", "referee_lines"]
