"""Putting a service together: settings, store, match, runner and app, for ``serve``, ``demo`` and the
benchmark; and running uvicorn in the foreground or on a background thread."""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from api.live_feed import FeedSettings
from api.runner import FRAME_QUEUE, FramePipeline, PipelineFactory, Runner, SourceError, SourceSpec, parse_source
from api.service.app import create_app
from api.service.calibration_setup import CalibrationRefused, auto_for_file, auto_from_frames, load_for_service
from api.service.match import MatchService
from api.service.referee import RefereeSession, open_referee
from api.service.settings import ServiceSettings
from api.store import Store
from calibration.contract import GAMES
from calibration.mapping import Calibration


class UnknownGame(ValueError):
    pass


@dataclass
class Service:
    settings: ServiceSettings
    store: Store
    match: MatchService
    runner: Runner
    app: FastAPI


def build(
    source: str,
    game: str,
    settings: ServiceSettings,
    *,
    calibration: str | None = None,
    fast: bool = False,
    new_match: bool = False,
    on_step: Callable[..., None] | None = None,
    referee_factory: Callable[[str], RefereeSession | None] = open_referee,
    feed_settings: FeedSettings | None = None,
    frame_queue: int = FRAME_QUEUE,
) -> Service:
    if game not in GAMES:
        raise UnknownGame(f"unknown game '{game}' (known: {', '.join(GAMES)})")
    spec = parse_source(source)
    cal_info, cal = _calibration_info(spec, calibration)
    store = Store(settings.db)
    match = MatchService(
        store, source=spec.location, game=game, players=settings.players, calibration=cal_info,
        resume=not new_match, client_limit=settings.client_queue, referee_factory=referee_factory,
    )  # fmt: skip
    factory = None if spec.kind == "events" else pipeline_factory(cal, game)
    if spec.kind != "events" and factory is None:
        store.close()
        raise SourceError("a video source needs the live pipeline (api/pipeline.py), which this build does not have")
    runner = Runner(match, spec, fast=fast, pipeline_factory=factory, on_step=on_step,
                    resume_dir=settings.cache_dir / "resume", feed_settings=feed_settings,
                    frame_queue=frame_queue)  # fmt: skip
    app = create_app(match, settings)
    return Service(settings, store, match, runner, app)


def _calibration_info(spec: SourceSpec, calibration: str | None) -> tuple[dict[str, Any], Calibration | None]:
    """What the source is observed with, and what /state says about it. A file with no calibration is
    calibrated from its first seconds here; a live source with none, from its first frames (the runner)."""
    if spec.kind == "events":
        return {"status": "not needed", "detail": "the source is a recorded event log"}, None
    try:
        if calibration:
            cal, info = load_for_service(calibration)
            return info, cal
        if spec.scenario_dir is not None and (spec.scenario_dir / "camera.json").exists():
            from calibration.mapping import Calibration

            cal = Calibration.load(spec.scenario_dir / "camera.json")
            return {"status": "from camera.json", "image_size": list(cal.image_size)}, cal
        if spec.kind == "file":
            cal, info = auto_for_file(Path(spec.location))
            return info, cal
    except CalibrationRefused as exc:
        raise SourceError(str(exc)) from None
    return {"status": "calibrating", "detail": "from the first frames of the source"}, None


class _PipelineMaker:
    """Makes the live pipeline; for a live source given no calibration, first finds one in the per-pixel
    median of frames spread over its first seconds (``offer``), as ``analyze`` does from a file's."""

    FRAMES = 15  # frames in the median
    EVERY = 5  # one frame in this many (15 frames over 3 s at 25 fps: a player walking past drops out)

    def __init__(self, module: Any, game: str, cal: Calibration | None) -> None:
        self._module = module
        self._game = game
        self.cal = cal
        self._frames: list[Any] = []
        self._seen = 0
        self.info: dict[str, Any] | None = None  # what /state says, once found (or failed) here
        self.attempts = 0

    @property
    def pending(self) -> bool:
        return self.cal is None

    def offer(self, frame: Any) -> bool:
        """One more frame of a source not yet calibrated; True once calibrated."""
        self._seen += 1
        if self._seen % self.EVERY == 1:
            self._frames.append(frame)
        if len(self._frames) < self.FRAMES:
            return False
        frames, self._frames = self._frames, []
        self.attempts += 1
        try:
            self.cal = auto_from_frames(frames)
        except ValueError as exc:  # the next frames are tried: someone may have been standing in the way
            self.info = {"status": "calibrating", "detail": f"attempt {self.attempts} failed: {exc}"}
            return False
        self.info = {"status": "automatic", "detail": "found in the first frames of the source",
                     "source": self.cal.source, "quality": self.cal.quality}  # fmt: skip
        return True

    def __call__(self, fps: float, known_ids: dict[str, tuple[float, float]] | None) -> FramePipeline:
        if self.cal is None:
            raise SourceError("the source is not calibrated yet")
        return self._module.Pipeline(self.cal, game=self._game, known_ids=known_ids, fps=fps)


def pipeline_factory(calibration: Calibration | None, game: str) -> PipelineFactory | None:
    """A maker of the live pipeline for a video of a given frame rate, or None in a build without it. With no
    calibration, the maker finds one in the source's first frames (``_PipelineMaker.offer``)."""
    try:
        module = importlib.import_module("api.pipeline")
    except ModuleNotFoundError as exc:
        if exc.name == "api.pipeline":
            return None
        raise
    return _PipelineMaker(module, game, calibration)


class BackgroundServer:
    """uvicorn on a thread (for ``demo`` and the benchmark); ``port`` is known once started."""

    def __init__(self, app: FastAPI, host: str, port: int) -> None:
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)

    def start(self, timeout: float = 20.0) -> int:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise OSError("the web server did not start (is the port free?)")
            time.sleep(0.02)
        sockets = [s for srv in self.server.servers for s in srv.sockets]
        return int(sockets[0].getsockname()[1])

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
