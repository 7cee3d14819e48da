"""``tableref train-detector``: render training scenes, train the small YOLO, export ONNX, write the card.

Needs the ``train`` extra (ultralytics with torch and torchvision) and the ``synth`` extra (pooltool).
Writes ``models/detector/ball_yolo.onnx``, ``ball_yolo.json`` and ``MODEL_CARD.md`` (or ``--weights``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path


class TrainingUnavailable(ValueError):
    """The train extra is not installed."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenes", type=int, default=80, help="rendered scenes (4 frames each; default 80)")
    parser.add_argument("--epochs", type=int, default=24, help="training epochs (default 24)")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--width", type=float, default=0.125, help="YOLOv8 width multiple (v8n: 0.25; default 0.125)")
    parser.add_argument("--work", help="folder for the dataset and the training run (default: a temporary one)")
    parser.add_argument("--reuse-data", action="store_true", help="train on the dataset already in --work/data")
    parser.add_argument("--weights", help="where to write the ONNX model (default models/detector/ball_yolo.onnx)")
    parser.add_argument("--data-only", action="store_true", help="render the dataset into --work/data and stop")
    parser.add_argument("--jobs", type=int, default=1, help="processes rendering the dataset (default 1)")
    parser.add_argument("--device", default="cpu", help="cpu (default) or a CUDA device index such as 0")
    parser.add_argument("--max-minutes", type=float, help="bound the training time (epochs are fitted to it)")
    parser.add_argument("--workers", type=int, default=0, help="data-loading processes while training (default 0)")


def run(args: argparse.Namespace) -> int:
    if args.data_only:
        return _render_only(args)
    try:
        import ultralytics  # noqa: F401
    except ImportError:
        raise TrainingUnavailable("ultralytics is not installed: pip install -e '.[train]'") from None
    from models.detector.train import train
    from vision.neural import WEIGHTS

    weights = Path(args.weights) if args.weights else WEIGHTS
    options = {
        "scenes": args.scenes, "epochs": args.epochs, "weights": weights, "progress": sys.stderr,
        "batch": args.batch, "width": args.width, "device": args.device, "workers": args.workers,
        "max_minutes": args.max_minutes,
    }  # fmt: skip
    if args.work:
        card = train(Path(args.work), reuse_data=args.reuse_data, **options)
    else:
        with tempfile.TemporaryDirectory(prefix="tableref-train-") as tmp:
            card = train(Path(tmp), **options)
    print(json.dumps(card, indent=2))
    return 0


def _render_only(args: argparse.Namespace) -> int:
    """The dataset alone (needs the synth extra, not the train one), e.g. to train on another machine."""
    if not args.work:
        raise ValueError("--data-only needs --work DIR")
    from models.detector.scenes import training_cases
    from models.detector.train import write_dataset
    from vision.neural import NeuralInput

    counts = write_dataset(training_cases(args.scenes), Path(args.work) / "data", NeuralInput(), jobs=args.jobs)
    print(json.dumps(counts))
    return 0
