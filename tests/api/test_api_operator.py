"""Operator inputs on a real uvicorn server: the token is required and checked, malformed input gets a
clear 4xx and changes nothing, a valid input is stored, streamed and reaches the referee."""

from __future__ import annotations

import httpx
import pytest

from tests.service_support import TOKEN, running_service

CALL = {"type": "call", "ball": "3", "pocket": "middle-left"}


def _snapshot(svc) -> tuple[int, dict[str, int], dict]:
    mid = svc.match.match_id
    state = svc.match.state()
    return svc.store.last_seq(mid), svc.store.counts(mid), {k: state[k] for k in ("score", "player", "shot")}


def test_operator_endpoint_refuses_a_missing_or_wrong_token(tmp_path):
    with running_service(tmp_path) as (svc, base):
        before = _snapshot(svc)
        r = httpx.post(base + "/inputs", json=CALL)
        assert r.status_code == 401
        assert r.headers["www-authenticate"] == "Bearer"
        r = httpx.post(base + "/inputs", json=CALL, headers={"Authorization": "Bearer not-the-token"})
        assert r.status_code == 403
        r = httpx.post(base + "/inputs", json=CALL, headers={"Authorization": "Basic " + TOKEN})
        assert r.status_code == 401
        assert _snapshot(svc) == before
        # Viewers need no token.
        assert httpx.get(base + "/state").status_code == 200
        r = httpx.post(base + "/inputs", json=CALL, headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 201, r.text
        assert r.json()["accepted"] == {"type": "call", "shot": 0, "ball": "3", "pocket": "middle-left"}
        assert svc.store.counts(svc.match.match_id)["inputs"] == 1


def test_without_a_configured_token_operator_inputs_are_off(tmp_path):
    with running_service(tmp_path, token=None) as (_svc, base):
        r = httpx.post(base + "/inputs", json=CALL, headers={"Authorization": "Bearer anything"})
        assert r.status_code == 403
        assert "TABLEREF_OPERATOR_TOKEN" in r.json()["detail"]


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (b"{not json", 400, "not JSON"),
        (b"[1, 2]", 422, "one JSON object"),
        (b'{"type": "teleport"}', 422, "type"),
        (b'{"type": "pot", "t": 1.0, "ball": "3", "pocket": "middle-left"}', 422, "camera event"),
        (b'{"type": "call", "ball": "3"}', 422, "a call names a ball and a pocket"),
        (b'{"type": "call", "ball": "3", "pocket": "corner"}', 422, "unknown pocket"),
        (b'{"type": "manual_foul", "code": "sneezed"}', 422, "unknown manual foul"),
        (b'{"type": "play_on", "player": "C"}', 422, "player"),
        (b'{"type": "frame_start", "game": "snooker", "breaker": "A"}', 422, "unknown game"),
        (b'{"type": "reorder", "ball": "3", "colour": "red"}', 422, "colour"),
    ],
)
def test_malformed_input_gets_4xx_and_changes_nothing(tmp_path, body, status, says):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        before = _snapshot(svc)
        r = httpx.post(
            base + "/inputs", content=body,
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )  # fmt: skip
        assert r.status_code == status, r.text
        assert says in r.json()["detail"]
        assert _snapshot(svc) == before


def test_an_input_the_referee_refuses_is_409_and_changes_nothing(tmp_path):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        before = _snapshot(svc)
        # A manual foul on a shot whose verdict froze when the next shot started (001 1.5.4).
        r = httpx.post(base + "/inputs", json={"type": "manual_foul", "code": "push", "shot": 1},
                       headers={"Authorization": f"Bearer {TOKEN}"})  # fmt: skip
        assert r.status_code == 409, r.text
        assert "refuses" in r.json()["detail"]
        assert _snapshot(svc) == before


def test_a_manual_foul_amends_the_open_verdict_and_is_streamed(tmp_path):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        mid = svc.match.match_id
        last = svc.store.verdict_history(mid, 3)[-1]
        assert last["legal"] is True
        r = httpx.post(base + "/inputs", json={"type": "manual_foul", "code": "double_hit"},
                       headers={"Authorization": f"Bearer {TOKEN}"})  # fmt: skip
        assert r.status_code == 201, r.text
        kinds = [m["kind"] for m in r.json()["messages"]]
        assert kinds[0] == "input" and "verdict" in kinds
        amended = svc.store.verdict_history(mid, 3)[-1]
        assert amended["legal"] is False
        assert [f["code"] for f in amended["fouls"]] == ["double_hit"]
        pack = httpx.get(base + "/shots/3").json()
        assert pack["verdict"] == amended and pack["amendments"] == 1
        assert pack["inputs"][-1]["code"] == "double_hit"
