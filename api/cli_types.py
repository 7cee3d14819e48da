"""Command-line values checked as they are parsed, so that a mistyped option fails at once with the form it
expects, before any video is opened or any kernel compiled."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from calibration.contract import GAMES

# What --game takes, listed in every command's help (each explained in the README's "The games").
GAME_HELP = "the game played: " + ", ".join(GAMES)


def pair_mm(form: str, example: str) -> Callable[[str], str]:
    """An argparse ``type`` for ``AxB`` in millimetres (``x`` or ``×`` between two positive numbers). It returns
    the text unchanged, for the command's own reader; the error (after argparse's "argument --table:") names
    the expected form and an example."""

    def check(text: str) -> str:
        parts = text.lower().replace("×", "x").split("x")
        try:
            values = [float(p) for p in parts]
        except ValueError:
            values = []
        if len(values) != 2 or not all(v > 0 for v in values):
            raise argparse.ArgumentTypeError(f"expects {form} in mm, e.g. {example}; got {text!r}")
        return text

    return check


table_size = pair_mm("LxW (playing-field length x width)", "2540x1270")
mouth_widths = pair_mm("CxM (corner x middle pocket mouth width)", "73x83")


def positive_mm(example: str) -> Callable[[str], float]:
    """An argparse ``type`` for one positive length in millimetres."""

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expects a length in mm, e.g. {example}; got {text!r}")
        return value

    return check


ball_diameter = positive_mm("57.15")
