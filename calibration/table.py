"""The table model: every feature the rules name, in millimetres, derived from a few settings.

Frame (CONTRACT.md section 1): origin at the playing-field corner at the house end, on the left of a
person standing at the house end facing the pyramid end; ``x`` runs along the table toward the pyramid
cushion (0..L), ``y`` across it toward the right-hand long cushion (0..W). The playing field is the
cushion-nose rectangle. A ball's position is its centre.

Pocket model. Each pocket's mouth is the segment between its two jaw tips, which lie on the cushion-nose
lines. A corner pocket cuts the corner at 45 degrees: its tips are ``c = corner_mouth / sqrt(2)`` from the
corner along each nose line, so the tip-to-tip width is ``corner_mouth``. A middle pocket's tips are
``middle_mouth / 2`` either side of ``x = L/2``. Each jaw is modelled as a straight face of
``jaw_depth_mm`` from its tip, parallel to the pocket's axis, into the pocket, its corner with the cushion
nose rounded (``jaw_tip_radius_mm``, a tenth of a ball diameter unless set). The drop point (where a ball
sits once it is in the pocket) is one ball radius beyond the mouth centre along the axis.

Default mouth widths: Russian pyramid pockets are "narrow": the federation's table specification puts the
corner pocket mouth at 1.05-1.1 ball diameters and the middle at 1.2-1.25 (a 68 mm ball passes a corner
mouth with 4-5 mm to spare). The defaults, 73 mm and 83 mm, sit in those ranges, and 73 mm is also the
corner mouth the synthetic physics was checked with. Both are settings, as is every tolerance here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from calibration.contract import CUSHIONS, POCKETS

# Rule tolerances of 001 (nominal field 3569 x 1778 +- 13 mm, 000 1.1) and the ball sizes 000 1.1 allows.
REGULATION_LENGTH_MM = 3569.0
REGULATION_WIDTH_MM = 1778.0
REGULATION_TOLERANCE_MM = 13.0


class TableSpecError(ValueError):
    """A table setting that cannot describe a billiard table."""


Point = tuple[float, float]


@dataclass(frozen=True)
class TableSpec:
    """The settings a table model is derived from. Everything else is computed."""

    length_mm: float = REGULATION_LENGTH_MM
    width_mm: float = REGULATION_WIDTH_MM
    ball_diameter_mm: float = 68.0
    corner_mouth_mm: float = 73.0
    middle_mouth_mm: float = 83.0
    jaw_depth_mm: float = 50.0
    jaw_tip_radius_mm: float | None = None  # rounding where a jaw meets the cushion nose; None: D / 10
    # 001 2.1.10: the midpoint of a corner jaw's curve, as a distance from the jaw tip toward the pocket
    # measured along the cushion line. A ball frozen to the cushion with its centre at or beyond it is "in".
    jaw_arc_midpoint_mm: float = 20.0
    line_tolerance_mm: float = 1.5  # digest 1: a centre within this of a line is on it
    frozen_tolerance_mm: float = 1.0  # digest 1: gap up to this counts as frozen
    result_sector_half_angle_deg: float = 45.0  # digest 1: the 001 2.1.12 result sector's half-angle
    # 000 2.1 attack-zone marks measured on a real table: (pocket, cushion) -> distance of the mark from the
    # pocket-side end of that cushion segment (the jaw tip), along the cushion, in mm.
    attack_mark_overrides: tuple[tuple[str, str, float], ...] = ()

    def __post_init__(self) -> None:
        L, W, D = self.length_mm, self.width_mm, self.ball_diameter_mm
        if not (1000.0 <= L <= REGULATION_LENGTH_MM + REGULATION_TOLERANCE_MM):
            raise TableSpecError(f"table length {L} mm is outside 1000..{REGULATION_LENGTH_MM + 13} mm")
        if not (1.7 <= L / W <= 2.3):
            raise TableSpecError(f"table {L} x {W} mm is not about twice as long as wide")
        if not (40.0 <= D <= 70.0):
            raise TableSpecError(f"ball diameter {D} mm is outside 40..70 mm")
        if not (D < self.corner_mouth_mm < 3 * D and D < self.middle_mouth_mm < 3 * D):
            raise TableSpecError("pocket mouths must be wider than a ball and under three balls wide")
        for pocket, cushion, dist in self.attack_mark_overrides:
            if pocket not in POCKETS or cushion not in CUSHIONS or not (0 < dist < W / 2):
                raise TableSpecError(f"bad attack-mark override {(pocket, cushion, dist)}")

    @property
    def is_regulation(self) -> bool:
        """A full-size Russian table (000 1.1): 3569 x 1778 +- 13 mm, balls of 60-68 mm."""
        return (
            abs(self.length_mm - REGULATION_LENGTH_MM) <= REGULATION_TOLERANCE_MM
            and abs(self.width_mm - REGULATION_WIDTH_MM) <= REGULATION_TOLERANCE_MM
            and 60.0 <= self.ball_diameter_mm <= 68.0
        )


@dataclass(frozen=True)
class Cushion:
    """A straight cushion segment between two pockets' jaw tips, on the nose line."""

    name: str
    start: Point  # the end nearer the origin along its axis
    end: Point
    inward: Point  # unit normal pointing into the playing field
    pockets: tuple[str, str]  # the pocket at ``start`` and the one at ``end``

    @property
    def length_mm(self) -> float:
        return math.dist(self.start, self.end)

    @property
    def direction(self) -> Point:
        n = self.length_mm
        return ((self.end[0] - self.start[0]) / n, (self.end[1] - self.start[1]) / n)

    def along(self, p: Point) -> float:
        """Signed distance of ``p``'s projection from ``start``, along the segment."""
        d = self.direction
        return (p[0] - self.start[0]) * d[0] + (p[1] - self.start[1]) * d[1]

    def offset(self, p: Point) -> float:
        """Signed distance from the nose line, positive inside the playing field."""
        return (p[0] - self.start[0]) * self.inward[0] + (p[1] - self.start[1]) * self.inward[1]

    def distance(self, p: Point) -> float:
        """Euclidean distance from ``p`` to the segment."""
        t = min(max(self.along(p), 0.0), self.length_mm)
        d = self.direction
        return math.dist(p, (self.start[0] + t * d[0], self.start[1] + t * d[1]))

    def point_at(self, along_mm: float, offset_mm: float = 0.0) -> Point:
        d, n = self.direction, self.inward
        return (
            self.start[0] + along_mm * d[0] + offset_mm * n[0],
            self.start[1] + along_mm * d[1] + offset_mm * n[1],
        )


@dataclass(frozen=True)
class Jaw:
    """One jaw of a pocket: a straight face from its tip into the pocket, parallel to the pocket's axis.

    ``tip`` is where the face meets the cushion's nose line if both ran on to a sharp corner (the mouth is
    measured between the tips). A real jaw, and the physics' jaw, rounds that corner with an arc of
    ``tip_radius`` tangent to both lines, centred ``tip_centre`` inside the rail: a ball running past the
    corner at a slant clears it by up to ``tip_radius * (1 / sin(wedge / 2) - 1)`` more than the sharp
    corner allows (2.8 mm at a middle pocket's right-angled tip for a 6.8 mm rounding, 0.6 mm at a corner
    pocket's 135-degree one). ``distance`` is to the rounded surface.
    """

    pocket: str
    cushion: str  # the cushion segment this jaw continues
    tip: Point
    inner: Point
    tip_radius: float = 0.0
    tip_centre: Point | None = None  # None: a sharp tip
    nose_normal: Point = (0.0, 0.0)  # the cushion's inward normal, where the arc meets the nose line

    @cached_property
    def face_start(self) -> Point:
        """Where the straight face begins: the arc's end on the face line (the tip when sharp)."""
        if self.tip_centre is None:
            return self.tip
        (ax, ay), (bx, by), (cx, cy) = self.tip, self.inner, self.tip_centre
        vx, vy = bx - ax, by - ay
        u = ((cx - ax) * vx + (cy - ay) * vy) / (vx * vx + vy * vy)
        return (ax + u * vx, ay + u * vy)

    @property
    def nose_end(self) -> Point:
        """Where the rounded tip meets the cushion's nose line: the flat nose ends here (the tip when sharp)."""
        if self.tip_centre is None:
            return self.tip
        return (
            self.tip_centre[0] + self.tip_radius * self.nose_normal[0],
            self.tip_centre[1] + self.tip_radius * self.nose_normal[1],
        )

    def closest_point(self, p: Point) -> Point:
        """The point of the jaw's surface (straight face or rounded tip) nearest to ``p``."""
        (ax, ay), (bx, by) = self.face_start, self.inner
        vx, vy = bx - ax, by - ay
        t = min(max(((p[0] - ax) * vx + (p[1] - ay) * vy) / (vx * vx + vy * vy), 0.0), 1.0)
        best = (ax + t * vx, ay + t * vy)
        if self.tip_centre is None:
            return best
        cx, cy = self.tip_centre
        r = self.tip_radius
        # the arc runs from the face's start to the nose line's tangent point (centre + r * nose normal)
        a = ((ax - cx) / r, (ay - cy) / r)
        b = self.nose_normal
        wx, wy = p[0] - cx, p[1] - cy
        n = math.hypot(wx, wy)
        ab = a[0] * b[1] - a[1] * b[0]
        if n > 0 and (a[0] * wy - a[1] * wx) * ab >= 0 and (wx * b[1] - wy * b[0]) * ab >= 0:
            on_arc = (cx + r * wx / n, cy + r * wy / n)
        else:
            on_arc = self.nose_end
        return on_arc if math.dist(p, on_arc) < math.dist(p, best) else best

    def distance(self, p: Point) -> float:
        return math.dist(p, self.closest_point(p))


@dataclass(frozen=True)
class Pocket:
    name: str
    kind: Literal["corner", "middle"]
    jaws: tuple[Jaw, Jaw]
    mouth_center: Point
    outward: Point  # unit vector along the pocket axis, out of the playing field
    mouth_width_mm: float
    drop_point: Point

    def depth(self, p: Point) -> float:
        """Signed distance of ``p`` past the mouth line, positive into the pocket."""
        return (p[0] - self.mouth_center[0]) * self.outward[0] + (p[1] - self.mouth_center[1]) * self.outward[1]

    def lateral(self, p: Point) -> float:
        """Signed distance of ``p`` from the pocket axis."""
        ox, oy = self.outward
        return (p[0] - self.mouth_center[0]) * -oy + (p[1] - self.mouth_center[1]) * ox

    def point(self, depth: float, lateral: float) -> Point:
        """The point ``depth`` past the mouth line and ``lateral`` off the axis (``depth`` and ``lateral``
        inverted)."""
        (ox, oy), (cx, cy) = self.outward, self.mouth_center
        return (cx + depth * ox - lateral * oy, cy + depth * oy + lateral * ox)


@dataclass(frozen=True)
class Line:
    name: str
    axis: Literal["x", "y"]  # the coordinate that is constant along the line
    value_mm: float


@dataclass(frozen=True)
class AttackMark:
    """000 2.1: the mark on ``cushion`` bounding ``pocket``'s attack zone."""

    pocket: str
    cushion: str
    point: Point  # on the cushion nose line
    along_from_tip_mm: float  # distance from the cushion's pocket-side end (the jaw tip)
    measured: bool  # True when it comes from a measured override, not from geometry


@dataclass(frozen=True)
class TableModel:
    """A frozen Russian pyramid table. Build it with ``TableModel()`` or ``TableModel(TableSpec(...))``."""

    spec: TableSpec = field(default_factory=TableSpec)

    # ---- the basic sizes -------------------------------------------------------------------------
    @property
    def length_mm(self) -> float:
        return self.spec.length_mm

    @property
    def width_mm(self) -> float:
        return self.spec.width_mm

    @property
    def ball_diameter_mm(self) -> float:
        return self.spec.ball_diameter_mm

    @property
    def ball_radius_mm(self) -> float:
        return self.spec.ball_diameter_mm / 2.0

    # ---- lines and spots ---------------------------------------------------------------------------
    @cached_property
    def lines(self) -> dict[str, Line]:
        L, W = self.length_mm, self.width_mm
        return {
            "house": Line("house", "x", L / 4),
            "center": Line("center", "x", L / 2),
            "long": Line("long", "y", W / 2),
            # 001 2.1.5b: the back line bounding the temporary house (not a CONTRACT line_cross line).
            "back": Line("back", "x", 3 * L / 4),
        }

    @cached_property
    def spots(self) -> dict[str, Point]:
        L, W = self.length_mm, self.width_mm
        return {"pyramid": (3 * L / 4, W / 2), "center": (L / 2, W / 2), "front": (L / 4, W / 2)}

    @property
    def front_cushion_middle(self) -> Point:
        """001 2.1.13: where a cue ball that left the table is put before being taken in hand."""
        return (self.ball_radius_mm, self.width_mm / 2)

    @property
    def back_cushion_middle(self) -> Point:
        """001 2.4.6 / 2.7.7: a ball frozen to the middle of the back (pyramid) cushion."""
        return (self.length_mm - self.ball_radius_mm, self.width_mm / 2)

    # ---- pockets and cushions ----------------------------------------------------------------------
    @cached_property
    def _corner_cut_mm(self) -> float:
        return self.spec.corner_mouth_mm / math.sqrt(2.0)

    @property
    def jaw_tip_radius_mm(self) -> float:
        r = self.spec.jaw_tip_radius_mm
        return self.ball_diameter_mm / 10.0 if r is None else r

    def _jaw(self, pocket: str, cushion: str, tip: Point, outward: Point, mouth: Point) -> Jaw:
        """A jaw face from ``tip`` along ``outward``, its corner with ``cushion``'s nose line rounded."""
        inner = (tip[0] + outward[0] * self.spec.jaw_depth_mm, tip[1] + outward[1] * self.spec.jaw_depth_mm)
        r = self.jaw_tip_radius_mm
        if r <= 0:
            return Jaw(pocket, cushion, tip, inner)
        n = self.cushions[cushion].inward
        to_mouth = np.subtract(mouth, tip)
        face_n = np.array((-outward[1], outward[0]))  # the face's normal into the rail, away from the mouth
        face_n *= -np.sign(face_n @ to_mouth)
        along = np.array((-n[1], n[0]))  # along the nose line, away from the pocket
        along *= -np.sign(along @ to_mouth)
        # the centre lies r behind the nose line and r behind the face
        s = r * (1.0 + float(face_n @ n)) / float(face_n @ along)
        centre = np.array(tip) - r * np.array(n) + s * along
        return Jaw(pocket, cushion, tip, inner, r, (float(centre[0]), float(centre[1])), n)

    @cached_property
    def pockets(self) -> dict[str, Pocket]:
        L, W, R = self.length_mm, self.width_mm, self.ball_radius_mm
        c, m = self._corner_cut_mm, self.spec.middle_mouth_mm / 2
        s = 1 / math.sqrt(2.0)
        out: dict[str, Pocket] = {}

        def corner(name: str, cx: float, cy: float, sx: float, sy: float, cush_x: str, cush_y: str) -> None:
            # (sx, sy): signs pointing from the corner into the field along x and y.
            tip_x = (cx + sx * c, cy)  # tip on the long cushion (y = cy)
            tip_y = (cx, cy + sy * c)  # tip on the short cushion (x = cx)
            outward = (-sx * s, -sy * s)
            mc = ((tip_x[0] + tip_y[0]) / 2, (tip_x[1] + tip_y[1]) / 2)
            jaws = (self._jaw(name, cush_x, tip_x, outward, mc), self._jaw(name, cush_y, tip_y, outward, mc))
            drop = (mc[0] + outward[0] * R, mc[1] + outward[1] * R)
            out[name] = Pocket(name, "corner", jaws, mc, outward, self.spec.corner_mouth_mm, drop)

        corner("house-left", 0.0, 0.0, 1, 1, "left-house", "house")
        corner("house-right", 0.0, W, 1, -1, "right-house", "house")
        corner("pyramid-left", L, 0.0, -1, 1, "left-pyramid", "pyramid")
        corner("pyramid-right", L, W, -1, -1, "right-pyramid", "pyramid")

        def middle(name: str, y: float, sy: float, side: str) -> None:
            outward = (0.0, -sy)
            mc = (L / 2, y)
            a, b = (L / 2 - m, y), (L / 2 + m, y)
            jaws = (
                self._jaw(name, f"{side}-house", a, outward, mc),
                self._jaw(name, f"{side}-pyramid", b, outward, mc),
            )
            out[name] = Pocket(name, "middle", jaws, mc, outward, self.spec.middle_mouth_mm, (L / 2, y - sy * R))

        middle("middle-left", 0.0, 1, "left")
        middle("middle-right", W, -1, "right")
        return {name: out[name] for name in POCKETS}

    @cached_property
    def cushion_flats(self) -> dict[str, tuple[float, float]]:
        """Each cushion's flat nose, as the range of ``along`` between its jaws' rounded tips: a ball touching
        the nose line beyond it touches a jaw."""
        out = {}
        for name, cu in self.cushions.items():
            ends = [cu.along(j.nose_end) for pk in cu.pockets for j in self.pockets[pk].jaws if j.cushion == name]
            out[name] = (min(ends), max(ends))
        return out

    @cached_property
    def cushions(self) -> dict[str, Cushion]:
        L, W = self.length_mm, self.width_mm
        c, m = self._corner_cut_mm, self.spec.middle_mouth_mm / 2
        return {
            "house": Cushion("house", (0.0, c), (0.0, W - c), (1.0, 0.0), ("house-left", "house-right")),
            "pyramid": Cushion("pyramid", (L, c), (L, W - c), (-1.0, 0.0), ("pyramid-left", "pyramid-right")),
            "left-house": Cushion("left-house", (c, 0.0), (L / 2 - m, 0.0), (0.0, 1.0), ("house-left", "middle-left")),
            "left-pyramid": Cushion(
                "left-pyramid", (L / 2 + m, 0.0), (L - c, 0.0), (0.0, 1.0), ("middle-left", "pyramid-left")
            ),
            "right-house": Cushion("right-house", (c, W), (L / 2 - m, W), (0.0, -1.0), ("house-right", "middle-right")),
            "right-pyramid": Cushion(
                "right-pyramid", (L / 2 + m, W), (L - c, W), (0.0, -1.0), ("middle-right", "pyramid-right")
            ),
        }

    @cached_property
    def corners(self) -> dict[str, Point]:
        """The playing-field corners, named like the corner pockets (CONTRACT.md section 6)."""
        L, W = self.length_mm, self.width_mm
        return {"house-left": (0.0, 0.0), "house-right": (0.0, W), "pyramid-left": (L, 0.0), "pyramid-right": (L, W)}

    def cushion_pocket_end(self, cushion: str, pocket: str) -> tuple[Point, Point]:
        """The jaw tip where ``cushion`` meets ``pocket`` and the unit direction along it away from the pocket."""
        cu = self.cushions[cushion]
        d = cu.direction
        if cu.pockets[0] == pocket:
            return cu.start, d
        if cu.pockets[1] == pocket:
            return cu.end, (-d[0], -d[1])
        raise KeyError(f"cushion {cushion} does not end at pocket {pocket}")

    # ---- Cluster marks and zones (000 2.1) ------------------------------------------------------------
    @cached_property
    def attack_marks(self) -> dict[tuple[str, str], AttackMark]:
        """000 2.1: one mark per (pocket, adjacent cushion).

        A ball is placed in the pocket at its drop point and a second ball touching it and the cushion;
        the mark is drawn at the second ball's edge away from the pocket (digest [rec]). Measured overrides
        from the spec replace the computed distance.
        """
        R, D = self.ball_radius_mm, self.ball_diameter_mm
        overrides = {(p, c): d for p, c, d in self.spec.attack_mark_overrides}
        marks: dict[tuple[str, str], AttackMark] = {}
        for cname, cu in self.cushions.items():
            for pname in cu.pockets:
                tip, away = self.cushion_pocket_end(cname, pname)
                drop = self.pockets[pname].drop_point
                # The second ball's centre is R off the nose line; find its along-distance s from the tip
                # with |centre - drop| = D, taking the root away from the pocket.
                n = cu.inward
                dx, dy = drop[0] - tip[0], drop[1] - tip[1]
                a_drop = dx * away[0] + dy * away[1]
                o_drop = dx * n[0] + dy * n[1]
                s = a_drop + math.sqrt(max(D * D - (R - o_drop) ** 2, 0.0))
                s = max(s, 0.0)  # the second ball rests on the cushion, never inside the mouth
                along = s + R
                measured = (pname, cname) in overrides
                if measured:
                    along = overrides[(pname, cname)]
                point = (tip[0] + away[0] * along, tip[1] + away[1] * along)
                marks[(pname, cname)] = AttackMark(pname, cname, point, along, measured)
        return marks

    @cached_property
    def passive_zones(self) -> dict[str, tuple[Point, Point, Point]]:
        """000 2.1: triangles (short-cushion centre, middle-pocket mouth centre, corner), keyed by the
        long-cushion half they lie along; each middle pocket owns the two on its side."""
        L, W = self.length_mm, self.width_mm
        return {
            "left-house": ((0.0, W / 2), (L / 2, 0.0), (0.0, 0.0)),
            "left-pyramid": ((L, W / 2), (L / 2, 0.0), (L, 0.0)),
            "right-house": ((0.0, W / 2), (L / 2, W), (0.0, W)),
            "right-pyramid": ((L, W / 2), (L / 2, W), (L, W)),
        }

    def passive_zone_at(self, p: Point) -> str | None:
        """Name of the passive zone containing ``p`` (border included), or None."""
        for name, tri in self.passive_zones.items():
            if _in_triangle(p, tri):
                return name
        return None

    def passive_zone_pocket(self, zone: str) -> str:
        return "middle-left" if zone.startswith("left") else "middle-right"

    def in_attack_zone_cushion(self, cushion: str, p: Point) -> str | None:
        """The pocket whose attack zone this point of ``cushion`` lies in (tip up to the mark), or None."""
        cu = self.cushions[cushion]
        for pname in cu.pockets:
            tip, away = self.cushion_pocket_end(cushion, pname)
            s = (p[0] - tip[0]) * away[0] + (p[1] - tip[1]) * away[1]
            if s <= self.attack_marks[(pname, cushion)].along_from_tip_mm:
                return pname
        return None

    # ---- 001 2.1.12 pocket zone -----------------------------------------------------------------------
    def cushion_pocket_zone(self, cushion: str, p: Point) -> str | None:
        """001 2.1.12: the pocket whose zone this cushion point lies in: within one ball diameter of the
        jaw tip along the cushion. None otherwise."""
        for pname in self.cushions[cushion].pockets:
            tip, away = self.cushion_pocket_end(cushion, pname)
            s = (p[0] - tip[0]) * away[0] + (p[1] - tip[1]) * away[1]
            if s <= self.ball_diameter_mm:
                return pname
        return None

    def in_result_sector(self, p: Point) -> str | None:
        """001 2.1.12: the pocket whose result sector holds the centre ``p``: at most two diameters from
        the mouth segment and inside a wedge of the configured half-angle in front of the mouth."""
        half = math.radians(self.spec.result_sector_half_angle_deg)
        for pk in self.pockets.values():
            depth = pk.depth(p)
            lat = pk.lateral(p)
            excess = max(abs(lat) - pk.mouth_width_mm / 2, 0.0)
            if math.hypot(min(depth, 0.0), excess) > 2 * self.ball_diameter_mm:
                continue
            if depth >= 0 or excess <= -depth * math.tan(half):
                return pk.name
        return None

    # ---- zones and lines --------------------------------------------------------------------------------
    def on_line(self, p: Point, line: str) -> bool:
        ln = self.lines[line]
        v = p[0] if ln.axis == "x" else p[1]
        return abs(v - ln.value_mm) <= self.spec.line_tolerance_mm

    def in_house(self, p: Point) -> bool:
        """001 2.1.6: strictly inside the house; a centre on the house line is outside."""
        return p[0] < self.lines["house"].value_mm - self.spec.line_tolerance_mm and self.on_table(p)

    def in_temporary_house(self, p: Point) -> bool:
        """001 2.1.5b: between the back line and the back cushion, the line itself excluded."""
        return p[0] > self.lines["back"].value_mm + self.spec.line_tolerance_mm and self.on_table(p)

    def half(self, p: Point, striker_half: str | None = None) -> str:
        """``"house"`` or ``"pyramid"``. 001 2.1.6: a centre on the centre line belongs to the half away
        from the striker, so give ``striker_half`` to break the tie; without it a tie goes to pyramid."""
        if self.on_line(p, "center"):
            return "house" if striker_half == "pyramid" else "pyramid"
        return "house" if p[0] < self.lines["center"].value_mm else "pyramid"

    def side(self, p: Point) -> str:
        """``"left"`` (y < W/2) or ``"right"`` of the longitudinal line; on the line counts as ``"on"``."""
        if self.on_line(p, "long"):
            return "on"
        return "left" if p[1] < self.width_mm / 2 else "right"

    def on_table(self, p: Point) -> bool:
        return 0.0 <= p[0] <= self.length_mm and 0.0 <= p[1] <= self.width_mm

    # ---- cushions and frozen balls -----------------------------------------------------------------------
    def cushion_distances(self, p: Point) -> dict[str, float]:
        """Distance from ``p`` to each cushion segment (mm)."""
        return {name: cu.distance(p) for name, cu in self.cushions.items()}

    def nearest_cushion(self, p: Point) -> tuple[str, float]:
        d = self.cushion_distances(p)
        name = min(d, key=d.__getitem__)
        return name, d[name]

    def frozen_to_cushion(self, p: Point) -> str | None:
        """The cushion a ball centred at ``p`` is frozen to (gap to the nose line <= tolerance), or None.
        A ball up to a radius past a segment's end (beside a jaw) still counts as frozen to it. Near a
        corner pocket two segments can qualify; the one whose nose lies nearest a radius from the centre
        (the one the ball actually touches) wins."""
        R = self.ball_radius_mm
        best, best_gap = None, math.inf
        for name, cu in self.cushions.items():
            s = cu.along(p)
            off = cu.offset(p)
            if -R <= s <= cu.length_mm + R and -R <= off <= R + self.spec.frozen_tolerance_mm:
                gap = abs(off - R)
                if gap < best_gap:
                    best, best_gap = name, gap
        return best

    def frozen_together(self, p: Point, q: Point) -> bool:
        return math.dist(p, q) <= self.ball_diameter_mm + self.spec.frozen_tolerance_mm

    def frozen_ball_in_pocket(self, p: Point) -> str | None:
        """001 2.1.10: for a ball frozen to a cushion beside a corner pocket, the pocket if its centre is
        at or beyond the jaw-arc midpoint (then it counts as "in" the pocket)."""
        cushion = self.frozen_to_cushion(p)
        if cushion is None:
            return None
        for pname in self.cushions[cushion].pockets:
            if self.pockets[pname].kind != "corner":
                continue
            tip, away = self.cushion_pocket_end(cushion, pname)
            s = (p[0] - tip[0]) * away[0] + (p[1] - tip[1]) * away[1]
            if s <= -self.spec.jaw_arc_midpoint_mm:
                return pname
        return None

    def in_pocket_mouth(self, p: Point) -> str | None:
        """The pocket whose mouth holds the centre ``p``: between its jaws laterally and no more than a
        radius short of the mouth line (a ball half inside, or past the line), else None."""
        for pk in self.pockets.values():
            if pk.depth(p) >= -self.ball_radius_mm and abs(pk.lateral(p)) <= pk.mouth_width_mm / 2:
                return pk.name
        return None

    # ---- the rack (001 2.1.3) ---------------------------------------------------------------------------
    def rack_positions(self, rows: int = 5) -> list[Point]:
        """Centres of a racked pyramid: apex on the pyramid spot, base toward the back cushion, balls frozen
        together; row k (0-based) at x = 3L/4 + k * D * sqrt(3)/2. Listed row by row, left (y small) first."""
        D = self.ball_diameter_mm
        ax, ay = self.spots["pyramid"]
        pts: list[Point] = []
        for k in range(rows):
            x = ax + k * D * math.sqrt(3.0) / 2.0
            for j in range(k + 1):
                pts.append((x, ay + (j - k / 2.0) * D))
        return pts

    def as_array(self, pts: list[Point]) -> np.ndarray:
        return np.asarray(pts, dtype=np.float64).reshape(-1, 2)


def _in_triangle(p: Point, tri: tuple[Point, Point, Point], eps: float = 1e-9) -> bool:
    (ax, ay), (bx, by), (cx, cy) = tri

    def cross(ox: float, oy: float, px: float, py: float, qx: float, qy: float) -> float:
        return (px - ox) * (qy - oy) - (py - oy) * (qx - ox)

    d1 = cross(ax, ay, bx, by, p[0], p[1])
    d2 = cross(bx, by, cx, cy, p[0], p[1])
    d3 = cross(cx, cy, ax, ay, p[0], p[1])
    has_neg = d1 < -eps or d2 < -eps or d3 < -eps
    has_pos = d1 > eps or d2 > eps or d3 > eps
    return not (has_neg and has_pos)
