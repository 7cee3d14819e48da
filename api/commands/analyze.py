"""``tableref analyze VIDEO --game GAME --out DIR``: a recorded video to events, tracks, verdicts, report.

Calibration: ``--calibration FILE``; else, for a synth scenario folder (``camera.json`` beside the video),
its exact camera; else found automatically (``calibration.auto``) from the first seconds of the video.
``--table 2540x1270 --ball 57.15`` describes a table other than the regulation Russian one (pocket mouths
then default to 2.0 and 2.25 ball diameters, pool-like; ``--mouths CORNERxMIDDLE`` sets them).
Writes ``events.jsonl`` (camera events, with the operator inputs of ``--inputs`` merged in by shot),
``tracks.csv``, ``verdicts.jsonl`` (where the rules engine is installed) and ``report.html``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from api.capture import open_video
from api.cli_types import GAME_HELP, ball_diameter, mouth_widths, table_size
from api.console_text import match_lines
from api.pipeline import PREFETCH, Pipeline, timed_frames
from api.report import write_report
from calibration.aspect import aspect_problem
from calibration.contract import GAMES, Event, read_jsonl, write_jsonl
from calibration.mapping import Calibration, CalibrationError
from calibration.table import TableModel, TableSpec, TableSpecError

# Decoding, detection and tracking run in three threads. Decoding and the compiled detector release the GIL;
# tracking holds it, and Python hands the GIL over only once per switch interval (5 ms by default): a thread
# back from a GIL-free call could wait that long, and a frame takes about 10 ms. A shorter interval while
# analyze runs keeps the three stages flowing.
SWITCH_INTERVAL_S = 0.0005


class AnalyzeError(ValueError):
    """A user error of ``analyze`` (bad video, arguments)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("video", metavar="VIDEO", help="recorded video of the table")
    parser.add_argument("--game", required=True, choices=GAMES, metavar="GAME", help=GAME_HELP)
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    parser.add_argument("--calibration", metavar="FILE", help="calibration JSON (tableref calibrate)")
    parser.add_argument("--inputs", metavar="FILE", help="operator inputs (JSON lines) for the referee")
    parser.add_argument(
        "--table", metavar="LxW", type=table_size, help="playing field length x width in mm (default 3569x1778)"
    )
    parser.add_argument("--ball", type=ball_diameter, metavar="MM", help="ball diameter in mm (default 68)")
    parser.add_argument(
        "--mouths",
        metavar="CxM",
        type=mouth_widths,
        help="corner and middle pocket mouth widths in mm (default 73x83 on the regulation table, else 2 and 2.25 "
        "ball diameters)",
    )
    parser.add_argument(
        "--detector", default="classical", choices=("classical", "neural", "hough"), help="ball detector"
    )
    parser.add_argument("--max-frames", type=int, metavar="N", help="stop after N frames")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--serial", action="store_true", help="decode, detect and track in one thread (slower; for profiling)"
    )


def table_from_args(size: str | None, ball: float | None, mouths: str | None) -> TableModel:
    kw: dict[str, float] = {}
    try:
        if size:
            length, width = (float(v) for v in size.lower().replace("×", "x").split("x"))
            kw.update(length_mm=length, width_mm=width)
        if ball:
            kw["ball_diameter_mm"] = float(ball)
        if mouths:
            c, m = (float(v) for v in mouths.lower().split("x"))
            kw.update(corner_mouth_mm=c, middle_mouth_mm=m)
    except ValueError:
        raise AnalyzeError(
            f"cannot read --table {size!r} (LxW in mm, e.g. 2540x1270), --ball {ball!r} (mm) or --mouths {mouths!r} "
            "(CxM in mm, e.g. 73x83)"
        ) from None
    try:
        d = kw.get("ball_diameter_mm", 68.0)
        if not mouths and (size or ball):
            # Not the regulation Russian table: pool-like pockets (a 9-ft pool corner mouth is ~2 balls).
            probe = TableSpec(**kw, corner_mouth_mm=1.5 * d, middle_mouth_mm=1.5 * d)  # type: ignore[arg-type]
            if not probe.is_regulation:
                kw.update(corner_mouth_mm=2.0 * d, middle_mouth_mm=2.25 * d)
        return TableModel(TableSpec(**kw))  # type: ignore[arg-type]
    except TableSpecError as exc:
        raise AnalyzeError(f"table: {exc}") from None


def scenario_calibration(video: Path, table: TableModel, image_size: tuple[int, int]) -> Calibration | None:
    """The exact camera of a synth scenario folder (``camera.json`` beside the video), if there is one."""
    cam = video.parent / "camera.json"
    if not cam.exists():
        return None
    obj = json.loads(cam.read_text(encoding="utf-8"))
    lens = obj.get("lens") or {}
    kmat = lens.get("camera_matrix") or obj.get("camera_matrix")
    return Calibration.from_corners(
        obj["corners_px"],
        (int(obj["image_size"][0]), int(obj["image_size"][1])),
        table,
        camera_matrix=None if kmat is None else np.asarray(kmat, dtype=float),
        k1=float(lens.get("k1", obj.get("k1", 0.0))),
        k2=float(lens.get("k2", obj.get("k2", 0.0))),
        source="truth",
        camera_height_mm=obj.get("camera_height_mm"),
    )


def get_calibration(args: argparse.Namespace, video: Path, table: TableModel, size: tuple[int, int]) -> Calibration:
    if args.calibration:
        cal = Calibration.load(args.calibration, expect_image_size=size)
        if args.table or args.ball:
            cal = Calibration.from_corners(
                cal.corners_px, cal.image_size, table, camera_matrix=cal.camera_matrix, k1=cal.k1, k2=cal.k2,
                source=cal.source, quality=cal.quality, camera_height_mm=cal.camera_height_mm,
            )  # fmt: skip
        return cal
    scen = scenario_calibration(video, table, size)
    if scen is not None:
        return scen
    from calibration.auto import auto_calibrate
    from calibration.table_finder import read_source

    img = read_source(video)
    try:
        return auto_calibrate(img, table)
    except ValueError as exc:
        raise CalibrationError(f"automatic calibration failed ({exc}); give --calibration FILE") from None


def _progress(i: int, n: int, started: float, t_video: float) -> None:
    elapsed = time.perf_counter() - started
    speed = t_video / elapsed if elapsed > 0 else 0.0
    if n > 0:
        k = int(30 * min(i / n, 1.0))
        bar = "#" * k + "." * (30 - k)
        sys.stderr.write(f"\r[{bar}] {i}/{n} frames  {speed:.2f}x real time ")
    else:
        sys.stderr.write(f"\r{i} frames  {speed:.2f}x real time ")
    sys.stderr.flush()


def merge_inputs(events: list[Event], inputs: list[Event]) -> list[Event]:
    """Camera events with operator inputs placed just before the shot they apply to."""
    starts = {e.shot: (e.t or 0.0) for e in events if e.type == "shot_start"}
    keyed: list[tuple[float, int, int, Event]] = []
    for i, e in enumerate(events):
        keyed.append((e.t or 0.0, 1, i, e))
    for i, e in enumerate(inputs):
        t = e.t if e.t is not None else starts.get(e.shot, float("inf") if e.shot is not None else 0.0)
        keyed.append((t, 0, i, e))
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    return [k[3] for k in keyed]


def run_rules(game: str, table: TableModel, stream: list[Event]) -> tuple[list[dict[str, Any]], str | None]:
    """Verdicts of the rules engine (``rules.referee.Referee``) over the stream, and what it refused: a record
    it cannot place (a ball already gone named again) is left out and the referee carries on with the next, as
    the live service does; None when it refused nothing."""
    from rules.referee import Referee

    ref = Referee(game, table=table)
    refused = []
    for n, ev in enumerate(stream, start=1):
        try:
            ref.feed(ev, line=n)
        except ValueError as exc:
            refused.append(f"{ev.type} at frame {ev.frame} (event {n}): {getattr(exc, 'reason', exc)}")
    problem = None
    if refused:
        problem = f"the referee left out {len(refused)} record(s): " + "; ".join(refused[:3])
        problem += "; ..." if len(refused) > 3 else ""
    return [v.to_dict() for v in ref.finals()], problem


def run(args: argparse.Namespace) -> int:
    video = Path(args.video)
    if not video.exists():
        raise AnalyzeError(f"no video at {video}")
    cap = open_video(video)
    if not cap.isOpened():
        raise AnalyzeError(f"cannot open {video} as a video")
    stated_fps = cap.get(cv2.CAP_PROP_FPS)  # 0 where the container states none
    fps = stated_fps or 30.0
    n_frames = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    table = table_from_args(args.table, args.ball, args.mouths)
    cal = get_calibration(args, video, table, size)
    warnings: list[str] = []
    shape = aspect_problem(cal)
    if shape:
        warnings.append(shape)
        print(f"tableref analyze: warning: {shape}", file=sys.stderr)
    inputs = read_jsonl(args.inputs) if args.inputs else []
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    pipe = Pipeline(cal, game=args.game, detector_name=args.detector, fps=stated_fps or None)
    started = time.perf_counter()
    limit = args.max_frames if args.max_frames else n_frames
    last_t = -1.0

    def progress(n: int, t: float) -> None:
        nonlocal last_t
        last_t = t
        if not args.quiet and n % 10 == 0:
            _progress(n, limit, started, t)

    # Decoding and detection each run ahead in a thread of their own (OpenCV releases the GIL), so the
    # decoder, the detector and the tracker overlap.
    switch = sys.getswitchinterval()
    try:
        if not args.serial:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        depth = 0 if args.serial else PREFETCH
        frames = timed_frames(cap, fps, args.max_frames or 0, depth=depth)
        i = pipe.run_timed(frames, progress, detect_ahead=not args.serial)
    finally:
        sys.setswitchinterval(switch)
        cap.release()
    wall = time.perf_counter() - started
    if not args.quiet:
        _progress(i, limit, started, last_t)
        sys.stderr.write("\n")
    if i == 0:
        raise AnalyzeError(f"{video}: no frames could be decoded")

    events = pipe.sorted_events()
    stream = merge_inputs(events, inputs)
    write_jsonl(out / "events.jsonl", stream)
    rows = pipe.track_rows()
    with open(out / "tracks.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["frame", "t", "ball", "x", "y", "visible"])
        for r in rows:
            w.writerow([r.frame, f"{r.t:.6f}", r.ball, f"{r.x:.2f}", f"{r.y:.2f}", r.visible])
    verdicts, problem = run_rules(args.game, table, stream)
    with open(out / "verdicts.jsonl", "w", encoding="utf-8") as f:
        for v in verdicts:
            f.write(json.dumps(v, ensure_ascii=False) + "\n")
    if problem:
        print(f"tableref analyze: warning: {problem}", file=sys.stderr)
    if pipe.paused:
        # frames that did not show the table (a camera cut, a graphics wipe) were not observed
        spans = ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in pipe.paused[:5])
        more = f" and {len(pipe.paused) - 5} more" if len(pipe.paused) > 5 else ""
        n_off = sum(b - a + 1 for a, b in pipe.paused)
        paused = f"the table was not in view in {n_off} frame(s) ({spans}{more}): observation paused there"
        warnings.append(paused)
        print(f"tableref analyze: note: {paused}", file=sys.stderr)
    if not rows:
        # a run that saw no ball has nothing to referee: say so rather than write empty files silently
        blind = f"no ball was tracked in {i} frames: check the calibration (--calibration), --table and --ball"
        warnings.append(blind)
        print(f"tableref analyze: warning: {blind}", file=sys.stderr)
    video_s = last_t + 1.0 / fps
    stats = {
        "frames": i,
        "video seconds": round(video_s, 2),
        "processing seconds": round(wall, 2),
        "speed (x real time)": round(video_s / wall, 2) if wall > 0 else "-",
        "calibration": cal.source,
        "detector": args.detector,
    }
    if problem:
        stats["referee"] = problem
    if warnings:
        stats["warnings"] = "; ".join(warnings)
    looks = pipe.looks.words()  # balls the camera could not number, named by colour where the set is coloured
    write_report(out, table, stream, rows, video=video.name, verdicts=verdicts, stats=stats, game=args.game,
                 looks=looks)  # fmt: skip
    for line in match_lines((e.to_dict() for e in stream), verdicts, game=args.game, looks=looks):
        print(line)
    n_pots = sum(1 for e in events if e.type == "pot")
    n_shots = sum(1 for e in events if e.type == "shot_start")
    print(
        f"{video.name}: {i} frames, {n_shots} shots, {n_pots} pots, {len(events)} events; "
        f"{video_s / wall:.2f}x real time; wrote {out}"
    )
    return 0
