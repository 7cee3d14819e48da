"""Resume points of a recorded video's match: the whole observer (detector, tracker, event extractor) as it was
right after a shot ended, kept beside the match record.

A restarted service loads the latest one and carries on from the next frame with the very state the
uninterrupted run had there, so every event it finds after it, and every call made on them, is the one the
uninterrupted run made. A new observer started at the shot boundary instead would not be the same: its
cloth model, its memory of where each ball rested and when it was last seen, and its tracks start empty,
and the next shot's first contacts came out differently (a foul called on a legal shot).

A resume point is only written after the frame it follows is committed to the store, and atomically (a
temporary file renamed over the last one), so a kill at any moment leaves either the previous point or the
new one, never half of one; and it is only trusted when it belongs to this match and source and to frames
the store has recorded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("tableref.resume")

# Bumped whenever what is pickled changes shape; a point of another format is not used (the match is then
# replayed from its first frame, which gives the same calls, only later).
FORMAT = 1


_PACKAGES = ("api", "calibration", "tracking", "vision")  # what a saved observer is made of
_code_cache: list[str] = []


def code_fingerprint() -> str:
    """A digest of the observer's source code. A point saved by other code (an upgrade between the kill and
    the restart) may not even load into this one's classes, and where it does, would not carry on as this
    code does: it is not used."""
    if not _code_cache:
        root = Path(__file__).resolve().parent.parent
        digest = hashlib.sha256()
        for pkg in _PACKAGES:
            for path in sorted((root / pkg).rglob("*.py")):
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
        _code_cache.append(digest.hexdigest()[:16])
    return _code_cache[0]


@dataclass
class ResumePoint:
    frame: int  # the last frame the saved observer has seen
    seq: int  # the match record's last message when it was saved
    frame_sum: int  # a checksum of that frame's picture, to check that seeking the video found it
    pipeline: Any
    stored: dict[str, tuple[float, float]]  # the ball positions last written to the store


def frame_checksum(frame: np.ndarray) -> int:
    """A checksum of a frame's picture, on every fourth pixel of every fourth row (enough to tell frames of a
    video apart, a fraction of a millisecond at 1080p)."""
    return zlib.crc32(np.ascontiguousarray(frame[::4, ::4]).tobytes())


class ResumePoints:
    """The resume point of one match on one source, kept in ``folder``."""

    def __init__(self, folder: Path, match_id: int, source: str) -> None:
        self.folder = Path(folder)
        self.match_id = match_id
        self.source = source
        self.path = self.folder / f"match-{match_id}.resume"

    def save(self, point: ResumePoint) -> None:
        header = {"format": FORMAT, "code": code_fingerprint(), "match": self.match_id, "source": self.source}
        data = pickle.dumps(header) + pickle.dumps(point, protocol=pickle.HIGHEST_PROTOCOL)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def load(self, progress_frame: int) -> ResumePoint | None:
        """The saved point, when it is one this match can resume from (else None, and why in the log)."""
        if not self.path.exists():
            return None
        try:
            with open(self.path, "rb") as fh:
                header = pickle.load(fh)
                if not isinstance(header, dict) or header.get("code") != code_fingerprint():
                    log.warning("resume point %s was saved by other code; replaying the match from its first frame",
                                self.path)  # fmt: skip
                    return None
                point = pickle.load(fh)
        except Exception as exc:  # damaged: replay from the start
            log.warning("resume point %s unreadable (%s); replaying the match from its first frame", self.path, exc)
            return None
        if (
            not isinstance(point, ResumePoint)
            or header.get("format") != FORMAT
            or header.get("match") != self.match_id
            or header.get("source") != self.source
        ):
            log.warning("resume point %s is not this match's; replaying the match from its first frame", self.path)
            return None
        if point.frame > progress_frame:
            log.warning("resume point %s is ahead of the match record; replaying from the first frame", self.path)
            return None
        return point

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)
