"""``tableref demo``: the main job with zero set-up on the bundled clip (api/data/demo): observe it through
the full pipeline, referee it, print each event and verdict as it happens under a progress bar, and serve
the overlay and review pages on 127.0.0.1."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from api.console_text import MatchText
from api.names import score_text
from api.runner import SourceError
from api.service.launch import BackgroundServer, build
from api.service.settings import ServiceSettings
from api.store import Message

DEMO_DIR = Path(__file__).resolve().parent.parent / "data" / "demo"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fast", action="store_true", help="play the clip as fast as possible, not in real time")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; a free one if that is taken)")
    p.add_argument("--no-serve", action="store_true", help="only observe and referee; no web pages")
    p.add_argument("--exit-after", type=float, default=None, metavar="S",
                   help="stop S seconds after the clip ends (default: serve until Ctrl+C)")  # fmt: skip
    p.add_argument("--db", default=None, help="keep the match record in this SQLite file (default: a temp file)")
    p.add_argument("--players", default=None, metavar="A,B",
                   help="the players' names, e.g. 'Ivanov,Petrov' (default: Player A, Player B)")  # fmt: skip
    p.add_argument("--replay-truth", action="store_true",
                   help="replay the clip's recorded true events instead of observing the video")  # fmt: skip


class Printer:
    """Events and verdicts as lines on stdout, a progress bar on stderr below them."""

    def __init__(
        self, total_frames: int | None, out: TextIO = sys.stdout, bar: TextIO = sys.stderr,
        text: MatchText | None = None,
    ) -> None:  # fmt: skip
        self.text = text or MatchText()
        self.total = total_frames
        self.out = out
        self.bar = bar
        self.frame = 0
        self._lock = threading.Lock()
        self._bar_shown = False

    def record(self, msg: Message) -> None:
        with self._lock:
            lines = self.text.lines(msg.kind, msg.data)
            if not lines:
                return
            self._clear_bar()
            for line in lines:
                print(line, file=self.out, flush=True)
            self._draw_bar()

    def progress(self, frame: int, *_: Any) -> None:
        self.frame = frame
        with self._lock:
            self._draw_bar()

    def done(self) -> None:
        with self._lock:
            self._draw_bar()
            if self._bar_shown:
                print(file=self.bar, flush=True)
            self._bar_shown = False

    def _clear_bar(self) -> None:
        if self._bar_shown and self.bar.isatty():
            print("\r\033[K", end="", file=self.bar, flush=True)

    def _draw_bar(self) -> None:
        if not self.bar.isatty():
            return
        total = self.total or max(self.frame + 1, 1)
        frac = min((self.frame + 1) / total, 1.0)
        filled = int(frac * 30)
        print(f"\r[{'#' * filled}{'.' * (30 - filled)}] {100 * frac:5.1f}% frame {self.frame + 1}/{total}",
              end="", file=self.bar, flush=True)  # fmt: skip
        self._bar_shown = True


def run(args: argparse.Namespace) -> int:
    if not (DEMO_DIR / "video.mp4").exists():
        raise SourceError(f"the demo clip is missing from {DEMO_DIR}")
    scenario = json.loads((DEMO_DIR / "truth" / "scenario.json").read_text())
    game = str(scenario.get("game", "moscow"))
    tmp = tempfile.TemporaryDirectory(prefix="tableref-demo-")
    db = Path(args.db) if args.db else Path(tmp.name) / "demo.db"
    token = secrets.token_urlsafe(16)
    names = [n.strip() for n in (args.players or "").split(",")] if args.players else []
    if args.players and (len(names) != 2 or not all(names)):
        raise SourceError(
            f"--players takes two names separated by a comma, e.g. 'Ivanov,Petrov' (got {args.players!r})"
        )
    players = {"player_a": names[0], "player_b": names[1]} if names else {}
    settings = ServiceSettings.load({"db": db, "host": args.host, "port": args.port, **players}, env={})
    settings = settings.model_copy(update={"operator_token": token})
    source = str(DEMO_DIR / "truth" / "events.jsonl") if args.replay_truth else str(DEMO_DIR)
    try:
        svc = build(source, game, settings, fast=args.fast, new_match=True)
    except SourceError as exc:
        if args.replay_truth:
            raise
        print(f"tableref demo: {exc}; replaying the clip's true events instead", file=sys.stderr)
        svc = build(str(DEMO_DIR / "truth" / "events.jsonl"), game, settings, fast=args.fast, new_match=True)
    total = int(scenario.get("duration_s", 0) * scenario.get("fps", 25)) or None
    printer = Printer(total, text=MatchText(svc.match.state()["players"], game))
    svc.runner.on_record = printer.record
    svc.runner.on_step = printer.progress
    server = None
    if not args.no_serve:
        server = BackgroundServer(svc.app, args.host, args.port)
        try:
            port = server.start()
        except OSError:
            server = BackgroundServer(svc.app, args.host, 0)
            port = server.start()
        base = f"http://{args.host}:{port}"
        print(f"tableref demo: {game} on the bundled clip · overlay {base}/overlay · review {base}/review · "
              f"API {base}/api", file=sys.stderr, flush=True)  # fmt: skip
        print(f"tableref demo: operator token for POST {base}/inputs: {token}", file=sys.stderr, flush=True)
    kind = "observing the video" if svc.runner.source.kind == "file" else "replaying the recorded events"
    print(f"tableref demo: {kind} ({'as fast as possible' if args.fast else 'in real time'})", file=sys.stderr)
    started = time.monotonic()
    svc.runner.start()
    printer.total = svc.runner.frame_count or total
    try:
        svc.runner.join()
        printer.done()
        stats = svc.runner.stats.to_dict()
        state = svc.match.state()
        print(f"tableref demo: done in {time.monotonic() - started:.1f} s · {stats['frames_processed']} frames "
              f"({stats['fps']} fps, {stats['frames_dropped']} dropped) · {stats['events']} records · "
              f"score {score_text(state['score'], state['players'])}", file=sys.stderr)  # fmt: skip
        if stats["error"]:
            print(f"tableref demo: the source stopped: {stats['error']}", file=sys.stderr)
            return 1
        if server is not None:
            if args.exit_after is None:
                print("tableref demo: still serving; Ctrl+C to stop", file=sys.stderr, flush=True)
                while True:
                    time.sleep(3600)
            time.sleep(max(args.exit_after, 0.0))
        return 0
    finally:
        svc.runner.stop()
        if server is not None:
            server.stop()
        svc.store.close()
        tmp.cleanup()
