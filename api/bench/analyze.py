"""``tableref bench analyze``: where the time of ``tableref analyze`` goes on a 1080p60 clip.

Renders a 1080p60 scenario (``--scenario``/``--seed``, default the kiss) into a temporary folder, or takes
``--clip`` (a scenario folder with ``video.mp4`` and ``camera.json``, or a video with ``--calibration``),
then measures, each ``--repeats`` times, in this one process:

- decode only: every frame read by OpenCV in the caller's thread, decoded as analyze decodes (``api.capture``; the
  baseline of the ratios);
- detection only: the detector on every frame (the decoding before each call is not counted);
- tracking + events only: the detections of the detection pass replayed through a new pipeline
  (``step_detections`` and ``finish``), and, on its own row, the smoothed tracks.csv rows it yields;
- analyze: the whole ``tableref analyze`` run as the CLI runs it (calibration, decoding ahead in a thread,
  detection, tracking, events, rules, writing events.jsonl, tracks.csv, verdicts.jsonl and report.html),
  from the call to its return, imports done before.

Prints the medians as ms per frame (wall clock, and the process CPU time beside it), x real time and the ratio
to decode-only. ``--profile N`` also runs the whole path once under cProfile, all in one thread
(``analyze --serial``, so that decoding and detection are seen), and prints the N costliest functions by own
time, split into those outside vision/ and tracking/ and those inside them.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import pstats
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from api.capture import open_video
from api.pipeline import Pipeline, video_frames
from calibration.contract import GAMES

REPO = Path(__file__).resolve().parent.parent.parent


GAMES_TEXT = ", ".join(GAMES)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clip", metavar="PATH", help="a scenario folder or a video (default: render one)")
    parser.add_argument("--calibration", metavar="FILE", help="calibration JSON for a --clip video")
    parser.add_argument("--scenario", default="kiss", help="scenario rendered without --clip (default kiss)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--fps", type=float, default=60.0, help="frame rate of the rendered clip (default 60)")
    parser.add_argument(
        "--game",
        default="moscow",
        choices=GAMES,
        metavar="GAME",
        help=f"game given to analyze (default moscow): {GAMES_TEXT}",
    )
    parser.add_argument("--detector", default="classical")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each measurement (default 3)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print the N top costs (cProfile)")


@dataclass(frozen=True)
class Timing:
    wall_s: float
    cpu_s: float  # the process: every thread
    thread_s: float  # the caller's thread only
    frames: int


@dataclass(frozen=True)
class _Dets:
    pos_mm: np.ndarray
    confidence: np.ndarray
    cls: np.ndarray
    colour: Any


def _timed(fn: Callable[[], int]) -> Timing:
    w, c, th = time.perf_counter(), time.process_time(), time.thread_time()
    n = fn()
    return Timing(time.perf_counter() - w, time.process_time() - c, time.thread_time() - th, n)


def _decode_only(video: Path) -> int:
    cap = open_video(video)
    n = 0
    while True:
        ok, _ = cap.read()
        if not ok:
            break
        n += 1
    cap.release()
    return n


def _detect_only(video: Path, detector: Any, keep: list[_Dets] | None) -> Timing:
    """Only the detector's calls are timed (decoding in between is not)."""
    cap = open_video(video)
    wall = cpu = th = 0.0
    n = 0
    for frame in video_frames(cap, depth=0):
        w, c, t = time.perf_counter(), time.process_time(), time.thread_time()
        d = detector.detect(frame)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        th += time.thread_time() - t
        n += 1
        if keep is not None:
            keep.append(_Dets(d.pos_mm, d.confidence, d.cls, getattr(d, "colour", None)))
    cap.release()
    return Timing(wall, cpu, th, n)


def _track_only(cal: Any, game: str, dets: list[_Dets], fps: float) -> tuple[Timing, Timing]:
    pipe = Pipeline(cal, game=game, fps=fps)

    def feed() -> int:
        for i, d in enumerate(dets):
            pipe.step_detections(d, i, i / fps)
        pipe.finish()
        return len(dets)

    track = _timed(feed)
    rows = _timed(lambda: len(pipe.track_rows()) and len(dets))
    return track, rows


def _analyze_args(
    video: Path, out: Path, game: str, detector: str, calibration: str | None, serial: bool = False
) -> argparse.Namespace:
    from api.commands import analyze

    parser = argparse.ArgumentParser()
    analyze.add_arguments(parser)
    argv = [str(video), "--game", game, "--out", str(out), "--detector", detector, "--quiet"]
    if calibration:
        argv += ["--calibration", calibration]
    if serial:
        argv.append("--serial")
    return parser.parse_args(argv)


def _analyze(args: argparse.Namespace, frames: int) -> int:
    from api.commands import analyze

    with contextlib.redirect_stdout(io.StringIO()):
        code = analyze.run(args)
    if code != 0:
        raise RuntimeError(f"analyze exited {code}")
    return frames


def _render(tmp: Path, scenario: str, seed: int, fps: float) -> Path:
    from api.commands import synth

    parser = argparse.ArgumentParser()
    synth.add_arguments(parser)
    out = tmp / f"{scenario}-s{seed}"
    args = parser.parse_args(
        ["--out", str(out), "--scenario", scenario, "--seed", str(seed), "--resolution", "1080p", "--fps", f"{fps:g}"]
    )
    synth.run(args)
    return out


def _clip_paths(clip: Path) -> tuple[Path, Path]:
    video = clip / "video.mp4" if clip.is_dir() else clip
    if not video.exists():
        raise ValueError(f"no video at {video}")
    return video, video.parent


def _calibration(video: Path, calibration: str | None) -> Any:
    from api.commands.analyze import scenario_calibration
    from calibration.mapping import Calibration
    from calibration.table import TableModel

    cap = open_video(video)
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    cap.release()
    if calibration:
        return Calibration.load(calibration, expect_image_size=size)
    cal = scenario_calibration(video, TableModel(), size)
    if cal is None:
        raise ValueError(f"no camera.json beside {video}: give --calibration FILE")
    return cal


def _median(ts: list[Timing]) -> Timing:
    med = statistics.median
    return Timing(med(t.wall_s for t in ts), med(t.cpu_s for t in ts), med(t.thread_s for t in ts), ts[0].frames)


def print_table(rows: list[tuple[str, Timing]], fps: float) -> None:
    base = rows[0][1]
    base_ms = 1000 * base.wall_s / max(base.frames, 1)
    frame_ms = 1000 / fps
    head = f"{'stage':<28}{'wall ms/frame':>14}{'x real time':>13}{'x decode':>10}"
    print(f"{head}{'cpu ms/frame':>14}{'caller thread':>15}")
    for name, t in rows:
        ms, cpu, th = (1000 * v / max(t.frames, 1) for v in (t.wall_s, t.cpu_s, t.thread_s))
        print(f"{name:<28}{ms:>14.2f}{frame_ms / ms:>13.2f}{ms / base_ms:>10.2f}{cpu:>14.2f}{th:>15.2f}")


def two_core_bound_ms(decode: Timing, detect: Timing, whole: Timing) -> float:
    """The least wall time per frame the whole path could take on two idle cores: its CPU time spread over
    both, but never less than its busiest thread (the decoder's, the detector's or the caller's)."""
    per = [1000 * v / max(t.frames, 1) for v, t in ((decode.cpu_s, decode), (detect.cpu_s, detect))]
    n = max(whole.frames, 1)
    return max(1000 * whole.cpu_s / n / 2, 1000 * whole.thread_s / n, *per)


def _rel(file: str) -> str:
    with contextlib.suppress(ValueError, OSError):
        return str(Path(file).resolve().relative_to(REPO))
    return file


def print_profile(prof: cProfile.Profile, top: int) -> None:
    """The costliest functions by own time; a built-in (an OpenCV or numpy call) counts as inside vision/ or
    tracking/ when most of its time comes from calls made there, and is named with its main caller."""
    st = pstats.Stats(prof)
    entries = []
    for (file, line, func), (_cc, _nc, tt, ct, callers) in st.stats.items():  # type: ignore[attr-defined]
        rel = _rel(file)
        name = f"{rel}:{line}({func})"
        if file == "~" and callers:
            (cfile, cline, cfunc), _ = max(callers.items(), key=lambda kv: kv[1][2])
            rel = _rel(cfile)
            name = f"{func} from {rel}:{cline}({cfunc})"
        inside = rel.startswith(("vision/", "tracking/"))
        entries.append((tt, ct, name, inside))
    entries.sort(reverse=True)
    total = sum(e[0] for e in entries)
    for title, inside in (("outside vision/ and tracking/", False), ("inside vision/ and tracking/", True)):
        print(f"\ntop {top} own-time costs {title} (of {total:.2f} s profiled: analyze --serial)")
        print(f"{'own s':>8}{'cum s':>8}  function")
        for tt, ct, name, _ in [e for e in entries if e[3] == inside][:top]:
            print(f"{tt:>8.3f}{ct:>8.3f}  {name}")


def run(args: argparse.Namespace) -> int:
    from vision.detector import make_detector

    repeats = max(1, int(args.repeats))
    with tempfile.TemporaryDirectory(prefix="tableref-bench-analyze-") as tmp_s:
        tmp = Path(tmp_s)
        if args.clip:
            video, _ = _clip_paths(Path(args.clip))
            what = str(video)
        else:
            video, _ = _clip_paths(_render(tmp, args.scenario, args.seed, args.fps))
            what = f"{args.scenario} seed {args.seed} rendered"
        cap = open_video(video)
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 30.0)
        size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        cap.release()
        cal = _calibration(video, args.calibration)
        detector = make_detector(args.detector, cal)
        dets: list[_Dets] = []
        decode, detect, track, rows, whole = [], [], [], [], []
        for r in range(repeats):
            decode.append(_timed(lambda: _decode_only(video)))
            detect.append(_detect_only(video, detector, dets if r == 0 else None))
            t, w = _track_only(cal, args.game, dets, fps)
            track.append(t)
            rows.append(w)
            a_args = _analyze_args(video, tmp / f"out{r}", args.game, args.detector, args.calibration)
            whole.append(_timed(lambda a=a_args: _analyze(a, len(dets))))  # type: ignore[misc]
        n = len(dets)
        print(
            f"tableref analyze speed: {what}, {n} frames {size[0]}x{size[1]} at {fps:g} fps "
            f"({n / fps:.1f} s of video), detector {args.detector}; medians of {repeats} runs"
        )
        m_decode, m_detect, m_whole = _median(decode), _median(detect), _median(whole)
        print_table(
            [
                ("decode only", m_decode),
                ("detection only", m_detect),
                ("tracking + events only", _median(track)),
                ("tracks.csv rows (smoothed)", _median(rows)),
                ("analyze (whole path)", m_whole),
            ],
            fps,
        )
        bound = two_core_bound_ms(m_decode, m_detect, m_whole)
        print(
            "analyze: every output written; decoding and detection each in a thread of their own, tracking in "
            "the caller's. cpu: this process's CPU time (all threads); caller thread: the main thread's alone."
        )
        print(
            f"on two idle cores the whole path needs at least {bound:.2f} ms/frame ({1000 / fps / bound:.2f}x real "
            "time): its CPU time over two cores, never less than its busiest thread"
        )
        if args.profile:
            prof = cProfile.Profile()
            a_args = _analyze_args(video, tmp / "profiled", args.game, args.detector, args.calibration, serial=True)
            prof.enable()
            _analyze(a_args, n)
            prof.disable()
            print_profile(prof, int(args.profile))
    return 0
