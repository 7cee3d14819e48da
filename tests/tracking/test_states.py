"""The track states and their one table of changes."""

from __future__ import annotations

import pytest

from tracking.states import GONE, HIDDEN, RESTING, TRANSITIONS, Change, Phase, after


def test_a_balls_life_through_the_table() -> None:
    life = [
        (Change.SETTLED, Phase.TENTATIVE_AT_REST),  # a placed ball, still
        (Change.CONFIRMED, Phase.RESTING),
        (Change.MISSED, Phase.HIDDEN_RESTING),  # under the player's arm
        (Change.SEEN, Phase.RESTING),
        (Change.SET_MOVING, Phase.MOVING),  # struck
        (Change.SEEN, Phase.MOVING),
        (Change.MISSED, Phase.HIDDEN_MOVING),  # into the jaws
        (Change.POT, Phase.POTTED),
    ]
    phase = Phase.TENTATIVE
    for change, want in life:
        phase = after(phase, change)
        assert phase == want


@pytest.mark.parametrize(
    ("phase", "change"),
    [
        (Phase.MOVING, Change.POT),  # a ball in sight is not potted
        (Phase.TENTATIVE, Change.POT),  # nor is a blob that was never a ball
        (Phase.POTTED, Change.SEEN),  # a potted ball does not come back as itself
        (Phase.RESTING, Change.CONFIRMED),
    ],
)
def test_changes_the_table_does_not_allow_raise(phase: Phase, change: Change) -> None:
    with pytest.raises(ValueError):
        after(phase, change)


def test_every_state_is_reached_and_the_groups_are_consistent() -> None:
    reached = {Phase.TENTATIVE} | set(TRANSITIONS.values())
    assert reached == set(Phase)
    assert not (HIDDEN & GONE) and not (RESTING & GONE)
    assert all(p not in GONE for p, _ in TRANSITIONS)  # nothing leaves the table's end states
