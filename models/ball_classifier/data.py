"""Crops for training and measuring the ball classifier, cut at training time from the shared real footage
(never kept in the repository) and from renders.

``python3 -m models.ball_classifier.data --realdata ../shared/realdata --out /tmp/bc`` writes:

- ``real_frames.npz``: every labelled real frame the classical detector ran on, tuning and held-out (the
  split of ``tests/data/real/clips/*.json``), with each proposal's crop, centre, radius and confidence, and
  whether it lies on a labelled ball (within half the ball's radius), off every ball (more than a radius) or
  in between (ambiguous, left out of training); for tuning frames also crops centred on the labelled balls
  (with small jitters of centre and size) and random crops of cloth, cushions and pocket holes.

Which real frames: a clip's first and last frame (its labels ``balls_first`` / ``balls_last``) and, in the
tuning clips, every other frame before the first stroke, where the balls stand where ``balls_first`` says
while the player's arm, cue and body move over the table (the hands, gloves and watches that must be told
from balls). The padova first/last stills with their ball boxes, and the snooker rig stills (all held out).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.mapping import Calibration, CalibrationError
from calibration.table import TableModel, TableSpec
from vision.ball_classifier import cut_crops

REPO = Path(__file__).resolve().parents[2]
CLIPS = REPO / "tests" / "data" / "real" / "clips"
HELDOUT_PADOVA = ("game1_clip3", "game1_clip4", "game2_clip2", "game3_clip2", "game4_clip2")

ON_BALL, OFF_BALL, AMBIGUOUS, LABEL, RANDOM = 1, 0, -1, 2, 3  # kinds of crop


@dataclass
class Frame:
    """One labelled frame's proposals and extra crops."""

    name: str
    group: str  # what set it counts in: clips, padova, snooker-<folder>
    split: str
    det_px: np.ndarray
    det_pos: np.ndarray  # table mm (the detector's calibration)
    det_r: np.ndarray
    det_conf: np.ndarray
    det_kind: np.ndarray  # ON_BALL / OFF_BALL / AMBIGUOUS
    det_crops: np.ndarray
    true_px: np.ndarray
    true_r: np.ndarray
    extra_crops: np.ndarray = field(default_factory=lambda: np.zeros((0, 32, 32, 3), np.uint8))
    extra_y: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    extra_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    detect_ms: float = 0.0
    diameter_mm: float = 57.15


def table_for(source: str) -> TableModel:
    if source.startswith("snooker"):
        return TableModel(TableSpec(length_mm=1881.0, width_mm=943.0, ball_diameter_mm=52.3))
    if source.startswith("carom"):
        return TableModel(TableSpec(length_mm=2840.0, width_mm=1420.0, ball_diameter_mm=61.5))
    return TableModel(TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=57.15))


def calibrate(img: np.ndarray, table: TableModel, snooker: bool) -> Calibration | None:
    from api.bench.stills import calibration_from_h
    from calibration.auto import auto_calibrate

    try:
        return auto_calibrate(img, table)
    except (CalibrationError, ValueError) as exc:
        if snooker:
            return calibration_from_h(table, (img.shape[1], img.shape[0]))
        print(f"  not calibrated: {str(exc)[:100]}", file=sys.stderr)
        return None


def label_radius(true_px: np.ndarray, det_px: np.ndarray, det_r: np.ndarray, default: float) -> np.ndarray:
    """Each labelled ball's image radius: that of a proposal within 8 px, else the frame's median."""
    med = float(np.median(det_r)) if len(det_r) else default
    r = np.full(len(true_px), med)
    if len(det_px) and len(true_px):
        d = np.linalg.norm(true_px[:, None] - det_px[None], axis=2)
        j = d.argmin(axis=1)
        near = d[np.arange(len(true_px)), j] < 8
        r[near] = det_r[j[near]]
    return r


def classify_proposals(det_px: np.ndarray, true_px: np.ndarray, true_r: np.ndarray) -> np.ndarray:
    kind = np.full(len(det_px), OFF_BALL)
    if len(det_px) and len(true_px):
        d = np.linalg.norm(det_px[:, None] - true_px[None], axis=2)
        kind[(d <= true_r[None] / 2).any(axis=1)] = ON_BALL
        kind[(kind == OFF_BALL) & (d <= true_r[None]).any(axis=1)] = AMBIGUOUS
    return kind


def extra_crops(img: np.ndarray, cal: Calibration | None, true_px: np.ndarray, true_r: np.ndarray,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Tuning crops beside the proposals: the labelled balls (and jittered copies), random squares of the
    picture away from every ball, and the pocket holes."""
    crops, ys, kinds = [], [], []
    if len(true_px):
        pts, rs = [true_px], [true_r]
        for _ in range(2):
            pts.append(true_px + rng.normal(0, 0.12, true_px.shape) * true_r[:, None])
            rs.append(true_r * rng.uniform(0.85, 1.15, len(true_r)))
        p, r = np.concatenate(pts), np.concatenate(rs)
        crops.append(cut_crops(img, p, r))
        ys.append(np.ones(len(p), np.int64))
        kinds.append(np.full(len(p), LABEL))
    r0 = float(np.median(true_r)) if len(true_r) else 12.0
    h, w = img.shape[:2]
    cand = [rng.uniform([0, 0], [w, h], (40, 2))]
    if cal is not None:
        mouths = np.array([pk.mouth_center for pk in cal.table.pockets.values()])
        out = np.array([pk.outward for pk in cal.table.pockets.values()])
        # The mouth and the hole behind it, where a potted ball lies (not on the playing surface).
        for k in (0.0, 0.6, 1.2):
            cand.append(cal.table_to_image(mouths + out * k * cal.table.ball_diameter_mm))
    c = np.concatenate(cand)
    if len(true_px):
        c = c[np.linalg.norm(c[:, None] - true_px[None], axis=2).min(axis=1) > 2 * r0]
    c = c[(c[:, 0] > -r0) & (c[:, 0] < w + r0) & (c[:, 1] > -r0) & (c[:, 1] < h + r0)]
    if len(c):
        crops.append(cut_crops(img, c, np.full(len(c), r0) * rng.uniform(0.85, 1.15, len(c))))
        ys.append(np.zeros(len(c), np.int64))
        kinds.append(np.full(len(c), RANDOM))
    if not crops:
        return np.zeros((0, 32, 32, 3), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(crops), np.concatenate(ys), np.concatenate(kinds)


def make_frame(detector, img, name, group, split, true_px, true_r_given, cal, rng, extras: bool) -> Frame:
    import time

    t0 = time.perf_counter()
    dets = detector.detect(img)
    ms = (time.perf_counter() - t0) * 1000.0
    true_px = np.asarray(true_px, dtype=np.float64).reshape(-1, 2)
    true_r = label_radius(true_px, dets.px, dets.radius_px, 12.0) if true_r_given is None else true_r_given
    kind = classify_proposals(dets.px, true_px, true_r)
    f = Frame(name, group, split, dets.px, dets.pos_mm, dets.radius_px, dets.confidence, kind,
              cut_crops(img, dets.px, dets.radius_px), true_px, true_r, detect_ms=ms,
              diameter_mm=detector.calibration.table.ball_diameter_mm)  # fmt: skip
    if extras:
        f.extra_crops, f.extra_y, f.extra_kind = extra_crops(img, cal, true_px, true_r, rng)
    return f


def clip_frames(label_file: Path, realdata: Path, rng: np.random.Generator) -> list[Frame]:
    from calibration.table_finder import read_source
    from vision.classical import ClassicalDetector

    lab = json.loads(label_file.read_text(encoding="utf-8"))
    split, source = lab["split"], lab["source"]
    table = table_for(source)
    snooker = source.startswith("snooker")
    if "first_image" in lab:  # a folder of numbered stills
        first = int(lab["first_image"])
        paths = [realdata / (source % (first + i)) for i in range(int(lab["frames"]))]

        def read(i: int) -> np.ndarray | None:
            return cv2.imread(str(paths[i]), cv2.IMREAD_COLOR)

        cal_img = read(0)
    else:
        cap = cv2.VideoCapture(str(realdata / source))
        cache: dict[int, np.ndarray] = {}
        pos = [0]

        def read(i: int) -> np.ndarray | None:
            while pos[0] <= i:
                ok, fr = cap.read()
                if not ok:
                    return cache.get(max(cache)) if cache else None
                cache.clear()
                cache[pos[0]] = fr
                pos[0] += 1
            return cache.get(i)

        cal_img = read_source(realdata / source)
    if cal_img is None:
        return []
    cal = calibrate(cal_img, table, snooker)
    if cal is None:
        return []
    det = ClassicalDetector(cal)
    n = int(lab["frames"])
    strikes = [s["strike_frame"] for s in lab.get("shots", [])]
    pre = range(0, min(strikes), 2) if (strikes and split == "tuning") else range(0, 1)
    wanted = sorted(set(pre) | {0, n - 1})
    frames = []
    stem = label_file.stem
    for i in wanted:
        img = read(i)
        if img is None:
            continue
        truth = lab["balls_last"] if i == n - 1 else lab["balls_first"]
        px = np.array([b["px"] for b in truth], dtype=np.float64).reshape(-1, 2)
        labelled = i in (0, n - 1)
        f = make_frame(det, img, f"{stem}@{i}", "clips", split, px, None, cal, rng, split == "tuning")
        if not labelled:
            f.group = "clips-prestroke"
        frames.append(f)
    return frames


def padova_frames(realdata: Path, rng: np.random.Generator) -> list[Frame]:
    from api.bench.stills import padova_stills
    from vision.classical import ClassicalDetector

    out = []
    table = table_for("padova")
    for still in padova_stills(realdata / "padova"):
        clip = still.name.split("/")[0]
        split = "heldout" if clip in HELDOUT_PADOVA else "tuning"
        img = cv2.imread(str(still.image), cv2.IMREAD_COLOR)
        cal = None if img is None else calibrate(img, table, False)
        if img is None or cal is None:
            continue
        f = make_frame(ClassicalDetector(cal), img, still.name, "padova", split, still.px, still.radius_px, cal, rng,
                       split == "tuning")  # fmt: skip
        out.append(f)
    return out


def snooker_frames(realdata: Path, rng: np.random.Generator) -> list[Frame]:
    from api.bench.stills import SNOOKER_SETS, snooker_stills
    from vision.classical import ClassicalDetector

    out = []
    table = table_for("snooker")
    for name in SNOOKER_SETS:
        for still in snooker_stills(realdata / "snooker-rig-stills" / "with_projector_on" / name):
            img = cv2.imread(str(still.image), cv2.IMREAD_COLOR)
            cal = None if img is None else calibrate(img, table, True)
            if img is None or cal is None:
                continue
            f = make_frame(ClassicalDetector(cal), img, still.name, f"snooker-{name}", "heldout", still.px,
                           still.radius_px, cal, rng, False)  # fmt: skip
            out.append(f)
    return out


def save(frames: list[Frame], path: Path) -> None:
    """All frames flattened into one npz: per-crop arrays with the frame index."""
    det = [(i, f) for i, f in enumerate(frames)]
    np.savez_compressed(
        path,
        frame_name=np.array([f.name for f in frames]),
        frame_group=np.array([f.group for f in frames]),
        frame_split=np.array([f.split for f in frames]),
        frame_n_true=np.array([len(f.true_px) for f in frames]),
        frame_detect_ms=np.array([f.detect_ms for f in frames]),
        det_frame=np.concatenate([np.full(len(f.det_px), i) for i, f in det] + [np.zeros(0, int)]),
        det_px=np.concatenate([f.det_px for f in frames] + [np.zeros((0, 2))]),
        det_pos=np.concatenate([f.det_pos for f in frames] + [np.zeros((0, 2))]),
        det_diameter=np.concatenate([np.full(len(f.det_px), f.diameter_mm) for f in frames] + [np.zeros(0)]),
        det_r=np.concatenate([f.det_r for f in frames] + [np.zeros(0)]),
        det_conf=np.concatenate([f.det_conf for f in frames] + [np.zeros(0)]),
        det_kind=np.concatenate([f.det_kind for f in frames] + [np.zeros(0, int)]),
        det_crops=np.concatenate([f.det_crops for f in frames] + [np.zeros((0, 32, 32, 3), np.uint8)]),
        extra_frame=np.concatenate([np.full(len(f.extra_y), i) for i, f in det] + [np.zeros(0, int)]),
        extra_crops=np.concatenate([f.extra_crops for f in frames] + [np.zeros((0, 32, 32, 3), np.uint8)]),
        extra_y=np.concatenate([f.extra_y for f in frames] + [np.zeros(0, int)]),
        extra_kind=np.concatenate([f.extra_kind for f in frames] + [np.zeros(0, int)]),
        true_frame=np.concatenate([np.full(len(f.true_px), i) for i, f in det] + [np.zeros(0, int)]),
        true_px=np.concatenate([f.true_px for f in frames] + [np.zeros((0, 2))]),
        true_r=np.concatenate([f.true_r for f in frames] + [np.zeros(0)]),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--realdata", default=str(REPO.parent / "shared" / "realdata"))
    ap.add_argument("--out", default="/tmp/bc")
    args = ap.parse_args(argv)
    realdata, out = Path(args.realdata), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(34)
    frames: list[Frame] = []
    for label_file in sorted(CLIPS.glob("*.json")):
        print(label_file.stem, file=sys.stderr, flush=True)
        frames += clip_frames(label_file, realdata, rng)
    print("padova", file=sys.stderr, flush=True)
    frames += padova_frames(realdata, rng)
    print("snooker stills", file=sys.stderr, flush=True)
    frames += snooker_frames(realdata, rng)
    save(frames, out / "real_frames.npz")
    print(f"{len(frames)} frames -> {out / 'real_frames.npz'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
