"""A scenario: a ball layout and the strokes played on it, with the balls placed between strokes.

Scenarios are plain frozen data, so a named scenario with a seed is reproducible: the library's builders
may simulate while they choose strokes, but what they return is only positions and stroke parameters,
and running it again gives the same physics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from calibration.contract.games import all_white
from calibration.table import TableModel
from models.synth.engine import Stroke

Point = tuple[float, float]


@dataclass(frozen=True)
class ShotPlan:
    """One stroke, and the balls put on the table (spotted, or the cue ball from hand) before it."""

    stroke: Stroke
    place: dict[str, Point] = field(default_factory=dict)
    also: tuple[Stroke, ...] = ()  # other balls set rolling at the same instant (a lag)
    # Resting balls pushed by hand, cue or clothes before the stroke: ball -> displacement (mm). Each slides
    # smoothly over ``NUDGE_S`` seconds starting ``NUDGE_LEAD_S`` before the stroke (a ``disturbed`` event).
    nudge: dict[str, Point] = field(default_factory=dict)


NUDGE_LEAD_S = 0.9
NUDGE_S = 0.3


@dataclass(frozen=True)
class Scenario:
    name: str
    game: str
    layout: dict[str, Point]
    shots: tuple[ShotPlan, ...]
    seed: int = 0
    description: str = ""
    frame_start: bool = False  # the video opens a new frame (racked balls, the break): truth/inputs.jsonl
    lead_in_s: float = 1.0  # video before the first stroke (the cue comes in)
    gap_s: float = 1.2  # pause between one shot's end and the next stroke
    tail_s: float = 0.6  # video after the last shot ends

    @property
    def all_white(self) -> bool:
        return all_white(self.game)  # no distinct cue ball: the striker may hit any ball

    @property
    def cue_ball(self) -> str | None:
        return None if self.all_white else "cue"


def aim_direction(frm: Point, to: Point) -> float:
    """Direction in degrees (our frame) from one point to another."""
    return math.degrees(math.atan2(to[1] - frm[1], to[0] - frm[0]))


def ghost_ball(table: TableModel, target: Point, toward: Point) -> Point:
    """Where the striking ball's centre must be at contact to send ``target`` toward ``toward``."""
    d = np.asarray(toward, float) - np.asarray(target, float)
    d /= np.linalg.norm(d)
    g = np.asarray(target, float) - table.ball_diameter_mm * d
    return (float(g[0]), float(g[1]))


def pocket_aim_point(table: TableModel, pocket: str) -> Point:
    """A point a ball aimed into ``pocket`` should head for: a radius past the mouth centre."""
    return table.pockets[pocket].drop_point


def free_spot(table: TableModel, want: Point, occupied: list[Point], step_mm: float = 5.0) -> Point:
    """``want`` if free, else the nearest free point behind it along the long line toward the house
    (the spotting convention of 001 2.1.14 simplified): no ball within a diameter plus a millimetre."""
    D = table.ball_diameter_mm + 1.0
    x, y = want
    while x > table.ball_radius_mm:
        if all(math.dist((x, y), p) >= D for p in occupied):
            return (x, y)
        x -= step_mm
    x = want[0]
    while x < table.length_mm - table.ball_radius_mm:
        if all(math.dist((x, y), p) >= D for p in occupied):
            return (x, y)
        x += step_mm
    raise ValueError("no free spot on the long line")
