"""Measure the ball classifier on the real frames ``models.ball_classifier.data`` wrote: ball recall and
precision of the classical detector's proposals alone and with the classifier (a proposal kept when
p(ball) >= the threshold chosen on the tuning clips), per set, held-out and tuning apart; and the
classifier's cost per frame on a 1080p frame with 16 proposals.

    python3 -m models.ball_classifier.evaluate --data /tmp/bc [--model models/ball_classifier/ball_classifier.onnx]

A proposal matches a labelled ball within half the ball's image radius, one to one (as ``tableref bench
stills``). Columns: ``conf>=.55`` the detector alone, only proposals at the confidence where the tracker starts
a track; ``comb>=.55`` the same with the classifier (kept, and the combined confidence at least that). Rows:
``clips`` = the labelled first and last frames of the clips (``tests/data/real/clips``), ``padova`` = the
padova first/last stills with their ball boxes, ``snooker-*`` = the snooker rig stills.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from api.bench.stills import match
from vision.ball_classifier import DEFAULT_MODEL, BallClassifier, combine, cut_crops, packed

HERE = Path(__file__).resolve().parent


def score(real: dict[str, np.ndarray], keep: np.ndarray, frames: np.ndarray) -> tuple[int, int, int]:
    """(matched, proposals kept, labelled balls) over ``frames``: a kept proposal marked on a ball counts once
    per labelled ball (the marks were made one to one per frame by ``match``)."""
    fsel = np.isin(real["det_frame"], frames)
    on = real["det_on"][fsel & keep]
    return int(on.sum()), int((fsel & keep).sum()), int(real["frame_n_true"][frames].sum())


def one_to_one(real: dict[str, np.ndarray]) -> np.ndarray:
    """Per proposal: whether it is the one-to-one match (``match``) of a labelled ball of its frame."""
    on = np.zeros(len(real["det_frame"]), bool)
    for i in range(len(real["frame_name"])):
        idx = np.flatnonzero(real["det_frame"] == i)
        t = real["true_frame"] == i
        t_px, t_r = real["true_px"][t], real["true_r"][t]
        for a, _ in match(real["det_px"][idx], t_px, t_r):
            on[idx[a]] = True
    return on


def timing(model: BallClassifier, image: Path, n: int = 16, repeats: int = 200) -> dict[str, float]:
    """Median ms per frame to cut ``n`` crops from a 1080p frame and judge them in one call."""
    img = cv2.imread(str(image), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(image)
    img = cv2.resize(img, (1920, 1080))
    rng = np.random.default_rng(0)
    px = rng.uniform([100, 100], [1820, 980], (n, 2))
    r = np.full(n, 14.0)
    model.predict(img, px, r)
    cut, judge = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        crops = cut_crops(img, px, r)
        t1 = time.perf_counter()
        model.predict_crops(crops)
        t2 = time.perf_counter()
        cut.append((t1 - t0) * 1000)
        judge.append((t2 - t1) * 1000)
    tot = np.array(cut) + np.array(judge)
    return {"cut_ms": float(np.median(cut)), "judge_ms": float(np.median(judge)), "total_ms": float(np.median(tot)),
            "p90_ms": float(np.percentile(tot, 90))}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/tmp/bc")
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--threshold", type=float, default=None, help="default: threshold.json beside the model")
    ap.add_argument("--timing-image", default=None, help="a 1080p frame for the timing (default: none)")
    args = ap.parse_args(argv)
    real = dict(np.load(Path(args.data) / "real_frames.npz"))
    thr = args.threshold
    if thr is None:
        thr = float(json.loads((Path(args.model).parent / "threshold.json").read_text())["threshold"])
    model = BallClassifier(args.model)
    p = model.predict_crops(real["det_crops"])
    comb = combine(real["det_conf"], p)
    # As the detector applies it: a proposal frozen among two others is kept, its confidence never lowered.
    pk = np.zeros(len(p), bool)
    for i in range(len(real["frame_name"])):
        idx = np.flatnonzero(real["det_frame"] == i)
        if len(idx):
            pk[idx] = packed(real["det_pos"][idx], float(real["det_diameter"][idx[0]]))
    comb[pk] = np.maximum(comb[pk], real["det_conf"][pk])
    p = np.where(pk, np.maximum(p, thr), p)
    real["det_on"] = one_to_one(real)
    groups = real["frame_group"]
    splits = real["frame_split"]
    rows = []
    print(f"threshold p(ball) >= {thr:.3f}")
    print(f"{'split':<8}{'set':<22}{'frames':>7}{'balls':>6} | {'alone R':>8}{'P':>7} | {'conf>=.55 R':>11}{'P':>7} | "
          f"{'with clf R':>10}{'P':>7}{'dropped on/off':>16} | {'comb>=.55 R':>11}{'P':>7}")  # fmt: skip
    for split in ("heldout", "tuning"):
        for g in sorted(set(groups)):
            frames = np.flatnonzero((groups == g) & (splits == split))
            if len(frames) == 0 or g == "clips-prestroke":
                continue
            fsel = np.isin(real["det_frame"], frames)
            out = []
            for keep in (np.ones(len(p), bool), real["det_conf"] >= 0.55, p >= thr, (p >= thr) & (comb >= 0.55)):
                tp, nd, nt = score(real, keep, frames)
                out.append((tp / max(nt, 1), tp / max(nd, 1), tp, nd, nt))
            dropped_on = int((fsel & real["det_on"] & (p < thr)).sum())
            dropped_off = int((fsel & ~real["det_on"] & (p < thr)).sum())
            rows.append((split, g, len(frames), out))
            print(f"{split:<8}{g:<22}{len(frames):>7}{out[0][4]:>6} | {out[0][0]:>8.3f}{out[0][1]:>7.3f} | "
                  f"{out[1][0]:>11.3f}{out[1][1]:>7.3f} | {out[2][0]:>10.3f}{out[2][1]:>7.3f}"
                  f"{f'{dropped_on}/{dropped_off}':>16} | {out[3][0]:>11.3f}{out[3][1]:>7.3f}")  # fmt: skip
        tot = [sum(r[3][k][2] for r in rows if r[0] == split) for k in range(4)]
        kept = [sum(r[3][k][3] for r in rows if r[0] == split) for k in range(4)]
        balls = sum(r[3][0][4] for r in rows if r[0] == split)
        rp = [(tot[k] / max(balls, 1), tot[k] / max(kept[k], 1)) for k in range(4)]
        print(f"{split:<8}{'all':<22}{'':>7}{balls:>6} | {rp[0][0]:>8.3f}{rp[0][1]:>7.3f} | "
              f"{rp[1][0]:>11.3f}{rp[1][1]:>7.3f} | {rp[2][0]:>10.3f}{rp[2][1]:>7.3f}{'':>16} | "
              f"{rp[3][0]:>11.3f}{rp[3][1]:>7.3f}")  # fmt: skip
    if args.timing_image:
        print("classifier cost per 1080p frame, 16 proposals, 1 thread:", json.dumps(
            {k: round(v, 3) for k, v in timing(model, Path(args.timing_image)).items()}))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
