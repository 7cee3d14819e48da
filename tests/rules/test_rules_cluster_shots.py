"""Golden shots of the Cluster game, judged shot by shot (000 2.2, 3.6, 3.7, 3.8, 4.1): each test names the
clause it checks and has a legal and a failing case.

``ShotLog`` writes the camera events of one shot the way the tracker does (CONTRACT.md section 3), with
positions on the real table model, so the geometry behind each verdict is the game's own.
"""

from __future__ import annotations

import math

import pytest

from calibration.contract import Event
from calibration.table import Point, TableModel
from rules.cluster.analysis import ShotFacts, analyse
from rules.cluster.fouls import ClusterFoul
from rules.cluster.judge import judge

T = TableModel()
D = T.ball_diameter_mm
R = D / 2
L, W = T.length_mm, T.width_mm


def along(cushion: str, pocket: str, s: float) -> Point:
    """The point ``s`` mm along ``cushion`` from its jaw tip at ``pocket``."""
    tip, away = T.cushion_pocket_end(cushion, pocket)
    return (tip[0] + away[0] * s, tip[1] + away[1] * s)


def jaw_pos(pocket: str, cushion: str) -> Point:
    jaw = next(j for j in T.pockets[pocket].jaws if j.cushion == cushion)
    return jaw.tip


class ShotLog:
    """The camera events of one shot, in order, with times 0.1 s apart."""

    def __init__(self, cue: str, start: dict[str, Point], shot: int = 0, t0: float = 0.0) -> None:
        self.cue, self.start, self.shot = cue, dict(start), shot
        self.t = self.t0 = t0
        self.events: list[Event] = []
        self.gone: set[str] = set()
        self.moves: dict[str, Point] = {}

    def _ev(self, **kw: object) -> ShotLog:
        self.t = round(self.t + 0.1, 3)
        self.events.append(Event(t=self.t, frame=int(self.t * 60), shot=self.shot, **kw))  # type: ignore[arg-type]
        return self

    def hit(self, a: str, b: str) -> ShotLog:
        pa, pb = self.start[a], self.start[b]
        return self._ev(type="contact", balls=(a, b), pos=((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2))

    def cushion(self, ball: str, cushion: str, pos: Point | None = None) -> ShotLog:
        if pos is None:
            cu = T.cushions[cushion]
            pos = cu.point_at(cu.length_mm / 2)
        return self._ev(type="cushion", ball=ball, cushion=cushion, pos=pos)

    def jaw(self, ball: str, pocket: str, cushion: str) -> ShotLog:
        return self._ev(type="cushion", ball=ball, cushion=f"jaw:{pocket}", pos=jaw_pos(pocket, cushion))

    def zone(self, ball: str, pocket: str, cushion: str, s: float = 10.0) -> ShotLog:
        """A cushion touch ``s`` mm from the jaw tip, inside the attack zone (the marks are ~34-44 mm)."""
        return self.cushion(ball, cushion, along(cushion, pocket, s))

    def cross(self, ball: str, direction: str = "+x", line: str = "center") -> ShotLog:
        return self._ev(type="line_cross", ball=ball, line=line, direction=direction)

    def pot(self, ball: str, pocket: str) -> ShotLog:
        self.gone.add(ball)
        return self._ev(type="pot", ball=ball, pocket=pocket)

    def off(self, ball: str) -> ShotLog:
        self.gone.add(ball)
        return self._ev(type="off_table", ball=ball, pos=(L / 2, -20.0))

    def disturb(self, ball: str) -> ShotLog:
        return self._ev(type="disturbed", ball=ball, pos=self.start[ball])

    def rest(self, ball: str, p: Point) -> ShotLog:
        self.moves[ball] = p
        return self

    @property
    def end(self) -> dict[str, Point]:
        return {b: self.moves.get(b, p) for b, p in self.start.items() if b not in self.gone}

    def stream(self) -> list[Event]:
        """shot_start, the events, shot_end."""
        s = Event(type="shot_start", t=self.t0, frame=int(self.t0 * 60), shot=self.shot, ball=self.cue,
                  positions=self.start)  # fmt: skip
        e = Event(type="shot_end", t=self.t + 0.5, frame=int((self.t + 0.5) * 60), shot=self.shot, positions=self.end)
        return [s, *self.events, e]

    def facts(self) -> ShotFacts:
        return analyse(T, self.cue, self.events, self.start, self.end)


# An open layout: t1 (cue) in the house half, others spread out, no clusters.
OPEN: dict[str, Point] = {
    "t1": (800.0, 889.0),
    "t2": (1300.0, 889.0),
    "t3": (1500.0, 1300.0),
    "t4": (600.0, 400.0),
    "t5": (1000.0, 400.0),
    "t6": (1200.0, 1500.0),
}


def log(start: dict[str, Point] | None = None, cue: str = "t1") -> ShotLog:
    return ShotLog(cue, start or OPEN)


# ---- analysis: participation and reach (digest 4.4, 000 3.7) -------------------------------------------
def test_digest_4_4_causal_past_stops_at_the_pot() -> None:
    s = log().hit("t1", "t2").pot("t2", "middle-left").hit("t1", "t3").hit("t3", "t4")
    f = s.facts()
    (pot,) = f.pots
    assert f.first_object == "t2"
    assert f.pot_participants(pot) == {"t1", "t2"}  # t3 and t4 moved after the pot
    assert f.reaches("t1", "t4") and not f.reaches("t2", "t4")


def test_digest_4_4_a_ball_that_deflected_the_potted_ball_took_part() -> None:
    f = log().hit("t1", "t2").hit("t2", "t3").pot("t2", "pyramid-left").facts()
    assert f.pot_participants(f.pots[0]) == {"t1", "t2", "t3"}


# ---- 000 3.6а attacks ----------------------------------------------------------------------------------
def test_000_3_6a_productive_attack_counts_and_continues() -> None:
    j = judge(log().hit("t1", "t2").pot("t2", "middle-left").facts(), game_ball=None)
    assert j.kind == "productive" and j.continues and j.counted == ("t2",) and not j.fouls


def test_000_3_6a_unproductive_attack_reaching_the_zone_is_legal() -> None:
    s = log().hit("t1", "t2").jaw("t2", "pyramid-left", "left-pyramid").jaw("t2", "pyramid-left", "pyramid")
    j = judge(s.rest("t2", (3400.0, 200.0)).facts(), game_ball=None)
    assert j.kind == "attack" and not j.fouls and not j.continues


def test_000_3_6a_4_1g_no_zone_and_no_safety_is_penalty_g() -> None:
    s = log().hit("t1", "t2").cushion("t2", "left-house").rest("t2", (1200.0, 300.0))
    j = judge(s.facts(), game_ball=None)
    assert j.kind == "foul" and j.fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,)
    assert ClusterFoul.NO_ATTACK_NO_SAFETY.rule == "000 4.1г"


# ---- 000 3.6б / 3.6в / 4.1ж the game ball ----------------------------------------------------------------------
def test_000_3_6b_first_attack_any_cue_ball_any_target() -> None:
    j = judge(log(cue="t5").hit("t5", "t4").pot("t4", "house-left").facts(), game_ball=None)
    assert j.kind == "productive" and j.counted == ("t4",)


def test_000_3_6v_later_attack_with_the_game_ball_as_cue_is_legal() -> None:
    j = judge(log().hit("t1", "t3").pot("t3", "middle-right").facts(), game_ball="t1")
    assert j.kind == "productive"


def test_000_3_6v_later_attack_with_the_game_ball_as_target_is_legal() -> None:
    j = judge(log(cue="t4").hit("t4", "t2").pot("t2", "middle-left").facts(), game_ball="t2")
    assert j.kind == "productive" and j.game_ball == "t4"  # 2.2: the survivor of the pot


def test_000_4_1zh_pot_without_the_game_ball_is_penalty_zh() -> None:
    j = judge(log(cue="t4").hit("t4", "t5").pot("t5", "house-left").facts(), game_ball="t1")
    assert j.kind == "foul" and ClusterFoul.NO_GAME_BALL in j.fouls and j.void == ("t5",) and not j.counted
    assert ClusterFoul.NO_GAME_BALL.rule == "000 4.1ж"


def test_000_3_6v_unproductive_attack_without_the_game_ball_is_judged_as_safety() -> None:
    s = log(cue="t4").hit("t4", "t5").jaw("t5", "house-left", "left-house").jaw("t5", "house-left", "house")
    j = judge(s.facts(), game_ball="t1")
    assert j.kind == "foul" and j.fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,)  # digest C8
    # the same shot with a safety made is legal
    s2 = log(cue="t4").hit("t4", "t5").jaw("t5", "house-left", "left-house").jaw("t5", "house-left", "house")
    s2.cushion("t4", "right-house").cushion("t4", "house").cross("t5")
    assert judge(s2.facts(), game_ball="t1").kind == "safety"


# ---- 000 3.6г / 3.6д free choice ----------------------------------------------------------------------------------
def test_000_3_6g_object_and_cue_both_potted_frees_the_next_attack() -> None:
    s = log().hit("t1", "t2").pot("t2", "middle-left").pot("t1", "middle-right")
    j = judge(s.facts(), game_ball=None)
    assert j.kind == "productive" and j.game_ball is None and set(j.counted) == {"t1", "t2"}


def test_000_3_6g_only_the_object_potted_keeps_a_game_ball() -> None:
    j = judge(log().hit("t1", "t2").pot("t2", "middle-left").facts(), game_ball=None)
    assert j.game_ball == "t1"


CLUSTER: dict[str, Point] = {
    "t1": (800.0, 889.0),
    "c1": (2400.0, 889.0),
    "c2": (2400.0 + D + 20.0, 889.0),
    "c3": (2400.0 + D + 10.0, 889.0 + D + 10.0),
    "t6": (1200.0, 1500.0),
}


def test_000_3_6d_productive_attack_breaking_a_cluster_frees_the_next_attack() -> None:
    s = ShotLog("t1", CLUSTER).hit("t1", "c1").pot("c1", "pyramid-left").hit("t1", "c2").hit("c2", "c3")
    f = s.facts()
    assert f.clusters == (frozenset({"c1", "c2", "c3"}),) and f.broken
    j = judge(f, game_ball=None)
    assert j.kind == "productive" and j.game_ball is None


def test_000_3_6d_one_cluster_ball_moved_is_no_break() -> None:
    s = ShotLog("t1", CLUSTER).hit("t1", "c1").pot("c1", "pyramid-left")
    f = s.facts()
    assert not f.broken
    assert judge(f, game_ball=None).game_ball == "t1"


# ---- 000 3.6е / 3.6ж third balls -----------------------------------------------------------------------------------
def test_000_3_6e_announced_third_ball_pot_is_legal() -> None:
    s = log().hit("t1", "t2").hit("t2", "t3").pot("t3", "middle-right")
    j = judge(s.facts(), game_ball=None, announced=["t3"])
    assert j.kind == "productive" and j.counted == ("t3",)


def test_000_3_6e_unannounced_third_ball_pot_is_penalty_g() -> None:
    s = log().hit("t1", "t2").hit("t2", "t3").pot("t3", "middle-right")
    j = judge(s.facts(), game_ball=None)
    assert j.fouls == (ClusterFoul.UNANNOUNCED_THIRD_BALL,) and j.void == ("t3",)
    assert ClusterFoul.UNANNOUNCED_THIRD_BALL.rule == "000 4.1г"


def test_000_3_6zh_object_potted_with_three_balls_the_cue_ball_is_the_game_ball() -> None:
    s = log().hit("t1", "t2").hit("t2", "t3").pot("t3", "middle-right")
    assert judge(s.facts(), game_ball=None, announced=["t3"]).game_ball == "t1"


def test_000_3_6zh_cue_potted_with_three_balls_the_first_ball_touched_is_the_game_ball() -> None:
    s = log().hit("t1", "t2").hit("t1", "t3").pot("t1", "middle-right")
    j = judge(s.facts(), game_ball=None, announced=["t3"])
    assert j.kind == "productive" and j.game_ball == "t2"
    # the same without the announcement of t3 is a penalty (3.6е)
    s2 = log().hit("t1", "t2").hit("t1", "t3").pot("t1", "middle-right")
    assert judge(s2.facts(), game_ball=None).kind == "foul"


def test_000_2_2_two_balls_the_survivor_is_the_game_ball_even_for_a_kiss() -> None:
    j = judge(log().hit("t1", "t2").pot("t1", "pyramid-left").facts(), game_ball=None)  # свояк
    assert j.kind == "productive" and j.game_ball == "t2"


# ---- 000 3.7 re-order ------------------------------------------------------------------------------------------------
def test_000_3_7_reorder_applies_when_the_game_ball_touches_the_named_ball() -> None:
    s = log().hit("t1", "t2").pot("t2", "middle-left").hit("t1", "t6")
    j = judge(s.facts(), game_ball="t1", reorder="t6")
    assert j.kind == "productive" and j.game_ball == "t6"


def test_000_3_7_reorder_through_third_balls() -> None:
    s = log().hit("t1", "t2").pot("t2", "middle-left").hit("t1", "t5").hit("t5", "t6")
    assert judge(s.facts(), game_ball="t1", reorder="t6").game_ball == "t6"


def test_000_3_7b_reorder_not_touched_leaves_the_game_ball_to_the_normal_rules() -> None:
    s = log().hit("t1", "t2").pot("t2", "middle-left")
    j = judge(s.facts(), game_ball="t1", reorder="t6")
    assert j.kind == "productive" and j.game_ball == "t1" and not j.fouls
    assert any("3.7б" in n for n in j.notes)


def test_000_3_7_reorder_touched_by_another_ball_than_the_game_ball_does_not_apply() -> None:
    # the game ball t2 is the object and is potted; only the cue ball t4 goes on to touch t6
    s = log(cue="t4").hit("t4", "t2").pot("t2", "middle-left").hit("t4", "t6")
    j = judge(s.facts(), game_ball="t2", reorder="t6")
    assert j.game_ball == "t4"


def test_000_3_6g_free_choice_wins_over_reorder() -> None:  # digest C9
    s = log().hit("t1", "t2").hit("t1", "t6").pot("t2", "middle-left").pot("t1", "middle-right")
    assert judge(s.facts(), game_ball=None, reorder="t6").game_ball is None


# ---- 000 2.2 / 4.1з passive attacks ---------------------------------------------------------------------------------
def test_000_2_2_i_corner_zone_after_the_adjacent_cushion_is_passive() -> None:
    s = log().hit("t1", "t2").cushion("t2", "left-pyramid", along("left-pyramid", "pyramid-left", 600.0))
    s.jaw("t2", "pyramid-left", "left-pyramid").jaw("t2", "pyramid-left", "pyramid")
    f = s.facts()
    assert [e.passive for e in f.entries] == ["i"]
    j = judge(f, game_ball=None)
    assert j.fouls == (ClusterFoul.PASSIVE_ATTACK,) and ClusterFoul.PASSIVE_ATTACK.rule == "000 4.1з"


def test_000_2_2_i_corner_zone_after_a_far_cushion_is_not_passive() -> None:
    s = log().hit("t1", "t2").cushion("t2", "right-pyramid")
    s.jaw("t2", "pyramid-left", "left-pyramid").jaw("t2", "pyramid-left", "pyramid")
    assert judge(s.facts(), game_ball=None).kind == "attack"


def test_000_2_2_ii_no_second_cushion_after_the_zone_is_passive() -> None:
    s = log().hit("t1", "t2").zone("t2", "pyramid-left", "pyramid").rest("t2", (3300.0, 300.0))
    f = s.facts()
    assert [e.passive for e in f.entries] == ["ii"]
    assert judge(f, game_ball=None).fouls == (ClusterFoul.PASSIVE_ATTACK,)


def test_000_2_2_ii_second_cushion_touched_anywhere_is_not_passive() -> None:
    s = log().hit("t1", "t2").zone("t2", "pyramid-left", "pyramid").cushion("t2", "left-pyramid")
    assert judge(s.facts(), game_ball=None).kind == "attack"


def test_000_2_2_ii_ball_resting_past_the_mouth_line_is_not_passive() -> None:
    mc = T.pockets["pyramid-left"].mouth_center
    s = log().hit("t1", "t2").jaw("t2", "pyramid-left", "pyramid").rest("t2", (mc[0] + 2.0, mc[1] - 2.0))
    assert judge(s.facts(), game_ball=None).kind == "attack"


PASSIVE_START = {"t1": (600.0, 300.0), "t2": (900.0, 150.0), "t3": (2500.0, 1200.0)}


def test_000_2_2_iii_middle_pocket_attacked_from_the_passive_zone_is_passive() -> None:
    assert T.passive_zone_at(PASSIVE_START["t2"]) == "left-house"
    s = ShotLog("t1", PASSIVE_START).hit("t1", "t2").jaw("t2", "middle-left", "left-house")
    f = s.facts()
    assert [e.passive for e in f.entries] == ["iii"]
    assert judge(f, game_ball=None).fouls == (ClusterFoul.PASSIVE_ATTACK,)


def test_000_2_2_iii_middle_pocket_attacked_from_outside_the_passive_zone_is_an_attack() -> None:
    start = {"t1": (1784.5, 900.0), "t2": (1784.5, 500.0), "t3": (2500.0, 1200.0)}
    s = ShotLog("t1", start).hit("t1", "t2").jaw("t2", "middle-left", "left-house")
    assert judge(s.facts(), game_ball=None).kind == "attack"


def test_000_2_2_iii_cue_ball_from_the_passive_zone_is_exempt() -> None:  # digest C4
    start = {"t2": (900.0, 150.0), "t1": (1200.0, 500.0), "t3": (2500.0, 1200.0)}
    s = ShotLog("t2", start).hit("t2", "t1").jaw("t2", "middle-left", "left-house")
    assert judge(s.facts(), game_ball=None).kind == "attack"


def test_000_3_5v_passive_attack_meeting_the_safety_rules_is_a_safety() -> None:  # digest C6
    s = log().hit("t1", "t2").zone("t2", "pyramid-left", "pyramid").cushion("t1", "right-house")
    s.cushion("t1", "house").cross("t2")
    f = s.facts()
    assert judge(f, game_ball=None).kind == "safety"
    assert judge(f, game_ball=None, strict_passive=True).fouls == (ClusterFoul.PASSIVE_ATTACK,)


def test_000_3_6a_zone_entry_by_an_unannounced_third_ball_is_no_attack() -> None:  # digest C5
    s = (
        log()
        .hit("t1", "t2")
        .hit("t2", "t3")
        .jaw("t3", "middle-right", "right-house")
        .jaw("t3", "middle-right", "right-pyramid")
    )
    assert judge(s.facts(), game_ball=None).fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,)
    assert judge(s.facts(), game_ball=None, announced=["t3"]).kind == "attack"


# ---- 000 3.8 safety -------------------------------------------------------------------------------------------------
def test_000_3_8a_one_ball_two_cushions_another_crosses_the_middle_line() -> None:
    s = log().hit("t1", "t2").cushion("t2", "left-house").cushion("t2", "house").cross("t1")
    assert judge(s.facts(), game_ball=None).kind == "safety"


def test_000_3_8a_one_ball_does_both_in_any_order() -> None:  # 3.8в
    s = log().hit("t1", "t2").cross("t2").cushion("t2", "right-pyramid").cushion("t2", "pyramid")
    assert judge(s.facts(), game_ball=None).kind == "safety"


def test_000_3_8b_third_balls_count() -> None:
    s = log().hit("t1", "t2").hit("t2", "t3").cushion("t3", "right-house").cushion("t3", "house").cross("t3", "-x")
    assert judge(s.facts(), game_ball=None).kind == "safety"


def test_000_3_8_two_cushions_without_a_crossing_fails() -> None:
    s = log().hit("t1", "t2").cushion("t2", "left-house").cushion("t2", "house")
    assert judge(s.facts(), game_ball=None).fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,)


def test_000_3_8_same_cushion_twice_is_one_cushion() -> None:
    s = log().hit("t1", "t2").cushion("t2", "left-house").cushion("t2", "left-house", (500.0, 0.0)).cross("t1")
    assert judge(s.facts(), game_ball=None).fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,)


def test_000_3_8_crossing_without_hitting_a_ball_is_no_safety() -> None:
    s = log().cushion("t1", "left-house").cushion("t1", "house").cross("t1")
    assert judge(s.facts(), game_ball=None).fouls == (ClusterFoul.NO_CONTACT,)


def test_000_3_8_ball_frozen_to_a_cushion_does_not_touch_it_by_leaving_it() -> None:
    start = {"t1": (800.0, 600.0), "t2": (1200.0, R)}  # t2 frozen to left-house
    s = ShotLog("t1", start).hit("t1", "t2").cushion("t2", "left-house", (1210.0, 0.0)).cushion("t2", "right-house")
    s.cross("t1")
    f = s.facts()
    assert f.cushions["t2"] == {"right-house"}
    assert judge(f, game_ball=None).fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,)


# ---- 000 4.1 а-з penalties ------------------------------------------------------------------------------------------
LEGAL = lambda: log().hit("t1", "t2").pot("t2", "middle-left")  # noqa: E731


@pytest.mark.parametrize(
    "code,foul,rule",
    [
        ("feet_off_floor", ClusterFoul.FEET_OFF_FLOOR, "000 4.1а"),
        ("touched_ball", ClusterFoul.TOUCHED_BALL, "000 4.1б"),
        ("not_cue_tip", ClusterFoul.TOUCHED_BALL, "000 4.1б"),
        ("double_hit", ClusterFoul.DOUBLE_HIT, "000 4.1в"),
        ("push", ClusterFoul.DOUBLE_HIT, "000 4.1в"),
        ("early_shot", ClusterFoul.EARLY_SHOT, "000 4.1д"),
    ],
)
def test_000_4_1_manual_fouls_void_a_legal_pot(code: str, foul: ClusterFoul, rule: str) -> None:
    assert judge(LEGAL().facts(), game_ball=None).kind == "productive"
    j = judge(LEGAL().facts(), game_ball=None, manual_codes=[code])
    assert j.fouls == (foul,) and foul.rule == rule and j.void == ("t2",) and not j.counted


def test_000_4_1b_ball_disturbed_without_contact_is_penalty_b() -> None:
    j = judge(LEGAL().disturb("t6").facts(), game_ball=None)
    assert j.fouls == (ClusterFoul.TOUCHED_BALL,)


def test_000_4_1g_cue_ball_touching_nothing() -> None:
    j = judge(log().cushion("t1", "left-house").facts(), game_ball=None)
    assert j.fouls == (ClusterFoul.NO_CONTACT,) and ClusterFoul.NO_CONTACT.rule == "000 4.1г"


def test_000_4_1d_stroke_before_the_previous_shot_ended() -> None:
    j = judge(LEGAL().facts(), game_ball=None, early=True)
    assert j.fouls == (ClusterFoul.EARLY_SHOT,)


def test_000_4_1e_ball_off_the_table_is_penalised() -> None:
    j = judge(log().hit("t1", "t2").off("t2").facts(), game_ball=None)
    assert ClusterFoul.OFF_TABLE in j.fouls and ClusterFoul.OFF_TABLE.rule == "000 4.1е"
    j2 = judge(log().hit("t1", "t2").pot("t2", "middle-left").off("t1").facts(), game_ball=None)
    assert j2.fouls == (ClusterFoul.OFF_TABLE,) and j2.void == ("t2",)


def test_000_4_1_several_fouls_are_listed_once_each() -> None:
    j = judge(log().off("t1").facts(), game_ball=None, manual_codes=["push", "double_hit"])
    assert j.fouls == (ClusterFoul.DOUBLE_HIT, ClusterFoul.OFF_TABLE, ClusterFoul.NO_CONTACT)


def test_body_over_rail_is_no_cluster_foul() -> None:
    j = judge(LEGAL().facts(), game_ball=None, manual_codes=["body_over_rail"])
    assert j.kind == "productive" and any("not a foul" in n for n in j.notes)


def test_interference_is_the_opponents_foul() -> None:
    j = judge(LEGAL().facts(), game_ball=None, manual_codes=["interference"])
    assert j.kind == "productive" and j.opponent_fouls == (ClusterFoul.INTERFERENCE,) and not j.fouls


def test_distances_in_the_layouts_are_sane() -> None:
    for layout in (OPEN, CLUSTER, PASSIVE_START):
        pts = list(layout.values())
        assert all(math.dist(p, q) >= D for i, p in enumerate(pts) for q in pts[i + 1 :])


def test_000_3_6a_a_ball_resting_in_a_mouth_that_did_not_move_made_no_attack() -> None:
    mouth = T.pockets["middle-right"].mouth_center
    start = dict(OPEN) | {"t3": (mouth[0], mouth[1] - R)}  # t3 hangs in the middle-right mouth
    s = ShotLog("t1", start).hit("t1", "t2").cushion("t2", "left-house")
    f = s.facts()
    assert f.entries == ()
    assert judge(f, game_ball=None, announced=["t3"]).fouls == (ClusterFoul.NO_ATTACK_NO_SAFETY,)
