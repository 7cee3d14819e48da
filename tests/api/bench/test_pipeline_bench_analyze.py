"""``tableref bench analyze --clip``: the stage table and the profile on a real (drawn, mp4) scene folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from api.cli import main
from tests.api.bench.test_pipeline_bench_tracking import _scene


@pytest.mark.slow
def test_bench_analyze_prints_each_stage_against_decoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _scene(tmp_path / "clip", 60.0, (2800.0, 600.0))
    assert main(["bench", "analyze", "--clip", str(tmp_path / "clip"), "--repeats", "1", "--profile", "5"]) == 0
    out = capsys.readouterr().out
    rows = {}
    for name in ("decode only", "detection only", "tracking + events only", "analyze (whole path)"):
        line = next(ln for ln in out.splitlines() if ln.startswith(name))
        rows[name] = [float(v) for v in re.findall(r"\d+\.\d+", line[len(name) :])]
    assert rows["decode only"][2] == 1.0  # the baseline of the ratios
    for vals in rows.values():
        ms, x_real = vals[0], vals[1]
        # ms is printed to 0.01: the real time ratio lies within what that rounding allows (a 0.2 ms stage
        # may be 0.195 ms, 85.5x)
        assert ms > 0.005 and 1000 / 60 / (ms + 0.005) - 0.01 <= x_real <= 1000 / 60 / (ms - 0.005) + 0.01
    assert re.search(r"\d+ frames 640x360 at 60 fps", out)
    assert "on two idle cores the whole path needs at least" in out
    assert out.count("own-time costs") == 2 and "vision/" in out
