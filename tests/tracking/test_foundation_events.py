"""The event records of CONTRACT.md section 3: what parses, what is refused, and the round trip."""

import json

import pytest

from calibration.contract import Event, EventLineError, iter_jsonl, jaw_cushion, jaw_pocket, parse_line

GOOD = [
    {"type": "shot_start", "t": 1.25, "frame": 75, "shot": 0, "ball": "cue", "positions": {"cue": [500, 889]}},
    {"type": "contact", "t": 1.5, "frame": 90, "shot": 0, "balls": ["cue", "1"], "pos": [2600, 889]},
    {"type": "cushion", "t": 1.7, "frame": 102, "shot": 0, "ball": "1", "cushion": "pyramid", "pos": [3569, 900]},
    {"type": "cushion", "t": 1.8, "frame": 108, "shot": 0, "ball": "1", "cushion": "jaw:middle-left", "pos": [1740, 0]},
    {"type": "line_cross", "t": 1.9, "frame": 114, "shot": 0, "ball": "cue", "line": "center", "direction": "+x"},
    {"type": "pot", "t": 2.0, "frame": 120, "shot": 0, "ball": "1", "pocket": "pyramid-left"},
    {"type": "off_table", "t": 2.1, "frame": 126, "shot": 0, "ball": "2", "pos": [3000, 10]},
    {"type": "disturbed", "t": 9.0, "frame": 540, "shot": None, "ball": "3", "pos": [1000, 800]},
    {"type": "shot_end", "t": 4.0, "frame": 240, "shot": 0, "positions": {"cue": [2400, 700]}},
    {"type": "frame_start", "shot": 0, "game": "moscow", "breaker": "A"},
    {"type": "call", "shot": 1, "ball": "7", "pocket": "house-right"},
    {"type": "call", "shot": 1, "cue_pocket": "middle-right"},
    {"type": "call_any", "shot": 0},
    {"type": "reorder", "shot": 3, "ball": "t4"},
    {"type": "third_ball", "shot": 3, "balls": ["t5"]},
    {"type": "manual_foul", "shot": 2, "code": "double_hit"},
    {"type": "play_on", "shot": 2, "player": "B"},
]


@pytest.mark.parametrize("record", GOOD, ids=lambda r: r["type"])
def test_contract_records_round_trip(record):
    ev = parse_line(json.dumps(record), 1)
    assert ev.type == record["type"]
    again = parse_line(ev.to_json(), 1)
    assert again == ev
    for key, value in record.items():
        if value is not None or key == "shot":
            assert ev.to_dict()[key] == value


BAD = [
    ('{"type": "pot", "t": 1, "frame": 1, "shot": 0, "ball": "1"}', "needs 'pocket'"),
    ('{"type": "pot", "t": 1, "frame": 1, "shot": 0, "ball": "1", "pocket": "corner"}', "unknown pocket"),
    ('{"type": "cushion", "t": 1, "shot": 0, "ball": "1", "cushion": "jaw:nowhere", "pos": [0, 1]}', "unknown cushion"),
    ('{"type": "contact", "t": 1, "shot": 0, "balls": ["1", "1"], "pos": [0, 1]}', "two different balls"),
    ('{"type": "contact", "shot": 0, "balls": ["1", "2"], "pos": [0, 1]}', "needs 't'"),
    ('{"type": "teleport", "t": 1}', "type"),
    ('{"type": "frame_start", "game": "snooker", "breaker": "A"}', "unknown game"),
    ('{"type": "manual_foul", "code": "sneeze"}', "unknown manual foul"),
    ('{"type": "call", "shot": 1, "ball": "7"}', "ball and a pocket"),
    ('{"type": "pot", "t": 1, "shot": 0, "ball": "1", "pocket": "house-left", "line": "house"}', "no field 'line'"),
    ("[1, 2]", "not a JSON object"),
    ('{"type": "pot", ', "not JSON"),
]


@pytest.mark.parametrize(("text", "reason"), BAD)
def test_malformed_lines_name_the_line_and_reason(text, reason):
    with pytest.raises(EventLineError) as err:
        parse_line(text, 7)
    assert str(err.value).startswith("line 7:")
    assert reason in str(err.value)


def test_iter_jsonl_stops_at_the_bad_line_after_yielding_the_good_ones():
    lines = [json.dumps(GOOD[0]), "", json.dumps(GOOD[1]), "{oops", json.dumps(GOOD[2])]
    got: list[Event] = []
    with pytest.raises(EventLineError, match="line 4"):
        for ev in iter_jsonl(lines):
            got.append(ev)
    assert [e.type for e in got] == ["shot_start", "contact"]


def test_confidence_and_review_are_written_only_when_they_say_something():
    ev = Event(type="pot", t=2.0, frame=120, shot=0, ball="1", pocket="house-left")
    assert "confidence" not in ev.to_dict() and "review" not in ev.to_dict()
    low = ev.model_copy(update={"confidence": 0.4, "review": True})
    assert low.to_dict()["confidence"] == 0.4 and low.to_dict()["review"] is True


def test_a_jaw_touch_names_its_pocket_and_reads_back():
    # CONTRACT.md section 3: a jaw is named "jaw:<pocket>"; a cushion segment's name is no pocket's jaw
    assert jaw_cushion("house-left") == "jaw:house-left"
    assert jaw_pocket(jaw_cushion("middle-right")) == "middle-right"
    assert jaw_pocket("left-house") is None and jaw_pocket(None) is None
    ev = parse_line(
        json.dumps(
            {
                "type": "cushion",
                "t": 1.0,
                "frame": 60,
                "ball": "1",
                "cushion": "jaw:pyramid-left",
                "pos": [3540.0, 35.0],
            }
        )
    )
    assert jaw_pocket(ev.cushion) == "pyramid-left"
