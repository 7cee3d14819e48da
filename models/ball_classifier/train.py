"""Train the ball classifier (ball / not a ball) and export it to ONNX.

Needs PyTorch (not a runtime dependency: ``pip install torch``; see README.md). Reads the crops that
``models.ball_classifier.data`` (real footage, tuning and held-out) and ``models.ball_classifier.synth``
(renders) wrote, trains only on the tuning clips' crops and the renders, and chooses the threshold on the
tuning clips' proposals from two-fold out-of-fold predictions (folds by clip, so a clip is never judged by a
network that saw it). Then trains on all tuning crops and writes ``ball_classifier.onnx``.

    python3 -m models.ball_classifier.data --out /tmp/bc
    python3 -m models.ball_classifier.synth --out /tmp/bc
    python3 -m models.ball_classifier.train --data /tmp/bc --out models/ball_classifier
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.ball_classifier.data import AMBIGUOUS, OFF_BALL, ON_BALL
from vision.ball_classifier import CROP_PX, to_input

OPSET = 17


class BallNet(nn.Module):
    """Four 3x3 conv stages at 32, 16, 8 and 4 px (8, 16, 32, 48 channels), global average, one logit: about
    20k weights, 2 MFLOP a crop (small enough to train on two shared CPU cores and to judge 16 crops in a
    millisecond)."""

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> list[nn.Module]:
            return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

        self.features = nn.Sequential(
            *block(3, 8), nn.MaxPool2d(2),
            *block(8, 16), nn.MaxPool2d(2),
            *block(16, 32), nn.MaxPool2d(2),
            *block(32, 48), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )  # fmt: skip
        self.head = nn.Linear(48, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(N, H, W, 3) uint8 -> float32 crops turned, mirrored, recoloured (the channels permuted: green cloth
    becomes blue or red), lit brighter or darker, with noise."""
    n = len(x)
    out = x.astype(np.float32)
    k = int(rng.integers(0, 4))
    out = np.rot90(out, k, axes=(1, 2))
    if rng.random() < 0.5:
        out = out[:, :, ::-1]
    perms = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    which = np.where(rng.random(n) < 0.5, 0, rng.integers(0, 6, n))
    out = np.take_along_axis(out, perms[which][:, None, None, :], axis=3)
    gain = rng.uniform(0.65, 1.35, (n, 1, 1, 1)).astype(np.float32)
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.75, 1.25, (n, 1, 1, 1)).astype(np.float32)
    out = (out - mean) * contrast + mean * gain
    out += rng.normal(0, rng.uniform(0, 6), out.shape).astype(np.float32)
    return np.clip(out, 0, 255)


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, epochs: int, seed: int) -> BallNet:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = BallNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps_per_epoch = max(len(x) // 128, 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * steps_per_epoch)
    p = w / w.sum()
    loss_fn = nn.BCEWithLogitsLoss()
    for ep in range(epochs):
        net.train()
        total = 0.0
        t0 = time.perf_counter()
        for _ in range(steps_per_epoch):
            idx = rng.choice(len(x), 128, p=p)
            xb = torch.from_numpy(to_input(augment(x[idx], rng)))
            yb = torch.from_numpy(y[idx].astype(np.float32))[:, None]
            opt.zero_grad()
            loss = loss_fn(net(xb), yb)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        print(f"  epoch {ep + 1}/{epochs}: loss {total / steps_per_epoch:.4f} ({time.perf_counter() - t0:.1f}s)",
              file=sys.stderr, flush=True)  # fmt: skip
    net.eval()
    return net


def _fit_state(x: np.ndarray, y: np.ndarray, w: np.ndarray, epochs: int, seed: int) -> dict[str, torch.Tensor]:
    torch.set_num_threads(1)
    return fit(x, y, w, epochs, seed).state_dict()


def predict(net: BallNet, crops: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        out = [torch.sigmoid(net(torch.from_numpy(to_input(crops[i : i + 512])))).numpy()[:, 0]
               for i in range(0, len(crops), 512)]  # fmt: skip
    return np.concatenate(out) if out else np.zeros(0)


def clip_of(name: str) -> str:
    return name.split("@")[0].split("/")[0].replace("padova--", "")


def load(data: Path) -> dict[str, np.ndarray]:
    """The tuning crops: (crops, y, weight, clip, is_proposal) and the proposals' frame records."""
    real = dict(np.load(data / "real_frames.npz"))
    names, splits = real["frame_name"], real["frame_split"]
    clips = np.array([clip_of(n) for n in names])
    tuning = splits == "tuning"
    dk = real["det_kind"]
    # Proposals between half a radius and a radius from a labelled ball are balls the detector placed a little
    # off (oblique views): the network must keep them too.
    dsel = tuning[real["det_frame"]] & ((dk == ON_BALL) | (dk == OFF_BALL) | (dk == AMBIGUOUS))
    # The random and labelled-ball crops of the pre-stroke frames repeat from frame to frame: a third of them.
    prestroke = real["frame_group"] == "clips-prestroke"
    thin = np.random.default_rng(0).random(len(real["extra_frame"])) < 0.33
    esel = tuning[real["extra_frame"]] & (~prestroke[real["extra_frame"]] | thin)
    parts = {
        "crops": [real["det_crops"][dsel], real["extra_crops"][esel]],
        "y": [(dk[dsel] != OFF_BALL).astype(np.int64), real["extra_y"][esel]],
        # The proposals are what the network will judge: they weigh most, their negatives (hands, gloves,
        # pocket holes) more still.
        "w": [np.where(dk[dsel] != OFF_BALL, 3.0, 6.0), np.ones(int(esel.sum()))],
        "clip": [clips[real["det_frame"][dsel]], clips[real["extra_frame"][esel]]],
        "proposal": [np.ones(int(dsel.sum()), bool), np.zeros(int(esel.sum()), bool)],
    }
    synth = data / "synth.npz"
    if synth.exists():
        s = np.load(synth)
        parts["crops"].append(s["crops"])
        parts["y"].append(s["y"])
        # Rendered crops weigh less than real ones, but the hard ones (the player's hands, gloves, watches and cue
        # tips; balls half covered, in shadow or dark) as much as real proposals: ``synth.py`` gives each its weight.
        parts["w"].append(s["w"] if "w" in s.files else np.full(len(s["y"]), 0.5))
        parts["clip"].append(np.full(len(s["y"]), "synth"))
        parts["proposal"].append(np.zeros(len(s["y"]), bool))
    return {k: np.concatenate(v) for k, v in parts.items()}


def choose_threshold(p: np.ndarray, y: np.ndarray, min_recall: float = 0.99) -> float:
    """The highest threshold that keeps ``min_recall`` of the balls the detector proposed (out of fold)."""
    pb = np.sort(p[y == 1])
    if len(pb) == 0:
        return 0.5
    k = int(np.floor((1.0 - min_recall) * len(pb)))
    return float(min(pb[k], 0.5)) if k < len(pb) else 0.5


def export(net: BallNet, path: Path) -> None:
    dummy = torch.zeros(1, 3, CROP_PX, CROP_PX)
    torch.onnx.export(net, (dummy,), str(path), input_names=["crops"], output_names=["logit"], opset_version=OPSET,
                      dynamic_axes={"crops": {0: "n"}, "logit": {0: "n"}}, dynamo=False)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/tmp/bc")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent))
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--min-recall", type=float, default=0.99)
    ap.add_argument("--synth-scale", type=float, default=1.0, help="the rendered crops' weights times this")
    args = ap.parse_args(argv)
    d = load(Path(args.data))
    d["w"] = np.where(d["clip"] == "synth", d["w"] * args.synth_scale, d["w"])
    real_clips = sorted(set(d["clip"]) - {"synth"})
    print(f"tuning crops: {len(d['y'])} ({int(d['y'].sum())} balls); proposals {int(d['proposal'].sum())} "
          f"({int(d['y'][d['proposal']].sum())} on balls); clips {len(real_clips)}", file=sys.stderr)  # fmt: skip
    # Two folds by clip for the threshold: every tuning proposal judged by a network that never saw its clip.
    # The two fold networks and the final one train at once, one process and one thread each.
    fold = {c: i % 2 for i, c in enumerate(real_clips)}
    held = [np.array([fold.get(c, -1) == f for c in d["clip"]]) for f in (0, 1)]
    jobs = [(~h, f) for f, h in enumerate(held)] + [(np.ones(len(d["y"]), bool), 7)]
    ctx = mp.get_context("spawn")
    with ctx.Pool(len(jobs)) as pool:
        states = pool.starmap(_fit_state, [(d["crops"][m], d["y"][m], d["w"][m], args.epochs, seed)
                                           for m, seed in jobs])  # fmt: skip
    torch.save(states, Path(args.data) / "ball_classifier_states.pt")  # kept should the export fail
    nets = []
    for st in states:
        net = BallNet()
        net.load_state_dict(st)
        net.eval()
        nets.append(net)
    oof = np.full(len(d["y"]), np.nan)
    for f in (0, 1):
        oof[held[f]] = predict(nets[f], d["crops"][held[f]])
    prop = d["proposal"]
    thr = choose_threshold(oof[prop], d["y"][prop], args.min_recall)
    yp, pp = d["y"][prop], oof[prop]
    kept = pp >= thr
    stats = {
        "threshold": round(thr, 4),
        "min_recall": args.min_recall,
        "oof_proposals": int(prop.sum()),
        "oof_balls_kept": f"{int((kept & (yp == 1)).sum())}/{int((yp == 1).sum())}",
        "oof_non_balls_dropped": f"{int((~kept & (yp == 0)).sum())}/{int((yp == 0).sum())}",
    }
    print(json.dumps(stats), file=sys.stderr)
    net = nets[2]
    out = Path(args.out)
    export(net, out / "ball_classifier.onnx")
    (out / "threshold.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out / 'ball_classifier.onnx'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
