"""Geometry of the Cluster game (000 2.1, 2.2, 4.1) on the table model, in millimetres.

Every function is pure: positions in, answers out. The table model (calibration/table.py) already holds
the attack-zone marks (calibrated where the camera saw them, ``TableSpec.attack_mark_overrides``, computed
from the 000 2.1 recipe otherwise) and the passive-zone triangles; this module turns them into the
questions the rules ask.

- ``clusters``: 000 2.2 "a group of at least three balls less than a ball diameter from each other; a ball
  less than a diameter from the cluster is part of it" (digest C1: the gap between surfaces, chained, so
  clusters are the connected components of three or more balls whose centres are closer than 2 D).
- ``zone_touch``: which pocket's attack zone (000 2.1/2.2: the pocket and its cushions up to the marks) a
  cushion or jaw touch lies in.
- ``in_passive_zone_of``: 000 2.1 passive zone of a middle pocket.
- ``crossed_center``: 000 3.4а / 3.8 crossing of the middle line by the ball's centre, with the tie rule of
  001 2.1.6 for a ball that starts on the line.
- ``spot_positions``: 000 4.1 spotting: the pyramid spot, else the nearest free place on the longitudinal
  line toward the pyramid cushion, else toward the house cushion; never touching another ball.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from calibration.contract import jaw_pocket
from calibration.table import Point, TableModel

# A spotted ball keeps this much air to every other ball beyond touching (digest C10: "free" = not
# touching another ball); it is above the table model's 1 mm frozen tolerance, so a spotted ball is never
# reported as frozen to its neighbour.
DEFAULT_SPOT_CLEARANCE_MM = 2.0


class SpotError(ValueError):
    """No free place on the longitudinal line for a ball to be spotted."""


# ---- clusters (000 2.2, digest C1) -----------------------------------------------------------------------
def clusters(positions: Mapping[str, Point], table: TableModel, min_size: int = 3) -> list[frozenset[str]]:
    """The clusters among ``positions``: connected components of at least ``min_size`` balls, two balls
    being linked when the gap between their surfaces is less than one ball diameter (centres < 2 D).

    Ordered by their smallest member id, so the answer does not depend on dict order."""
    ids = sorted(positions)
    if len(ids) < min_size:
        return []
    xy = np.asarray([positions[i] for i in ids], dtype=np.float64)
    diff = xy[:, None, :] - xy[None, :, :]
    dist = np.sqrt((diff**2).sum(axis=-1))
    linked = dist < 2.0 * table.ball_diameter_mm
    np.fill_diagonal(linked, False)
    n, labels = connected_components(csr_matrix(linked), directed=False)
    groups = [frozenset(ids[k] for k in np.flatnonzero(labels == g)) for g in range(n)]
    return sorted((g for g in groups if len(g) >= min_size), key=min)


def cluster_of(ball: str, found: Iterable[frozenset[str]]) -> frozenset[str] | None:
    return next((c for c in found if ball in c), None)


def broken_clusters(
    found: Iterable[frozenset[str]], moved: Iterable[str], struck: str | None = None
) -> list[frozenset[str]]:
    """000 2.2 "подбой кластера": the clusters to two or more of whose balls motion was passed on.
    The struck ball was set moving by the cue, not by a transfer, so it does not count (``struck``)."""
    moved_set = set(moved) - ({struck} if struck else set())
    return [c for c in found if len(c & moved_set) >= 2]


def is_racked(positions: Mapping[str, Point], table: TableModel, tolerance_mm: float | None = None) -> bool:
    """000 3.2: fifteen balls stand on the places of the pyramid (apex on the pyramid spot), each within
    ``tolerance_mm`` (default a quarter of a diameter) of its place."""
    tol = table.ball_diameter_mm / 4 if tolerance_mm is None else tolerance_mm
    pts = np.asarray(list(positions.values()), dtype=np.float64).reshape(-1, 2)
    if len(pts) < 15:
        return False
    rack = np.asarray(table.rack_positions(), dtype=np.float64)
    nearest = np.min(np.hypot(rack[:, None, 0] - pts[None, :, 0], rack[:, None, 1] - pts[None, :, 1]), axis=1)
    return bool(np.all(nearest <= tol))


# ---- attack zones (000 2.1, 2.2) --------------------------------------------------------------------------
@dataclass(frozen=True)
class ZoneTouch:
    """A touch inside a pocket's attack zone: ``cushion`` is the segment touched (a jaw counts for the
    segment it continues), ``jaw`` says whether it was the pocket's jaw."""

    pocket: str
    cushion: str
    jaw: bool


def touch_segment(table: TableModel, cushion: str, pos: Point) -> str:
    """The cushion segment a ``cushion`` event names: the segment itself, or for ``jaw:<pocket>`` the
    segment of the jaw nearest ``pos`` (the event does not say which of the two jaws)."""
    jawed = jaw_pocket(cushion)
    if jawed is None:
        return cushion
    pocket = table.pockets[jawed]
    jaw = min(pocket.jaws, key=lambda j: j.distance(pos))
    return jaw.cushion


def zone_touch(table: TableModel, cushion: str, pos: Point) -> ZoneTouch | None:
    """The attack zone a cushion/jaw touch lies in, or None: a jaw is always in its pocket's zone; a
    cushion touch is in the zone of the pocket whose mark it has not passed (measured along the cushion)."""
    jawed = jaw_pocket(cushion)
    if jawed is not None:
        return ZoneTouch(jawed, touch_segment(table, cushion, pos), True)
    pocket = table.in_attack_zone_cushion(cushion, pos)
    return None if pocket is None else ZoneTouch(pocket, cushion, False)


def adjacent_cushions(table: TableModel, pocket: str) -> tuple[str, str]:
    """The two cushion segments that end at ``pocket`` (for a corner: its long and its short cushion)."""
    names = tuple(name for name, cu in table.cushions.items() if pocket in cu.pockets)
    assert len(names) == 2, names
    return names[0], names[1]


def is_corner(table: TableModel, pocket: str) -> bool:
    return table.pockets[pocket].kind == "corner"


def past_mouth(table: TableModel, pocket: str, p: Point) -> bool:
    """The centre lies between the pocket's jaws and on or past its mouth line (into the pocket)."""
    pk = table.pockets[pocket]
    return pk.depth(p) >= 0.0 and abs(pk.lateral(p)) <= pk.mouth_width_mm / 2


def in_mouth_zone(table: TableModel, p: Point) -> str | None:
    """The pocket whose attack zone holds a ball resting at ``p`` because it sits in the pocket's mouth."""
    return table.in_pocket_mouth(p)


# ---- passive zones (000 2.1) ------------------------------------------------------------------------------
def in_passive_zone_of(table: TableModel, p: Point, middle_pocket: str) -> bool:
    """000 2.1: ``p`` lies in one of the two passive triangles beside ``middle_pocket``."""
    zone = table.passive_zone_at(p)
    return zone is not None and table.passive_zone_pocket(zone) == middle_pocket


# ---- the middle line (000 3.4а, 3.8) ------------------------------------------------------------------------
def striker_half(table: TableModel, cue_start: Point, first_direction: str | None = None) -> str:
    """The half the cue points from (digest 1): the half holding the cue ball, or, when the cue ball sits
    on the middle line, the half it leaves (opposite its first crossing direction, if any)."""
    if table.on_line(cue_start, "center"):
        if first_direction == "+x":
            return "house"
        if first_direction == "-x":
            return "pyramid"
        return "house"
    return table.half(cue_start)


def crossed_center(table: TableModel, start: Point, directions: Sequence[str], striker: str) -> bool:
    """Whether a ball starting at ``start`` crossed the middle line, given the directions of its
    ``line_cross`` events on the ``center`` line, in order.

    A crossing is the centre passing from one half to the other (000 3.4а: the centre decides). A ball
    starting on the line belongs to the half away from the striker (001 2.1.6), so moving into that half
    is no crossing, and only a move into the striker's half (or a later return) counts."""
    if not directions:
        return False
    if not table.on_line(start, "center"):
        return True
    far_dir = "+x" if striker == "house" else "-x"
    return any(d != far_dir for d in directions) or len(directions) > 1


# ---- spotting (000 4.1) ---------------------------------------------------------------------------------------
def _blocked_intervals(table: TableModel, occupied: Iterable[Point], clearance_mm: float) -> list[tuple[float, float]]:
    """Open x-intervals of the longitudinal line where a ball's centre would come nearer than
    ``D + clearance`` to an occupied centre."""
    reach = table.ball_diameter_mm + clearance_mm
    y0 = table.width_mm / 2
    out = []
    for qx, qy in occupied:
        dy = abs(qy - y0)
        if dy < reach:
            half = math.sqrt(reach * reach - dy * dy)
            out.append((qx - half, qx + half))
    return out


def _free(x: float, intervals: Sequence[tuple[float, float]]) -> bool:
    return all(not (a < x < b) for a, b in intervals)


def spot_position(
    table: TableModel, occupied: Iterable[Point], clearance_mm: float = DEFAULT_SPOT_CLEARANCE_MM
) -> Point:
    """000 4.1: the place for one spotted ball. The pyramid spot unless a ball stands on it (a ball there
    would overlap another; touching one, as in a rack whose apex has gone, is fine); otherwise the nearest
    free place on the longitudinal line toward the pyramid cushion; if there is none up to that cushion,
    the nearest toward the house cushion. Free = not touching: at least ``D + clearance`` from every
    occupied centre (digest C10), and the ball wholly on the bed (its centre a radius or more from the
    short cushions)."""
    R = table.ball_radius_mm
    x0, y0 = table.spots["pyramid"]
    taken = list(occupied)
    if all(math.dist((x0, y0), q) >= table.ball_diameter_mm - 1e-6 for q in taken):
        return (x0, y0)  # the spot is occupied only by a ball standing on it, not by one it would touch
    intervals = _blocked_intervals(table, taken, clearance_mm)
    x_max, x_min = table.length_mm - R, R
    # Candidates: the spot itself, then interval ends, each nearest-first in its direction.
    ends = sorted({b for _, b in intervals} | {a for a, _ in intervals})
    toward_pyramid = [x0] + [e for e in ends if e > x0]
    for x in toward_pyramid:
        if x <= x_max and _free(x, intervals):
            return (x, y0)
    for x in [e for e in reversed(ends) if e < x0]:
        if x >= x_min and _free(x, intervals):
            return (x, y0)
    raise SpotError("no free place on the longitudinal line to spot a ball")


def spot_positions(
    table: TableModel,
    balls: Sequence[str],
    occupied: Mapping[str, Point],
    clearance_mm: float = DEFAULT_SPOT_CLEARANCE_MM,
) -> list[tuple[str, Point]]:
    """Spot ``balls`` one after another in the given order (000 4.1), each ball placed counting as
    occupied for the next. ``occupied`` holds the balls resting on the table."""
    taken = [p for b, p in occupied.items() if b not in balls]
    out: list[tuple[str, Point]] = []
    for b in balls:
        p = spot_position(table, taken, clearance_mm)
        out.append((b, p))
        taken.append(p)
    return out
