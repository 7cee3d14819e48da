"""The service's record of a match: one SQLite file in WAL mode.

Everything the service streams is written here first, in one transaction per step (the camera events of
one video frame with the verdicts they caused and the frame the source has reached; or one operator input
with its verdicts), and only then published. The ``stream`` table is the log every client reads: its
autoincrement ``seq`` is the sequence number of the WebSocket and SSE messages, so a client resumes from
any number and a restarted service continues the same numbering. The typed tables (``events``,
``inputs``, ``verdicts``, ``shots``, ``frames``) point back at the log and serve the review pages and the
match protocol.

Words: a *match* (встреча) is one observed session; a *frame* here is a frame of play (партия), not a
video frame; video frames are counted in ``matches.progress_frame``, the last source frame fully handled.

Opening refuses, in one line, a file that is not a tableref record (garbage, another program's database), a
file shorter than its own header says (truncated), and a record that has lost committed messages (see
``SeqMark``: a deleted write-ahead log or an emptied file is detected, never silently started over). A full
disk fails the step with ``StoreFull`` and shows in ``health()`` until a later write succeeds.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

Kind = Literal["event", "input", "verdict", "state"]

log = logging.getLogger("tableref.store")

SQLITE_MAGIC = b"SQLite format 3\x00"
OUR_TABLES = frozenset({"matches", "stream", "events", "inputs", "verdicts", "shots", "frames", "tracks", "meta"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    source TEXT NOT NULL,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'live',
    progress_frame INTEGER NOT NULL DEFAULT -1,
    fps REAL
);
CREATE TABLE IF NOT EXISTS stream (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY REFERENCES stream(seq),
    match_id INTEGER NOT NULL,
    shot INTEGER,
    type TEXT NOT NULL,
    t REAL,
    frame INTEGER,
    confidence REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS inputs (
    seq INTEGER PRIMARY KEY REFERENCES stream(seq),
    match_id INTEGER NOT NULL,
    shot INTEGER,
    type TEXT NOT NULL,
    origin TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    seq INTEGER PRIMARY KEY REFERENCES stream(seq),
    match_id INTEGER NOT NULL,
    shot INTEGER NOT NULL,
    game_frame INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS shots (
    match_id INTEGER NOT NULL,
    shot INTEGER NOT NULL,
    game_frame INTEGER NOT NULL,
    start_frame INTEGER,
    end_frame INTEGER,
    t_start REAL,
    t_end REAL,
    start_positions TEXT,
    end_positions TEXT,
    PRIMARY KEY (match_id, shot)
);
CREATE TABLE IF NOT EXISTS frames (
    match_id INTEGER NOT NULL,
    n INTEGER NOT NULL,
    game TEXT NOT NULL,
    breaker TEXT,
    first_shot INTEGER,
    PRIMARY KEY (match_id, n)
);
CREATE TABLE IF NOT EXISTS tracks (
    match_id INTEGER NOT NULL,
    frame INTEGER NOT NULL,
    t REAL,
    ball TEXT NOT NULL,
    x REAL NOT NULL,
    y REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tracks_frame ON tracks(match_id, frame);
CREATE INDEX IF NOT EXISTS stream_match ON stream(match_id, seq);
CREATE INDEX IF NOT EXISTS events_shot ON events(match_id, shot);
CREATE INDEX IF NOT EXISTS verdicts_shot ON verdicts(match_id, shot);
"""


@dataclass(frozen=True)
class Message:
    """One record of the stream as clients see it: ``{"seq", "kind", "data"}``. ``data_json`` is the data's
    JSON text when it is already at hand (as stored); the message's JSON is made once, however many clients
    it is sent to."""

    seq: int
    kind: str
    data: dict[str, Any]
    data_json: str | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "data": self.data}

    @cached_property
    def _json(self) -> str:
        data = self.data_json if self.data_json is not None else _dumps(self.data)
        return f'{{"seq":{self.seq},"kind":{json.dumps(self.kind)},"data":{data}}}'

    def to_json(self) -> str:
        return self._json


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _dumps(data: dict[str, Any]) -> str:
    return _strict_json(data)[0]


def _strict_json(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Strict JSON text and the data it holds: a non-finite number (which a browser's JSON.parse rejects)
    becomes null, in the text and in the data handed on."""
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False), data
    except ValueError:
        log.warning("a record held a non-finite number; stored as null: %.200s", data)
        clean = _finite(data)
        return json.dumps(clean, ensure_ascii=False, separators=(",", ":")), clean


@dataclass(frozen=True)
class Match:
    id: int
    source: str
    game: str
    players: dict[str, str]
    status: str
    progress_frame: int
    fps: float | None


class StoreError(ValueError):
    """The match record cannot be opened or written; the message is one line naming the file."""


class StoreFull(StoreError):
    """The disk (or the database's size limit) is full: the step was not recorded."""


def _is_full(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "full" in str(exc)


def check_database_file(path: Path) -> None:
    """Refuse a file that is not an SQLite database, or is shorter than its header says (cut off by a copy
    or a crash of the disk): SQLite itself would open either and fail later, or start an empty record."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0:
        return  # an empty file is a new record unless the sequence mark says otherwise (Store checks that)
    with open(path, "rb") as f:
        head = f.read(100)
    if not head.startswith(SQLITE_MAGIC):
        raise StoreError(f"{path} is not a tableref database (not an SQLite file: a corrupt or foreign file)")
    if len(head) < 100:
        raise StoreError(f"{path} is truncated: {size} bytes, shorter than an SQLite header")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    # The page count in the header is valid only when its "version valid for" equals the change counter.
    if head[92:96] == head[24:28] and size < pages * page_size:
        raise StoreError(
            f"{path} is truncated: {size} bytes where its header says {pages} pages of {page_size} bytes "
            f"({pages * page_size} bytes); restore the file from a copy"
        )


class SeqMark:
    """A small file beside the database, ``<db>-seq``, holding the database's id and the highest sequence
    number committed to it, rewritten (atomically) after each commit.

    Why a file outside the database: in WAL mode a commit lives in ``<db>-wal`` until a checkpoint copies it
    into the main file, so a deleted WAL takes the last commits with it and leaves a main file that is
    perfectly valid, only older; nothing inside the database can tell. The mark is written after the
    commit, so after a crash it is never ahead of the record (a kill between the commit and the mark leaves
    it one step behind, which is harmless). When the record reaches less far than the mark, messages that
    clients were sent are gone: the service refuses to start instead of numbering new messages over them.
    Only a power cut can leave a WAL that lost its last commits (``synchronous=NORMAL``) beside a mark that
    kept them; the refusal then names the files so that the operator can accept the loss.
    """

    def __init__(self, db_path: Path) -> None:
        self.path = db_path.with_name(db_path.name + "-seq")
        self._written = -1

    def read(self) -> tuple[str, int] | None:
        try:
            obj = json.loads(self.path.read_text())
            return str(obj["db"]), int(obj["seq"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s is unreadable (%s); ignoring it", self.path, exc)
            return None

    def write(self, db_id: str, seq: int) -> None:
        if seq == self._written:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.write_text(json.dumps({"db": db_id, "seq": seq}))
            os.replace(tmp, self.path)
            self._written = seq
        except OSError as exc:  # a full disk: the record itself reports it
            log.warning("could not write %s: %s", self.path, exc)


class Store:
    """A thread-safe handle on the match database (one connection, one lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        self._health: dict[str, Any] = {"status": "ok", "detail": None, "since": None, "failed_writes": 0}
        self._mark: SeqMark | None = None
        file = None if self.path == ":memory:" else Path(self.path)
        if file is not None:
            file.parent.mkdir(parents=True, exist_ok=True)
            check_database_file(file)
            self._mark = SeqMark(file)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the database ({exc})") from None
        try:
            self._open()
        except sqlite3.Error as exc:
            self._db.close()
            if _is_full(exc):
                raise StoreFull(f"{self.path}: the disk is full ({exc})") from None
            raise StoreError(f"{self.path} is not a readable tableref database ({exc})") from None
        except StoreError:
            self._db.close()
            raise

    def _open(self) -> None:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        tables.discard("sqlite_sequence")
        if tables and "stream" not in tables:
            names = ", ".join(sorted(tables)[:5])
            raise StoreError(f"{self.path} is a database of another program (tables: {names}), not a tableref record")
        foreign = tables - OUR_TABLES
        if foreign:
            raise StoreError(f"{self.path} has tables tableref does not write ({', '.join(sorted(foreign)[:5])})")
        last = 0
        db_id: str | None = None
        if "stream" in tables:
            last = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM stream").fetchone()[0])
        if "meta" in tables:
            row = self._db.execute("SELECT value FROM meta WHERE key='id'").fetchone()
            db_id = None if row is None else str(row[0])
        self._check_mark(db_id, last)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a committed transaction survives the process being killed (only a power cut
        # can lose the last ones), at a fraction of FULL's cost.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        if db_id is None:
            db_id = uuid.uuid4().hex
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('id', ?)", (db_id,))
        self.db_id = db_id
        if self._mark is not None:
            self._mark.write(db_id, last)

    def _check_mark(self, db_id: str | None, last: int) -> None:
        if self._mark is None:
            return
        mark = self._mark.read()
        if mark is None or mark[1] <= last:
            return
        mark_id, mark_seq = mark
        if db_id is not None and db_id != mark_id and last > 0:
            # Another record was put in this file's place on purpose (a copy from elsewhere): its own
            # messages are all there; the mark described the file it replaced.
            log.warning("%s is a different record from the one %s describes; following the new one",
                        self.path, self._mark.path)  # fmt: skip
            return
        lost = f"messages {last + 1}..{mark_seq}" if mark_seq > last + 1 else f"message {mark_seq}"
        raise StoreError(
            f"{self.path} has lost committed {lost} (its write-ahead log {self.path}-wal deleted, or the file "
            f"emptied or truncated); refusing to start over on it: restore the files, or move {self.path}* aside "
            "to start a new record"
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- health -------------------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        """``status`` "ok", "disk full" or "error", with the last failure's ``detail`` and ``since`` (unix time)
        while it lasts; ``failed_writes`` counts every step that could not be recorded."""
        with self._lock:
            return dict(self._health)

    def _failed(self, exc: sqlite3.Error) -> StoreError:
        full = _is_full(exc)
        status = "disk full" if full else "error"
        if self._health["status"] != status:
            self._health.update(status=status, since=time.time())
        self._health["detail"] = str(exc)
        self._health["failed_writes"] += 1
        log.error("%s: a write failed (%s): %s", self.path, status, exc)
        cls = StoreFull if full else StoreError
        return cls(f"{self.path}: {'the disk is full' if full else 'write failed'}: {exc}; the step was not recorded")

    def _succeeded(self) -> None:
        if self._health["status"] != "ok":
            log.warning("%s: writing again after '%s'", self.path, self._health["status"])
            self._health.update(status="ok", detail=None, since=None)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A single write outside a transaction, with the same failure reporting."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                raise self._failed(exc) from None
            self._succeeded()

    # ---- transactions -----------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """All writes of one step; committed together or not at all. A write the disk cannot take raises
        StoreFull (and shows in ``health()``); nothing of the step is kept."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._failed(exc) from None
            tx = Transaction(self._db)
            try:
                yield tx
                self._db.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):  # a failed COMMIT may have rolled back already
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._failed(exc) from None
                raise
            self._succeeded()
            if self._mark is not None and tx.messages:
                self._mark.write(self.db_id, tx.messages[-1].seq)

    # ---- matches ------------------------------------------------------------------------------------
    def open_match(self, source: str, game: str, players: dict[str, str], *, resume: bool = True) -> Match:
        """The unfinished match on this source and game (a restart), or a new one."""
        with self._lock:
            if resume:
                row = self._db.execute(
                    "SELECT id FROM matches WHERE source=? AND game=? AND status='live' ORDER BY id DESC LIMIT 1",
                    (source, game),
                ).fetchone()
                if row is not None:
                    return self.match(row[0])
        with self._writing():
            cur = self._db.execute(
                "INSERT INTO matches (created, source, game, players) VALUES (?, ?, ?, ?)",
                (time.time(), source, game, json.dumps(players, ensure_ascii=False)),
            )
            return self.match(int(cur.lastrowid or 0))

    def match(self, match_id: int) -> Match:
        with self._lock:
            row = self._db.execute(
                "SELECT id, source, game, players, status, progress_frame, fps FROM matches WHERE id=?", (match_id,)
            ).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id}")
        return Match(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6])

    def set_match_status(self, match_id: int, status: str) -> None:
        with self._writing():
            self._db.execute("UPDATE matches SET status=? WHERE id=?", (status, match_id))

    def set_fps(self, match_id: int, fps: float) -> None:
        with self._writing():
            self._db.execute("UPDATE matches SET fps=? WHERE id=?", (fps, match_id))

    # ---- reading -------------------------------------------------------------------------------------
    def messages(self, match_id: int, after: int = 0, limit: int | None = None) -> list[Message]:
        q = "SELECT seq, kind, data FROM stream WHERE match_id=? AND seq>? ORDER BY seq"
        args: tuple[Any, ...] = (match_id, after)
        if limit is not None:
            q += " LIMIT ?"
            args += (limit,)
        with self._lock:
            rows = self._db.execute(q, args).fetchall()
        return [Message(r[0], r[1], json.loads(r[2]), r[2]) for r in rows]

    def last_seq(self, match_id: int) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM stream WHERE match_id=?", (match_id,)).fetchone()
        return int(row[0] or 0)

    def shot_events(self, match_id: int, shot: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, data FROM events WHERE match_id=? AND shot=? ORDER BY seq", (match_id, shot)
            ).fetchall()
        return [{"seq": r[0], **json.loads(r[1])} for r in rows]

    def shot_inputs(self, match_id: int, shot: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, data FROM inputs WHERE match_id=? AND shot=? ORDER BY seq", (match_id, shot)
            ).fetchall()
        return [{"seq": r[0], **json.loads(r[1])} for r in rows]

    def inputs_of_type(self, match_id: int, kind: str) -> list[dict[str, Any]]:
        """Every operator input of one type in the match, in order (e.g. the frame_starts naming the players)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, data FROM inputs WHERE match_id=? AND type=? ORDER BY seq", (match_id, kind)
            ).fetchall()
        return [{"seq": r[0], **json.loads(r[1])} for r in rows]

    def verdict_history(self, match_id: int, shot: int) -> list[dict[str, Any]]:
        """Every verdict given for a shot, oldest first (later ones are the operator's amendments)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT data FROM verdicts WHERE match_id=? AND shot=? ORDER BY seq", (match_id, shot)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def latest_verdicts(self, match_id: int) -> list[tuple[int, dict[str, Any]]]:
        """(frame of play, verdict) of every shot, the latest amendment of each, in shot order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT v.game_frame, v.data FROM verdicts v JOIN "
                "(SELECT shot, MAX(seq) AS seq FROM verdicts WHERE match_id=? GROUP BY shot) m "
                "ON v.seq = m.seq ORDER BY v.shot",
                (match_id,),
            ).fetchall()
        return [(r[0], json.loads(r[1])) for r in rows]

    def shots(self, match_id: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT shot, game_frame, start_frame, end_frame, t_start, t_end, start_positions, end_positions "
                "FROM shots WHERE match_id=? ORDER BY shot",
                (match_id,),
            ).fetchall()
        return [_shot_row(r) for r in rows]

    def shot(self, match_id: int, shot: int) -> dict[str, Any] | None:
        with self._lock:
            r = self._db.execute(
                "SELECT shot, game_frame, start_frame, end_frame, t_start, t_end, start_positions, end_positions "
                "FROM shots WHERE match_id=? AND shot=?",
                (match_id, shot),
            ).fetchone()
        return None if r is None else _shot_row(r)

    def track_rows(self, match_id: int, first: int, last: int) -> list[tuple[str, float, float]]:
        """(ball, x, y) of the stored ball positions of video frames first..last, in time order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT ball, x, y FROM tracks WHERE match_id=? AND frame BETWEEN ? AND ? ORDER BY frame, rowid",
                (match_id, first, last),
            ).fetchall()
        return [(r[0], float(r[1]), float(r[2])) for r in rows]

    def track_frames(self, match_id: int, first: int, last: int) -> list[tuple[int, str, float, float]]:
        """(frame, ball, x, y) of the stored ball positions of video frames first..last (the console's replay)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT frame, ball, x, y FROM tracks WHERE match_id=? AND frame BETWEEN ? AND ? ORDER BY frame, rowid",
                (match_id, first, last),
            ).fetchall()
        return [(int(r[0]), r[1], float(r[2]), float(r[3])) for r in rows]

    def potted_balls(self, match_id: int) -> set[str]:
        """Every ball id with a pot event in this match, and every id an operator renamed a ball to (a potted
        ball may be renamed after its pot): the ids a correction may name besides the balls on the table."""
        with self._lock:
            rows = self._db.execute(
                "SELECT json_extract(data, '$.ball') FROM events WHERE match_id=? AND type='pot' UNION "
                "SELECT json_extract(data, '$.to') FROM inputs WHERE match_id=? AND type='rename'",
                (match_id, match_id),
            ).fetchall()
        return {str(r[0]) for r in rows if r[0] is not None}

    def game_frames(self, match_id: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT n, game, breaker, first_shot FROM frames WHERE match_id=? ORDER BY n", (match_id,)
            ).fetchall()
        return [{"n": r[0], "game": r[1], "breaker": r[2], "first_shot": r[3]} for r in rows]

    def counts(self, match_id: int) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._lock:
            for table in ("events", "inputs", "verdicts", "shots", "frames"):
                row = self._db.execute(f"SELECT COUNT(*) FROM {table} WHERE match_id=?", (match_id,)).fetchone()
                out[table] = int(row[0])
        return out


class Transaction:
    """The writes of one step. ``append`` puts a message on the log and returns it with its seq."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.messages: list[Message] = []

    def append(self, match_id: int, kind: Kind, data: dict[str, Any]) -> Message:
        text, data = _strict_json(data)
        cur = self._db.execute("INSERT INTO stream (match_id, kind, data) VALUES (?, ?, ?)", (match_id, kind, text))
        msg = Message(int(cur.lastrowid or 0), kind, data, text)
        self.messages.append(msg)
        return msg

    def event(self, match_id: int, data: dict[str, Any]) -> Message:
        msg = self.append(match_id, "event", data)
        data = msg.data  # as stored: non-finite numbers made null
        self._db.execute(
            "INSERT INTO events (seq, match_id, shot, type, t, frame, confidence, data) VALUES (?,?,?,?,?,?,?,?)",
            (
                msg.seq, match_id, data.get("shot"), data["type"], data.get("t"), data.get("frame"),
                float(data.get("confidence", 1.0)), json.dumps(data, ensure_ascii=False),
            ),
        )  # fmt: skip
        return msg

    def input(self, match_id: int, data: dict[str, Any], origin: str) -> Message:
        msg = self.append(match_id, "input", data)
        data = msg.data  # as stored: non-finite numbers made null
        self._db.execute(
            "INSERT INTO inputs (seq, match_id, shot, type, origin, data) VALUES (?,?,?,?,?,?)",
            (msg.seq, match_id, data.get("shot"), data["type"], origin, json.dumps(data, ensure_ascii=False)),
        )
        return msg

    def verdict(self, match_id: int, data: dict[str, Any], game_frame: int) -> Message:
        msg = self.append(match_id, "verdict", data)
        data = msg.data  # as stored: non-finite numbers made null
        self._db.execute(
            "INSERT INTO verdicts (seq, match_id, shot, game_frame, data) VALUES (?,?,?,?,?)",
            (msg.seq, match_id, int(data["shot"]), game_frame, json.dumps(data, ensure_ascii=False)),
        )
        return msg

    def shot_started(self, match_id: int, shot: int, game_frame: int, ev: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO shots (match_id, shot, game_frame, start_frame, t_start, start_positions) "
            "VALUES (?,?,?,?,?,?)",
            (match_id, shot, game_frame, ev.get("frame"), ev.get("t"), json.dumps(ev.get("positions") or {})),
        )

    def shot_ended(self, match_id: int, shot: int, ev: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE shots SET end_frame=?, t_end=?, end_positions=? WHERE match_id=? AND shot=?",
            (ev.get("frame"), ev.get("t"), json.dumps(ev.get("positions") or {}), match_id, shot),
        )

    def game_frame(self, match_id: int, n: int, game: str, breaker: str | None, first_shot: int | None) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO frames (match_id, n, game, breaker, first_shot) VALUES (?,?,?,?,?)",
            (match_id, n, game, breaker, first_shot),
        )

    def positions(self, match_id: int, frame: int, t: float | None, positions: dict[str, Any]) -> None:
        """The ball positions the pipeline holds at a video frame (for the shot pictures' paths)."""
        self._db.executemany(
            "INSERT INTO tracks (match_id, frame, t, ball, x, y) VALUES (?,?,?,?,?,?)",
            [(match_id, frame, t, b, float(p[0]), float(p[1])) for b, p in positions.items()],
        )

    def progress(self, match_id: int, frame: int) -> None:
        self._db.execute("UPDATE matches SET progress_frame=MAX(progress_frame, ?) WHERE id=?", (frame, match_id))


def _shot_row(r: Sequence[Any]) -> dict[str, Any]:
    return {
        "shot": r[0],
        "game_frame": r[1],
        "start_frame": r[2],
        "end_frame": r[3],
        "t_start": r[4],
        "t_end": r[5],
        "start_positions": json.loads(r[6]) if r[6] else {},
        "end_positions": json.loads(r[7]) if r[7] else {},
    }
