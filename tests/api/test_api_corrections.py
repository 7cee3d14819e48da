"""Operator corrections on a real uvicorn server: ``rename`` ("this ball is number 7") and ``void_pot`` ("void
the last pot"). They need the operator token, are stored before they are streamed, amend the open verdict
(001 1.5.4: only before the next stroke, else 409), and a restarted service replays them to the same state."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from api.service.launch import Service, build
from api.service.settings import ServiceSettings
from calibration.contract import Event
from tests.paths import REPO
from tests.service_support import MATCH_LOG, TOKEN, read_ws, running_service

AUTH = {"Authorization": f"Bearer {TOKEN}"}
DEMO = REPO / "api" / "data" / "demo"


def _played(svc) -> None:
    svc.runner.start()
    assert svc.runner.join(30)


def _snapshot(svc) -> tuple[int, dict[str, int], dict]:
    mid = svc.match.match_id
    state = svc.match.state()
    keep = ("score", "player", "shot", "balls", "pending_spot")
    return svc.store.last_seq(mid), svc.store.counts(mid), {k: state[k] for k in keep}


def _post(base: str, body: dict, headers: dict | None = None) -> httpx.Response:
    return httpx.post(base + "/inputs", json=body, headers=AUTH if headers is None else headers)


def _streamed(base: str, since: int, count: int) -> list[dict]:
    return asyncio.run(read_ws(base, count, since=since))


def test_rename_changes_state_and_the_stream_and_amends_the_open_verdict(tmp_path):
    with running_service(tmp_path) as (svc, base):
        _played(svc)
        mid = svc.match.match_id
        seq = svc.store.last_seq(mid)
        score = httpx.get(base + "/state").json()["score"]
        # A ball on the table: /state names it by its new id; the verdict does not name it, so no amendment.
        r = _post(base, {"type": "rename", "ball": "2", "to": "t2"})
        assert r.status_code == 201, r.text
        assert [m["kind"] for m in r.json()["messages"]] == ["input"]
        ids = {b["id"] for b in httpx.get(base + "/state").json()["balls"]}
        assert "t2" in ids and "2" not in ids
        # The ball counted in the open verdict of shot 3 (ball 7, called and potted): renamed, it is re-scored.
        r = _post(base, {"type": "rename", "ball": "7", "to": "t7"})
        assert r.status_code == 201, r.text
        msgs = r.json()["messages"]
        verdict = next(m["data"] for m in msgs if m["kind"] == "verdict")
        assert verdict["shot"] == 3 and verdict["amended"] is True and verdict["counted"] == ["t7"]
        state = httpx.get(base + "/state").json()
        assert state["score"]["A"] + state["score"]["B"] == score["A"] + score["B"] - 7  # t7 has no face value
        assert svc.store.verdict_history(mid, 3)[-1]["counted"] == ["t7"]
        # Both inputs, the amended verdict and the new state reached the stream, after the log's messages.
        streamed = _streamed(base, seq, 1 + len(msgs))
        assert [m["data"] for m in streamed if m["kind"] == "input"] == [
            {"type": "rename", "shot": 4, "ball": "2", "to": "t2"},
            {"type": "rename", "shot": 4, "ball": "7", "to": "t7"},
        ]
        assert streamed[1:] == msgs


def test_void_pot_rescores_spots_the_ball_and_streams_the_amended_verdict(tmp_path):
    with running_service(tmp_path) as (svc, base):
        _played(svc)
        mid = svc.match.match_id
        before = httpx.get(base + "/state").json()
        seq = svc.store.last_seq(mid)
        r = _post(base, {"type": "void_pot", "ball": "7"})
        assert r.status_code == 201, r.text
        msgs = r.json()["messages"]
        assert msgs[0]["data"] == {"type": "void_pot", "shot": 3, "ball": "7"}
        verdict = next(m["data"] for m in msgs if m["kind"] == "verdict")
        assert verdict["amended"] is True and verdict["counted"] == [] and "7" in {s["ball"] for s in verdict["spot"]}
        after = httpx.get(base + "/state").json()
        total = after["score"]["A"] + after["score"]["B"]
        assert total == before["score"]["A"] + before["score"]["B"] - 7
        assert after["player"] != before["player"]  # nothing counted: the turn passes
        assert "7" in {b["id"] for b in after["balls"]}  # back on its spot
        assert any(m["kind"] == "state" for m in msgs)
        assert _streamed(base, seq, len(msgs)) == msgs
        assert httpx.get(base + "/shots/3").json()["verdict"] == verdict


def test_void_after_the_next_stroke_is_409_and_changes_nothing(tmp_path):
    with running_service(tmp_path) as (svc, base):
        _played(svc)
        before = _snapshot(svc)
        r = _post(base, {"type": "void_pot", "ball": "3", "shot": 1})
        assert r.status_code == 409, r.text
        assert "1.5.4" in r.json()["detail"]
        assert _snapshot(svc) == before


@pytest.mark.parametrize(
    ("body", "headers", "status", "says"),
    [
        ({"type": "rename", "ball": "7", "to": "t7"}, {}, 401, "token required"),
        ({"type": "void_pot", "ball": "7"}, {"Authorization": "Bearer wrong"}, 403, "wrong operator token"),
        ({"type": "rename", "ball": "7"}, None, 422, "needs 'to'"),
        ({"type": "rename", "ball": "7", "to": "16"}, None, 422, "must be a ball id"),
        ({"type": "rename", "ball": "7", "to": "7"}, None, 422, "two different ids"),
        ({"type": "void_pot"}, None, 422, "needs 'ball'"),
        ({"type": "void_pot", "ball": "7", "to": "t7"}, None, 422, "no field 'to'"),
        ({"type": "rename", "ball": "2", "to": "1"}, None, 409, "already on the table"),
        ({"type": "void_pot", "ball": "2"}, None, 409, "was not potted"),
    ],
)
def test_bad_corrections_are_refused_and_change_nothing(tmp_path, body, headers, status, says):
    with running_service(tmp_path) as (svc, base):
        _played(svc)
        before = _snapshot(svc)
        r = _post(base, body, headers)
        assert r.status_code == status, r.text
        assert says in r.json()["detail"]
        assert _snapshot(svc) == before


def test_a_restarted_service_replays_the_corrections_to_the_same_state(tmp_path):
    keep = ("score", "player", "balls", "pending_spot", "referee_state", "last_verdict")
    with running_service(tmp_path) as (svc, base):
        _played(svc)
        assert _post(base, {"type": "rename", "ball": "7", "to": "t7"}).status_code == 201
        assert _post(base, {"type": "void_pot", "ball": "t7"}).status_code == 201
        assert _post(base, {"type": "rename", "ball": "2", "to": "t2"}).status_code == 201
        state = httpx.get(base + "/state").json()
        assert "t7" in {b["id"] for b in state["balls"]}
        seen = {k: state[k] for k in keep}
        # As if the service had stopped in the middle of the match (a finished match is not resumed).
        svc.store.set_match_status(svc.match.match_id, "live")
    with running_service(tmp_path) as (svc2, base2):
        assert svc2.match.resumed
        again = httpx.get(base2 + "/state").json()
        assert {k: again[k] for k in keep} == seen
        assert svc2.match.referee_errors == []


def test_a_recorded_log_goes_on_with_the_renamed_id_across_a_restart(tmp_path):
    """An event log was written with the camera's ids: after "ball 7 is t7" its later records are read with
    the new id, also by a restarted service that resumes the log."""
    lines = MATCH_LOG.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"shot_end"' in line and '"shot": 2' in line) + 1
    log = tmp_path / "match.jsonl"
    log.write_text("\n".join(lines[:cut]) + "\n")
    with running_service(tmp_path, source=log) as (svc, base):
        _played(svc)
        assert _post(base, {"type": "rename", "ball": "7", "to": "t7"}).status_code == 201
        svc.store.set_match_status(svc.match.match_id, "live")
    log.write_text("\n".join(lines) + "\n")  # the rest of the match arrives
    with running_service(tmp_path, source=log) as (svc2, base2):
        assert svc2.match.resumed
        _played(svc2)
        mid = svc2.match.match_id
        assert svc2.match.referee_errors == []
        pots = [m.data for m in svc2.store.messages(mid, 0, 1000) if m.kind == "event" and m.data["type"] == "pot"]
        assert [p["ball"] for p in pots] == ["5", "3", "t7"]
        assert svc2.store.verdict_history(mid, 3)[-1]["counted"] == ["t7"]
        assert "7" not in {b["id"] for b in httpx.get(base2 + "/state").json()["balls"]}


@pytest.mark.slow
def test_a_rename_reaches_the_live_pipeline_so_later_events_carry_the_new_id(tmp_path):
    """On a video source the rename goes to the running pipeline (Pipeline.rename_ball) before its next
    frame: the next shot starts with the ball under its new id and the referee knows it."""
    holder: list[Service] = []
    done: list[dict] = []

    def after_step(frame: int, read_at: float, msgs: list, started_at: float) -> None:
        ends = [m.data for m in msgs if m.kind == "event" and m.data["type"] == "shot_end"]
        if ends and not done:
            svc = holder[0]
            ball = sorted(b for b in ends[0]["positions"] if b != "cue")[0]
            svc.match.post_input(Event(type="rename", ball=ball, to="t99"))
            done.append({"ball": ball, "frame": frame})

    settings = ServiceSettings.load({"db": tmp_path / "m.db"}, env={})
    svc = build(str(DEMO), "moscow", settings, fast=True, on_step=after_step)
    holder.append(svc)
    mid = svc.match.match_id
    try:
        svc.runner.start()
        deadline = time.monotonic() + 120
        while not any(s["shot"] == 1 for s in svc.store.shots(mid)):
            assert time.monotonic() < deadline and not svc.runner.done.is_set()
            time.sleep(0.05)
        svc.runner.stop()
        assert svc.runner.join(30)
        assert done, "the first shot ended"
        old = done[0]["ball"]
        start = next(s for s in svc.store.shots(mid) if s["shot"] == 1)["start_positions"]
        assert "t99" in start and old not in start
        later = [
            m.data for m in svc.store.messages(mid, 0, 5000) if m.kind == "event" and m.data["frame"] > done[0]["frame"]
        ]
        assert all(old != e.get("ball") and old not in (e.get("balls") or ()) for e in later)
        assert svc.match.referee_errors == []
        assert "t99" in {b["id"] for b in svc.match.state()["balls"]}
    finally:
        svc.store.close()
