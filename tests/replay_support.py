"""Recorded detections (tests/data: stretches of the generated suites, as the detector saw them) replayed
through a tracking pipeline."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import tracking.extractor as extractor
from api.pipeline import Pipeline
from calibration.contract import Event
from calibration.table import TableModel
from tests.tracking.records import dets
from tracking.detect.settings import setting_path
from vision.detections import Detections

TABLE = TableModel()
DATA = Path(__file__).parent / "data"


def frame_dets(pos: list, conf: list) -> Detections:
    """One frame's detections, as the pipeline takes them from a detector (``vision.detections.Detections``)."""
    return dets(pos, conf)


def contacts(events: list[Event], pair: set[str]) -> list[Event]:
    return [e for e in events if e.type == "contact" and set(e.balls or ()) == pair]


def replay(name: str) -> tuple[dict, list[Event]]:
    """A recorded suite stretch (tests/data) through a pipeline: the fixture, and the events."""
    d = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert d["frames"] and d["known_ids"], f"{name}: a fixture needs frames and the balls' known places"
    known = {k: tuple(v) for k, v in d["known_ids"].items()}
    pipe = Pipeline(table=TABLE, known_ids=known, meas_sigma_mm=d["meas_sigma_mm"])
    for f in d["frames"]:
        pipe.step_detections(frame_dets(f["pos_mm"], f["confidence"]), f["frame"], f["t"])
    pipe.finish()
    return d, pipe.sorted_events()


def settings_with(**kw: float):
    """An ``ExtractorSettings.__init__`` with ``kw`` in place of its defaults (for ``monkeypatch.setattr``)."""
    init = extractor.ExtractorSettings.__init__

    def replaced(obj: object, path: list[str], value: object) -> object:
        head, *rest = path
        return replace(obj, **{head: replaced(getattr(obj, head), rest, value) if rest else value})  # type: ignore[type-var]

    def patched(self: extractor.ExtractorSettings, *a: object, **k: object) -> None:
        init(self, *a, **k)  # type: ignore[arg-type]
        for name, value in kw.items():  # a field's name, or its dotted path (tracking.detect.settings)
            head, *rest = setting_path(self, name)
            object.__setattr__(self, head, replaced(getattr(self, head), rest, value) if rest else value)

    return patched
