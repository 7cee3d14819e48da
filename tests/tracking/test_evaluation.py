"""How well confidence and the review flag tell right events from wrong ones (``tracking.evaluation``)."""

from __future__ import annotations

import pytest

from calibration.contract import Event
from tracking.evaluation import Judged, confidence_auc, confidence_split, judged_events


def _cushion(t: float, ball: str, conf: float, review: bool = False) -> Event:
    return Event(
        type="cushion", t=t, frame=round(t * 60), ball=ball, cushion="right-pyramid", pos=(3500.0, 1744.0),
        confidence=conf, review=review,
    )  # fmt: skip


def test_auc_is_one_when_every_right_event_is_surer_and_half_on_ties() -> None:
    assert confidence_auc([0.9, 0.8], [0.5, 0.6]) == 1.0
    assert confidence_auc([0.5, 0.6], [0.9, 0.8]) == 0.0
    assert confidence_auc([0.7, 0.7], [0.7]) == 0.5
    # one right event above both wrong ones, one between: three pairs of four ordered right
    assert confidence_auc([0.9, 0.6], [0.5, 0.7]) == pytest.approx(0.75)
    assert confidence_auc([], [0.5]) is None
    assert confidence_auc([0.5], []) is None


def test_judged_events_are_right_only_when_matched_in_time_and_key() -> None:
    truth = [_cushion(1.0, "cue", 1.0), _cushion(2.0, "1", 1.0)]
    pred = [
        _cushion(1.005, "cue", 0.9),  # within a frame of the truth: right
        _cushion(2.1, "1", 0.4, review=True),  # six frames late: wrong
        _cushion(3.0, "2", 0.3, review=True),  # no truth at all: wrong
    ]
    judged = judged_events(truth, pred, "cushion", 1 / 60)
    assert [j.right for j in judged] == [True, False, False]
    assert [j.confidence for j in judged] == [0.9, 0.4, 0.3]
    assert judged_events(truth, pred, "contact", 1 / 60) == []


def test_split_counts_the_flag_on_each_side() -> None:
    judged = [
        Judged(0.9, False, True),
        Judged(0.45, True, True),  # a right event flagged
        Judged(0.3, True, False),
        Judged(0.6, False, False),  # a wrong event let through
    ]
    c = confidence_split(judged)
    assert (c.right, c.wrong) == (2, 2)
    assert c.wrong_flagged == 0.5
    assert c.right_flagged == 0.5
    assert c.flag_precision == 0.5
    assert c.auc == pytest.approx(0.75)
    none_flagged = confidence_split([Judged(0.9, False, True)])
    assert none_flagged.flag_precision is None and none_flagged.wrong_flagged is None and none_flagged.auc is None
