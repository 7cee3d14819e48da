"""The tracking metrics floor (``tests/metrics.txt``): the recorded tracker input of a fixed set of rendered scenes
(``tests/data/metrics/``), replayed through the tracker and the event extractor, must score every event type at
least its committed F1 minus the tolerance, and as many scenes must get the referee's calls as on the truth.

The floor is shown able to fail: a setting known to be worse (a ball whose samples over the tenth of a second
before a touch lie within 20 mm of touching the cushion is taken to roll along it, not to touch it anew, so a
ball arriving at under 200 mm/s across the nose line loses its touch) falls below it. When tracking
legitimately changes the figures, ``python -m tests.metrics_floor --write`` rewrites the table in the same commit
as the change, with the suites' tables before and after as its evidence."""

from __future__ import annotations

import pytest

from tests.metrics_floor import (
    TABLE,
    TOLERANCE,
    KindScore,
    Metrics,
    below_floor,
    read_table,
    replay_in_process,
    scene_dirs,
    table_text,
)

# A ball taken to roll along a cushion (touching it not anew) when its samples over hug_s before a touch lie
# within this of touching it: one arriving at under 200 mm/s across the nose line loses its touch. (A tight
# cushion_tol_mm no longer shows the floor failing: a path in that runs into the nose line before the ball is
# seen again touched it there, whatever the paths' meeting point.)
WORSE = ("hug_mm=20.0",)


@pytest.fixture(scope="module")
def floor() -> Metrics:
    return read_table(TABLE)


@pytest.mark.slow
def test_replay_on_head_holds_the_floor(floor: Metrics) -> None:
    now = replay_in_process()
    assert now.scenes == floor.scenes, "the table was written from other scenes: python -m tests.metrics_floor --write"
    problems = below_floor(now, floor)
    assert not problems, "below the floor:\n" + "\n".join(problems) + "\n" + table_text(now)


@pytest.mark.slow
def test_a_worse_setting_falls_below_the_floor(floor: Metrics) -> None:
    worse = replay_in_process(WORSE)
    problems = below_floor(worse, floor)
    assert any(p.startswith("cushion:") for p in problems), table_text(worse)


def test_the_tolerance_is_finer_than_one_event_of_any_type(floor: Metrics) -> None:
    # losing one event of any type must fail the floor; a difference in the table's last digit must not
    steps = {k: s.step for k, s in floor.kinds.items() if s.found}
    assert steps and all(step > TOLERANCE for step in steps.values()), steps
    assert TOLERANCE > 0.0001


def test_one_event_lost_or_one_call_changed_fails_and_nothing_else_does(floor: Metrics) -> None:
    assert below_floor(floor, floor) == []
    for k, s in floor.kinds.items():
        if not s.found:
            continue
        missed = KindScore(round(s.f1 - s.step, 4), s.truth, s.found - 1, s.extra)
        worse = Metrics(floor.scenes, {**floor.kinds, k: missed}, floor.calls_agree)
        assert [p.split(":")[0] for p in below_floor(worse, floor)] == [k]
        better = Metrics(floor.scenes, {**floor.kinds, k: KindScore(1.0, s.truth, s.truth, 0)}, floor.calls_agree)
        assert below_floor(better, floor) == []
    fewer_calls = Metrics(floor.scenes, floor.kinds, floor.calls_agree - 1)
    assert below_floor(fewer_calls, floor) == [
        f"calls as on the truth: {floor.calls_agree - 1} scenes < floor {floor.calls_agree}"
    ]


def test_the_table_reads_back_what_was_written(floor: Metrics) -> None:
    assert read_table_text(table_text(floor)) == floor
    assert [d.name for d in scene_dirs()] == list(floor.scenes)


def read_table_text(text: str) -> Metrics:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "metrics.txt"
        p.write_text(text, encoding="utf-8")
        return read_table(p)
