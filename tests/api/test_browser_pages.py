"""The overlay and review pages in a real headless Chromium (Debian's /usr/bin/chromium), driven over the
Chrome DevTools protocol: the overlay's score changes live when a pot verdict is streamed, with no reload;
the review page lists the shots as they happen and shows a shot's pack with its picture and timeline."""

from __future__ import annotations

import asyncio
import base64
import csv
import itertools
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
import websockets

from api.service.launch import BackgroundServer, build
from api.service.settings import ServiceSettings
from calibration.contract import Event, read_jsonl, write_jsonl
from tests.api.test_console_names import tracked
from tests.paths import REPO
from tests.service_support import TOKEN, free_port, running_service, scaled_log

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TRACKER_ID = re.compile(r"\bt\d+\b")
pytestmark = [pytest.mark.browser, pytest.mark.slow]


class Browser:
    """A headless Chromium with one page, spoken to over its DevTools websocket."""

    def __init__(self, profile: Path) -> None:
        if not os.path.exists(CHROMIUM):
            pytest.fail(f"Chromium is needed for the browser tests ({CHROMIUM}); scripts/dev-install installs it")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
             f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,720", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("Chromium did not start")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        pages = httpx.get(f"http://127.0.0.1:{port}/json/list").json()
        self.ws_url = next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")
        self._ids = itertools.count(1)
        self.ws: websockets.ClientConnection | None = None

    async def __aenter__(self) -> Browser:
        self.ws = await websockets.connect(self.ws_url, max_size=1 << 26)
        await self.call("Page.enable")
        await self.call("Runtime.enable")
        return self

    async def __aexit__(self, *exc) -> None:
        assert self.ws is not None
        await self.ws.close()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    async def call(self, method: str, **params):
        assert self.ws is not None
        ident = next(self._ids)
        await self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
            if msg.get("id") == ident:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    async def js(self, expr: str):
        res = await self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expr}: {res['exceptionDetails']}")
        return res["result"].get("value")

    async def wait_for(self, expr: str, timeout: float = 30.0):
        """Poll a JavaScript expression until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = await self.js(expr)
            except RuntimeError:  # the page is still loading
                value = None
            if value:
                return value
            await asyncio.sleep(0.03)
        raise AssertionError(f"never true in the page: {expr}")

    async def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) in the middle of the element, scrolled into view."""
        # The page may still be laying itself out (a line added to the header moves everything below it):
        # click only where the element itself is hit.
        box = None
        for _ in range(100):
            box = await self.js(
                f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
                "el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();"
                "const x = r.left + r.width / 2, y = r.top + r.height / 2;"
                "return [x, y, el.disabled, el.contains(document.elementFromPoint(x, y))]; })()"
            )
            if box[3]:
                break
            await asyncio.sleep(0.05)
        assert box is not None and box[3], f"{selector} cannot be clicked: something covers it"
        assert not box[2], f"{selector} is disabled"
        for kind in ("mousePressed", "mouseReleased"):
            await self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    async def type_into(self, selector: str, text: str) -> None:
        """Click into a field and type, as a person would."""
        await self.click(selector)
        await self.js(f"document.querySelector({json.dumps(selector)}).select(); true")
        await self.call("Input.insertText", text=text)

    async def choose(self, selector: str, value: str) -> None:
        """Pick an option of a <select> (its value), telling the page as a choice by hand does."""
        ok = await self.js(
            f"(() => {{ const s = document.querySelector({json.dumps(selector)});"
            f"if (![...s.options].some((o) => o.value === {json.dumps(value)})) return false;"
            f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); return true; }})()"
        )
        assert ok, f"{selector} has no option {value}"

    async def screenshot(self, path: Path, clip: dict | None = None) -> np.ndarray:
        extra = {"clip": {**clip, "scale": 1}} if clip else {}
        res = await self.call("Page.captureScreenshot", format="png", **extra)
        data = base64.b64decode(res["data"])
        path.write_bytes(data)
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        assert img is not None and img.shape[0] > 100 and img.shape[1] > 100
        return img


@pytest.fixture
def browser(tmp_path):
    b = Browser(tmp_path / "chromium-profile")
    yield b
    b.close()


def _shots_dir(tmp_path: Path) -> Path:
    """Screenshots go to TABLEREF_SCREENSHOTS when set (CI artifacts), else into the test's folder."""
    out = Path(os.environ.get("TABLEREF_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    return out


def _named_log(tmp_path: Path, factor: float, players: dict[str, str]) -> Path:
    """The recorded test match, its frame_start naming the players."""
    log = scaled_log(tmp_path / "match.jsonl", factor)
    lines = log.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert first["type"] == "frame_start"
    lines[0] = json.dumps({**first, "players": players}, ensure_ascii=False)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def test_overlay_score_changes_live_when_a_pot_verdict_is_streamed(tmp_path, browser):
    log = _named_log(tmp_path, 0.3, {"A": "Ivanov", "B": "Petrov"})
    with running_service(tmp_path, log, fast=False) as (svc, base):

        async def main():
            async with browser:
                await browser.call("Page.navigate", url=base + "/overlay")
                await browser.wait_for("document.getElementById('status').textContent === 'live'")
                assert await browser.js("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
                await browser.js("window.notReloaded = true")
                scores = (
                    "[document.getElementById('score-A').textContent, document.getElementById('score-B').textContent]"
                )
                assert await browser.js(scores) == ["0", "0"]
                assert await browser.js("document.getElementById('game').textContent") == "Russian pyramid, 71 points"
                assert await browser.js("document.getElementById('target').textContent") == "71 points to win"
                # Every change the page makes to the scores and the call, kept in the page (no transient missed).
                await browser.js(
                    "window.seen = []; const watch = new MutationObserver(() => window.seen.push("
                    "['score-A', 'score-B', 'verdict'].map((id) => document.getElementById(id).textContent)));"
                    "for (const id of ['score-A', 'score-B', 'verdict']) watch.observe(document.getElementById(id),"
                    "{childList: true, characterData: true, subtree: true}); true"
                )
                svc.runner.start()
                # The frame_start names the players: the overlay shows them with no reload.
                await browser.wait_for("document.getElementById('name-A').textContent === 'Ivanov'")
                assert await browser.js("document.getElementById('name-B').textContent") == "Petrov"
                # Shot 1: B pots the called 3 (001 2.2.6): the score changes with no reload.
                await browser.wait_for("window.seen.some((s) => s[1] === '3' && s[2].includes('Counted: ball 3'))")
                # Shot 2: the foul is shown with its clause, and counted against the player.
                await browser.wait_for(
                    "window.seen.some((s) => s[2] === 'Foul: the cue ball touched no object ball, 001 2.1.22(1)')"
                )
                assert svc.runner.join(30)
                final = svc.match.state()["score"]
                want = [str(final["A"]), str(final["B"])]
                await browser.wait_for(f"JSON.stringify({scores}) === '{json.dumps(want, separators=(',', ':'))}'")
                fouls = httpx.get(base + "/protocol").json()["frames"][0]["fouls"]
                for side in ("A", "B"):
                    shown = "" if not fouls[side] else f"{fouls[side]} foul" + ("s" if fouls[side] > 1 else "")
                    await browser.wait_for(f"document.getElementById('fouls-{side}').textContent === '{shown}'")
                assert sum(fouls.values()) == 1
                assert await browser.js("window.notReloaded") is True
                at_table = await browser.js("document.querySelector('.player.at-table').dataset.side")
                assert at_table == svc.match.state()["player"]
                text = await browser.js("document.body.innerText")
                assert not TRACKER_ID.search(text) and "russian71" not in text
                assert await browser.js("document.getElementById('source').hidden") is True, "a file plays on"
                # A live camera lost: the overlay says so while it lasts (the service's /state reports it).
                svc.match.source_info = {"status": "reconnecting", "kind": "camera", "lost_s": 12.2}
                await browser.wait_for(
                    "document.getElementById('source').textContent === 'camera lost 12 s, reconnecting'", timeout=15
                )
                svc.match.source_info = {"status": "finished", "kind": "events"}
                await browser.wait_for("document.getElementById('source').hidden", timeout=15)

                # Settings for streaming software: placement, size and theme from the query.
                await browser.call("Page.navigate", url=base + "/overlay?pos=top-left&scale=1.5&theme=light")
                await browser.wait_for("document.getElementById('name-A').textContent === 'Ivanov'")
                assert await browser.js("document.body.className") == "pos-top-left theme-light"
                box = await browser.js(
                    "(() => { const r = document.getElementById('overlay').getBoundingClientRect();"
                    "return [r.left, r.top, r.width]; })()"
                )
                plain = await browser.js("document.getElementById('overlay').offsetWidth")
                assert box[0] < 60 and box[1] < 60 and abs(box[2] - 1.5 * plain) < 2, (box, plain)
                await browser.call("Page.navigate", url=base + "/overlay?pos=bottom-right&scale=9&theme=nonsense")
                await browser.wait_for("document.getElementById('name-A').textContent === 'Ivanov'")
                assert await browser.js("document.body.className") == "pos-bottom-right theme-dark"
                await browser.call("Page.navigate", url=base + "/overlay")
                await browser.wait_for("document.getElementById('name-A').textContent === 'Ivanov'")
                await browser.wait_for("!document.getElementById('verdict').hidden")
                # For the picture only: a broadcast's green behind the transparent page.
                green = {"r": 40, "g": 90, "b": 60, "a": 1}
                await browser.call("Emulation.setDefaultBackgroundColorOverride", color=green)
                area = await browser.js(
                    "(() => { const r = document.getElementById('stage').getBoundingClientRect();"
                    "return {x: r.left - 20, y: r.top - 20, width: r.width + 40, height: r.height + 40}; })()"
                )
                img = await browser.screenshot(_shots_dir(tmp_path) / "overlay.png", clip=area)
                assert img.std() > 5, "the screenshot shows something"

                # Ivanov concedes (001 1.5.5): his score stands, Petrov is credited with 71, live on the overlay.
                await browser.js("window.notReloaded = true")
                r = httpx.post(base + "/inputs", json={"type": "concede", "player": "A"},
                               headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)  # fmt: skip
                assert r.status_code == 201, r.text
                await browser.wait_for("document.getElementById('score-B').textContent === '71'")
                assert await browser.js("document.getElementById('score-A').textContent") == want[0]
                await browser.wait_for("document.getElementById('verdict').textContent.endsWith(' · frame to Petrov')")
                assert await browser.js("window.notReloaded") is True
                await browser.call("Page.navigate", url="about:blank")

        asyncio.run(main())


def test_review_lists_shots_live_and_shows_a_pack_with_picture_and_timeline(tmp_path, browser):
    log = scaled_log(tmp_path / "match.jsonl", 0.2)
    with running_service(tmp_path, log, fast=False) as (svc, base):

        async def main():
            async with browser:
                await browser.call("Page.navigate", url=base + "/review")
                await browser.wait_for("document.getElementById('empty') && !document.getElementById('empty').hidden")
                await browser.js("window.notReloaded = true")
                svc.runner.start()
                await browser.wait_for("document.querySelectorAll('#shots tbody tr').length === 4")
                assert svc.runner.join(30)
                await browser.wait_for(
                    "document.querySelector('#shots tbody tr[data-shot=\"2\"] td:last-child').textContent"
                    ".startsWith('foul')"
                )
                assert await browser.js("window.notReloaded") is True
                await browser.js("document.querySelector('#shots tbody tr[data-shot=\"2\"]').click()")
                verdict = await browser.wait_for(
                    "!document.getElementById('pack').hidden && document.getElementById('pack-verdict').textContent"
                )
                assert verdict.startswith("Foul: the cue ball touched no object ball, 001 2.1.22(1)")
                await browser.wait_for("document.getElementById('pack-picture').naturalWidth > 0")
                pack = httpx.get(base + "/shots/2").json()
                timed = [e for e in pack["events"] if e["t"] is not None]
                marks = await browser.js("document.querySelectorAll('#timeline .mark').length")
                assert marks == len(timed)
                rows = await browser.js("document.querySelectorAll('#events tbody tr').length")
                assert rows == len(pack["events"]) + len(pack["inputs"])
                img = await browser.screenshot(_shots_dir(tmp_path) / "review.png")
                assert img.std() > 5
                await browser.call("Page.navigate", url="about:blank")

        asyncio.run(main())


DEMO = REPO / "api" / "data" / "demo"


def _ingest_shot(svc, truth: list[Event], shot: int) -> None:
    """Feed one shot of the demo's true events and ball positions to the match, frame by frame, as the
    pipeline would."""
    by_frame: dict[int, list[Event]] = {}
    for e in truth:
        if e.shot == shot:
            by_frame.setdefault(int(e.frame), []).append(e)
    first, last = min(by_frame), max(by_frame)
    balls: dict[int, dict[str, tuple[float, float]]] = {}
    with open(DEMO / "truth" / "tracks.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if first <= int(row["frame"]) <= last:
                balls.setdefault(int(row["frame"]), {})[row["ball"]] = (float(row["x"]), float(row["y"]))
    for frame in range(first, last + 1):
        evs = by_frame.get(frame, [])
        svc.match.ingest(frame, evs, t=frame / 25, positions=balls.get(frame))


def test_console_replays_a_shot_and_every_control_rejudges_or_says_why_not(tmp_path, browser):
    """A referee's session on the demo video: the token typed once, players named, a call made and amended,
    a shot's replay played and stepped frame by frame, then every other control clicked; each click shows the
    re-judged verdict or the one-line reason it was refused."""
    settings = ServiceSettings.load({"db": tmp_path / "m.db"}, env={"TABLEREF_OPERATOR_TOKEN": TOKEN})
    svc = build(str(DEMO), "russian71", settings)
    svc.store.set_fps(svc.match.match_id, 25.0)  # what the runner records when it opens the video
    server = BackgroundServer(svc.app, "127.0.0.1", free_port())
    base = f"http://127.0.0.1:{server.start()}"
    truth = read_jsonl(DEMO / "truth" / "events.jsonl")
    results: list[str] = []

    async def act(selector: str) -> str:
        """Click a control; the page's answer line once it changes."""
        before = await browser.js("document.getElementById('action-result').textContent")
        await browser.click(selector)
        await browser.wait_for(f"document.getElementById('action-result').textContent !== {json.dumps(before)}")
        text = await browser.js("document.getElementById('action-result').textContent")
        assert text.startswith(("Accepted: ", "Refused: ", "Published: ")) and "\n" not in text, text
        assert "HTTP 5" not in text and "Traceback" not in text and not TRACKER_ID.search(text), text
        results.append(f"{selector}: {text}")
        return text

    async def main():
        async with browser:
            await browser.call("Emulation.setDeviceMetricsOverride", width=1440, height=900, deviceScaleFactor=1,
                               mobile=False)  # fmt: skip
            await browser.call("Page.navigate", url=base + "/review")
            await browser.wait_for("document.getElementById('fs-game').options.length > 5")
            # The token, typed once; kept for the tab, never in the URL.
            await browser.type_into("#token", TOKEN)
            await browser.click("#token-save")
            await browser.wait_for("document.getElementById('token-state').textContent === 'token set for this tab'")
            assert await browser.js("sessionStorage.getItem('tableref-operator-token')") == TOKEN
            assert TOKEN not in await browser.js("location.href")

            # A new frame with the players' names and the breaker.
            await browser.choose("#fs-game", "russian71")
            await browser.type_into("#fs-a", "Ivanov")
            await browser.type_into("#fs-b", "Petrov")
            await browser.choose("#fs-breaker", "A")
            text = await act("#fs-send")
            assert text == "Accepted: new frame of Russian pyramid, 71 points, Ivanov breaks · no verdict changed"
            await browser.wait_for("document.getElementById('match').textContent.includes('Ivanov vs Petrov')")

            _ingest_shot(svc, truth, 0)  # the break
            await browser.wait_for("document.querySelectorAll('#shots tbody tr').length === 1")
            await browser.wait_for("document.getElementById('call-send').textContent === 'Call for shot 2'")

            # A call, then amended before the stroke (001 2.2.6: the last call is in force).
            await browser.choose("#call-ball", "5")
            await browser.choose("#call-pocket", "house-left")
            await act("#call-send")
            await browser.wait_for("document.getElementById('call-send').textContent === 'Amend the call of shot 2'")
            await browser.choose("#call-ball", "4")
            await browser.choose("#call-pocket", "middle-left")
            text = await act("#call-send")
            assert text.startswith("Accepted: call: ball 4 into the left middle pocket")
            await browser.wait_for(
                "document.getElementById('call-in-force').textContent === "
                "'In force: call: ball 4 into the left middle pocket'"
            )
            await browser.click("#shots tbody tr[data-shot='0']")
            await browser.wait_for("document.getElementById('pack-clip').dataset.ready === '1'", timeout=120)
            assert (await browser.js("document.getElementById('pack-summary').textContent")).startswith(
                "break: 15 balls moved, 1 potted (ball 12)"
            )
            await browser.click("#pack-summary")  # the break's events, one click away
            await browser.wait_for("document.getElementById('events-details').open")
            await browser.js("window.scrollTo(0, 0); true")
            await browser.screenshot(_shots_dir(tmp_path) / "console.png")

            _ingest_shot(svc, truth, 1)  # the called ball 4 goes into the left middle pocket
            await browser.wait_for("document.querySelectorAll('#shots tbody tr').length === 2")
            await browser.wait_for(
                "document.querySelector('#shots tbody tr[data-shot=\"1\"] td:last-child').textContent"
                " === 'counted ball 4'"
            )

            # The replay of shot 2: the clip, the drawing's marks and the timeline move together.
            await browser.click("#shots tbody tr[data-shot='1']")
            await browser.wait_for("document.getElementById('pack').dataset.shot === '1'")
            await browser.wait_for("document.getElementById('pack-clip').dataset.ready === '1'", timeout=120)
            assert "break" not in await browser.js("document.getElementById('pack-summary').textContent")
            assert await browser.js("document.getElementById('events-details').open") is True
            cursor = "+document.getElementById('cursor').dataset.t"
            start = await browser.js(cursor)
            await browser.click("#play")
            marks = "+document.getElementById('pack-marks').dataset.marks"
            await browser.wait_for(f"{cursor} > {start} + 0.3 && {marks} > 0")
            await browser.click("#play")  # pause
            await browser.wait_for("document.getElementById('pack-clip').paused")
            # The balls drawn where the tracker had them at the frame shown.
            snap = "+document.getElementById('pack-marks').dataset.snapshot"
            await browser.wait_for(f"{snap} > 321 && +document.getElementById('pack-marks').dataset.balls > 10")
            video_t = await browser.js("document.getElementById('pack-clip').currentTime")
            clip_t0 = httpx.get(base + "/shots/1").json()["clip_t0"]
            await browser.wait_for(f"Math.abs({cursor} - {video_t + clip_t0}) < 0.002")
            frame = "+document.getElementById('replay-time').dataset.frame"
            f0 = await browser.js(frame)
            await browser.click("#step-fwd")
            await browser.wait_for(f"{frame} === {f0 + 1}")
            await browser.click("#step-fwd")
            await browser.wait_for(f"{frame} === {f0 + 2}")
            await browser.click("#step-back")
            await browser.wait_for(f"{frame} === {f0 + 1}")
            assert await browser.js(snap) == f0 + 1, "the drawing shows the frame the video shows"
            past = await browser.js("document.querySelectorAll('#events tbody tr.past').length")
            assert 0 < past < await browser.js("document.querySelectorAll('#events tbody tr').length")

            # Corrections of the shot just played, each re-judged at once.
            await browser.choose("#void-ball", "4")
            text = await act("#void-send")
            assert "re-judged shot 2: Legal shot" in text, text
            await browser.wait_for("document.getElementById('pack-verdict').textContent.includes('(amended)')")
            await browser.choose("#foul-code", "double_hit")
            text = await act("#foul-send")
            assert "re-judged shot 2: Foul: the tip touched the cue ball twice, 001 2.1.22(9)" in text, text
            await browser.wait_for(
                "document.getElementById('pack-verdict').textContent.startsWith('Foul: the tip touched the cue ball')"
            )
            # Petrov played shot 2 (the break's pot, uncalled, did not count: 001 2.2.6) and fouled: Ivanov
            # orders him to play on (001 2.1.8).
            await browser.choose("#playon-player", "B")
            text = await act("#playon-send")
            assert text.startswith("Accepted: Petrov plays on → re-judged shot 2: Foul: "), text
            assert text.endswith(" · next: Petrov"), text
            await browser.choose("#rename-ball", "5")
            await browser.choose("#rename-to", "4")
            await act("#rename-send")
            await act("#cue-call-send")
            await act("#call-any")
            await browser.choose("#reorder-ball", "6")
            await act("#reorder-send")
            await browser.js("[...document.getElementById('third-balls').options].slice(0, 2)"
                             ".forEach((o) => { o.selected = true; }); true")  # fmt: skip
            await act("#third-send")
            await act("#placement-warning")
            await act("#rerack")
            text = await act("#publish-clip")
            assert text == "Published: the clip of shot 2 is open to anyone at /shots/1/clip"
            assert httpx.get(base + "/shots/1/clip", timeout=60).status_code == 200
            await browser.choose("#concede-player", "B")
            text = await act("#concede-send")
            assert text.startswith("Accepted: Petrov concedes the frame → frame to Ivanov · Ivanov 71 : "), text
            refusals = [r for r in results if ": Refused: " in r]
            assert refusals and all("line " not in r for r in refusals), refusals
            assert not any("russian71" in r for r in results), "the game by its name, not its code"
            assert any("Russian pyramid, 71 points has no call of the cue ball" in r for r in refusals)

            page = await browser.js("document.body.innerText")
            assert not TRACKER_ID.search(page) and "russian71" not in page
            protocol = httpx.get(base + "/protocol.html").text
            assert "Russian pyramid, 71 points" in protocol and "Ivanov" in protocol and "Petrov" in protocol
            await browser.call("Page.navigate", url="about:blank")

    try:
        asyncio.run(main())
    finally:
        print("\n".join(results))
        server.stop()
        svc.store.close()


async def _call_ball_labels(browser: Browser, base: str) -> list[str]:
    """The console's "call a ball" choices once shot 1 of three is open with its events."""
    await browser.call("Page.navigate", url=base + "/review")
    await browser.wait_for("document.querySelectorAll('#shots tbody tr').length === 3")
    await browser.click("#shots tbody tr[data-shot='1']")
    await browser.wait_for("document.getElementById('pack').dataset.shot === '1'")
    await browser.wait_for("document.querySelectorAll('#events tbody tr').length > 3")
    return await browser.js("[...document.getElementById('call-ball').options].map((o) => o.textContent)")


def test_console_names_balls_the_camera_could_not_number_by_where_they_lie(tmp_path, browser):
    """Moscow pyramid: the tracker cannot number the balls (tN); the console names them "a ball near ..."."""
    records = tracked(read_jsonl(DEMO / "truth" / "events.jsonl"))
    log = tmp_path / "moscow.jsonl"
    write_jsonl(log, records)
    with running_service(tmp_path, log, game="moscow") as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30)

        async def main():
            async with browser:
                labels = await _call_ball_labels(browser, base)
                assert len(labels) == len(set(labels)) > 5, labels
                assert all(label.startswith("A ball near the ") for label in labels), labels
                potted = await browser.js("document.getElementById('void-ball').options[0].textContent")
                assert potted == "A ball (potted)"
                page = await browser.js("document.body.innerText")
                assert "Moscow pyramid" in page and "moscow" not in page
                assert not TRACKER_ID.search(page), TRACKER_ID.search(page)
                assert "a ball into the left middle pocket" in page
                await browser.call("Page.navigate", url="about:blank")

        asyncio.run(main())


# A pool set's colours by number (1-8 solids, 9-15 stripes of the same colours): what the observer's colour
# words would be for a coloured set whose numbers the camera cannot read.
POOL_COLOURS = ["yellow", "blue", "red", "purple", "orange", "green", "maroon", "black"]


def test_overlay_and_console_name_coloured_balls_by_the_colour_a_viewer_sees(tmp_path, browser):
    """Moscow pyramid played with a coloured set: the camera cannot number the balls (tN) but sees their
    colours; the overlay's call and the console's controls and shot list name them by colour."""
    records = tracked(read_jsonl(DEMO / "truth" / "events.jsonl"))
    log = tmp_path / "moscow.jsonl"
    write_jsonl(log, records)
    looks = {f"t{n + 3}": POOL_COLOURS[(n - 1) % 8] for n in range(1, 16)}
    with running_service(tmp_path, log, game="moscow") as (svc, base):
        svc.match.note_looks(looks)

        async def main():
            async with browser:
                await browser.call("Page.navigate", url=base + "/overlay")
                await browser.wait_for("document.getElementById('status').textContent === 'live'")
                await browser.js(
                    "window.seen = []; new MutationObserver(() => window.seen.push(document.getElementById('verdict')"
                    ".textContent)).observe(document.getElementById('verdict'), {childList: true, subtree: true}); true"
                )
                svc.runner.start()
                assert svc.runner.join(30)
                # Shot 2 pots t7, ball 4 of the set (purple; 12 is a purple stripe): the overlay's call names it
                # as the viewer sees it.
                await browser.wait_for("window.seen.some((v) => v.startsWith('Counted: a purple ball'))")
                text = await browser.js("document.body.innerText")
                assert not TRACKER_ID.search(text), text

                labels = await _call_ball_labels(browser, base)
                assert labels and all(re.match(r"^(The|A|An) [a-z]+ ball near the ", x) for x in labels), labels
                assert any(x.startswith("The black ball near the ") for x in labels), labels  # the set's one black
                page = await browser.js("document.body.innerText")
                assert not TRACKER_ID.search(page), TRACKER_ID.search(page)
                assert "a purple ball into the left middle pocket" in page, page
                await browser.call("Page.navigate", url="about:blank")

        asyncio.run(main())
