"""Run a scenario through the physics and turn it into checked ground truth in our frame.

``run_scenario`` simulates every stroke, lays the shots on one video timeline (lead-in, stroke, motion,
pause with balls placed, next stroke, ..., tail), converts pooltool's events to CONTRACT.md events and
checks the physics before anything is written:

- no two balls overlap by more than ``overlap_tol_mm`` anywhere on the continuous trajectories (sampled
  every millisecond), which catches collisions pooltool missed;
- no ball centre leaves the playing field (one radius in from the cushion noses) except into a pocket
  mouth, which catches balls slipping through cushion geometry;
- every contact has the two centres one diameter apart and every cushion event has the centre one
  radius from the physics cushion surface, both within ``contact_tol_mm``;
- no ball touches two different cushions within ``corner_window_s`` (pooltool's weak spot: a corner hit
  resolved in an arbitrary order) and no shot runs away (too many events).

A shot that fails raises ``PhysicsGlitch``; the scenario is rejected, never written with an unchecked
truth. pooltool cannot make a ball jump, so ``off_table`` is never produced: a ball leaving the table
other than into a pocket is a glitch.

Merging: the physics may report the same pair of balls (or a ball and the same named cushion) touching
several times within a few milliseconds (frozen balls, rattling jaws); a run of touches, each within
``merge_window_s`` of the one before, is one event, at the first touch. Two balls that stay together (a
frozen pair, one ball pushing another) touch again and again for as long as they do; a pair's touch is a new
contact only once the two have parted, their centres more than ``contact_tol_mm`` over a diameter apart
since its last touch. Likewise a ball rolling along a cushion touches it again and again: a touch of a cushion
(or of a pocket's jaws) is new only once the ball has left it, its centre more than ``contact_tol_mm`` over a
radius from it; and a ball frozen to a cushion at the stroke (within ``frozen_tol_mm``) is touching it already
(RULES-DIGEST: a frozen ball's touches of its own cushion do not count until it has moved away).
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

import numpy as np

from calibration.contract import Event, write_jsonl
from calibration.table import TableModel
from models.synth.engine import POCKETED, SimulatedShot, SimulationFailed, simulate_stroke
from models.synth.physics import POCKET_NAMES, PhysicsTable, cushion_name
from models.synth.scenario import NUDGE_LEAD_S, NUDGE_S, Point, Scenario

LineName = Literal["house", "center", "long"]
Direction = Literal["+x", "-x", "+y", "-y"]
LINE_AXES: tuple[tuple[LineName, int], ...] = (("house", 0), ("center", 0), ("long", 1))
LINE_BAND_MM = 0.05  # a centre this close to a line is on it, on neither side


class PhysicsGlitch(ValueError):
    """The physics misbehaved in this scenario; it cannot be used as truth."""


@dataclass(frozen=True)
class TruthSettings:
    overlap_tol_mm: float = 0.5
    contact_tol_mm: float = 0.5
    frozen_tol_mm: float = 1.0  # RULES-DIGEST "Frozen": epsilon_f
    merge_window_s: float = 0.010
    corner_window_s: float = 0.0005
    check_step_s: float = 0.001
    line_step_s: float = 0.002


@dataclass
class ShotRecord:
    index: int
    t0: float  # video time of the stroke (pooltool t = 0)
    placed_at: float  # video time the balls in ``place`` appear
    place: dict[str, Point]
    sim: SimulatedShot
    nudged_from: dict[str, Point] = field(default_factory=dict)  # where nudged balls rested before

    @property
    def nudge_start(self) -> float:
        return self.t0 - NUDGE_LEAD_S

    @property
    def end(self) -> float:
        return self.t0 + self.sim.duration


@dataclass
class Truth:
    scenario: Scenario
    table: TableModel
    ptable: PhysicsTable
    shots: list[ShotRecord]
    events: list[Event] = field(default_factory=list)
    duration_s: float = 0.0

    @property
    def ball_ids(self) -> list[str]:
        ids: set[str] = set(self.scenario.layout)
        for s in self.shots:
            ids |= set(s.place)
        return sorted(ids, key=ball_sort_key)

    def ball_positions(self, ball_id: str, times: np.ndarray) -> np.ndarray:
        """Centre (mm) of one ball at video times (N x 2), NaN where it is not on the table."""
        times = np.asarray(times, dtype=np.float64)
        out = np.full((len(times), 2), np.nan)
        rest = dict(self.scenario.layout)  # positions at rest before the current shot
        prev_end = -math.inf
        prev_final: dict[str, Point] = dict(rest)
        for k, shot in enumerate(self.shots):
            # Before the stroke: the previous shot's final positions, then the placed balls.
            pre_place = prev_final
            after_place = dict(prev_final)
            after_place.update(shot.place)
            if k == 0:
                pre_place = after_place
            for lo, hi, where in ((prev_end, shot.placed_at, pre_place), (shot.placed_at, shot.t0, after_place)):
                sel = (times >= lo) & (times < hi)
                if sel.any() and ball_id in where:
                    out[sel] = where[ball_id]
            if ball_id in shot.nudged_from:
                # A nudged ball slides from where it rested to where the stroke finds it (smoothstep).
                a, b = np.asarray(shot.nudged_from[ball_id]), np.asarray(shot.sim.start[ball_id])
                sel = (times >= shot.nudge_start) & (times < shot.t0)
                f = np.clip((times[sel] - shot.nudge_start) / NUDGE_S, 0.0, 1.0)
                f = f * f * (3 - 2 * f)
                out[sel] = a + f[:, None] * (b - a)
            nxt = self.shots[k + 1].placed_at if k + 1 < len(self.shots) else math.inf
            sel = (times >= shot.t0) & (times < nxt)
            if sel.any() and ball_id in shot.sim.histories:
                local = np.clip(times[sel] - shot.t0, 0.0, shot.sim.duration)
                out[sel] = shot.sim.states_at(ball_id, local)[0]
            prev_end = nxt
            prev_final = shot.sim.final_positions()
            rest = prev_final
        return out

    def positions_at(self, t: float) -> dict[str, tuple[float, float]]:
        out = {}
        for bid in self.ball_ids:
            p = self.ball_positions(bid, np.array([t]))[0]
            if np.all(np.isfinite(p)):
                out[bid] = (float(p[0]), float(p[1]))
        return out

    # ---- files ------------------------------------------------------------------------------------
    def frame_count(self, fps: float) -> int:
        return math.floor(self.duration_s * fps) + 1

    def tracks(self, fps: float) -> list[tuple[int, float, str, float, float]]:
        n = self.frame_count(fps)
        times = np.arange(n) / fps
        per_ball = {bid: self.ball_positions(bid, times) for bid in self.ball_ids}
        rows = []
        for f in range(n):
            for bid in self.ball_ids:
                x, y = per_ball[bid][f]
                if math.isfinite(x):
                    rows.append((f, float(times[f]), bid, float(x), float(y)))
        return rows

    def write(self, out_dir: str | Path, fps: float) -> None:
        """``truth/events.jsonl`` and ``truth/tracks.csv`` for a video at ``fps``."""
        d = Path(out_dir) / "truth"
        d.mkdir(parents=True, exist_ok=True)
        write_jsonl(d / "events.jsonl", with_frames(self.events, fps))
        with open(d / "tracks.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["frame", "t", "ball", "x", "y", "visible"])
            for fr, t, bid, x, y in self.tracks(fps):
                w.writerow([fr, f"{t:.6f}", bid, f"{x:.3f}", f"{y:.3f}", 1])
        if self.scenario.frame_start:
            # The operator input that opens the frame, so `tableref referee` can be run on the truth:
            # cat truth/inputs.jsonl truth/events.jsonl | tableref referee --game GAME -
            start = Event(type="frame_start", shot=0, game=self.scenario.game, breaker="A")
            write_jsonl(d / "inputs.jsonl", [start])
        meta = {
            "scenario": self.scenario.name,
            "seed": self.scenario.seed,
            "game": self.scenario.game,
            "description": self.scenario.description,
            "duration_s": self.duration_s,
            "fps": fps,
            "shots": len(self.shots),
        }
        (d / "scenario.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def ball_sort_key(bid: str) -> tuple[int, int, str]:
    if bid == "cue":
        return (0, 0, bid)
    if bid.isdigit():
        return (1, int(bid), bid)
    return (2, 0, bid)


def with_frames(events: list[Event], fps: float) -> list[Event]:
    return [ev.model_copy(update={"frame": round((ev.t or 0.0) * fps)}) for ev in events]


# ---- running a scenario ---------------------------------------------------------------------------
def run_scenario(
    scenario: Scenario,
    table: TableModel | None = None,
    ptable: PhysicsTable | None = None,
    settings: TruthSettings | None = None,
) -> Truth:
    """Simulate, check and convert a scenario. Raises ``PhysicsGlitch`` when the physics cannot be trusted."""
    table = table or TableModel()
    ptable = ptable or PhysicsTable(table)
    settings = settings or TruthSettings()
    positions = dict(scenario.layout)
    records: list[ShotRecord] = []
    t = scenario.lead_in_s
    for k, plan in enumerate(scenario.shots):
        if k > 0:
            t += scenario.gap_s
        positions.update(plan.place)
        nudged_from = {b: positions[b] for b in plan.nudge}
        for b, (dx, dy) in plan.nudge.items():
            positions[b] = (positions[b][0] + dx, positions[b][1] + dy)
        _check_layout(table, positions)
        if plan.nudge and (
            (scenario.lead_in_s if k == 0 else scenario.gap_s) < NUDGE_LEAD_S or set(plan.nudge) & set(plan.place)
        ):
            raise ValueError("a nudge needs balls at rest (not just placed) for NUDGE_LEAD_S before the stroke")
        try:
            sim = simulate_stroke(ptable, positions, plan.stroke, plan.also)
        except SimulationFailed as exc:
            raise PhysicsGlitch(f"shot {k}: {exc}") from None
        placed_at = t - scenario.gap_s / 2 if k > 0 else 0.0
        records.append(ShotRecord(k, t, placed_at, dict(plan.place), sim, nudged_from))
        check_shot(sim, table, ptable, settings, k)
        t += sim.duration
        positions = sim.final_positions()
    truth = Truth(scenario, table, ptable, records)
    truth.duration_s = t + scenario.tail_s
    events: list[Event] = []
    for rec in records:
        events.extend(shot_events(rec, table, settings))
    order = {"shot_start": 0, "shot_end": 2}
    events.sort(key=lambda e: ((e.t or 0.0), order.get(e.type, 1)))
    truth.events = events
    return truth


def _check_layout(table: TableModel, positions: dict[str, Point]) -> None:
    pts = list(positions.items())
    D, R = table.ball_diameter_mm, table.ball_radius_mm
    for i, (a, p) in enumerate(pts):
        if not (R - 1e-6 <= p[0] <= table.length_mm - R + 1e-6 and R - 1e-6 <= p[1] <= table.width_mm - R + 1e-6):
            raise ValueError(f"ball {a} at {p} is not on the playing field")
        for b, q in pts[i + 1 :]:
            if math.dist(p, q) < D - 1e-6:
                raise ValueError(f"balls {a} and {b} overlap in the layout")


def check_shot(sim: SimulatedShot, table: TableModel, ptable: PhysicsTable, st: TruthSettings, k: int) -> None:
    """Raise ``PhysicsGlitch`` where the simulated shot cannot be trusted (see the module docstring)."""
    if sim.runaway:
        raise PhysicsGlitch(f"shot {k}: the simulation ran away (too many events)")
    D, R = table.ball_diameter_mm, table.ball_radius_mm
    L, W = table.length_mm, table.width_mm
    ids = list(sim.histories)
    times = np.append(np.arange(0.0, sim.duration, st.check_step_s), sim.duration)
    P = np.stack([sim.states_at(b, times)[0] for b in ids], axis=1)  # (T, N, 2)
    # Escapes: a centre outside the field (less a radius) and not within a pocket mouth's reach.
    mouths = np.array([pk.mouth_center for pk in table.pockets.values()])
    tol = st.overlap_tol_mm
    out = (P[..., 0] < R - tol) | (P[..., 0] > L - R + tol) | (P[..., 1] < R - tol) | (P[..., 1] > W - R + tol)
    if out.any():
        ti, bi = np.nonzero(out)
        for a, b in zip(ti, bi, strict=True):
            p = P[a, b]
            if np.min(np.linalg.norm(mouths - p, axis=1)) > 1.5 * D:
                raise PhysicsGlitch(f"shot {k}: ball {ids[b]} left the table at {p.round(1).tolist()} t={times[a]:.3f}")
    # Overlaps between any two balls on the table.
    for i in range(len(ids)):
        d = np.linalg.norm(P[:, i + 1 :, :] - P[:, i : i + 1, :], axis=2)
        d = np.where(np.isnan(d), np.inf, d)
        if d.size and d.min() < D - tol:
            at, jj = np.unravel_index(np.argmin(d), d.shape)
            worst = D - float(d.min())
            raise PhysicsGlitch(
                f"shot {k}: balls {ids[i]} and {ids[i + 1 + int(jj)]} overlap by {worst:.2f} mm at t={times[at]:.4f}"
            )
    # Teleports: pooltool snaps colliding balls to touching; a snap of more than the tolerance means it
    # found the collision at the wrong time, and the trajectory jumps.
    from pooltool.physics.evolve import evolve_ball_motion

    for bid, h in sim.histories.items():
        R_m, m, u_s, u_sp, u_r, g = h.params
        for q in range(1, len(h.t)):
            if int(h.s[q - 1]) == POCKETED or int(h.s[q]) == POCKETED:
                continue
            rvw, _ = evolve_ball_motion(int(h.s[q - 1]), h.rvw[q - 1], R_m, m, u_s, u_sp, u_r, g, h.t[q] - h.t[q - 1])
            jump = float(np.hypot(*(rvw[0, :2] - h.rvw[q, 0, :2]))) * 1000.0
            if jump > st.overlap_tol_mm:
                raise PhysicsGlitch(f"shot {k}: ball {bid} jumps {jump:.2f} mm at t={h.t[q]:.4f} (mistimed collision)")
    last_cushion: dict[str, tuple[float, str]] = {}
    for ev in sim.events:
        kind = str(ev.event_type)
        if kind == "ball_ball":
            a, b = ev.ids
            pa, pb = sim.position_at(a, ev.time), sim.position_at(b, ev.time)
            gap = float(np.linalg.norm(pa - pb)) - D
            if abs(gap) > st.contact_tol_mm:
                raise PhysicsGlitch(f"shot {k}: contact {a}-{b} at t={ev.time:.4f} with centres {gap:+.2f} mm off")
        elif kind in ("ball_linear_cushion", "ball_circular_cushion"):
            bid, seg = ev.ids
            p = sim.position_at(bid, ev.time)
            off = ptable.distance_to_segment(seg, p) - R
            if abs(off) > st.contact_tol_mm:
                raise PhysicsGlitch(f"shot {k}: cushion {seg} touch of {bid} is {off:+.2f} mm off the surface")
            name = cushion_name(seg)
            prev = last_cushion.get(bid)
            if prev and prev[1] != name and ev.time - prev[0] < st.corner_window_s:
                raise PhysicsGlitch(f"shot {k}: ball {bid} touched {prev[1]} and {name} within {st.corner_window_s}s")
            last_cushion[bid] = (ev.time, name)


def shot_events(rec: ShotRecord, table: TableModel, st: TruthSettings) -> list[Event]:
    """CONTRACT events of one shot, in video time."""
    sim, t0, k = rec.sim, rec.t0, rec.index
    out: list[Event] = [
        Event(type="shot_start", t=t0, shot=k, ball=sim.stroke.ball, positions=_rounded(sim.start)),
    ]
    seen_contacts: dict[tuple[str, str], float] = {}
    # A ball frozen to a cushion at the stroke is touching it already (RULES-DIGEST: ignore a frozen ball's
    # touches of its own cushion until it has moved away)
    seen_cushions: dict[tuple[str, str], float] = {
        (bid, name): 0.0 for bid, name in _frozen_to_cushions(sim, st) if bid in sim.histories
    }
    for ev in sim.events:
        kind = str(ev.event_type)
        t = t0 + float(ev.time)
        if kind == "ball_ball":
            a, b = ev.ids
            key = (min(a, b), max(a, b))
            last = seen_contacts.get(key)
            seen_contacts[key] = ev.time
            if last is not None and (ev.time - last < st.merge_window_s or not _parted(sim, a, b, last, ev.time, st)):
                continue
            va = float(np.linalg.norm(ev.agents[0].initial.state.rvw[1][:2]))
            vb = float(np.linalg.norm(ev.agents[1].initial.state.rvw[1][:2]))
            if vb > va:
                a, b = b, a
            pa, pb = sim.position_at(a, ev.time), sim.position_at(b, ev.time)
            mid = (pa + pb) / 2
            out.append(Event(type="contact", t=t, shot=k, balls=(a, b), pos=_pt(mid)))
        elif kind in ("ball_linear_cushion", "ball_circular_cushion"):
            bid, seg = ev.ids
            name = cushion_name(seg)
            key = (bid, name)
            last = seen_cushions.get(key)
            seen_cushions[key] = ev.time
            if last is not None and (
                ev.time - last < st.merge_window_s or not _left_cushion(sim, bid, name, last, ev.time, st)
            ):
                continue
            out.append(
                Event(type="cushion", t=t, shot=k, ball=bid, cushion=name, pos=_pt(sim.position_at(bid, ev.time)))
            )
        elif kind == "ball_pocket":
            bid, pid = ev.ids
            p = ev.agents[0].initial.state.rvw[0][:2]
            pos = (round(float(p[1]) * 1000.0, 3), round(float(p[0]) * 1000.0, 3))
            out.append(Event(type="pot", t=t, shot=k, ball=bid, pocket=POCKET_NAMES[pid], pos=pos))
    for bid, p in rec.nudged_from.items():
        # Before the stroke: outside any shot (CONTRACT.md section 3).
        out.append(
            Event(type="disturbed", t=rec.nudge_start, shot=None, ball=bid, pos=(round(p[0], 3), round(p[1], 3)))
        )
    out.extend(line_crossings(rec, table, st))
    out.append(Event(type="shot_end", t=t0 + sim.duration, shot=k, positions=_rounded(sim.final_positions())))
    return out


def _parted(sim: SimulatedShot, a: str, b: str, t0: float, t1: float, st: TruthSettings) -> bool:
    """Whether balls ``a`` and ``b`` came apart (centres over a diameter + ``contact_tol_mm``) between two of
    their touches at pooltool times ``t0`` and ``t1`` (sampled every ``check_step_s``)."""
    ts = np.arange(t0, t1, st.check_step_s)
    if not len(ts):
        return False
    gap = (
        np.linalg.norm(sim.states_at(a, ts)[0] - sim.states_at(b, ts)[0], axis=1)
        - 2.0 * sim.ptable.table.ball_radius_mm
    )
    return bool(np.nanmax(gap, initial=-np.inf) > st.contact_tol_mm)


def _left_cushion(sim: SimulatedShot, bid: str, name: str, t0: float, t1: float, st: TruthSettings) -> bool:
    """Whether ball ``bid`` came off cushion ``name`` (its centre more than ``contact_tol_mm`` over a radius from
    it) between two of its touches at pooltool times ``t0`` and ``t1``: a ball rolling along a cushion, frozen
    to it, touches it again and again in the physics, and that is one touch."""
    ts = np.arange(t0, t1, st.check_step_s)
    if not len(ts):
        return False
    gap = sim.ptable.distances_to_cushion(name, sim.states_at(bid, ts)[0]) - sim.ptable.table.ball_radius_mm
    return bool(np.nanmax(gap, initial=-np.inf) > st.contact_tol_mm)


def _frozen_to_cushions(sim: SimulatedShot, st: TruthSettings) -> list[tuple[str, str]]:
    """(ball, cushion) for each ball frozen to a cushion segment or jaw at the stroke: its centre within
    ``frozen_tol_mm`` over a radius of it (RULES-DIGEST: frozen, epsilon_f = 1 mm)."""
    R = sim.ptable.table.ball_radius_mm
    names = sorted({cushion_name(sid) for sid in sim.ptable.segments_mm})
    out: list[tuple[str, str]] = []
    for bid, xy in sim.start.items():
        p = np.array([xy], dtype=np.float64)
        out.extend((bid, n) for n in names if sim.ptable.distances_to_cushion(n, p)[0] - R <= st.frozen_tol_mm)
    return out


def line_crossings(rec: ShotRecord, table: TableModel, st: TruthSettings) -> list[Event]:
    """Exact crossings of the house, centre and long lines by ball centres during one shot.

    A crossing is a change of side; a centre within ``LINE_BAND_MM`` of the line is on it and has no side,
    so a ball that starts on a line (a spot on the long line) and leaves it has not crossed. The side carries
    over from one motion interval of the ball to the next (an interval may end, at another ball's event, with
    this one on the line). The time is found by bisection on the continuous trajectory to below a
    microsecond."""
    sim, out = rec.sim, []
    eps = LINE_BAND_MM
    for bid in sim.histories:
        spans = sim.moving_intervals(bid)
        if not spans:
            continue
        ts = np.unique(np.concatenate([np.append(np.arange(lo, hi, st.line_step_s), hi) for lo, hi in spans]))
        P, _ = sim.states_at(bid, ts)
        for line, axis in LINE_AXES:
            v = table.lines[line].value_mm
            d = P[:, axis] - v
            side = np.where(np.isnan(d), 0, np.where(d > eps, 1, np.where(d < -eps, -1, 0)))
            last_i, last_s = None, 0
            for i, s in enumerate(side):
                if s == 0:
                    continue
                if last_s and s != last_s and last_i is not None:
                    tc = _bisect(sim, bid, axis, v, ts[last_i], ts[i], last_s)
                    direction = cast(Direction, ("+" if s > 0 else "-") + ("x" if axis == 0 else "y"))
                    out.append(
                        Event(
                            type="line_cross", t=rec.t0 + tc, shot=rec.index, ball=bid, line=line, direction=direction
                        )
                    )
                last_i, last_s = i, s
    return out


def _bisect(sim: SimulatedShot, bid: str, axis: int, v: float, a: float, b: float, side_a: int) -> float:
    for _ in range(48):
        m = 0.5 * (a + b)
        d = sim.position_at(bid, m)[axis] - v
        if (d > 0) == (side_a > 0) and abs(d) > 1e-9:
            a = m
        else:
            b = m
    return 0.5 * (a + b)


def _pt(p: np.ndarray) -> tuple[float, float]:
    return (round(float(p[0]), 3), round(float(p[1]), 3))


def _rounded(pos: dict[str, Point]) -> dict[str, tuple[float, float]]:
    return {b: (round(p[0], 3), round(p[1], 3)) for b, p in sorted(pos.items(), key=lambda kv: ball_sort_key(kv[0]))}
