"""Review, protocol and documentation routes on a real uvicorn server: a shot's pack with its verdict and
clauses, its PNG picture, its video excerpt cut from a real video, the match protocol, the offline API page."""

from __future__ import annotations

import asyncio
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from api.service.launch import BackgroundServer, build
from api.service.settings import ServiceSettings
from calibration.contract import Event
from tests.paths import REPO
from tests.service_support import TOKEN, free_port, running_service

DEMO = REPO / "api" / "data" / "demo"


def test_shot_pack_picture_protocol_and_api_page(tmp_path):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        shots = httpx.get(base + "/shots").json()
        assert [s["shot"] for s in shots] == [0, 1, 2, 3]
        pack = httpx.get(base + "/shots/2").json()
        assert pack["verdict"]["legal"] is False
        assert pack["clauses"] == ["001 2.1.22(1)"]
        assert [e["type"] for e in pack["events"]] == ["shot_start", "cushion", "shot_end"]
        assert all("seq" in e for e in pack["events"])
        assert "cue" in pack["start_positions"] and pack["end_positions"]["cue"] == [2000.0, 300.0]
        low = httpx.get(base + "/shots/0").json()["events"]
        assert any(e.get("confidence") == 0.8 and e.get("review") for e in low), "confidence and review flags kept"
        png = httpx.get(base + pack["picture"])
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        img = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_COLOR)
        assert img is not None and img.shape[1] > img.shape[0] > 100
        assert httpx.get(base + "/shots/9").status_code == 404
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert httpx.get(base + "/shots/2/clip").status_code == 401  # not published: the console's token needed
        nothing = httpx.get(base + "/shots/2/clip", headers=auth)
        assert nothing.status_code == 404 and "no recorded video" in nothing.json()["detail"]  # an event log

        proto = httpx.get(base + "/protocol").json()
        assert proto["status"] == "finished" and len(proto["frames"]) == 1
        frame = proto["frames"][0]
        assert frame["shots"] == 4 and frame["breaker"] == "A"
        assert frame["score"] == svc.match.state()["score"]
        assert sum(proto["fouls"].values()) == 1
        assert frame["foul_list"][0]["rule"] == "001 2.1.22(1)"
        page = httpx.get(base + "/protocol.html").text
        assert "Протокол встречи" in page and "the cue ball touched no object ball" in page

        spec = httpx.get(base + "/openapi.json").json()
        for path in ("/state", "/events", "/inputs", "/shots/{n}", "/shots/{n}/clip", "/protocol", "/overlay"):
            assert path in spec["paths"], path
        api_page = httpx.get(base + "/api").text
        assert "/shots/{n}/clip" in api_page and "cdn" not in api_page.lower()
        state = httpx.get(base + "/state").json()
        assert state["calibration"]["status"] == "not needed" and state["referee"] == "on"
        assert state["source"]["status"] == "finished" and state["source"]["frames_dropped"] == 0


def _clip_service(tmp_path: Path, start: int = 25):
    """A match on the demo video; its shot records come straight through the match service."""
    settings = ServiceSettings.load({"db": tmp_path / "m.db"}, env={"TABLEREF_OPERATOR_TOKEN": TOKEN})
    svc = build(str(DEMO), "moscow", settings)
    server = BackgroundServer(svc.app, "127.0.0.1", free_port())
    base = f"http://127.0.0.1:{server.start()}"
    pos = {"cue": (600.0, 800.0), "1": (2676.8, 889.0)}
    t = start / 25
    svc.match.ingest(start, [Event(type="shot_start", t=t, frame=start, shot=0, ball="cue", positions=pos)], t=t)
    return svc, server, base, pos


def _frames(data: bytes, tmp_path: Path) -> int:
    clip = tmp_path / "clip.webm"
    clip.write_bytes(data)
    cap = cv2.VideoCapture(str(clip))
    frames = 0
    while cap.read()[0]:
        frames += 1
    cap.release()
    return frames


@pytest.mark.slow
def test_shot_clip_is_cut_once_for_the_console_and_public_once_published(tmp_path):
    svc, server, base, pos = _clip_service(tmp_path)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        playing = httpx.get(base + "/shots/0/clip", headers=auth)
        assert playing.status_code == 409 and "still being played" in playing.json()["detail"]
        svc.match.ingest(50, [Event(type="shot_end", t=2.0, frame=50, shot=0, positions=pos)], t=2.0)
        refused = httpx.get(base + "/shots/0/clip")
        assert refused.status_code == 401 and "not published" in refused.json()["detail"]
        wrong = httpx.get(base + "/shots/0/clip", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 403

        async def first_requests() -> list[httpx.Response]:
            async with httpx.AsyncClient(timeout=120) as client:
                return await asyncio.gather(*(client.get(base + "/shots/0/clip", headers=auth) for _ in range(8)))

        answers = asyncio.run(first_requests())
        assert [r.status_code for r in answers] == [200] * 8, [r.text[:200] for r in answers]
        assert svc.app.state.clips.cuts == 1, "eight first requests, one encode"
        assert len({r.content for r in answers}) == 1
        assert answers[0].headers["content-type"] == "video/webm"
        margin = round(0.5 * 25)
        assert _frames(answers[0].content, tmp_path) == (50 - 25 + 1) + 2 * margin

        head = httpx.head(base + "/shots/0/clip", headers=auth)
        assert head.status_code == 200 and head.headers["content-type"] == "video/webm" and head.content == b""
        assert int(head.headers["content-length"]) == len(answers[0].content)
        assert httpx.head(base + "/shots/0/clip").status_code == 401

        assert httpx.post(base + "/shots/0/clip/publish").status_code == 401
        published = httpx.post(base + "/shots/0/clip/publish", headers=auth)
        assert published.status_code == 200 and published.json()["published"] is True
        public = httpx.get(base + "/shots/0/clip")
        assert public.status_code == 200 and public.content == answers[0].content
        assert httpx.post(base + "/shots/7/clip/publish", headers=auth).status_code == 404
        assert svc.app.state.clips.cuts == 1
    finally:
        server.stop()
        svc.store.close()


@pytest.mark.slow
def test_a_clip_that_cannot_be_cut_is_one_clear_line_without_server_paths(tmp_path):
    # The match video's frames end long before this shot: the cut finds nothing to write.
    svc, server, base, pos = _clip_service(tmp_path, start=89_000)
    try:
        svc.match.ingest(90_000, [Event(type="shot_end", t=3600.0, frame=90_000, shot=0, positions=pos)], t=3600.0)

        async def first_requests() -> list[httpx.Response]:
            async with httpx.AsyncClient(timeout=120) as client:
                auth = {"Authorization": f"Bearer {TOKEN}"}
                return await asyncio.gather(*(client.get(base + "/shots/0/clip", headers=auth) for _ in range(8)))

        answers = asyncio.run(first_requests())
        assert {r.status_code for r in answers} == {500}
        details = {r.json()["detail"] for r in answers}
        assert len(details) == 1
        (detail,) = details
        assert detail.startswith("the clip of shot 0 could not be cut") and "\n" not in detail
        assert str(tmp_path) not in detail and str(DEMO) not in detail and "/" not in detail
        assert not list((tmp_path / "m-files" / "clips").glob("*.part.webm")), "no half-written file left"
    finally:
        server.stop()
        svc.store.close()
