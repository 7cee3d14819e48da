"""A conceded frame (001 1.5.5, "Объявление поражения": "Участник может признать свое поражение в партии"):
the conceder's score stands, the winner is credited with the maximum (71 points or 8 balls), and the frame's
last verdict is given again with that result, so every reader of verdicts sees how the frame ended."""

from __future__ import annotations

import pytest

from calibration.contract import Event
from rules.errors import RefereeInputError
from rules.scenarios import Script

LAYOUT = {"cue": (1700.0, 800.0), "1": (2400.0, 900.0), "3": (3000.0, 400.0), "4": (3100.0, 1400.0)}


def after_one_legal_pot(game: str = "russian71", frames_to_win: int = 2) -> Script:
    """Player A pots ball 3 (3 points in the Russian pyramid, 001 2.2.4; one ball in the others)."""
    s = Script(game, layout=LAYOUT, frames_to_win=frames_to_win)
    s.ref.state = s.ref.state.evolve(in_hand=False, shots=3)  # past the break: an ordinary stroke
    if s.ref.game.calls != "none":
        s.call("3", "pyramid-left")
    v = s.play("cue", ("hit", "cue", "3"), ("pot", "3", "pyramid-left"))
    assert v.legal and v.counted == ("3",) and not v.frame_over
    return s


@pytest.mark.parametrize(("game", "maximum"), [("russian71", 71), ("moscow", 8), ("eight", 8)])
def test_a_concession_after_a_shot_amends_its_verdict_with_the_frame_result_1_5_5(game, maximum):
    s = after_one_legal_pot(game)
    before = s.verdicts[-1]
    (v,) = s.add(Event(type="concede", player="A"))
    assert v.shot == before.shot and v.amended
    assert v.frame_over and v.winner == "B"
    # the conceder keeps what he had; the winner gets the frame's maximum
    assert v.score == (before.score[0], maximum)
    assert v.counted == before.counted and v.fouls == before.fouls  # the ruling on the stroke is unchanged
    assert any("A concedes the frame" in n and "001 1.5.5" in n for n in v.notes)
    assert s.ref.finals()[-1] == v  # verdicts.jsonl ends the frame with it
    snap = s.ref.snapshot()
    assert snap["frame_over"] and snap["winner"] == "B" and snap["match"]["frames_won"] == {"A": 0, "B": 1}
    assert not snap["match"]["over"]  # best of three: one frame of two


def test_after_a_concession_the_shot_can_no_longer_be_amended_1_5_4():
    s = after_one_legal_pot()
    s.add(Event(type="concede", player="B"))
    with pytest.raises(RefereeInputError, match="final"):
        s.add(Event(type="void_pot", ball="3"))
    with pytest.raises(RefereeInputError, match="no frame in play to concede"):
        s.add(Event(type="concede", player="A"))


def test_a_frame_conceded_before_its_first_stroke_changes_the_state_and_no_earlier_frame_1_5_5():
    s = after_one_legal_pot()
    (first,) = s.add(Event(type="concede", player="A"))  # frame 1 to B
    s.new_frame("A")
    assert s.add(Event(type="concede", player="B")) == []  # frame 2 has no shot to carry the result
    assert s.ref.finals() == [first]  # frame 1's last verdict is not given again
    st = s.ref.state
    assert st.frame == 2 and st.frame_over and st.winner == "A" and st.score == (71, 0)
    assert s.ref.match.frames_won == (1, 1)


def test_a_concession_after_a_rerack_ends_the_frame_on_its_last_shot_2_1_16_1_5_5():
    s = after_one_legal_pot()
    s.add(Event(type="rerack"))
    (v,) = s.add(Event(type="concede", player="B"))
    assert v.shot == 0 and v.frame_over and v.winner == "A" and v.score == (71, 0)
