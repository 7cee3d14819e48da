"""Putting a service together: settings, store, match, runner and app, for ``serve``, ``demo`` and the
benchmark; and running uvicorn in the foreground or on a background thread."""

from __future__ import annotations

import importlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from api.live_feed import FeedSettings
from api.runner import FramePipeline, PipelineFactory, Runner, SourceError, SourceSpec, parse_source
from api.service.app import create_app
from api.service.match import MatchService
from api.service.referee import RefereeSession, open_referee
from api.service.settings import ServiceSettings
from api.store import Store
from tracking.events import GAMES


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
) -> Service:
    if game not in GAMES:
        raise UnknownGame(f"unknown game '{game}' (known: {', '.join(GAMES)})")
    spec = parse_source(source)
    cal_info, cal_path = _calibration_info(spec, calibration)
    store = Store(settings.db)
    match = MatchService(
        store, source=spec.location, game=game, players=settings.players, calibration=cal_info,
        resume=not new_match, client_limit=settings.client_queue, referee_factory=referee_factory,
    )  # fmt: skip
    factory = None if spec.kind == "events" else pipeline_factory(cal_path, game)
    if spec.kind != "events" and factory is None:
        store.close()
        raise SourceError("a video source needs the live pipeline (api/pipeline.py), which this build does not have")
    runner = Runner(match, spec, fast=fast, pipeline_factory=factory, on_step=on_step,
                    resume_dir=settings.cache_dir / "resume", feed_settings=feed_settings)  # fmt: skip
    app = create_app(match, settings)
    return Service(settings, store, match, runner, app)


def _calibration_info(spec: SourceSpec, calibration: str | None) -> tuple[dict[str, Any], Path | None]:
    if spec.kind == "events":
        return {"status": "not needed", "detail": "the source is a recorded event log"}, None
    if calibration:
        from calibration.mapping import Calibration

        path = Path(calibration)
        cal = Calibration.load(path)
        return {"status": "loaded", "file": str(path), "source": cal.source, "quality": cal.quality}, path
    if spec.scenario_dir is not None and (spec.scenario_dir / "camera.json").exists():
        cam = json.loads((spec.scenario_dir / "camera.json").read_text())
        return {"status": "from camera.json", "image_size": cam.get("image_size")}, spec.scenario_dir / "camera.json"
    return {"status": "missing"}, None


def pipeline_factory(calibration: Path | None, game: str) -> PipelineFactory | None:
    """A maker of the live pipeline for a video of a given frame rate, or None in a build without it."""
    try:
        module = importlib.import_module("api.pipeline")
    except ModuleNotFoundError as exc:
        if exc.name == "api.pipeline":
            return None
        raise

    if calibration is None:
        raise SourceError(
            "a video source needs a calibration: --calibration FILE (see tableref calibrate), or a synth "
            "scenario folder with its camera.json"
        )
    from calibration.mapping import Calibration

    cal = Calibration.load(calibration)

    def make(fps: float, known_ids: dict[str, tuple[float, float]] | None) -> FramePipeline:
        return module.Pipeline(cal, game=game, known_ids=known_ids)

    return make


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
