"""The event detectors' settings: one frozen record per detector, nested in ``ExtractorSettings``.

Each field says what it means physically and what moving it costs. ``with_values`` makes a copy with some
fields changed, by name (``kiss_tol_mm``, a name found in exactly one detector's record) or by dotted path
(``contacts.kiss_tol_mm``), as ``tableref bench tracking --set NAME=VALUE`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any

from tracking.rattle import RattleSettings
from tracking.tracker_settings import FROZEN_TOL_MM


@dataclass(frozen=True)
class SegmentSettings:
    """Cutting each ball's samples into resting and moving segments (``tracking.detect.segments``)."""

    # a sample this far (plus break_frac of a frame's travel, plus three times the fit's own scatter) off the
    # path fitted to the samples before it breaks the path (twice in a row: a kink). Smaller: noise splits
    # straight paths into spurious kinks; larger: kinks of a few millimetres (a kiss, a graze) go unbroken
    break_mm: float = 5.0
    break_frac: float = 0.06
    # samples in a local path fit (a third of a second at 30 fps, a sixth at 60): more averages noise but blurs
    # a bend (a touch a few frames before) into the fit; fewer lets the noise bend the fit, so kinks and
    # cushion touches are found and timed off the noise
    window: int = 10
    # samples of the outgoing path before a kink or a start is explained: fewer times it on a shakier path,
    # more delays every decision
    new_path_samples: int = 4
    # an incoming path's last samples this far off the path of the ones before them came after the bounce and
    # are left out of its timing. Smaller: noise trims good samples; larger: touches timed late
    tail_off_mm: float = 3.0
    # a resting ball's reported position averages its detections this far either side: longer smooths more,
    # but follows a creeping ball (settling in a pocket mouth) less closely
    rest_smooth_s: float = 0.5
    # a break waits up to this many frames for one first seen no later that is not ready yet: causes come
    # before their effects (a rack's back ball, seen off in the frame of the break, waits for the struck ball).
    # Fewer: effects explained before their causes; more: every decision later
    order_wait_frames: int = 6
    # a path this short between two unexplained kinks is a stray measurement (the blurred frame of a fast
    # bounce), explained as one bounce from the paths either side. More: a real short run between two touches
    # (a ball between two close balls) merged into one bounce
    short_path_samples: int = 2
    # a resting ball must get this far from its place to have moved (detection jitter stays within it): larger
    # misses slow starts, smaller reads a blurred, half-hidden ball's jitter as a start (at 0 a hand's slow push
    # between shots starts a shot, and a ball seen seldom at its place is taken for an unseen striker:
    # test_tracking_events.py::test_slow_push_between_shots_is_disturbed_not_a_shot and
    # ::test_a_ball_seen_seldom_at_its_place_is_not_the_unseen_striker)
    start_min_mm: float = 10.0


@dataclass(frozen=True)
class ShotSettings:
    """Shot start and end, and balls set off with nothing seen to set them off (``tracking.detect.shots``)."""

    shot_end_hold_s: float = 0.25  # every ball at rest this long ends the shot: shorter may cut a slow creep off
    # a ball hidden while rolling (under the player, behind the cue) keeps the shot open this long after it was
    # last seen: a ball rolling on open cloth is seen, and one under an arm comes out within a second or so. Past
    # it, it stopped or left where the camera cannot see it (a frame-dropping observer may never see it drop),
    # and the shot ends once every ball seen has rested. Shorter: a shot ends while a hidden ball still rolls;
    # longer: later. Never: one lost ball keeps the shot open for the rest of the match
    hidden_roll_s: float = 1.5
    # a ball set moving between shots faster than this was struck (slower: disturbed by hand); also the speed
    # below which a path is too slow to have bounced off anything. Lower: hand moves start shots
    start_speed_mm_s: float = 150.0
    # A struck ball leaves at its top speed and rolls on (the cloth slows a rolling ball by 0.1-0.3 m/s2, so even
    # one at start_speed_mm_s rolls half a second or more); a pushed one stops almost as soon as the hand lets
    # go. A ball set off between shots slower than push_max_speed_mm_s that stops within push_stop_s, with no
    # other ball moving, was pushed: ``disturbed``. Its shot start waits push_stop_s to be sure. Wider limits
    # take soft strokes for hand moves; narrower take hand moves for shots
    push_max_speed_mm_s: float = 800.0
    push_stop_s: float = 0.4
    # how far before its last resting sample a slow ball's start is looked for (it keeps its place, the
    # tracker's anchor, for a few frames before it breaks its rest). Fewer: slow starts timed late; more: a
    # start read from resting jitter
    slow_start_frames: float = 4.0
    # a ball that crept off its place (its detections drifting) is looked at this far back; a detection within
    # creep_still_mm of where it sat has not left yet; it was hit where its speed along its new path jumps
    # (a hinge over the path's samples so far, the few it has when its start is explained) by
    # creep_speedup_mm_s or more. A smaller still distance or speed-up reads noise as a creep's start, larger
    # ones time a creeping ball's start at its first clear sample, late
    creep_back_s: float = 0.5
    creep_still_mm: float = 1.5
    creep_speedup_mm_s: float = 20.0
    # a ball set off too slowly to have left its place yet is watched this long: shorter explains it before it
    # has left (its start timed early), longer holds every slow start's decision back
    slow_start_wait_s: float = 0.5
    # A ball set off in a shot with nothing seen to set it off is no touched ball if it stopped regone_stop_s
    # near that time (a creep the tracker took for rest), or if it leaves faster than touch_max_speed_mm_s, more
    # than a hand sends one (then a ball lost from sight hit it). A shorter stop or a higher speed: such balls
    # read as touched by hand (a foul); a longer stop or a lower speed: a ball the player touched goes unflagged
    regone_stop_s: float = 0.6
    touch_max_speed_mm_s: float = 1500.0
    # ... and a ball reaching its place from this long before its start hit it: longer takes a ball that passed
    # by earlier for its hitter
    nudge_back_s: float = 0.15


@dataclass(frozen=True)
class ContactSettings:
    """Ball-ball contacts (``tracking.detect.contacts``)."""

    # a ball one diameter plus this from another's path when it bends or sets off was hit by it. Larger: near
    # misses become contacts; smaller: hits lost to noise and frame timing
    contact_tol_mm: float = 14.0
    # two balls that touched touch anew only once seen this far apart (beyond a diameter): one ball pushing
    # another is one contact. Smaller: a push read as many contacts; larger: a quick second touch lost
    parted_mm: float = 2.5
    # a pair a push through a cluster went through is not hit again within this (the push is one touch):
    # longer loses a quick second hit of the same pair
    chain_repeat_s: float = 0.15
    # a ball pushed by a frozen neighbour leaves within this of their line of centres (throw and spin turn it a
    # few degrees): wider credits a neighbour that only sat beside it
    push_angle_deg: float = 20.0
    # a striker may be out of sight this long before its first contact (blur, the player's arm): longer finds
    # more hidden hitters and more wrong ones
    unseen_strike_s: float = 1.0
    # Two balls whose centres come within a diameter plus kiss_tol_mm and part again touched (a kiss too thin to
    # bend either path visibly), judged on the last kiss_window frames, in which the closest must be kiss_rise_mm
    # nearer than the farthest on each side (an approach and a parting, not balls frozen together), and at least
    # kiss_after frames before the window's end (a bend or a start there is explained first). A near miss is as
    # common as a kiss, so the tolerance stays at millimetres whatever the view's noise: larger finds near
    # misses, smaller loses thin kisses. Closest frames kiss_bent_mm farther apart may still have touched if
    # their approach paths met (a glancing hit between frames)
    kiss_tol_mm: float = 2.5
    # (fewer frames than kiss_after leave a kiss's approach outside the window; more take in approaches from
    # before an earlier touch)
    kiss_window: int = 16
    kiss_rise_mm: float = 5.0
    kiss_after: int = 12
    kiss_bent_mm: float = 15.0
    # A ball nudged so softly that the tracker kept it resting (its creep under the rest gate): by the shot's
    # end its place is nudge_min_mm from where the shot found it, and a moving ball came within a diameter plus
    # nudge_touch_mm of it, pushing it (within nudge_angle_deg of the line of centres) the way it went; that
    # ball's approach is fitted over nudge_fit_s from samples nudge_clear_mm clear of touching and run on up to
    # nudge_run_frames. Smaller limits: noise read as nudges; larger: soft nudges lost
    nudge_min_mm: float = 6.0
    nudge_touch_mm: float = 4.0
    nudge_angle_deg: float = 40.0
    nudge_run_frames: float = 4.0
    nudge_fit_s: float = 0.2
    nudge_clear_mm: float = 6.0

    @property
    def frozen_tol_mm(self) -> float:
        """Resting neighbours this close to touching are frozen: a hit passes through them (a chain). The
        tracker's chains' quantity, one constant (``tracking.tracker_settings.FROZEN_TOL_MM``)."""
        return FROZEN_TOL_MM


@dataclass(frozen=True)
class CushionSettings:
    """Cushion and jaw touches (``tracking.detect.cushions`` and the kinks of ``tracking.detect.breaks``)."""

    # a kink with the centre within this of one radius from a nose line (or a jaw) is explained by it. Larger:
    # ball hits near a cushion misnamed cushion touches; smaller: bounces of fast, blurred balls unexplained
    cushion_tol_mm: float = 14.0
    # a straight path this close to a nose line or a jaw (then away) touched it: larger finds near misses,
    # smaller loses glancing touches. A floor: the pipeline widens it to twice the view's noise (api.pipeline.
    # noise_settings): 5.3-5.5 mm at the rendered suites' 1080p
    graze_tol_mm: float = 5.0
    # a centre this far past a cushion's flat nose touched the jaw's rounded tip there (within the noise of the
    # flat's end it is the cushion): larger names tip touches as the cushion's, smaller the other way round
    tip_past_mm: float = 0.8
    # a ball whose samples over the last hug_s before a touch all lie within hug_mm of touching the cushion
    # rolled along it (or rested frozen to it): no new touch (the truth's rule;
    # test_tracking_glance.py::test_a_ball_rolled_along_its_cushion_does_not_touch_it_anew). Larger: real touches
    # of a ball running close along a cushion dropped
    hug_s: float = 0.1
    hug_mm: float = 2.0
    # samples either side of a touch fitted to time it (a V of the distance to the nose line), its corner
    # looked for up to hinge_reach samples either side of the lowest one: a ball glancing off at a shallow
    # angle draws away more slowly than it came, so over noise its lowest sample may come two frames late.
    # More: a touch soon before or after (a ball, the next cushion) bends the fit; fewer: the timing follows noise
    hinge_side: int = 8
    hinge_reach: int = 3
    # a V whose sides fall and rise at least bounce_min_mm_s is a bounce, not noise; or whose side falls at
    # least steep_fall_mm_s and rises at least steep_rise_mm_s (a ball coming this fast cannot stop short of
    # the cushion, so one that turns away however slowly touched it). Lower: noise read as touches
    bounce_min_mm_s: float = 15.0
    steep_fall_mm_s: float = 25.0
    steep_rise_mm_s: float = 5.0
    # a stopping ball is against the cushion within rest_touch_plateau_mm of where it rests, and touched it if
    # that is within jaw_touch_mm of one radius from the nose line. Larger: a ball stopping just short of a
    # cushion (or a jaw) touched it; smaller: a ball rolling to rest against it did not
    rest_touch_plateau_mm: float = 1.0
    jaw_touch_mm: float = 2.0
    # a hit ball's rebound off a cushion it touched before it was seen moving leaves within this of the hit's
    # direction mirrored in the cushion (the cushion takes normal speed away; spin bends the rebound). Wider:
    # a ball set off from near a cushion is given a touch it never made
    bounce_angle_deg: float = 30.0
    # a potted ball whose fitted path passes within a radius plus jaw_gap_mm of a jaw touched it: the corner
    # mouths are only 5 mm wider than a ball, so a ball running in straight passes 2.5 mm off both jaws; at 2.5
    # every corner pot touches both
    jaw_gap_mm: float = 0.5
    # a V of the distance to a jaw's surface, looked for within jaw_graze_reach_mm of its pocket's mouth,
    # touched it where its bottom comes within graze_tol_mm (as a cushion's nose). A shorter reach loses grazes
    # of a jaw's far end
    jaw_graze_reach_mm: float = 136.0
    # a potted ball's last turn within this of a jaw's touching distance was that touch: larger credits a jaw
    # with a turn a ball neighbour caused, smaller leaves a blurred jaw bounce unexplained
    jaw_kink_mm: float = 6.0
    # a bounce off a jaw whose outgoing path, run back, leaves the jaws jaw_exit_frames or more after the
    # incoming path reached them touched twice: the rounded tip, then the face. Smaller: one bounce's timing
    # noise read as a second touch; larger: the tip-then-face double touch of a ball along a cushion lost
    jaw_exit_frames: float = 0.45
    rattle: RattleSettings = field(default_factory=RattleSettings)  # a ball bouncing between the jaw faces


@dataclass(frozen=True)
class PotSettings:
    """Balls leaving the table (``tracking.detect.pots``)."""

    # a ball falls when its centre is this many radii past the mouth line (the near edge of the hole): its
    # centre over the hole's edge. Larger: pots timed late; smaller: early
    pot_depth_fraction: float = 0.5
    # a ball slower than this in the mouth fell by the frame it is first missing from (a rattling ball drops
    # from near rest, whenever its creep run on would reach the hole). Higher: a fast pot timed at its
    # disappearance, which blur makes early
    slow_drop_mm_s: float = 300.0


@dataclass(frozen=True)
class LineSettings:
    """Line crossings (``tracking.detect.lines``). A ball on a line is not over it (rule 2.1.6)."""

    # a path must start and end this far off a line to cross it (a ball on a line is not over it): larger
    # loses crossings of balls that stop just over, smaller reads noise about the line as crossings
    line_margin_mm: float = 0.75
    # ... and start this far off it from rest against other balls (a rack's row on the long line), whose edges
    # pull a resting ball's measured centre off: the p95 of such balls' position error
    # (test_tracking_suite_cases.py::test_a_rack_ball_measured_two_mm_off_the_long_line_does_not_cross_it_
    # leaving_but_a_lone_one_does). Larger: real crossings from the rack lost; smaller: a racked ball leaving
    # its place crosses the line it sits on
    line_packed_margin_mm: float = 2.5
    # over a line and back inside one path (a curving ball): this far past it each way. Smaller: a ball
    # running along the line crosses it with every wobble; larger: a shallow excursion lost
    line_excursion_mm: float = 2.0


@dataclass(frozen=True)
class ExtractorSettings:
    """All the event detectors' settings, one record per detector."""

    segments: SegmentSettings = field(default_factory=SegmentSettings)
    shots: ShotSettings = field(default_factory=ShotSettings)
    contacts: ContactSettings = field(default_factory=ContactSettings)
    cushions: CushionSettings = field(default_factory=CushionSettings)
    pots: PotSettings = field(default_factory=PotSettings)
    lines: LineSettings = field(default_factory=LineSettings)
    # an event less confident than this is flagged for review (not dropped; scores do not see it): higher
    # asks the referee about more events
    review_below: float = 0.5
    # a track whose detections average a lower confidence is not a ball: the cue's tip and the player's hand
    # average 0.53-0.59 in the rendered suites, a ball at least 0.61 (half hidden); a ball known at its place
    # (rack, operator) is vouched for at 0.75 whatever its detections. It also keeps such tracks out of the
    # guided streak search and the reported balls. Higher: half-hidden balls' events lost; lower: hands and the
    # cue's tip are reported as balls, phantom tracks on a real camera (whose balls also score lower than the
    # rendered ones, so there a lower value finds more of them as well)
    ghost_below: float = 0.6


def setting_path(settings: Any, name: str) -> list[str]:
    """The path of attribute names to the field ``name`` (dotted, or a bare name found in exactly one of the
    nested records); ValueError if there is none or more than one."""
    if "." in name:
        path = name.split(".")
        obj = settings
        for part in path:
            if not is_dataclass(obj) or part not in {f.name for f in fields(obj)}:
                raise ValueError(f"{name}: no such setting")
            obj = getattr(obj, part)
        return path
    found = [p for p in _paths(settings) if p[-1] == name]
    if len(found) != 1:
        raise ValueError(
            f"{name}: {'no such setting' if not found else 'ambiguous: ' + ', '.join(map('.'.join, found))}"
        )
    return found[0]


def _paths(obj: Any, prefix: tuple[str, ...] = ()) -> list[list[str]]:
    out: list[list[str]] = []
    for f in fields(obj):
        value = getattr(obj, f.name)
        out.append([*prefix, f.name])
        if is_dataclass(value):
            out += _paths(value, (*prefix, f.name))
    return out


def with_values(settings: Any, **values: Any) -> Any:
    """``settings`` with the named fields (see ``setting_path``) set to ``values``."""
    for name, value in values.items():
        settings = _set(settings, setting_path(settings, name), value)
    return settings


def _set(obj: Any, path: list[str], value: Any) -> Any:
    head, *rest = path
    return replace(obj, **{head: _set(getattr(obj, head), rest, value) if rest else value})
