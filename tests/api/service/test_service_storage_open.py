"""Start-up and storage: ``tableref serve`` refuses, in one line and touching nothing, a database that is
garbage, another program's, truncated, emptied, or missing the write-ahead log that held its last commits
(a real ``kill -9`` leaves them there); it warns loudly when no operator token is set; a full disk is
reported on the input that could not be recorded and in ``/state`` until writing works again."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from api.store import Store, StoreError
from tests.service_http_support import serve
from tests.service_support import TOKEN, free_port, scaled_log

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _serve_cmd(log: Path, db: Path, port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "api.cli", "serve", "--source", str(log), "--db", str(db), "--port", str(port),
            "--game", "russian71", *extra]  # fmt: skip


def _refused(log: Path, db: Path) -> str:
    """Run ``tableref serve`` on ``db``; it must refuse at once with one line (no traceback)."""
    before = {p.name: p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name)}
    proc = subprocess.run(_serve_cmd(log, db, free_port(), "--fast", "--exit-when-done"), capture_output=True,
                          text=True, timeout=60, env={**os.environ, "TABLEREF_OPERATOR_TOKEN": TOKEN})  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    after = {p.name: p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name)}
    assert after == before, "a refused record is left exactly as it was"
    return lines[0]


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """A match record as ``kill -9`` leaves it mid-match: its last commits still in the WAL."""
    tmp = tmp_path_factory.mktemp("killed")
    log = scaled_log(tmp / "match.jsonl", 0.5)
    db = tmp / "match.db"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "TABLEREF_OPERATOR_TOKEN"}
    proc = subprocess.Popen(_serve_cmd(log, db, port), stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 30
        seq = 0
        while seq < 10:
            assert time.monotonic() < deadline and proc.poll() is None, "the service did not get going"
            with contextlib.suppress(httpx.TransportError):
                seq = httpx.get(f"http://127.0.0.1:{port}/state", timeout=2).json()["seq"]
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        _, stderr = proc.communicate(10)
    assert (tmp / "match.db-wal").stat().st_size > 0, "the last commits are in the WAL"
    return log, db, stderr


def _copy(db: Path, dst: Path, parts: tuple[str, ...] = ("", "-wal", "-seq")) -> Path:
    dst.mkdir()
    for part in parts:
        src = db.with_name(db.name + part)
        if src.exists():
            (dst / (db.name + part)).write_bytes(src.read_bytes())
    return dst / db.name


def test_no_operator_token_is_a_loud_warning_at_start(killed):
    _, _, stderr = killed
    assert "WARNING: no operator token is set (TABLEREF_OPERATOR_TOKEN)" in stderr


def test_the_killed_record_itself_resumes(killed, tmp_path):
    _, db, _ = killed
    store = Store(_copy(db, tmp_path / "intact"))
    try:
        assert store.last_seq(1) >= 10
    finally:
        store.close()


def test_a_deleted_wal_is_reported_not_started_over(killed, tmp_path):
    log, db, _ = killed
    copy = _copy(db, tmp_path / "nowal", parts=("", "-seq"))
    line = _refused(log, copy)
    assert "has lost committed messages" in line and "write-ahead log" in line


def test_an_emptied_database_is_reported_not_started_over(killed, tmp_path):
    log, db, _ = killed
    copy = _copy(db, tmp_path / "empty", parts=("-seq",))
    copy.write_bytes(b"")
    assert "has lost committed messages 1.." in _refused(log, copy)


def test_a_truncated_database_is_reported(killed, tmp_path):
    log, db, _ = killed
    copy = _copy(db, tmp_path / "cut")
    Store(copy).close()  # the WAL checkpointed into the main file, as after a clean stop
    data = copy.read_bytes()
    copy.write_bytes(data[: len(data) // 2])
    assert "is truncated" in _refused(log, copy)


def test_garbage_and_foreign_databases_are_refused_in_one_line(killed, tmp_path):
    log, _, _ = killed
    garbage = tmp_path / "garbage" / "match.db"
    garbage.parent.mkdir()
    garbage.write_bytes(os.urandom(8192))
    assert "is not a tableref database" in _refused(log, garbage)
    foreign = tmp_path / "foreign" / "match.db"
    foreign.parent.mkdir()
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    con.commit()
    con.close()
    assert "database of another program (tables: invoices)" in _refused(log, foreign)


def test_a_foreign_record_put_in_place_is_followed_not_refused(tmp_path):
    """A different tableref record copied over the file (its own id, its own messages) is not a loss."""
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    for path, n in ((a, 5), (b, 2)):
        store = Store(path)
        mid = store.open_match("x", "russian71", {"A": "A", "B": "B"}).id
        for i in range(n):
            with store.transaction() as tx:
                tx.append(mid, "state", {"i": i})
        store.close()
    b.write_bytes(a.read_bytes())  # b's mark says 2 messages of another record; a's file has 5
    Store(b).close()
    a.write_bytes(b"")
    with pytest.raises(StoreError, match=r"lost committed messages 1\.\.5"):
        Store(a)


def test_a_full_disk_is_reported_on_the_input_and_in_state(tmp_path, caplog):
    with serve(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        ball = sorted(b["id"] for b in httpx.get(base + "/state").json()["balls"] if b["id"] != "cue")[0]
        assert httpx.get(base + "/state").json()["storage"]["status"] == "ok"
        pages = svc.store._db.execute("PRAGMA page_count").fetchone()[0]
        svc.store._db.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own 'database or disk is full'
        name, status = ball, 201
        for i in range(500):  # renames until a page more is needed and cannot be had
            before = svc.store.last_seq(svc.match.match_id)
            r = httpx.post(base + "/inputs", json={"type": "rename", "ball": name, "to": f"t{50 + i}"}, headers=AUTH)
            status = r.status_code
            if status != 201:
                break
            name = f"t{50 + i}"
        assert status == 507, r.text
        assert r.json()["detail"].count("\n") == 0 and "the disk is full" in r.json()["detail"]
        storage = httpx.get(base + "/state").json()["storage"]
        assert storage["status"] == "disk full" and storage["failed_writes"] == 1
        assert "database or disk is full" in storage["detail"]
        assert any("disk full" in rec.getMessage() for rec in caplog.records if rec.levelname == "ERROR")
        assert svc.store.last_seq(svc.match.match_id) == before, "the refused input left nothing behind"
        # Room again: the next input is recorded and the state says so.
        svc.store._db.execute(f"PRAGMA max_page_count={pages + 1000}")
        r = httpx.post(base + "/inputs", json={"type": "rename", "ball": name, "to": "t900"}, headers=AUTH)
        assert r.status_code == 201, r.text
        storage = httpx.get(base + "/state").json()["storage"]
        assert storage["status"] == "ok" and storage["failed_writes"] == 1
