"""``tableref bench detect``: the ball detectors side by side on rendered and on real labelled frames.

Rendered suite (``models.detector.scenes.bench_cases``, the ``synth`` extra): 720p, 1080p, 1440p and
4K frames under random cameras (tilt 0..30 degrees, barrel distortion), uneven light, noise, motion blur,
the player's arm and cue, the racked pyramid, clusters, frozen balls, balls by cushions and in pocket
mouths. Each detector gets the exact calibration of the camera the frame was rendered with. Real frames:
``padova`` (first and last frames of four pool clips, one box per ball), calibrated by
``calibration.auto`` (or, where that fails, from the labelled playing-field mask).

Printed per detector: recall and precision (a detection matches a visible ball within half a radius of
its centre; balls whose centre the player hides are neither hits nor misses, and a detection on one is
not a false one), centre error on the cloth in mm at 1080p (median, p95), the share of rendered racks
whose 15 balls are all found, and the median milliseconds per 1080p frame on one core (OpenCV and
onnxruntime held to one thread) with its speed ratio to the baseline, ``cv2.HoughCircles`` on the raw
frame, timed in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.mapping import CORNER_NAMES, Calibration, CalibrationError
from calibration.table import TableModel, TableSpec
from vision.detections import Detections
from vision.detector import DETECTORS, DetectorError, make_detector

BASELINE = "hough"
POOL_TABLE = TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=57.15)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--detectors", default="classical,neural,hough", help="comma-separated (default: all)")
    parser.add_argument("--racks", type=int, default=20, help="rendered racked pyramids (default 20)")
    parser.add_argument(
        "--scale", type=float, default=0.5, help="size of the rest of the suite (default 0.5; 1: 164 frames)"
    )
    parser.add_argument(
        "--realdata", default=None, help="folder of the padova frames (default: ../shared/realdata/padova)"
    )
    parser.add_argument("--no-rendered", action="store_true", help="only the real frames")
    parser.add_argument("--no-real", action="store_true", help="only the rendered suite")
    parser.add_argument("--repeat", type=int, default=3, help="timed detect() calls per 1080p frame (median)")


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    err_1080: list[float] = field(default_factory=list)
    racks: int = 0
    racks_ok: int = 0
    ms_1080: list[float] = field(default_factory=list)
    stages_1080: dict[str, list[float]] = field(default_factory=dict)  # stage -> per-frame median ms
    frames: int = 0
    failed: int = 0

    @property
    def recall(self) -> float:
        return self.tp / max(self.tp + self.fn, 1)

    @property
    def precision(self) -> float:
        return self.tp / max(self.tp + self.fp, 1)


def match(
    det_px: np.ndarray, true_px: np.ndarray, radius: np.ndarray, hidden: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Optimal one-to-one matching within half a radius. Returns matched (det, true) index arrays and
    tp, fp, fn, where hidden balls neither count as misses nor make their detections false."""
    n_det, n_true = len(det_px), len(true_px)
    r = c = np.zeros(0, np.int64)
    if n_det and n_true:
        d = np.linalg.norm(det_px[:, None, :] - true_px[None, :, :], axis=2)
        cost = np.where(d <= radius[None, :] / 2, d, 1e9)
        r, c = linear_sum_assignment(cost)
        ok = cost[r, c] < 1e9
        r, c = r[ok], c[ok]
    matched_true = np.zeros(n_true, bool)
    matched_true[c] = True
    tp = int((matched_true & ~hidden).sum())
    fn = int((~matched_true & ~hidden).sum())
    fp = n_det - len(r)
    return r, c, tp, fp, fn


def _build(name: str, cal: Calibration) -> object:
    opts: dict[str, object] = {"threads": 1} if name == "neural" else {}
    return make_detector(name, cal, **opts)


def _timed(det: object, img: np.ndarray, repeat: int) -> tuple[Detections, list[float], dict[str, list[float]]]:
    """The detections, the ms of each of ``repeat`` timed calls after a warming one, and for a detector that
    reports them (``stage_ms``) the ms of each stage in each timed call."""
    out = det.detect(img)  # type: ignore[attr-defined]  # first call: warms caches and the cloth model
    times = []
    stages: dict[str, list[float]] = {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = det.detect(img)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - t0) * 1000.0)
        for k, v in getattr(det, "stage_ms", {}).items():
            stages.setdefault(k, []).append(v)
    return out, times, stages


def bench_rendered(names: list[str], args: argparse.Namespace, tallies: dict[str, Tally]) -> int:
    from models.detector.scenes import bench_cases, render_cases

    cases = bench_cases(racks=args.racks, scale=args.scale)
    n = 0
    for fr in render_cases(cases):
        n += 1
        is_1080 = fr.resolution == (1920, 1080)
        rack_ids = [i for i, b in enumerate(fr.ids) if b.isdigit() and 1 <= int(b) <= 15] if "rack" in fr.tags else []
        for name in names:
            t = tallies[name]
            det = _build(name, fr.calibration)
            dets, ms, stages = _timed(det, fr.image, args.repeat if is_1080 else 0)
            r, c, tp, fp, fn = match(dets.px, fr.px, fr.radius_px, fr.hidden)
            t.tp, t.fp, t.fn, t.frames = t.tp + tp, t.fp + fp, t.fn + fn, t.frames + 1
            if is_1080:
                t.ms_1080.append(statistics.median(ms))
                for k, v in stages.items():
                    t.stages_1080.setdefault(k, []).append(statistics.median(v))
                t.err_1080.extend(np.linalg.norm(dets.pos_mm[r] - fr.pos[c], axis=1).tolist())
            if rack_ids:
                t.racks += 1
                t.racks_ok += int(set(rack_ids) <= set(c.tolist()))
        if n % 10 == 0:
            print(f"  ... {n} rendered frames", file=sys.stderr, flush=True)
    return n


def padova_frames(root: Path) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(name, image, box-centre px, radius px, cue flags) for every labelled padova frame."""
    out = []
    for clip in sorted(p for p in root.glob("*") if (p / "bounding_boxes").is_dir()):
        for which in ("first", "last"):
            img = cv2.imread(str(clip / "frames" / f"frame_{which}.png"), cv2.IMREAD_COLOR)
            boxes_path = clip / "bounding_boxes" / f"frame_{which}_bbox.txt"
            if img is None or not boxes_path.exists():
                continue
            b = np.loadtxt(boxes_path, ndmin=2)
            px = b[:, :2] + b[:, 2:4] / 2
            out.append((f"{clip.name}/{which}", img, px, b[:, 2:4].mean(axis=1) / 2, b[:, 4] == 1))
    return out


def calibrate_real(img: np.ndarray, mask_path: Path, table: TableModel) -> tuple[Calibration, str]:
    """``calibration.auto`` on the frame; where it fails, the four corners of the labelled field mask."""
    try:
        from calibration.auto import auto_calibrate

        return auto_calibrate(img, table), "auto"
    except (ImportError, CalibrationError, ValueError):
        pass
    m = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
    if m is None:
        raise CalibrationError(f"no field mask at {mask_path}")
    field_mask = (m == 5).astype(np.uint8) * 255
    contours, _ = cv2.findContours(field_mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in np.linspace(0.01, 0.1, 19):
        approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2)
        if len(approx) == 4:
            quad = approx.astype(np.float64)
            break
    if quad is None:
        raise CalibrationError("the field mask is not a quadrilateral")
    # Ring order; the first side is a long cushion.
    sides = [np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    if sides[0] + sides[2] < sides[1] + sides[3]:
        quad = np.roll(quad, -1, axis=0)
    ring = dict(zip(("house-left", "pyramid-left", "pyramid-right", "house-right"), quad.tolist(), strict=True))
    h, w = img.shape[:2]
    return Calibration.from_corners({n: ring[n] for n in CORNER_NAMES}, (w, h), table, source="manual"), "mask"


def bench_real(names: list[str], root: Path, tallies: dict[str, Tally]) -> list[str]:
    table = TableModel(POOL_TABLE)
    notes = []
    for name, img, px, radius, _cue in padova_frames(root):
        clip, which = name.split("/")
        try:
            cal, how = calibrate_real(img, root / clip / "masks" / f"frame_{which}.png", table)
        except CalibrationError as exc:
            notes.append(f"{name}: not calibrated ({exc})")
            continue
        notes.append(f"{name}: calibrated by {how}")
        hidden = np.zeros(len(px), bool)
        for det_name in names:
            dets = _build(det_name, cal).detect(img)  # type: ignore[attr-defined]
            _, _, tp, fp, fn = match(dets.px, px, radius, hidden)
            t = tallies[det_name]
            t.tp, t.fp, t.fn, t.frames = t.tp + tp, t.fp + fp, t.fn + fn, t.frames + 1
    return notes


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def print_table(title: str, names: list[str], tallies: dict[str, Tally], rendered: bool) -> None:
    print(title)
    head = f"{'detector':<11}{'frames':>7}{'recall':>8}{'precision':>10}"
    if rendered:
        head += f"{'err mm med':>11}{'p95':>6}{'racks':>9}{'ms/1080p':>10}{'x baseline':>11}"
    print(head)
    base = tallies.get(BASELINE)
    base_ms = statistics.median(base.ms_1080) if base and base.ms_1080 else None
    for name in names:
        t = tallies[name]
        row = f"{name:<11}{t.frames:>7}{t.recall:>8.3f}{t.precision:>10.3f}"
        if rendered:
            med = statistics.median(t.err_1080) if t.err_1080 else None
            p95 = float(np.percentile(t.err_1080, 95)) if t.err_1080 else None
            racks = f"{t.racks_ok}/{t.racks}" if t.racks else "-"
            ms = statistics.median(t.ms_1080) if t.ms_1080 else None
            ratio = base_ms / ms if base_ms and ms else None
            row += f"{_fmt(med, '.2f'):>11}{_fmt(p95, '.2f'):>6}{racks:>9}{_fmt(ms, '.2f'):>10}{_fmt(ratio, '.1f'):>11}"
        print(row)
    if rendered:
        for name in names:
            st = tallies[name].stages_1080
            if st:
                # Median over the 1080p frames of each stage's median ms.
                parts = [f"{k} {statistics.median(v):.2f}" for k, v in st.items()]
                print(f"  {name} stages, median ms per 1080p frame: {', '.join(parts)}")


def run(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.detectors.split(",") if n.strip()]
    for n in names:
        if n not in DETECTORS:
            raise DetectorError(f"unknown detector {n!r}: choose from {', '.join(DETECTORS)}")
    if "neural" in names:
        from vision.neural import WEIGHTS

        if not WEIGHTS.exists():
            print(f"neural: no weights at {WEIGHTS}; left out (run `tableref train-detector`)")
            names.remove("neural")
    cv2.setNumThreads(1)  # one core, for every detector alike
    if not args.no_rendered:
        tallies = {n: Tally() for n in names}
        t0 = time.time()
        n = bench_rendered(names, args, tallies)
        print_table(
            f"rendered suite: {n} frames (720p..4K, tilt 0..30 deg, distortion, blur, player), "
            f"{args.racks} racks, {time.time() - t0:.0f} s",
            names, tallies, rendered=True,
        )  # fmt: skip
    if not args.no_real:
        root = Path(args.realdata) if args.realdata else _default_realdata()
        if root is None or not root.is_dir():
            print("real frames: padova folder not found; left out")
        else:
            tallies = {n: Tally() for n in names}
            notes = bench_real(names, root, tallies)
            print()
            print_table(f"real frames: padova ({root}), match within half a radius in pixels", names, tallies, False)
            for note in notes:
                print(f"  {note}")
    return 0


def _default_realdata() -> Path | None:
    here = Path.cwd()
    for base in (here, *here.parents):
        cand = base / "shared" / "realdata" / "padova"
        if cand.is_dir():
            return cand
    return None


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="tableref bench detect")
    add_arguments(parser)
    raise SystemExit(run(parser.parse_args()))
