"""Shared parts of the service tests: a real uvicorn server on a free port of 127.0.0.1, stream readers,
and time-scaled copies of the recorded test match."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import websockets

from api.service.launch import BackgroundServer, Service, build
from api.service.settings import ServiceSettings
from calibration.contract import Event, read_jsonl, write_jsonl

DATA = Path(__file__).parent / "data" / "service"
MATCH_LOG = DATA / "match_russian71.jsonl"
TOKEN = "test-operator-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def scaled_log(dst: Path, factor: float, src: Path = MATCH_LOG) -> Path:
    """The test match with its times multiplied by ``factor`` (a shorter real-time replay)."""
    events = [e.model_copy(update={"t": None if e.t is None else e.t * factor}) for e in read_jsonl(src)]
    write_jsonl(dst, events)
    return dst


def log_records(src: Path = MATCH_LOG) -> list[dict[str, Any]]:
    return [e.to_dict() for e in read_jsonl(src)]


@contextmanager
def running_service(
    tmp: Path, source: Path = MATCH_LOG, *, fast: bool = True, token: str | None = TOKEN, client_queue: int = 2000,
    game: str = "russian71", referee_factory: Any = None,
) -> Iterator[tuple[Service, str]]:  # fmt: skip
    """A service on a real uvicorn server, its source NOT yet started (call ``svc.runner.start()``)."""
    env = {"TABLEREF_OPERATOR_TOKEN": token} if token else {}
    settings = ServiceSettings.load({"db": tmp / "match.db", "port": 0, "client_queue": client_queue}, env=env)
    extra = {} if referee_factory is None else {"referee_factory": referee_factory}
    svc = build(str(source), game, settings, fast=fast, **extra)
    with on_a_server(svc) as base:
        yield svc, base


@contextmanager
def on_a_server(svc: Service, join_s: float = 5.0) -> Iterator[str]:
    """``svc`` on a real uvicorn server on 127.0.0.1 (its base URL); then its source, the server and its store
    are stopped, in that order."""
    server = BackgroundServer(svc.app, "127.0.0.1", free_port())
    port = server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        svc.runner.stop()
        svc.runner.join(join_s)
        server.stop()
        svc.store.close()


def ws_url(base: str, since: int = 0) -> str:
    return base.replace("http://", "ws://") + f"/ws?since={since}"


async def read_ws(base: str, count: int, since: int = 0, timeout: float = 30.0) -> list[dict[str, Any]]:
    """The first ``count`` messages of the WebSocket stream after ``since``."""
    out: list[dict[str, Any]] = []
    async with websockets.connect(ws_url(base, since)) as ws:
        while len(out) < count:
            out.append(json.loads(await asyncio.wait_for(ws.recv(), timeout)))
    return out


async def read_sse(
    base: str, count: int, last_event_id: int | None = None, timeout: float = 30.0
) -> list[tuple[int, dict[str, Any]]]:
    """The first ``count`` (id, data) pairs of the SSE stream, resuming after ``last_event_id``."""
    headers = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
    out: list[tuple[int, dict[str, Any]]] = []
    async with (
        httpx.AsyncClient(timeout=timeout) as client,
        client.stream("GET", base + "/events", headers=headers) as resp,
    ):
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        ident: int | None = None
        async for line in resp.aiter_lines():
            if line.startswith("id: "):
                ident = int(line[4:])
            elif line.startswith("data: ") and ident is not None:
                out.append((ident, json.loads(line[6:])))
                ident = None
                if len(out) >= count:
                    break
    return out


def stream_records(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events and inputs of a list of stream messages, in order."""
    return [m["data"] for m in messages if m["kind"] in ("event", "input")]


def parse_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [Event.model_validate(r).to_dict() for r in records]
