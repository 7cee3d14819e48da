"""A service observing a video, stopped after the first shot and started again on the same database,
resumes after the last completed shot: nothing recorded is repeated, the shots keep their numbers, and the
balls keep their names."""

from __future__ import annotations

import json
import time

import pytest

from api.service.launch import build
from api.service.settings import ServiceSettings
from tests.paths import REPO

DEMO = REPO / "api" / "data" / "demo"


def _key(d: dict) -> str:
    return json.dumps({k: d.get(k) for k in ("type", "shot", "frame", "ball", "balls", "pocket", "cushion", "line")})


@pytest.mark.slow
def test_a_video_match_resumes_after_the_last_completed_shot(tmp_path):
    settings = ServiceSettings.load({"db": tmp_path / "m.db"}, env={})
    svc = build(str(DEMO), "moscow", settings, fast=True)
    svc.runner.start()
    deadline = time.monotonic() + 120
    while not any(s["end_frame"] is not None for s in svc.store.shots(svc.match.match_id)):
        assert time.monotonic() < deadline and not svc.runner.done.is_set()
        time.sleep(0.05)
    svc.runner.stop()  # commits are per frame: stopping here leaves what a kill would
    assert svc.runner.join(30)
    mid = svc.match.match_id
    before = svc.store.messages(mid)
    first_end = svc.store.shots(mid)[0]["end_positions"]
    svc.store.close()

    again = build(str(DEMO), "moscow", settings, fast=True)
    assert again.match.match_id == mid and again.match.resumed
    again.runner.start()
    assert again.runner.join(180) and again.runner.stats.error is None
    after = again.store.messages(mid)
    again.store.close()

    assert after[: len(before)] == before, "what was recorded stays as it was"
    events = [m.data for m in after if m.kind == "event"]
    keys = [_key(e) for e in events]
    assert len(keys) == len(set(keys)), "no event recorded twice"
    shots = sorted({e["shot"] for e in events if e["type"] == "shot_start"})
    truth = [json.loads(x) for x in (DEMO / "truth" / "events.jsonl").read_text().splitlines() if x]
    assert shots == sorted({e["shot"] for e in truth if e["type"] == "shot_start"})
    assert [e["type"] for e in events].count("shot_end") == len(shots)
    second = next(e for e in events if e["type"] == "shot_start" and e["shot"] == 1)
    assert set(first_end) <= set(second["positions"]) | {e["ball"] for e in events if e["type"] in ("pot", "off_table")}
