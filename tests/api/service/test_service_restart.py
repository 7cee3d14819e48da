"""Kill the service with SIGKILL in the middle of a match and start it again: no recorded shot, event or
input is lost or duplicated, and the stream's numbering carries on without a gap."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.service_support import TOKEN, free_port, log_records, read_sse, scaled_log


def _serve(log: Path, db: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "TABLEREF_OPERATOR_TOKEN": TOKEN}
    cmd = [sys.executable, "-m", "api.cli", "serve", "--source", str(log), "--game", "russian71",
           "--db", str(db), "--port", str(port)]  # fmt: skip
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_state(base: str, ok, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = httpx.get(base + "/state", timeout=2).json()
            if ok(state):
                return state
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError("the service did not reach the expected state")


def _rows(db: Path, q: str) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(q).fetchall()
    finally:
        con.close()


@pytest.mark.slow
def test_sigkill_mid_match_then_restart_loses_and_duplicates_nothing(tmp_path):
    log = scaled_log(tmp_path / "match.jsonl", 0.5)  # the recorded match replayed in real time, 7.5 s
    db = tmp_path / "match.db"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _serve(log, db, port)
    try:
        # Shot 2 has ended (a call may name the next shot, not one beyond it).
        _wait_state(base, lambda s: s["shot"]["last"] == 2)
        # The operator calls for the last shot (which starts 6.5 s in), then the service is killed at once.
        call = {"type": "call", "ball": "7", "pocket": "house-left", "shot": 3}
        r = httpx.post(base + "/inputs", json=call, headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 201, r.text
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    events_before = _rows(db, "SELECT seq, data FROM events ORDER BY seq")
    assert 0 < len(events_before) < sum(1 for r in log_records() if r["type"] not in ("frame_start", "call"))

    proc = _serve(log, db, port)
    try:
        state = _wait_state(base, lambda s: s["source"].get("status") == "finished")
        assert state["match"] == 1, "the restarted service resumed the same match"
        total = state["seq"]
        stream = asyncio.run(read_sse(base, total))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)

    # Every camera event and input of the recording once, in order, plus the operator's call once.
    expected = log_records(log)
    expected.insert(next(i for i, r in enumerate(expected) if r["type"] == "shot_start" and r["shot"] == 3), call)
    recorded = [d for i, d in stream if d["kind"] in ("event", "input")]
    got = [m["data"] for m in recorded]

    def canon(records: list[dict]) -> list[str]:
        return sorted(json.dumps(r, sort_keys=True) for r in records)

    assert canon(got) == canon(expected), "nothing lost, nothing twice"
    assert [r for r in got if r["type"] != "call"] == [r for r in expected if r["type"] != "call"]
    assert [i for i, _ in stream] == list(range(1, total + 1)), "the numbering continued without a gap"
    # The store agrees: the events recorded before the kill kept their numbers; every shot once.
    assert _rows(db, "SELECT seq, data FROM events ORDER BY seq")[: len(events_before)] == events_before
    assert [r[0] for r in _rows(db, "SELECT shot FROM shots ORDER BY shot")] == [0, 1, 2, 3]
    assert _rows(db, "SELECT COUNT(*) FROM inputs WHERE origin='operator'") == [(1,)]
    verdict_shots = [r[0] for r in _rows(db, "SELECT shot FROM verdicts ORDER BY seq")]
    assert verdict_shots == [0, 1, 2, 3]
    assert _rows(db, "SELECT COUNT(*) FROM matches") == [(1,)]
