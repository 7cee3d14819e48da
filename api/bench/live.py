"""``tableref bench live``: an observer behind a live camera.

A live camera sends its frames whether or not the observer is ready; the service keeps the newest few in a
queue (``frame_queue``: 8 by default) and drops the oldest when it is full, so an observer slower than the camera
skips frames. This benchmark plays a clip as such a camera at each ``--fps`` (default the clip's own rate and six
times it) into a queue of each ``--queue`` size (default 1 and the service's 8): each step of the pipeline is
timed, and the next frame it gets is the oldest the queue still holds by then.

Prints per run the frames processed of the clip's, the slowest frame after the first (the first builds the
detector's maps), the shots opened and the pots found, then the medians over ``--repeats`` runs. A referee needs
the stroke and the pots seen: an observer that falls further behind the longer a shot runs loses them.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from api.capture import open_video
from api.pipeline import Pipeline, video_frames
from api.runner import FRAME_QUEUE
from calibration.contract import GAMES
from calibration.mapping import Calibration

REPO = Path(__file__).resolve().parent.parent.parent
DEMO = REPO / "api" / "data" / "demo"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clip", default=str(DEMO / "video.mp4"), help="a video (default: the demo clip)")
    parser.add_argument("--calibration", default=str(DEMO / "camera.json"), help="its calibration JSON")
    parser.add_argument("--fps", default=None, help="camera rates, comma separated (default: the clip's and 6x)")
    parser.add_argument("--game", default="moscow", choices=GAMES, metavar="GAME", help="game (default moscow)")
    parser.add_argument("--queue", default=f"1,{FRAME_QUEUE}", help=f"queue sizes (default 1,{FRAME_QUEUE})")
    parser.add_argument("--repeats", type=int, default=3, help="runs at each rate and size (default 3)")


def next_frame(index: int, done_at_s: float, fps: float, queue: int = 1) -> int:
    """The frame an observer that finished frame ``index`` at ``done_at_s`` (the camera's clock, its frame k
    sent at k / fps) takes next from a queue of ``queue`` frames that drops its oldest when full: the oldest
    it still holds, or the next one sent, waited for."""
    return max(index + 1, math.floor(done_at_s * fps + 1e-9) - queue + 1)


def play_live(step: Callable[[int], float], n_frames: int, fps: float, queue: int = 1) -> list[int]:
    """The frames an observer whose ``step(i)`` takes the seconds it returns processes of a camera at ``fps``
    that sends ``n_frames`` frames into a queue of ``queue`` frames."""
    seen: list[int] = []
    i, clock = 0, 0.0
    while i < n_frames:
        clock = max(clock, i / fps) + step(i)
        seen.append(i)
        i = next_frame(i, clock, fps, queue)
    return seen


class LiveRun(NamedTuple):
    processed: int  # frames the observer stepped
    slowest_ms: float  # its slowest step after the first
    shots: int
    pots: int


def _one_run(frames: list[np.ndarray], cal: Calibration, game: str, clip_fps: float, fps: float, queue: int) -> LiveRun:
    pipe = Pipeline(cal, game=game, fps=clip_fps)
    costs: list[float] = []

    def step(i: int) -> float:
        t0 = time.perf_counter()
        pipe.step(frames[i], i, i / clip_fps)  # the frame's own time: a camera stamps what it sends
        costs.append(time.perf_counter() - t0)
        return costs[-1]

    seen = play_live(step, len(frames), fps, queue)
    pipe.finish()
    kinds = [e.type for e in pipe.events]
    slowest = max(costs[1:], default=0.0) * 1000.0
    return LiveRun(len(seen), slowest, kinds.count("shot_start"), kinds.count("pot"))


def run(args: argparse.Namespace) -> int:
    cap = open_video(args.clip)
    clip_fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0) or 30.0
    frames = list(video_frames(cap, depth=0))
    cap.release()
    if not frames:
        raise SystemExit(f"tableref bench live: no frame could be read from {args.clip}")
    cal = Calibration.load(args.calibration, expect_image_size=(frames[0].shape[1], frames[0].shape[0]))
    rates = [float(v) for v in args.fps.split(",")] if args.fps else [clip_fps, 6.0 * clip_fps]
    sizes = [int(v) for v in args.queue.split(",")]
    print(f"tableref bench live: {Path(args.clip).name}, {len(frames)} frames at {clip_fps:g} fps, a camera at")
    print(f"{', '.join(f'{r:g}' for r in rates)} fps into a queue of {', '.join(map(str, sizes))} frames, "
          f"{args.repeats} runs each")  # fmt: skip
    print(f"{'camera fps':>10} {'queue':>5} {'run':>4} {'processed':>11} {'slowest ms':>11} {'shots':>6} {'pots':>5}")
    med = statistics.median
    for rate in rates:
        for size in sizes:
            runs = [_one_run(frames, cal, args.game, clip_fps, rate, size) for _ in range(args.repeats)]
            medians = [med(column) for column in zip(*runs, strict=True)]
            rows = [(str(k), *r) for k, r in enumerate(runs, 1)] + [("med", *medians)]
            for name, processed, slowest, shots, pots in rows:
                print(f"{rate:>10g} {size:>5} {name:>4} {processed:>5g}/{len(frames):<5} {slowest:>11.0f} "
                      f"{shots:>6g} {pots:>5g}")  # fmt: skip
    return 0
