"""The event extractor on kinematic shots with exact truth: contacts, cushions, lines, pots, shots."""

from __future__ import annotations

import numpy as np
import pytest

from api.pipeline import Pipeline
from calibration.table import TableModel
from tracking.events import Event
from tracking.kinematic_sim import SimResult, detections_from_truth, make_setup, simulate_shot
from tracking.metrics import Scores, event_key

TABLE = TableModel()


class _Dets:
    def __init__(self, pos: np.ndarray, conf: np.ndarray, cue: np.ndarray) -> None:
        self.pos_mm, self.confidence, self.cls = pos, conf, cue.astype(np.int64)


def _observe(sim: SimResult, balls: dict[str, tuple[float, float]], seed: int = 0, **kw: object) -> list[Event]:
    dets = detections_from_truth(sim, np.random.default_rng(seed), **kw)  # type: ignore[arg-type]
    pipe = Pipeline(table=TABLE, known_ids=balls)
    for i, (t, d) in enumerate(dets):
        pipe.step_detections(_Dets(d.pos_mm, d.confidence, d.is_cue), i, t)
    pipe.finish()
    return pipe.sorted_events()


def _find(events: list[Event], truth: Event, tol: float) -> Event | None:
    for e in events:
        if e.type == truth.type and event_key(e) == event_key(truth) and abs((e.t or 0) - (truth.t or 0)) <= tol:
            return e
    return None


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_straight_pot_events_and_sub_frame_timing(fps: float) -> None:
    pk = TABLE.pockets["pyramid-left"]
    obj = np.array(pk.mouth_center) - np.array(pk.outward) * 700
    u = np.array(pk.outward)
    cue = obj - u * 900
    balls = {"cue": (float(cue[0]), float(cue[1])), "3": (float(obj[0]), float(obj[1])), "5": (600.0, 1400.0)}
    sim = simulate_shot(TABLE, balls, "cue", (float(u[0] * 3000), float(u[1] * 3000)), fps=fps)
    pred = _observe(sim, balls)
    assert pred[0].type == "shot_start" and pred[0].ball == "cue"
    assert pred[-1].type == "shot_end"
    pots = [e for e in pred if e.type == "pot"]
    assert [(e.ball, e.pocket) for e in pots] == [("3", "pyramid-left")]
    contacts = [e for e in pred if e.type == "contact"]
    assert contacts and contacts[0].balls == ("cue", "3")
    for truth in sim.events:
        if truth.type in ("contact", "pot", "line_cross", "cushion"):
            got = _find(pred, truth, 1 / fps)
            assert got is not None, f"missed {truth.to_json()}"
            assert abs((got.t or 0) - (truth.t or 0)) <= 0.25 / fps


def test_cushion_touch_names_the_segment_and_the_point() -> None:
    # Straight into the right-pyramid cushion at an angle, then back out.
    start = (2400.0, 900.0)
    sim = simulate_shot(TABLE, {"cue": start}, "cue", (600.0, 2000.0))
    pred = _observe(sim, {"cue": start})
    truth = [e for e in sim.events if e.type == "cushion"]
    got = [e for e in pred if e.type == "cushion"]
    assert [e.cushion for e in got] == [e.cushion for e in truth] and truth[0].cushion == "right-pyramid"
    assert got[0].pos is not None and truth[0].pos is not None
    assert abs(got[0].pos[0] - truth[0].pos[0]) < 10 and abs(got[0].pos[1] - TABLE.width_mm) < 5


def test_line_crossings_have_the_direction_of_travel() -> None:
    start = (500.0, 300.0)
    sim = simulate_shot(TABLE, {"cue": start}, "cue", (2500.0, 700.0))
    pred = _observe(sim, {"cue": start})
    want = [(e.line, e.direction) for e in sim.events if e.type == "line_cross"]
    got = [(e.line, e.direction) for e in pred if e.type == "line_cross"]
    assert ("house", "+x") in want and ("long", "+y") in want
    assert got == want


def test_frozen_pair_contact_is_attributed_through_the_chain() -> None:
    a, b = (1500.0, 900.0), (1568.0, 900.0)
    balls = {"cue": (900.0, 900.0), "1": a, "2": b}
    sim = simulate_shot(TABLE, balls, "cue", (2500.0, 0.0))
    pred = _observe(sim, balls)
    pairs = [e.balls for e in pred if e.type == "contact"]
    assert ("cue", "1") in pairs and ("1", "2") in pairs
    assert pairs.index(("cue", "1")) < pairs.index(("1", "2"))


def test_slow_push_between_shots_is_disturbed_not_a_shot() -> None:
    balls = {"cue": (1000.0, 600.0), "1": (2000.0, 900.0)}
    sim = simulate_shot(TABLE, balls, "cue", (140.0, 0.0), tail_s=1.0)  # 20 mm at 140 mm/s
    pred = _observe(sim, balls)
    assert not any(e.type == "shot_start" for e in pred)
    dist = [e for e in pred if e.type == "disturbed"]
    assert [e.ball for e in dist] == ["cue"] and dist[0].shot is None


def test_struck_ball_hidden_under_an_arm_still_starts_the_shot() -> None:
    from tracking.kinematic_sim import Occluder

    balls = {"cue": (800.0, 900.0), "1": (2200.0, 900.0)}
    sim = simulate_shot(TABLE, balls, "cue", (2500.0, 0.0))
    arm = Occluder(650, 750, 1000, 1050, 0.1, 0.5)  # over the cue ball while it is struck
    pred = _observe(sim, balls, occluders=(arm,))
    starts = [e for e in pred if e.type == "shot_start"]
    assert [e.ball for e in starts] == ["cue"]
    assert any(e.type == "contact" and e.balls == ("cue", "1") for e in pred)


@pytest.mark.slow
def test_small_mixed_suite_meets_the_accuracy_floor() -> None:
    rng = np.random.default_rng(11)
    scores = Scores()
    names = ("straight_pot", "cut_pot", "bank", "random", "frozen_pair", "slow", "occluded", "break")
    for k in range(16):
        setup = make_setup(TABLE, names[k % len(names)], rng)
        sim = simulate_shot(TABLE, setup.balls, setup.struck, setup.velocity)
        pred = _observe(sim, setup.balls, seed=k, occluders=setup.occluders)
        scores.add_shot(pred, sim.events, 1 / 60)
    assert scores.events["pot"].f1 >= 0.9
    assert scores.events["cushion"].f1 >= 0.85
    assert scores.events["line_cross"].f1 >= 0.9
    assert scores.events["contact"].f1 >= 0.8
    assert float(np.median(scores.timing())) * 60 <= 0.25
