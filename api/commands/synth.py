"""``tableref synth``: a physics-true rendered scenario with exact ground truth (docs/CONTRACT.md section 6).

    tableref synth --list
    tableref synth --out DIR --scenario NAME --seed N [--resolution 1920x1080] [--fps 60] [--camera SPEC]
    tableref synth --suite NAME --out DIR [--skip N] [--limit N]

Needs the ``synth`` extra (pooltool). A scenario whose physics fails the truth checks is refused with
the reason, never written.
"""

from __future__ import annotations

import argparse
import sys

from calibration.table import TableModel


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--list", action="store_true", help="list the scenario library and the suites")
    parser.add_argument("--out", help="output folder")
    parser.add_argument("--scenario", default="break", help="scenario name (see --list)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the scenario and the rendering")
    parser.add_argument("--suite", help="write a named suite of scenarios instead of one")
    parser.add_argument("--limit", type=int, default=None, help="with --suite: only the first N items")
    parser.add_argument(
        "--skip", type=int, default=0, help="with --suite: leave out the first N items (the rest keep their cameras)"
    )
    parser.add_argument("--small", action="store_true", help="with --suite: render at 320x180")
    parser.add_argument("--resolution", default="1920x1080", help="WIDTHxHEIGHT, 720p, 1080p or 4k")
    parser.add_argument("--fps", type=float, default=60.0, help="frame rate (25, 30, 50, 60, 120, ...)")
    parser.add_argument(
        "--camera", default="", help="camera: tilt=DEG,azimuth=DEG,distance=MM,k1=K,k2=K,fill=F (any subset)"
    )
    parser.add_argument("--exposure", type=float, default=0.5, help="shutter open, fraction of a frame")
    parser.add_argument("--noise", type=float, default=2.0, help="sensor noise sigma (grey levels)")
    parser.add_argument("--no-occluders", action="store_true", help="do not draw the player and cue")
    parser.add_argument(
        "--player", choices=("plain", "varied"), default="plain",
        help="what the player wears: varied draws gloves, light sleeves, a watch, a hand resting on the cloth",
    )  # fmt: skip
    parser.add_argument("--lighting", choices=("even", "uneven"), default="even")
    parser.add_argument("--truth-only", action="store_true", help="write truth/ only, no video")


def run(args: argparse.Namespace) -> int:
    from models.synth import library, suites

    if args.list:
        print("scenarios:")
        for name in library.names():
            print(f"  {name}")
        print("suites:")
        for name, suite in suites.SUITES.items():
            print(f"  {name:18s} {suite.description}")
        return 0
    if not args.out:
        raise ValueError("--out DIR is required (or --list)")
    settings = render_settings(args)
    if args.suite:
        summary = suites.write_suite(
            args.suite, args.out, limit=args.limit, progress=sys.stderr, small=args.small, skip=args.skip
        )
        print(f"suite {args.suite}: {summary['items']} scenarios, {summary['shots']} shots in {args.out}")
        return 0
    from models.synth.truth import run_scenario
    from models.synth.video import write_scene

    table = TableModel()
    scenario = library.build(args.scenario, args.seed, table)
    truth = run_scenario(scenario, table)
    if args.truth_only:
        truth.write(args.out, settings.fps)
        print(f"{args.scenario} seed {args.seed}: truth for {len(truth.shots)} shots in {args.out}/truth")
        return 0
    fig = write_scene(truth, args.out, settings)
    print(
        f"{args.scenario} seed {args.seed}: {int(fig['frames'])} frames {settings.resolution[0]}x"
        f"{settings.resolution[1]} at {settings.fps:g} fps, {len(truth.shots)} shots, "
        f"{sum(e.type != 'shot_start' and e.type != 'shot_end' for e in truth.events)} events -> {args.out}"
    )
    return 0


def render_settings(args: argparse.Namespace):  # -> models.synth.video.RenderSettings
    from models.synth.video import CameraSpec, RenderSettings, parse_resolution

    return RenderSettings(
        resolution=parse_resolution(args.resolution),
        fps=float(args.fps),
        camera=CameraSpec.parse(args.camera),
        exposure=float(args.exposure),
        noise_sigma=float(args.noise),
        occluders=not args.no_occluders,
        player=args.player,
        lighting=args.lighting,
        seed=int(args.seed),
    )
