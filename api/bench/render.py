"""``tableref bench render``: synthetic rendering speed per resolution, and a 10 s 1080p60 scene end to end.

1. Per resolution (720p, 1080p, 4K): the opening break (16 balls, most moving, motion blur, the player and
   cue over the table, noise, flicker) rendered frame by frame from the stroke on; prints the camera
   set-up time (background and per-pixel ray map, once per camera), the median frame time, frames per
   second, and the ratio of each resolution's frame time to 720p's, measured in the same run.
2. The scene: the first 10 s of the break written as ``video.mp4`` + truth at 1080p60 (600 frames,
   encoding included); prints the wall time and its ratio to the 10 s of video.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from models.synth import library
from models.synth.truth import Truth, run_scenario
from models.synth.video import RESOLUTIONS, CameraSpec, RenderSettings, SceneRenderer, write_scene


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--resolutions", default="720p,1080p,4k", help="comma separated (default 720p,1080p,4k)")
    parser.add_argument("--frames", type=int, default=60, help="frames timed per resolution (default 60)")
    parser.add_argument("--scene-seconds", type=float, default=10.0, help="length of the 1080p60 scene (0: skip)")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    truth = run_scenario(library.build("break", args.seed))
    camera = CameraSpec(tilt_deg=15.0, k1=-0.05)
    t0 = truth.shots[0].t0
    rows = []
    for key in [r.strip() for r in args.resolutions.split(",") if r.strip()]:
        res = RESOLUTIONS[key.lower()]
        settings = RenderSettings(res, 60.0, camera, seed=args.seed)
        s = time.perf_counter()
        renderer = SceneRenderer(truth, settings)
        setup = time.perf_counter() - s
        first = max(int((t0 - 0.3) * 60), 0)
        times = []
        for i in range(first, min(first + args.frames, renderer.n_frames)):
            s = time.perf_counter()
            renderer.frame(i)
            times.append(time.perf_counter() - s)
        med = statistics.median(times)
        rows.append((key, res, setup, med, len(times)))
    base = rows[0][3] if rows else 1.0
    print("render speed: the opening break from the stroke on (16 balls, blur, player, noise)")
    print(f"{'resolution':<12}{'size':>12}{'setup_s':>10}{'frames':>8}{'median_ms':>11}{'fps':>8}{'x_first':>9}")
    for key, res, setup, med, n in rows:
        size = f"{res[0]}x{res[1]}"
        print(f"{key:<12}{size:>12}{setup:>10.2f}{n:>8}{med * 1000:>11.1f}{1 / med:>8.1f}{med / base:>9.2f}")
    if args.scene_seconds > 0:
        scene = Truth(truth.scenario, truth.table, truth.ptable, truth.shots, truth.events, args.scene_seconds)
        settings = RenderSettings((1920, 1080), 60.0, camera, seed=args.seed)
        with tempfile.TemporaryDirectory() as tmp:
            s = time.perf_counter()
            fig = write_scene(scene, tmp, settings)
            wall = time.perf_counter() - s
        n = int(fig["frames"])
        print(
            f"scene: {args.scene_seconds:g} s of the break at 1920x1080 60 fps = {n} frames written in {wall:.1f} s "
            f"({n / wall:.1f} frames/s, {wall / args.scene_seconds:.1f} x real time; set-up {fig['setup_s']:.1f} s)"
        )
    return 0
