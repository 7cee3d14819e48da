"""Labelled frames for measuring and training the ball detectors, rendered by ``models.synth``.

A ``Case`` names a scenario of the synthetic library (``models.synth.library``), a seed, a camera and
resolution, and which moments of the scene to take; ``render_cases`` simulates each scenario once,
renders the chosen frames with ``models.synth.video.SceneRenderer`` and yields ``LabelledFrame``s: the
image, the exact calibration (the camera the frame was rendered with), and for every ball on the table
its pixel centre (its 3-D centre projected), radius, table position, class and whether the player's arm
or cue hides its centre. Needs the ``synth`` extra (pooltool); nothing on the live path imports this.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from calibration.mapping import Calibration
from calibration.table import TableModel

RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "1440p": (2560, 1440), "4k": (3840, 2160)}


@dataclass(frozen=True)
class Case:
    scenario: str
    seed: int
    resolution: tuple[int, int] = (1920, 1080)
    tilt_deg: float = 0.0
    azimuth_deg: float = 180.0
    distance_mm: float = 4200.0
    k1: float = 0.0
    k2: float = 0.0
    moments: tuple[float, ...] = (0.0,)  # fractions of the scene's duration (0 = the first frame)
    lighting: str = "even"
    noise_sigma: float = 2.0
    exposure: float = 0.5  # shutter open as a fraction of the frame interval (motion blur)
    fps: float = 30.0
    occluders: bool = True
    tags: tuple[str, ...] = ()
    render_seed: int = 0
    ideal_rack: bool = False  # the rack exactly on rack_positions (see models.synth.library.build)


@dataclass(frozen=True)
class LabelledFrame:
    name: str
    image: np.ndarray  # BGR uint8
    calibration: Calibration
    ids: list[str]
    px: np.ndarray  # (N, 2) the ball centres' images
    pos: np.ndarray  # (N, 2) table mm
    radius_px: np.ndarray  # (N,)
    cue: np.ndarray  # (N,) bool: a distinct cue ball
    hidden: np.ndarray  # (N,) bool: the player's arm or cue covers the centre
    tags: tuple[str, ...] = field(default=())
    at_rest: bool = True

    @property
    def resolution(self) -> tuple[int, int]:
        return self.calibration.image_size


def render_cases(cases: list[Case], table: TableModel | None = None) -> Iterator[LabelledFrame]:
    """Render every case's moments (scenarios simulated once per (name, seed))."""
    from models.synth import library
    from models.synth.occluders import draw_player
    from models.synth.physics import PhysicsTable
    from models.synth.truth import PhysicsGlitch, run_scenario
    from models.synth.video import CameraSpec, RenderSettings, SceneRenderer

    table = table or TableModel()
    ptable = PhysicsTable(table)
    truths: dict[tuple[str, int], object] = {}
    R = table.ball_radius_mm
    for case in cases:
        key = (case.scenario, case.seed, case.ideal_rack)
        if key not in truths:
            try:
                sc = library.build(case.scenario, case.seed, table, ptable, ideal_rack=case.ideal_rack)
                truths[key] = run_scenario(sc, table, ptable)
            except (library.ScenarioError, PhysicsGlitch):
                truths[key] = None
        truth = truths[key]
        if truth is None:
            continue
        spec = CameraSpec(case.tilt_deg, case.azimuth_deg, case.distance_mm, case.k1, case.k2)
        settings = RenderSettings(
            resolution=case.resolution, fps=case.fps, camera=spec, exposure=case.exposure,
            noise_sigma=case.noise_sigma, lighting=case.lighting, occluders=case.occluders, seed=case.render_seed,
        )  # fmt: skip
        renderer = SceneRenderer(truth, settings)  # type: ignore[arg-type]
        cal = Calibration.from_json(renderer.camera_json())
        cam = renderer.camera
        w, h = case.resolution
        wanted = sorted({min(round(m * (renderer.n_frames - 1)), renderer.n_frames - 1) for m in case.moments})
        cue_id = truth.scenario.cue_ball  # type: ignore[attr-defined]
        for i in range(max(wanted) + 1):
            if i not in wanted:
                continue  # frames need not be rendered in order for positions; spin is cosmetic
            img = renderer.frame(i)
            t = i / case.fps
            mask = np.zeros((h, w, 3), np.uint8)
            if case.occluders:
                for j, shot in enumerate(truth.shots):  # type: ignore[attr-defined]
                    s = shot.sim.stroke
                    if s.ball in shot.sim.start:
                        draw_player(mask, cam, shot.sim.start[s.ball], s.direction_deg, R, t - shot.t0,
                                    renderer._sides[j])  # fmt: skip
            pos_d = truth.positions_at(t)  # type: ignore[attr-defined]
            ids = list(pos_d)
            pos = np.array([pos_d[b] for b in ids], dtype=np.float64).reshape(-1, 2)
            px = cam.project(pos, R) if len(pos) else np.zeros((0, 2))
            edge = cam.project(pos + np.array([R, 0.0]), R) if len(pos) else np.zeros((0, 2))
            radius = np.linalg.norm(edge - px, axis=1)
            inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
            ui = np.clip(px[:, 0].astype(int), 0, w - 1)
            vi = np.clip(px[:, 1].astype(int), 0, h - 1)
            hidden = mask[vi, ui].any(axis=1) if len(px) else np.zeros(0, bool)
            moving = _moving(truth, ids, t, case.fps)
            sel = inside
            tags = case.tags + (("rack",) if case.scenario == "break" and i == 0 else ())
            yield LabelledFrame(
                name=f"{case.scenario}-s{case.seed}-{w}x{h}-t{case.tilt_deg:.0f}-f{i}",
                image=img, calibration=cal, ids=[b for b, s in zip(ids, sel, strict=True) if s],
                px=px[sel], pos=pos[sel], radius_px=radius[sel],
                cue=np.array([b == cue_id for b, s in zip(ids, sel, strict=True) if s], bool),
                hidden=hidden[sel], tags=tags, at_rest=not moving,
            )  # fmt: skip


def _moving(truth: object, ids: list[str], t: float, fps: float) -> bool:
    if not ids:
        return False
    a = np.array([truth.ball_positions(b, np.array([max(t - 0.5 / fps, 0.0)]))[0] for b in ids])  # type: ignore[attr-defined]
    b = np.array([truth.ball_positions(b, np.array([t + 0.5 / fps]))[0] for b in ids])  # type: ignore[attr-defined]
    d = np.linalg.norm(np.nan_to_num(b - a), axis=1)
    return bool(np.any(d > 0.5))


def bench_cases(racks: int = 20, scale: float = 1.0) -> list[Case]:
    """The detection benchmark: every resolution 720p..4K, tilts 0..30 degrees, barrel distortion,
    uneven light, motion blur and the player's arm and cue, the full rack, clusters, frozen balls,
    balls by cushions and in pocket mouths. ``racks`` racked pyramids (different cameras);
    ``scale`` thins the rest for quick runs."""
    rng = np.random.default_rng(2026)
    cases: list[Case] = []

    def cam() -> dict[str, float]:
        return {
            "tilt_deg": float(rng.uniform(0, 30)),
            "azimuth_deg": float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.uniform(-20, 20)),
            "distance_mm": float(rng.uniform(3600, 5000)),
            "k1": float(rng.uniform(-0.1, 0.0)),
        }

    break_seeds = max(1, math.ceil(racks / 5))
    for i in range(racks):
        light = str(rng.choice(["even", "uneven"]))
        cases.append(
            Case("break", i % break_seeds, RESOLUTIONS["1080p"], moments=(0.0,), lighting=light, tags=("1080p",),
                 render_seed=i, **cam())  # type: ignore[arg-type]
        )  # fmt: skip
    kinds = [
        ("break", (0.0, 0.3, 1.0)),  # the rack, the spread just after, the balls at rest
        ("cluster-hit", (0.0, 0.5, 1.0)),  # clusters of frozen balls
        ("frozen-pair", (0.0, 1.0)),
        ("frozen-cushion-roll", (0.0, 1.0)),  # balls frozen to a cushion
        ("stop-in-mouth", (1.0,)),  # a ball in a pocket mouth
        ("random", (0.0, 0.4, 1.0)),
        ("cluster-random", (0.0, 1.0)),
    ]
    n_each = max(1, round(4 * scale))
    for res_name, res in RESOLUTIONS.items():
        for kind, moments in kinds:
            for s in range(n_each if res_name == "1080p" else max(1, n_each // 2)):
                if res_name == "4k" and s > 0:
                    continue  # 4K renders slowly: one scene of each kind
                look = {
                    "lighting": str(rng.choice(["even", "uneven"])),
                    "exposure": float(rng.uniform(0.3, 0.9)),
                    "noise_sigma": float(rng.uniform(1.0, 4.0)),
                }
                cases.append(
                    Case(kind, 100 + s, res, moments=moments, tags=(res_name,), render_seed=1000 + len(cases),
                         **look, **cam())  # type: ignore[arg-type]
                )  # fmt: skip
    return cases


def training_cases(n_scenes: int, seed: int = 7) -> list[Case]:
    """Scenes for training the neural detector (seeds apart from the benchmark's)."""
    rng = np.random.default_rng(seed)
    kinds = ["break", "random", "cluster-random", "cluster-hit", "frozen-pair", "frame-short", "stop-in-mouth",
             "frozen-cushion-roll"]  # fmt: skip
    cases = []
    for i in range(n_scenes):
        res = [RESOLUTIONS["720p"], RESOLUTIONS["1080p"], (1600, 900)][i % 3]
        cases.append(
            Case(
                kinds[i % len(kinds)], 500 + i // len(kinds), res,
                tilt_deg=float(rng.uniform(0, 30)),
                azimuth_deg=float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.uniform(-20, 20)),
                distance_mm=float(rng.uniform(3600, 5000)), k1=float(rng.uniform(-0.1, 0.0)),
                moments=(0.0, float(rng.uniform(0.1, 0.5)), float(rng.uniform(0.5, 1.0)), 1.0),
                lighting=str(rng.choice(["even", "uneven"])), exposure=float(rng.uniform(0.3, 0.9)),
                noise_sigma=float(rng.uniform(1.0, 4.0)), render_seed=5000 + i,
            )
        )  # fmt: skip
    return cases
