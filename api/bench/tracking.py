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
median absolute timing error in frames, and the track position error (median, p95) in mm. Two rows are parts
of another: ``cushion_segment`` (cushion touches without the jaws) and ``contact_apart`` (contacts between
balls that were not touching when their shot began; a rack's own pushes left out, ``tracking.metrics``).

With ``--suite``: a line per scene as it is scored (``--jobs N``: N worker processes over the scene folders;
the lines, tables and figures are the same as serially, in name order), then per frame rate the table above,
the track position error split by the truth ball's state (resting, moving by speed, near a cushion, in a
pocket mouth, near another ball) and the scenes that carry the most rows over 3 mm, and the scenes where the
referee's calls on the events found differ from its calls on the truth (``api.bench.verdicts``), and per event
type how well the events' confidence and review flag tell those found right from those found wrong
(``tracking.evaluation.confidence_split``), and the phantom tracks: tracks never within one ball diameter of a
truth ball of their frame, less moving fragments, counted as ``bench real`` counts them (``scene_phantoms``).
``--out FILE`` also writes the printed report to FILE.

Working on the events alone: ``--record`` keeps what the tracker was fed in each scene (the detections after the
streak and launch measurements) in ``SCENE/tracker-input.npz``; ``--replay`` feeds those instead of decoding and
detecting the video, in a tenth of the time. A replay gives the recorded run's figures for as long as the
detector and the streak measurements are unchanged (they read the tracker's predictions, so a change to the
tracker or the events can move what a fresh run measures: confirm a replayed gain on the video). ``--set
NAME=VALUE`` (or ``GROUP.NAME=VALUE``) overrides an ``ExtractorSettings`` field for the run, to try a setting
without editing it; ``--set tracker.NAME=VALUE`` a ``TrackerSettings`` field. ``--screen NAMES`` (``all``, or
comma separated) replays the suites given as ``--suite A,B --heldout C,D`` once per named setting with that
setting switched off (``api.bench._settings_screen``) and prints what each switch moves.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from api.bench._real_score import PhantomTally, Track, phantom_tally
from api.bench.verdicts import verdict_difference
from api.commands.bench import Tee
from api.pipeline import Pipeline, no_start, timed_frames
from calibration.contract import Event, read_jsonl
from calibration.table import TableModel
from tracking.detect.settings import setting_path, with_values
from tracking.evaluation import Judged, confidence_split, judged_events
from tracking.extractor import ExtractorSettings
from tracking.kinematic_sim import SCENARIOS, detections_from_truth, make_setup, simulate_shot
from tracking.metrics import SCORED, Scores, touching_at_shots
from tracking.tracker_settings import TrackerSettings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shots", type=int, default=200, help="kinematic shots per frame rate (default 200)")
    parser.add_argument("--fps", default="60,30", help="frame rates to run, comma separated (default 60,30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--noise", type=float, default=0.8, help="detection noise, mm (default 0.8)")
    parser.add_argument("--dropout", type=float, default=0.02, help="share of detections lost (default 0.02)")
    parser.add_argument("--suite", metavar="DIR", help="score rendered synth scenarios in DIR instead")
    parser.add_argument("--detector", default="classical", help="detector for --suite")
    parser.add_argument("--verbose", action="store_true", help="print each shot's misses")
    parser.add_argument("--jobs", type=int, default=1, help="with --suite: scenes scored at once (processes)")
    parser.add_argument("--out", metavar="FILE", help="also write the printed report to FILE")
    parser.add_argument("--no-streaks", action="store_true", help="with --suite: no blur-streak measurements")
    feed = parser.add_mutually_exclusive_group()
    feed.add_argument("--record", action="store_true", help="with --suite: keep each scene's tracker input")
    feed.add_argument("--replay", action="store_true", help="with --suite: feed the recorded tracker input")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override an ExtractorSettings field (tracker.NAME: a TrackerSettings field)",
    )
    parser.add_argument("--screen", metavar="NAMES", help="with --suite A,B: each setting switched off in turn ('all')")
    parser.add_argument("--heldout", default="", metavar="DIRS", help="with --screen: held-out suites, comma separated")
    parser.add_argument(
        "--every-suite", action="store_true", help="with --screen: replay every suite, not stop at the first moved"
    )


@dataclass(frozen=True)
class _Dets:
    pos_mm: np.ndarray
    confidence: np.ndarray
    cls: np.ndarray


def run_kinematic(
    n: int,
    fps: float,
    seed: int,
    noise: float,
    dropout: float,
    verbose: bool,
    settings: ExtractorSettings | None = None,
) -> tuple[Scores, float]:
    """The kinematic suite: ``n`` simulated shots at ``fps``, their truth turned into noisy detections (``noise``
    mm, a ``dropout`` share lost) and fed to the pipeline, extractor ``settings`` (default: its own)."""
    table = TableModel()
    # the shots' setups from one stream and each shot's detection noise from its own: a change that alters one
    # shot's outcome (its length, so the noise drawn for it) leaves every other shot as it was
    rng = np.random.default_rng(seed)
    scores = Scores()
    tol = 1.0 / fps
    work = 0.0
    video = 0.0
    for k in range(n):
        name = SCENARIOS[k % len(SCENARIOS)]
        setup = make_setup(table, name, rng)
        sim = simulate_shot(table, setup.balls, setup.struck, setup.velocity, fps=fps)
        noise_rng = np.random.default_rng((seed, k))
        dets = detections_from_truth(sim, noise_rng, noise_mm=noise, dropout=dropout, occluders=setup.occluders)
        t0 = time.perf_counter()
        pipe = Pipeline(table=table, known_ids=setup.balls, extractor_settings=settings, fps=fps)
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
    for line in miss_lines(k, name, pred, truth, tol):
        print(line)


def miss_lines(k: int, name: str, pred: list[Event], truth: list[Event], tol: float) -> list[str]:
    from tracking.metrics import SCORED, event_key

    out = []
    tc = [e for e in truth if e.type == "contact"]
    pc = [e for e in pred if e.type == "contact"]
    if tc and (not pc or pc[0].balls != tc[0].balls or abs((pc[0].t or 0) - (tc[0].t or 0)) > tol):
        got = f"{pc[0].balls} at {pc[0].t:.4f}" if pc else "none"
        out.append(f"  shot {k} {name}: first contact {tc[0].balls} at {tc[0].t:.4f}, found {got}")
    for kind in SCORED:
        ps = [e for e in pred if e.type == kind]
        ts = [e for e in truth if e.type == kind]
        for t in ts:
            if not any(event_key(p) == event_key(t) and abs((p.t or 0) - (t.t or 0)) <= tol for p in ps):
                out.append(f"  shot {k} {name}: missed {kind} {event_key(t)} at {t.t:.4f}")
        for p in ps:
            if not any(event_key(p) == event_key(t) and abs((p.t or 0) - (t.t or 0)) <= tol for t in ts):
                out.append(f"  shot {k} {name}: extra {kind} {event_key(p)} at {p.t:.4f} conf {p.confidence}")
    return out


# ---- rendered suites -------------------------------------------------------------------------------------
REST_MM_S = 20.0  # a truth ball slower than this is resting
SPEED_BANDS = (1000.0, 3000.0)  # mm/s: rolling slowly / fast / very fast (a streak at 30 fps)


@dataclass(frozen=True)
class RowStates:
    """Per truth row that the pipeline matched: its position error and the truth ball's circumstances."""

    err_mm: np.ndarray
    speed_mm_s: np.ndarray
    cushion_gap_mm: np.ndarray  # from the ball's edge to the nearest cushion nose or jaw
    ball_gap_mm: np.ndarray  # from the ball's edge to the nearest other ball's edge
    in_mouth: np.ndarray  # centre in a pocket mouth (bool)
    frame: np.ndarray
    ball: np.ndarray  # ids (str)


@dataclass
class SceneResult:
    name: str
    fps: float
    frames: int
    work_s: float
    scores: Scores
    rows: RowStates
    misses: list[str]
    verdicts: str | None = None  # how the referee's calls on the found events differ from those on the truth
    judged: dict[str, list[Judged]] = field(default_factory=dict)  # per event type: each found event, right or not
    phantoms: PhantomTally = field(default_factory=PhantomTally)  # tracks on no truth ball (``scene_phantoms``)

    @property
    def speed(self) -> float:
        return (self.frames / self.fps) / max(self.work_s, 1e-9)

    def line(self) -> str:
        s = self.scores
        e = self.rows.err_mm
        pos = f"pos med {np.median(e):.2f} p95 {np.percentile(e, 95):.2f} max {e.max():.1f} mm" if len(e) else "no rows"
        ev = sum(t.tp for k, t in s.events.items() if k in SCORED)
        bad = sum(t.fp + t.fn for k, t in s.events.items() if k in SCORED)
        return (
            f"  {self.name}: {self.frames} frames at {self.fps:g} fps, {self.speed:.2f}x real time; "
            f"events matched {ev}, missed+extra {bad}; {pos}; rows {s.rows_matched}/{s.rows_truth}"
        )


def row_states(
    table: TableModel,
    fps: float,
    truth_rows: list[tuple[int, str, float, float]],
    pred: dict[tuple[int, str], tuple[float, float]],
) -> RowStates:
    """Each truth row with a prediction: the error and where the truth ball was, how fast it went."""
    by_ball: dict[str, dict[int, tuple[float, float]]] = {}
    by_frame: dict[int, list[tuple[float, float]]] = {}
    for f, b, x, y in truth_rows:
        by_ball.setdefault(b, {})[f] = (x, y)
        by_frame.setdefault(f, []).append((x, y))
    r = table.ball_radius_mm
    d = table.ball_diameter_mm
    noses = list(table.cushions.values()) + [j for pk in table.pockets.values() for j in pk.jaws]
    cols: dict[str, list[float]] = {k: [] for k in ("err", "speed", "cushion", "ball", "mouth", "frame")}
    ids: list[str] = []
    for f, b, x, y in truth_rows:
        p = pred.get((f, b))
        if p is None:
            continue
        track = by_ball[b]
        before, after = track.get(f - 1), track.get(f + 1)
        if before is not None and after is not None:
            v = np.hypot(after[0] - before[0], after[1] - before[1]) * fps / 2
        elif before is not None or after is not None:
            q = before if before is not None else after
            assert q is not None
            v = np.hypot(x - q[0], y - q[1]) * fps
        else:
            v = 0.0
        others = np.array(by_frame[f], dtype=float)
        gaps = np.hypot(others[:, 0] - x, others[:, 1] - y)
        gaps = gaps[gaps > 1e-6]
        cols["err"].append(float(np.hypot(p[0] - x, p[1] - y)))
        cols["speed"].append(float(v))
        cols["cushion"].append(min(c.distance((x, y)) for c in noses) - r)
        cols["ball"].append(float(gaps.min()) - d if len(gaps) else np.inf)
        cols["mouth"].append(1.0 if table.in_pocket_mouth((x, y)) else 0.0)
        cols["frame"].append(f)
        ids.append(b)
    return RowStates(
        np.array(cols["err"]),
        np.array(cols["speed"]),
        np.array(cols["cushion"]),
        np.array(cols["ball"]),
        np.array(cols["mouth"]) > 0,
        np.array(cols["frame"], dtype=int),
        np.array(ids, dtype=object),
    )


def scene_phantoms(
    table: TableModel,
    fps: float,
    rows: list[tuple[int, str, float, float]],
    truth_rows: list[tuple[int, str, float, float]],
    strikes: list[int],
) -> PhantomTally:
    """Phantom tracks of a rendered scene, as ``bench real`` defines them (``_real_score.phantom_tally``), with
    exact truth: a track is on a ball when one of its rows lies within one ball diameter of a truth ball of the
    same frame (a potted ball has no truth rows after its pot, so a track left where it went is not on it)."""
    frames = max((r[0] for r in truth_rows), default=-1) + 1
    count = np.zeros(frames, dtype=np.int64)
    for f, *_ in truth_rows:
        count[f] += 1
    truth = np.full((frames, int(count.max(initial=0)), 2), np.nan)  # per frame its truth balls, NaN-padded
    count[:] = 0
    for f, _b, x, y in truth_rows:
        truth[f, count[f]] = (x, y)
        count[f] += 1
    d = table.ball_diameter_mm

    def near_truth(tr: Track) -> bool:
        inside = tr.frame < frames
        if not inside.any() or truth.shape[1] == 0:
            return False
        gap = np.linalg.norm(truth[tr.frame[inside]] - tr.xy[inside][:, None, :], axis=2)
        return bool(np.any(gap <= d))  # NaN (no ball in that slot) compares false

    by_ball: dict[str, list[tuple[int, float, float]]] = {}
    for f, b, x, y in rows:
        by_ball.setdefault(b, []).append((f, x, y))
    tracks = []
    for b, rs in by_ball.items():
        a = np.array(sorted(rs), dtype=np.float64)
        tracks.append(Track(b, a[:, 0].astype(np.int64), a[:, 1:3]))
    return phantom_tally(tracks, near_truth, fps, strikes)


def scene_folders(root: Path) -> list[Path]:
    candidates = [root, *sorted(p for p in root.iterdir() if p.is_dir())] if root.is_dir() else []
    folders = [p for p in candidates if (p / "video.mp4").exists() and (p / "truth" / "events.jsonl").exists()]
    if not folders:
        raise ValueError(f"no scenario folders (video.mp4 + truth/events.jsonl) under {root}")
    return folders


@dataclass(frozen=True)
class SceneRun:
    """How each scene of a suite is run: the detector, the streak measurements, where the tracker's input comes
    from (``video``; ``record``: the video, keeping the input; ``replay``: the kept input) and extractor
    settings overridden (``NAME=VALUE``)."""

    detector: str = "classical"
    streaks: bool = True
    feed: str = "video"
    overrides: tuple[str, ...] = ()

    def extractor_settings(self) -> ExtractorSettings:
        return settings_with(ExtractorSettings(), [o for o in self.overrides if not o.startswith(TRACKER)])

    def tracker_settings(self) -> TrackerSettings:
        mine = [o.removeprefix(TRACKER) for o in self.overrides if o.startswith(TRACKER)]
        return settings_with(TrackerSettings(), mine, TRACKER)


S = TypeVar("S")
TRACKER = "tracker."  # the prefix of a --set that names a TrackerSettings field


def settings_with(settings: S, overrides: tuple[str, ...] | list[str], prefix: str = "") -> S:
    """``settings`` with ``NAME=VALUE`` overrides, each value read as its field's default is typed."""
    changes: dict[str, Any] = {}
    for item in overrides:
        name, sep, value = item.partition("=")
        name = name.strip()
        try:
            path = setting_path(settings, name) if sep else []
        except ValueError:
            path = []
        if not path:
            record = type(settings).__name__
            raise ValueError(f"--set {prefix}{item!r}: not NAME=VALUE with a {record} field (NAME or GROUP.NAME)")
        current: Any = settings
        for part in path:
            current = getattr(current, part)
        kind = type(current)
        if kind not in (int, float, bool):
            raise ValueError(f"--set {item!r}: {name} is not a number")
        changes[name] = value.strip().lower() in ("1", "true", "yes") if kind is bool else kind(value)
    return with_values(settings, **changes)


TRACKER_INPUT = "tracker-input.npz"


class _Recorder:
    """What the tracker is fed, frame after frame, for ``TRACKER_INPUT``: positions, confidences, classes and
    colours, and, where vision gave them, where no track may start (``api.pipeline.no_start``) and each
    detection's p(ball) (NaN where not judged), so that a replay starts the same balls the video did."""

    def __init__(self) -> None:
        self.frames: list[tuple[int, float, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]] = []
        self.barred: list[np.ndarray | None] = []
        self.looks: list[np.ndarray | None] = []

    def add(self, dets: Any, index: int, t: float) -> None:
        colour = getattr(dets, "colour", None)
        self.frames.append((
            index, float(t),
            np.asarray(dets.pos_mm, dtype=float).reshape(-1, 2),
            np.asarray(dets.confidence, dtype=float).reshape(-1),
            np.asarray(dets.cls).reshape(-1),
            None if colour is None else np.asarray(colour, dtype=float).reshape(-1, 3),
        ))  # fmt: skip
        barred, look = no_start(dets), getattr(dets, "p_ball", None)
        self.barred.append(None if barred is None else np.asarray(barred, dtype=bool).reshape(-1))
        self.looks.append(None if look is None else np.asarray(look, dtype=float).reshape(-1))

    def save(self, path: Path) -> None:
        f = self.frames
        colours = [c for *_, c in f]
        arrays: dict[str, Any] = {
            "index": np.array([x[0] for x in f], dtype=np.int64),
            "t": np.array([x[1] for x in f], dtype=float),
            "count": np.array([len(x[2]) for x in f], dtype=np.int64),
            "pos_mm": np.concatenate([x[2] for x in f]) if f else np.zeros((0, 2)),
            "confidence": np.concatenate([x[3] for x in f]) if f else np.zeros(0),
            "cls": np.concatenate([x[4] for x in f]) if f else np.zeros(0, np.int64),
        }
        if f and all(c is not None for c in colours):
            arrays["colour"] = np.concatenate(colours)  # type: ignore[arg-type]
        if any(b is not None for b in self.barred):
            # per frame whether vision flagged it at all (a frame without flags lets a track start anywhere)
            arrays["flagged"] = np.array([b is not None for b in self.barred])
            arrays["no_start"] = np.concatenate([
                np.zeros(len(x[2]), bool) if b is None else b for x, b in zip(f, self.barred, strict=True)
            ])  # fmt: skip
        if any(p is not None for p in self.looks):
            arrays["p_ball"] = np.concatenate([
                np.full(len(x[2]), np.nan) if p is None else p for x, p in zip(f, self.looks, strict=True)
            ])  # fmt: skip
        np.savez_compressed(path, **arrays)


@dataclass(frozen=True)
class _Recorded:
    pos_mm: np.ndarray
    confidence: np.ndarray
    cls: np.ndarray
    colour: np.ndarray | None
    no_start: np.ndarray | None = None
    p_ball: np.ndarray | None = None  # NaN where not judged: the same as none for ``vision.ball_classifier.combine``


def recorded_frames(path: Path) -> Iterator[tuple[int, float, _Recorded]]:
    """The frames of a ``TRACKER_INPUT`` file: (index, t, detections) as the tracker was fed them."""
    if not path.exists():
        raise ValueError(f"{path} is missing: run the suite once with --record")
    with np.load(path, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    ends = np.cumsum(data["count"])
    colour, barred, look, flagged = (data.get(k) for k in ("colour", "no_start", "p_ball", "flagged"))
    for k, (i, t) in enumerate(zip(data["index"], data["t"], strict=True)):
        a, b = (int(ends[k - 1]) if k else 0), int(ends[k])
        col = None if colour is None else colour[a:b]
        nos = None if barred is None or flagged is None or not flagged[k] else barred[a:b]
        dets = _Recorded(
            data["pos_mm"][a:b], data["confidence"][a:b], data["cls"][a:b], col, nos,
            None if look is None else look[a:b],
        )  # fmt: skip
        yield int(i), float(t), dets


def stated_format(folder: Path) -> tuple[float, tuple[int, int]] | None:
    """The frame rate and image size a scene's ``camera.json`` states, when it states both."""
    cam = folder / "camera.json"
    obj = json.loads(cam.read_text(encoding="utf-8")) if cam.exists() else {}
    if not obj.get("fps") or not obj.get("image_size"):
        return None
    return float(obj["fps"]), (int(obj["image_size"][0]), int(obj["image_size"][1]))


def score_scene(folder: Path, run: SceneRun | None = None) -> SceneResult:
    """One rendered scenario folder through the whole pipeline (as ``analyze`` runs it), or from its recorded
    tracker input, scored against its truth."""
    import cv2

    from api.capture import open_video
    from api.commands.analyze import scenario_calibration

    run = run or SceneRun()
    stated = stated_format(folder) if run.feed == "replay" else None
    cap = None if stated else open_video(folder / "video.mp4")  # a replay decodes nothing: the video may be gone
    if cap is None:
        assert stated is not None
        fps, size = stated
    else:
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 30.0)
        size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    truth = read_jsonl(folder / "truth" / "events.jsonl")
    with open(folder / "truth" / "tracks.csv", encoding="utf-8") as f:
        truth_rows = [(int(r["frame"]), r["ball"], float(r["x"]), float(r["y"])) for r in csv.DictReader(f)]
    first = min((r[0] for r in truth_rows), default=0)
    known = {b: (x, y) for fr, b, x, y in truth_rows if fr == first}
    table = TableModel()
    cal = scenario_calibration(folder / "video.mp4", table, size)
    pipe = Pipeline(
        cal, game=None, detector_name=run.detector, known_ids=known, streaks=run.streaks and run.feed != "replay",
        tracker_settings=run.tracker_settings(), extractor_settings=run.extractor_settings(), fps=fps,
    )  # fmt: skip
    recorder = _Recorder() if run.feed == "record" else None
    if recorder is not None:
        feed = pipe.step_detections

        def step_recorded(dets: Any, index: int, t: float) -> list[Event]:
            recorder.add(dets, index, t)
            return feed(dets, index, t)

        pipe.step_detections = step_recorded  # type: ignore[method-assign]
    t0 = time.perf_counter()
    try:
        if run.feed == "replay":
            frames = list(recorded_frames(folder / TRACKER_INPUT))
            for i, t, dets in frames:
                pipe.step_detections(dets, i, t)
            pipe.finish()
            n = len(frames)
        else:
            assert cap is not None
            n = pipe.run_timed(timed_frames(cap, fps))
    finally:
        if cap is not None:
            cap.release()
    work = time.perf_counter() - t0
    if recorder is not None:
        recorder.save(folder / TRACKER_INPUT)
    scores = Scores()
    pred_events = pipe.sorted_events()
    scores.add_shot(pred_events, truth, 1.0 / fps, touching_at_shots(truth, truth_rows, table.ball_diameter_mm))
    rows = [(r.frame, r.ball, r.x, r.y) for r in pipe.track_rows()]
    scores.add_tracks(rows, truth_rows)
    states = row_states(table, fps, truth_rows, {(f, b): (x, y) for f, b, x, y in rows})
    misses = miss_lines(0, folder.name, pred_events, truth, 1.0 / fps)
    calls = verdict_difference(folder, pred_events, truth, table)
    judged = {k: judged_events(truth, pred_events, k, 1.0 / fps) for k in SCORED}
    strikes = [e.frame for e in truth if e.type == "shot_start" and e.frame is not None]
    phantoms = scene_phantoms(table, fps, rows, truth_rows, strikes)
    return SceneResult(folder.name, fps, n, work, scores, states, misses, calls, judged, phantoms)


def _score_scene_args(job: tuple[Path, SceneRun]) -> SceneResult:
    return score_scene(*job)


def merge_scores(into: Scores, other: Scores) -> None:
    for k, t in other.events.items():
        into.events.setdefault(k, type(t)()).add(t)
    into.pos_err.extend(other.pos_err)
    into.rows_truth += other.rows_truth
    into.rows_matched += other.rows_matched
    into.shots += other.shots


def run_suite(root: Path, run: SceneRun | None = None, verbose: bool = False, jobs: int = 1) -> list[SceneResult]:
    """Every scenario folder under ``root``, in name order, ``jobs`` at a time in worker processes; prints a
    line per scene (and its misses with ``verbose``) in that order whatever the finishing order."""
    folders = scene_folders(root)
    work = [(f, run or SceneRun()) for f in folders]
    results: list[SceneResult] = []

    def report(r: SceneResult) -> None:
        results.append(r)
        print(r.line(), flush=True)
        if verbose:
            for line in r.misses:
                print(line)

    if jobs <= 1 or len(folders) == 1:
        for job in work:
            report(_score_scene_args(job))
        return results
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")  # no fork of a process that may hold decoder threads
    # Each worker's BLAS on one thread: N workers already share the cores, and OpenBLAS's threads make the
    # last digits of the tracker's sums vary from run to run (a spawned worker reads the variable when it
    # loads numpy; this process's numpy is loaded already).
    saved = os.environ.get("OPENBLAS_NUM_THREADS")
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            for r in pool.map(_score_scene_args, work):
                report(r)
    finally:
        if saved is None:
            os.environ.pop("OPENBLAS_NUM_THREADS", None)
        else:
            os.environ["OPENBLAS_NUM_THREADS"] = saved
    return results


def _concat(rows: list[RowStates]) -> RowStates:
    return RowStates(*(np.concatenate([getattr(r, k) for r in rows]) for k in RowStates.__dataclass_fields__))


def print_states(rows: RowStates) -> None:
    """The track position error split by what the truth ball was doing."""
    e = rows.err_mm
    if not len(e):
        return
    slow, fast = SPEED_BANDS
    moving = rows.speed_mm_s >= REST_MM_S
    groups = [
        ("all", np.ones(len(e), bool)),
        (f"resting (< {REST_MM_S:g} mm/s)", ~moving),
        (f"moving < {slow / 1000:g} m/s", moving & (rows.speed_mm_s < slow)),
        (f"moving {slow / 1000:g}-{fast / 1000:g} m/s", (rows.speed_mm_s >= slow) & (rows.speed_mm_s < fast)),
        (f"moving >= {fast / 1000:g} m/s", rows.speed_mm_s >= fast),
        ("within a radius of a cushion", rows.cushion_gap_mm < 34.0),
        ("in a pocket mouth", rows.in_mouth),
        ("within a radius of a ball", rows.ball_gap_mm < 34.0),
        ("resting, touching a ball", ~moving & (rows.ball_gap_mm < 2.0)),
        ("moving, near a ball or cushion", moving & ((rows.ball_gap_mm < 34.0) | (rows.cushion_gap_mm < 34.0))),
    ]
    print("track position error by the truth ball's state (a row may be in several groups)")
    print(f"{'state':<34}{'rows':>8}{'median mm':>11}{'p95 mm':>9}{'max mm':>9}{'> 3 mm':>9}{'share of > 3 mm':>17}")
    big = max(int((e > 3.0).sum()), 1)
    for name, m in groups:
        n = int(m.sum())
        if n == 0:
            continue
        g = e[m]
        over = int((g > 3.0).sum())
        print(
            f"{name:<34}{n:>8}{np.median(g):>11.3f}{np.percentile(g, 95):>9.3f}{g.max():>9.1f}{over:>9}"
            f"{over / big:>17.1%}"
        )


def print_worst(results: list[SceneResult], k: int = 8) -> None:
    """The scenes that carry the most rows over 3 mm, with their worst row."""
    tally = []
    for r in results:
        e = r.rows.err_mm
        if not len(e):
            continue
        i = int(np.argmax(e))
        tally.append((int((e > 3.0).sum()), r, i))
    tally.sort(key=lambda x: -x[0])
    print(f"scenes with the most rows over 3 mm (of {sum(t[0] for t in tally)})")
    for over, r, i in tally[:k]:
        if over == 0:
            break
        rs = r.rows
        print(
            f"  {r.name}: {over} rows; worst frame {rs.frame[i]} ball {rs.ball[i]} {rs.err_mm[i]:.1f} mm "
            f"(speed {rs.speed_mm_s[i] / 1000:.2f} m/s, cushion gap {rs.cushion_gap_mm[i]:.0f} mm, "
            f"ball gap {rs.ball_gap_mm[i]:.0f} mm)"
        )


def print_phantoms(results: list[SceneResult], k: int = 8) -> None:
    """Phantom tracks over the scenes (``scene_phantoms``): the totals ``bench real`` prints, then the longest
    ones with where they stood."""
    ts = [r.phantoms for r in results]
    longest = max((t.longest_s for t in ts), default=0.0)
    print(
        f"phantom tracks: {sum(t.phantoms for t in ts)}, {sum(t.phantom_s for t in ts):.2f} track-seconds, "
        f"longest {longest:.2f} s; excused as moving fragments: {sum(len(t.excused) for t in ts)}, "
        f"{sum(life for t in ts for _, life in t.excused):.2f} s"
    )
    worst = sorted(((life, r.name, tr) for r in results for tr, life in r.phantoms.found), key=lambda x: -x[0])
    for life, name, tr in worst[:k]:
        x, y = np.median(tr.xy, axis=0)
        print(
            f"  {name}: {tr.ball} frames {int(tr.frame[0])}-{int(tr.frame[-1])} ({life:.2f} s) at ({x:.0f}, {y:.0f}) mm"
        )


def print_verdicts(results: list[SceneResult]) -> None:
    """How many scenes get the same calls from the referee as their truth does, and what differs in the rest."""
    differ = [r for r in results if r.verdicts is not None]
    print(f"referee's calls as on the truth: {len(results) - len(differ)} of {len(results)} scenes")
    for r in differ:
        print(f"  {r.name}: {r.verdicts}")


def print_confidence(results: list[SceneResult]) -> None:
    """Per event type and over all: how well confidence tells the events found right (matching the truth) from
    those found wrong (matching nothing), and how the review flag falls on each."""

    def fig(v: float | None, width: int) -> str:
        return f"{'-':>{width}}" if v is None else f"{v:>{width}.3f}"

    print("confidence: right (matched) vs wrong (extra) events; flag = review")
    print(f"{'event':<12}{'right':>7}{'wrong':>7}{'AUC':>8}{'wrong flagged':>15}{'right flagged':>15}{'flag prec':>11}")
    every: list[Judged] = []
    for k in (*SCORED, "all"):
        js = every if k == "all" else [j for r in results for j in r.judged.get(k, [])]
        if k != "all":
            every.extend(js)
        if not js:
            continue
        c = confidence_split(js)
        print(
            f"{k:<12}{c.right:>7}{c.wrong:>7}{fig(c.auc, 8)}{fig(c.wrong_flagged, 15)}{fig(c.right_flagged, 15)}"
            f"{fig(c.flag_precision, 11)}"
        )


def print_scores(title: str, s: Scores, fps: float, speed: float) -> None:
    print(f"\n{title}: {s.shots} shots at {fps:g} fps (tolerance one frame = {1000 / fps:.1f} ms)")
    print(f"{'event':<16}{'F1':>8}{'precision':>11}{'recall':>9}{'truth':>8}{'found':>8}{'median |dt| (frames)':>23}")
    rows = ("pot", "first_contact", "contact", "contact_apart", "cushion", "cushion_segment", "line_cross", "off_table")
    for k in rows:
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
    out_file = Path(args.out) if getattr(args, "out", None) else None
    buf = io.StringIO()
    with contextlib.redirect_stdout(Tee(sys.stdout, buf)) if out_file else contextlib.nullcontext():
        code = _run(args)
    if out_file is not None:
        if out_file.is_dir():
            out_file = out_file / "tracking.txt"
        out_file.write_text(buf.getvalue(), encoding="utf-8")
    return code


def _run(args: argparse.Namespace) -> int:
    if args.suite:
        jobs = max(1, int(args.jobs))
        feed = "record" if args.record else "replay" if args.replay else "video"
        run = SceneRun(args.detector, not args.no_streaks, feed, tuple(args.set))
        run.extractor_settings(), run.tracker_settings()  # a wrong --set fails here, before any scene
        if args.screen:
            from api.bench._settings_screen import screen

            tuning = [Path(p) for p in str(args.suite).split(",") if p]
            held = [Path(p) for p in str(args.heldout).split(",") if p]
            return screen(args.screen, tuning, held, run, args.every_suite)
        results = run_suite(Path(args.suite), run, args.verbose, jobs)
        for fps in sorted({r.fps for r in results}, reverse=True):
            at = [r for r in results if r.fps == fps]
            scores = Scores()
            for r in at:
                merge_scores(scores, r.scores)
            work = sum(r.work_s for r in at)
            speed = sum(r.frames for r in at) / fps / max(work, 1e-9)
            print_scores(f"synth suite {args.suite}: {len(at)} scenes", scores, fps, 0.0)
            what = "tracking and events (recorded input)" if feed == "replay" else "whole pipeline (detection included)"
            print(f"{what}: {speed:.2f}x real time over the {len(at)} scenes")
            print_verdicts(at)
            print_confidence(at)
            print_states(_concat([r.rows for r in at]))
            print_worst(at)
            print_phantoms(at)
        return 0
    settings = settings_with(ExtractorSettings(), args.set)  # a wrong --set fails here, before any shot
    for fps in (float(f) for f in str(args.fps).split(",") if f.strip()):
        scores, speed = run_kinematic(args.shots, fps, args.seed, args.noise, args.dropout, args.verbose, settings)
        print_scores("kinematic suite", scores, fps, speed)
    return 0
