"""Operator corrections in the referee engine: ``rename`` ("this ball is number 7") and ``void_pot`` ("void
the last pot of that ball"), on a small event log of Russian pyramid 71 (points by face value, 001 2.2.4).

A ruling may be changed only before the next stroke (001 1.5.4, digest G19 for 2.1.21): both corrections
amend the open verdict; after the next ``shot_start`` a void is refused."""

from __future__ import annotations

import pytest

from calibration.contract import Event, iter_jsonl
from calibration.table import TableModel
from rules.errors import RefereeInputError
from rules.referee import Referee

T = TableModel()
START = {"cue": (1700.0, 800.0), "t7": (2400.0, 900.0), "3": (3000.0, 400.0)}
LOG = """\
{"type": "call", "shot": 0, "ball": "t7", "pocket": "pyramid-left"}
{"type": "shot_start", "t": 1.0, "frame": 30, "shot": 0, "ball": "cue", "positions": {"cue": [1700, 800], "t7": [2400, 900], "3": [3000, 400]}}
{"type": "contact", "t": 1.4, "frame": 42, "shot": 0, "balls": ["cue", "t7"], "pos": [2343, 895]}
{"type": "pot", "t": 2.1, "frame": 63, "shot": 0, "ball": "t7", "pocket": "pyramid-left"}
{"type": "shot_end", "t": 3.0, "frame": 90, "shot": 0, "positions": {"cue": [2300, 890], "3": [3000, 400]}}
"""  # noqa: E501


def played() -> Referee:
    ref = Referee("russian71")
    out = [v for ev in iter_jsonl(LOG.splitlines()) for v in ref.feed(ev)]
    (v,) = out
    assert v.legal and v.counted == ("t7",)
    assert v.score == (0, 0)  # a tracker id has no face value
    return ref


def test_rename_relabels_the_open_verdict_and_rescores_it_2_2_4():
    ref = played()
    (amended,) = ref.feed(Event(type="rename", ball="t7", to="7"))
    assert amended.amended and amended.shot == 0
    assert amended.counted == ("7",) and amended.score == (7, 0)
    assert ref.state.shelves[0] == ("7",) and ref.state.score == (7, 0)
    assert ref.finals() == [amended]


def test_rename_of_a_ball_on_the_table_relabels_the_state_and_later_calls():
    ref = played()
    ref.feed(Event(type="call", shot=1, ball="3", pocket="pyramid-right"))
    assert ref.feed(Event(type="rename", ball="3", to="5")) == []  # the verdict does not name ball 3
    assert "5" in (ref.state.table or {}) and "3" not in (ref.state.table or {})
    assert ref.finals()[0].counted == ("t7",)
    assert [e.ball for e in ref._inputs[1]] == ["5"]


def test_rename_onto_a_ball_already_there_is_refused_and_changes_nothing():
    ref = played()
    before = (ref.state, ref.finals())
    with pytest.raises(RefereeInputError, match="already on the table"):
        ref.feed(Event(type="rename", ball="3", to="cue"))
    with pytest.raises(RefereeInputError, match="no ball 't9'"):
        ref.feed(Event(type="rename", ball="t9", to="9"))
    assert (ref.state, ref.finals()) == before


def test_void_pot_rejudges_the_shot_and_spots_the_ball_2_1_21_1_5_4():
    ref = played()
    ref.feed(Event(type="rename", ball="t7", to="7"))
    (voided,) = ref.feed(Event(type="void_pot", ball="7"))
    assert voided.amended and voided.counted == () and voided.score == (0, 0)
    assert voided.next_player == "B"  # nothing counted: the turn passes (001 2.1.9)
    spot = {s.ball: s.pos for s in voided.spot}
    assert spot["7"] == pytest.approx(T.spots["pyramid"])  # back spot, 001 2.2.7
    assert ref.state.table is not None and ref.state.table["7"] == pytest.approx(T.spots["pyramid"])
    assert ref.state.shelves == ((), ())
    assert any("2.1.21" in n for n in voided.notes)
    # A later amendment keeps the void: a manual foul re-judges the same shot, the ball stays spotted.
    (foul,) = ref.feed(Event(type="manual_foul", code="double_hit"))
    assert "7" in {s.ball for s in foul.spot} and foul.counted == ()


def test_void_pot_after_the_next_stroke_is_refused_1_5_4():
    ref = played()
    ref.feed(Event(type="shot_start", t=5.0, shot=1, ball="cue", positions={"cue": (2300.0, 890.0), "3": START["3"]}))
    with pytest.raises(RefereeInputError, match=r"1\.5\.4"):
        ref.feed(Event(type="void_pot", ball="t7"))
    assert ref.finals()[0].counted == ("t7",)


def test_void_pot_of_a_ball_not_potted_is_refused():
    ref = played()
    with pytest.raises(RefereeInputError, match="was not potted"):
        ref.feed(Event(type="void_pot", ball="3"))
    assert ref.finals()[0].counted == ("t7",)


def test_rename_during_a_shot_relabels_the_shot_in_progress():
    ref = played()
    start = {"cue": (2300.0, 890.0), "3": START["3"]}
    ref.feed(Event(type="call", shot=1, ball="3", pocket="pyramid-right"))
    ref.feed(Event(type="shot_start", t=5.0, shot=1, ball="cue", positions=start))
    assert ref.feed(Event(type="rename", ball="3", to="13")) == []
    # The camera goes on with the new id (the pipeline was renamed too).
    ref.feed(Event(type="contact", t=5.4, shot=1, balls=("cue", "13"), pos=(2950.0, 420.0)))
    ref.feed(Event(type="pot", t=6.0, shot=1, ball="13", pocket="pyramid-right"))
    (v,) = ref.feed(Event(type="shot_end", t=7.0, shot=1, positions={"cue": (2900.0, 500.0)}))
    assert v.legal and v.counted == ("13",)  # called as 3, relabelled with the ball
    assert v.score == (13 + 10, 0)  # face value, and +10 for the last ball on the table (001 2.2.4)


def test_voiding_a_wrongly_seen_cue_ball_pot_removes_the_foul_and_the_pot_counts_2_1_22_12():
    """The camera saw the cue ball fall with ball t7: a foul (001 2.1.22(12)) that voids t7. The operator
    voids the cue ball's pot: judged again, the shot is legal and t7 counts."""
    ref = played()
    ref.feed(Event(type="call", shot=1, ball="3", pocket="pyramid-right"))
    ref.feed(Event(type="shot_start", t=5.0, shot=1, ball="cue", positions={"cue": (2300.0, 890.0), "3": START["3"]}))
    ref.feed(Event(type="contact", t=5.4, shot=1, balls=("cue", "3"), pos=(2950.0, 420.0)))
    ref.feed(Event(type="pot", t=6.0, shot=1, ball="3", pocket="pyramid-right"))
    ref.feed(Event(type="pot", t=6.2, shot=1, ball="cue", pocket="pyramid-right"))
    (foul,) = ref.feed(Event(type="shot_end", t=7.0, shot=1, positions={}))
    assert not foul.legal and foul.void == ("3",) and [f.code for f in foul.fouls] == ["cue_potted"]
    (fixed,) = ref.feed(Event(type="void_pot", ball="cue"))
    assert fixed.amended and fixed.legal and fixed.counted == ("3",)
    assert "cue" not in {s.ball for s in fixed.spot}  # the cue ball is not spotted: it plays from where it lies
    assert any("cue ball voided" in n for n in fixed.notes)
