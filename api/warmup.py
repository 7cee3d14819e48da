"""The detector's compiled kernels, made ready before a real-time clock starts.

The classical detector's loops are numba kernels, compiled on their first call: on a fresh install about a
minute of a 2-core machine's time. Compiled in the middle of a live source, that minute would be frames
dropped and calls missed; so a command that runs the detector first calls ``ensure_compiled()``, which,
when this computer has no compiled copy of these kernels yet, says so in one line, compiles them with a
progress bar (both on stderr) by running the real detector over the first frames of the bundled demo
clip, and marks them ready. Later runs find the mark and start at once. ``tableref warmup`` does the same
on demand. Where they are kept, and why there: ``vision.kernel_cache``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from numba.core import event

from vision import kernel_cache

DEMO_DIR = Path(__file__).resolve().parent / "data" / "demo"
READY_FILE = "ready.json"
# The detector adapts its cloth model every few frames, which is the last kernel a clip reaches; no kernel
# waits longer than this many frames for its first call.
MAX_FRAMES = 40
BAR_WIDTH = 30


@dataclass(frozen=True)
class Kernel:
    """One compiled function of ``vision/``: ``module.name`` and its numba dispatcher."""

    module: str
    name: str
    dispatcher: Any

    @property
    def ready(self) -> bool:
        """Compiled in this process, or found in the cache folder. (A kernel loaded from the cache brings the
        code of the kernels it calls with it, so those are never loaded on their own: their cache files are
        what says they are ready.)"""
        if self.dispatcher.overloads:
            return True
        line = self.dispatcher.py_func.__code__.co_firstlineno
        stem = self.module.rsplit(".", 1)[-1]
        qualname = self.dispatcher.py_func.__qualname__
        # The folder numba chose for it when its module was imported (numba's Cache.cache_path).
        folder = getattr(getattr(self.dispatcher, "_cache", None), "cache_path", None) or kernel_cache.kernel_dir()
        return (Path(folder) / kernel_cache.index_name(stem, qualname, line)).exists()


def kernels() -> list[Kernel]:
    """Every kernel of ``vision/*_kernels.py`` that is compiled on its own. Helpers marked ``inline="always"``
    are compiled into their callers and have no code of their own to cache."""
    from numba.core.registry import CPUDispatcher

    found = []
    for path in kernel_cache.kernel_sources():
        if not path.stem.endswith("_kernels"):
            continue
        module = importlib.import_module(f"vision.{path.stem}")
        for name, obj in vars(module).items():
            if not isinstance(obj, CPUDispatcher) or obj.py_func.__module__ != module.__name__:
                continue
            if obj.targetoptions.get("inline") == "always":
                continue
            found.append(Kernel(module.__name__, name, obj))
    return found


def _machine() -> dict[str, str]:
    """What a compiled copy is valid for besides the sources: numba's version and this processor."""
    import llvmlite.binding as ll
    import numba

    return {"numba": numba.__version__, "cpu": ll.get_host_cpu_name()}


def ready_path() -> Path:
    return kernel_cache.kernel_dir() / READY_FILE


def is_ready() -> bool:
    """Whether this computer holds compiled kernels of these sources, for this numba and processor."""
    try:
        mark = json.loads(ready_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(mark, dict) and all(mark.get(k) == v for k, v in _machine().items())


def _mark_ready(n_kernels: int, seconds: float) -> None:
    mark = {**_machine(), "kernels": n_kernels, "compile_s": round(seconds, 1)}
    # An unwritable cache: the kernels are compiled for this process all the same.
    with contextlib.suppress(OSError):
        ready_path().parent.mkdir(parents=True, exist_ok=True)
        ready_path().write_text(json.dumps(mark) + "\n", encoding="utf-8")


class ProgressBar:
    """``[#####.....] 12/55 kernels`` redrawn in place on a terminal; on a pipe, only the final line."""

    def __init__(self, total: int, out: TextIO) -> None:
        self.total = max(total, 1)
        self.out = out
        self.done = -1
        self.tty = bool(getattr(out, "isatty", lambda: False)())

    def update(self, done: int) -> None:
        if done == self.done:
            return
        self.done = done
        if self.tty:
            self.out.write("\r" + self.line(done))
            self.out.flush()

    def line(self, done: int) -> str:
        filled = int(BAR_WIDTH * min(done / self.total, 1.0))
        return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{self.total} kernels"

    def finish(self, done: int, seconds: float) -> None:
        end = f" · {seconds:.0f} s"
        self.out.write(("\r" if self.tty else "") + self.line(done) + end + "\n")
        self.out.flush()


def drive_detector(on_frame: Callable[[], bool]) -> None:
    """Call every kernel with the argument types of a real run: the classical detector and tracker over the
    first frames of the bundled clip (its exact camera), until ``on_frame()`` says all are ready."""
    import cv2
    import numpy as np

    from api.commands.analyze import scenario_calibration
    from api.pipeline import Pipeline
    from calibration.table import TableModel, TableSpec
    from vision import view_kernels

    video = DEMO_DIR / "video.mp4"
    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        raise OSError(f"cannot open the bundled clip {video}")
    try:
        size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
        cal = scenario_calibration(video, TableModel(TableSpec()), size)
        if cal is None:
            raise OSError(f"the bundled clip's camera.json is missing from {DEMO_DIR}")
        # The point mappings of the calibration, as the compiled view takes them (vision.parallax).
        h, k = np.eye(3), np.eye(3)
        pts = np.zeros((1, 2))
        view_kernels.table_to_image(h, k, 0.0, 0.0, pts)
        view_kernels.image_to_table(h, k, 0.0, 0.0, pts)
        pipe = Pipeline(cal, game="moscow", fps=fps)
        for index in range(MAX_FRAMES):
            ok, frame = cap.read()
            if not ok:
                break
            pipe.step(frame, index, index / fps)
            if on_frame():
                break
        pipe.finish()
    finally:
        cap.release()


@dataclass(frozen=True)
class WarmupReport:
    kernels: int
    compiled_now: bool
    seconds: float
    missing: tuple[str, ...]  # kernels no frame of the clip called (none, when the drive covers them all)
    where: Path


def warm_up(
    out: TextIO = sys.stderr,
    *,
    drive: Callable[[Callable[[], bool]], None] = drive_detector,
    force: bool = False,
) -> WarmupReport:
    """Make every kernel ready; when they are not marked ready on this computer (or ``force``), say so in one
    line and show a progress bar while they compile."""
    started = time.perf_counter()
    all_kernels = kernels()
    cold = force or not is_ready()
    bar = None
    if cold:
        print(
            f"tableref: compiling the ball detector's {len(all_kernels)} kernels for this computer "
            f"(once; about a minute on two idle cores; kept in {kernel_cache.kernel_dir()})",
            file=out,
            flush=True,
        )
        bar = ProgressBar(len(all_kernels), out)
        bar.update(0)
    listener = _CompileListener(all_kernels, bar)

    def on_frame() -> bool:
        return listener.refresh() == len(all_kernels)

    with event.install_listener("numba:compile", listener):
        drive(on_frame)
    done = listener.refresh()
    seconds = time.perf_counter() - started
    if bar is not None:
        bar.finish(done, seconds)
    missing = tuple(f"{k.module}.{k.name}" for k in all_kernels if not k.ready)
    if cold and not missing:
        _mark_ready(len(all_kernels), seconds)
    return WarmupReport(len(all_kernels), cold, seconds, missing, kernel_cache.kernel_dir())


def ensure_compiled(out: TextIO = sys.stderr) -> None:
    """Before a command's clock starts: nothing when the kernels are marked ready, else ``warm_up``."""
    if not is_ready():
        warm_up(out)


class _CompileListener(event.Listener):
    """numba's compile events (cache misses only) move the bar; cache loads are counted at the next one."""

    def __init__(self, all_kernels: list[Kernel], bar: ProgressBar | None) -> None:
        self.kernels = all_kernels
        self.bar = bar

    def refresh(self) -> int:
        done = sum(k.ready for k in self.kernels)
        if self.bar is not None:
            self.bar.update(done)
        return done

    def on_start(self, ev: Any) -> None:
        pass

    def on_end(self, ev: Any) -> None:
        self.refresh()
