"""The Cluster game over the rules base: break, visits and the game ball, penalty balls and debts, spotting,
the opponent's choice after a penalty, the end of the frame, the lag (000 3.3-3.9, 4.1, 5)."""

from __future__ import annotations

import math

from calibration.contract import Event
from calibration.table import Point
from rules.cluster import ClusterGame, ClusterState
from rules.cluster.fouls import ClusterFoul
from rules.registry import get_game
from rules.shot import Shot, make_shot
from tests.rules.test_rules_cluster_shots import OPEN, D, L, ShotLog, T, W

G = ClusterGame(T)
SPOT = T.spots["pyramid"]


def shot_of(s: ShotLog, index: int = 1, inputs: tuple[Event, ...] = (), late: tuple[Event, ...] = ()) -> Shot:
    sh = make_shot(index, s.cue, s.start, s.events, s.end, inputs, T, t_start=0.0, t_end=s.t + 0.5)
    return sh.with_late(late) if late else sh


def playing(**kw: object) -> ClusterState:
    """A frame in play after the break, A at the table."""
    base = ClusterState(game="cluster", in_hand=False, shots=1, frame_over=False)
    return base.evolve(**kw)  # type: ignore[return-value]


def inp(type_: str, shot: int = 1, **kw: object) -> Event:
    return Event(type=type_, shot=shot, **kw)  # type: ignore[arg-type]


# ---- the registry ----------------------------------------------------------------------------------------
def test_registry_resolves_cluster() -> None:
    g = get_game("cluster", table=T)
    assert isinstance(g, ClusterGame) and g.name == "cluster" and g.cue_ball is None and g.target == 8


# ---- 000 3.2 / 3.4 the break ---------------------------------------------------------------------------------
RACK = {f"t{i + 2}": p for i, p in enumerate(T.rack_positions())}


def break_log(cue_at: Point = (400.0, 889.0), cross: bool = True) -> ShotLog:
    s = ShotLog("t1", {"t1": cue_at, **RACK}, shot=0)
    if cross:
        s.cross("t1", "+x", "house")
    s.cross("t1", "+x", "center").hit("t1", "t2").hit("t2", "t3").hit("t2", "t4")
    s.cushion("t3", "right-pyramid").cushion("t3", "pyramid").cushion("t1", "left-house", (1500.0, 0.0))
    return s


def test_000_3_2_fifteen_balls_racked_as_a_pyramid_from_the_spot() -> None:
    assert len(RACK) == 15 and RACK["t2"] == SPOT
    assert all(p[0] >= SPOT[0] for p in RACK.values())


def test_000_3_4_break_from_the_house_is_an_ordinary_shot() -> None:
    st = G.new_frame(1, "A")
    assert st.in_hand and isinstance(st, ClusterState)
    v, new = G.judge(st, shot_of(break_log(), index=0))
    # the cue ball crossed the middle line and t3 touched two cushions: a safety (3.8)
    assert v.legal and not v.fouls and v.next_player == "B" and not new.in_hand
    assert any("safety (000 3.8)" in n for n in v.notes)


def test_000_3_4a_break_without_crossing_the_house_line_is_retaken() -> None:
    st = G.new_frame(1, "A")
    v, new = G.judge(st, shot_of(break_log(cross=False), index=0))
    assert v.legal and v.next_player == "A" and v.ball_in_hand and new == st
    assert "000 3.4а" in v.notes[0]
    # a foul the operator saw on that stroke does not count either: the game had not begun
    v2, new2 = G.judge(st, shot_of(break_log(cross=False), index=0, inputs=(inp("manual_foul", shot=0, code="push"),)))
    assert v2.legal and not v2.fouls and new2 == st and "had not begun" in v2.notes[1]


def test_000_3_4v_break_from_anywhere_in_the_house_but_not_outside() -> None:
    st = G.new_frame(1, "B")
    v, _ = G.judge(st, shot_of(break_log(cue_at=(T.lines["house"].value_mm - 40.0, 100.0)), index=0))
    assert v.legal and v.player == "B" and v.next_player == "A"
    s = break_log(cue_at=(T.lines["house"].value_mm + 40.0, 889.0))
    v2, new2 = G.judge(st, shot_of(s, index=0))
    assert v2.next_player == "B" and v2.ball_in_hand and new2 == st and "000 3.4в" in v2.notes[0]


# ---- 000 3.5 / 3.6 visits and the game ball ----------------------------------------------------------------------
def test_000_3_5b_productive_attack_keeps_the_table_and_sets_the_game_ball() -> None:
    v, new = G.judge(playing(), shot_of(ShotLog("t1", OPEN).hit("t1", "t2").pot("t2", "middle-left")))
    assert v.legal and v.counted == ("t2",) and v.next_player == "A" and v.score == (1, 0)
    assert isinstance(new, ClusterState) and new.game_ball == "t1" and new.shelves[0] == ("t2",)
    # the next attack of the visit without the game ball: 4.1ж
    st = new
    start = dict(new.table or {})
    s2 = ShotLog("t4", start).hit("t4", "t5").pot("t5", "house-left")
    v2, new2 = G.judge(st, shot_of(s2, index=2))
    assert ClusterFoul.NO_GAME_BALL in v2.fouls and v2.next_player == "B"
    assert v2.score == (0, 0) and new2.shelves[0] == ()  # penalty ball t2 back on the table
    assert [s.ball for s in v2.spot] == ["t2", "t5"]
    assert isinstance(new2, ClusterState) and new2.game_ball is None


def test_000_3_5v_turn_passes_after_an_unproductive_attack_and_the_next_visit_is_free() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").jaw("t2", "pyramid-left", "left-pyramid")
    s.jaw("t2", "pyramid-left", "pyramid").rest("t2", (3300.0, 300.0))
    v, new = G.judge(playing(game_ball="t1"), shot_of(s))
    assert v.legal and v.next_player == "B" and isinstance(new, ClusterState) and new.game_ball is None


def test_000_3_6g_free_choice_is_carried_in_the_state() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").pot("t2", "middle-left").pot("t1", "middle-right")
    v, new = G.judge(playing(game_ball="t1"), shot_of(s))
    assert v.legal and set(v.counted) == {"t1", "t2"} and v.score == (2, 0)
    assert isinstance(new, ClusterState) and new.game_ball is None and new.to_play == "A"


def test_000_3_7_reorder_input_changes_the_game_ball() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").pot("t2", "middle-left").hit("t1", "t6")
    _, new = G.judge(playing(game_ball="t1"), shot_of(s, inputs=(inp("reorder", ball="t6"),)))
    assert isinstance(new, ClusterState) and new.game_ball == "t6"


def test_000_3_6e_third_ball_input_announces() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").hit("t2", "t3").pot("t3", "middle-right")
    v, _ = G.judge(playing(), shot_of(s))
    assert ClusterFoul.UNANNOUNCED_THIRD_BALL in v.fouls
    v2, new2 = G.judge(playing(), shot_of(s, inputs=(inp("third_ball", balls=("t3",)),)))
    assert v2.legal and v2.counted == ("t3",) and isinstance(new2, ClusterState) and new2.game_ball == "t1"


# ---- 000 4.1 penalty balls, void pots, spotting ------------------------------------------------------------------
def test_000_4_1_penalty_ball_from_the_shelf_goes_to_the_pyramid_spot() -> None:
    st = playing(shelves=(("t9",), ()), score=(1, 0))
    s = ShotLog("t1", OPEN).hit("t1", "t2").cushion("t2", "left-house")
    v, new = G.judge(st, shot_of(s))
    assert v.fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,) and not v.legal
    assert [(p.ball, p.pos) for p in v.spot] == [("t9", SPOT)]
    assert v.score == (0, 0) and new.shelves == ((), ()) and (new.table or {})["t9"] == SPOT
    assert v.to_dict()["fouls"][0]["rule"] == "000 4.1г"


def test_000_4_1_one_penalty_ball_however_many_fouls() -> None:
    st = playing(shelves=(("t9", "t10"), ()), score=(2, 0))
    s = ShotLog("t1", OPEN).off("t1")
    inputs = (inp("manual_foul", code="push"), inp("manual_foul", code="feet_off_floor"))
    v, new = G.judge(st, shot_of(s, inputs=inputs))
    assert len(v.fouls) >= 3 and v.score == (1, 0) and new.shelves[0] == ("t9",)
    assert [p.ball for p in v.spot] == ["t10", "t1"]  # penalty ball first, then the ball off the table


def test_000_4_1_void_pots_spotted_beyond_an_occupied_spot() -> None:
    start = dict(OPEN) | {"t7": SPOT}
    s = ShotLog("t4", start).hit("t4", "t5").pot("t5", "house-left")
    v, new = G.judge(playing(game_ball="t1", shelves=(("t9",), ())), shot_of(s))
    assert v.fouls == (ClusterFoul.NO_GAME_BALL,) and v.void == ("t5",)
    placed = {p.ball: p.pos for p in v.spot}
    assert set(placed) == {"t9", "t5"}
    # the spot is taken by t7: t9 goes next to it toward the pyramid cushion, t5 after t9
    assert placed["t9"][1] == W / 2 and placed["t9"][0] > SPOT[0]
    assert placed["t5"][0] > placed["t9"][0]
    for a, b in [("t9", "t7"), ("t5", "t9")]:
        pa = placed[a]
        pb = placed.get(b, SPOT)
        assert math.dist(pa, pb) >= D
    assert set(new.table or {}) == set(start) | {"t9"}


def test_000_4_1_spotting_toward_the_house_cushion_when_the_pyramid_side_is_full() -> None:
    row = {f"r{k}": (SPOT[0] + k * D, W / 2) for k in range(int((L - D / 2 - SPOT[0]) // D) + 1)}
    start = dict(OPEN) | row
    s = ShotLog("t1", start).hit("t1", "t2").off("t2")
    v, _ = G.judge(playing(), shot_of(s))
    (p,) = v.spot
    assert p.ball == "t2" and p.pos[0] < SPOT[0] and p.pos[1] == W / 2


def test_000_4_1e_ball_off_the_table_is_spotted_and_penalised() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").off("t2")
    v, new = G.judge(playing(shelves=(("t9",), ())), shot_of(s))
    assert ClusterFoul.OFF_TABLE in v.fouls
    assert [p.ball for p in v.spot] == ["t9", "t2"] and "t2" in (new.table or {})


def test_digest_c10_penalty_with_no_balls_is_a_debt_settled_from_the_next_pot() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").cushion("t2", "left-house")
    v, st = G.judge(playing(), shot_of(s))
    assert v.fouls and v.spot == () and st.debts == (1, 0) and st.to_play == "B"
    st = st.evolve(to_play="A")  # later A is at the table again
    s2 = ShotLog("t1", dict(st.table or {})).hit("t1", "t2").pot("t2", "middle-left")
    v2, st2 = G.judge(st, shot_of(s2, index=2))
    assert v2.legal and v2.counted == ("t2",) and [p.ball for p in v2.spot] == ["t2"]
    assert st2.debts == (0, 0) and st2.shelves[0] == () and v2.score == (0, 0) and v2.next_player == "A"


# ---- 000 5 after a penalty ------------------------------------------------------------------------------------------
def test_000_5_opponent_may_hand_the_shot_back() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").cushion("t2", "left-house")
    v, _ = G.judge(playing(), shot_of(s))
    assert v.next_player == "B"
    v2, new2 = G.judge(playing(), shot_of(s, inputs=(inp("play_on", player="A"),)))
    assert v2.next_player == "A" and isinstance(new2, ClusterState) and new2.game_ball is None
    assert len(v2.fouls) == 1 and v2.score == v.score


# ---- 000 3.9 end of the frame ---------------------------------------------------------------------------------------
def test_000_3_9_eighth_ball_ends_the_frame() -> None:
    st = playing(shelves=(tuple(f"s{k}" for k in range(7)), ()), score=(7, 0))
    v, new = G.judge(st, shot_of(ShotLog("t1", OPEN).hit("t1", "t2").pot("t2", "middle-left")))
    assert v.frame_over and v.winner == "A" and v.score == (8, 0) and new.frame_over


def test_000_3_9_eighth_ball_in_a_penalty_shot_does_not_end_it() -> None:
    st = playing(shelves=(tuple(f"s{k}" for k in range(7)), ()), score=(7, 0))
    s = ShotLog("t1", OPEN).hit("t1", "t2").pot("t2", "middle-left")
    v, _ = G.judge(st, shot_of(s, inputs=(inp("manual_foul", code="double_hit"),)))
    assert not v.frame_over and v.score == (6, 0)


def test_000_3_9_ball_falling_within_the_window_belongs_to_the_shot() -> None:
    st = playing(shelves=(tuple(f"s{k}" for k in range(7)), ()), score=(7, 0))
    s = ShotLog("t1", OPEN).hit("t1", "t2").jaw("t2", "middle-left", "left-house").rest("t2", (1784.5, 30.0))
    t_end = s.t + 0.5
    late_in = Event(type="pot", t=t_end + 2.0, shot=1, ball="t2", pocket="middle-left")
    v, _ = G.judge(st, shot_of(s, late=(late_in,)))
    assert v.counted == ("t2",) and v.frame_over and v.winner == "A"
    late_out = Event(type="pot", t=t_end + 4.0, shot=1, ball="t2", pocket="middle-left")
    v2, new2 = G.judge(st, shot_of(s, late=(late_out,)))
    assert not v2.frame_over and v2.counted == () and (new2.table or {})["t2"] == (1784.5, 30.0)


# ---- 000 3.3 the lag ------------------------------------------------------------------------------------------------
def lag_log(a_end: float, b_end: float) -> ShotLog:
    s = ShotLog("a", {"a": (300.0, 600.0), "b": (300.0, 1200.0)}, shot=0)
    s.cushion("a", "pyramid", (L, 600.0)).cushion("b", "pyramid", (L, 1200.0))
    return s.rest("a", (a_end, 600.0)).rest("b", (b_end, 1200.0))


def lag_state() -> ClusterState:
    return ClusterState(game="cluster", frame=0, frame_over=True, awaiting_lag=True)


def test_000_3_3v_nearer_the_house_cushion_wins() -> None:
    v, new = G.judge(lag_state(), shot_of(lag_log(200.0, 350.0), index=0))
    assert v.next_player == "A" and not new.awaiting_lag and v.notes[0].startswith("lag won by A")
    v2, _ = G.judge(lag_state(), shot_of(lag_log(500.0, 350.0), index=0))
    assert v2.next_player == "B"


def test_000_3_3b_pyramid_cushion_twice_loses() -> None:
    s = lag_log(200.0, 350.0).cushion("a", "pyramid", (L, 610.0))
    v, _ = G.judge(lag_state(), shot_of(s, index=0))
    assert v.next_player == "B" and any("2 times" in n for n in v.notes)


def test_000_3_3b_crossing_the_longitudinal_line_loses_but_a_long_cushion_is_allowed() -> None:
    s = lag_log(200.0, 350.0).cross("a", "+y", "long")
    v, _ = G.judge(lag_state(), shot_of(s, index=0))
    assert v.next_player == "B"
    s2 = lag_log(200.0, 350.0).cushion("a", "left-pyramid", (3000.0, 0.0))  # digest C12
    v2, _ = G.judge(lag_state(), shot_of(s2, index=0))
    assert v2.next_player == "A"


def test_000_3_3g_undecidable_lag_is_repeated() -> None:
    v, new = G.judge(lag_state(), shot_of(lag_log(200.0, 200.5), index=0))
    assert "repeat" in v.notes[0] and new.awaiting_lag
    s = ShotLog("a", {"a": (300.0, 600.0), "b": (300.0, 1200.0)}, shot=0)  # nobody reached the cushion
    v2, _ = G.judge(lag_state(), shot_of(s, index=0))
    assert "repeat" in v2.notes[0]


def test_digest_c14_interference_penalises_the_opponent_and_the_striker_plays_on() -> None:
    s = ShotLog("t1", OPEN).hit("t1", "t2").cushion("t2", "left-house")
    st = playing(shelves=((), ("t9",)), score=(0, 1))
    v, new = G.judge(st, shot_of(s, inputs=(inp("manual_foul", code="interference"),)))
    # the striker's own shot was no attack and no safety, but the penalty is the opponent's only once
    assert [f.code for f in v.fouls] == ["no_attack_no_safety", "interference"]
    assert v.score == (0, 1) and new.debts == (1, 0)  # one penalty: the striker's (4.1г) counts first
    pot = ShotLog("t1", OPEN).hit("t1", "t2").pot("t2", "middle-left")
    v2, new2 = G.judge(st, shot_of(pot, inputs=(inp("manual_foul", code="interference"),)))
    assert v2.counted == ("t2",) and v2.score == (1, 0) and [p.ball for p in v2.spot] == ["t9"]
    assert v2.next_player == "A" and isinstance(new2, ClusterState) and new2.game_ball is None
    attack = ShotLog("t1", OPEN).hit("t1", "t2").jaw("t2", "pyramid-left", "pyramid").cushion("t2", "left-pyramid")
    handed_back = (inp("manual_foul", code="interference"), inp("play_on", player="B"))
    v3, _ = G.judge(st, shot_of(attack, inputs=handed_back))
    assert v3.legal and v3.next_player == "B"


def test_000_3_2_stream_joining_a_frame_in_play_judges_an_ordinary_shot() -> None:
    st = G.new_frame(1, "A")  # frame_start, but the first shot seen is no break: the pyramid is not racked
    v, new = G.judge(st, shot_of(ShotLog("t4", OPEN).hit("t4", "t2").pot("t2", "middle-left"), index=0))
    assert v.legal and v.counted == ("t2",) and v.next_player == "A" and not new.in_hand
    assert "frame joined in play" in v.notes[0]
