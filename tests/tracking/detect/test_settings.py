"""Nested settings: a field by its name (unique across the detectors' records) or its dotted path."""

from __future__ import annotations

import pytest

from tracking.detect.settings import ExtractorSettings, setting_path, with_values


def test_a_field_is_found_by_its_name_or_its_path() -> None:
    s = ExtractorSettings()
    assert setting_path(s, "kiss_tol_mm") == ["contacts", "kiss_tol_mm"]
    assert setting_path(s, "cushions.rattle.min_samples") == ["cushions", "rattle", "min_samples"]
    t = with_values(s, kiss_tol_mm=3.0, **{"cushions.rattle.min_samples": 5, "ghost_below": 0.5})
    assert (t.contacts.kiss_tol_mm, t.cushions.rattle.min_samples, t.ghost_below) == (3.0, 5, 0.5)
    assert s.contacts.kiss_tol_mm == 2.5  # the original is left as it was
    assert t.cushions.graze_tol_mm == s.cushions.graze_tol_mm


@pytest.mark.parametrize("name", ["no_such_field", "contacts.graze_tol_mm", "contacts.kiss_tol_mm.x"])
def test_an_unknown_field_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="no such setting"):
        setting_path(ExtractorSettings(), name)
