"""A concession (001 1.5.5) posted to the service on a real uvicorn server: the referee gives the frame's
result as a verdict, the score the overlay reads (/state and the stream) changes, and the protocol records
the winner; a frame conceded before its first stroke changes them too, from the referee's own state."""

from __future__ import annotations

import httpx

from tests.service_support import TOKEN, running_service

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _post(base: str, record: dict) -> httpx.Response:
    return httpx.post(base + "/inputs", json=record, headers=AUTH, timeout=30)


def test_a_concession_gives_the_frame_to_the_other_player_with_the_maximum_1_5_5(tmp_path):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30) and svc.runner.stats.error is None
        before = httpx.get(base + "/state").json()
        assert not before["frame_over"]
        last_shot = before["shot"]["last"]

        r = _post(base, {"type": "concede", "player": "A"})
        assert r.status_code == 201, r.text
        verdicts = [m["data"] for m in r.json()["messages"] if m["kind"] == "verdict"]
        (v,) = verdicts
        assert v["shot"] == last_shot and v["amended"] and v["frame_over"] and v["winner"] == "B"
        assert v["score"] == {"A": before["score"]["A"], "B": 71}  # the conceder's score stands
        assert any("concedes the frame" in n and "001 1.5.5" in n for n in v["notes"])
        states = [m["data"] for m in r.json()["messages"] if m["kind"] == "state"]
        assert states and states[-1]["score"] == v["score"] and states[-1]["frame_over"]

        after = httpx.get(base + "/state").json()
        assert after["score"] == v["score"] and after["winner"] == "B" and after["last_verdict"] == v
        assert after["referee_state"]["match"]["frames_won"] == {"A": 0, "B": 1}
        (frame,) = httpx.get(base + "/protocol").json()["frames"]
        assert frame["winner"] == "B" and frame["score"] == v["score"]
        assert "concedes the frame" in httpx.get(base + f"/shots/{last_shot}").text

        # The frame is over: a second concession is refused with the reason, in one line and no line number.
        r = _post(base, {"type": "concede", "player": "B"})
        assert r.status_code == 409 and r.json()["detail"] == (
            "the referee refuses this input: no frame in play to concede (001 1.5.5)"
        )


def test_a_frame_conceded_before_its_first_stroke_is_scored_from_the_referee_state_1_5_5(tmp_path):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        assert _post(base, {"type": "concede", "player": "A"}).status_code == 201
        r = _post(base, {"type": "frame_start", "game": "russian71", "breaker": "A"})
        assert r.status_code == 201, r.text
        r = _post(base, {"type": "concede", "player": "B"})
        assert r.status_code == 201, r.text
        assert not [m for m in r.json()["messages"] if m["kind"] == "verdict"]  # no shot to carry it
        (state,) = [m["data"] for m in r.json()["messages"] if m["kind"] == "state"]
        assert state["score"] == {"A": 71, "B": 0} and state["frame_over"] and state["winner"] == "A"
        assert httpx.get(base + "/state").json()["score"] == {"A": 71, "B": 0}
        frames = httpx.get(base + "/protocol").json()["frames"]
        assert [(f["n"], f["winner"], f["score"]) for f in frames][1] == (2, "A", {"A": 71, "B": 0})
        assert frames[1]["shots"] == 0
        # after a restart the record gives the same state (the referee replays the inputs)
        svc.match._rebuild()
        assert svc.match.state()["score"] == {"A": 71, "B": 0} and svc.match.state()["frame_over"]
