"""Which detection is which ball: a cost of each track-detection pair as a sum of named terms, the pairs the
gates rule out, and one assignment.

The cost of pairing a track with a detection is the sum of:

- ``anchor_term``: a ball at rest is where its detections have averaged (its anchor); a detection lies off it
  by the detector's noise only, so its distance in sigmas, squared;
- ``motion_term``: a rolling ball runs on at constant velocity between events; its Kalman prediction and that
  prediction's covariance give the squared Mahalanobis distance of a detection;
- ``kink_term``: a ball that collided or bounced off a cushion left its prediction; a detection it could have
  reached at top speed is allowed at a high fixed cost plus its distance, so a nearer statistical match
  always wins;
- ``tentative_term``: a ball already known comes before one seen once (the cue tip beside it);
- ``colour_term``: a ball keeps its colour from frame to frame (blur and light shift it a little).

A pair is in one of two tiers: 0 (statistical: the anchor or motion term) or 1 (the kink term). The gates
(``tracking.gates``) then rule out pairs that physics or the scene forbid, and what is left is paired in two
stages, in the manner of ByteTrack: ``match_confident`` pairs every track with the detections that could be a
ball (clear ones, and weak ones where a known ball is expected: blurred or shaded), then ``match_weak``
offers the other weak detections (a hand, the cue tip, a ball off its path) to the tracks stage one left. Each
stage is one least-cost assignment (``solve``), a track with no allowed detection staying unmatched.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from tracking.tracker_settings import TrackerSettings


@dataclass(frozen=True)
class Scene:
    """One frame's association problem: n tracks (rows), m detections (columns), and the facts the cost
    terms and the gates read. The tracker builds it (``Tracker.scene``); nothing here changes it."""

    s: TrackerSettings
    t: float
    frame_dt: float
    ball_diameter_mm: float
    ball_radius_mm: float
    # the detections (m)
    z: np.ndarray  # m x 2 table mm
    weak: np.ndarray  # below new_track_confidence: a ball-like blob that may be a hand or the cue tip
    at_known: np.ndarray  # at a known ball's starting place in the first moments (all False after them)
    colour: np.ndarray | None  # m x 3, or None where the detector gives none
    is_cue: np.ndarray  # the detector's cue-ball class
    # the tracks (n)
    ids: tuple[str | None, ...]  # each track's public id (None while tentative)
    occluded: np.ndarray  # not seen in the last frame
    tentative: np.ndarray  # seen, not yet a public ball
    seen: np.ndarray  # confirmed and seen in the last frame it was looked for
    resting: np.ndarray
    anchored: np.ndarray  # resting, with an anchor
    named: np.ndarray  # holds a public id
    last: np.ndarray  # n x 2: where each was last seen
    anchor: np.ndarray  # n x 2: each resting ball's anchor (where it was last seen, for the others)
    pos: np.ndarray  # n x 2: each ball's position now (anchor or filter)
    pred: np.ndarray  # n x 2: the filter's predicted position now
    vel: np.ndarray  # n x 2: the filter's velocity (mm/s)
    last_t: np.ndarray  # when each was last seen
    last_weak: np.ndarray  # each one's last detection was weak (half under a hand, blurred, shaded)
    speed_bound: np.ndarray  # how fast each may be going (its speed, or its velocity's sigma where unknown)
    reach: np.ndarray  # how far from where it was last seen each can be now (top speed, hidden limits)
    track_colour: np.ndarray | None  # n x 3 (NaN rows where unknown), or None where no detection has colour
    cue_votes: np.ndarray  # detections of each classed cue minus those classed not (the ball's running vote)
    hits: np.ndarray  # moving tracks whose run since they were last seen meets a resting ball squarely
    gauged: np.ndarray  # the moving tracks whose prediction means something (the motion term applies)
    m2: np.ndarray  # n x m squared Mahalanobis distances (rows where ``gauged``; inf elsewhere)
    entering_pocket: np.ndarray  # last seen running into a pocket's mouth
    pocket_run: np.ndarray  # n x m: each detection's distance from that run in (inf for the others)
    in_pocket: np.ndarray  # m: the pocket (index in ``table.pockets``) whose hole or net holds each detection, or -1
    going_pocket: np.ndarray  # n: the pocket each was last seen going into or lying in the mouth of, or -2
    left_q: np.ndarray  # k x 2: where the balls set moving just now (within weak_resume_s) rested
    untaken: np.ndarray  # u x 2: the last frame's detections no ball took
    untaken_t: float  # that frame's time
    strays: np.ndarray  # k x 3: (t, x, y) of the recent frames' detections no public ball took (hand_seen_s)

    d_last: np.ndarray  # n x m: each detection's distance from where each track was last seen
    d_anchor: np.ndarray  # n x m: ... from each track's anchor (where it was last seen, for a moving one)
    colour_dist: np.ndarray | None  # n x m: ``colour_distances`` (None where the detections carry no colour)

    @property
    def rest_rows(self) -> np.ndarray:
        return np.flatnonzero(self.anchored)

    @property
    def rest_q(self) -> np.ndarray:
        """The resting balls' anchors, in row order."""
        return self.anchor[self.anchored].reshape(-1, 2)


# ---- the cost terms: each a tracks x detections array, zero (or infinite) where it does not apply ----------
def anchor_term(sc: Scene) -> np.ndarray:
    """A resting ball's detection scatters around its anchor by the detector's noise: distance in sigmas,
    squared, within the anchor gate (inf outside it and for moving balls)."""
    inside = sc.anchored[:, None] & (sc.d_anchor <= sc.s.anchor_gate_mm)
    return np.where(inside, (sc.d_anchor / sc.s.filter.meas_sigma_mm) ** 2, np.inf)


def motion_term(sc: Scene) -> np.ndarray:
    """A rolling ball runs on at constant velocity: the squared Mahalanobis distance from its prediction,
    within the statistical gate (inf outside it and where the prediction means nothing)."""
    return np.where(sc.gauged[:, None] & (sc.m2 <= sc.s.gate_chi2), sc.m2, np.inf)


def kink_term(sc: Scene, inside: np.ndarray) -> np.ndarray:
    """A ball that collided or bounced left its prediction: outside the statistical gate, a detection it could
    reach at top speed from where it was last seen costs a fixed price plus its distance (inf beyond reach)."""
    kink = ~inside & (sc.d_last <= sc.reach[:, None])
    return np.where(kink, sc.s.kink_cost + sc.d_last / sc.s.filter.meas_sigma_mm, np.inf)


def tentative_term(sc: Scene) -> np.ndarray:
    """A known ball comes before one seen once or twice (the cue tip beside it): one unit more."""
    return np.where(sc.tentative, 1.0, 0.0)[:, None] * np.ones((1, len(sc.z)))


def colour_distances(colour: np.ndarray | None, track_colour: np.ndarray | None, sigma: float) -> np.ndarray | None:
    """Each detection's colour difference from each track's running colour, in colour_sigma (NaN where the
    track's colour is unknown), or None where the detections carry no colour."""
    if colour is None or track_colour is None:
        return None
    diff = colour[None, :, :] - track_colour[:, None, :]
    return np.sqrt(np.add.reduce(diff * diff, axis=2)) / sigma


def owned_elsewhere(dc: np.ndarray, claims: np.ndarray, s: TrackerSettings) -> np.ndarray:
    """Tracks x detections: each detection whose colour is far off the track's own (beyond colour_gate_sigma)
    and colour_owner_nats likelier the colour of another track that ``claims`` it (tracks x detections). A
    track's colour is the mean of many frames, so the log-likelihood ratio of two balls' colours (half the
    difference of the squared distances in sigmas) is evidence; in a set of one colour it stays near 0."""
    d2 = np.where(np.isnan(dc) | ~claims, np.inf, dc * dc)
    out = np.zeros(dc.shape, bool)
    rows = np.flatnonzero((dc > s.colour_gate_sigma).any(axis=1))
    if len(rows) == 0:
        return out
    # the likeliest other claimant's squared distance, for each of these tracks and each detection: the
    # smallest of all tracks', or the second smallest for the track that holds the smallest (the first of
    # equal ones; another equal one sees that one's)
    if len(d2) > 1:
        two = np.partition(d2, 1, axis=0)
        others = np.where(np.argmin(d2, axis=0)[None, :] == rows[:, None], two[1], two[0])
    else:
        others = np.full((1, d2.shape[1]), np.inf)  # no other track claims anything
    d = dc[rows]
    out[rows] = (d > s.colour_gate_sigma) & (0.5 * (d * d - others) > s.colour_owner_nats)
    return out


def colour_term(sc: Scene) -> np.ndarray:
    """A ball keeps its colour between frames (blur and light shift it by about colour_sigma): the squared
    difference in sigmas, capped at colour_cost (0 where either colour is unknown)."""
    dc = sc.colour_dist
    if dc is None:
        return np.zeros((len(sc.last), len(sc.z)))
    return np.where(np.isnan(dc), 0.0, np.minimum(dc**2, sc.s.colour_cost))


def costs(sc: Scene) -> tuple[np.ndarray, np.ndarray]:
    """The summed cost of every pair (inf where no tier reaches) and its tier (0 statistical, 1 kink)."""
    base = np.minimum(anchor_term(sc), motion_term(sc))
    inside = np.isfinite(base)
    kink = kink_term(sc, inside)
    cost = np.where(inside, base, kink)
    cost = cost + tentative_term(sc)
    cost = cost + colour_term(sc)
    return cost, (~inside).astype(int)


_MISS_COST = 1e6  # above any allowed association cost


def confident_detections(sc: Scene, tier: np.ndarray) -> np.ndarray:
    """The detections matched in stage one (ByteTrack's high-score set, read physically):

    - those that could be a new ball (``Tracker._start_tracks``' test: clear, or in the first moments at a
      known ball's starting place), so a new ball's detection is never left to stage two;
    - weak ones inside a known ball's statistical gate (a rolling ball's prediction, a resting ball's anchor
      gate): blur lowers a fast ball's score and shade a resting one's, so a weak blob where a ball is expected
      is most likely that ball, and it competes with the clear detections (else a clear neighbour's detection
      would take that ball's track first).

    The rest, weak blobs where no ball is expected, wait for stage two: a ball that bounced or was hit (seen
    only through the kink tier), or the player's hand or the cue tip, which the score alone cannot tell apart."""
    known = ~sc.tentative
    expected = ((tier == 0) & known[:, None]).any(axis=0)
    return np.asarray(~sc.weak | sc.at_known | expected)


Match = tuple[list[int], list[int], list[int]]  # track rows, detection columns, tiers


def match_confident(cost: np.ndarray, allowed: np.ndarray, tier: np.ndarray, confident: np.ndarray) -> Match:
    """Stage one: every track against the confident detections, least total cost. A weak blob beside a ball
    (a hand, the cue tip) waits: it cannot take a track from that ball's own clear detection."""
    return _solve_among(cost, allowed, tier, np.ones(len(cost), bool), confident)


def match_weak(cost: np.ndarray, allowed: np.ndarray, tier: np.ndarray, confident: np.ndarray, first: Match) -> Match:
    """Stage two: the weak detections offered to the tracks stage one left, on the gates' terms (a hidden ball
    comes back on a weak blob only where it was just predicted: ``gates.resumes_weakly``). A weak detection
    continues a ball but never starts one (``Tracker._start_tracks``)."""
    left = np.ones(len(cost), bool)
    left[first[0]] = False
    return _solve_among(cost, allowed, tier, left, ~confident)


def joined(first: Match, second: Match) -> Match:
    """The pairs of both stages (no track and no detection is in both)."""
    return first[0] + second[0], first[1] + second[1], first[2] + second[2]


def _solve_among(cost: np.ndarray, allowed: np.ndarray, tier: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> Match:
    """``solve`` over the tracks ``rows`` and detections ``cols`` (masks), in the whole frame's indices."""
    r_idx, c_idx = np.flatnonzero(rows), np.flatnonzero(cols)
    sub = np.ix_(r_idx, c_idx)
    r, c, k = solve(cost[sub], allowed[sub], tier[sub])
    return [int(r_idx[i]) for i in r], [int(c_idx[j]) for j in c], [int(x) for x in k]


def solve(cost: np.ndarray, allowed: np.ndarray, tier: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    """The least-cost one-to-one pairing over the allowed pairs. One "unmatched" column per track: a track with
    no allowed detection stays unmatched instead of being forced onto a forbidden pair, which would push another
    track off its own detection (a swap of ids through the kink tier)."""
    n, m = cost.shape
    if not n or not m:
        return [], [], []
    big = 1e9
    c_all = np.where(allowed, cost, big)
    miss = np.full((n, n), big)
    np.fill_diagonal(miss, _MISS_COST)
    r, c = linear_sum_assignment(np.hstack([c_all, miss]))
    ok = (c < m) & allowed[r, np.minimum(c, m - 1)]
    return list(r[ok]), list(c[ok]), list(tier[r[ok], c[ok]])
