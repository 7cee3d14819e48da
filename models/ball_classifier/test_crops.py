"""Write ``tests/data/classifier/crops.npz``: a few dozen 32x32 crops cut from real TUNING frames (small
derived test data, no whole frames): every distinct proposal of the classical detector that lies off every
labelled ball (gloves, hands, a shirt, pocket holes with a ball or a caption in them, cushion marks), and
labelled balls, the darkest ones on their cloth first (dark balls on blue cloth). Chosen by these rules
alone, before and apart from what the classifier says of them.

    python3 -m models.ball_classifier.test_crops --data /tmp/bc
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from models.ball_classifier.data import OFF_BALL, ON_BALL, REPO

OUT = REPO / "tests" / "data" / "classifier" / "crops.npz"


def distinct(idx: np.ndarray, real: dict[str, np.ndarray], cell: float) -> np.ndarray:
    """One proposal per clip and ``cell``-pixel square (the pre-stroke frames repeat the same things)."""
    seen, out = set(), []
    for i in idx:
        name = str(real["frame_name"][real["det_frame"][i]]).split("@")[0].split("/")[0]
        key = (name, *np.round(real["det_px"][i] / cell).astype(int).tolist())
        if key not in seen:
            seen.add(key)
            out.append(i)
    return np.array(out, dtype=np.int64)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/tmp/bc")
    ap.add_argument("--balls", type=int, default=30)
    args = ap.parse_args(argv)
    real = dict(np.load(Path(args.data) / "real_frames.npz"))
    tuning = real["frame_split"][real["det_frame"]] == "tuning"
    off = distinct(np.flatnonzero(tuning & (real["det_kind"] == OFF_BALL)), real, 12.0)
    on = distinct(np.flatnonzero(tuning & (real["det_kind"] == ON_BALL)), real, 12.0)
    crops = real["det_crops"]
    # The ball's own disc (the middle of the crop) against its surroundings: the darkest on their cloth first.
    c = crops[on].astype(float)
    inner = c[:, 12:20, 12:20].mean(axis=(1, 2, 3))
    outer = np.concatenate([c[:, :4].reshape(len(c), -1), c[:, -4:].reshape(len(c), -1)], axis=1).mean(axis=1)
    order = np.argsort(inner - outer)
    dark = on[order[: args.balls // 2]]
    rest = np.setdiff1d(on, dark)
    others = np.random.default_rng(34).choice(rest, min(args.balls - len(dark), len(rest)), replace=False)
    balls = np.concatenate([dark, np.sort(others)])
    names = np.array([str(real["frame_name"][real["det_frame"][i]]) for i in np.concatenate([balls, off])])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        OUT,
        crops=np.concatenate([crops[balls], crops[off]]),
        ball=np.concatenate([np.ones(len(balls), bool), np.zeros(len(off), bool)]),
        dark=np.concatenate([np.isin(balls, dark), np.zeros(len(off), bool)]),
        frame=names,
    )
    print(f"{OUT}: {len(balls)} balls ({len(dark)} dark), {len(off)} not balls, {OUT.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
