"""Rendered crops for the ball classifier (``models.synth`` scenes with the player's arms and cue over the
table): balls (not under the arm), the classical detector's proposals off every ball, random squares and the
pocket holes. Training recolours every crop (hue turned round the circle, brightness and contrast varied),
so the green renders stand also for blue and red cloth.

``python3 -m models.ball_classifier.synth --scenes 12 --out /tmp/bc`` writes ``synth.npz`` (crops, y, kind).
Needs the ``synth`` extra.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from models.ball_classifier.data import OFF_BALL, ON_BALL, RANDOM, classify_proposals, extra_crops
from vision.ball_classifier import cut_crops


def main(argv: list[str] | None = None) -> int:
    from models.detector.scenes import render_cases, training_cases
    from vision.classical import ClassicalDetector

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=12)
    ap.add_argument("--out", default="/tmp/bc")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(3434)
    crops, ys, kinds = [], [], []
    cases = training_cases(args.scenes, seed=34)
    for lf in render_cases(cases):
        visible = ~lf.hidden
        det = ClassicalDetector(lf.calibration).detect(lf.image)
        kind = classify_proposals(det.px, lf.px, lf.radius_px)
        keep = (kind == ON_BALL) | (kind == OFF_BALL)
        crops.append(cut_crops(lf.image, det.px[keep], det.radius_px[keep]))
        ys.append((kind[keep] == ON_BALL).astype(np.int64))
        kinds.append(kind[keep])
        c, y, k = extra_crops(lf.image, lf.calibration, lf.px[visible], lf.radius_px[visible], rng)
        sub = (k == RANDOM) | (rng.random(len(k)) < 0.4)  # renders hold many balls: fewer of them
        crops.append(c[sub])
        ys.append(y[sub])
        kinds.append(k[sub])
        print(f"{lf.name}: {len(det.px)} proposals, {int((kind == OFF_BALL).sum())} off balls", file=sys.stderr,
              flush=True)  # fmt: skip
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "synth.npz", crops=np.concatenate(crops), y=np.concatenate(ys),
                        kind=np.concatenate(kinds))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
