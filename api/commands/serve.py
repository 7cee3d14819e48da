"""``tableref serve``: the live service over a camera, a stream URL, a video file or a recorded event log."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time

import uvicorn

from api.cli_types import GAME_HELP
from api.service.launch import build
from api.service.settings import ServiceSettings
from calibration.contract import GAMES


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--source",
        default="0",
        help="camera index (0 is the first camera), stream URL, video file, synth scenario folder, or an "
        "events.jsonl to replay",
    )
    p.add_argument("--game", default="russian71", choices=GAMES, metavar="GAME", help=GAME_HELP)
    p.add_argument(
        "--calibration", metavar="FILE", help="calibration JSON (tableref calibrate); needed for a camera or a video"
    )
    p.add_argument("--fast", action="store_true", help="play a file as fast as possible, not at its frame rate")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--db", default=None, help="SQLite file of the match record (default tableref.db)")
    p.add_argument("--player-a", default=None, metavar="NAME", help="player A's name (default: $TABLEREF_PLAYER_A)")
    p.add_argument("--player-b", default=None, metavar="NAME", help="player B's name (default: $TABLEREF_PLAYER_B)")
    p.add_argument("--new-match", action="store_true", help="start a new match, not resume one")
    p.add_argument("--exit-when-done", action="store_true", help="stop serving once the source has ended")


def settings_from(args: argparse.Namespace) -> ServiceSettings:
    return ServiceSettings.load({
        "host": args.host, "port": args.port, "db": args.db, "player_a": args.player_a, "player_b": args.player_b,
    })  # fmt: skip


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    svc = build(args.source, args.game, settings, calibration=args.calibration, fast=args.fast,
                new_match=args.new_match)  # fmt: skip
    config = uvicorn.Config(svc.app, host=settings.host, port=settings.port, log_level="warning")
    server = uvicorn.Server(config)
    state = "resumed" if svc.match.resumed else "new"
    print(f"tableref serve: match {svc.match.match_id} ({state}) · {args.game} · source {svc.runner.source.location}",
          file=sys.stderr)  # fmt: skip
    cal = svc.match.calibration
    said = cal.get("pose") or cal.get("detail") or cal.get("file")
    print(f"tableref serve: calibration {cal.get('status')}{f' ({said})' if said else ''}", file=sys.stderr)

    def announce() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.02)
        if not server.started:
            return
        port = server.servers[0].sockets[0].getsockname()[1] if server.servers else settings.port
        base = f"http://{settings.host}:{port}"
        print(f"tableref serve: overlay {base}/overlay · review {base}/review · API {base}/api · stream {base}/ws",
              file=sys.stderr, flush=True)  # fmt: skip

    threading.Thread(target=announce, daemon=True).start()
    svc.runner.start()
    if args.exit_when_done:

        def stop_when_done() -> None:
            svc.runner.join()
            server.should_exit = True

        threading.Thread(target=stop_when_done, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "should_exit", True))
    try:
        server.run()
    finally:
        svc.runner.stop()
        svc.store.close()
    if svc.runner.stats.warning:
        print(f"tableref serve: warning: {svc.runner.stats.warning}", file=sys.stderr)
    if svc.runner.stats.error:
        print(f"tableref serve: source stopped: {svc.runner.stats.error}", file=sys.stderr)
        return 1
    return 0
