"""The synthetic truth is true: every scenario of the library, checked against its own physics.

For each scenario (seed 0): events in time order; each pot's ball reaches that pocket's circle and is
gone afterwards; each contact has the centres one diameter apart at ``t``; each cushion event has the
centre one radius from that cushion (the straight cushions checked against ``TableModel``'s nose lines,
jaws against the physics surface); each line crossing has the centre on the line at ``t`` and on opposite
sides just before and after; tracks agree with the continuous trajectory at the frame times.
"""

from __future__ import annotations

import csv
import json
import math
from functools import cache
from itertools import pairwise

import numpy as np
import pytest

from calibration.contract import CUSHIONS, read_jsonl
from calibration.table import TableModel, TableSpec
from models.synth import library
from models.synth.engine import Stroke
from models.synth.physics import PhysicsTable, cushion_name, ensure_numba_cache, to_ours, to_pooltool
from models.synth.scenario import NUDGE_S, Scenario, ShotPlan
from models.synth.truth import (
    LINE_BAND_MM,
    PhysicsGlitch,
    Truth,
    TruthSettings,
    check_shot,
    line_crossings,
    run_scenario,
)

ensure_numba_cache()  # before pooltool loads: numba's cache must be writable
pytest.importorskip("pooltool")

pytestmark = pytest.mark.synth

TABLE = TableModel()
PTABLE = PhysicsTable(TABLE)
SLOW = {"break", "frame", "frame-short", "cluster-frame"}


@cache
def truth_of(name: str, seed: int = 0) -> Truth:
    return run_scenario(library.build(name, seed, TABLE, PTABLE), TABLE, PTABLE)


@pytest.fixture(scope="session")
def compiled() -> None:
    """pooltool's numba functions compile (about 36 s, cached on disk) once per session."""
    truth_of("pot-house-left")


def _params() -> list:
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in library.names()]


def test_frame_mapping_is_the_axis_swap() -> None:
    p = np.array([[1234.5, 456.25]])
    assert np.allclose(to_pooltool(p), [[0.45625, 1.2345]])
    assert np.allclose(to_ours(to_pooltool(p)), p)
    # pooltool's bottom-left pocket is our house-left corner; its straight cushions are ours.
    assert cushion_name("18") == "house" and cushion_name("9") == "pyramid"
    assert cushion_name("3") == "left-house" and cushion_name("12") == "right-pyramid"
    assert cushion_name("2t") == "jaw:house-left" and cushion_name("13") == "jaw:middle-right"
    centres = {n: c for n, (c, _) in PTABLE.pockets_mm.items()}
    for name, pk in TABLE.pockets.items():
        # Each pocket circle lies behind its own mouth, on its axis.
        assert pk.depth(tuple(centres[name])) > 0
        assert abs(pk.lateral(tuple(centres[name]))) < 1e-6


def test_physics_cushions_lie_on_the_table_model_nose_lines() -> None:
    for sid, (kind, pts, _) in PTABLE.segments_mm.items():
        name = cushion_name(sid)
        if kind == "line" and name in CUSHIONS:
            cu = TABLE.cushions[name]
            for p in pts:
                assert abs(cu.offset(tuple(p))) < 1e-6
                assert -1e-6 <= cu.along(tuple(p)) <= cu.length_mm + 1e-6


def test_the_table_model_jaws_are_the_physics_jaws() -> None:
    """Where a ball's centre can be, the model's jaw (straight face and rounded tip) is as far away as the
    physics' jaw segments and tip arcs, to a fraction of a millimetre: what the extractor measures a jaw touch
    against is what the truth was made with."""
    rng = np.random.default_rng(5)
    R = TABLE.ball_radius_mm
    for name, pk in TABLE.pockets.items():
        ids = [sid for sid in PTABLE.segments_mm if cushion_name(sid) == f"jaw:{name}"]
        assert len(ids) == 4  # two faces, two tip arcs
        checked = 0
        for p in np.array(pk.mouth_center) + rng.uniform(-80.0, 80.0, (3000, 2)):
            q = (float(p[0]), float(p[1]))
            in_field = R <= q[0] <= TABLE.length_mm - R and R <= q[1] <= TABLE.width_mm - R
            in_mouth = 0 < pk.depth(q) < R and abs(pk.lateral(q)) < pk.mouth_width_mm / 2
            physics = min(PTABLE.distance_to_segment(sid, p) for sid in ids)
            if (in_field or in_mouth) and physics < R + 2.0:
                checked += 1
                assert min(j.distance(q) for j in pk.jaws) == pytest.approx(physics, abs=0.5)
        assert checked > 20


@pytest.mark.parametrize("name", _params())
def test_truth_is_true(compiled: None, name: str) -> None:
    tr = truth_of(name)
    R, D = TABLE.ball_radius_mm, TABLE.ball_diameter_mm
    ts = [e.t for e in tr.events]
    assert ts == sorted(ts), "events out of time order"
    in_shots = [e for e in tr.events if e.shot is not None]
    assert in_shots[0].type == "shot_start" and tr.events[-1].type == "shot_end"
    assert all(e.type == "disturbed" for e in tr.events if e.shot is None)
    assert sum(e.type == "shot_start" for e in tr.events) == len(tr.scenario.shots)
    for ev in tr.events:
        t = float(ev.t or 0.0)
        if ev.type == "contact":
            a, b = ev.balls or ()
            pa = tr.ball_positions(a, np.array([t]))[0]
            pb = tr.ball_positions(b, np.array([t]))[0]
            assert abs(math.dist(pa, pb) - D) <= 0.5, f"contact {a}-{b} at {t}"
            assert math.dist((pa + pb) / 2, ev.pos or (0, 0)) < 0.01
        elif ev.type == "cushion":
            p = tr.ball_positions(ev.ball or "", np.array([t]))[0]
            if ev.cushion in CUSHIONS:
                assert abs(TABLE.cushions[ev.cushion].offset(tuple(p)) - R) <= 0.5, f"{ev.ball} {ev.cushion} at {t}"
            else:
                assert abs(PTABLE.distance_to_cushion(ev.cushion or "", p) - R) <= 0.5
        elif ev.type == "pot":
            centre, radius = PTABLE.pockets_mm[ev.pocket or ""]
            before = tr.ball_positions(ev.ball or "", np.array([t - 1e-7]))[0]
            assert abs(math.dist(before, centre) - radius) < 0.5, f"{ev.ball} not at {ev.pocket}'s circle"
            assert TABLE.pockets[ev.pocket or ""].depth(tuple(before)) > 0
            assert math.dist(before, ev.pos or (0, 0)) < 0.01
            assert np.isnan(tr.ball_positions(ev.ball or "", np.array([t + 1e-6]))[0]).all()
            end = next(e for e in tr.events if e.type == "shot_end" and e.shot == ev.shot)
            assert ev.ball not in (end.positions or {})
        elif ev.type == "disturbed":
            p = tr.ball_positions(ev.ball or "", np.array([t, t + 0.5 * NUDGE_S, t + NUDGE_S]))
            assert math.dist(p[0], ev.pos or (0, 0)) < 0.01
            assert math.dist(p[1], p[0]) > 5.0 and math.dist(p[2], p[1]) > 5.0  # it slides
            assert not any(e.type == "contact" and abs((e.t or 0) - t) < 1.0 for e in tr.events)
        elif ev.type == "line_cross":
            axis = 0 if TABLE.lines[ev.line or ""].axis == "x" else 1
            v = TABLE.lines[ev.line or ""].value_mm
            p = tr.ball_positions(ev.ball or "", np.array([t - 2e-3, t, t + 2e-3]))
            assert abs(p[1, axis] - v) < 0.01
            sign = 1 if (ev.direction or "+")[0] == "+" else -1
            assert (p[0, axis] - v) * sign < LINE_BAND_MM and (p[2, axis] - v) * sign > -LINE_BAND_MM
            assert (p[2, axis] - p[0, axis]) * sign > 0
    # a ball's crossings of a line within a shot alternate in direction (none is missed between two)
    ways: dict[tuple[object, str, str], list[str]] = {}
    for ev in (e for e in tr.events if e.type == "line_cross"):
        ways.setdefault((ev.shot, ev.ball or "", ev.line or ""), []).append(ev.direction or "")
    assert all(a != b for d in ways.values() for a, b in pairwise(d)), ways


class _OnTheLineAtAnEvent:
    """A ball rolling +y at 178 mm/s across the long line, its motion split in two (another ball's event) just
    as its centre is on the line."""

    def __init__(self) -> None:
        self.histories = {"1": None}
        self.long = TABLE.lines["long"].value_mm

    def moving_intervals(self, ball_id: str) -> list[tuple[float, float]]:
        return [(0.0, 0.5), (0.5, 1.0)]

    def states_at(self, ball_id: str, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = np.asarray(times, dtype=float)
        return np.column_stack([np.full(len(t), 1500.0), self.long - 89.0 + 178.0 * t]), np.zeros(len(t), int)

    def position_at(self, ball_id: str, t: float) -> np.ndarray:
        return self.states_at(ball_id, np.array([t]))[0][0]


def test_a_crossing_at_the_boundary_of_two_motion_intervals_is_found() -> None:
    """The side a ball is on carries from one motion interval to the next: one that ends with the centre on
    the line (the ball's history split by another ball's event) hides no crossing."""
    rec = type("Rec", (), {"sim": _OnTheLineAtAnEvent(), "t0": 2.0, "index": 0})()
    found = line_crossings(rec, TABLE, TruthSettings())
    assert [(e.ball, e.line, e.direction) for e in found] == [("1", "long", "+y")]
    assert abs((found[0].t or 0) - 2.5) < 1e-6


@pytest.mark.parametrize("name", ["pot-middle-left", "kiss", "safety-center-line", "lag"])
def test_written_files_match_the_continuous_truth(compiled: None, name: str, tmp_path) -> None:
    tr = truth_of(name)
    fps = 30.0
    tr.write(tmp_path, fps)
    events = read_jsonl(tmp_path / "truth" / "events.jsonl")
    assert [e.type for e in events] == [e.type for e in tr.events]
    assert all(e.frame == round((e.t or 0) * fps) for e in events)
    with open(tmp_path / "truth" / "tracks.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and set(rows[0]) == {"frame", "t", "ball", "x", "y", "visible"}
    n_frames = tr.frame_count(fps)
    assert max(int(r["frame"]) for r in rows) == n_frames - 1
    for r in rows[:: max(len(rows) // 200, 1)]:
        p = tr.ball_positions(r["ball"], np.array([float(r["t"])]))[0]
        assert math.dist(p, (float(r["x"]), float(r["y"]))) < 0.01
    # Line crossings fall between the frames whose track rows are on either side of the line.
    for ev in (e for e in events if e.type == "line_cross"):
        axis = 0 if TABLE.lines[ev.line or ""].axis == "x" else 1
        v = TABLE.lines[ev.line or ""].value_mm
        f0 = math.floor((ev.t or 0) * fps)
        track = {(int(r["frame"]), r["ball"]): (float(r["x"]), float(r["y"])) for r in rows if r["ball"] == ev.ball}
        a, b = track.get((f0, ev.ball or "")), track.get((f0 + 1, ev.ball or ""))
        if a and b:
            assert (a[axis] - v) * (b[axis] - v) <= 0


def _contacts_without_parting(tr: Truth) -> list[tuple[str, str, float, float]]:
    """Pairs with two contact events between which the balls never came apart (centres within a diameter +
    ``contact_tol_mm``, sampled every millisecond): one touch counted twice."""
    tol, D = TruthSettings().contact_tol_mm, TABLE.ball_diameter_mm
    last: dict[frozenset[str], float] = {}
    out = []
    for ev in (e for e in tr.events if e.type == "contact"):
        a, b = ev.balls or ("", "")
        key, t = frozenset((a, b)), float(ev.t or 0.0)
        if key in last:
            ts = np.arange(last[key], t, 0.001)
            gap = np.linalg.norm(tr.ball_positions(a, ts) - tr.ball_positions(b, ts), axis=1) - D
            if not np.nanmax(gap, initial=-np.inf) > tol:
                out.append((a, b, last[key], t))
        last[key] = t
    return out


def test_a_push_is_one_contact(compiled: None) -> None:
    """cluster-hit seed 2: the cue ball strikes ball 1 (which hits 2) at 1.18 s and runs on pressed against it,
    the physics logging a touch every few milliseconds for 0.1 s. It is one contact until the two part, as a
    referee counts it; the next cue-1 contact is the one at 2.80 s, after they have parted."""
    tr = truth_of("cluster-hit", 2)
    cue_1 = [round(e.t or 0.0, 2) for e in tr.events if e.type == "contact" and set(e.balls or ()) == {"cue", "1"}]
    assert cue_1 == [1.18, 2.8]
    assert _contacts_without_parting(tr) == []


@pytest.mark.parametrize("name", _params())
def test_a_pair_touches_anew_only_after_parting(compiled: None, name: str) -> None:
    assert _contacts_without_parting(truth_of(name)) == []


def _cushions_without_leaving(tr: Truth) -> list[tuple[str, str, float]]:
    """Cushion events of a ball that never came off that cushion since its last touch of it, or since the stroke
    for a ball frozen to it then (centre within a radius + ``contact_tol_mm`` of it, sampled every millisecond;
    frozen: within a radius + ``frozen_tol_mm``): one touch counted twice, or a frozen ball's own cushion."""
    st, R = TruthSettings(), TABLE.ball_radius_mm
    last: dict[tuple[str, str], float] = {}
    out = []
    for ev in tr.events:
        if ev.type == "shot_start":
            last = {
                (b, name): float(ev.t or 0.0)
                for b, p in (ev.positions or {}).items()
                for name in {*TABLE.cushions, *(f"jaw:{k}" for k in TABLE.pockets)}
                if PTABLE.distance_to_cushion(name, np.array(p)) - R <= st.frozen_tol_mm
            }
        if ev.type != "cushion":
            continue
        key, t = (ev.ball or "", ev.cushion or ""), float(ev.t or 0.0)
        if key in last:
            ts = np.arange(last[key], t, 0.001)
            gap = PTABLE.distances_to_cushion(key[1], tr.ball_positions(key[0], ts)) - R
            if not np.nanmax(gap, initial=-np.inf) > st.contact_tol_mm:
                out.append((*key, t))
        last[key] = t
    return out


def test_a_ball_frozen_to_a_cushion_touches_it_only_once_it_has_left_it(compiled: None) -> None:
    """frozen-cushion-roll seed 0: the cue ball, frozen to the left cushion (0.3 mm off it), is struck along it
    and hits ball 1, frozen to the same cushion, which rolls on along it. The physics logs each touching the
    cushion a few tens of milliseconds into its roll; neither has left it, so neither is a touch (RULES-DIGEST:
    a frozen ball's touches of its own cushion do not count until it has moved away). Ball 1's touches of the
    pocket's jaws and of the pyramid cushion past it are."""
    tr = truth_of("frozen-cushion-roll", 0)
    touches = [(e.ball, e.cushion) for e in tr.events if e.type == "cushion"]
    assert ("cue", "left-pyramid") not in touches and ("1", "left-pyramid") not in touches
    assert touches == [("1", "jaw:pyramid-left"), ("1", "jaw:pyramid-left"), ("1", "pyramid")]
    assert _cushions_without_leaving(tr) == []


@pytest.mark.parametrize("name", _params())
def test_a_ball_touches_a_cushion_anew_only_after_leaving_it(compiled: None, name: str) -> None:
    assert _cushions_without_leaving(truth_of(name)) == []


def test_pots_cover_every_pocket(compiled: None) -> None:
    pockets = {e.pocket for n in library.names() if n.startswith("pot-") for e in truth_of(n).events if e.type == "pot"}
    assert pockets == set(TABLE.pockets)


def test_scenarios_are_reproducible(compiled: None) -> None:
    a = library.build("random", 3, TABLE, PTABLE)
    b = library.build("random", 3, TABLE, PTABLE)
    assert a == b
    assert library.build("random", 4, TABLE, PTABLE) != a


def test_named_outcomes(compiled: None) -> None:
    kiss = truth_of("kiss")
    assert any(e.type == "pot" and e.ball == "cue" for e in kiss.events)
    nob = truth_of("no-ball")
    assert not any(e.type == "contact" for e in nob.events)
    cf = truth_of("cushion-first")
    first = next(e for e in cf.events if e.type in ("contact", "cushion"))
    assert first.type == "cushion" and first.ball == "cue"
    mouth = truth_of("stop-in-mouth")
    end = mouth.events[-1].positions or {}
    assert TABLE.in_pocket_mouth(end["1"]) is not None
    lag = truth_of("lag")
    start = lag.events[0]
    assert set(start.positions or {}) == {"1", "2"}
    cl = truth_of("cluster-random")
    assert cl.scenario.game == "cluster" and "cue" not in cl.ball_ids


def test_overlapping_layout_is_refused(compiled: None) -> None:
    sc = Scenario("bad", "moscow", {"cue": (1000.0, 800.0), "1": (1030.0, 800.0)}, (ShotPlan(Stroke("cue", 0, 2)),))
    with pytest.raises(ValueError, match="overlap"):
        run_scenario(sc, TABLE, PTABLE)


def test_glitches_are_detected(compiled: None) -> None:
    tr = truth_of("pot-house-left")
    sim = tr.shots[0].sim
    check_shot(sim, TABLE, PTABLE, library_settings(), 0)  # the real shot passes
    # A ball that passes through a cushion (moved off the table mid-shot) is a glitch.
    bad = sim.histories["cue"]
    saved, saved_s = bad.rvw.copy(), bad.s.copy()
    try:
        bad.rvw[1:, 0, 0] = -0.2  # pooltool x across the table: 200 mm beyond the left cushion
        with pytest.raises(PhysicsGlitch, match="left the table"):
            check_shot(sim, TABLE, PTABLE, library_settings(), 0)
        # Two balls inside each other: a missed collision.
        bad.rvw[:] = saved
        other = sim.histories["1"]
        bad.rvw[1:, 0, :2] = other.rvw[1:, 0, :2]
        bad.s[1:] = 0
        other_s = other.s.copy()
        other.s[1:] = 0
        with pytest.raises(PhysicsGlitch, match="overlap"):
            check_shot(sim, TABLE, PTABLE, library_settings(), 0)
        other.s[:] = other_s
    finally:
        bad.rvw[:] = saved
        bad.s[:] = saved_s
    truth_of.cache_clear()


def library_settings():
    from models.synth.truth import TruthSettings

    return TruthSettings()


def test_unknown_scenario_is_a_clear_error() -> None:
    with pytest.raises(library.ScenarioError, match="unknown scenario"):
        library.build("nope", 0)


@pytest.mark.slow
def test_other_ball_sizes(compiled: None) -> None:
    small = TableModel(TableSpec(ball_diameter_mm=60.0, corner_mouth_mm=65.0, middle_mouth_mm=74.0))
    pt_small = PhysicsTable(small)
    assert pt_small.radius_m == pytest.approx(0.030)
    assert pt_small.ball_mass_kg == pytest.approx(0.285 * (60 / 68) ** 3)
    tr = run_scenario(library.build("pot-pyramid-right", 1, small, pt_small), small, pt_small)
    contacts = [e for e in tr.events if e.type == "contact"]
    assert contacts
    for ev in contacts:
        a, b = ev.balls or ()
        t = np.array([ev.t or 0.0])
        assert abs(math.dist(tr.ball_positions(a, t)[0], tr.ball_positions(b, t)[0]) - 60.0) <= 0.5
    assert any(e.type == "pot" and e.pocket == "pyramid-right" for e in tr.events)


def test_cluster_truth_is_refereed(compiled: None, tmp_path, capsys) -> None:
    from api.cli import main

    tr = truth_of("cluster-pot")
    tr.write(tmp_path, 30.0)
    assert main(["referee", "--game", "cluster", str(tmp_path / "truth" / "events.jsonl")]) == 0
    verdicts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [v["shot"] for v in verdicts] == [0]


@pytest.mark.slow
def test_frame_opening_truth_carries_frame_start(compiled: None, tmp_path, capsys) -> None:
    from api.cli import main

    tr = truth_of("break")
    tr.write(tmp_path, 30.0)
    inputs = read_jsonl(tmp_path / "truth" / "inputs.jsonl")
    assert [(e.type, e.game, e.breaker, e.shot) for e in inputs] == [("frame_start", "moscow", "A", 0)]
    stream = tmp_path / "stream.jsonl"
    stream.write_text(
        (tmp_path / "truth" / "inputs.jsonl").read_text() + (tmp_path / "truth" / "events.jsonl").read_text()
    )
    assert main(["referee", "--game", "moscow", str(stream)]) == 0
    assert [json.loads(line)["shot"] for line in capsys.readouterr().out.splitlines()] == [0]
    truth_of("pot-house-left").write(tmp_path / "pot", 30.0)
    assert not (tmp_path / "pot" / "truth" / "inputs.jsonl").exists()
