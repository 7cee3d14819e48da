"""Stream clients against a real uvicorn server: the connection cap refuses with a reason and frees its
slots; a slow WebSocket reader is dropped with 4008 and its resume point before the server's keepalive
would cut it with 1011; an SSE socket that stops reading, or goes away, is let go; ``?since`` and
``Last-Event-ID`` together resume after the later one."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time

import httpx
import pytest
import websockets

from calibration.contract import Event
from tests.service_http_support import RawWebSocket, serve, wait_for
from tests.service_support import read_sse, read_ws

BIG = {str(i): (100.0 + 20 * i, 200.0 + 10 * i) for i in range(1, 16)}


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def _push(svc, step: int, n: int = 20) -> None:
    """``n`` camera events of one video frame through the match service, as the runner would."""
    evs = [Event(type="shot_start", t=step / 30, frame=step, shot=n * step + k, ball="cue", positions=BIG)
           for k in range(n)]  # fmt: skip
    svc.match.ingest(step, evs, t=step / 30)


def test_the_connection_cap_refuses_with_a_reason_and_frees_its_slots(tmp_path):
    with serve(tmp_path, max_clients=2) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)

        async def main() -> None:
            async with httpx.AsyncClient(timeout=10) as client:
                async with client.stream("GET", base + "/events") as first, websockets.connect(
                    base.replace("http", "ws") + "/ws"
                ) as second:  # fmt: skip
                    assert first.status_code == 200
                    await asyncio.wait_for(second.recv(), 10)
                    state = (await client.get(base + "/state")).json()
                    assert state["clients"]["open"] == 2 and state["clients"]["cap"] == 2
                    refused = await client.get(base + "/events")
                    assert refused.status_code == 503
                    assert refused.json()["detail"] == "too many stream clients (the cap is 2); try again later"
                    assert refused.headers["retry-after"] == "5"
                    async with websockets.connect(base.replace("http", "ws") + "/ws") as third:
                        with pytest.raises(websockets.ConnectionClosed):
                            await asyncio.wait_for(third.recv(), 10)
                        assert third.close_code == 1013 and "cap is 2" in (third.close_reason or "")
                # Both gone: their slots are free again.
                for _ in range(200):
                    if (await client.get(base + "/state")).json()["clients"]["open"] == 0:
                        break
                    await asyncio.sleep(0.05)
                state = (await client.get(base + "/state")).json()
                assert state["clients"] == {"open": 0, "cap": 2, "refused": 2}
                got = await read_ws(base, 3)
                assert [m["seq"] for m in got] == [1, 2, 3]

        asyncio.run(main())


@pytest.mark.slow
def test_a_slow_websocket_reader_gets_4008_before_the_keepalive_would_cut_it(tmp_path):
    """The server pings every second and would close an unanswered client with 1011 after 4 s; a reader
    that has stopped reading while messages trickle in must instead get 4008 with where to resume."""
    with serve(tmp_path, ws_ping=(1.0, 4.0), client_queue=100_000) as (svc, base):
        slow = RawWebSocket(_port(base), "/ws?since=0")
        try:
            wait_for(lambda: svc.match.hub.client_count == 1, what="the client to follow")
            # A quiet match: one small step every 0.2 s, far from filling any buffer.
            start = time.monotonic()
            step = 0
            while svc.match.hub.client_count and time.monotonic() - start < 15:
                _push(svc, step, n=1)
                step += 1
                time.sleep(0.2)
            assert svc.match.hub.client_count == 0, "the slow reader was let go"
            texts, code, reason = slow.frames_until_close()
        finally:
            slow.close()
        assert code == 4008, (code, reason)
        resume = int(re.fullmatch(r"too slow; resume with \?since=(\d+)", reason).group(1))  # type: ignore[union-attr]
        seqs = [json.loads(t)["seq"] for t in texts]
        assert seqs == list(range(1, len(seqs) + 1)) and resume == (seqs[-1] if seqs else 0)
        total = svc.store.last_seq(svc.match.match_id)
        rest = asyncio.run(read_ws(base, total - resume, since=resume))
        assert [m["seq"] for m in rest] == list(range(resume + 1, total + 1)), "resuming loses nothing"


@pytest.mark.slow
def test_an_sse_socket_that_stops_reading_is_let_go_and_its_slot_freed(tmp_path):
    with serve(tmp_path, max_clients=1, send_timeout=1.0, client_queue=100_000) as (svc, base):
        stuck = socket.socket()
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        stuck.connect(("127.0.0.1", _port(base)))
        stuck.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        try:
            wait_for(lambda: svc.match.hub.client_count == 1, what="the client to follow")
            assert httpx.get(base + "/events").status_code == 503, "the one slot is taken"
            for step in range(3000):  # until the socket's buffers are full and a write waits past 1 s
                if svc.match.hub.client_count == 0:
                    break
                _push(svc, step)
                time.sleep(0.002)
            wait_for(lambda: svc.match.hub.client_count == 0, what="the stuck client to be let go")
            assert svc.match.hub.dropped_clients == 0, "let go for its stalled socket, not its queue"
            wait_for(lambda: httpx.get(base + "/state").json()["clients"]["open"] == 0, what="the slot")
            assert len(asyncio.run(read_sse(base, 2))) == 2, "the freed slot takes a new client"
        finally:
            stuck.close()


def test_an_sse_client_that_goes_away_frees_its_slot_and_quiet_streams_keep_alive(tmp_path):
    with serve(tmp_path, max_clients=1, sse_keepalive=0.2) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        total = svc.store.last_seq(svc.match.match_id)
        sock = socket.create_connection(("127.0.0.1", _port(base)))
        sock.sendall(f"GET /events?since={total} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        sock.settimeout(10)
        seen = b""
        while seen.count(b": keepalive") < 2:  # a quiet match still writes, so a dead peer shows up
            seen += sock.recv(4096)
        assert b"retry: 1000" in seen and b"id: " not in seen, "nothing after since, only keepalive comments"
        sock.close()
        wait_for(lambda: httpx.get(base + "/state").json()["clients"]["open"] == 0, what="the slot")


def test_since_and_last_event_id_resume_after_the_later(tmp_path):
    with serve(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)
        total = svc.store.last_seq(svc.match.match_id)

        async def first_id(query: str, last_id: int | None) -> int:
            headers = {} if last_id is None else {"Last-Event-ID": str(last_id)}
            async with httpx.AsyncClient(timeout=10) as client, client.stream(
                "GET", base + "/events" + query, headers=headers
            ) as resp:  # fmt: skip
                async for line in resp.aiter_lines():
                    if line.startswith("id: "):
                        return int(line[4:])
            raise AssertionError("no message")

        # An EventSource opened with ?since=5 reconnects with Last-Event-ID: 12: no repeats of 6..12.
        assert asyncio.run(first_id("?since=5", 12)) == 13
        assert asyncio.run(first_id("?since=12", 5)) == 13
        assert asyncio.run(first_id("?since=5", None)) == 6
        assert asyncio.run(first_id("", 7)) == 8
        assert total > 13
