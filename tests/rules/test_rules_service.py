"""The rules' refusals, review flags, unjudged shots and own warnings as the live service serves them, on a
real uvicorn server over the golden logs of tests/data/rules_*: a refused input is HTTP 409 with the
referee's reason and changes nothing; an accepted play_on amends the foul shot's verdict on the stream; a
shot with a record the referee cannot place is judged with ``review`` and ``rename`` judges it again; a shot
with nothing placeable gets a stated-reason record on the stream; the 2.1.5в warning is given between
shots from the tracker's positions, stored and streamed before the stroke."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from calibration.contract import Event, read_jsonl, write_jsonl
from tests.paths import DATA
from tests.service_support import TOKEN, read_ws, running_service

AUTH = {"Authorization": f"Bearer {TOKEN}"}
DATA = DATA


def _log(tmp: Path, src: Path, keep: int | None = None) -> Path:
    """The camera records (and frame_start) of a golden log, up to ``keep`` records."""
    events = [e for e in read_jsonl(src) if e.is_camera_event or e.type == "frame_start"]
    dst = tmp / src.name
    write_jsonl(dst, events[:keep])
    return dst


def _post(base: str, body: dict) -> httpx.Response:
    return httpx.post(base + "/inputs", json=body, headers=AUTH)


def _verdicts(svc) -> list[dict]:
    return [v for _, v in svc.store.latest_verdicts(svc.match.match_id)]


def test_play_on_for_the_next_shot_amends_the_foul_and_a_wrong_one_is_409(tmp_path):
    # the play-on log up to shot 1's end: B's foul (no contact), the verdict open
    src = _log(tmp_path, DATA / "rules_play_on" / "moscow.events.jsonl", keep=1 + 8 + 3)
    with running_service(tmp_path, src, game="moscow") as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        foul = _verdicts(svc)[-1]
        assert foul["shot"] == 1 and not foul["legal"] and foul["next_player"] == "A"
        seq = svc.store.last_seq(svc.match.match_id)
        r = _post(base, {"type": "play_on", "shot": 1, "player": "A"})
        assert r.status_code == 409 and "wrong player" in r.json()["detail"] and "001 2.1.8" in r.json()["detail"]
        assert svc.store.last_seq(svc.match.match_id) == seq  # nothing recorded
        r = _post(base, {"type": "play_on", "shot": 2, "player": "B"})
        assert r.status_code == 201, r.text
        kinds = [m["kind"] for m in r.json()["messages"]]
        assert kinds[0] == "input" and "verdict" in kinds
        amended = _verdicts(svc)[-1]
        assert amended["shot"] == 1 and amended["next_player"] == "B" and amended["amended"] is True
        streamed = asyncio.run(read_ws(base, 2, since=seq))
        assert streamed[1]["kind"] == "verdict" and streamed[1]["data"]["next_player"] == "B"
        assert svc.match.state()["player"] == "B"
        r = _post(base, {"type": "placement_warning"})
        assert r.status_code == 409 and "no cue ball in hand" in r.json()["detail"]


def test_unplaceable_record_judged_for_review_then_rename_and_an_unjudged_shot_says_why(tmp_path):
    src = _log(tmp_path, DATA / "rules_unplaced" / "lost_id_break.events.jsonl", keep=10)
    with running_service(tmp_path, src, game="eight") as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        (v,) = _verdicts(svc)
        assert v["review"] is True and v["counted"] == [] and any("t6" in n for n in v["notes"])
        r = _post(base, {"type": "rename", "ball": "t6", "to": "3"})
        assert r.status_code == 201, r.text
        (v,) = _verdicts(svc)
        assert v["counted"] == ["3"] and "review" not in v and v["amended"] is True
        assert svc.match.state()["score"] == {"A": 1, "B": 0}
    src = _log(tmp_path, DATA / "rules_unplaced" / "unplaceable_shot.events.jsonl")
    with running_service(tmp_path / "b", src, game="eight") as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        got = _verdicts(svc)
        assert [v["shot"] for v in got] == [0, 1, 2]
        assert got[1]["judged"] is False and got[1]["legal"] is None and "shot_start was refused" in got[1]["notes"][0]
        assert got[1]["score"] == got[0]["score"] and got[1]["next_player"] == got[0]["next_player"]
        pack = httpx.get(base + "/shots/1").json()
        assert pack["verdict"]["judged"] is False


def test_the_service_gives_the_placement_warning_between_shots(tmp_path):
    # the temporary-house log up to shot 0's end: the cue ball off the table, B to play from hand
    src = _log(tmp_path, DATA / "rules_placement" / "eight.events.jsonl", keep=4)
    with running_service(tmp_path, src, game="eight") as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        mid = svc.match.match_id
        assert _verdicts(svc)[-1]["ball_in_hand"] is True
        seq = svc.store.last_seq(mid)
        layout = {"1": (300.0, 400.0), "2": (450.0, 1300.0), "5": (800.0, 700.0)}
        frame = svc.match.progress_frame + 1
        svc.match.ingest(frame, [], t=20.0, positions={**layout, "cue": (600.0, 500.0)})  # in the hand
        svc.match.ingest(frame + 6, [], t=20.2, positions={**layout, "cue": (400.0, 889.0)})  # put down
        svc.match.ingest(frame + 20, [], t=20.5)
        # not yet: the cue ball has stood still for 0.3 s only
        assert not [m for m in svc.store.messages(mid, seq, 100) if m.kind == "input"]
        msgs = svc.match.ingest(frame + 40, [], t=20.8)
        inputs = [m for m in msgs if m.kind == "input"]
        assert len(inputs) == 1 and inputs[0].data["type"] == "placement_warning" and inputs[0].data["shot"] == 1
        snap = svc.match.state()["referee_state"]
        assert snap["placement_warned"] and any(w["code"] == "temporary_house" for w in snap["warnings"])
        streamed = asyncio.run(read_ws(base, 1, since=inputs[0].seq - 1))
        assert streamed[0]["kind"] == "input" and streamed[0]["data"]["type"] == "placement_warning"
        assert not [m for m in svc.match.ingest(frame + 60, [], t=21.5) if m.kind == "input"]  # given once
        start = Event(type="shot_start", t=22.0, frame=frame + 80, shot=1, ball="cue",
                      positions={**layout, "cue": (400.0, 889.0)})  # fmt: skip
        hit = Event(type="contact", t=22.2, frame=frame + 92, shot=1, balls=("cue", "1"), pos=(350.0, 640.0))
        end = Event(type="shot_end", t=24.0, frame=frame + 200, shot=1, positions={**layout, "cue": (420.0, 700.0)})
        svc.match.ingest(frame + 80, [start])
        svc.match.ingest(frame + 92, [hit])
        msgs = svc.match.ingest(frame + 200, [end])
        (v,) = [m.data for m in msgs if m.kind == "verdict"]
        assert [f["rule"] for f in v["fouls"]] == ["001 2.1.22(14)"]
        assert [i["type"] for i in svc.store.shot_inputs(mid, 1)] == ["placement_warning"]  # stored with its shot


def test_a_restarted_service_replays_the_referees_own_warning(tmp_path):
    src = _log(tmp_path, DATA / "rules_placement" / "eight.events.jsonl", keep=4)
    layout = {"1": (300.0, 400.0), "2": (450.0, 1300.0), "5": (800.0, 700.0), "cue": (400.0, 889.0)}
    with running_service(tmp_path, src, game="eight") as (svc, _base):
        svc.runner.start()
        assert svc.runner.join(30)
        frame = svc.match.progress_frame + 1
        svc.match.ingest(frame, [], t=20.0, positions=layout)
        warned = [m for m in svc.match.ingest(frame + 30, [], t=20.6) if m.kind == "input"]
        assert [m.data["type"] for m in warned] == ["placement_warning"]
        seen = svc.match.state()["referee_state"]
        svc.store.set_match_status(svc.match.match_id, "live")  # as if it had stopped mid-match
    with running_service(tmp_path, src, game="eight") as (svc2, _base2):
        assert svc2.match.resumed and svc2.match.referee_errors == []
        again = svc2.match.state()["referee_state"]
        assert again["placement_warned"] and again == seen
