"""The detector's compiled kernels: cached in one user folder keyed on their sources, compiled before a
command's clock starts with a message and a progress bar, and marked ready so later runs start at once."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

from api import warmup
from tests.paths import REPO
from vision import kernel_cache

REPO = REPO

# One small kernel, compiled in a child process whose cache folder is a temporary one.
CHILD = textwrap.dedent(
    """
    import json, numpy as np
    from vision.detections_kernels import first_invalid
    z = np.zeros((1, 2)); r = np.ones(1)
    first_invalid(z, z, r, np.full(1, 0.5), np.zeros(1, dtype=np.int64), np.zeros((1, 3)), 3)
    print(json.dumps({"hits": sum(first_invalid.stats.cache_hits.values()),
                      "misses": sum(first_invalid.stats.cache_misses.values())}))
    """
)


def _child(cache: Path, cwd: Path) -> dict[str, int]:
    env = {**os.environ, "TABLEREF_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_kernel_compiled_once_is_found_by_the_next_process_in_the_user_folder(tmp_path):
    cache = tmp_path / "cache"
    first = _child(cache, tmp_path)
    assert first == {"hits": 0, "misses": 1}
    stamp_dir = cache / "kernels" / f"{kernel_cache.source_stamp()}-numba{numba.__version__}"
    assert any(p.name.startswith("detections_kernels.first_invalid-") for p in stamp_dir.glob("*.nbi"))
    # Nothing written beside the sources for it: the user folder is the only copy.
    assert second_is_a_hit(cache, tmp_path)


def second_is_a_hit(cache: Path, cwd: Path) -> bool:
    return _child(cache, cwd) == {"hits": 1, "misses": 0}


def test_the_stamp_follows_the_kernel_sources_content_not_their_path_or_time(tmp_path, monkeypatch):
    copy = tmp_path / "vision"
    copy.mkdir()
    for src in kernel_cache.kernel_sources():
        (copy / src.name).write_bytes(src.read_bytes())
    here = kernel_cache.source_stamp()
    monkeypatch.setattr(kernel_cache, "VISION_DIR", copy)
    monkeypatch.setattr(kernel_cache, "_stamp", None)
    assert kernel_cache.source_stamp() == here  # another install of the same code: the same compiled copy
    (copy / "blob_kernels.py").write_text((copy / "blob_kernels.py").read_text() + "\n# edited\n")
    monkeypatch.setattr(kernel_cache, "_stamp", None)
    assert kernel_cache.source_stamp() != here  # an edited kernel file: compiled again


def test_the_kernel_list_holds_every_compiled_function_but_the_inlined_helpers():
    names = {f"{k.module}.{k.name}" for k in warmup.kernels()}
    assert "vision.classical_kernels.vote_kernel" in names
    assert "vision.refine_kernels.refine_kernel" in names
    assert "vision.detections_kernels.first_invalid" in names
    assert "vision.detections_kernels._finite" not in names  # inline="always": compiled into its callers
    assert len(names) >= 40


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_cold_cache_says_what_it_compiles_and_draws_a_bar(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLEREF_CACHE_DIR", str(tmp_path))
    assert not warmup.is_ready()
    out = Terminal()
    total = len(warmup.kernels())
    frames: list[bool] = []
    report = warmup.warm_up(out, drive=lambda on_frame: frames.append(on_frame()))
    text = out.getvalue()
    first = text.splitlines()[0]
    assert first.startswith(f"tableref: compiling the ball detector's {total} kernels for this computer")
    assert str(tmp_path) in first
    assert f"\r[{'.' * warmup.BAR_WIDTH}] 0/{total} kernels" in text
    assert text.rstrip().endswith(" s") and f"/{total} kernels · " in text.splitlines()[-1]
    assert report.compiled_now and len(frames) == 1  # the drive ran once, asking after its frame


def test_kernels_the_drive_misses_leave_the_cache_unmarked(tmp_path):
    # A fresh process and an empty cache folder: a drive that runs nothing reaches no kernel.
    code = textwrap.dedent(
        """
        import io, json
        from api import warmup
        report = warmup.warm_up(io.StringIO(), drive=lambda on_frame: None)
        print(json.dumps({"missing": len(report.missing), "kernels": report.kernels, "ready": warmup.is_ready()}))
        """
    )
    env = {**os.environ, "TABLEREF_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["missing"] == got["kernels"] > 0 and got["ready"] is False
    assert not list(tmp_path.rglob(warmup.READY_FILE))


def test_the_bundled_clip_reaches_every_kernel_and_marks_them_ready(tmp_path, monkeypatch):
    warmup.kernels()  # imported (and cached where they always are) before the folder is switched
    monkeypatch.setenv("TABLEREF_CACHE_DIR", str(tmp_path))
    out = io.StringIO()
    report = warmup.warm_up(out)
    assert report.missing == ()
    assert warmup.is_ready()
    mark = json.loads(warmup.ready_path().read_text())
    assert mark["kernels"] == report.kernels and "cpu" in mark and "numba" in mark
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[1].startswith(f"[{'#' * warmup.BAR_WIDTH}] {report.kernels}/{report.kernels}")
    quiet = io.StringIO()
    warmup.ensure_compiled(quiet)  # marked ready: nothing to say, nothing to run
    assert quiet.getvalue() == ""


def test_a_mark_from_another_numba_or_processor_is_not_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLEREF_CACHE_DIR", str(tmp_path))
    warmup.ready_path().parent.mkdir(parents=True)
    warmup.ready_path().write_text(json.dumps({"numba": "0.0.1", "cpu": "other", "kernels": 1}))
    assert not warmup.is_ready()


@pytest.mark.parametrize(
    ("argv", "needs"),
    [
        (["demo", "--no-serve"], True),
        (["demo", "--replay-truth"], False),
        (["serve", "--source", "0"], True),
        (["serve", "--source", "rtsp://127.0.0.1/cam"], True),
        (["serve", "--source", "api/data/demo/truth/events.jsonl"], False),
        (["analyze", "no-such-video.mp4", "--game", "moscow", "--out", "x"], False),
        (["analyze", "api/data/demo/video.mp4", "--game", "moscow", "--out", "x"], True),
        (["referee", "--game", "moscow", "events.jsonl"], False),
        (["bench", "rules"], False),
        (["bench", "detect"], True),
    ],
)
def test_only_commands_that_run_the_detector_compile_first(argv, needs, monkeypatch):
    from api.cli import build_parser, needs_kernels

    monkeypatch.chdir(REPO)
    args = build_parser(only=argv[0]).parse_args(argv)
    assert needs_kernels(args) is needs
