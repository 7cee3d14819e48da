"""``tableref bench service``: the live service on the demo clip played as fast as possible.

Measures, in one command:
- end-to-end frames per second of the whole service (decode -> pipeline -> referee -> SQLite -> stream), and,
  as the baseline, of the same decode and pipeline with no service around them (the ratio is the service's
  cost);
- latency from the moment the video frame in which a pot becomes certain was read (the pipeline reports
  the pot while processing that frame) to the moment the pot's message reaches a WebSocket client, with 1
  and with 100 connected clients (median and 99th percentile over every client and run), and the same for
  every event as a larger sample.

The clients run in a separate process (``python -m api.bench.service --clients ...``) so they do not share
the service's interpreter; both sides stamp time with the system-wide monotonic clock.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

DEMO_DIR = Path(__file__).resolve().parent.parent / "data" / "demo"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clip", default=str(DEMO_DIR), help="synth scenario folder (default: the demo clip)")
    parser.add_argument("--clients", default="1,100", help="numbers of WebSocket clients (default 1,100)")
    parser.add_argument("--runs", type=int, default=3, help="runs per client count (default 3)")
    parser.add_argument("--out", default=None, help="folder for service.json and service-latency.svg")


@dataclass
class RunResult:
    clients: int
    frames: int
    wall_s: float
    dropped: int
    pot_latency_ms: list[float] = field(default_factory=list)  # from the pipeline taking the frame
    event_latency_ms: list[float] = field(default_factory=list)
    pot_from_read_ms: list[float] = field(default_factory=list)  # from the decoder reading it (queue wait too)

    @property
    def fps(self) -> float:
        return self.frames / self.wall_s


def _game(clip: Path) -> str:
    scen = clip / "truth" / "scenario.json"
    return str(json.loads(scen.read_text()).get("game", "moscow")) if scen.exists() else "moscow"


def pipeline_only_fps(clip: Path) -> tuple[float, int]:
    """Decode and run the pipeline with nothing else: the baseline."""
    from api.pipeline import Pipeline, video_frames
    from calibration.mapping import Calibration

    pipe = Pipeline(Calibration.load(clip / "camera.json"), game=_game(clip))
    cap = cv2.VideoCapture(str(clip / "video.mp4"))
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 25.0)
    start = time.monotonic()
    n = pipe.run(video_frames(cap), fps)
    wall = time.monotonic() - start
    cap.release()
    return n / wall, n


def one_run(clip: Path, clients: int) -> RunResult:
    from api.service.launch import BackgroundServer, build
    from api.service.settings import ServiceSettings
    from api.store import Message

    # seq -> (when its video frame was read, when the pipeline took that frame, event type)
    sent: dict[int, tuple[float, float, str]] = {}

    def on_step(frame: int, read_at: float, msgs: list[Message], started_at: float) -> None:
        for m in msgs:
            if m.kind == "event":
                sent[m.seq] = (read_at, started_at, str(m.data.get("type")))

    with tempfile.TemporaryDirectory(prefix="tableref-bench-") as tmp:
        settings = ServiceSettings.load({"db": Path(tmp) / "bench.db", "client_queue": 100_000}, env={})
        svc = build(str(clip), _game(clip), settings, fast=True, new_match=True, on_step=on_step)
        server = BackgroundServer(svc.app, "127.0.0.1", 0)
        port = server.start()
        out = Path(tmp) / "clients.json"
        proc = subprocess.Popen(
            [sys.executable, "-m", "api.bench.service", "--clients-process", f"ws://127.0.0.1:{port}/ws",
             str(clients), str(out)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert proc.stdout is not None and proc.stdin is not None
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError("the benchmark's clients did not connect")
            deadline = time.monotonic() + 30
            while svc.match.hub.client_count < clients and time.monotonic() < deadline:
                time.sleep(0.01)
            start = time.monotonic()
            svc.runner.start()
            svc.runner.join()
            wall = time.monotonic() - start
            if svc.runner.stats.error:
                raise RuntimeError(svc.runner.stats.error)
            final = svc.store.last_seq(svc.match.match_id)
            proc.stdin.write(f"{final}\n")
            proc.stdin.flush()
            proc.wait(120)
            recs = json.loads(out.read_text())
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            server.stop()
            svc.store.close()
    result = RunResult(clients, svc.runner.stats.frames_processed, wall, svc.runner.stats.frames_dropped)
    for conn in recs:
        for seq, t in conn:
            if seq in sent:
                read_at, started_at, kind = sent[seq]
                ms = (t - started_at) * 1000.0
                result.event_latency_ms.append(ms)
                if kind == "pot":
                    result.pot_latency_ms.append(ms)
                    result.pot_from_read_ms.append((t - read_at) * 1000.0)
    return result


# ---- the clients' process ---------------------------------------------------------------------------------
async def _clients(url: str, n: int, out: Path) -> None:
    import websockets

    recs: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    connected = 0

    async def one(i: int) -> None:
        nonlocal connected
        async with websockets.connect(url, max_size=None) as ws:
            connected += 1
            async for raw in ws:
                now = time.monotonic()
                text = raw if isinstance(raw, str) else raw.decode()
                recs[i].append((int(text[7 : text.index(",")]), now))  # '{"seq":N,...'

    tasks = [asyncio.create_task(one(i)) for i in range(n)]
    while connected < n:
        await asyncio.sleep(0.01)
    print("ready", flush=True)
    final = int(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))
    deadline = time.monotonic() + 60
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
    base_fps, frames = pipeline_only_fps(clip)
    results: dict[int, list[RunResult]] = {n: [one_run(clip, n) for _ in range(args.runs)] for n in counts}
    print(f"service benchmark: {clip.name} ({frames} frames), played as fast as possible, {args.runs} runs each")
    print(f"baseline (decode + pipeline only): {base_fps:.1f} fps")
    print()
    head = (
        f"{'clients':>7} | {'fps (median)':>12} | {'vs baseline':>11} | {'dropped':>7} | {'pots':>4} | "
        f"{'pot p50 ms':>10} | {'pot p99 ms':>10} | {'events':>6} | {'event p50 ms':>12} | {'event p99 ms':>12} | "
        f"{'pot p50 from decode':>19}"
    )
    print(head)
    print("-" * len(head))
    summary: dict[str, Any] = {"clip": str(clip), "frames": frames, "baseline_fps": base_fps, "rows": []}
    series: dict[str, list[float]] = {}
    for n, runs in results.items():
        fps = float(np.median([r.fps for r in runs]))
        pots = [v for r in runs for v in r.pot_latency_ms]
        evs = [v for r in runs for v in r.event_latency_ms]
        dropped = sum(r.dropped for r in runs)
        from_read = [v for r in runs for v in r.pot_from_read_ms]
        print(f"{n:>7} | {fps:>12.1f} | {fps / base_fps:>10.2f}x | {dropped:>7} | {len(pots):>4} | "
              f"{_pct(pots, 50):>10.1f} | {_pct(pots, 99):>10.1f} | {len(evs):>6} | {_pct(evs, 50):>12.1f} | "
              f"{_pct(evs, 99):>12.1f} | {_pct(from_read, 50):>19.1f}")  # fmt: skip
        summary["rows"].append({
            "clients": n, "fps": fps, "ratio_to_baseline": fps / base_fps, "frames_dropped": dropped,
            "pot_samples": len(pots), "pot_p50_ms": _pct(pots, 50), "pot_p99_ms": _pct(pots, 99),
            "event_samples": len(evs), "event_p50_ms": _pct(evs, 50), "event_p99_ms": _pct(evs, 99),
            "pot_p50_from_decode_ms": _pct(from_read, 50),
        })  # fmt: skip
        series[f"pots, {n} client{'s' if n > 1 else ''}"] = pots
        series[f"all events, {n}"] = evs
    print()
    print("latency: from the pipeline taking the video frame in which the event became certain (the pot is")
    print("reported while that frame is processed) to the event's arrival at a WebSocket client; samples are per")
    print("client, so 100 clients give 100 samples per pot. 'from decode' adds the frame's wait in the decode queue,")
    print("which a file played as fast as possible keeps full (a live camera at real time keeps it near empty).")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "service.json").write_text(json.dumps(summary, indent=2))
        (out / "service-latency.svg").write_text(latency_svg(series, "Stream latency, demo clip played fast"))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--clients-process":
        asyncio.run(_clients(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])))
    else:
        print("usage: tableref bench service", file=sys.stderr)
        raise SystemExit(2)
