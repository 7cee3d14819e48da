"""``tableref referee --game GAME EVENTS.jsonl``: events plus operator inputs to verdicts on stdout.

One JSON object per shot (docs/CONTRACT.md section 4), printed once the verdict is final (the next stroke
started, or the stream ended), so late operator inputs and hanging balls are already in it. A bad line
(malformed record, event for a ball not on the table, a ball potted twice...) stops the run with an error
naming the line; every verdict before it has been printed and flushed.
"""

from __future__ import annotations

import argparse
import sys

from api.cli_types import GAME_HELP
from rules.referee import referee_lines
from rules.registry import game_class
from tracking.events import GAMES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("events", help="events.jsonl (camera events and operator inputs); '-' for stdin")
    parser.add_argument("--game", required=True, choices=GAMES, metavar="GAME", help=GAME_HELP)
    parser.add_argument("--frames-to-win", type=int, default=1, help="best-of-N match: frames needed to win")


def run(args: argparse.Namespace) -> int:
    game_class(args.game)  # unknown game: a clear error before reading anything
    stream = sys.stdin if args.events == "-" else open(args.events, encoding="utf-8")  # noqa: SIM115
    try:
        for verdict in referee_lines(args.game, stream, frames_to_win=args.frames_to_win):
            sys.stdout.write(verdict.to_json() + "\n")
            sys.stdout.flush()
    finally:
        sys.stdout.flush()
        if stream is not sys.stdin:
            stream.close()
    return 0
