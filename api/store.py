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
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Kind = Literal["event", "input", "verdict", "state"]

_SCHEMA = """
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
    """One record of the stream as clients see it: ``{"seq", "kind", "data"}``."""

    seq: int
    kind: str
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "data": self.data}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Match:
    id: int
    source: str
    game: str
    players: dict[str, str]
    status: str
    progress_frame: int
    fps: float | None


class Store:
    """A thread-safe handle on the match database (one connection, one lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a committed transaction survives the process being killed (only a power cut
        # can lose the last ones), at a fraction of FULL's cost.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- transactions -----------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """All writes of one step; committed together or not at all."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            tx = Transaction(self._db)
            try:
                yield tx
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

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
        with self._lock:
            self._db.execute("UPDATE matches SET status=? WHERE id=?", (status, match_id))

    def set_fps(self, match_id: int, fps: float) -> None:
        with self._lock:
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
        return [Message(r[0], r[1], json.loads(r[2])) for r in rows]

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
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        cur = self._db.execute("INSERT INTO stream (match_id, kind, data) VALUES (?, ?, ?)", (match_id, kind, text))
        msg = Message(int(cur.lastrowid or 0), kind, data)
        self.messages.append(msg)
        return msg

    def event(self, match_id: int, data: dict[str, Any]) -> Message:
        msg = self.append(match_id, "event", data)
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
        self._db.execute(
            "INSERT INTO inputs (seq, match_id, shot, type, origin, data) VALUES (?,?,?,?,?,?)",
            (msg.seq, match_id, data.get("shot"), data["type"], origin, json.dumps(data, ensure_ascii=False)),
        )
        return msg

    def verdict(self, match_id: int, data: dict[str, Any], game_frame: int) -> Message:
        msg = self.append(match_id, "verdict", data)
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
