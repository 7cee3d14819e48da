"""The gates: pairs of a track and a detection that physics or the scene rule out, each a named object with
its one-line reason.

A gate reads the frame's ``Scene`` (``tracking.association``), the pairs still allowed and their tiers, and
returns the pairs it forbids (tracks x detections). The tracker applies ``GATES`` in order; a gate that asks
"is this detection already some visible ball's?" reads the pairs the gates before it left.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tracking import association
from tracking.association import Scene
from tracking.paths import distances, near_paths, paths_through, runs_into

Forbid = Callable[[Scene, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Gate:
    name: str
    reason: str  # the physical reason, one line
    forbid: Forbid  # (scene, allowed so far, tiers) -> tracks x detections: the pairs this gate rules out

    def allows(self, sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
        """The pairs this gate lets through (of those allowed so far)."""
        return allowed & ~self.forbid(sc, allowed, tier)


def _none(sc: Scene) -> np.ndarray:
    return np.zeros((len(sc.last), len(sc.z)), bool)


# ---- the gates -------------------------------------------------------------------------------------------
def _backward_kick(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A lone resting ball hit by a moving one leaves along the line of centres, away from the hitter: not to a
    detection behind its place, back toward where the hitter came from (that is the hitter, just after the
    hit). Only the first ball on each hitter's path counts, and only if no other ball rests touching it (in a
    cluster the hit goes on through the chain, whose balls may leave in any direction)."""
    out = _none(sc)
    hit = np.flatnonzero(sc.hits)
    if not len(hit) or not len(sc.z):
        return out
    D = sc.ball_diameter_mm
    width = D - sc.s.tunnel_tol_mm
    rows = sc.rest_rows
    q = sc.rest_q
    places = np.vstack([q, sc.left_q])
    kicks: dict[int, list[np.ndarray]] = {}  # resting row -> the directions of the balls running into it
    for k in hit:
        v = sc.vel[k]
        speed = math.sqrt(v[0] * v[0] + v[1] * v[1])
        if speed <= 0.0:
            continue
        u = v / speed
        w = q - sc.last[k]
        along = w @ u
        beside = np.abs(w[:, 0] * u[1] - w[:, 1] * u[0]) < width
        dx, dy = sc.pred[k] - sc.last[k]
        run = math.sqrt(dx * dx + dy * dy)
        on_path = beside & (along > 0.0) & (along < run + D)
        if not on_path.any():
            continue
        first = int(np.flatnonzero(on_path)[np.argmin(along[on_path])])
        gaps = np.hypot(*(places - q[first]).T)
        if ((gaps > 0.0) & (gaps <= D + sc.s.frozen_tol_mm)).any():
            continue
        kicks.setdefault(int(rows[first]), []).append(u)
    for i, dirs in kicks.items():
        d = sc.z - sc.anchor[i]
        step = np.hypot(d[:, 0], d[:, 1])
        forward = np.array(dirs) @ d.T  # (hitters x detections): each step along each hitter's run
        back = (forward < -sc.s.backward_kick * step[None, :]).all(axis=0)
        out[i] = back & (step > sc.s.anchor_gate_mm)
    return out


def could_be_hit(sc: Scene) -> np.ndarray:
    """For each resting ball: is a ball frozen to it (a chain through a cluster: a rack's balls all move at the
    break, on weak, blurred detections), or could a moving ball have reached it since the last frame?"""
    D = sc.ball_diameter_mm
    gap = np.maximum(sc.t - sc.last_t, 2 * sc.frame_dt)
    run = np.sqrt(sc.vel[:, 0] * sc.vel[:, 0] + sc.vel[:, 1] * sc.vel[:, 1]) * gap
    near = np.where(sc.resting, D + sc.s.frozen_tol_mm, 2 * D + run)
    rows = np.flatnonzero(sc.resting)
    d = distances(sc.pos[rows], sc.pos)
    close = (d <= near[None, :]) & sc.named[None, :]
    close[np.arange(len(rows)), rows] = False  # not itself
    out = np.zeros(len(sc.resting), bool)
    out[rows] = close.any(axis=1)
    return out


def swept(sc: Scene) -> np.ndarray:
    """For each resting ball: was it last seen weak, half covered, after a blob no ball took came within two
    diameters of its place (in the hand_seen_s before)? A ball at rest starts moving only when something
    strikes it. The cue's tip touches it and covers none of it: a struck ball is seen clear up to the stroke,
    even with the cue seen as a blob behind it. A hand sweeping across the cloth is seen coming, then covers
    the ball (half under a hand a ball scores 0.3-0.5): a blob leaving that ball's place is the hand going on,
    and the ball is still under it (``struck_away`` does not read it as struck)."""
    out = np.zeros(len(sc.last), bool)
    if not len(sc.strays):
        return out
    t, q = sc.strays[:, 0], sc.strays[:, 1:]
    for i in np.flatnonzero(sc.anchored & sc.last_weak):
        before = (t <= sc.last_t[i]) & (t >= sc.last_t[i] - sc.s.hand_seen_s)
        d = np.hypot(*(q[before] - sc.anchor[i]).T)
        out[i] = bool(((d > sc.s.anchor_gate_mm) & (d <= 2 * sc.ball_diameter_mm)).any())
    return out


def struck_away(sc: Scene) -> np.ndarray:
    """Tracks x detections: a resting ball's weak detection that carries on, straight out from its place, the
    run of a detection no ball took the frame before (``Scene.untaken``): the ball struck from rest, blurred.
    The hit came at some instant within the frame before, so that first step away covers only part of a
    frame's run: the next, a whole frame's at nearly the same speed (the cloth slows a ball by about 0.2 g),
    is at least as long per second and goes on along the same line, within top speed. A hand or the cue tip
    hovers about the ball; it does not run away from its place in a straight line at a ball's pace. Only a
    ball seen at rest a frame or two before that first step counts: one hidden longer (under a hand, which
    may have moved it) gives that step no time base; nor does a ball a hand was seen coming over (``swept``)."""
    out = _none(sc)
    rows = np.flatnonzero(sc.anchored & ~swept(sc))
    gap = sc.t - sc.untaken_t
    if not len(rows) or not len(sc.untaken) or not len(sc.z) or gap <= 0.0:
        return out
    r = sc.ball_radius_mm
    for i in rows:
        if sc.last_t[i] >= sc.untaken_t or sc.untaken_t - sc.last_t[i] > 2.5 * sc.frame_dt:
            continue  # seen at rest in that frame (a blob then was not it leaving), or hidden longer (a hand)
        first_dt = max(sc.untaken_t - sc.last_t[i], sc.frame_dt)  # since its last sighting at rest
        w = sc.untaken - sc.anchor[i]
        d1 = np.hypot(w[:, 0], w[:, 1])
        for k in np.flatnonzero(d1 > sc.s.anchor_gate_mm):
            u = w[k] / d1[k]
            v = sc.z - sc.anchor[i]
            along = v @ u
            beside = np.abs(v[:, 0] * u[1] - v[:, 1] * u[0])
            step = along - d1[k]
            out[i] |= (beside < r) & (step * first_dt >= 0.8 * d1[k] * gap) & (step <= sc.s.max_speed_mm_s * gap)
    return out & sc.weak[None, :]


def _lone_rest_weak(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A lone resting ball with no moving ball near leaves its place only on a clear detection: a weak blob
    beside it is the player's hand or the cue tip (the arm over the table hides the ball, shows a blob);
    unless the blob runs on straight out from its place (``struck_away``): the ball struck, blurred."""
    if not sc.resting.any():
        return _none(sc)
    lone = sc.resting & ~could_be_hit(sc)
    return lone[:, None] & (tier == 1) & sc.weak[None, :] & ~struck_away(sc)


def resumes_weakly(sc: Scene, tier: np.ndarray) -> np.ndarray:
    """The pairs in which a hidden moving ball may come back on a weak detection: missed for a frame or two
    (moving fast enough to be blurred, or with its speed unknown), and seen inside its statistical gate, or
    where its path ran into a resting ball or one just set moving (it hit it and bent off); or,
    while its run is still extrapolated (coast_s: a shadow, a blurred stretch), inside its statistical gate."""
    s = sc.s
    rolling = sc.occluded & ~sc.resting & (sc.speed_bound >= s.weak_resume_speed_mm_s)
    brief = rolling & (sc.t - sc.last_t <= s.weak_resume_s)
    coasting = rolling & (sc.t - sc.last_t <= s.coast_s)
    touched = np.zeros(len(brief), bool)
    touch_q = np.vstack([sc.rest_q, sc.left_q])
    # two balls touch with their centres a diameter apart
    touched[brief] = runs_into(sc.last[brief], sc.pred[brief], touch_q, sc.ball_diameter_mm)
    return (coasting[:, None] & (tier == 0)) | (brief[:, None] & (tier == 1) & touched[:, None])


def _hidden_weak(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A hidden ball comes back only on a clear detection (the cue or a hand over the table makes weak
    ball-like blobs), unless ``resumes_weakly``: a dark ball running into a shadow, a fast one blurred; or
    ``struck_away``: a ball lost from rest, running straight out from its place on weak, blurred detections."""
    if not sc.occluded.any():
        return _none(sc)
    return sc.occluded[:, None] & sc.weak[None, :] & ~resumes_weakly(sc, tier) & ~struck_away(sc)


def _pocket_run(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A ball hidden running into a pocket is in the jaws or gone: it comes back only near its run in."""
    return sc.occluded[:, None] & (sc.pocket_run > 2 * sc.ball_diameter_mm) & np.isfinite(sc.pocket_run)


def _tunnel(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A moving ball does not pass through a ball still at its place: a detection beyond such a ball, on the
    straight path from where the moving one was last seen, is not its (at a break the struck ball would take a
    detection deep in the rack)."""
    out = _none(sc)
    D = sc.ball_diameter_mm
    if not len(sc.z):
        return out
    still = sc.anchored & (sc.d_anchor.min(axis=1) <= 0.5 * sc.ball_radius_mm)
    if not still.any():
        return out
    q = sc.anchor[still].reshape(-1, 2)  # a still ball rests, so it is never the moving track itself
    width = D - sc.s.tunnel_tol_mm
    rows = np.flatnonzero(~sc.resting)
    if not len(rows):
        return out
    a = sc.last[rows]
    maybe = near_paths(a, sc.z[None, :, :], q, width) & allowed[rows]  # (every row's path to every detection)
    for r, i in enumerate(rows):
        if not maybe[r].any():
            continue
        cols = np.flatnonzero(allowed[i])
        long_enough = np.hypot(*(sc.z[cols] - sc.last[i]).T) >= D
        through = paths_through(sc.last[i], sc.z[cols], q, width)
        out[i, cols[through & long_enough]] = True
    return out


def _visible_ball_gate(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A detection inside a visible ball's statistical gate is that ball's: a hidden ball does not come back on
    it through the kink tier (it would take a passing ball's detection and its id)."""
    gated = ((tier == 0) & allowed & sc.seen[:, None]).any(axis=0)
    return sc.occluded[:, None] & gated[None, :] & (tier == 1)


def _pocket_follower(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A ball that ran into a pocket and vanished comes back out of the jaws only on a detection no visible ball
    was just beside: a second ball following it into the same pocket would take its id."""
    recent = sc.seen & (sc.t - sc.last_t <= 2.5 * sc.frame_dt)
    near_seen: np.ndarray = np.asarray((sc.d_last[recent] <= sc.ball_diameter_mm).any(axis=0))
    return (sc.occluded & sc.entering_pocket)[:, None] & near_seen[None, :]


def _new_ball_gate(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A new ball does not take, through the kink tier, a detection inside a known or new ball's statistical
    gate: in a rack whose ball drops out for a frame, its new track would take the neighbour's detection, that
    one the next, and so on along the rack."""
    fresh = sc.seen | sc.tentative
    gated = ((tier == 0) & allowed & fresh[:, None]).any(axis=0)
    return sc.tentative[:, None] & gated[None, :] & (tier == 1)


def _known_place(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """In the first moments a detection at a known ball's starting place is that ball's, never another's kink."""
    return (tier == 1) & sc.at_known[None, :]


def _colour_class(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """An identity never passes between balls of different colours: a track firmly classed as the cue ball (or
    as not the cue ball) does not take a detection classed the other way whose colour also differs from the
    track's by more than colour_gate_sigma (a blurred cue ball keeps its colour but may lose its class; a
    ball of another colour differs in both). In a set with no distinct cue ball the classes never disagree,
    and identities follow the motion alone."""
    dc = sc.colour_dist
    if dc is None:
        return _none(sc)
    firm = sc.s.colour_class_votes
    cue_track = sc.cue_votes >= firm
    ball_track = sc.cue_votes <= -firm
    crossed = (cue_track[:, None] & ~sc.is_cue[None, :]) | (ball_track[:, None] & sc.is_cue[None, :])
    return crossed & (dc > sc.s.colour_gate_sigma)


def _colour_owner(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A detection far off a ball's colour and far likelier the colour of another ball that could have reached
    it is that other ball's, whatever the tiers say (``association.owned_elsewhere``): a ball coming to rest
    against another does not lend it its detection. In a set of one colour (all white) the motion decides."""
    dc = sc.colour_dist
    if dc is None or len(sc.last) < 2:
        return _none(sc)
    return association.owned_elsewhere(dc, allowed, sc.s)


def _still_at_place(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A ball seen again where it was (a detection inside the anchor gate of its resting place, or of where it
    was seen the frame before) has not left that place: it takes no detection elsewhere, and no other ball
    takes that one (two balls' centres never lie within a few millimetres of each other). A ball pushed off
    its place loses that detection and moves on the other gates' terms; a hidden ball that may not come back on
    that detection (a weak blob, ``hidden_weak``) leaves it to the others."""
    just_seen = sc.seen & ~sc.anchored & (sc.t - sc.last_t <= 1.5 * sc.frame_dt)
    at = (sc.anchored[:, None] & (sc.d_anchor <= sc.s.anchor_gate_mm)) | (
        just_seen[:, None] & (sc.d_last <= sc.s.anchor_gate_mm)
    )
    at &= allowed
    held = at.any(axis=1)
    taken = at.any(axis=0)
    return (held[:, None] | taken[None, :]) & ~at


def _colour_kink(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """A collision or a cushion does not change a ball's colour: through the kink tier, a detection whose
    colour differs from the ball's by more than blur and light can make (colour_kink_sigma) is another ball,
    whatever the detector's cue class says (a set whose cue ball it does not class, a player's dark sleeve)."""
    dc = sc.colour_dist
    if dc is None:
        return _none(sc)
    return (tier == 1) & (dc > sc.s.colour_kink_sigma)


def _pocket_inside(sc: Scene, allowed: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """Inside a pocket (its hole or net) is a ball going into it or one already dropped: only a ball last seen
    going into that pocket, or in its mouth, is seen there (not a hidden ball found again on a dropped one)."""
    inside = sc.in_pocket >= 0
    return inside[None, :] & (sc.in_pocket[None, :] != sc.going_pocket[:, None])


GATES: tuple[Gate, ...] = (
    Gate("backward_kick", "a struck lone ball leaves away from its hitter, not back along the hitter's run",
         _backward_kick),
    Gate("lone_rest_weak", "a lone resting ball is set moving by a clear detection, not a hand-like blob",
         _lone_rest_weak),
    Gate("hidden_weak", "a hidden ball returns on a clear detection, or weakly where it was just predicted",
         _hidden_weak),
    Gate("pocket_run", "a ball hidden running into a pocket comes back only near its run into the mouth",
         _pocket_run),
    Gate("tunnel", "a moving ball cannot pass through a ball that is still at its place", _tunnel),
    Gate("visible_ball", "a detection inside a visible ball's gate is that ball's, not a hidden one's",
         _visible_ball_gate),
    Gate("pocket_follower", "a ball gone into a pocket does not return as the ball following it in",
         _pocket_follower),
    Gate("new_ball", "a new ball does not take a detection inside another ball's statistical gate",
         _new_ball_gate),
    Gate("colour_class", "a ball keeps its colour: no identity passes to a ball of another colour and class",
         _colour_class),
    Gate("colour_owner", "a detection of another reachable ball's colour, far likelier its, is not this ball's",
         _colour_owner),
    Gate("known_place", "at the start a detection on a ball's known place is that ball's", _known_place),
    Gate("pocket_inside", "inside a pocket is only the ball that was going into it", _pocket_inside),
    Gate("still_at_place", "a ball seen where it rests (or just was) has not left; that detection is its own",
         _still_at_place),
    Gate("colour_kink", "a collision does not change a ball's colour: a far-off colour is another ball",
         _colour_kink),
)  # fmt: skip


def apply(sc: Scene, allowed: np.ndarray, tier: np.ndarray, gates: tuple[Gate, ...] = GATES) -> np.ndarray:
    """The pairs left allowed after each gate in turn."""
    for g in gates:
        allowed = g.allows(sc, allowed, tier)
    return allowed
