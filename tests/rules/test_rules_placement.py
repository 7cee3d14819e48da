"""The temporary-house placement warning (001 2.1.5б-в, 2.1.20, 2.1.22(14)) given by the engine itself, in
the Russian, Moscow and 8-ball families, from golden logs replayed by ``tableref referee``.

Every object ball is in the house and the cue ball is in hand: it must be placed in the temporary house
(2.1.5б). Placed in the ordinary house, it stands outside the temporary one; the camera sees it at rest
there before the stroke (``shot_start``'s positions), the engine warns (2.1.5в) and the stroke from there
is foul 14, never a referee's error. Placed in the temporary house, the shot is legal. Between shots the
live service gives the same warning before the stroke (:meth:`Referee.placement_due`).
"""

from __future__ import annotations

import json

import pytest

from api.cli import main
from calibration.contract import Event
from calibration.table import TableModel
from rules.errors import RefereeInputError
from rules.referee import referee_lines
from rules.scenarios import Script
from tests.paths import DATA

DATA = DATA / "rules_placement"
T = TableModel()
L = T.length_mm
GAMES = ["russian71", "russian71-fast", "moscow", "moscow-fast", "moscow-fast-called",
         "eight", "eight-fast", "eight-fast-called"]  # fmt: skip
ALL_IN_HOUSE = {"cue": (2000.0, 900.0), "1": (300.0, 400.0), "2": (450.0, 1300.0), "5": (700.0, 900.0)}
ORDINARY_HOUSE = (400.0, 889.0)  # inside the house, outside the temporary house
TEMPORARY_HOUSE = (3200.0, 889.0)  # beyond the back line (x > 3L/4)


def script(game: str) -> Script:
    s = Script(game, layout=ALL_IN_HOUSE, start_frame=False)  # a frame in play, the object balls in the house
    s.play("cue", ("hit", "cue", "5"), ("off", "cue"), end={"5": (800.0, 700.0)})  # A: foul 2, B from hand
    s.pos["cue"] = ORDINARY_HOUSE  # B places the cue ball in the ordinary house and strikes from there
    s.play("cue", ("hit", "cue", "1"), ("rail", "1", "left-house"), ("cross", "cue", "house", "+x"))
    s.play("cue", ("hit", "cue", "2"), ("off", "cue"))  # A: foul 2 again, B from hand
    s.pos["cue"] = TEMPORARY_HOUSE  # this time in the temporary house
    s.play("cue", ("cross", "cue", "center", "-x"), ("hit", "cue", "5"), ("rail", "5", "house"),
           ("rail", "5", "left-house"))  # fmt: skip
    return s


@pytest.mark.parametrize("game", GAMES)
def test_temporary_house_golden_log(game, capsys):
    events = DATA / f"{game}.events.jsonl"
    assert events.read_text(encoding="utf-8") == script(game).jsonl()
    assert main(["referee", "--game", game, str(events)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    got = [json.loads(x) for x in captured.out.splitlines()]
    want = [json.loads(x) for x in (DATA / f"{game}.verdicts.jsonl").read_text(encoding="utf-8").splitlines()]
    assert got == want and len(got) == 4
    assert [f["rule"] for f in got[0]["fouls"]] == ["001 2.1.22(2)"] and got[0]["ball_in_hand"]
    # from the ordinary house with every object ball in the house: the engine's warning, then foul 14
    v = got[1]
    assert v["player"] == "B" and not v["legal"]
    assert [(f["code"], f["rule"]) for f in v["fouls"]] == [("hand_outside_house", "001 2.1.22(14)")]
    warned = [n for n in v["notes"] if n.startswith("warned by the engine")]
    assert len(warned) == 1 and "temporary house (001 2.1.5б)" in warned[0] and "(001 2.1.5в)" in warned[0]
    assert not any("2.1.21" in n for n in v["notes"])  # not the referee's error: the engine warned
    assert v["next_player"] == "A"
    # from the temporary house: legal, no warning
    v = got[3]
    assert v["player"] == "B" and v["legal"] and v["fouls"] == []
    assert not any("warned" in n for n in v.get("notes", []))


@pytest.mark.parametrize("game", GAMES)
def test_the_warning_is_published_before_the_stroke_is_judged(game):
    s = Script(game, layout=ALL_IN_HOUSE, start_frame=False)
    s.play("cue", ("hit", "cue", "5"), ("off", "cue"), end={"5": (800.0, 700.0)})
    assert any(w["code"] == "temporary_house" for w in s.ref.snapshot()["warnings"])  # 2.1.20, after the shot
    layout = {**s.pos, "cue": ORDINARY_HOUSE}
    s.ref.feed(Event(type="shot_start", t=50.0, shot=1, ball="cue", positions=layout))
    snap = s.ref.snapshot()
    (w,) = [w for w in snap["warnings"] if w["code"] == "placement"]
    assert w["rule"] == "001 2.1.5в" and w["balls"] == ["cue"] and snap["placement_warned"]


@pytest.mark.parametrize("game", GAMES)
def test_between_shots_the_engine_warns_once_the_cue_ball_rests_outside(game):
    s = Script(game, layout=ALL_IN_HOUSE, start_frame=False)
    s.play("cue", ("hit", "cue", "5"), ("off", "cue"), end={"5": (800.0, 700.0)})
    ref = s.ref
    placed = {**s.pos, "cue": ORDINARY_HOUSE}
    in_hand = {**placed, "cue": (500.0, 600.0)}
    assert ref.placement_due(in_hand, 10.0) is None  # moving in the player's hand
    assert ref.placement_due(placed, 10.2) is None  # just put down
    assert ref.placement_due(None, 10.5) is None  # still, but not yet for rest_s
    due = ref.placement_due(None, 10.8)
    assert due is not None and due.type == "placement_warning" and due.shot == 1
    ref.feed(due)  # the service records it (origin: the referee) and feeds it back
    assert ref.state.placement_warned and ref.placement_due(None, 12.0) is None
    with pytest.raises(RefereeInputError, match="already given"):
        ref.feed(Event(type="placement_warning", shot=1))  # the operator's own would change nothing
    s.pos["cue"] = ORDINARY_HOUSE
    v = s.play("cue", ("hit", "cue", "1"), ("cross", "cue", "house", "+x"))
    assert [f.rule for f in v.fouls] == ["001 2.1.22(14)"]
    # placed inside the temporary house: nothing is due
    s.play("cue", ("hit", "cue", "2"), ("off", "cue"))
    assert ref.placement_due({**s.pos, "cue": TEMPORARY_HOUSE}, 30.0) is None
    assert ref.placement_due(None, 31.0) is None


def test_what_the_tracker_showed_before_a_stroke_is_not_taken_for_a_placement_after_it():
    s = Script("eight", layout=ALL_IN_HOUSE, start_frame=False)
    ref = s.ref
    assert ref.placement_due(dict(s.pos), 1.0) is None  # the cue ball in play at (2000, 900), not in hand
    s.play("cue", ("hit", "cue", "5"), ("off", "cue"), end={"5": (800.0, 700.0)})
    assert ref.state.in_hand
    assert ref.placement_due(None, 5.0) is None and ref.placement_due(None, 6.0) is None  # not seen yet


def test_conceding_a_frame_that_is_over_is_refused_1_5_5():
    s = Script("moscow")
    s.add(Event(type="concede", player="B"))
    with pytest.raises(RefereeInputError, match="no frame in play"):
        s.add(Event(type="concede", player="A"))
    assert s.ref.match.frames_won == (1, 0)


def test_without_the_engines_warnings_the_operator_warns_and_the_unwarned_stroke_is_the_referees_error():
    s = Script("eight", layout=ALL_IN_HOUSE, start_frame=False)
    s.ref.auto_warnings = False
    s.play("cue", ("hit", "cue", "5"), ("off", "cue"), end={"5": (800.0, 700.0)})
    s.pos["cue"] = ORDINARY_HOUSE
    v = s.play("cue", ("hit", "cue", "1"), ("cross", "cue", "house", "+x"))
    assert v.legal and any("2.1.21(1)" in n for n in v.notes)
    s.play("cue", ("hit", "cue", "2"), ("off", "cue"))
    s.add(Event(type="placement_warning", shot=s.index))  # the operator's warning, for manual use
    s.pos["cue"] = ORDINARY_HOUSE
    v = s.play("cue", ("hit", "cue", "1"), ("cross", "cue", "house", "+x"))
    assert [f.rule for f in v.fouls] == ["001 2.1.22(14)"]


def test_placement_warning_with_no_ball_in_hand_is_refused():
    s = Script("moscow", layout=ALL_IN_HOUSE, start_frame=False)
    with pytest.raises(RefereeInputError, match="no cue ball in hand"):
        s.add(Event(type="placement_warning", shot=0))


def write_golden() -> None:  # pragma: no cover - regenerates the logs after a reviewed rule change
    DATA.mkdir(parents=True, exist_ok=True)
    for game in GAMES:
        text = script(game).jsonl()
        (DATA / f"{game}.events.jsonl").write_text(text, encoding="utf-8")
        out = referee_lines(game, text.splitlines())
        (DATA / f"{game}.verdicts.jsonl").write_text("".join(v.to_json() + "\n" for v in out), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    write_golden()
