"""The stream's frame rate reaches the tracker and the event extractor before the first frame."""

from __future__ import annotations

import pytest

from api.pipeline import Pipeline
from calibration.contract import UNSTATED_FPS
from calibration.table import TableModel


@pytest.mark.parametrize(("fps", "want"), [(30.0, 1 / 30), (25.0, 1 / 25), (None, 1 / UNSTATED_FPS)])
def test_the_first_frame_interval_is_the_stream_s(fps: float | None, want: float) -> None:
    pipe = Pipeline(table=TableModel(), fps=fps)
    assert pipe.tracker._frame_dt == pytest.approx(want)
    assert pipe.extractor.dt == pytest.approx(want)
