"""``tracking.ids``: a game's known rack, public ids handed out once each, and an operator's correction by
position."""

from __future__ import annotations

import numpy as np

from calibration.contract.games import rack_order
from calibration.table import TableModel
from tracking.ids import IdAssigner, match_ids, rack_ids

TABLE = TableModel()


def test_a_numbered_rack_names_each_place_and_an_unnumbered_game_none() -> None:
    ids = rack_ids(TABLE, "russian71")
    order = rack_order("russian71")
    assert order and list(ids) == list(order)
    assert list(ids.values()) == [tuple(p) for p in TABLE.rack_positions()]
    assert rack_ids(TABLE, None) == {}


def test_ids_go_to_the_known_ball_nearest_then_the_cue_then_fresh_never_twice() -> None:
    ids = IdAssigner(known={"1": (100.0, 100.0), "2": (300.0, 100.0)})
    assert ids.claim(np.array([110.0, 100.0]), False) == "1"
    assert ids.claim(np.array([105.0, 100.0]), False) == "t1"  # "1" is taken: a fresh id, not a second "1"
    assert ids.claim(np.array([900.0, 900.0]), True) == "cue"
    assert ids.claim(np.array([900.0, 900.0]), True) == "t2"  # a second cue-looking ball is not the cue
    ids.reserve("t3")
    assert ids.fresh() == "t4"
    assert ids.claim(np.array([300.0 + 35.0, 100.0]), False) == "t5"  # beyond match_radius_mm of "2"


def test_match_ids_pairs_each_wanted_place_with_the_nearest_ball_within_reach() -> None:
    positions = {"t1": np.array([100.0, 100.0]), "t2": np.array([400.0, 100.0]), "t3": np.array([900.0, 900.0])}
    wanted = {"1": (395.0, 100.0), "2": (102.0, 98.0), "3": (600.0, 600.0)}
    assert match_ids(positions, wanted, 20.0) == {"t2": "1", "t1": "2"}
    assert match_ids({}, wanted, 20.0) == {}
