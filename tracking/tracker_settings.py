"""The tracker's settings: each field a physical quantity of balls, cloth or camera, with what it stands for
and what moving it costs."""

from __future__ import annotations

from dataclasses import dataclass, field

from tracking.kalman import FilterSettings

# A hidden resting ball seen again within this (mm) of its place keeps its id: between shots a hand may move a
# ball that far while it lifts or sets it down. Larger: a different ball reappearing nearby takes the id;
# smaller: a ball nudged by the hand comes back as a new, unnamed ball (no rendered suite moved at 75 or 300)
REACQUIRE_RADIUS_MM = 150.0
# The circle (in ball radii) a thing holding still keeps to: a dark ball's faint rim scatters its detections
# several millimetres about its centre, while a rolling ball leaves half a radius within a frame or two. Wider:
# a bridge hand held still becomes a ball; tighter: a dark ball, its rim found poorly, stays unseen (no
# rendered suite moved at 0.25 or 1)
STILL_RADII = 0.5
# Resting balls whose measured centres are within a diameter and this (mm) are frozen together: a hit passes
# through the chain. One quantity for the tracker (which balls a hit may set off unseen) and the contact
# detector (pushes through a cluster, a frozen neighbour as a hitter). Larger: balls a few millimetres apart
# take part in chains they were not in; at 0 (touching as measured) a frozen pair measured a little apart is no
# chain: contacts through a cluster are lost, and when it is struck a ball's track jumps by a ball's width
FROZEN_TOL_MM = 5.0


@dataclass(frozen=True)
class TrackerSettings:
    filter: FilterSettings = field(default_factory=FilterSettings)  # the ball filter's noise (``tracking.kalman``)
    # a break sends the cue ball at about 10 m/s: no ball is farther from where it was seen than this speed times
    # the time since. Lower: a break's ball outruns its gate and is lost; higher: a far blob may be taken
    max_speed_mm_s: float = 11000.0
    # the statistical gate on a detection's squared distance from the prediction, in its own sigmas (5 sigma).
    # Narrower: a ball that bends (a touch) falls out of it into the kink tier; wider: neighbours swap
    gate_chi2: float = 25.0
    # detections a new ball needs before it is public: more keeps a flickering hand out longer and delays
    # a placed ball
    confirm_hits: int = 2
    warmup_s: float = 0.5  # balls seen in the first moments are confirmed at once (the table as the video opens)
    # a new ball missed more frames than this is dropped (a hand, the cue tip). More: a blob lingers as a
    # candidate; fewer: a ball seen through a gap in the player's arm is dropped before it is confirmed, and a
    # weak still blob missed for a frame is forgotten before it has held still long enough to be a ball
    # (test_tracking_rest_births.py::test_a_ball_too_weak_to_start_a_track_gets_one_once_it_has_held_still,
    # test_vision_ball_classifier.py::test_a_ball_like_look_starts_a_track_as_the_video_opens_and_not_later)
    tentative_max_misses: int = 2
    # a detection fainter than this (a shadow, a highlight; the classical detector keeps blobs from 0.15) is
    # ignored: it moves no ball, not even one missed for a frame or two beside it
    # (tests/tracking/test_tracking_faint_blobs.py). Lower: a faint blob beside a blurred ball's path drags it
    # there; higher: a blurred ball's own weak detections are lost (the rendered suites' weakest is 0.29)
    min_confidence: float = 0.25
    # weaker ones may update a known ball but never start a new one (a ball half under the player's arm scores
    # 0.3-0.5; a hand 0.5): higher keeps more blobs out and is slower to take a ball placed back
    new_track_confidence: float = 0.55
    # a ball whose detections stay within rest_radius_mm (below) for rest_window_s rests (its anchor is their
    # mean; four sightings at least: under 12 fps the window waits for them). Longer: a stop is called late;
    # shorter: a slow roll is called rest
    rest_window_s: float = 0.25
    # a ball gone this long after vanishing in a pocket's path is potted (a ball behind the player's arm
    # reappears sooner). Shorter: a hidden ball near a pocket is called potted; longer: pots come late
    # (a ball resting in the mouth that vanishes likewise: a hanging ball falls, 2.1.15)
    pot_confirm_s: float = 0.35
    # a ball leaves the table over a rail only by riding over the cushion's nose (at about 0.63 of its height),
    # which throws back a ball that meets it slower than this normal to the rail; and it is seen running at the
    # rail that fast over its last two steps. Lower: a ball vanishing beyond a rail line drawn a few cm off (a
    # calibration error), or a false track carried off by a hand, is called off the table (test_tracking_off_
    # table.py::test_a_ball_rolling_along_a_rail_drawn_short_into_the_corner_is_potted_there, ::test_nothing_
    # leaves_the_table_without_running_at_a_rail_fast_enough_to_climb_it); higher: a ball that jumped the rail
    # stays hidden on the table
    climb_speed_mm_s: float = 1500.0
    # in play, a ball hidden at rest longer than inplay_hidden_s (under the player's arm) comes back only this
    # near its place: a hand coming out from over it is not it (test_tracking_blur.py::test_players_hand_over_
    # the_table_in_play_takes_no_resting_balls_id). Larger: the hand takes its id
    inplay_reacquire_mm: float = 40.0
    inplay_hidden_s: float = 0.1
    # a hidden moving ball is looked for this long along its path and where its extrapolation ended (a ball
    # rolls on under an arm, or bounces off a cushion in a blur: test_tracking_unseen_bounce.py). Longer: a far
    # blob takes its id; shorter: a ball reappearing beyond an arm is a new, unnamed ball (or called off the table)
    moving_reacquire_s: float = 1.5
    # a hidden moving ball is extrapolated this long, then held where last seen: longer follows it further,
    # but a ball that stopped unseen is placed where it never went
    coast_s: float = 0.25
    # of a hidden ball's normal speed where its prediction bounces off a cushion (the rendered suites' physics:
    # median 0.69, 0.56-0.75 from the 10th to the 90th percentile). Off the cloth's: a hidden ball's bounced
    # prediction falls short of (or beyond) where it comes back, by as much as bounce_sigma_mm_s must cover
    cushion_restitution: float = 0.7
    # the bounced velocity's added uncertainty (restitution's spread, spin): smaller gates a rebound too tightly,
    # larger lets a neighbour take it
    bounce_sigma_mm_s: float = 300.0
    # a ball hidden for frames while rolling is found within this times its run (it only slows between
    # collisions; a collision's kick at most doubles it). Larger: a blob across the table takes it
    hidden_speedup: float = 2.0
    # a struck ball takes no step back along its hitter's run (cosine below -this): smaller vetoes real
    # rebounds off a frozen ball, larger lets the hitter's detection pass to the ball it hit
    backward_kick: float = 0.3
    # a moving ball hidden this briefly resumes on a weak detection where it is predicted (a blurred ball seen
    # again behind a cue) if it was moving at least weak_resume_speed_mm_s (fast enough to blur, or its speed
    # unknown: not a slow ball, whose weak detection may be the hand that struck it); so does a ball blurred
    # out as it hits another (test_tracking_events.py::test_struck_ball_blurred_out_at_a_hit_keeps_its_id_at_30_
    # fps, test_tracking_tracker.py::test_ball_hidden_as_it_hits_a_resting_ball_keeps_its_id_when_both_come_
    # back_weak). Longer or slower lets a hand near its path take it; shorter or faster loses a fast ball
    # blurred weak
    weak_resume_s: float = 0.1
    weak_resume_speed_mm_s: float = 200.0
    # a hand sweeping across the cloth (1-3 m/s) that covers a ball is seen as blobs no ball takes within two
    # diameters of it in the frames before the ball's sightings turn weak (``gates.swept``). Longer: a blob
    # left near a ball a while before its stroke keeps the struck ball at its place; shorter: a hand coming in
    # fast at a low frame rate is missed and moves the ball it covers
    hand_seen_s: float = 0.1
    # detections this far outside the cushion noses still count (noise, a ball's edge on a cushion): larger
    # lets the rail's highlights in
    cloth_slack_mm: float = 12.0
    # a detection this far past a pocket's mouth line is a ball in the hole (the detector sees up to 60 mm past
    # a corner's mouth line): it has dropped, and its track is potted (tests/tracking/test_tracking_dropped_ball.py).
    # Smaller loses a ball rattling deep in a mouth (its centre still over the cloth's lip); larger keeps a
    # ball lying in sight in the hole in play, never potted
    dropped_depth_mm: float = 25.0
    # a ball's colour difference (grey levels) from frame to frame: blur and light. Smaller: a blurred ball's
    # colour reads as another ball's; larger: colour tells balls apart less
    colour_sigma: float = 25.0
    colour_cost: float = 80.0  # most a colour mismatch adds to an association's cost (colour decides ties only)
    # a detection of the other class this far off a ball's colour is another ball: smaller vetoes a blurred
    # ball's own detection, larger lets the cue ball's id pass to an object ball
    colour_gate_sigma: float = 4.0
    # a kink to a detection this far off a ball's colour is to another ball (a white ball half blurred into the
    # cloth moves about 6 sigma off its resting colour; a red ball or a dark sleeve is 11-13 sigma off a white one;
    # test_gates.py's two colour_kink tests). Larger: the struck cue ball's id passes to the player's sleeve;
    # smaller: a blurred ball's own kink is vetoed
    colour_kink_sigma: float = 8.0
    # a detection far off a ball's colour (colour_gate_sigma) whose colour is this many nats likelier another
    # reachable ball's is that ball's (e^8: about 3000 to 1). Smaller: two balls of close colours veto each
    # other's blurred detections; larger: a ball at rest takes a touching ball's detection of another colour
    colour_owner_nats: float = 8.0
    # a ball classed cue (or not) this many more times than not is firmly that class: fewer lets a few
    # misclassed frames fix a wrong class
    colour_class_votes: int = 5
    # a ball that vanished from rest up to this long before a shot was seen to start may come back anywhere in
    # it (lost in the stroke's blur). Longer: a ball hidden under an arm before the stroke is adopted by
    # another's track
    blur_adopt_s: float = 3.0
    # a ball placed between shots is seen clearly (a bridge hand at rest is not): higher leaves a shadowed ball
    # unconfirmed, lower confirms a still hand
    placed_confidence: float = 0.75
    # a path passing this much less than a diameter from a still ball goes through it (it hit it): larger takes
    # a hit for a pass, smaller a pass for a hit
    tunnel_tol_mm: float = 10.0
    # this many resting balls set moving in one frame: a rack or cluster broken up, whose ids are checked
    # (two balls swapping places in a pack look alike) for balls set moving burst_join_frames after the first,
    # burst_check_frames after (two clear frames of each path) and in every frame up to burst_last_frames
    # (later, the balls collide), and changed where the changed balls' paths lead back better, each to within
    # a radius of its new place (test_tracking_tracker.py::test_balls_of_a_rack_broken_at_30_fps_get_their_ids_
    # back_from_their_paths: unchecked, a 30 fps break leaves three balls' ids rotated; so it does with no ball
    # joining after the first frame; test_pipeline_burst.py fails with no joining and with one check only).
    # Fewer balls: every two-ball hit is checked; more frames: balls that collided after the burst are checked
    # as if they had not
    burst_min_balls: int = 3
    burst_join_frames: float = 2.0
    burst_last_frames: float = 4.0
    # a thing seen holding still for rest_vouch_s, each sighting within STILL_RADII ball radii of their mean,
    # is a ball at rest whatever the detector's confidence (a hand or the cue tip does not hold still so long; a
    # rolling ball leaves the circle in a frame or two). Shorter: a bridge hand held still becomes a ball;
    # longer: a dark ball, its rim found poorly, stays unseen
    # (never vouched: test_tracking_rest_births.py's dark and weak balls at rest get no track)
    rest_vouch_s: float = 1.0

    @property
    def rest_radius_mm(self) -> float:
        """A resting ball's detections scatter about its place by the measurement noise: a rest window's all
        within two sigmas of their mean is a ball at rest (a still ball's sightings fall there but for one in
        seven, the mean of several closer). Tighter: a still ball's stop is called late; looser: a slow roll
        is called rest."""
        return 2.0 * self.filter.meas_sigma_mm

    @property
    def anchor_gate_mm(self) -> float:
        """A resting ball's detection farther than four sigmas of the measurement noise from its anchor is the
        ball moving, not jitter (one in 3000 of a still ball's sightings falls beyond it). Smaller: jitter reads
        as starts; larger: a soft hit's first millimetres are lost."""
        return 4.0 * self.filter.meas_sigma_mm

    @property
    def frozen_tol_mm(self) -> float:
        """Resting balls this close to touching are frozen together (``FROZEN_TOL_MM``, the contacts' too)."""
        return FROZEN_TOL_MM

    @property
    def burst_check_frames(self) -> float:
        """A burst's ids are first checked when the last ball that may join it (``burst_join_frames`` after it) has
        been seen twice on its new path (a path run back to the burst needs two sightings): one frame later."""
        return self.burst_join_frames + 1.0

    @property
    def kink_cost(self) -> float:
        """The base cost of a match outside the statistical gate (a kink: a touch bent the path): a bent path is
        a worse explanation than any straight one, so it costs more than the most a match inside the gate can
        (the gate's bound, above a resting ball's anchor term of at most (4 sigma / sigma)^2 = 16; the colour
        cap; the tentative unit). Lower: a kink competes with a straight match and neighbours swap; higher
        changes nothing (it only orders)."""
        return max(self.gate_chi2, 16.0) + self.colour_cost + 1.0
