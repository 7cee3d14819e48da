"""``tableref referee --game GAME EVENTS.jsonl``: events plus operator inputs to verdicts on stdout.

One JSON object per shot (docs/CONTRACT.md section 4), printed once the verdict is final (the next stroke
started, or the stream ended), so late operator inputs and hanging balls are already in it.

A record the referee refuses where it stands (a ``play_on`` with no foul pending, a call in a game without
calls, a camera record outside any shot...) is reported on stderr in one line naming the line and the
reason, noted on the verdict of the shot it named, and the run goes on, as the live service answers such
an input with 409 and goes on. A shot of which nothing could be placed (its ``shot_start`` refused) is not
judged, and stderr says so at its ``shot_end``. A camera record the shot cannot place (a ball not on the
table) does not stop anything: the shot is judged on the rest, flagged ``review``. A malformed line stops
the run with an error naming it; every verdict before it has been printed and flushed.
"""

from __future__ import annotations

import argparse
import sys

from api.cli_types import GAME_HELP
from calibration.contract import GAMES
from rules.referee import referee_lines
from rules.registry import game_class


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("events", help="events.jsonl (camera events and operator inputs); '-' for stdin")
    parser.add_argument("--game", required=True, choices=GAMES, metavar="GAME", help=GAME_HELP)
    parser.add_argument("--frames-to-win", type=int, default=1, help="best-of-N match: frames needed to win")


def run(args: argparse.Namespace) -> int:
    game_class(args.game)  # unknown game: a clear error before reading anything
    stream = sys.stdin if args.events == "-" else open(args.events, encoding="utf-8")  # noqa: SIM115
    try:

        def refused(line: int, message: str) -> None:
            sys.stderr.write(f"tableref referee: {message}\n")
            sys.stderr.flush()

        for verdict in referee_lines(args.game, stream, frames_to_win=args.frames_to_win, on_refused=refused):
            sys.stdout.write(verdict.to_json() + "\n")
            sys.stdout.flush()
    finally:
        sys.stdout.flush()
        if stream is not sys.stdin:
            stream.close()
    return 0
