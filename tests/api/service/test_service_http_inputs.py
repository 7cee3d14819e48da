"""Inputs that cannot hurt, against a real uvicorn server holding the played test match: a size cap, JSON
nested without end, non-finite numbers, integers past SQLite's, shots that do not exist, ball ids that are
not on the table. Each is a 4xx with a one-line reason, and nothing of it reaches the record or the stream."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest
import websockets

from tests.service_http_support import serve
from tests.service_support import TOKEN

AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
HUGE = 2**63


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The recorded match played to its end, behind a server for the whole module."""
    with serve(tmp_path_factory.mktemp("inputs")) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30) and svc.runner.stats.error is None
        yield svc, base


def _one_line(r: httpx.Response) -> str:
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and len(detail) < 300, detail
    return detail


def _post_raw(base: str, body: bytes | str) -> httpx.Response:
    return httpx.post(base + "/inputs", content=body, headers=AUTH, timeout=30)


def _valid_call(base: str) -> dict:
    """A call the referee takes: a ball on the table into a pocket, for the next shot."""
    ball = sorted(b["id"] for b in httpx.get(base + "/state").json()["balls"] if b["id"] != "cue")[0]
    return {"type": "call", "ball": ball, "pocket": "house-left"}


def _unchanged(svc, before: int) -> None:
    assert svc.store.last_seq(svc.match.match_id) == before, "nothing was recorded or streamed"


def test_a_body_over_64_kib_is_413_by_its_length_or_as_it_streams(played):
    svc, base = played
    before = svc.store.last_seq(svc.match.match_id)
    big = json.dumps({"type": "call_any", "pad": "x" * 100_000})
    r = _post_raw(base, big)
    assert r.status_code == 413 and "limit of 65536 bytes" in _one_line(r)

    def chunks():  # no Content-Length: the cap applies while the body arrives
        for _ in range(20):
            yield b" " * 8192

    r = httpx.post(base + "/inputs", content=chunks(), headers=AUTH, timeout=30)
    assert r.status_code == 413 and "limit" in _one_line(r)
    # Just under the cap, the same route still answers on the content.
    r = _post_raw(base, json.dumps(_valid_call(base)) + " " * 60_000)
    assert r.status_code == 201, r.text
    assert svc.store.last_seq(svc.match.match_id) > before


@pytest.mark.parametrize("depth", [100_000, 20_000])
def test_json_nested_without_end_is_refused(played, depth):
    svc, base = played
    before = svc.store.last_seq(svc.match.match_id)
    r = _post_raw(base, "[" * depth + "]" * depth)
    assert r.status_code in (400, 413)
    assert ("nested deeper" if depth == 20_000 else "limit") in _one_line(r)
    r = _post_raw(base, '{"type": "call_any", "x": ' + "{" * 40 + "}" * 40 + "}")
    assert r.status_code == 400 and "nested deeper than 32" in _one_line(r)
    _unchanged(svc, before)


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ('{"type": "call_any", "t": NaN}', 400, "finite numbers only"),
        ('{"type": "call_any", "t": Infinity}', 400, "finite numbers only"),
        ('{"type": "call_any", "t": -Infinity}', 400, "finite numbers only"),
        ('{"type": "call_any", "t": 1e999}', 400, "finite numbers only"),
        ('{"type": "call_any", "t": "NaN"}', 422, "finite time"),
        ('{"type": "call_any", "t": "inf"}', 422, "finite time"),
        ('{"type": "call_any", "shot": 9223372036854775808}', 422, "shot must be a shot index"),
        ('{"type": "call_any", "shot": -1}', 422, "shot must be a shot index"),
        ('{"type": "call_any", "frame": 9223372036854775808}', 422, "frame must be"),
        ('{"type": "call_any", "shot": ' + "9" * 5000 + "}", 400, "not acceptable JSON"),
        (b'{"type": "call_any", "code": "\xff"}', 400, "not UTF-8"),
        ("[1, 2]", 422, "one JSON object"),
        ('{"type": "call_any"', 400, "not JSON"),
    ],
)
def test_numbers_must_be_finite_and_integers_bounded(played, body, status, says):
    svc, base = played
    before = svc.store.last_seq(svc.match.match_id)
    r = _post_raw(base, body)
    assert r.status_code == status, r.text
    assert says in _one_line(r)
    _unchanged(svc, before)


def test_a_shot_beyond_the_next_one_is_refused(played):
    svc, base = played
    state = httpx.get(base + "/state").json()
    nxt = state["shot"]["last"] + 1
    before = svc.store.last_seq(svc.match.match_id)
    r = _post_raw(base, json.dumps({"type": "call_any", "shot": nxt + 1}))
    assert r.status_code == 409 and f"the next shot is {nxt}" in _one_line(r)
    _unchanged(svc, before)
    r = _post_raw(base, json.dumps({"type": "manual_foul", "code": "push", "shot": nxt}))
    assert r.status_code == 201, r.text


def test_ball_ids_are_checked_against_the_table(played):
    svc, base = played
    on_table = {b["id"] for b in httpx.get(base + "/state").json()["balls"]}
    assert len(on_table) >= 5
    potted = svc.store.potted_balls(svc.match.match_id)
    gone = next(str(n) for n in range(1, 16) if str(n) not in on_table)
    never = "t99"  # a tracker id no ball of this match ever had
    assert never not in on_table | potted
    there = sorted(on_table - {"cue"})[0]
    before = svc.store.last_seq(svc.match.match_id)
    cases = [
        ({"type": "call", "ball": gone, "pocket": "house-left"}, 409, "not on the table"),
        ({"type": "call", "ball": "16", "pocket": "house-left"}, 422, "ball ids"),
        ({"type": "call", "ball": "x" * 500, "pocket": "house-left"}, 422, "ball ids"),
        ({"type": "reorder", "ball": gone}, 409, "not on the table"),
        ({"type": "third_ball", "balls": [there, gone]}, 409, f"ball '{gone}'"),
        ({"type": "third_ball", "balls": [there, there]}, 422, "each ball once"),
        ({"type": "third_ball", "balls": []}, 422, "at least one ball"),
        ({"type": "rename", "ball": never, "to": "t40"}, 409, "neither on the table nor potted"),
        ({"type": "rename", "ball": there, "to": "cue"}, 409, "already on the table"),
        ({"type": "void_pot", "ball": "cue2"}, 422, "ball id"),
    ]
    for body, status, says in cases:
        r = _post_raw(base, json.dumps(body))
        assert r.status_code == status, (body, r.text)
        assert says in _one_line(r), (body, r.text)
    _unchanged(svc, before)
    # A ball that is there is taken.
    r = _post_raw(base, json.dumps({"type": "rename", "ball": there, "to": "t41"}))
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("path", ["/shots/{n}", "/shots/{n}/picture.png", "/shots/{n}/clip"])
def test_shot_numbers_past_the_record_are_a_4xx(played, path):
    _, base = played
    for n in (HUGE, 2**53, -1):
        r = httpx.get(base + path.format(n=n), headers=AUTH)
        assert r.status_code == 422, (n, r.text)
        assert "less than or equal" in _one_line(r) or "greater than or equal" in _one_line(r)
    r = httpx.get(base + path.format(n=2**53 - 1), headers=AUTH)
    assert r.status_code == 404 and "no shot" in _one_line(r)


def test_stream_resume_points_past_the_record_are_a_4xx(played):
    _, base = played
    r = httpx.get(base + f"/events?since={HUGE}")
    assert r.status_code == 422 and "since" in _one_line(r)
    for bad in (str(HUGE), "12abc", "-3", "٣"):
        r = httpx.get(base + "/events", headers={"Last-Event-ID": bad.encode()})
        assert r.status_code == 400, (bad, r.text)
        assert "Last-Event-ID must be a sequence number" in _one_line(r)

    async def ws_close(query: str) -> tuple[int, str]:
        async with websockets.connect(base.replace("http", "ws") + "/ws" + query) as ws:
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 10)
            assert ws.close_code is not None
            return ws.close_code, ws.close_reason or ""

    code, reason = asyncio.run(ws_close(f"?since={HUGE}"))
    assert code == 1008 and "since must be a sequence number" in reason
    code, reason = asyncio.run(ws_close("?since=x"))
    assert code == 1008


def test_nan_never_reaches_the_stream(played):
    """Whatever was refused above, every message the stream holds is strict JSON."""
    svc, _ = played
    bad: list[str] = []
    for m in svc.store.messages(svc.match.match_id):
        json.loads(m.to_json(), parse_constant=bad.append)
    assert bad == [], "the stream holds NaN or Infinity"


def test_a_refused_input_is_answered_in_one_plain_line_without_a_line_number(played):
    """The engine numbers the records it is fed ("line 28: ..."), which names a line of a JSON-lines file
    (``tableref referee`` keeps it); one posted record gets the reason alone."""
    svc, base = played
    before = svc.store.last_seq(svc.match.match_id)
    r = httpx.post(base + "/inputs", json={"type": "call_any"}, headers=AUTH, timeout=30)
    detail = _one_line(r)
    assert r.status_code == 409 and detail.startswith("the referee refuses this input: "), detail
    assert not re.search(r"\bline \d+", detail), detail
    _unchanged(svc, before)
