"""``tableref bench service``: the live service on the demo clip played at its real frame rate, as a camera
would deliver it, with 1, 10 and 100 stream clients on 127.0.0.1.

What is measured, per number of clients:
- **pot-to-client latency**. A pot *becomes certain* in the video frame whose processing makes the pipeline
  emit the ``pot`` event (often some frames after the ball dropped: the tracker waits until the ball is
  surely gone); the clock starts when that frame was handed over by the source (``read_at``: at real-time
  pace, the moment a live camera would have delivered it) and stops when the pot's message arrives at a
  client. One sample per pot and client; median and 99th percentile over all of them. Also shown: how long
  after the ball's own frame the pot became certain (``decided``, frames / fps), which the stream cannot
  shorten.
- **server memory**: the largest resident set size of the process that serves (decoder, pipeline, referee,
  SQLite, uvicorn and the stream), sampled every 100 ms during the run; and the same before the run.
- the frames the real-time source had to drop because the pipeline fell behind, and the clients dropped for
  falling behind (both should be 0).

Clients alternate between WebSocket (``/ws``) and server-sent events (``/events``); they run in a separate
process (``python -m api.bench.service --clients-process ...``) so they do not share the server's interpreter;
both sides stamp time with the system-wide monotonic clock. ``--fast`` plays the clip as fast as possible
instead and adds the service's frame rate against decode-and-pipeline alone.

Every wait is bounded (the source: three times the clip's length plus a minute; the clients: a minute after
the last message), so the benchmark ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

DEMO_DIR = Path(__file__).resolve().parent.parent / "data" / "demo"
CLIENT_WAIT_S = 60.0  # how long the clients may take to receive the last message after the source ends


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clip", default=str(DEMO_DIR), help="synth scenario folder (default: the demo clip)")
    parser.add_argument("--clients", default="1,10,100", help="numbers of stream clients (default 1,10,100)")
    parser.add_argument("--runs", type=int, default=1, help="runs per client count (default 1)")
    parser.add_argument("--fast", action="store_true", help="play the clip as fast as possible, not in real time")
    parser.add_argument("--out", default=None, help="folder for service.json and service-latency.svg")


@dataclass
class RunResult:
    clients: int
    frames: int
    wall_s: float
    frames_dropped: int
    clients_dropped: int
    rss_before_mb: float
    rss_peak_mb: float
    pots: int = 0
    pot_latency_ms: list[float] = field(default_factory=list)  # from the source handing over the frame
    pot_from_pipeline_ms: list[float] = field(default_factory=list)  # from the pipeline taking that frame
    pot_stream_ms: list[float] = field(default_factory=list)  # from the commit and hand-over to the stream
    pot_before_stream_ms: list[float] = field(default_factory=list)  # read_at -> handed to the stream (per pot)
    pot_queue_ms: list[float] = field(default_factory=list)  # read_at -> the pipeline took the frame (per pot)
    event_latency_ms: list[float] = field(default_factory=list)  # every camera event, from read_at
    decided_ms: list[float] = field(default_factory=list)  # pot certain: emitting frame - the pot's own frame
    missing: int = 0  # pot messages some client never received

    @property
    def fps(self) -> float:
        return self.frames / self.wall_s if self.wall_s > 0 else float("nan")


def _game(clip: Path) -> str:
    scen = clip / "truth" / "scenario.json"
    return str(json.loads(scen.read_text()).get("game", "moscow")) if scen.exists() else "moscow"


def _clip_info(clip: Path) -> tuple[float, int]:
    cap = cv2.VideoCapture(str(clip / "video.mp4"))
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 25.0)
    frames = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    cap.release()
    return fps, frames


def rss_mb() -> float:
    """The resident set size of this process (Linux /proc; NaN elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


class _RssSampler(threading.Thread):
    def __init__(self, every: float = 0.1) -> None:
        super().__init__(daemon=True, name="rss-sampler")
        self.every = every
        self.peak = rss_mb()
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(self.every):
            self.peak = max(self.peak, rss_mb())

    def stop(self) -> float:
        self._halt.set()
        self.join(2)
        return max(self.peak, rss_mb())


def pipeline_only_fps(clip: Path) -> tuple[float, int]:
    """Decode and run the pipeline with nothing else: the baseline of ``--fast``."""
    from api.pipeline import Pipeline, video_frames
    from calibration.mapping import Calibration

    cap = cv2.VideoCapture(str(clip / "video.mp4"))
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 25.0)
    pipe = Pipeline(Calibration.load(clip / "camera.json"), game=_game(clip), fps=fps)
    start = time.monotonic()
    n = pipe.run(video_frames(cap), fps)
    wall = time.monotonic() - start
    cap.release()
    return n / wall, n


def one_run(clip: Path, clients: int, *, fast: bool) -> RunResult:
    from api.service.launch import BackgroundServer, build
    from api.service.settings import ServiceSettings
    from api.store import Message

    fps, frame_count = _clip_info(clip)
    # seq -> (when the source handed over the frame, when the pipeline took it, type, frames since the
    # event's own frame)
    sent: dict[int, tuple[float, float, str, int]] = {}
    published: dict[int, float] = {}  # seq -> when the committed message was handed to the stream hub

    def on_step(frame: int, read_at: float, msgs: list[Message], started_at: float) -> None:
        for m in msgs:
            if m.kind == "event":
                own = m.data.get("frame")
                lag = frame - int(own) if isinstance(own, int) else 0
                sent[m.seq] = (read_at, started_at, str(m.data.get("type")), lag)

    with tempfile.TemporaryDirectory(prefix="tableref-bench-") as tmp:
        conf = {"db": Path(tmp) / "bench.db", "max_clients": max(500, 2 * clients)}
        settings = ServiceSettings.load(conf, env={"TABLEREF_OPERATOR_TOKEN": os.urandom(16).hex()})
        svc = build(str(clip), _game(clip), settings, fast=fast, new_match=True, on_step=on_step)
        hub_publish = svc.match.hub.publish

        def stamped_publish(msgs: Any) -> None:
            now = time.monotonic()
            for m in msgs:
                published[m.seq] = now
            hub_publish(msgs)

        svc.match.hub.publish = stamped_publish  # type: ignore[method-assign]
        server = BackgroundServer(svc.app, "127.0.0.1", 0)
        port = server.start()
        out = Path(tmp) / "clients.json"
        proc = subprocess.Popen(
            [sys.executable, "-m", "api.bench.service", "--clients-process", f"http://127.0.0.1:{port}",
             str(clients), str(out)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        rss_before = rss_mb()
        sampler = _RssSampler()
        try:
            assert proc.stdout is not None and proc.stdin is not None
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError("the benchmark's clients did not connect")
            deadline = time.monotonic() + 30
            while svc.match.hub.client_count < clients and time.monotonic() < deadline:
                time.sleep(0.01)
            sampler.start()
            start = time.monotonic()
            svc.runner.start()
            if not svc.runner.join(3 * frame_count / fps + 60):
                svc.runner.stop()
                raise RuntimeError("the source did not finish within three times the clip's length")
            wall = time.monotonic() - start
            if svc.runner.stats.error:
                raise RuntimeError(svc.runner.stats.error)
            final = svc.store.last_seq(svc.match.match_id)
            proc.stdin.write(f"{final}\n")
            proc.stdin.flush()
            proc.wait(CLIENT_WAIT_S + 30)
            recs: list[list[list[float]]] = json.loads(out.read_text())
        finally:
            peak = sampler.stop() if sampler.is_alive() else rss_mb()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            dropped_clients = svc.match.hub.dropped_clients
            svc.runner.stop()
            server.stop()
            svc.store.close()
    stats = svc.runner.stats
    result = RunResult(clients, stats.frames_processed, wall, stats.frames_dropped, dropped_clients, rss_before, peak)
    pot_seqs = {seq for seq, v in sent.items() if v[2] == "pot"}
    result.pots = len(pot_seqs)
    result.decided_ms = [sent[s][3] / fps * 1000.0 for s in sorted(pot_seqs)]
    result.pot_before_stream_ms = [(published[s] - sent[s][0]) * 1000.0 for s in sorted(pot_seqs)]
    result.pot_queue_ms = [(sent[s][1] - sent[s][0]) * 1000.0 for s in sorted(pot_seqs)]
    for conn in recs:
        got = set()
        for seq_f, t in conn:
            seq = int(seq_f)
            if seq not in sent:
                continue
            read_at, started_at, kind, _ = sent[seq]
            result.event_latency_ms.append((t - read_at) * 1000.0)
            if kind == "pot":
                got.add(seq)
                result.pot_latency_ms.append((t - read_at) * 1000.0)
                result.pot_from_pipeline_ms.append((t - started_at) * 1000.0)
                result.pot_stream_ms.append((t - published[seq]) * 1000.0)
        result.missing += len(pot_seqs - got)
    return result


# ---- the clients' process ---------------------------------------------------------------------------------
async def _clients(base: str, n: int, out: Path) -> None:
    import httpx
    import websockets

    recs: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    connected = 0

    async def ws_client(i: int) -> None:
        nonlocal connected
        async with websockets.connect(base.replace("http://", "ws://") + "/ws", max_size=None) as ws:
            connected += 1
            async for raw in ws:
                now = time.monotonic()
                text = raw if isinstance(raw, str) else raw.decode()
                recs[i].append((int(text[7 : text.index(",")]), now))  # '{"seq":N,...'

    async def sse_client(i: int, client: httpx.AsyncClient) -> None:
        nonlocal connected
        async with client.stream("GET", base + "/events") as resp:
            if resp.status_code != 200:
                raise RuntimeError(f"/events answered {resp.status_code}")
            connected += 1
            async for line in resp.aiter_lines():
                if line.startswith("id: "):
                    recs[i].append((int(line[4:]), time.monotonic()))

    limits = httpx.Limits(max_connections=n + 10, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=httpx.Timeout(10.0, read=None), limits=limits) as client:
        # Alternate: WebSocket first (a single client is a WebSocket one), then SSE.
        tasks = [asyncio.create_task(ws_client(i) if i % 2 == 0 else sse_client(i, client)) for i in range(n)]
        deadline = time.monotonic() + 30
        while connected < n:
            failed = [t for t in tasks if t.done() and t.exception() is not None]
            if failed or time.monotonic() > deadline:
                print(f"failed: {failed[0].exception() if failed else 'timeout'}", flush=True)
                return
            await asyncio.sleep(0.01)
        print("ready", flush=True)
        final = int(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))
        deadline = time.monotonic() + CLIENT_WAIT_S
        while any(not r or r[-1][0] < final for r in recs) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    out.write_text(json.dumps(recs))


# ---- reporting ---------------------------------------------------------------------------------------------
def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def latency_svg(series: dict[str, list[float]], title: str) -> str:
    """Cumulative distribution of latencies (ms), one line per series, as a standalone SVG."""
    w, h, left, bottom, top, right = 640, 360, 60, 40, 30, 150
    all_v = [v for vs in series.values() for v in vs]
    xmax = max(_pct(all_v, 99.5), 1.0) if all_v else 1.0
    colours = ["#1d7a3a", "#b3261e", "#2b5fb3", "#b38a2b"]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="14">{title}</text>',
        f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
    ]
    pw, ph = w - left - right, h - top - bottom
    for k in range(6):
        xv = xmax * k / 5
        x = left + pw * k / 5
        parts.append(f'<text x="{x:.0f}" y="{h - bottom + 16}" text-anchor="middle">{xv:.0f}</text>')
        y = h - bottom - ph * k / 5
        parts.append(f'<text x="{left - 6}" y="{y + 4:.0f}" text-anchor="end">{k * 20}%</text>')
    parts.append(f'<text x="{left + pw / 2:.0f}" y="{h - 6}" text-anchor="middle">latency (ms)</text>')
    for i, (name, vs) in enumerate(series.items()):
        if not vs:
            continue
        v = np.sort(np.asarray(vs))
        frac = np.arange(1, len(v) + 1) / len(v)
        pts = " ".join(
            f"{left + pw * min(x / xmax, 1.0):.1f},{h - bottom - ph * f:.1f}" for x, f in zip(v, frac, strict=True)
        )
        c = colours[i % len(colours)]
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"/>')
        parts.append(f'<text x="{w - right + 10}" y="{top + 16 * (i + 1)}" fill="{c}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    clip = Path(args.clip)
    counts = [int(c) for c in str(args.clients).split(",") if c.strip()]
    fps, frames = _clip_info(clip)
    base_fps = pipeline_only_fps(clip)[0] if args.fast else float("nan")
    results: dict[int, list[RunResult]] = {n: [one_run(clip, n, fast=args.fast) for _ in range(args.runs)]
                                           for n in counts}  # fmt: skip
    pace = "as fast as possible" if args.fast else f"in real time ({fps:g} fps)"
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"service benchmark: {clip.name} ({frames} frames), played {pace}, {args.runs} run(s) each, "
          f"{os.cpu_count()} CPU cores (load average now {load}); clients alternate WebSocket and SSE on "
          "127.0.0.1")  # fmt: skip
    if args.fast:
        print(f"baseline (decode + pipeline only): {base_fps:.1f} fps")
    print()
    head = (
        f"{'clients':>7} | {'pots':>4} | {'pot p50 ms':>10} | {'pot p99 ms':>10} | {'pot max ms':>10} | "
        f"{'missing':>7} | {'queue ms':>8} | {'to stream ms':>12} | {'stream p50 ms':>13} | {'stream p99 ms':>13} | "
        f"{'event p50 ms':>12} | {'event p99 ms':>12} | {'decided ms':>10} | "
        f"{'RSS MB':>6} | {'RSS peak MB':>11} | {'frames dropped':>14} | {'clients dropped':>15} | {'fps':>5}"
    )
    print(head)
    print("-" * len(head))
    summary: dict[str, Any] = {"clip": str(clip), "frames": frames, "clip_fps": fps, "real_time": not args.fast,
                               "baseline_fps": base_fps, "rows": []}  # fmt: skip
    series: dict[str, list[float]] = {}
    for n, runs in results.items():
        pots = [v for r in runs for v in r.pot_latency_ms]
        evs = [v for r in runs for v in r.event_latency_ms]
        decided = [v for r in runs for v in r.decided_ms]
        row = {
            "clients": n, "pots": sum(r.pots for r in runs), "pot_samples": len(pots),
            "pot_p50_ms": _pct(pots, 50), "pot_p99_ms": _pct(pots, 99), "pot_max_ms": max(pots, default=float("nan")),
            "missing": sum(r.missing for r in runs),
            "queue_ms": _pct([v for r in runs for v in r.pot_queue_ms], 50),
            "to_stream_ms": _pct([v for r in runs for v in r.pot_before_stream_ms], 50),
            "stream_p50_ms": _pct([v for r in runs for v in r.pot_stream_ms], 50),
            "stream_p99_ms": _pct([v for r in runs for v in r.pot_stream_ms], 99),
            "event_p50_ms": _pct(evs, 50), "event_p99_ms": _pct(evs, 99),
            "decided_ms": _pct(decided, 50), "rss_before_mb": float(np.median([r.rss_before_mb for r in runs])),
            "rss_peak_mb": max(r.rss_peak_mb for r in runs), "frames_dropped": sum(r.frames_dropped for r in runs),
            "clients_dropped": sum(r.clients_dropped for r in runs), "fps": float(np.median([r.fps for r in runs])),
            "pot_p50_from_pipeline_ms": _pct([v for r in runs for v in r.pot_from_pipeline_ms], 50),
        }  # fmt: skip
        summary["rows"].append(row)
        print(f"{n:>7} | {row['pots']:>4} | {row['pot_p50_ms']:>10.1f} | {row['pot_p99_ms']:>10.1f} | "
              f"{row['pot_max_ms']:>10.1f} | {row['missing']:>7} | {row['queue_ms']:>8.1f} | "
              f"{row['to_stream_ms']:>12.1f} | "
              f"{row['stream_p50_ms']:>13.1f} | {row['stream_p99_ms']:>13.1f} | {row['event_p50_ms']:>12.1f} | "
              f"{row['event_p99_ms']:>12.1f} | {row['decided_ms']:>10.0f} | {row['rss_before_mb']:>6.0f} | "
              f"{row['rss_peak_mb']:>11.0f} | {row['frames_dropped']:>14} | {row['clients_dropped']:>15} | "
              f"{row['fps']:>5.1f}")  # fmt: skip
        series[f"pots, {n} client{'s' if n > 1 else ''}"] = pots
    print()
    print("pot latency: from the source handing over the video frame in which the pot became certain (the frame")
    print("whose processing emitted the pot event) to the pot's message arriving at a client; one sample per pot")
    print("and client. 'decided': median time from the ball's own frame to that frame (the tracker's wait, not")
    print("the stream's). 'to stream': median, per pot, from that frame's hand-over to the pot's message being")
    print("stored and handed to the stream (queue wait + pipeline + referee + SQLite), of which 'queue' is the")
    print("frame's wait for the pipeline; 'stream': from there to the client (fan-out, uvicorn, the socket, the")
    print("client's parsing). RSS: the serving process before the run and its peak during it. 'fps': frames")
    print("processed per second of the run (real time is the clip's fps).")
    if args.fast:
        ratios = ", ".join(f"{row['fps'] / base_fps:.2f}x" for row in summary["rows"])
        print(f"fps against the decode + pipeline baseline: {ratios}")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "service.json").write_text(json.dumps(summary, indent=2))
        (out / "service-latency.svg").write_text(latency_svg(series, f"Pot to client latency, demo clip {pace}"))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--clients-process":
        asyncio.run(_clients(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])))
    else:
        print("usage: tableref bench service", file=sys.stderr)
        raise SystemExit(2)
