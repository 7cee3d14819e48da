"""Render a scenario's truth to ``video.mp4`` and ``camera.json`` (CONTRACT.md section 6).

Frame ``i`` shows time ``i / fps``; its exposure is centred there and lasts ``exposure`` of the frame
interval. The static table (``models.synth.table_render``) is drawn once; per frame the balls' contact
shadows, the balls (ray-traced at their 3-D centres, motion-blurred by drawing each moving ball at
several instants across the exposure), the player (cue, arms) around each stroke, then exposure flicker
and sensor noise. The encoder is OpenCV's ``mp4v`` (MPEG-4 Part 2): the wheels of
opencv-python-headless carry no H.264 encoder (``avc1`` fails to open here), and single frames for the
detector are written as JPEG.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, cast

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import TableModel
from models.synth.balls import CUE_BGR, IVORY_BGR, BallPainter, BallStyle, composite, darken, rolling_rotation
from models.synth.occluders import PLAIN, draw_player, varied_look
from models.synth.table_render import render_table
from models.synth.truth import Truth

Lighting = Literal["even", "uneven"]
RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160)}
FRAME_RATES = (25, 30, 50, 60, 120)
BLUR_STEP_PX = 2.5  # a moving ball is drawn once per this many pixels of travel during the exposure


class RenderSettingsError(ValueError):
    """A rendering option that cannot be used."""


@dataclass(frozen=True)
class CameraSpec:
    """Where the camera hangs and its lens; ``CameraModel.overhead`` builds it for an image size."""

    tilt_deg: float = 0.0
    azimuth_deg: float = 180.0
    distance_mm: float = 4200.0
    k1: float = 0.0
    k2: float = 0.0
    fill: float = 0.86

    def model(self, table: TableModel, image_size: tuple[int, int]) -> CameraModel:
        return CameraModel.overhead(
            table, image_size, tilt_deg=self.tilt_deg, tilt_azimuth_deg=self.azimuth_deg,
            distance_mm=self.distance_mm, k1=self.k1, k2=self.k2, fill=self.fill,
        )  # fmt: skip

    @classmethod
    def parse(cls, text: str) -> CameraSpec:
        """``tilt=20,azimuth=180,distance=4200,k1=-0.05,k2=0.01,fill=0.86`` (any subset)."""
        names = {"tilt": "tilt_deg", "azimuth": "azimuth_deg", "distance": "distance_mm", "k1": "k1", "k2": "k2"}
        names["fill"] = "fill"
        values: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, _, val = part.partition("=")
            if key not in names:
                raise RenderSettingsError(f"unknown camera setting {key!r} (known: {', '.join(names)})")
            try:
                values[names[key]] = float(val)
            except ValueError:
                raise RenderSettingsError(f"camera setting {key} needs a number, got {val!r}") from None
        spec = replace(cls(), **values)
        if not 0.0 <= spec.tilt_deg <= 35.0:
            raise RenderSettingsError("camera tilt must be within 0..35 degrees")
        if not 2000.0 <= spec.distance_mm <= 12000.0:
            raise RenderSettingsError("camera distance must be within 2000..12000 mm")
        return spec


@dataclass(frozen=True)
class RenderSettings:
    resolution: tuple[int, int] = (1920, 1080)
    fps: float = 60.0
    camera: CameraSpec = field(default_factory=CameraSpec)
    exposure: float = 0.5  # shutter open, as a fraction of the frame interval
    max_blur_samples: int = 12
    noise_sigma: float = 2.0
    flicker: float = 0.015  # relative amplitude of mains-light exposure flicker
    lighting: str = "even"
    occluders: bool = True
    player: str = "plain"  # what the player wears: "plain", or "varied" (``occluders.varied_look`` per stroke)
    shadows: bool = True
    supersample: int = 4
    seed: int = 0

    def __post_init__(self) -> None:
        w, h = self.resolution
        if not (160 <= w <= 7680 and 90 <= h <= 4320):
            raise RenderSettingsError(f"resolution {w}x{h} is outside 160x90..7680x4320")
        if not 1.0 <= self.fps <= 240.0:
            raise RenderSettingsError(f"fps {self.fps} is outside 1..240")
        if self.player not in ("plain", "varied"):
            raise RenderSettingsError(f"player {self.player!r} is not plain or varied")


def parse_resolution(text: str) -> tuple[int, int]:
    key = text.lower()
    if key in RESOLUTIONS:
        return RESOLUTIONS[key]
    w, sep, h = key.partition("x")
    if not sep or not w.isdigit() or not h.isdigit():
        raise RenderSettingsError(f"resolution {text!r} is not WIDTHxHEIGHT, 720p, 1080p or 4k")
    return int(w), int(h)


def ball_styles(truth: Truth) -> dict[str, BallStyle]:
    """Numbers on object balls; a distinct cue ball where the game has one, all white otherwise."""
    out = {}
    for bid in truth.ball_ids:
        if bid == "cue" and not truth.scenario.all_white:
            out[bid] = BallStyle(CUE_BGR, None)
        else:
            out[bid] = BallStyle(IVORY_BGR, bid if bid.isdigit() and int(bid) <= 15 else None)
    return out


class SceneRenderer:
    """Frames of one scenario through one camera."""

    def __init__(self, truth: Truth, settings: RenderSettings) -> None:
        self.truth, self.settings = truth, settings
        self.table = truth.table
        self.camera = settings.camera.model(self.table, settings.resolution)
        rng = np.random.default_rng([settings.seed, 7])
        self.rng = rng
        self.background = render_table(
            self.camera,
            self.table,
            rng,
            lighting=cast(Lighting, settings.lighting),
            noise_sigma=0.0,
        )
        self.painter = BallPainter(self.camera, self.table.ball_radius_mm, settings.supersample, settings.shadows)
        self.styles = ball_styles(truth)
        self.n_frames = truth.frame_count(settings.fps)
        self._positions = self._sample_positions()
        self._orient = {b: _random_rotation(rng) for b in truth.ball_ids}
        self._last: dict[str, np.ndarray] = {}
        self._sprites: dict[str, tuple[tuple[object, ...], np.ndarray, np.ndarray]] = {}
        self._shadows: dict[str, tuple[tuple[object, ...], np.ndarray]] = {}
        w, h = settings.resolution
        sigma = settings.noise_sigma
        self._noise = [self._noise_frame(rng, h, w, sigma) for _ in range(6)] if sigma > 0 else []
        self._sides = [int(rng.choice([-1, 1])) for _ in truth.shots]
        looks = np.random.default_rng([settings.seed, 11])  # its own stream: a plain render draws as before
        self._looks = [varied_look(looks) if settings.player == "varied" else PLAIN for _ in truth.shots]

    @staticmethod
    def _noise_frame(rng: np.random.Generator, h: int, w: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
        """Gaussian sensor noise as two uint8 images (the positive and the negative part), so a frame gets
        its noise by two saturating uint8 operations."""
        buf = np.empty((h, w, 3), np.float32)
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        cv2.randn(buf, 0.0, float(sigma))  # type: ignore[call-overload]
        q = np.rint(buf)
        return np.clip(q, 0, 255).astype(np.uint8), np.clip(-q, 0, 255).astype(np.uint8)

    def _sample_positions(self) -> dict[str, np.ndarray]:
        """Ball centres at ``max_blur_samples`` instants across each frame's exposure: (frames, k, 2)."""
        fps, k = self.settings.fps, self.settings.max_blur_samples
        offs = (np.arange(k) + 0.5) / k - 0.5 if k > 1 else np.zeros(1)
        times = np.arange(self.n_frames)[:, None] / fps + offs[None, :] * self.settings.exposure / fps
        times = np.clip(times, 0.0, None)
        flat = times.ravel()
        return {b: self.truth.ball_positions(b, flat).reshape(self.n_frames, len(offs), 2) for b in self.truth.ball_ids}

    def frame(self, i: int) -> np.ndarray:
        """Frame ``i`` as BGR uint8 (frames must be asked for in order for the balls' spin to be right)."""
        st = self.settings
        img = self.background.copy()
        t = i / st.fps
        px_per_mm = self.painter.rays.focal / st.camera.distance_mm
        draw: list[tuple[float, str, np.ndarray]] = []
        for bid in self.truth.ball_ids:
            samples = self._positions[bid][i]
            ok = np.all(np.isfinite(samples), axis=1)
            if not ok.any():
                self._last.pop(bid, None)
                continue
            centre = samples[ok][len(samples[ok]) // 2]
            if bid in self._last:
                self._orient[bid] = (
                    rolling_rotation(centre - self._last[bid], self.table.ball_radius_mm) @ self._orient[bid]
                )
            self._last[bid] = centre
            depth = float((self.painter.rays.rot @ np.array([centre[0], centre[1], 0.0]) + self.painter.rays.t)[2])
            draw.append((depth, bid, samples[ok]))
        if st.shadows:
            for _, bid, pts in draw:
                c = pts[len(pts) // 2]
                box = self.painter.bbox(c, grow=1.6)
                if box is None:
                    continue
                key = (box, float(c[0]), float(c[1]))
                cached = self._shadows.get(bid)
                if cached is None or cached[0] != key:
                    cached = (key, self.painter.shadow(c, box))
                    self._shadows[bid] = cached
                darken(img, box, cached[1])
        for _, bid, pts in sorted(draw, key=lambda d: -d[0]):
            span = float(np.linalg.norm(pts[-1] - pts[0])) * px_per_mm
            n = int(np.clip(math.ceil(span / BLUR_STEP_PX), 1, len(pts)))
            pick = (
                pts[np.linspace(0, len(pts) - 1, n).round().astype(int)]
                if n > 1
                else pts[len(pts) // 2 : len(pts) // 2 + 1]
            )
            boxes = [b for b in (self.painter.bbox(p) for p in pick) if b is not None]
            if not boxes:
                continue
            box = (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
            acc = np.zeros((box[3] - box[1], box[2] - box[0], 3))
            cov = np.zeros((box[3] - box[1], box[2] - box[0]))
            skey = (bid, box, float(pick[0][0]), float(pick[0][1]), float(pick[-1][0]), float(pick[-1][1]))
            hit = self._sprites.get(bid)
            if hit is not None and hit[0] == skey:
                composite(img, box, hit[1], hit[2])
                continue
            for p in pick:
                pm, cv = self.painter.sprite(p, self.styles[bid], self._orient[bid], box)
                acc += pm
                cov += cv
            acc /= len(pick)
            cov /= len(pick)
            self._sprites[bid] = (skey, acc, cov)  # a resting ball is drawn again from this
            composite(img, box, acc, cov)
        if st.occluders:
            for k, shot in enumerate(self.truth.shots):
                s = shot.sim.stroke
                if s.ball in shot.sim.start:
                    draw_player(img, self.camera, shot.sim.start[s.ball], s.direction_deg, self.table.ball_radius_mm,
                                t - shot.t0, self._sides[k], self._looks[k])  # fmt: skip
        gain = 1.0 + st.flicker * math.sin(2 * math.pi * 100.0 * t) + st.flicker * 0.5 * float(self.rng.normal())
        if abs(gain - 1.0) > 1e-4:
            img = cv2.convertScaleAbs(img, alpha=gain)
        if self._noise:
            pos, neg = self._noise[i % len(self._noise)]
            img = cv2.subtract(cv2.add(img, pos), neg)
        return img

    def frames(self) -> Iterator[np.ndarray]:
        for i in range(self.n_frames):
            yield self.frame(i)

    def camera_json(self) -> dict[str, object]:
        """CONTRACT.md section 6, loadable by ``Calibration.load`` and with the full camera model."""
        cam, spec = self.camera, self.table.spec
        k = cam.dist_coeffs
        return {
            "image_size": list(cam.image_size),
            "fps": self.settings.fps,
            "corners_px": cam.corners_px(self.table),
            "lens": {"model": "radial-k1k2", "camera_matrix": cam.camera_matrix.tolist(), "k1": float(k[0]),
                     "k2": float(k[1])},
            "camera": cam.to_json(),
            "camera_height_mm": float(-cam.centre_mm[2]),
            "table": {
                "length_mm": spec.length_mm, "width_mm": spec.width_mm, "ball_diameter_mm": spec.ball_diameter_mm,
                "corner_mouth_mm": spec.corner_mouth_mm, "middle_mouth_mm": spec.middle_mouth_mm,
                "jaw_depth_mm": spec.jaw_depth_mm,
            },
            "source": "truth",
            "render": {
                "exposure": self.settings.exposure, "noise_sigma": self.settings.noise_sigma,
                "flicker": self.settings.flicker, "occluders": self.settings.occluders, "player": self.settings.player,
                "camera_spec": self.settings.camera.__dict__, "codec": "mp4v",
            },
        }  # fmt: skip


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def write_scene(truth: Truth, out_dir: str | Path, settings: RenderSettings) -> dict[str, float]:
    """Write ``video.mp4``, ``camera.json`` and ``truth/`` to ``out_dir``; returns timing figures."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    renderer = SceneRenderer(truth, settings)
    t_setup = time.perf_counter() - t_start
    w, h = settings.resolution
    writer = cv2.VideoWriter(str(out / "video.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), settings.fps, (w, h))
    if not writer.isOpened():
        raise RenderSettingsError("OpenCV could not open an mp4v video writer")
    t0 = time.perf_counter()
    try:
        for img in renderer.frames():
            writer.write(img)
    finally:
        writer.release()
    t_frames = time.perf_counter() - t0
    (out / "camera.json").write_text(json.dumps(renderer.camera_json(), indent=2) + "\n", encoding="utf-8")
    truth.write(out, settings.fps)
    return {"frames": float(renderer.n_frames), "setup_s": t_setup, "render_s": t_frames}
