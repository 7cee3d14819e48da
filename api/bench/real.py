"""``tableref bench real``: ``tableref analyze`` on real footage, scored against labels written by eye.

For every label in ``--labels`` (default ``tests/data/real/clips``; one JSON per clip, format in
``api/bench/_real_labels.py``) it runs ``tableref analyze CLIP --game G --table LxW --ball D`` in a process of
its own (so a crash is that clip's one-line error and the benchmark goes on; an image sequence is first
written into a temporary Motion-JPEG video at the label's frame rate), then scores the run's events.jsonl and
tracks.csv with the calibration the run used (its ``calibration.json`` where it writes one, else the same
automatic calibration analyze makes). The figures and their definitions: ``api/bench/_real_score.py``; the
definitions are printed with the table.

Prints one row per clip, then the tuning half and the held-out half side by side with their total. ``--out
DIR`` also writes the printout to ``DIR/real.txt`` and every clip's figures to ``DIR/real.json``. Speed is
analyze's own "x real time"; with ``--jobs`` above 1 the runs share the cores and the speeds are lower than
alone. ``--keep DIR`` keeps each run's output folder (and ``bench-run.json``: exit code, error, speed, CPU
seconds, warnings); ``--keep DIR --rescore`` scores those runs again without running analyze (a changed label
or scorer), running it only for clips that have none.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import cv2

from api.bench._real_labels import ClipLabel, LabelError, load_label
from api.bench._real_score import (
    EDGE_S,
    MOVING_MM_S,
    POT_SLACK_S,
    SHOT_SLACK_S,
    ClipScore,
    read_tracks,
    score_clip,
)
from calibration.mapping import Calibration

REPO = Path(__file__).resolve().parent.parent.parent
SPEED = re.compile(r"([0-9.]+)x real time")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--labels", default=str(REPO / "tests" / "data" / "real" / "clips"), help="label folder or one label file"
    )
    parser.add_argument("--realdata", default=None, help="footage folder (default: ../shared/realdata)")
    parser.add_argument("--split", choices=("tuning", "heldout", "all"), default="all", help="which half (default all)")
    parser.add_argument("--only", default=None, help="comma-separated parts of label names to run")
    parser.add_argument("--jobs", type=int, default=1, help="clips analysed at once (default 1)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one clip may take (default 900)")
    parser.add_argument("--detector", default="classical", help="analyze --detector")
    parser.add_argument("--keep", default=None, metavar="DIR", help="keep each run's output folder under DIR")
    parser.add_argument(
        "--rescore", action="store_true", help="with --keep: score the runs kept there, run analyze only where none"
    )
    parser.add_argument("--out", default=None, metavar="DIR", help="also write DIR/real.txt and DIR/real.json")


def default_realdata() -> Path | None:
    for base in (Path.cwd(), *Path.cwd().parents, REPO, *REPO.parents):
        cand = base / "shared" / "realdata"
        if cand.is_dir():
            return cand
    return None


def find_labels(folder: Path, split: str, only: str | None) -> tuple[list[ClipLabel], list[str]]:
    """The labels to run, and the one-line reason of each label file that could not be read."""
    labels, bad = [], []
    parts = [p.strip() for p in only.split(",") if p.strip()] if only else []
    for path in [folder] if folder.is_file() else sorted(folder.glob("*.json")):
        if parts and not any(p in path.stem for p in parts):
            continue
        try:
            label = load_label(path)
        except LabelError as exc:
            bad.append(str(exc))
            continue
        if split in ("all", label.split):
            labels.append(label)
    return labels, bad


def sequence_video(label: ClipLabel, realdata: Path, tmp: Path) -> Path:
    """An image sequence written into a Motion-JPEG video (near the JPEGs' own quality) at the label's rate."""
    pattern = realdata / label.source
    video = tmp / f"{label.name}.avi"
    writer = None
    n = 0
    try:
        for i in range(label.first_image, label.first_image + label.frames):
            img = cv2.imread(str(pattern).replace(pattern.name, pattern.name % i), cv2.IMREAD_COLOR)
            if img is None:
                break
            if writer is None:
                h, w = img.shape[:2]
                writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), label.fps, (w, h))
                writer.set(cv2.VIDEOWRITER_PROP_QUALITY, 98)
            writer.write(img)
            n += 1
    finally:
        if writer is not None:
            writer.release()
    if n == 0:
        raise FileNotFoundError(f"no image {pattern.name % label.first_image} in {pattern.parent}")
    return video


def analyze_argv(label: ClipLabel, video: Path, out: Path, detector: str) -> list[str]:
    length, width = label.table_mm
    return [
        str(video), "--game", label.game, "--table", f"{length:g}x{width:g}", "--ball", f"{label.ball_mm:g}",
        "--out", str(out), "--detector", detector, "--max-frames", str(label.frames), "--quiet",
    ]  # fmt: skip


def run_calibration(argv: list[str], out: Path) -> Calibration:
    """The calibration the run used: its own file when analyze writes one, else the automatic calibration
    analyze makes from the same arguments (the same code, on the same frames)."""
    from api.commands import analyze

    saved = out / "calibration.json"
    if saved.exists():
        return Calibration.load(saved)
    parser = argparse.ArgumentParser()
    analyze.add_arguments(parser)
    args = parser.parse_args(argv)
    video = Path(args.video)
    cap = cv2.VideoCapture(str(video))
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    cap.release()
    table = analyze.table_from_args(args.table, args.ball, args.mouths)
    return analyze.get_calibration(args, video, table, size)


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


# analyze as `tableref analyze` runs it, then the process's own CPU time (every thread, start-up included) on its
# last stderr line: a speed that the other jobs on a shared machine change far less than the wall clock's.
ANALYZE = """import resource, sys
from api.cli import main
try:
    code = main(["analyze", *sys.argv[1:]])
finally:
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(f"bench-cpu-s {r.ru_utime + r.ru_stime:.3f}", file=sys.stderr)
sys.exit(code)
"""
CPU = re.compile(r"^bench-cpu-s ([0-9.]+)$", re.M)


def run_analyze(argv: list[str], out: Path, timeout: float) -> dict[str, Any]:
    """``tableref analyze`` in a process of its own; what the benchmark keeps of it (``bench-run.json`` in its
    output folder): the exit code, the one-line error, the speed it printed, its CPU seconds and its warnings."""
    proc = subprocess.run(
        [sys.executable, "-c", ANALYZE, *argv], capture_output=True, text=True, timeout=timeout, cwd=REPO
    )
    found, cpu = SPEED.search(proc.stdout), CPU.search(proc.stderr)
    stderr = CPU.sub("", proc.stderr)
    run = {
        "returncode": proc.returncode,
        "error": (_one_line(stderr) or f"exit {proc.returncode}") if proc.returncode else None,
        "speed": float(found.group(1)) if found else None,
        "cpu_s": float(cpu.group(1)) if cpu else None,
        "warnings": [ln.strip()[:200] for ln in stderr.splitlines() if "warning" in ln.lower()],
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench-run.json").write_text(json.dumps(run, indent=1), encoding="utf-8")
    return run


def run_clip(
    label: ClipLabel, realdata: Path, work: Path, detector: str, timeout: float, rescore: bool = False
) -> ClipScore:
    """Analyze one clip in a process of its own and score it; any failure is the clip's one-line error.
    ``rescore``: score the run already kept in ``work`` where there is one."""
    out = work / label.name
    try:
        kept = out / "bench-run.json"
        if label.is_sequence:
            video = work / f"{label.name}.avi"
            if not (rescore and kept.exists() and video.exists()):
                video = sequence_video(label, realdata, work)
        else:
            video = realdata / label.source
        if not video.exists():
            raise FileNotFoundError(f"no footage at {video}")
        argv = analyze_argv(label, video, out, detector)
        if rescore and kept.exists():
            run = json.loads(kept.read_text(encoding="utf-8"))
        else:
            run = run_analyze(argv, out, timeout)
        if run["error"]:
            return ClipScore(label.name, label.split, error=run["error"])
        cal = run_calibration(argv, out)
        events = [json.loads(ln) for ln in (out / "events.jsonl").read_text().splitlines() if ln.strip()]
        score = score_clip(label, cal, events, read_tracks(out / "tracks.csv"), speed=run["speed"])
        if run.get("cpu_s"):
            score.cpu_speed = label.frames / label.fps / run["cpu_s"]
        score.notes += [f"analyze: {w[:160]}" for w in run["warnings"][:2]]
        return score
    except subprocess.TimeoutExpired:
        return ClipScore(label.name, label.split, error=f"no result within {timeout:g} s")
    except Exception as exc:  # the scorer must not lose the other clips' figures
        return ClipScore(label.name, label.split, error=f"{type(exc).__name__}: {exc}"[:200])


# ---- printing ---------------------------------------------------------------------------------------------


def _frac(a: int, b: int) -> str:
    return f"{a}/{b}"


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f} ({a}/{b})" if b else f"- ({a}/{b})"


def clip_rows(scores: list[ClipScore]) -> list[str]:
    w = max([len(s.name) + 2 for s in scores] + [20])
    head = (f"{'clip':<{w}}{'split':<8}{'pots L/F/ok':>12}{'+ball':>7}{'first':>7}{'last':>7}"
            f"{'phantom n/s/max':>17}{'moving':>8}{'1st hit':>8}{'cue x':>6}{'cuts':>5}{'off L/F/ok':>11}"
            f"{'x rt':>6}{'cpu x':>7}")  # fmt: skip
    rows = [head]
    for s in scores:
        if s.error:
            rows.append(f"{s.name:<{w}}{s.split:<8}  did not run: {s.error}")
            continue
        pots = f"{s.pots_labelled}/{s.pots_found}/{s.pots_right_pocket}"
        ball = _frac(s.pots_ball_right, s.pots_ball_comparable)
        ph = f"{s.phantoms}/{s.phantom_s:.1f}/{s.phantom_longest_s:.1f}"
        off = f"{s.off_labelled}/{s.off_found}/{s.off_right}"
        speed = "-" if s.speed is None else f"{s.speed:.1f}"
        cpu = "-" if s.cpu_speed is None else f"{s.cpu_speed:.2f}"
        rows.append(
            f"{s.name:<{w}}{s.split:<8}{pots:>12}{ball:>7}{_frac(s.first_tracked, s.first_labelled):>7}"
            f"{_frac(s.last_tracked, s.last_labelled):>7}{ph:>17}{s.excused_moving:>8}"
            f"{_frac(s.first_contact_right, s.shots_labelled):>8}{s.cue_transfers:>6}{s.events_in_cuts:>5}{off:>11}"
            f"{speed:>6}{cpu:>7}"
        )
    return rows


def totals(scores: list[ClipScore]) -> dict[str, str]:
    ran = [s for s in scores if not s.error]

    def tot(attr: str) -> int:
        return sum(getattr(s, attr) for s in ran)

    speeds = [s.speed for s in ran if s.speed is not None]
    cpu = [s.cpu_speed for s in ran if s.cpu_speed is not None]
    longest = max((s.phantom_longest_s for s in ran), default=0.0)
    return {
        "clips that ran": _frac(len(ran), len(scores)),
        "pot recall, right pocket": _ratio(tot("pots_right_pocket"), tot("pots_labelled")),
        "pot precision, right pocket": _ratio(tot("pots_right_pocket"), tot("pots_found")),
        "pots right pocket and ball": f"{tot('pots_ball_right')}/{tot('pots_ball_comparable')} comparable",
        "balls tracked, first frame": _ratio(tot("first_tracked"), tot("first_labelled")),
        "balls tracked, last frame": _ratio(tot("last_tracked"), tot("last_labelled")),
        "phantom tracks": str(tot("phantoms")),
        "phantom track-seconds": f"{sum(s.phantom_s for s in ran):.1f}",
        "longest phantom (s)": f"{longest:.2f}",
        "excused moving fragments": f"{tot('excused_moving')} ({sum(s.excused_moving_s for s in ran):.1f} s)",
        "first contacts right": _ratio(tot("first_contact_right"), tot("shots_labelled")),
        "cue identity transfers": f"{tot('cue_transfers')} in {sum(1 for s in ran if s.cue_transfers)} clips",
        "events in cuts": str(tot("events_in_cuts")),
        "off table found": _ratio(tot("off_right"), tot("off_labelled")),
        "off table false": str(tot("off_found") - tot("off_right")),
        "speed x real time, median (min)": (f"{statistics.median(speeds):.2f} ({min(speeds):.2f})" if speeds else "-"),
        "video s per CPU s, median (min)": f"{statistics.median(cpu):.2f} ({min(cpu):.2f})" if cpu else "-",
    }


def totals_rows(scores: list[ClipScore]) -> list[str]:
    halves = {"tuning": [s for s in scores if s.split == "tuning"],
              "held-out": [s for s in scores if s.split == "heldout"], "all": scores}  # fmt: skip
    cols = {k: totals(v) for k, v in halves.items()}
    rows = [f"{'':<34}" + "".join(f"{k:>22}" for k in cols)]
    for metric in cols["all"]:
        rows.append(f"{metric:<34}" + "".join(f"{cols[k][metric]:>22}" for k in cols))
    return rows


DEFINITIONS = f"""definitions (api/bench/_real_score.py):
  pots L/F/ok: labelled / found / found in the right pocket (by image position, through the run's calibration)
    within the label's frame window widened by {POT_SLACK_S:g} s; +ball: right ball among pots whose ids compare
    (cue or a number on both sides)
  first, last: labelled balls with a track within one ball diameter (one track per ball), the track taken at
    its frame nearest the clip's first / last frame within {EDGE_S:g} s of it
  phantom n/s/max: tracks never within one ball diameter of a labelled ball's first- or last-frame position and
    not a moving ball's fragment; their count, total lifetime and longest lifetime (s)
  moving: such tracks excused as a moving ball's fragment (born after a labelled stroke, median speed
    >= {MOVING_MM_S:g} mm/s)
  1st hit: labelled shots whose first ball hit the run names right (same id; else its track lay on a labelled
    ball of that name at the first or last frame; else at the stroke); a shot start within {SHOT_SLACK_S:g} s
  cue x: the run's cue track (named cue, else its first shot's struck ball) on another labelled ball (within
    a diameter, and nearer it than the labelled cue ball), or off the labelled cue ball, at the first / last frame
  cuts: events inside labelled camera cuts or wipes; off L/F/ok: off-table labelled / found / matched
  x rt: analyze's own "x real time" (wall clock, decoding to the last output); cpu x: the clip's seconds over
    the analyze process's CPU seconds (all threads, start-up and calibration included): on two idle cores
    analyze runs at 1-2 times that"""


def report(scores: list[ClipScore], bad_labels: list[str], header: str) -> str:
    lines = [header, "", *clip_rows(scores), "", *totals_rows(scores), ""]
    notes = [f"  {s.name}: {n}" for s in scores for n in s.notes]
    if notes:
        lines += ["notes:", *notes, ""]
    if bad_labels:
        lines += ["labels not read:", *(f"  {b}" for b in bad_labels), ""]
    lines.append(DEFINITIONS)
    return "\n".join(lines) + "\n"


def run_all(
    labels: list[ClipLabel],
    realdata: Path,
    work: Path,
    detector: str,
    timeout: float,
    jobs: int,
    progress: Callable[[ClipScore], None] | None = None,
    rescore: bool = False,
) -> list[ClipScore]:
    def one(label: ClipLabel) -> ClipScore:
        s = run_clip(label, realdata, work, detector, timeout, rescore)
        if progress is not None:
            progress(s)
        return s

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, labels))


def code_version() -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=REPO)  # fmt: skip
        if head.returncode == 0:
            return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    return "unknown"


def run(args: argparse.Namespace) -> int:
    realdata = Path(args.realdata) if args.realdata else default_realdata()
    if realdata is None or not realdata.is_dir():
        print("real footage: ../shared/realdata not found; left out (give --realdata DIR)")
        return 0
    if not Path(args.labels).exists():
        raise ValueError(f"no label folder or file at {args.labels}")
    labels, bad = find_labels(Path(args.labels), args.split, args.only)
    if not labels:
        print(f"real footage: no labels to run in {args.labels} (split {args.split})")
        for b in bad:
            print(f"  {b}")
        return 0 if not bad else 1

    def progress(s: ClipScore) -> None:
        print(f"  {s.name}: {'error: ' + s.error if s.error else 'done'}", file=sys.stderr, flush=True)

    with contextlib.ExitStack() as stack:
        if args.keep:
            work = Path(args.keep)
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tableref-bench-real-")))
        scores = run_all(labels, realdata, work, args.detector, args.timeout, args.jobs, progress, args.rescore)
    header = (
        f"tableref bench real: {len(scores)} labelled clips ({args.split}), analyze --detector {args.detector}, "
        f"{args.jobs} at a time; code at {code_version()}"
    )
    text = report(scores, bad, header)
    sys.stdout.write(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "real.txt").write_text(text, encoding="utf-8")
        clips = [dataclasses.asdict(s) for s in scores]
        (out / "real.json").write_text(
            json.dumps({"header": header, "clips": clips}, indent=1) + "\n", encoding="utf-8"
        )
    return 0
