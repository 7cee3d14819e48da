"""Public ball ids (CONTRACT.md section 2): rack numbers, ``"cue"``, or stable tracker ids ``t1, t2, ...``.

A game whose rack numbers the balls in a fixed order (001 2.2.3, the Russian pyramid) declares that order
(``calibration.contract.games``: ``rack_order``), row by row in the order ``TableModel.rack_positions``
lists the places in; a racked pyramid is numbered from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.contract.games import rack_order
from calibration.table import TableModel


def rack_ids(table: TableModel, game: str | None) -> dict[str, tuple[float, float]]:
    """The known rack of ``game`` as {ball id: position}, or {} where the game has no numbered order."""
    order = rack_order(game)
    if not order:
        return {}
    return dict(zip(order, table.rack_positions(), strict=True))


@dataclass
class IdAssigner:
    """Hands out public ids as tracks are confirmed; an id is never reused for another ball."""

    known: dict[str, tuple[float, float]] = field(default_factory=dict)  # id -> where that ball is
    match_radius_mm: float = 34.0
    _used: set[str] = field(default_factory=set)
    _next: int = 1

    def claim(self, pos: np.ndarray, is_cue: bool) -> str:
        if is_cue and "cue" not in self._used:
            self._used.add("cue")
            return "cue"
        best, best_d = None, self.match_radius_mm
        for ball, p in self.known.items():
            if ball in self._used:
                continue
            d = float(np.hypot(pos[0] - p[0], pos[1] - p[1]))
            if d <= best_d:
                best, best_d = ball, d
        if best is not None:
            self._used.add(best)
            return best
        return self.fresh()

    def fresh(self) -> str:
        while f"t{self._next}" in self._used:
            self._next += 1
        name = f"t{self._next}"
        self._used.add(name)
        return name

    def reserve(self, name: str) -> None:
        self._used.add(name)


def match_ids(
    positions: dict[str, np.ndarray], wanted: dict[str, tuple[float, float]], radius_mm: float
) -> dict[str, str]:
    """Operator correction by position: {current id: wanted id} pairing each wanted position with the nearest
    current ball (one-to-one, within ``radius_mm``)."""
    cur = list(positions)
    names = list(wanted)
    if not cur or not names:
        return {}
    a = np.array([positions[c] for c in cur], dtype=float)
    b = np.array([wanted[n] for n in names], dtype=float)
    cost = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    rows, cols = linear_sum_assignment(cost)
    return {cur[r]: names[c] for r, c in zip(rows, cols, strict=True) if cost[r, c] <= radius_mm}
