"""Real detection records (tests/data/tracking: what the tracker was fed on a stretch of a real clip) and a
pipeline stepped through them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from api.pipeline import Pipeline
from calibration.contract import Event
from calibration.table import TableModel, TableSpec
from tracking.tracker import TrackerFrame
from vision.detections import Detections

DATA = Path(__file__).parents[1] / "data" / "tracking"


def load(name: str) -> tuple[dict, TableModel, list[tuple[float, Detections]]]:
    """The record, its table, and its frames (t, detections with vision's in-pocket and covered flags, and the
    classifier's unlike-ball flags and p(ball) where the record keeps them)."""
    doc = json.loads((DATA / name).read_text())
    (length, width), (corner, middle) = doc["table_mm"], doc["mouths_mm"]
    spec = TableSpec(length_mm=length, width_mm=width, ball_diameter_mm=doc["ball_mm"], corner_mouth_mm=corner,
                     middle_mouth_mm=middle)  # fmt: skip
    frames = []
    for f in doc["frames"]:
        z = np.array(f["pos_mm"], dtype=float).reshape(-1, 2)
        d = Detections(
            z * 0.5 + 20.0, z, np.full(len(z), 15.0), np.array(f["confidence"]), np.array(f["cls"]),
            np.array(f["colour"], dtype=float).reshape(-1, 3), np.array(f["in_pocket"], dtype=bool),
            np.array(f["covered"], dtype=bool),
            unlike_ball=None if "unlike_ball" not in f else np.array(f["unlike_ball"], dtype=bool),
            p_ball=None if "p_ball" not in f else np.array([np.nan if v is None else v for v in f["p_ball"]], float),
        )  # fmt: skip
        frames.append((f["t"], d))
    return doc, TableModel(spec), frames


def run(name: str) -> tuple[Pipeline, list[Event]]:
    """The record through a pipeline with its detection noise, as ``analyze`` steps it; the pipeline and its
    events."""
    doc, table, frames = load(name)
    pipe = Pipeline(table=table, meas_sigma_mm=doc["settings"]["meas_sigma_mm"])
    for i, (t, d) in enumerate(frames):
        pipe.step_detections(d, i, t)
    pipe.finish()
    return pipe, pipe.sorted_events()


def frames_of(name: str) -> list[TrackerFrame]:
    """The record stepped through a pipeline as ``analyze`` steps it: each frame's balls."""
    doc, table, frames = load(name)
    pipe = Pipeline(table=table, meas_sigma_mm=doc["settings"]["meas_sigma_mm"])
    out = []
    for i, (t, d) in enumerate(frames):
        pipe.step_detections(d, i, t)
        assert pipe.last is not None
        out.append(pipe.last)
    return out


def nearest(places: dict[str, tuple[float, float]], at: tuple[float, float]) -> str:
    """The id whose place is nearest ``at``."""
    return min(places, key=lambda k: float(np.hypot(places[k][0] - at[0], places[k][1] - at[1])))
