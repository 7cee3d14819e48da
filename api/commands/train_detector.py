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


def run(args: argparse.Namespace) -> int:
    try:
        import ultralytics  # noqa: F401
    except ImportError:
        raise TrainingUnavailable("ultralytics is not installed: pip install -e '.[train]'") from None
    from models.detector.train import train
    from vision.neural import WEIGHTS

    weights = Path(args.weights) if args.weights else WEIGHTS
    if args.work:
        card = train(
            Path(args.work), args.scenes, args.epochs, weights, sys.stderr, args.batch, args.width, args.reuse_data
        )
    else:
        with tempfile.TemporaryDirectory(prefix="tableref-train-") as tmp:
            card = train(Path(tmp), args.scenes, args.epochs, weights, sys.stderr, args.batch, args.width)
    print(json.dumps(card, indent=2))
    return 0
