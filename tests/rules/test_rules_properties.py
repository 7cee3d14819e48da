"""Property tests over random well-formed event streams, for every federation game:

* scores change only by a rule (counted balls, the last-ball bonus, one penalty of the game's size);
* balls are conserved: on the table + on the shelves + the cue ball in hand = all the balls;
* at most one penalty per shot;
* a verdict is a pure function of the shot and the state: replaying the log gives identical verdicts.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.contract import CUSHIONS, MANUAL_FOUL_CODES, POCKETS
from rules.referee import Referee
from rules.registry import FEDERATION_GAMES
from rules.scenarios import Script

GAMES = sorted(FEDERATION_GAMES)


def random_frame(data: st.DataObject, game: str) -> Script:
    s = Script(game, breaker=data.draw(st.sampled_from(["A", "B"])))
    gcls = FEDERATION_GAMES[game]
    for _ in range(data.draw(st.integers(3, 18))):
        st_ = s.ref.state
        if st_.frame_over or st_.awaiting_lag:
            break
        balls = sorted(s.pos)
        use_cue = "cue" in s.pos and data.draw(st.integers(0, 9)) > 0
        striker = "cue" if use_cue else data.draw(st.sampled_from(balls))
        others = [b for b in balls if b != striker]
        if not others:
            break
        if gcls.calls != "none" and data.draw(st.booleans()):
            s.call(data.draw(st.sampled_from(others)), data.draw(st.sampled_from(POCKETS)))
        steps: list[tuple] = []
        if st_.in_hand and data.draw(st.booleans()):
            steps.append(("cross", striker, "house", "+x"))
        targets = data.draw(st.lists(st.sampled_from(others), min_size=1, max_size=2, unique=True))
        if data.draw(st.integers(0, 9)) == 0:
            targets = []  # a miss now and then
        for target in targets:
            steps.append(("hit", striker, target))
        if data.draw(st.booleans()):
            steps.append(
                ("cross", data.draw(st.sampled_from(balls)), "center", data.draw(st.sampled_from(["+x", "-x"])))
            )
        for _r in range(data.draw(st.integers(0, 2))):
            steps.append(("rail", data.draw(st.sampled_from(balls)), data.draw(st.sampled_from(CUSHIONS))))
        pool = targets + [b for b in balls if b not in targets]
        gone = data.draw(st.lists(st.sampled_from(pool[:4]), max_size=3, unique=True))
        for b in gone[:-1] if len(gone) > 2 else gone:
            steps.append(("pot", b, data.draw(st.sampled_from(POCKETS))))
        if len(gone) > 2:
            steps.append(("off", gone[-1]))
        manual = (data.draw(st.sampled_from(MANUAL_FOUL_CODES)),) if data.draw(st.integers(0, 7)) == 0 else ()
        s.play(striker, *steps, manual=manual)
    return s


def total_balls(game: str) -> int:
    return 16


def conserved(s: Script) -> int:
    st_ = s.ref.state
    table = st_.table or {}
    in_hand = 1 if FEDERATION_GAMES[s.game].cue_ball is not None and "cue" not in table else 0
    return len(table) + len(st_.shelves[0]) + len(st_.shelves[1]) + in_hand


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game=st.sampled_from(GAMES))
def test_scores_change_only_by_a_rule_and_one_penalty_per_shot(data, game):
    gcls = FEDERATION_GAMES[game]
    s = random_frame(data, game)
    prev: tuple[float, float] = (0, 0)
    for v in s.ref.finals():
        me = 0 if v.player == "A" else 1
        d = (v.score[0] - prev[0], v.score[1] - prev[1])
        striker_foul = not v.legal
        opp_foul = any(f.code == "interference" for f in v.fouls)
        if gcls.scoring == "points":
            gained = sum(gcls().ball_value(b) for b in v.counted)
            pen = 5 if striker_foul else (-5 if opp_foul else 0)
            bonus = d[me] - (gained - pen)
            assert bonus in (0, 10), v.to_dict()
            assert d[1 - me] == pen
        else:
            assert d[1 - me] in (0, -1 if opp_foul else 0), v.to_dict()  # only the offender loses a ball
            assert -1 <= d[me] <= len(v.counted), v.to_dict()
            if not v.counted:
                assert d[me] <= 0
            if striker_foul:
                assert d[me] in (0, -1) and not v.counted
        prev = v.score


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game=st.sampled_from(GAMES))
def test_balls_are_conserved_shot_by_shot(data, game):
    s = Script(game)
    n0 = conserved(s) if s.ref.state.table else 16
    assert n0 == 16
    for _ in range(data.draw(st.integers(2, 12))):
        one = random_frame_step(data, s)
        if not one:
            break
        assert conserved(s) == total_balls(game), (s.verdicts[-1].to_dict(), s.ref.snapshot())


def random_frame_step(data: st.DataObject, s: Script) -> bool:
    st_ = s.ref.state
    if st_.frame_over or st_.awaiting_lag:
        return False
    balls = sorted(s.pos)
    striker = "cue" if "cue" in s.pos else data.draw(st.sampled_from(balls))
    others = [b for b in balls if b != striker]
    if not others:
        return False
    steps: list[tuple] = [("cross", striker, "house", "+x")] if st_.in_hand else []
    steps.append(("hit", striker, data.draw(st.sampled_from(others))))
    gone = data.draw(st.lists(st.sampled_from(balls), max_size=3, unique=True))
    for b in gone[:2]:
        steps.append(("pot", b, data.draw(st.sampled_from(POCKETS))))
    if len(gone) == 3:
        steps.append(("off", gone[2]))
    if FEDERATION_GAMES[s.game].calls != "none" and others:
        s.call(data.draw(st.sampled_from(others)), data.draw(st.sampled_from(POCKETS)))
    manual = tuple(data.draw(st.lists(st.sampled_from(MANUAL_FOUL_CODES), max_size=1)))
    s.play(striker, *steps, manual=manual)
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game=st.sampled_from(GAMES))
def test_spotted_balls_never_overlap_a_ball(data, game):
    s = Script(game)
    D = s.table.ball_diameter_mm
    for _ in range(data.draw(st.integers(2, 12))):
        before = len(s.verdicts)
        if not random_frame_step(data, s):
            break
        v = s.verdicts[-1] if len(s.verdicts) > before else None
        if v is None or not v.spot:
            continue
        layout = s.pos  # the table after the shot, spotted balls included
        pts = list(layout.values())
        for sp in v.spot:
            assert layout[sp.ball] == sp.pos
        assert all(math.dist(a, b) >= D - 1e-6 for i, a in enumerate(pts) for b in pts[i + 1 :]), v.to_dict()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game=st.sampled_from(GAMES))
def test_replaying_a_log_gives_identical_verdicts(data, game):
    s = random_frame(data, game)
    ref = Referee(game)
    for e in s.events:
        ref.feed(e)
    assert ref.finals() == s.ref.finals()
    assert ref.state == s.ref.state
