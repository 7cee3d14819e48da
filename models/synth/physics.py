"""pooltool configured as our Russian pyramid table, and the map between its frame and ours.

pooltool's frame: metres, ``x`` across the table (0..w), ``y`` along it (0..l), pocket ids
``lb lc lt rb rc rt`` (left/right, bottom/centre/top), straight cushions ``"1".."18"`` and jaw arcs
``"1t".."17t"``. Ours (CONTRACT.md section 1): millimetres, ``x`` along toward the pyramid cushion, ``y``
across toward the right-hand long cushion. A person at pooltool's ``y = 0`` end facing ``+y`` has ``+x``
on the right, so ours is pooltool's with the axes swapped: ``(x, y)_ours = 1000 * (y, x)_pooltool``, the
house end is pooltool's bottom (``y = 0``) and our left long cushion (``y = 0``) is pooltool's ``x = 0``.

The table comes from ``TableModel``: field size, ball size, corner and middle mouth widths (jaw tip to jaw
tip), straight jaws parallel to the pocket axis (pooltool's pocket angles 0), jaws ``jaw_depth_mm`` deep, jaw
tips rounded by the table's ``jaw_tip_radius_mm``.
A ball is *pocketed* when its centre reaches the pocket circle, whose near edge is ``pot_depth_mm`` past the
mouth line on the pocket axis: a narrow Russian mouth leaves the centre of a ball between the jaws only a
few millimetres of play, so the circle acts as the fall line behind the mouth.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from calibration.contract import jaw_cushion
from calibration.table import TableModel

# pooltool's pocket and segment ids -> CONTRACT names.
POCKET_NAMES: dict[str, str] = {
    "lb": "house-left",
    "lc": "middle-left",
    "lt": "pyramid-left",
    "rb": "house-right",
    "rc": "middle-right",
    "rt": "pyramid-right",
}
CUSHION_NAMES: dict[str, str] = {
    "3": "left-house",
    "6": "left-pyramid",
    "15": "right-house",
    "12": "right-pyramid",
    "18": "house",
    "9": "pyramid",
}
# Jaw segments (straight "N" and arc "Nt") -> the pocket they belong to.
JAW_POCKETS: dict[str, str] = {
    "1": "house-left",
    "2": "house-left",
    "4": "middle-left",
    "5": "middle-left",
    "7": "pyramid-left",
    "8": "pyramid-left",
    "10": "pyramid-right",
    "11": "pyramid-right",
    "13": "middle-right",
    "14": "middle-right",
    "16": "house-right",
    "17": "house-right",
}

RUSSIAN_BALL_MASS_KG = 0.285  # a 68 mm Russian pyramid ball; other sizes scale with volume


def cushion_name(segment_id: str) -> str:
    """Our cushion name for a pooltool segment id: a cushion segment or ``jaw:<pocket>``."""
    if segment_id in CUSHION_NAMES:
        return CUSHION_NAMES[segment_id]
    base = segment_id.removesuffix("t")
    if base in JAW_POCKETS:
        return jaw_cushion(JAW_POCKETS[base])
    raise KeyError(f"unknown pooltool cushion segment {segment_id!r}")


def to_ours(xy_m: np.ndarray) -> np.ndarray:
    """pooltool (x, y) metres -> our (x, y) millimetres; works on (..., 2) arrays."""
    a = np.asarray(xy_m, dtype=np.float64)
    return a[..., ::-1] * 1000.0


def to_pooltool(xy_mm: np.ndarray | tuple[float, float]) -> np.ndarray:
    """Our (x, y) millimetres -> pooltool (x, y) metres."""
    a = np.asarray(xy_mm, dtype=np.float64)
    return a[..., ::-1] / 1000.0


def direction_to_phi(dx: float, dy: float) -> float:
    """pooltool's cue angle ``phi`` (degrees, 0 = +x of pooltool) for a direction in our frame."""
    return math.degrees(math.atan2(dx, dy)) % 360.0


def ensure_numba_cache() -> None:
    """Point numba's cache at a writable folder when site-packages is read-only (before pooltool loads)."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    import importlib.util

    spec = importlib.util.find_spec("pooltool")
    where = os.path.dirname(spec.origin) if spec and spec.origin else None
    if where is None or not os.access(where, os.W_OK):
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(os.path.expanduser("~"), ".cache", "tableref-numba")


@dataclass(frozen=True)
class PhysicsSettings:
    """The physics choices that the table model does not hold."""

    pot_depth_fraction: float = 0.5  # pocket circle's near edge, in ball radii past the mouth line
    corner_pocket_radius_mm: float = 40.0
    middle_pocket_radius_mm: float = 45.0
    cushion_height_fraction: float = 0.64  # cushion nose height above the cloth, in ball diameters
    ball_mass_kg: float | None = None  # None: 285 g scaled by the ball's volume


@dataclass(frozen=True)
class PhysicsTable:
    """A ``TableModel`` as a pooltool table, with the ball parameters that go with it."""

    table: TableModel = field(default_factory=TableModel)
    settings: PhysicsSettings = field(default_factory=PhysicsSettings)

    @property
    def radius_m(self) -> float:
        return self.table.ball_radius_mm / 1000.0

    @property
    def pot_depth_mm(self) -> float:
        return self.settings.pot_depth_fraction * self.table.ball_radius_mm

    @property
    def ball_mass_kg(self) -> float:
        if self.settings.ball_mass_kg is not None:
            return self.settings.ball_mass_kg
        return RUSSIAN_BALL_MASS_KG * (self.table.ball_diameter_mm / 68.0) ** 3

    @cached_property
    def pt_table(self):  # -> pooltool.objects.Table
        ensure_numba_cache()
        from pooltool.objects import Table
        from pooltool.objects.table.specs import PocketTableSpecs

        spec, st = self.table.spec, self.settings
        D = spec.ball_diameter_mm
        half_corner = spec.corner_mouth_mm / 2.0  # mouth line's distance from the field corner
        rc, rm = st.corner_pocket_radius_mm, st.middle_pocket_radius_mm
        specs = PocketTableSpecs(
            l=spec.length_mm / 1000.0,
            w=spec.width_mm / 1000.0,
            cushion_width=spec.jaw_depth_mm / 1000.0,
            cushion_height=st.cushion_height_fraction * D / 1000.0,
            corner_pocket_width=spec.corner_mouth_mm / 1000.0,
            corner_pocket_angle=0.0,
            corner_pocket_depth=(self.pot_depth_mm + rc - half_corner) / 1000.0,
            corner_pocket_radius=rc / 1000.0,
            corner_jaw_radius=self.table.jaw_tip_radius_mm / 1000.0,
            side_pocket_width=spec.middle_mouth_mm / 1000.0,
            side_pocket_angle=0.0,
            side_pocket_depth=(self.pot_depth_mm + rm) / 1000.0,
            side_pocket_radius=rm / 1000.0,
            side_jaw_radius=self.table.jaw_tip_radius_mm / 1000.0,
        )
        return Table.from_table_specs(specs)

    def make_ball(self, ball_id: str, xy_mm: tuple[float, float]):  # -> pooltool.objects.Ball
        ensure_numba_cache()
        from pooltool.objects import Ball

        return Ball.create(ball_id, xy=tuple(to_pooltool(xy_mm)), R=self.radius_m, m=self.ball_mass_kg)

    # ---- geometry of the physics cushions, in our frame (mm) --------------------------------------
    @cached_property
    def segments_mm(self) -> dict[str, tuple[str, np.ndarray, float]]:
        """Every pooltool cushion segment in our frame: id -> ("line", [[x1, y1], [x2, y2]], 0) or
        ("arc", [[cx, cy]], radius_mm). A ball touching a segment has its centre one radius from it."""
        out: dict[str, tuple[str, np.ndarray, float]] = {}
        segs = self.pt_table.cushion_segments
        for sid, s in segs.linear.items():
            out[sid] = ("line", to_ours(np.array([s.p1[:2], s.p2[:2]])), 0.0)
        for sid, c in segs.circular.items():
            out[sid] = ("arc", to_ours(np.array([c.center[:2]])), float(c.radius) * 1000.0)
        return out

    def distance_to_segment(self, segment_id: str, p: np.ndarray) -> float:
        """Distance (mm) from a point to the cushion surface of a segment (nose line or jaw arc)."""
        return float(self.segment_distances(segment_id, np.asarray(p, dtype=np.float64)[None])[0])

    def segment_distances(self, segment_id: str, ps: np.ndarray) -> np.ndarray:
        """``distance_to_segment`` for each of the points ``ps`` (n, 2)."""
        kind, pts, radius = self.segments_mm[segment_id]
        if kind == "arc":
            return np.linalg.norm(ps - pts[0], axis=1) - radius
        a, b = pts
        u = np.clip((ps - a) @ (b - a) / float(np.dot(b - a, b - a)), 0.0, 1.0)
        return np.linalg.norm(ps - (a + u[:, None] * (b - a)), axis=1)

    def distance_to_cushion(self, name: str, p: np.ndarray) -> float:
        """Distance (mm) from a point to the nearest physics segment carrying our cushion ``name``."""
        return float(self.distances_to_cushion(name, np.asarray(p, dtype=np.float64)[None])[0])

    def distances_to_cushion(self, name: str, ps: np.ndarray) -> np.ndarray:
        """``distance_to_cushion`` for each of the points ``ps`` (n, 2)."""
        ids = [sid for sid in self.segments_mm if cushion_name(sid) == name]
        return np.min([self.segment_distances(sid, ps) for sid in ids], axis=0)

    @cached_property
    def pockets_mm(self) -> dict[str, tuple[np.ndarray, float]]:
        """Each pocket's circle in our frame: name -> (centre mm, radius mm)."""
        return {
            POCKET_NAMES[pid]: (to_ours(np.array([p.a, p.b])), float(p.radius) * 1000.0)
            for pid, p in self.pt_table.pockets.items()
        }
