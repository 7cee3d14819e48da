"""Fixtures of the detector tests."""

from __future__ import annotations

import pytest

from calibration.contract import Event
from tracking.detect.candidate import Candidate
from tracking.extractor import EventExtractor


@pytest.fixture
def candidates(monkeypatch: pytest.MonkeyPatch) -> list[Candidate]:
    """Every candidate the detectors hand the resolver (the real resolver still decides)."""
    seen: list[Candidate] = []
    give = EventExtractor.give

    def recording(ex: EventExtractor, c: Candidate, out: list[Event]) -> bool:
        seen.append(c)
        return give(ex, c, out)

    monkeypatch.setattr(EventExtractor, "give", recording)
    return seen
