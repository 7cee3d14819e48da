"""Rendered crops for the ball classifier: ``models.synth`` scenes taken while the player is over the table.

Each frame is a scene's balls and cloth, rendered without the player; this module then paints what makes a
ball hard to tell from a hand, and labels it exactly (it knows every pixel it painted):

- some balls recoloured dark (black, blue, green, maroon, purple: the sprite's shading and a highlight kept), so
  that dark balls on the cloth are positives (training turns the cloth's colour: green becomes blue or red);
- the player's soft shadow (the arm and cue 3-12 cm above the cloth, lit from above: a blurred, shifted copy
  of their outline darkening the cloth and the balls under it);
- the player (``models.synth.occluders``: cue, bridge and grip hands, sleeves), each part in a colour drawn
  at random: bare hands of several skin tones, black, white and coloured gloves, sleeves of any colour; a
  wristwatch (a round lit face on a strap) on some wrists;
- extra cue shafts and cue tips across or touching some balls, and a finger over a ball's edge;
- dim light on some frames.

Positives: every ball whose disc the player covers less than half (balls under the cue, in the arm's
shadow, touched by the tip or a finger, dark, dim), and the classical detector's proposals on a ball.
Negatives: crops centred on the hands, gloves, watches, sleeves and cue tips, the detector's proposals off
every ball (weighted most: they are what the network judges), random squares and pocket holes.

``python3 -m models.ball_classifier.synth --scenes 12 --out /tmp/bc`` writes ``synth.npz`` (crops, y, kind,
w). Needs the ``synth`` extra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.ball_classifier.data import OFF_BALL, ON_BALL, RANDOM, classify_proposals, extra_crops
from vision.ball_classifier import cut_crops

PLAYER, COVERED, DARK = 4, 5, 6  # further kinds of crop: a part of the player, a half-covered ball, a dark ball

# Parts of the player as ``draw_player`` paints them, told apart by their colour on a black canvas.
_PART_BGR = {"shaft": (150, 196, 222), "butt": (36, 30, 58), "skin": (118, 146, 196), "sleeve": (58, 50, 44)}
_SKIN_TONES = [(118, 146, 196), (90, 120, 170), (60, 85, 125), (150, 175, 220), (40, 55, 85)]
_GLOVES = [(28, 28, 30), (215, 215, 215), (140, 70, 30), (40, 40, 160), (60, 130, 60), (200, 200, 160)]
# Dark and coloured pool balls as a fraction of the rendered ivory ball's colour (BGR).
_BALL_TINTS = np.array([
    [0.12, 0.12, 0.12], [0.07, 0.07, 0.08], [0.60, 0.22, 0.08], [0.30, 0.50, 0.12], [0.14, 0.10, 0.42],
    [0.40, 0.14, 0.32], [0.10, 0.10, 0.75], [0.10, 0.40, 0.90], [0.10, 0.70, 0.85],
])  # fmt: skip
_DARK_TINTS = 6  # the first six are the dark ones (black, blue, green, maroon, purple): most of those painted


@dataclass(frozen=True)
class SynthFrame:
    name: str
    image: np.ndarray
    calibration: object
    px: np.ndarray  # (N, 2) ball centres in the image
    radius_px: np.ndarray
    covered: np.ndarray  # (N,) share of each ball's disc the player covers
    dark: np.ndarray  # (N,) bool: recoloured dark
    player_px: np.ndarray  # (M, 2) centres of hands, gloves, watches, sleeves and cue tips
    player_r: np.ndarray  # (M,) a ball's radius there (crop size)


def _disc(h: int, w: int, c: np.ndarray, r: float) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w]
    return np.clip(r + 0.5 - np.hypot(xx - c[0], yy - c[1]), 0.0, 1.0)


def _covered(parts: np.ndarray, c: np.ndarray, r: float) -> float:
    """The share of a ball's disc (centre ``c``, radius ``r`` px) that the player covers."""
    x0, y0 = int(max(c[0] - r, 0)), int(max(c[1] - r, 0))
    x1, y1 = int(min(c[0] + r + 1, parts.shape[1])), int(min(c[1] + r + 1, parts.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return 1.0
    inside = _disc(y1 - y0, x1 - x0, c - [x0, y0], r) > 0.5
    return float((parts[y0:y1, x0:x1][inside] >= 0).mean()) if inside.any() else 1.0


def _tint_ball(img: np.ndarray, c: np.ndarray, r: float, tint: np.ndarray) -> None:
    """A dyed ball: the ivory sprite's shading times the dye, its specular highlight (over 215) added back
    three times over, so that it stays the brightest spot of the ball."""
    x0, y0 = int(max(c[0] - r - 2, 0)), int(max(c[1] - r - 2, 0))
    x1, y1 = int(min(c[0] + r + 3, img.shape[1])), int(min(c[1] + r + 3, img.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return
    patch = img[y0:y1, x0:x1].astype(np.float32)
    a = _disc(y1 - y0, x1 - x0, c - [x0, y0], r * 0.97)[..., None]
    spec = np.clip(patch.max(axis=2, keepdims=True) - 215.0, 0.0, None) * 3.0
    dyed = patch * tint[None, None, :] + spec
    img[y0:y1, x0:x1] = np.clip(patch * (1 - a) + dyed * a, 0, 255).astype(np.uint8)


def _player_parts(shape: tuple[int, int], camera: object, truth: object, sides: list[int], t: float,
                  radius_mm: float) -> np.ndarray:  # fmt: skip
    """(h, w) int8: which part of the player covers each pixel (-1 none; 0..3 in ``_PART_BGR``'s order)."""
    from models.synth.occluders import draw_player

    h, w = shape
    canvas = np.zeros((h, w, 3), np.uint8)
    for k, shot in enumerate(truth.shots):  # type: ignore[attr-defined]
        s = shot.sim.stroke
        if s.ball in shot.sim.start:
            draw_player(canvas, camera, shot.sim.start[s.ball], s.direction_deg, radius_mm, t - shot.t0, sides[k])  # type: ignore[arg-type]
    lit = canvas.max(axis=2) > 0
    parts = np.full((h, w), -1, np.int8)
    if lit.any():
        ref = np.array(list(_PART_BGR.values()), np.float32)
        ref /= np.linalg.norm(ref, axis=1, keepdims=True)
        v = canvas[lit].astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True) + 1e-6
        parts[lit] = np.argmax(v @ ref.T, axis=1)
    return parts


def _paint_player(img: np.ndarray, parts: np.ndarray, r0: float, rng: np.random.Generator) -> list[np.ndarray]:
    """Paints the player's parts in random colours (and a watch on some wrists); returns the centres of hands,
    gloves, watches, cue tips and points of sleeve and shaft, where the negatives are cut."""
    skin = (
        _SKIN_TONES[int(rng.integers(len(_SKIN_TONES)))]
        if rng.random() < 0.55
        else _GLOVES[int(rng.integers(len(_GLOVES)))]
    )
    sleeve = tuple(int(v) for v in rng.integers(15, 235, 3))
    colours = [_PART_BGR["shaft"], _PART_BGR["butt"], skin, sleeve]
    colours[0] = tuple(int(np.clip(v * rng.uniform(0.7, 1.15), 0, 255)) for v in colours[0])
    centres: list[np.ndarray] = []
    for k, col in enumerate(colours):
        m = parts == k
        if not m.any():
            continue
        shade = rng.uniform(0.85, 1.1)
        img[m] = np.clip(np.array(col, np.float32) * shade + rng.normal(0, 4, (int(m.sum()), 3)), 0, 255).astype(
            np.uint8
        )
    skin_mask = (parts == 2).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(skin_mask)
    ys, xs = np.nonzero(parts == 3)
    sleeve_pts = np.column_stack([xs, ys]).astype(float)
    for j in range(1, n):
        if stats[j, cv2.CC_STAT_AREA] < 0.5 * r0 * r0:
            continue
        c = cents[j]
        centres.append(c + rng.normal(0, 0.25 * r0, 2))
        centres.append(c)
        if len(sleeve_pts) and rng.random() < 0.5:  # a wristwatch where the hand meets the sleeve
            wrist = sleeve_pts[np.argmin(np.linalg.norm(sleeve_pts - c, axis=1))]
            rw = r0 * rng.uniform(0.45, 0.85)
            strap = tuple(int(v) for v in rng.integers(10, 200, 3))
            face = tuple(int(v) for v in rng.choice([[235, 235, 235], [30, 30, 30], [190, 200, 205], [120, 170, 200]]))
            cv2.circle(img, tuple(int(v) for v in wrist), round(rw * 1.15), strap, -1, cv2.LINE_AA)
            cv2.circle(img, tuple(int(v) for v in wrist), round(rw), face, -1, cv2.LINE_AA)
            cv2.circle(img, tuple(int(v) for v in wrist), round(rw), (200, 200, 200), max(1, int(rw / 6)), cv2.LINE_AA)
            centres.append(wrist)
    for k in (0, 1, 3):  # points along the shaft, butt and sleeves
        ys, xs = np.nonzero(parts == k)
        if len(xs):
            pick = rng.integers(0, len(xs), 2 if k != 3 else 3)
            centres.extend(np.column_stack([xs[pick], ys[pick]]).astype(float))
    ys, xs = np.nonzero(parts == 0)
    if len(xs):  # the cue's tip: the shaft pixel farthest from the butt
        bys, bxs = np.nonzero(parts == 1)
        if len(bxs):
            far = np.argmax(np.hypot(xs - bxs.mean(), ys - bys.mean()))
            centres.append(np.array([xs[far], ys[far]], float))
    return centres


def _extra_cue(img: np.ndarray, c: np.ndarray, r: float, rng: np.random.Generator) -> None:
    """A cue shaft across the ball (above it: the tip 1.05 radii over the cloth), or its tip touching the
    ball's side, or a finger over its edge."""
    a = rng.uniform(0, 2 * np.pi)
    u = np.array([np.cos(a), np.sin(a)])
    n = np.array([-u[1], u[0]])
    what = rng.random()
    if what < 0.45:
        off = c + n * rng.uniform(-0.8, 0.8) * r
        wid = r * rng.uniform(0.3, 0.75)
        p0, p1 = off - u * 6 * r, off + u * 6 * r
        col = tuple(int(v) for v in np.array(_PART_BGR["shaft"]) * rng.uniform(0.6, 1.15))
        cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), col, max(1, round(wid)), cv2.LINE_AA)
    elif what < 0.8:
        tip = c - u * r * rng.uniform(1.0, 1.5)
        wid = r * rng.uniform(0.3, 0.55)
        col = tuple(int(v) for v in np.array(_PART_BGR["shaft"]) * rng.uniform(0.6, 1.15))
        cv2.line(
            img,
            tuple(int(v) for v in tip),
            tuple(int(v) for v in tip - u * 8 * r),
            col,
            max(1, round(wid)),
            cv2.LINE_AA,
        )
        chalk = tuple(int(v) for v in rng.choice([[170, 110, 60], [60, 60, 60], [200, 200, 200]]))
        cv2.circle(img, tuple(int(v) for v in tip), max(1, round(wid / 2)), chalk, -1, cv2.LINE_AA)
    else:
        f = c + u * r * rng.uniform(1.0, 1.5)
        skin = _SKIN_TONES[int(rng.integers(len(_SKIN_TONES)))]
        ax = (max(1, int(r * rng.uniform(0.8, 1.4))), max(1, int(r * rng.uniform(0.3, 0.45))))
        cv2.ellipse(img, tuple(int(v) for v in f), ax, float(np.degrees(a)), 0, 360, skin, -1, cv2.LINE_AA)


def render_frames(n_scenes: int, per_scene: int, rng: np.random.Generator) -> Iterator[SynthFrame]:
    """Frames of ``n_scenes`` training scenes, each at ``per_scene`` moments while the player is over the table
    (and its first frame)."""
    from calibration.mapping import Calibration
    from calibration.table import TableModel
    from models.detector.scenes import training_cases
    from models.synth import library
    from models.synth.occluders import ENTER_S, LEAVE_S
    from models.synth.physics import PhysicsTable
    from models.synth.truth import PhysicsGlitch, run_scenario
    from models.synth.video import CameraSpec, RenderSettings, SceneRenderer

    table = TableModel()
    ptable = PhysicsTable(table)
    R = table.ball_radius_mm
    for case in training_cases(n_scenes, seed=29):
        try:
            truth = run_scenario(library.build(case.scenario, case.seed, table, ptable), table, ptable)
        except (library.ScenarioError, PhysicsGlitch):
            continue
        spec = CameraSpec(case.tilt_deg, case.azimuth_deg, case.distance_mm, case.k1, case.k2)
        settings = RenderSettings(resolution=case.resolution, fps=case.fps, camera=spec, exposure=case.exposure,
                                  noise_sigma=case.noise_sigma, lighting=case.lighting, occluders=False,
                                  seed=case.render_seed)  # fmt: skip
        renderer = SceneRenderer(truth, settings)
        cal = Calibration.from_json(renderer.camera_json())
        cam = renderer.camera
        sides = [int(rng.choice([-1, 1])) for _ in truth.shots]
        w, h = case.resolution
        times = [0.0]
        for _ in range(per_scene):
            if not truth.shots:
                break
            shot = truth.shots[int(rng.integers(len(truth.shots)))]
            times.append(shot.t0 + float(rng.uniform(ENTER_S + 0.3, LEAVE_S - 0.1)))
        for t in times:
            i = int(np.clip(round(t * case.fps), 0, renderer.n_frames - 1))
            t = i / case.fps
            img = renderer.frame(i)
            pos_d = truth.positions_at(t)
            pos = np.array(list(pos_d.values()), dtype=np.float64).reshape(-1, 2)
            if not len(pos):
                continue
            px = cam.project(pos, R)
            radius = np.linalg.norm(cam.project(pos + np.array([R, 0.0]), R) - px, axis=1)
            inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
            px, radius = px[inside], radius[inside]
            r0 = float(np.median(radius)) if len(radius) else 12.0
            dark = rng.random(len(px)) < 0.5
            for j in np.flatnonzero(dark):
                tint = (
                    _BALL_TINTS[int(rng.integers(_DARK_TINTS))]
                    if rng.random() < 0.8
                    else _BALL_TINTS[int(rng.integers(len(_BALL_TINTS)))]
                )
                _tint_ball(img, px[j], radius[j], tint)
            parts = _player_parts((h, w), cam, truth, sides, t, R)
            body = (parts >= 0).astype(np.float32)
            if body.any():  # the player's shadow on the cloth: a blurred outline shifted away from the light
                shift = rng.normal(0, 1.2 * r0, 2)
                m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
                sh = cv2.warpAffine(body, m, (w, h))
                sh = cv2.GaussianBlur(sh, (0, 0), max(r0 * rng.uniform(0.4, 1.2), 1.0))
                depth = rng.uniform(0.3, 0.55)
                img[:] = np.clip(img * (1.0 - depth * sh)[..., None], 0, 255).astype(np.uint8)
            for j in np.flatnonzero(rng.random(len(px)) < 0.2):
                _extra_cue(img, px[j], radius[j], rng)
            player = _paint_player(img, parts, r0, rng)
            covered = np.array([_covered(parts, c, r) for c, r in zip(px, radius, strict=True)])
            if rng.random() < 0.4:  # dim light
                img[:] = np.clip(img * rng.uniform(0.35, 0.75), 0, 255).astype(np.uint8)
            img[:] = np.clip(img + rng.normal(0, case.noise_sigma, img.shape), 0, 255).astype(np.uint8)
            pl = np.array(player, float).reshape(-1, 2)
            if len(pl) and len(px):  # a crop centred within a radius of a ball's centre shows that ball
                pl = pl[np.linalg.norm(pl[:, None] - px[None], axis=2).min(axis=1) > radius.max()]
            yield SynthFrame(f"{case.scenario}-s{case.seed}-f{i}", img, cal, px, radius, covered, dark, pl,
                             np.full(len(pl), r0))  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    from vision.classical import ClassicalDetector

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=12)
    ap.add_argument("--moments", type=int, default=5, help="moments per scene while the player is over the table")
    ap.add_argument("--out", default="/tmp/bc")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2929)
    crops, ys, kinds, ws = [], [], [], []

    def add(c: np.ndarray, y: np.ndarray, k: np.ndarray, w: float | np.ndarray) -> None:
        crops.append(c)
        ys.append(y.astype(np.int64))
        kinds.append(k.astype(np.int64))
        ws.append(np.broadcast_to(np.asarray(w, float), (len(y),)).copy())

    for f in render_frames(args.scenes, args.moments, rng):
        vis = f.covered < 0.5
        det = ClassicalDetector(f.calibration).detect(f.image)  # type: ignore[arg-type]
        kind = classify_proposals(det.px, f.px[vis], f.radius_px[vis])
        # A proposal near a ball the player hides more than half is neither: left out.
        if (~vis).any() and len(det.px):
            near_hidden = (np.linalg.norm(det.px[:, None] - f.px[~vis][None], axis=2) <= f.radius_px[~vis][None]).any(
                axis=1
            )
            kind[near_hidden & (kind == OFF_BALL)] = -1
        keep = (kind == ON_BALL) | (kind == OFF_BALL)
        # The proposals off every ball are what the network must turn down (hands, gloves, cue tips): weighted most.
        add(cut_crops(f.image, det.px[keep], det.radius_px[keep]), kind[keep] == ON_BALL, kind[keep],
            np.where(kind[keep] == ON_BALL, 0.5, 3.0))  # fmt: skip
        c, y, k = extra_crops(f.image, f.calibration, f.px[vis], f.radius_px[vis], rng)  # type: ignore[arg-type]
        hard = np.tile((f.covered[vis] > 0.02) | f.dark[vis], 3)  # extra_crops: the balls, then two jittered copies
        lab = k != RANDOM
        k = k.copy()
        k[np.flatnonzero(lab)[hard]] = COVERED
        # Renders hold many balls and much plain cloth: fewer of the easy crops, so that the rendered crops weigh
        # less in all than the real ones.
        sub = (k == COVERED) | (rng.random(len(k)) < np.where(k == RANDOM, 0.3, 0.4))
        add(c[sub], y[sub], k[sub], np.where(k[sub] == COVERED, 0.6, 0.5))
        if len(f.player_px):
            r = f.player_r * rng.uniform(0.7, 1.4, len(f.player_r))
            add(cut_crops(f.image, f.player_px, r), np.zeros(len(r)), np.full(len(r), PLAYER), 0.8)
        print(f"{f.name}: {len(det.px)} proposals, {int((kind == OFF_BALL).sum())} off balls, "
              f"{int((f.covered > 0.02).sum())} balls partly covered, {len(f.player_px)} player crops",
              file=sys.stderr, flush=True)  # fmt: skip
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "synth.npz", crops=np.concatenate(crops), y=np.concatenate(ys),
                        kind=np.concatenate(kinds), w=np.concatenate(ws))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
