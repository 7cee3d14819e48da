"""The stream against a real uvicorn server: WebSocket and SSE clients get the recorded match in order,
SSE resumes from Last-Event-ID, a slow client never holds up a fast one and is dropped with a reason."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import struct
import time

import httpx
import pytest
import websockets

from tests.service_http_support import RawWebSocket
from tests.service_support import log_records, read_sse, read_ws, running_service, stream_records, ws_url


def _wait_done(svc) -> None:
    assert svc.runner.join(30), "the source did not finish"
    assert svc.runner.stats.error is None


def test_ws_and_sse_clients_receive_the_match_in_order(tmp_path):
    expected = log_records()
    with running_service(tmp_path) as (svc, base):
        asyncio.run(_collect(svc, base, expected))


async def _collect(svc, base, expected):
    """Connect a WebSocket and an SSE client, then start the source, so both read the live path."""
    got_ws: list[dict] = []
    got_sse: list[tuple[int, dict]] = []

    async def ws_reader():
        async with websockets.connect(ws_url(base)) as ws:
            while True:
                msg = json.loads(await ws.recv())
                got_ws.append(msg)
                if msg["kind"] == "event" and msg["data"]["type"] == "shot_end" and msg["data"]["shot"] == 3:
                    return

    async def sse_reader():
        async with httpx.AsyncClient(timeout=30) as client, client.stream("GET", base + "/events") as resp:
            ident = None
            async for line in resp.aiter_lines():
                if line.startswith("id: "):
                    ident = int(line[4:])
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
                    got_sse.append((ident, data))
                    if data["kind"] == "event" and data["data"]["type"] == "shot_end" and data["data"]["shot"] == 3:
                        return

    tasks = [asyncio.create_task(ws_reader()), asyncio.create_task(sse_reader())]
    while svc.match.hub.client_count < 2:
        await asyncio.sleep(0.02)
    svc.runner.start()
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    _wait_done(svc)

    assert stream_records(got_ws) == expected
    seqs = [m["seq"] for m in got_ws]
    assert seqs == list(range(1, len(seqs) + 1)), "sequence numbers are 1, 2, 3, ... with no gap"
    assert [i for i, _ in got_sse] == seqs, "SSE ids are the sequence numbers"
    assert [d for _, d in got_sse] == got_ws, "SSE data is the same JSON as the WebSocket messages"
    kinds = {m["kind"] for m in got_ws}
    assert {"event", "input", "state"} <= kinds


def test_sse_resumes_from_last_event_id_and_ws_from_since(tmp_path):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        _wait_done(svc)
        total = svc.store.last_seq(svc.match.match_id)
        assert total > 20
        everything = asyncio.run(read_ws(base, total))
        resumed_sse = asyncio.run(read_sse(base, total - 12, last_event_id=12))
        assert [i for i, _ in resumed_sse] == list(range(13, total + 1))
        assert [d for _, d in resumed_sse] == everything[12:]
        resumed_ws = asyncio.run(read_ws(base, total - 20, since=20))
        assert resumed_ws == everything[20:]
        # No Last-Event-ID: the stream starts from the beginning.
        assert asyncio.run(read_sse(base, 1, last_event_id=None))[0][0] == 1


@pytest.mark.slow
def test_a_slow_client_does_not_delay_a_fast_one_and_is_dropped_with_a_reason(tmp_path):
    from calibration.contract import Event

    cap = 5000  # steps of 20 camera events pushed straight through the match service, as the runner would
    big = {str(i): (100.0 + 20 * i, 200.0 + 10 * i) for i in range(1, 16)}
    with running_service(tmp_path, client_queue=50) as (svc, base):
        port = int(base.rsplit(":", 1)[1])

        async def main():
            slow = RawWebSocket(port, "/ws?since=0")
            try:
                return await drive(slow)
            finally:
                slow.close()

        async def drive(slow):
            fast_msgs: list[dict] = []
            fast_events = [0]
            produced = [0]
            finished = asyncio.Event()

            async def fast_reader():
                async with websockets.connect(ws_url(base)) as ws:
                    while not (finished.is_set() and fast_events[0] == produced[0]):
                        try:
                            fast_msgs.append(json.loads(await asyncio.wait_for(ws.recv(), 0.2)))
                        except TimeoutError:
                            continue
                        fast_events[0] += fast_msgs[-1]["kind"] == "event"

            fast = asyncio.create_task(fast_reader())
            while svc.match.hub.client_count < 2:
                await asyncio.sleep(0.02)

            def produce():
                # Until the slow client has filled the kernel's socket buffers and then its own buffer.
                for i in range(cap):
                    if svc.match.hub.dropped_clients:
                        break
                    # Keep within reach of the fast client (whose own limit is 50), never of the slow one.
                    while fast_events[0] < produced[0] - 20 and not fast.done():
                        time.sleep(0.001)
                    evs = [
                        Event(type="shot_start", t=i / 30, frame=i, shot=20 * i + k, ball="cue", positions=big)
                        for k in range(20)
                    ]
                    svc.match.ingest(i, evs, t=i / 30)
                    produced[0] += len(evs)

            await asyncio.get_running_loop().run_in_executor(None, produce)
            finished.set()

            await asyncio.wait_for(fast, 60)
            assert svc.match.hub.dropped_clients == 1, "the slow client was dropped, the fast one was not"
            # The fast client has everything while the slow one has read nothing yet.
            events = [m["data"]["shot"] for m in fast_msgs if m["kind"] == "event"]
            assert events == list(range(produced[0]))
            # The slow client, reading at last, finds the feed closed with a reason and a resume point.
            received = []
            slow.sock.settimeout(30)
            while True:
                opcode, payload = slow.recv()
                if opcode != 1:
                    break
                received.append(json.loads(payload))
            assert opcode == 8, "a close frame"
            assert struct.unpack("!H", payload[:2])[0] == 4008
            reason = payload[2:].decode()
            assert "resume with ?since=" in reason
            resume_after = int(reason.rsplit("=", 1)[1])
            assert [m["seq"] for m in received] == list(range(1, len(received) + 1))
            assert resume_after == (received[-1]["seq"] if received else 0)
            assert len(received) < 2 * produced[0]
            # Resuming loses nothing.
            total = svc.store.last_seq(svc.match.match_id)
            rest = await read_ws(base, total - resume_after, since=resume_after)
            assert [m["seq"] for m in received + rest] == list(range(1, total + 1))
            return svc.match.hub.dropped_clients

        asyncio.run(main())


def test_a_slow_sse_client_is_dropped_with_a_resume_point_and_resumes_without_loss(tmp_path):
    from calibration.contract import Event

    big = {str(i): (100.0 + 20 * i, 200.0 + 10 * i) for i in range(1, 16)}
    with running_service(tmp_path, client_queue=50) as (svc, base):
        port = int(base.rsplit(":", 1)[1])
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        slow.connect(("127.0.0.1", port))
        slow.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        try:
            deadline = time.monotonic() + 30
            while svc.match.hub.client_count < 1:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            for i in range(5000):  # until the kernel's buffers and then the client's own are full
                if svc.match.hub.dropped_clients:
                    break
                evs = [Event(type="shot_start", t=i / 30, frame=i, shot=20 * i + k, ball="cue", positions=big)
                       for k in range(20)]  # fmt: skip
                svc.match.ingest(i, evs, t=i / 30)
            assert svc.match.hub.dropped_clients == 1
            slow.settimeout(30)
            raw = b""
            while not raw.endswith(b"\r\n0\r\n\r\n"):  # the end of the chunked response
                chunk = slow.recv(65536)
                if not chunk:
                    break
                raw += chunk
        finally:
            slow.close()
        text = raw.decode()
        ids = [int(m) for m in re.findall(r"^id: (\d+)$", text, flags=re.M)]
        assert ids == list(range(1, len(ids) + 1))
        dropped = re.search(r"^event: dropped\ndata: (.*)$", text, flags=re.M)
        assert dropped is not None
        info = json.loads(dropped.group(1))
        assert info["resume_after"] == (ids[-1] if ids else 0) and "too slow" in info["reason"]
        total = svc.store.last_seq(svc.match.match_id)
        rest = asyncio.run(read_sse(base, total - info["resume_after"], last_event_id=info["resume_after"]))
        assert [i for i, _ in rest] == list(range(info["resume_after"] + 1, total + 1))
