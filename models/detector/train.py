"""The neural detector's recipe: render labelled scenes, train a small YOLO, export ONNX, write the card.

1. Data: ``models.detector.scenes.training_cases`` rendered by ``models.synth`` (seeds apart from the
   benchmark's), each frame rectified to the network input exactly as ``vision.neural`` does at run
   time (``NeuralInput``) and stored as JPEG, one YOLO label per visible ball (class 0 ball, 1 cue ball),
   boxes one ball diameter across in the table frame. Every 7th scene is held out for validation.
2. Training: ultralytics YOLOv8 built from its yaml at depth 0.33 and width 0.125 (v8n is 0.25; this
   is 0.9 M parameters), no pretrained weights, nothing downloaded (``YOLO_OFFLINE=1``), on the CPU or
   a CUDA GPU, ``amp=False``. The dataset can be rendered on one machine (``--data-only``) and trained
   on another (``--reuse-data``).
3. Export: ONNX at the input size, opset 12, beside the card ``ball_yolo.json`` (data, epochs, metrics,
   input geometry) in ``models/detector/``.

Needs the ``train`` extra (ultralytics, torch, torchvision) and the ``synth`` extra (pooltool).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

import cv2

from models.detector.scenes import Case, render_cases, training_cases
from vision.neural import WEIGHTS, NeuralInput
from vision.parallax import ray_cloth_point

CLASSES = {0: "ball", 1: "cue"}


def write_dataset(
    cases: list[Case], out: Path, spec: NeuralInput, val_every: int = 7, jobs: int = 1, progress: TextIO | None = None
) -> dict:
    """Render ``cases`` into YOLO images/labels folders and a data yaml; returns counts. Every
    ``val_every``-th scene is held out for validation whole (its frames are near copies of each other);
    ``jobs`` processes render slices of the cases side by side."""
    for sub in ("images/train", "images/val", "labels/train", "labels/val"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    tasks = [(k, case, "val" if k % val_every == val_every - 1 else "train") for k, case in enumerate(cases)]
    slices = [tasks[j::jobs] for j in range(jobs)]
    if jobs == 1:
        parts = [_write_frames(slices[0], out, spec)]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_write_frames, slices, [out] * jobs, [spec] * jobs))
    counts = {key: sum(p[key] for p in parts) for key in ("train", "val", "balls")}
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: ball\n  1: cue\n", encoding="utf-8"
    )
    if progress:
        progress.write(f"data: {counts}\n")
        progress.flush()
    return counts


def _write_frames(tasks: list[tuple[int, Case, str]], out: Path, spec: NeuralInput) -> dict:
    """One image (JPEG, as video frames are compressed) and one label file per rendered frame: a box one
    ball diameter across around each visible ball's point on the cloth, class 1 for the cue ball."""
    counts = {"train": 0, "val": 0, "balls": 0}
    for k, case, split in tasks:
        for j, fr in enumerate(render_cases([case])):
            rect = spec.rectifier(fr.calibration)
            img = spec.image(rect, fr.image)
            vis = ~fr.hidden
            on_cloth = ray_cloth_point(fr.calibration, fr.pos[vis])
            grid = rect.table_to_grid(on_cloth) + 0.5  # continuous pixel coordinates
            size = 2 * fr.calibration.table.ball_radius_mm * rect.px_per_mm * 1.05
            lines = []
            for (u, v), cue in zip(grid, fr.cue[vis], strict=True):
                if 0 <= u < spec.width and 0 <= v < spec.height:
                    box = (u / spec.width, v / spec.height, size / spec.width, size / spec.height)
                    lines.append(f"{int(cue)} " + " ".join(f"{b:.6f}" for b in box))
            name = f"{k:05d}-{j}"
            cv2.imwrite(str(out / f"images/{split}/{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
            label = "\n".join(lines) + ("\n" if lines else "")
            (out / f"labels/{split}/{name}.txt").write_text(label, encoding="utf-8")
            counts[split] += 1
            counts["balls"] += len(lines)
    return counts


def train(
    out_dir: Path,
    scenes: int = 80,
    epochs: int = 24,
    weights: Path = WEIGHTS,
    progress: TextIO | None = None,
    batch: int = 8,
    width: float = 0.125,
    reuse_data: bool = False,
    device: str = "cpu",
    workers: int = 0,
    max_minutes: float | None = None,
) -> dict[str, Any]:
    """Render (or, with ``reuse_data``, take the dataset already in ``out_dir/data``, say one rendered
    by ``write_dataset`` on another machine), train on ``device`` ("cpu" or a CUDA index), export.
    ``max_minutes`` bounds the training: ultralytics then fits the epochs (and their learning-rate
    schedule) to that time."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO  # the train extra

    spec = NeuralInput()
    t0 = time.time()
    data_dir = out_dir / "data"
    if reuse_data and (data_dir / "data.yaml").exists():
        counts = _count_dataset(data_dir)
        _repoint_yaml(data_dir)
    else:
        counts = write_dataset(training_cases(scenes), data_dir, spec, progress=progress)
    t_data = time.time() - t0
    if progress:
        progress.write(f"data: {counts} in {t_data:.0f} s\n")
        progress.flush()
    model = YOLO(str(_network_yaml(out_dir, width)))
    results = model.train(
        data=str(data_dir / "data.yaml"), epochs=epochs, imgsz=spec.width, batch=batch, device=device,
        pretrained=False, amp=False, workers=workers, project=str(out_dir.resolve()), name="run", exist_ok=True,
        rect=False, mosaic=0.5, fliplr=0.5, flipud=0.5, degrees=0.0, scale=0.2, plots=False, verbose=False,
        nbs=batch, warmup_epochs=1.0,  # an optimiser step per batch; square batches (rect=True would
        # turn mosaic and shuffling off), the model stays fully convolutional for the 640 x 352 export
        **({"time": max_minutes / 60} if max_minutes else {}),
    )  # fmt: skip
    t_train = time.time() - t0 - t_data
    metrics = {k: round(float(v), 4) for k, v in getattr(results, "results_dict", {}).items()}
    onnx_path = Path(model.export(format="onnx", imgsz=(spec.height, spec.width), opset=12, simplify=False))
    weights.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx_path, weights)
    card = {
        "model": f"YOLOv8 architecture, depth 0.33, width {width} (no pretrained weights), ultralytics",
        "input": asdict(spec),
        "classes": CLASSES,
        "data": {
            "source": "models.detector.scenes.training_cases rendered by models.synth (pooltool physics)",
            "scenes": counts.get("scenes", scenes),
            "frames": counts["train"] + counts["val"],
            "train_frames": counts["train"],
            "val_frames": counts["val"],
            "boxes": counts["balls"],
        },
        "training": {
            "epochs": _epochs_run(Path(model.trainer.save_dir), epochs),
            "batch": batch,
            "device": _device_name(device),
            "amp": False,
            "seconds": round(t_train),
            "max_minutes": max_minutes,
        },
        "validation_metrics": metrics,
        "weights_bytes": weights.stat().st_size,
    }
    weights.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    (weights.parent / "MODEL_CARD.md").write_text(model_card_markdown(card), encoding="utf-8")
    return card


def _epochs_run(run_dir: Path, asked: int) -> int:
    """Epochs actually trained (fewer than asked when a time bound stopped the run): rows of results.csv."""
    csv_path = run_dir / "results.csv"
    if not csv_path.exists():
        return asked
    return max(len(csv_path.read_text(encoding="utf-8").splitlines()) - 1, 0)


def _device_name(device: str) -> str:
    if device == "cpu":
        return "cpu"
    import torch

    return f"cuda:{device} ({torch.cuda.get_device_name(int(device.split(',')[0]))})"


def _repoint_yaml(data_dir: Path) -> None:
    """A dataset rendered elsewhere names its own folder: point it here."""
    yaml_path = data_dir / "data.yaml"
    lines = yaml_path.read_text(encoding="utf-8").splitlines()
    lines = [f"path: {data_dir.resolve()}" if line.startswith("path:") else line for line in lines]
    yaml_path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _count_dataset(data_dir: Path) -> dict:
    labels = {split: sorted((data_dir / "labels" / split).glob("*.txt")) for split in ("train", "val")}
    boxes = sum(len(p.read_text(encoding="utf-8").split("\n")) - 1 for v in labels.values() for p in v)
    scenes = len({p.stem.split("-")[0] for v in labels.values() for p in v})  # frames are named <scene>-<frame>
    return {"train": len(labels["train"]), "val": len(labels["val"]), "balls": boxes, "scenes": scenes}


def _network_yaml(out_dir: Path, width: float) -> Path:
    """YOLOv8's own architecture yaml at depth 0.33 (as v8n) and a narrower width (v8n: 0.25): about
    0.9 M parameters at 0.125, small enough to ship and to train on a CPU."""
    import ultralytics
    import yaml

    cfg = yaml.safe_load((Path(ultralytics.__file__).parent / "cfg/models/v8/yolov8.yaml").read_text())
    cfg.pop("scales", None)
    cfg.update({"nc": len(CLASSES), "depth_multiple": 0.33, "width_multiple": width})
    path = out_dir / "ballnet.yaml"
    out_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


def model_card_markdown(card: dict[str, Any]) -> str:
    d, tr, m = card["data"], card["training"], card["validation_metrics"]
    lines = [
        "# Ball detector (neural): model card",
        "",
        f"- Model: {card['model']}; exported to ONNX (`ball_yolo.onnx`), run by onnxruntime (`vision.neural`).",
        f"- Input: the calibrated table frame rectified to {card['input']['width']} x {card['input']['height']} px "
        f"(field plus {card['input']['margin_mm']:.0f} mm margins); classes {card['classes']}.",
        f"- Data: {d['frames']} rendered frames ({d['train_frames']} train, {d['val_frames']} validation) from "
        f"{d['scenes']} scenes, {d['boxes']} ball boxes; {d['source']}.",
        f"- Training: {tr['epochs']} epochs, batch {tr['batch']}, {tr['device']}, amp={tr['amp']}, {tr['seconds']} s"
        + (f" (bounded to {tr['max_minutes']} minutes)." if tr.get("max_minutes") else "."),
        "- Validation metrics (held-out rendered frames): "
        + ", ".join(f"{k} {v}" for k, v in m.items() if k.startswith("metrics/")),
        "- Recipe: `tableref train-detector` (the `train` and `synth` extras)"
        + (": " + "; ".join(f"`{c}`" for c in card["recipe"]) if card.get("recipe") else "."),
        "- Not trained on real footage; measured on rendered and real frames by `tableref bench detect`.",
        "",
    ]
    return "\n".join(lines)
