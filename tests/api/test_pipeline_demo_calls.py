"""The bundled demo clip through the pipeline and the referee (as ``tableref analyze`` runs it) makes the same
calls as the referee on the clip's true events: per shot legal, fouls, score and next player, and the pots
(shot and pocket; the pipeline's ball ids may differ from the rack numbers)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import cv2
import pytest

from api.commands.analyze import merge_inputs, run_rules, scenario_calibration, table_from_args
from api.pipeline import Pipeline, video_frames
from calibration.contract import Event, read_jsonl
from tests.paths import REPO

DEMO = REPO / "api" / "data" / "demo"
GAME = "moscow"


def _observe() -> list[Event]:
    video = DEMO / "video.mp4"
    cap = cv2.VideoCapture(str(video))
    assert cap.isOpened()
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    table = table_from_args(None, None, None)
    cal = scenario_calibration(video, table, size)
    assert cal is not None
    pipe = Pipeline(cal, game=GAME, detector_name="classical")
    i = pipe.run(video_frames(cap), fps)
    cap.release()
    assert i > 600
    return pipe.sorted_events()


def _calls(verdicts: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (v["shot"], v["legal"], sorted(f["code"] for f in v["fouls"]), v["score"], v["next_player"]) for v in verdicts
    ]


@pytest.mark.slow
def test_demo_clip_verdicts_equal_the_verdicts_on_the_true_events() -> None:
    table = table_from_args(None, None, None)
    inputs = read_jsonl(DEMO / "truth" / "inputs.jsonl")
    truth = read_jsonl(DEMO / "truth" / "events.jsonl")
    want, problem = run_rules(GAME, table, merge_inputs(truth, inputs))
    assert problem is None and [v["shot"] for v in want] == [0, 1, 2]

    pred = _observe()
    got, problem = run_rules(GAME, table, merge_inputs(pred, inputs))
    assert problem is None
    assert _calls(got) == _calls(want)
    assert not any(e.type == "disturbed" for e in pred)

    def pots(events: list[Event]) -> Counter[tuple[int | None, str | None]]:
        return Counter((e.shot, e.pocket) for e in events if e.type == "pot")

    assert pots(pred) == pots(truth) and sum(pots(truth).values()) >= 2
