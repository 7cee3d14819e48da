"""The game names of CONTRACT.md section 7."""

from __future__ import annotations

GAMES = (
    "cluster",
    "russian71",
    "russian71-fast",
    "moscow",
    "moscow-fast",
    "moscow-fast-called",
    "americanka",
    "americanka-fast",
    "eight",
    "eight-fast",
    "eight-fast-called",
)
