"""Property tests of the Cluster game over random event streams (hypothesis): the sixteen balls are always
on the table or on a shelf; at most one penalty ball per shot, exactly one when the striker fouled; the
score is the shelf; pots count only in a legal shot; replaying a stream gives identical verdicts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.contract import CUSHIONS, POCKETS, Event, Verdict
from calibration.table import TableModel
from rules.errors import RefereeInputError
from rules.referee import Referee
from rules.state import FrameState

T = TableModel()
BALLS = [f"t{k}" for k in range(1, 17)]
CODES = ["feet_off_floor", "touched_ball", "double_hit", "push", "early_shot", "body_over_rail"]


def _cushion_event(draw: Any, ball: str, t: float, shot: int) -> Event:
    if draw(st.booleans()):
        name = draw(st.sampled_from(CUSHIONS))
        cu = T.cushions[name]
        pos = cu.point_at(draw(st.floats(0.0, 1.0)) * cu.length_mm)
        return Event(type="cushion", t=t, shot=shot, ball=ball, cushion=name, pos=pos)
    pocket = draw(st.sampled_from(POCKETS))
    jaw = T.pockets[pocket].jaws[draw(st.integers(0, 1))]
    return Event(type="cushion", t=t, shot=shot, ball=ball, cushion=f"jaw:{pocket}", pos=jaw.tip)


def play_stream(draw: Any, ref: Referee, max_shots: int) -> list[Event]:
    """Feed a random Cluster frame to ``ref`` shot by shot (positions follow the referee's own table) and
    return the stream fed."""
    fed: list[Event] = []

    def feed(ev: Event) -> list[Verdict]:
        if ev.is_input:
            try:  # an input that cannot apply (a duplicate, play on naming the wrong player) is refused
                out = ref.feed(ev)
            except RefereeInputError as exc:
                assert exc.reason
                return []
            fed.append(ev)
            return out
        fed.append(ev)
        return ref.feed(ev)

    rack = dict(zip(BALLS[1:], T.rack_positions(), strict=True))
    table: dict[str, tuple[float, float]] = {"t1": (400.0, 889.0), **rack}
    feed(Event(type="frame_start", game="cluster", breaker=draw(st.sampled_from(["A", "B"])), shot=0))
    t = 0.0
    for n in range(max_shots):
        on = sorted(table)
        cue = "t1" if n == 0 else draw(st.sampled_from(on))
        others = [b for b in on if b != cue]
        for _ in range(draw(st.integers(0, 1))):
            feed(Event(type="third_ball", shot=n, balls=tuple(draw(st.lists(st.sampled_from(others), max_size=2)))))
        if draw(st.integers(0, 4)) == 0:
            feed(Event(type="reorder", shot=n, ball=draw(st.sampled_from(others))))
        if draw(st.integers(0, 6)) == 0:
            feed(Event(type="manual_foul", shot=n, code=draw(st.sampled_from(CODES))))
        t += 1.0
        feed(Event(type="shot_start", t=t, shot=n, ball=cue, positions=dict(table)))
        moving, gone = [cue], set()
        if n == 0 and draw(st.integers(0, 5)) > 0:
            t += 0.05
            feed(Event(type="line_cross", t=t, shot=n, ball=cue, line="house", direction="+x"))
        for k in range(draw(st.integers(0, 7))):
            t += 0.05
            live = [b for b in moving if b not in gone]
            if not live:
                break
            kind = draw(st.sampled_from(["contact", "contact", "cushion", "cushion", "cross", "pot", "off", "dist"]))
            ball = draw(st.sampled_from(live))
            if k == 0 and draw(st.integers(0, 4)) > 0:
                kind, ball = "contact", cue  # most strokes hit a ball first
            elif k == 1 and len(moving) > 1 and draw(st.booleans()):
                kind, ball = "pot", moving[1]  # and many pot it
            if kind == "contact":
                rest = [b for b in on if b not in gone and b != ball]
                if not rest:
                    continue
                other = draw(st.sampled_from(rest))
                feed(Event(type="contact", t=t, shot=n, balls=(ball, other), pos=table[other]))
                if other not in moving:
                    moving.append(other)
            elif kind == "cushion":
                feed(_cushion_event(draw, ball, t, n))
            elif kind == "cross":
                d = draw(st.sampled_from(["+x", "-x"]))
                feed(Event(type="line_cross", t=t, shot=n, ball=ball, line="center", direction=d))
            elif kind == "pot":
                feed(Event(type="pot", t=t, shot=n, ball=ball, pocket=draw(st.sampled_from(POCKETS))))
                gone.add(ball)
            elif kind == "off" and draw(st.integers(0, 3)) == 0:
                feed(Event(type="off_table", t=t, shot=n, ball=ball, pos=(T.length_mm / 2, -30.0)))
                gone.add(ball)
            elif kind == "dist" and draw(st.integers(0, 3)) == 0:
                b = draw(st.sampled_from([x for x in on if x not in gone]))
                feed(Event(type="disturbed", t=t, shot=n, ball=b, pos=table[b]))
        t += 0.5
        end = {b: p for b, p in table.items() if b not in gone}
        verdicts = feed(Event(type="shot_end", t=t, shot=n, positions=end))
        if verdicts and verdicts[-1].fouls and draw(st.integers(0, 2)) == 0:
            feed(Event(type="play_on", shot=n, player=draw(st.sampled_from(["A", "B"]))))
        if ref.state.frame_over:
            break
        table = dict(ref.state.table or {})
    return fed


def _accounted(state: FrameState) -> list[str]:
    return sorted([*(state.table or {}), *state.shelves[0], *state.shelves[1]])


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_cluster_properties_on_random_streams(data: st.DataObject) -> None:
    ref = Referee("cluster", table=T)
    history: list[tuple[FrameState, FrameState, Verdict]] = []
    original_judge = ref.game.judge

    def judge(state: FrameState, shot: Any) -> tuple[Verdict, FrameState]:
        v, new = original_judge(state, shot)
        history.append((state, new, v))
        return v, new

    ref.game.judge = judge  # type: ignore[method-assign]
    stream = play_stream(data.draw, ref, max_shots=data.draw(st.integers(1, 12)))
    assert history
    for before, after, v in history:
        if before.table is not None and not before.awaiting_lag:
            # conservation: every ball is on the table or on a shelf, once
            assert _accounted(after) == sorted(BALLS), v
        # one penalty per shot: balls taken from the shelves plus debts added
        taken = sum(len(set(b) - set(a)) for b, a in zip(before.shelves, after.shelves, strict=True))
        debts = sum(max(0, a - b) for b, a in zip(before.debts, after.debts, strict=True))
        own_fouls = [f for f in v.fouls if f.code != "interference"]
        assert taken + debts <= 1
        if own_fouls:
            assert taken + debts == 1 and not v.counted and not v.legal
        # the score is the shelf (000 3.1: balls), and pots count only in a legal shot
        assert after.score == (len(after.shelves[0]), len(after.shelves[1]))
        assert v.legal or not v.counted
        if v.frame_over:
            assert v.winner is not None and max(v.score) >= 8
    # replay: the same stream gives the same verdicts
    again = Referee("cluster", table=T)
    for ev in stream:
        again.feed(ev)
    assert [v.to_dict() for v in again.finals()] == [v.to_dict() for v in ref.finals()]
