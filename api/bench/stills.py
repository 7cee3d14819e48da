"""``tableref bench stills``: the ball detector on labelled real stills, as ``tableref detect IMAGE`` runs it.

Sets (under ``--realdata``, default ``../shared/realdata``):

- ``padova``: the first and last frames of the 10 padova clips (pool, 1024x576, overhead to oblique), one box
  per ball (the box centre is the truth, half its mean side the ball's radius in pixels);
- ``snooker with_halo_2``, ``with_halo``, ``without_halo``: stills of a fixed overhead camera over a small
  snooker table (1280x720), ball centres given in pixels and in millimetres (``with_halo``: millimetres only,
  turned into pixels through the homography the realdata README gives, good to 1-2 px). ``without_halo`` has
  no projected rings round the balls: the fair one.

Each still is calibrated as ``tableref detect`` does it (``calibration.auto`` on the still itself), with the
table of that footage (pool 2540 x 1270 mm, 57.15 mm balls; the snooker rig 1881 x 943 mm, 52.3 mm balls). A
still that does not calibrate is reported, and its balls count as missed; for the snooker rig the README's
homography is then the calibration (``given H``; 4-6 px off for ``without_halo``, whose camera had moved), and
the printout says how many stills used it.

A detection matches a labelled ball within half the ball's radius in pixels (optimal one-to-one). Printed
per set: recall, precision, the matched centres' pixel error (median, p95) and, for the snooker stills, the
error in millimetres on the table: the detection's table position (through the still's calibration) against
the labelled millimetres. That error is the whole chain's, calibration included (``cal mm``: the labelled
pixels through the same calibration against the labelled millimetres, the calibration's share); the
labelled frame (origin at the table's centre) is turned into the calibration's (origin at a corner) by
whichever of the four mirrorings best fits the labelled balls on that still.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.mapping import CORNER_NAMES, Calibration, CalibrationError
from calibration.table import TableModel, TableSpec

POOL = TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=57.15)
SNOOKER = TableSpec(length_mm=1881.0, width_mm=943.0, ball_diameter_mm=52.3)
# realdata/README.md: pixel = H [x, y, 1] for the snooker rig's labelled millimetres (with_halo_2, with_halo).
SNOOKER_H = np.array([[0.60200, -0.007191, 629.616], [0.002840, -0.595642, 361.620], [1.4579e-5, -7.030e-6, 1.0]])
SNOOKER_RADIUS_PX = 15.5  # realdata/README.md: the balls' image radius on that camera
SNOOKER_SETS = ("with_halo_2", "with_halo", "without_halo")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--realdata", default=None, help="footage folder (default: ../shared/realdata)")
    parser.add_argument("--detector", default="classical", help="classical, neural or hough (default classical)")
    parser.add_argument("--sets", default="padova," + ",".join(SNOOKER_SETS), help="comma-separated sets to run")
    parser.add_argument("--out", default=None, metavar="DIR", help="also write the printout to DIR/stills.txt")


@dataclass(frozen=True)
class Still:
    name: str
    image: Path
    px: np.ndarray  # (N, 2) labelled ball centres
    radius_px: np.ndarray  # (N,)
    mm: np.ndarray | None  # (N, 2) labelled centres in the source's millimetre frame (origin at the centre)


@dataclass
class SetScore:
    name: str
    stills: int = 0
    calibrated: int = 0
    misshapen: int = 0  # calibrated, but the measured table shape contradicts the table given
    given_h: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    err_px: list[float] = field(default_factory=list)
    err_mm: list[float] = field(default_factory=list)
    cal_mm: list[float] = field(default_factory=list)  # labelled pixels through the calibration vs labelled mm
    notes: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.tp / max(self.tp + self.fn, 1)

    @property
    def precision(self) -> float:
        return self.tp / max(self.tp + self.fp, 1)


def match(det_px: np.ndarray, true_px: np.ndarray, radius: np.ndarray) -> list[tuple[int, int]]:
    """Optimal one-to-one (detection, label) pairs within half the labelled ball's radius."""
    if len(det_px) == 0 or len(true_px) == 0:
        return []
    d = np.linalg.norm(det_px[:, None, :] - true_px[None, :, :], axis=2)
    cost = np.where(d <= radius[None, :] / 2, d, 1e9)
    r, c = linear_sum_assignment(cost)
    return [(int(i), int(j)) for i, j in zip(r, c, strict=True) if cost[i, j] < 1e9]


def padova_stills(root: Path) -> list[Still]:
    out = []
    for clip in sorted(p for p in root.glob("*") if (p / "bounding_boxes").is_dir()):
        for which in ("first", "last"):
            image = clip / "frames" / f"frame_{which}.png"
            boxes = clip / "bounding_boxes" / f"frame_{which}_bbox.txt"
            if not image.exists() or not boxes.exists():
                continue
            b = np.loadtxt(boxes, ndmin=2)
            out.append(Still(f"{clip.name}/{which}", image, b[:, :2] + b[:, 2:4] / 2, b[:, 2:4].mean(axis=1) / 2, None))
    return out


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    q = np.c_[pts, np.ones(len(pts))] @ h.T
    return q[:, :2] / q[:, 2:3]


def snooker_stills(folder: Path) -> list[Still]:
    cases = json.loads((folder / "testcases.json").read_text(encoding="utf-8"))["cases"]
    out = []
    for case in cases:
        image = folder / Path(case["image"]).name
        if not image.exists():  # the realdata subset keeps every case of the source's list
            continue
        balls = case["balls"]
        mm = np.array([[b["x"], b["y"]] for b in balls], dtype=np.float64)
        if all("pixelX" in b for b in balls):
            px = np.array([[b["pixelX"], b["pixelY"]] for b in balls], dtype=np.float64)
        else:
            px = _apply(SNOOKER_H, mm)
        out.append(Still(f"{folder.name}/{image.stem}", image, px, np.full(len(px), SNOOKER_RADIUS_PX), mm))
    return sorted(out, key=lambda s: (len(s.name), s.name))


def calibration_from_h(table: TableModel, size: tuple[int, int]) -> Calibration:
    """The snooker rig's camera from the README's homography: the playing field's corners projected to pixels.
    The homography is for the ball-centre plane and the calibration takes it for the cloth's, so a ball placed
    through it (``ball_px_to_table``, which allows for the centre's height once more) lands up to about 12 mm
    too near the middle of the picture: a fallback, and the printout counts the stills that used it."""
    half_l, half_w = table.length_mm / 2, table.width_mm / 2
    theirs = {"house-left": (-half_l, half_w), "house-right": (-half_l, -half_w),
              "pyramid-left": (half_l, half_w), "pyramid-right": (half_l, -half_w)}  # fmt: skip
    px = _apply(SNOOKER_H, np.array([theirs[n] for n in CORNER_NAMES]))
    return Calibration.from_corners(dict(zip(CORNER_NAMES, px.tolist(), strict=True)), size, table, source="manual")


def to_table_frame(mm: np.ndarray, cal: Calibration, px: np.ndarray) -> np.ndarray:
    """Labelled millimetres (origin at the field's centre) in the calibration's frame (origin at a corner): of
    the four mirrorings, the one that puts the balls nearest where the calibration sees their pixels."""
    seen = cal.ball_px_to_table(px)
    half = np.array([cal.table.length_mm / 2, cal.table.width_mm / 2])
    best = None
    for sx in (1.0, -1.0):
        for sy in (1.0, -1.0):
            cand = half + mm * np.array([sx, sy])
            err = float(np.median(np.linalg.norm(cand - seen, axis=1)))
            if best is None or err < best[0]:
                best = (err, cand)
    assert best is not None
    return best[1]


def score_still(still: Still, table: TableModel, detector: str, score: SetScore, fallback_h: bool) -> None:
    from calibration.auto import auto_calibrate
    from vision.detector import make_detector

    score.stills += 1
    img = cv2.imread(str(still.image), cv2.IMREAD_COLOR)
    if img is None:
        score.fn += len(still.px)
        score.notes.append(f"{still.name}: cannot read {still.image}")
        return
    h, w = img.shape[:2]
    try:
        cal = auto_calibrate(img, table)
        score.calibrated += 1
    except (CalibrationError, ValueError) as exc:
        if not fallback_h:
            score.fn += len(still.px)
            score.notes.append(f"{still.name}: not calibrated ({str(exc)[:120]}); its {len(still.px)} balls missed")
            return
        cal = calibration_from_h(table, (w, h))
        score.given_h += 1
        score.notes.append(f"{still.name}: not calibrated ({str(exc)[:120]}); the given H used")
    problem = _shape_problem(cal)
    if problem:
        score.misshapen += 1
        score.notes.append(f"{still.name}: calibrated, but {problem}")
    dets = make_detector(detector, cal).detect(img)
    pairs = match(dets.px, still.px, still.radius_px)
    score.tp += len(pairs)
    score.fp += len(dets.px) - len(pairs)
    score.fn += len(still.px) - len(pairs)
    if not pairs:
        return
    i, j = (np.array(v) for v in zip(*pairs, strict=True))
    score.err_px += np.linalg.norm(dets.px[i] - still.px[j], axis=1).tolist()
    if still.mm is not None:
        truth = to_table_frame(still.mm, cal, still.px)
        score.err_mm += np.linalg.norm(dets.pos_mm[i] - truth[j], axis=1).tolist()
        score.cal_mm += np.linalg.norm(cal.ball_px_to_table(still.px) - truth, axis=1).tolist()


def _shape_problem(cal: Calibration) -> str | None:
    """What ``tableref analyze`` warns of a calibration whose table shape contradicts the table given."""
    try:
        from calibration.aspect import aspect_problem, measured_aspect
    except ImportError:  # a tree from before the check
        return None
    if aspect_problem(cal) is None:
        return None
    want = cal.table.length_mm / cal.table.width_mm
    return f"its table measures {measured_aspect(cal):.2f}:1 (length:width), the table given {want:.2f}:1"


def _stat(v: list[float]) -> str:
    return f"{np.median(v):.2f} / {np.percentile(v, 95):.2f}" if v else "-"


def report(scores: list[SetScore], header: str) -> str:
    lines = [header, ""]
    lines.append(f"{'set':<14}{'stills':>7}{'calibrated':>11}{'misshapen':>10}{'given H':>8}{'balls':>7}{'recall':>8}"
                 f"{'precision':>10}{'px err med/p95':>16}{'mm err med/p95':>16}{'cal mm med/p95':>16}")  # fmt: skip
    for s in scores:
        lines.append(
            f"{s.name:<14}{s.stills:>7}{s.calibrated:>11}{s.misshapen:>10}{s.given_h:>8}{s.tp + s.fn:>7}"
            f"{s.recall:>8.3f}{s.precision:>10.3f}{_stat(s.err_px):>16}{_stat(s.err_mm):>16}{_stat(s.cal_mm):>16}"
        )
    notes = [f"  {s.name}: {n}" for s in scores for n in s.notes]
    if notes:
        lines += ["", "notes:", *notes]
    lines += [
        "",
        "match: a detection within half the labelled ball's radius (px) of its centre, one-to-one; a still that",
        "does not calibrate counts its balls as missed (snooker: the README's homography is used instead, 'given",
        "H'); mm error: the detection's table position through the still's own calibration against the labelled",
        "millimetres (calibration error included); cal mm: the labelled pixel centres through the same",
        "calibration against the labelled millimetres (the calibration's share of it); misshapen: calibrated",
        "stills whose measured table shape contradicts the table given (calibration.aspect, as analyze warns).",
    ]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from api.bench.real import code_version, default_realdata

    realdata = Path(args.realdata) if args.realdata else default_realdata()
    if realdata is None or not realdata.is_dir():
        print("real stills: ../shared/realdata not found; left out (give --realdata DIR)")
        return 0
    wanted = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in ("padova", *SNOOKER_SETS)]
    if unknown:
        raise ValueError(f"unknown set(s) {', '.join(unknown)}: choose from padova, {', '.join(SNOOKER_SETS)}")
    scores = []
    for name in wanted:
        if name == "padova":
            stills, table, fallback = padova_stills(realdata / "padova"), TableModel(POOL), False
        else:
            folder = realdata / "snooker-rig-stills" / "with_projector_on" / name
            stills, table, fallback = snooker_stills(folder), TableModel(SNOOKER), True
        score = SetScore(name)
        for still in stills:
            score_still(still, table, args.detector, score, fallback)
        print(f"  {name}: {score.stills} stills", file=sys.stderr, flush=True)
        scores.append(score)
    text = report(scores, f"tableref bench stills: detector {args.detector}, code at {code_version()}")
    sys.stdout.write(text)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "stills.txt").write_text(text, encoding="utf-8")
    return 0
