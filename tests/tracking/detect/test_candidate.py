"""The confidence of a reading: one function of its fit (``tracking.detect.candidate.confidence``)."""

from __future__ import annotations

import typing

import pytest

from tracking.detect.candidate import PRIOR, READ, Evidence, confidence

EVERY: tuple[Evidence, ...] = typing.get_args(Evidence)


def test_an_exact_fit_on_ample_fast_samples_is_as_sure_as_its_reading_can_be() -> None:
    for ev in EVERY:
        assert confidence(ev) == PRIOR.get(ev, READ)
        assert 0.0 < confidence(ev) <= READ
    assert confidence("kink", 0.0, 200, 1e6) == pytest.approx(READ, abs=1e-6)
    # a reading of the touch itself is surer than any that infers a touch it did not see
    assert all(p < READ for p in PRIOR.values())


def test_each_part_of_the_fit_lowers_confidence_smoothly() -> None:
    misfits = [confidence("graze", m) for m in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)]
    assert misfits == sorted(misfits, reverse=True) and misfits[-1] < 0.5 * misfits[0]
    assert confidence("graze", -0.5) == confidence("graze", 0.5)  # a residual either side of the line
    samples = [confidence("struck", samples=n) for n in (1, 2, 3, 5, 10)]
    assert samples == sorted(samples)
    # one sample gives a place, two a direction, three a direction checked
    assert [round(c / READ, 2) for c in samples[:3]] == [0.63, 0.86, 0.95]
    speeds = [confidence("kink", speed_mm_s=v) for v in (5.0, 20.0, 100.0, 1000.0)]
    assert speeds == sorted(speeds) and speeds[0] < 0.5 * speeds[-1] and speeds[-1] > 0.99 * READ


def test_unseen_and_ambiguous_bends_are_less_sure() -> None:
    seen = confidence("kink", 0.2, 4, 800.0)
    unseen = confidence("kink", 0.2, 4, 800.0, seen_through=False)
    both = confidence("kink", 0.2, 4, 800.0, seen_through=False, ambiguous=True)
    assert seen > unseen > both > 0.0


def test_a_ball_seen_running_into_a_mouth_is_the_surest_way_to_have_left_the_table() -> None:
    # seen running in and gone > running in when the stream ended > gone after riding at a rail > gone lying in a
    # mouth (a hand could hide it): the tracker's judgements, read through the same function
    ways = [confidence(ev) for ev in ("drop", "drop_at_end", "off_table", "lay_in_mouth")]
    assert ways == sorted(ways, reverse=True) and len(set(ways)) == 4
    assert ways[0] == READ
