"""The tracker's settings: each field a physical quantity of balls, cloth or camera, with what it stands for."""

from __future__ import annotations

from dataclasses import dataclass, field

from tracking.kalman import FilterSettings


@dataclass(frozen=True)
class TrackerSettings:
    filter: FilterSettings = field(default_factory=FilterSettings)
    max_speed_mm_s: float = 11000.0  # a break reaches ~10 m/s
    gate_chi2: float = 25.0  # 5 sigma: the statistical gate
    kink_cost: float = 200.0  # base cost of an association outside the statistical gate
    confirm_hits: int = 2
    warmup_s: float = 0.5  # balls seen in the first moments are confirmed at once
    tentative_max_misses: int = 2
    min_confidence: float = 0.25  # weaker detections are ignored
    new_track_confidence: float = 0.55  # weaker ones may update a known ball but never start a new one
    rest_window_s: float = 0.25  # a ball whose detections stay within rest_radius for this long rests
    rest_radius_mm: float = 2.5
    anchor_gate_mm: float = 5.0  # a resting ball's detection farther than this sets it moving
    pot_confirm_s: float = 0.35  # gone this long after vanishing in a pocket mouth -> potted
    late_pot_confirm_s: float = 1.0  # a ball resting in the mouth that vanishes (hanging ball falls)
    reacquire_radius_mm: float = 150.0  # a hidden resting ball reappearing within this keeps its id
    frozen_tol_mm: float = 5.0  # resting balls this close to touching are frozen together (a chain)
    inplay_reacquire_mm: float = 40.0  # ... but in play, hidden at rest longer than inplay_hidden_s, this near
    inplay_hidden_s: float = 0.1
    moving_reacquire_s: float = 1.5  # a hidden moving ball is looked for this long along its path
    coast_s: float = 0.25  # a hidden moving ball is extrapolated this long, then held where last seen
    # of a hidden ball's normal speed where its prediction bounces off a cushion (the rendered suites' physics:
    # median 0.69, 0.56-0.75 from the 10th to the 90th percentile)
    cushion_restitution: float = 0.7
    bounce_sigma_mm_s: float = 300.0  # the bounced velocity's added uncertainty (restitution's spread, spin)
    hidden_speedup: float = 2.0  # a ball hidden for frames while rolling is found within this times its run
    backward_kick: float = 0.3  # a struck ball takes no step back along its hitter's run (cosine below -this)
    touch_reach_mm: float = 5.0  # a path passing a resting ball within a diameter plus this may have touched it
    weak_resume_s: float = 0.1  # a moving ball hidden this briefly resumes on a weak detection where it is predicted
    weak_resume_speed_mm_s: float = 200.0  # ... if it was moving at least this fast (not a ball just seen again)
    cloth_slack_mm: float = 12.0  # detections this far outside the cushion noses still count (noise)
    dropped_depth_mm: float = 25.0  # a detection this far past a pocket's mouth line is a dropped ball
    colour_sigma: float = 25.0  # colour difference (grey levels) of one ball between frames: blur, light
    colour_cost: float = 80.0  # most a colour mismatch adds to an association's cost
    colour_gate_sigma: float = 4.0  # a detection of the other class this far off a ball's colour is another ball
    # a kink to a detection this far off a ball's colour is to another ball (a white ball half blurred into the
    # cloth moves about 6 sigma off its resting colour; a red ball or a dark sleeve is 11-13 sigma off a white one)
    colour_kink_sigma: float = 8.0
    colour_class_votes: int = 5  # a ball classed cue (or not) this many more times than not is firmly that class
    blur_adopt_s: float = 3.0  # a ball that vanished from rest this long before a shot may come back anywhere in it
    blur_adopt_late_s: float = 0.1  # ... or this long after the shot was seen to start
    unseen_kink_frames: float = 2.5  # a kink after this many frames unseen: the ball's velocity is unknown
    placed_confidence: float = 0.75  # a ball placed between shots is seen clearly (a bridge hand at rest is not)
    tunnel_tol_mm: float = 10.0  # a path passing this much less than a diameter from a still ball goes through it
    burst_min_balls: int = 3  # this many resting balls set moving in one frame: a rack or cluster broken up
    burst_join_frames: float = 2.0  # balls set moving this soon after are part of it
    burst_check_frames: float = 3.0  # their ids are checked this long after (two clear frames of each path)
    burst_last_frames: float = 4.0  # ... and in every frame up to this long after (later, the balls collide)
    burst_margin_mm: float = 15.0  # ids change only if each changed ball's path leads back this much better
