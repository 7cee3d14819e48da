"""Screening the settings: each one switched off in turn over recorded suites, and what that moves.

A setting is "switched off" by the value that makes the rule it bounds never act (``OFF``: a feature's
threshold past anything measured, a tolerance at zero, a second bound equal to the first one it refines).
Each field so switched off replays every suite (its recorded tracker input, ``bench tracking --replay``) and
is compared with the suite's own replay at the defaults: the event F1 of each kind, the events found, and the
scenes whose referee's calls are as on the truth. A switch moves a suite beyond noise when an F1 changes by
more than ``NOISE_F1`` (about one event in 150) or any kind finds fewer events or fewer calls come out as
on the truth; ``same`` means every kind's matches, misses, extras and timing errors are unchanged.

The suites run cheapest first, tuning and held-out in turn; without ``every_suite`` a field stops at the first
suite it moves (it stays, whatever the rest say). Fields with no off value (a scale of the model: the noise,
a window length) are not screened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracking.metrics import Scores
from tracking.tracker_settings import REACQUIRE_RADIUS_MM

if TYPE_CHECKING:
    from api.bench.tracking import SceneResult, SceneRun

NOISE_F1 = 0.003
KINDS = ("pot", "first_contact", "contact", "cushion", "cushion_segment", "line_cross")
BIG = 1e9

# the value that switches each setting's rule off (tracker fields as ``tracker.NAME``)
OFF: dict[str, float] = {
    # segments
    "segments.break_frac": 0.0,  # no break allowance growing with a frame's travel
    "segments.tail_off_mm": BIG,  # an incoming path's last samples never trimmed
    "segments.order_wait_frames": 0,  # no break waits for an earlier one
    "segments.short_path_samples": 0,  # no path too short to stand
    "segments.rest_smooth_s": 0.0,  # a resting ball reported at its nearest samples (the scores see no position)
    "segments.start_min_mm": 0.0,  # any step off its place moves a ball
    # shots
    "shots.slow_start_frames": 0.0,  # a slow ball's start looked for at its last resting sample only
    "shots.push_max_speed_mm_s": 0.0,  # no ball is pushed by hand
    "shots.creep_speedup_mm_s": BIG,  # no creep read as a hit
    "shots.creep_still_mm": 0.0,
    "shots.slow_start_wait_s": 0.0,
    "shots.regone_stop_s": 0.0,
    "shots.touch_max_speed_mm_s": BIG,
    "shots.nudge_back_s": 0.0,
    "shots.shot_end_hold_s": 0.0,  # a shot ends as soon as every ball rests
    "shots.hidden_roll_s": BIG,  # a ball hidden while it rolled keeps its shot open for ever
    "shots.start_speed_mm_s": 0.0,  # every move between shots a shot
    "shots.push_stop_s": 0.0,  # no push
    "shots.creep_back_s": 0.0,  # no creep looked back at
    # contacts
    "contacts.parted_mm": 0.0,  # any gap parts two balls
    "contacts.chain_repeat_s": 0.0,
    "contacts.push_angle_deg": 180.0,  # a frozen neighbour's push leaves any way
    "contacts.unseen_strike_s": 0.0,
    "contacts.kiss_rise_mm": 0.0,  # a kiss needs no approach and parting
    "contacts.kiss_bent_mm": 0.0,
    "contacts.nudge_min_mm": BIG,  # no nudge read
    "contacts.nudge_angle_deg": 180.0,
    "contacts.nudge_run_frames": 0.0,
    "contacts.nudge_fit_s": BIG,
    "contacts.nudge_clear_mm": 0.0,
    "contacts.kiss_tol_mm": 0.0,
    "contacts.nudge_touch_mm": 0.0,
    # cushions
    "cushions.tip_past_mm": 0.0,  # no flat's-end margin before the jaw's tip
    "cushions.hug_mm": -1.0,  # no ball hugs a cushion
    "cushions.hinge_reach": 0,  # a touch's corner at the lowest sample
    "cushions.steep_fall_mm_s": BIG,  # no steep-approach bounce
    "cushions.steep_rise_mm_s": BIG,  # no steep-approach bounce (by its rise)
    "cushions.rest_touch_plateau_mm": 0.0,
    "cushions.jaw_touch_mm": -1.0,  # no touch of a stopping ball
    "cushions.bounce_angle_deg": 180.0,
    "cushions.jaw_gap_mm": -BIG,  # no jaw touch from a potted ball's fitted path
    "cushions.jaw_graze_reach_mm": 0.0,  # no jaw graze looked for
    "cushions.jaw_kink_mm": 0.0,
    "cushions.jaw_exit_frames": BIG,  # no tip-then-face double touch
    "cushions.cushion_tol_mm": 0.0,
    "cushions.graze_tol_mm": 0.0,  # a floor: the pipeline widens it to twice the view's noise
    "cushions.hug_s": 0.0,  # no ball hugs a cushion
    "cushions.bounce_min_mm_s": 0.0,  # any V a bounce
    "cushions.rattle.max_speed_mm_s": 0.0,  # a rattle only from rest sideways
    "cushions.rattle.better_than_straight": 0.0,  # no rattle
    # pots, lines, tracks
    "pots.slow_drop_mm_s": 0.0,
    "pots.pot_depth_fraction": 0.0,  # a ball falls at the mouth line
    "lines.line_margin_mm": 0.0,  # any side of a line
    "lines.line_packed_margin_mm": 0.75,  # from a pack as from motion (line_margin_mm)
    "lines.line_excursion_mm": 0.0,
    "ghost_below": 0.0,  # every track a ball
    # tracker
    "tracker.confirm_hits": 1,  # a ball confirmed at its first detection
    "tracker.tentative_max_misses": 0,  # a new ball dropped at its first miss
    "tracker.pot_confirm_s": 0.0,  # potted as soon as gone in a pocket's path
    "tracker.climb_speed_mm_s": 0.0,  # any ball gone over a rail left the table
    "tracker.coast_s": 0.0,  # a hidden ball held where last seen
    "tracker.cloth_slack_mm": 0.0,  # no detection beyond the cushion noses
    "tracker.tunnel_tol_mm": 0.0,  # a path within a diameter of a still ball went through it
    "tracker.burst_join_frames": 0.0,  # no ball joins a burst after its first frame
    "tracker.burst_last_frames": 3.0,  # one check, at burst_check_frames
    "tracker.rest_vouch_s": BIG,  # nothing vouched for by holding still
    "tracker.warmup_s": 0.0,  # no balls confirmed at once at the start
    "tracker.min_confidence": 0.0,  # no detection ignored
    "tracker.new_track_confidence": 0.25,  # a new ball on any kept detection (min_confidence)
    "tracker.inplay_hidden_s": BIG,  # in play as between shots
    "tracker.moving_reacquire_s": 0.0,  # no hidden moving ball looked for along its path
    "tracker.bounce_sigma_mm_s": 0.0,  # a predicted bounce as sure as the motion before it
    "tracker.hidden_speedup": BIG,  # a hidden rolling ball's reach not bounded by its run
    "tracker.backward_kick": 1.0,  # no step back vetoed
    "tracker.weak_resume_s": 0.0,  # no resume on a weak detection
    "tracker.weak_resume_speed_mm_s": 0.0,
    "tracker.dropped_depth_mm": BIG,  # no detection taken for a dropped ball
    "tracker.colour_cost": 0.0,  # colour adds nothing to a cost
    "tracker.colour_gate_sigma": BIG,  # no colour gate
    "tracker.colour_class_votes": 1000000,  # no ball firmly of a class
    "tracker.colour_kink_sigma": BIG,  # no kink vetoed for its colour
    "tracker.placed_confidence": 0.0,  # a ball placed between shots confirmed whatever its detections
    "tracker.inplay_reacquire_mm": REACQUIRE_RADIUS_MM,  # in play as between shots
    "tracker.blur_adopt_s": 0.0,
    "tracker.burst_min_balls": 1000,  # no burst's ids checked
}


@dataclass(frozen=True)
class SuiteFigures:
    f1: dict[str, float]
    found: dict[str, int]
    calls: int  # scenes whose referee's calls are as on the truth
    print_: tuple[Any, ...]  # every kind's matches, misses, extras and timing errors

    @staticmethod
    def of(results: list[SceneResult]) -> SuiteFigures:
        from api.bench.tracking import merge_scores

        s = Scores()
        for r in results:
            merge_scores(s, r.scores)
        ev = s.events
        return SuiteFigures(
            {k: ev[k].f1 for k in KINDS},
            {k: ev[k].tp for k in KINDS},
            sum(r.verdicts is None for r in results),
            tuple((k, t.tp, t.fp, t.fn, tuple(round(x, 9) for x in t.dt)) for k, t in sorted(ev.items())),
        )

    def change(self, base: SuiteFigures) -> tuple[bool, str]:
        """Whether these figures moved from ``base`` beyond noise, and the change in words."""
        if self.print_ == base.print_ and self.calls == base.calls:
            return False, "same"
        d = {k: self.f1[k] - base.f1[k] for k in KINDS}
        fewer = [k for k in KINDS if self.found[k] < base.found[k]]
        moved = any(abs(v) > NOISE_F1 for v in d.values()) or bool(fewer) or self.calls < base.calls
        words = " ".join(f"{k} {v:+.4f}" for k, v in d.items() if v) or "F1 same (timing moved)"
        if self.calls != base.calls:
            words += f"; calls {self.calls - base.calls:+d}"
        return moved, ("MOVED " if moved else "noise ") + words


def _order(tuning: list[Path], held: list[Path]) -> list[tuple[str, Path]]:
    """Tuning and held-out suites in turn, cheapest (fewest recorded frames) first."""
    pairs = [("tuning", p) for p in tuning] + [("held-out", p) for p in held]
    return sorted(pairs, key=lambda x: sum(f.stat().st_size for f in x[1].glob("*/tracker-input.npz")))


def screen(names: str, tuning: list[Path], held: list[Path], run: SceneRun, every_suite: bool = False) -> int:
    """Each named field (``all``: every field in ``OFF``) switched off over the suites, or set to a value
    (``NAME=VALUE``: the setting halved or doubled); prints a line per trial and suite, then the trials that
    moved nothing."""
    from dataclasses import replace

    from api.bench.tracking import run_suite

    picked = list(OFF) if names.strip() == "all" else [n.strip() for n in names.split(",") if n.strip()]
    trials = [_trial(n) for n in picked]
    suites = _order(tuning, held)
    quiet = _silent(run_suite)
    base = {p: SuiteFigures.of(quiet(p, run)) for _, p in suites}
    for role, p in suites:
        b = base[p]
        f1 = " ".join(f"{k} {b.f1[k]:.4f}" for k in KINDS)
        print(f"{p.name} ({role}) at the defaults: {f1}; calls {b.calls}")
    still: list[str] = []
    for name, value in trials:
        over = (*run.overrides, f"{name}={value}")
        moved_any = False
        for role, p in suites:
            try:
                moved, words = SuiteFigures.of(quiet(p, replace(run, overrides=over))).change(base[p])
            except (ArithmeticError, IndexError, ValueError) as e:  # the value breaks the code it feeds
                moved, words = True, f"FAILED {type(e).__name__}: {e}"
            print(f"{name}={value} {p.name} ({role}): {words}", flush=True)
            moved_any |= moved
            if moved and not every_suite:
                break
        if not moved_any:
            still.append(f"{name}={value}")
    print(f"moved no suite beyond noise: {', '.join(still) or 'none'}")
    return 0


def _trial(item: str) -> tuple[str, str]:
    """A field and the value it is tried at: ``NAME=VALUE`` as given (a setting moved, not switched off), or a
    bare ``NAME`` at its off value."""
    name, sep, value = item.partition("=")
    if sep:
        return name.strip(), value.strip()
    if name not in OFF:
        raise ValueError(f"--screen: no off value for {name} (known: {', '.join(OFF)}); give NAME=VALUE")
    off = OFF[name]
    return name, f"{off:g}" if isinstance(off, float) else str(off)


def _silent(run_suite: Any) -> Any:
    import contextlib
    import io

    def quiet(p: Path, run: SceneRun) -> list[SceneResult]:
        with contextlib.redirect_stdout(io.StringIO()):
            return list(run_suite(p, run))

    return quiet
