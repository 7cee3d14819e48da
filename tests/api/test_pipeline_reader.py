"""Frames decoded ahead in a background thread: same frames, same order, same timestamps, errors in the caller."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.pipeline import prefetch, timed_frames, video_frames


def _video(path: Path, n: int = 40, fps: float = 30.0) -> Path:
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (160, 96))
    for i in range(n):
        img = np.zeros((96, 160, 3), np.uint8)
        cv2.putText(img, str(i), (10, 70), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (255, 255, 255), 3)
        img[:, :, 1] = (i * 6) % 256
        vw.write(img)
    vw.release()
    return path


def _serial(path: Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    out = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        out.append(f)
    cap.release()
    return out


def test_video_frames_ahead_gives_the_same_frames_in_order(tmp_path: Path) -> None:
    path = _video(tmp_path / "v.mp4")
    serial = _serial(path)
    assert len(serial) == 40
    ahead = list(video_frames(cv2.VideoCapture(str(path)), depth=2))
    assert len(ahead) == len(serial)
    assert all(np.array_equal(a, b) for a, b in zip(ahead, serial, strict=True))


def test_timed_frames_increase_at_the_frame_rate_and_stop_at_the_limit(tmp_path: Path) -> None:
    path = _video(tmp_path / "v.mp4", n=30, fps=25.0)
    items = list(timed_frames(cv2.VideoCapture(str(path)), 25.0, limit=20))
    assert len(items) == 20
    ts = np.array([t for _, t in items])
    assert np.all(np.diff(ts) > 0)
    assert np.allclose(np.diff(ts), 1 / 25.0, atol=1e-3)
    assert ts[0] == pytest.approx(0.0, abs=1e-3)
    serial = _serial(path)[:20]
    assert all(np.array_equal(f, s) for (f, _), s in zip(items, serial, strict=True))


def test_an_error_in_the_reader_is_raised_in_the_caller_after_the_good_items() -> None:
    def items() -> Iterator[int]:
        yield 1
        yield 2
        raise OSError("disk gone")

    got = []
    with pytest.raises(OSError, match="disk gone"):
        for x in prefetch(items(), depth=1):
            got.append(x)
    assert got == [1, 2]


def test_leaving_early_stops_the_reader_thread() -> None:
    produced = []

    def items() -> Iterator[int]:
        for i in range(10_000):
            produced.append(i)
            yield i

    before = threading.active_count()
    gen = prefetch(items(), depth=3)
    first = [next(gen) for _ in range(5)]
    gen.close()
    assert first == [0, 1, 2, 3, 4]
    assert threading.active_count() == before
    assert len(produced) < 20  # it stopped a few items ahead, not at the end


def test_a_frame_source_that_fails_surfaces_its_error() -> None:
    class Broken:
        def __init__(self) -> None:
            self.n = 0

        def read(self) -> tuple[bool, np.ndarray]:
            self.n += 1
            if self.n > 3:
                raise RuntimeError("decoder crashed")
            return True, np.zeros((4, 4, 3), np.uint8)

        def get(self, prop: int) -> float:
            return 0.0

    seen = 0
    with pytest.raises(RuntimeError, match="decoder crashed"):
        for _ in video_frames(Broken()):
            seen += 1
    assert seen == 3
