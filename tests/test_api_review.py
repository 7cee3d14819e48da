"""Review, protocol and documentation routes on a real uvicorn server: a shot's pack with its verdict and
clauses, its PNG picture, its video excerpt cut from a real video, the match protocol, the offline API page."""

from __future__ import annotations

from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from api.service.launch import BackgroundServer, build
from api.service.settings import ServiceSettings
from tests.service_support import free_port, running_service
from tracking.events import Event

DEMO = Path(__file__).resolve().parent.parent / "api" / "data" / "demo"


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
        assert httpx.get(base + "/shots/2/clip").status_code == 404  # an event log has no video

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


@pytest.mark.slow
def test_shot_clip_is_cut_from_the_match_video(tmp_path):
    """A match on the demo video; its shot records come straight through the match service."""
    settings = ServiceSettings.load({"db": tmp_path / "m.db"}, env={})
    svc = build(str(DEMO), "moscow", settings)
    server = BackgroundServer(svc.app, "127.0.0.1", free_port())
    base = f"http://127.0.0.1:{server.start()}"
    try:
        pos = {"cue": (600.0, 800.0), "1": (2676.8, 889.0)}
        svc.match.ingest(25, [Event(type="shot_start", t=1.0, frame=25, shot=0, ball="cue", positions=pos)], t=1.0)
        svc.match.ingest(50, [Event(type="shot_end", t=2.0, frame=50, shot=0, positions=pos)], t=2.0)
        r = httpx.get(base + "/shots/0/clip", timeout=60)
        assert r.status_code == 200 and r.headers["content-type"] == "video/webm"
        clip = tmp_path / "clip.webm"
        clip.write_bytes(r.content)
        cap = cv2.VideoCapture(str(clip))
        frames = 0
        while cap.read()[0]:
            frames += 1
        cap.release()
        margin = round(0.5 * 25)
        assert frames == (50 - 25 + 1) + 2 * margin
    finally:
        server.stop()
        svc.store.close()
