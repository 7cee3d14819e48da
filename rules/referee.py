"""The referee engine: a stream of events and operator inputs in, verdicts out.

One engine serves ``tableref referee``, ``analyze`` and the live service::

    ref = Referee("russian71", table=TableModel(), frames_to_win=3)
    for ev in events:                     # tracking.events.Event records, in stream order
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
verdict. Until the next ``shot_start`` the verdict stays open: a ``manual_foul`` or ``play_on`` for that
shot, or a hanging ball that falls (a ``pot`` of that shot after its end, 2.1.15) re-judges it from the
same state and yields the amended verdict; once the next shot starts it is frozen (001 1.5.4 L195).
``concede`` ends the frame for the other player, credited with the maximum (001 1.5.5).

Corrections (documented extensions). ``rename`` ("this ball is number 7") relabels the ball everywhere
from then on (the state, the shot in progress, waiting inputs) and judges the open verdict again, amending
it when it changes; it never merges two balls. ``void_pot`` judges the open verdict again without that pot
and spots the ball (001 2.1.21); after the next stroke both the void and any amendment are refused.

A lag yields a verdict too: legal, no fouls, nothing counted, ``next_player`` the winner (who also stands
as ``player``), ``ball_in_hand`` true, and notes that start with "lag won by" or "lag: repeat" and give
each ball's faults. The 2.1.5в placement warning is the operator input ``placement_warning`` (or
:meth:`Referee.warn_placement`); a stroke from outside the house after it is foul 14, without it the
referee's error (2.1.21(1)).

Errors. Anything the engine cannot accept raises :class:`~rules.errors.RefereeInputError` naming the
line (``feed(ev, line=N)``; without ``line``, the record's sequence number) and leaves the engine as it
was, so verdicts already produced stand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any

from calibration.table import TableModel
from rules.errors import RefereeInputError
from rules.game import Game
from rules.lag import judge_lag
from rules.registry import get_game
from rules.shot import Shot, ShotBuilder, ShotInputError
from rules.state import FrameState, MatchState, freeze_positions, idx, other, set_pair
from rules.verdict import SpotPlacement, Verdict
from rules.warnings import Warning
from tracking.events import Event


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
    ) -> None:
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
        self._seq = 0
        self._frame_notes: list[str] = []
        self._warned = False

    # ---- public API ------------------------------------------------------------------------------------
    def feed(self, ev: Event, line: int | None = None) -> list[Verdict]:
        """Take one record; return the verdicts it produced (new or amended)."""
        self._seq += 1
        where = line if line is not None else self._seq
        try:
            return self._dispatch(ev)
        except ShotInputError as exc:
            raise RefereeInputError(where, str(exc)) from None
        except _Reject as exc:
            raise RefereeInputError(where, str(exc)) from None

    def finals(self) -> list[Verdict]:
        return [self._verdicts[i] for i in self._order]

    def snapshot(self) -> dict[str, Any]:
        out = self.state.to_dict()
        out["match"] = {"frames_won": {"A": self.match.frames_won[0], "B": self.match.frames_won[1]},
                        "frames_to_win": self.match.frames_to_win, "over": self.match.over}  # fmt: skip
        out["expected_breaker"] = self.expected_breaker
        out["shot_in_progress"] = self._open is not None
        out["verdict_open"] = self._last is not None
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
            else:
                raise _Reject("the frame is over: frame_start expected")
        if self.state.pending_removal is not None:
            self._reconcile_removal(ev)
        if self.state.table is None and not self.state.awaiting_lag:
            self.state = self.state.evolve(table=freeze_positions(ev.positions or {}))
        if self._warned:
            self.state = self.state.evolve(placement_warned=True)
            self._warned = False
        self._open = ShotBuilder(ev, self.table, index, early=early)
        self._next_index = index + 1
        return out

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
        if ev.shot is not None and ev.shot != self._open.index:
            raise _Reject(f"{ev.type} event for shot {ev.shot} during shot {self._open.index}")
        self._open.add(ev)
        return []

    def _shot_end(self, ev: Event) -> list[Verdict]:
        if self._open is None:
            raise _Reject("shot_end without a shot_start")
        if ev.shot is not None and ev.shot != self._open.index:
            raise _Reject(f"shot_end for shot {ev.shot} during shot {self._open.index}")
        shot = self._open.finish(ev, self._inputs.pop(self._open.index, []))
        return self._judge(shot)

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
            if self._open is not None:
                raise _Reject("placement_warning during a shot")
            self.warn_placement()
            return []
        target = ev.shot
        if t in ("manual_foul", "play_on"):
            if target is None:
                target = self._open.index if self._open is not None else (
                    self._last.shot.index if self._last is not None else self._next_index
                )  # fmt: skip
            if self._open is None and self._last is not None and target == self._last.shot.index:
                if t == "play_on" and not self._last.verdict.fouls:
                    raise _Reject("play on applies only after a foul (001 2.1.8)")
                return self._rejudge(self._last.shot.with_inputs((*self._last.shot.inputs, ev)))
            if self._open is not None and target == self._open.index:
                self._inputs.setdefault(target, []).append(ev)
                return []
            if target < self._next_index:
                raise _Reject(f"the verdict on shot {target} is frozen")
            self._inputs.setdefault(target, []).append(ev)
            return []
        # calls, third balls, re-order: for the next shot, before its stroke (2.2.6: not during it)
        if target is None:
            target = self._next_index
        if target < self._next_index:
            raise _Reject(f"{t} for shot {target} after its stroke")
        self._inputs.setdefault(target, []).append(ev)
        return []

    # ---- judging and amending ---------------------------------------------------------------------------------------
    def _judge(self, shot: Shot) -> list[Verdict]:
        self._open = None
        before, match_before = self.state, self.match
        verdict, after = self.game.judge(before, shot)
        if self._frame_notes:
            verdict = replace(verdict, notes=(*self._frame_notes, *verdict.notes))
            self._frame_notes = []
        self._commit(_Judged(shot, before, match_before, verdict), after)
        return [verdict]

    def _rejudge(self, shot: Shot, voided: tuple[str, ...] | None = None) -> list[Verdict]:
        last = self._last
        assert last is not None
        voided = last.voided if voided is None else voided
        verdict, after = self.game.judge(last.before, shot)
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
        in progress, the inputs waiting for a shot and the open verdict (judged again when it changes)."""
        known = set(self.state.table or {}) | set(self.state.shelves[0]) | set(self.state.shelves[1])
        if self._open is not None:
            known |= set(self._open.start.positions or {})
        if self._last is not None:
            known |= set(self._last.shot.start)
        if old not in known:
            raise _Reject(f"no ball '{old}' to rename")
        taken = set(self.state.table or {}) | set(self.state.shelves[0]) | set(self.state.shelves[1])
        if self._open is not None:
            taken |= set(self._open.start.positions or {})
        if new in taken:
            raise _Reject(f"ball '{new}' is already on the table: a rename never merges two balls")
        m = {old: new}
        self.state = relabel_state(self.state, m)
        self._inputs = {k: [relabel_event(e, m) for e in v] for k, v in self._inputs.items()}
        if self._open is not None:
            b = self._open
            b.start = relabel_event(b.start, m)
            b.events = [relabel_event(e, m) for e in b.events]
            b._potted = {m.get(x, x) for x in b._potted}
            b._gone = {m.get(x, x) for x in b._gone}
        last = self._last
        if last is None or old not in last.shot.start:
            return []
        shot = relabel_shot(last.shot, m)
        before = relabel_state(last.before, m)
        voided = tuple(m.get(b, b) for b in last.voided)
        verdict, after = self.game.judge(before, shot)
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
        self._freeze()
        table = dict(self.state.table or {})
        objs = sorted(self.game.object_balls(table), key=_num)
        keep_out = 1 if self.game.cue_ball is None and objs else 0
        rack = self.table.rack_positions(rows=5)
        placed = {b: rack[i] for i, b in enumerate(objs[: len(objs) - keep_out])}
        self.state = self.state.evolve(table=freeze_positions(placed), awaiting_lag=True, in_hand=True)
        return []

    def _concede(self, player: str) -> list[Verdict]:
        if self._open is not None:
            raise _Reject("concede while a shot is in progress")
        winner = other(player)
        s = self.state.score
        s = set_pair(s, winner, max(s[idx(winner)], self.game.target))
        self.state = self.state.evolve(frame_over=True, winner=winner, score=s)
        won = set_pair(self.match.frames_won, winner, self.match.frames_won[idx(winner)] + 1)
        self.match = replace(self.match, frames_won=won)
        self._freeze()
        return []

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
    return replace(
        shot,
        struck=m.get(shot.struck, shot.struck),
        start=freeze_positions({m.get(b, b): p for b, p in shot.start.items()}),
        end=freeze_positions({m.get(b, b): p for b, p in shot.end.items()}),
        events=tuple(relabel_event(e, m) for e in shot.events),
        inputs=tuple(relabel_event(e, m) for e in shot.inputs),
        late=tuple(relabel_event(e, m) for e in shot.late),
    )


def _num(b: str) -> tuple[int, str]:
    try:
        return (int(b), b)
    except ValueError:
        return (1000, b)


def referee_lines(game: str, lines: Any, frames_to_win: int = 1) -> Any:
    """Verdicts (final, one per shot) for the lines of an events file; raises at the first bad line
    after yielding every verdict frozen before it. A generator over ``(Verdict)``."""
    from tracking.events import parse_line

    ref = Referee(game, frames_to_win=frames_to_win)
    emitted: set[int] = set()
    for n, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            ev = parse_line(text, n)
            ref.feed(ev, line=n)
        except ValueError:
            yield from _pending(ref, emitted, final=True)
            raise
        yield from _pending(ref, emitted, final=False)
    yield from _pending(ref, emitted, final=True)


def _pending(ref: Referee, emitted: set[int], final: bool) -> Any:
    open_index = ref._last.shot.index if ref._last is not None and not final else None
    for v in ref.finals():
        if v.shot not in emitted and v.shot != open_index:
            emitted.add(v.shot)
            yield v


__all__ = ["Referee", "RefereeInputError", "judge_lag", "referee_lines"]
