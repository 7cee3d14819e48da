"""User-facing errors of the rules engine (ValueError subclasses: the CLI prints them in one line)."""

from __future__ import annotations


class UnknownGameError(ValueError):
    """A game name the registry does not know; the message lists the known names."""


class GameNotAvailableError(ValueError):
    """A known game whose package is not part of this build (the Cluster game before it lands)."""


class RefereeInputError(ValueError):
    """An event the engine cannot accept where it stands; names the line (or sequence number) and why."""

    def __init__(self, where: int, reason: str) -> None:
        super().__init__(f"line {where}: {reason}")
        self.line_no = where
        self.reason = reason


class UnjudgedShot(RefereeInputError):
    """A ``shot_end`` for a shot of which nothing could be placed (its ``shot_start`` was refused or never
    came): the shot goes unjudged and this says why (``shot``, ``reason``)."""

    def __init__(self, shot: int, reason: str, where: int = 0) -> None:
        super().__init__(where, f"shot {shot} not judged: {reason}")
        self.shot = shot
        self.why = reason
