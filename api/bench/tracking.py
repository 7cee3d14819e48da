"""``tableref bench tracking``: event F1, timing and track position error against exact truth.

Two sources of truth:

- ``--suite DIR`` (the real measurement): a folder of synth scenario folders (``video.mp4``, ``camera.json``,
  ``truth/``). Each video goes through the whole pipeline (detection on the rendered frames, tracking,
  events) and is scored against its truth.
- without ``--suite``: shots from ``tracking.kinematic_sim`` (plain 2-D physics with exact event times),
  whose truth positions become detections with noise, dropouts and occluders. This measures the tracker
  and the event extractor alone (no rendering, no detector) and runs at both frame rates in minutes.

Ball ids: the pipeline is given the balls' ids at their starting places (what a known rack or the
operator's correction gives it), so that events can be compared id for id.
Prints one table per frame rate: F1 per event type (tolerance: one frame), precision and recall, the
median absolute timing error in frames, and the track position error (median, p95) in mm.
"""

from __future__ import annotations

import argparse
import csv
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from api.pipeline import Pipeline, video_frames
from calibration.table import TableModel
from tracking.events import Event, read_jsonl
from tracking.kinematic_sim import SCENARIOS, detections_from_truth, make_setup, simulate_shot
from tracking.metrics import Scores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shots", type=int, default=200, help="kinematic shots per frame rate (default 200)")
    parser.add_argument("--fps", default="60,30", help="frame rates to run, comma separated (default 60,30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--noise", type=float, default=0.8, help="detection noise, mm (default 0.8)")
    parser.add_argument("--dropout", type=float, default=0.02, help="share of detections lost (default 0.02)")
    parser.add_argument("--suite", metavar="DIR", help="score rendered synth scenarios in DIR instead")
    parser.add_argument("--detector", default="classical", help="detector for --suite")
    parser.add_argument("--verbose", action="store_true", help="print each shot's misses")


@dataclass(frozen=True)
class _Dets:
    pos_mm: np.ndarray
    confidence: np.ndarray
    cls: np.ndarray


def run_kinematic(n: int, fps: float, seed: int, noise: float, dropout: float, verbose: bool) -> tuple[Scores, float]:
    table = TableModel()
    rng = np.random.default_rng(seed)
    scores = Scores()
    tol = 1.0 / fps
    work = 0.0
    video = 0.0
    for k in range(n):
        name = SCENARIOS[k % len(SCENARIOS)]
        setup = make_setup(table, name, rng)
        sim = simulate_shot(table, setup.balls, setup.struck, setup.velocity, fps=fps)
        dets = detections_from_truth(sim, rng, noise_mm=noise, dropout=dropout, occluders=setup.occluders)
        t0 = time.perf_counter()
        pipe = Pipeline(table=table, known_ids=setup.balls)
        for i, (t, d) in enumerate(dets):
            pipe.step_detections(_Dets(d.pos_mm, d.confidence, d.is_cue.astype(np.int64)), i, t)
        pipe.finish()
        work += time.perf_counter() - t0
        video += len(dets) / fps
        pred = pipe.sorted_events()
        scores.add_shot(pred, sim.events, tol)
        truth_rows = [(i, b, p[0], p[1]) for i, (_, balls) in enumerate(sim.frames) for b, p in balls.items()]
        scores.add_tracks(((r.frame, r.ball, r.x, r.y) for r in pipe.track_rows()), truth_rows)
        if verbose:
            _print_misses(k, name, pred, sim.events, tol)
    return scores, video / work if work > 0 else 0.0


def _print_misses(k: int, name: str, pred: list[Event], truth: list[Event], tol: float) -> None:
    from tracking.metrics import SCORED, event_key

    tc = [e for e in truth if e.type == "contact"]
    pc = [e for e in pred if e.type == "contact"]
    if tc and (not pc or pc[0].balls != tc[0].balls or abs((pc[0].t or 0) - (tc[0].t or 0)) > tol):
        got = f"{pc[0].balls} at {pc[0].t:.4f}" if pc else "none"
        print(f"  shot {k} {name}: first contact {tc[0].balls} at {tc[0].t:.4f}, found {got}")
    for kind in SCORED:
        ps = [e for e in pred if e.type == kind]
        ts = [e for e in truth if e.type == kind]
        for t in ts:
            if not any(event_key(p) == event_key(t) and abs((p.t or 0) - (t.t or 0)) <= tol for p in ps):
                print(f"  shot {k} {name}: missed {kind} {event_key(t)} at {t.t:.4f}")
        for p in ps:
            if not any(event_key(p) == event_key(t) and abs((p.t or 0) - (t.t or 0)) <= tol for t in ts):
                print(f"  shot {k} {name}: extra {kind} {event_key(p)} at {p.t:.4f} conf {p.confidence}")


def run_suite(root: Path, detector: str, verbose: bool = False) -> dict[float, tuple[Scores, float]]:
    from api.commands.analyze import scenario_calibration

    out: dict[float, tuple[Scores, float]] = {}
    candidates = [root, *sorted(p for p in root.iterdir() if p.is_dir())] if root.is_dir() else []
    folders = [p for p in candidates if (p / "video.mp4").exists() and (p / "truth" / "events.jsonl").exists()]
    if not folders:
        raise ValueError(f"no scenario folders (video.mp4 + truth/events.jsonl) under {root}")
    import cv2

    for folder in folders:
        cap = cv2.VideoCapture(str(folder / "video.mp4"))
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 30.0)
        size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        truth = read_jsonl(folder / "truth" / "events.jsonl")
        with open(folder / "truth" / "tracks.csv", encoding="utf-8") as f:
            truth_rows = [(int(r["frame"]), r["ball"], float(r["x"]), float(r["y"])) for r in csv.DictReader(f)]
        first = min((r[0] for r in truth_rows), default=0)
        known = {b: (x, y) for fr, b, x, y in truth_rows if fr == first}
        table = TableModel()
        cal = scenario_calibration(folder / "video.mp4", table, size)
        pipe = Pipeline(cal, game=None, detector_name=detector, known_ids=known)
        t0 = time.perf_counter()
        i = pipe.run(video_frames(cap), fps)
        work = time.perf_counter() - t0
        scores, speed_acc = out.get(fps, (Scores(), 0.0))
        scores.add_shot(pipe.sorted_events(), truth, 1.0 / fps)
        if verbose:
            _print_misses(0, folder.name, pipe.sorted_events(), truth, 1.0 / fps)
        scores.add_tracks(((r.frame, r.ball, r.x, r.y) for r in pipe.track_rows()), truth_rows)
        out[fps] = (scores, speed_acc + (i / fps) / max(work, 1e-9))
        print(f"  {folder.name}: {i} frames at {fps:g} fps, {(i / fps) / max(work, 1e-9):.2f}x real time")
    return out


def print_scores(title: str, s: Scores, fps: float, speed: float) -> None:
    print(f"\n{title}: {s.shots} shots at {fps:g} fps (tolerance one frame = {1000 / fps:.1f} ms)")
    print(f"{'event':<16}{'F1':>8}{'precision':>11}{'recall':>9}{'truth':>8}{'found':>8}{'median |dt| (frames)':>23}")
    for k in ("pot", "first_contact", "contact", "cushion", "cushion_segment", "line_cross", "off_table"):
        t = s.events[k]
        if t.tp + t.fn + t.fp == 0:
            continue
        med = float(np.median(np.abs(t.dt))) * fps if t.dt else float("nan")
        print(f"{k:<16}{t.f1:>8.4f}{t.precision:>11.4f}{t.recall:>9.4f}{t.tp + t.fn:>8}{t.tp:>8}{med:>23.3f}")
    timing = s.timing()
    if timing:
        med = float(np.median(timing))
        print(f"median timing error, all matched events: {med * fps:.3f} frames ({med * 1000:.2f} ms)")
    if s.pos_err:
        e = np.array(s.pos_err)
        print(
            f"track position error: median {np.median(e):.3f} mm, p95 {np.percentile(e, 95):.3f} mm, "
            f"max {e.max():.1f} mm; rows matched {s.rows_matched}/{s.rows_truth}"
        )
    if speed:
        print(f"tracking + events speed: {speed:.1f}x real time (no detection)")


def run(args: argparse.Namespace) -> int:
    if args.suite:
        results = run_suite(Path(args.suite), args.detector, args.verbose)
        for fps, (scores, _speed) in sorted(results.items(), reverse=True):
            print_scores(f"synth suite {args.suite}", scores, fps, 0.0)
        return 0
    for fps in (float(f) for f in str(args.fps).split(",") if f.strip()):
        scores, speed = run_kinematic(args.shots, fps, args.seed, args.noise, args.dropout, args.verbose)
        print_scores("kinematic suite", scores, fps, speed)
    return 0
