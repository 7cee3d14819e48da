"""Scores one analyze run of a real clip against its by-eye label (``_real_labels``).

What each figure means (printed by ``tableref bench real`` too):

- **pots**: a found pot matches a labelled one when it is in the same pocket, named by its IMAGE position
  (each pocket's mouth centre projected to pixels with the calibration the run used; ``top-left`` ... or
  ``left-top`` ... as the label names them), and its time lies in the label's frame window (jaws .. gone)
  widened by ``POT_SLACK_S`` either side; one-to-one, earliest label first. "Pocket and ball" also needs the
  same ball, judged only where the label and the run both give an id that can be compared (``cue`` or a
  number); the count of such pots is printed beside it.
- **tracked at the first / last frame**: labelled balls that a track lies on, one track per ball (optimal
  assignment), within one ball diameter of the labelled pixel projected to the table through the
  calibration (at the ball centre's height). A tracker needs a frame or two to confirm a ball, so a track
  counts at the first frame if it exists within ``EDGE_S`` of it (its position at the frame nearest it), and
  likewise at the last.
- **phantom track**: a track that never comes within one ball diameter of any labelled ball's position at
  the first or the last frame (where every real ball rests, or comes to rest), and that is not a moving
  ball's fragment: a fragment lives only after a labelled stroke (anywhere in a clip that labels none: it
  begins with its shot under way) and moves at a rolling ball's speed (median over its life >=
  ``MOVING_MM_S``). Its phantom time is its whole lifetime. Moving fragments are
  counted apart ("excused"), so that what the rule excuses is in the printout.
- **first contact**: per labelled shot, the run's shot starting within ``SHOT_SLACK_S`` of the stroke; its
  first contact that involves the struck ball names the other ball. It is right when the label's first hit
  and that ball are the same id (both ``cue`` or numbers); else when that track lay on a labelled ball of the
  label's name at the first frame (or, not tracked then, at the last); else when it lay, at the stroke,
  within one ball diameter of a labelled ball of that name (first or last frame). Where several labelled
  balls share the name ("red"), any of them is right. A label of "no ball hit" is right when the run's shot
  has no contact of the struck ball.
- **cue transfer**: at the first or the last frame the run's cue track lies on a labelled ball that is not
  the cue ball (within one diameter of it and, where the cue ball is labelled then, nearer to it than to
  the cue ball), or lies off the labelled cue ball that is on the table then (counted once per clip edge).
  The run's cue track is the one it names ``cue``; where its tracker names none (pool's "eight"), the ball
  its first shot started with.
- **events in cuts**: events whose frame lies in a labelled ``cuts`` span (a camera cut or a wipe): none is
  right.
- **off table**: labelled balls leaving the table matched to the run's ``off_table`` events within
  ``SHOT_SLACK_S``; the rest of the run's ``off_table`` events are false.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from api.bench._real_labels import ClipLabel, LabelledBall, is_numbered, labelled_cue
from calibration.mapping import CORNER_NAMES, Calibration, CalibrationError

POT_SLACK_S = 0.2  # a pot is timed when the ball crosses the mouth; the label, by what the eye sees
EDGE_S = 0.2  # how soon after the first frame (and before the last) a track counts as "at" it
MOVING_MM_S = 150.0  # median speed of a rolling ball's track fragment (a resting thing is slower)
SHOT_SLACK_S = 0.5  # a stroke seen by eye and the run's shot start


@dataclass(frozen=True)
class Track:
    ball: str
    frame: np.ndarray  # int
    xy: np.ndarray  # (N, 2) table mm


@dataclass
class ClipScore:
    name: str
    split: str
    error: str | None = None  # the one-line error of a run that did not finish
    speed: float | None = None  # x real time, as analyze printed it
    cpu_speed: float | None = None  # the clip's seconds per CPU second of the analyze process
    pots_labelled: int = 0
    pots_found: int = 0
    pots_right_pocket: int = 0
    pots_ball_comparable: int = 0
    pots_ball_right: int = 0
    first_labelled: int = 0
    first_tracked: int = 0
    last_labelled: int = 0
    last_tracked: int = 0
    phantoms: int = 0
    phantom_s: float = 0.0
    phantom_longest_s: float = 0.0
    excused_moving: int = 0
    excused_moving_s: float = 0.0
    shots_labelled: int = 0
    first_contact_right: int = 0
    cue_transfers: int = 0
    events_in_cuts: int = 0
    off_labelled: int = 0
    off_found: int = 0
    off_right: int = 0
    notes: list[str] = field(default_factory=list)


def read_tracks(path: Path) -> dict[str, Track]:
    rows: dict[str, list[tuple[int, float, float]]] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["ball"], []).append((int(r["frame"]), float(r["x"]), float(r["y"])))
    out = {}
    for ball, rs in rows.items():
        rs.sort()
        a = np.array(rs, dtype=np.float64)
        out[ball] = Track(ball, a[:, 0].astype(np.int64), a[:, 1:3])
    return out


def image_pocket_names(cal: Calibration, lying: bool | None = None) -> dict[str, str]:
    """Each pocket's name by where the calibration puts it in the image: ``top-left`` ... for a table lying
    across the picture, ``left-top`` ... for one standing upright in it. ``lying`` gives the naming; None takes
    it from the long axis's slope in the image. A pocket is named by its long side and its end of the table:
    the side whose middle pocket appears higher (lying) or further left (standing), the end whose corner
    pockets appear further left (lying) or higher (standing), so that a table seen obliquely, its long axis
    near a diagonal of the picture, still has six names for six pockets."""
    if lying is None:
        corners = {n: np.asarray(cal.corners_px[n], dtype=np.float64) for n in CORNER_NAMES}
        house = (corners["house-left"] + corners["house-right"]) / 2
        axis = (corners["pyramid-left"] + corners["pyramid-right"]) / 2 - house
        lying = bool(abs(axis[0]) >= abs(axis[1]))
    tb = cal.table
    pockets = list(tb.pockets.values())
    px = {pk.name: cal.table_to_image(np.array([pk.mouth_center]))[0] for pk in pockets}
    near_side = {pk.name: pk.mouth_center[1] < tb.width_mm / 2 for pk in pockets}  # the long side y = 0
    near_end = {pk.name: pk.mouth_center[0] < tb.length_mm / 2 for pk in pockets}  # the end x = 0
    # image coordinate that names the sides (v lying: top/bottom; u standing: left/right) and the ends
    k_side, k_end = (1, 0) if lying else (0, 1)
    side_px = {flag: np.mean([px[n][k_side] for n in px if near_side[n] == flag]) for flag in (True, False)}
    end_px = {flag: np.mean([px[n][k_end] for n, pk in zip(px, pockets, strict=True)
                             if pk.kind != "middle" and near_end[n] == flag]) for flag in (True, False)}  # fmt: skip
    side_words, end_words = (("top", "bottom"), ("left", "right")) if lying else (("left", "right"), ("top", "bottom"))
    names = {}
    for pk in pockets:
        side = side_words[0] if side_px[near_side[pk.name]] < side_px[not near_side[pk.name]] else side_words[1]
        if pk.kind == "middle":
            end = "middle"
        else:
            end = end_words[0] if end_px[near_end[pk.name]] < end_px[not near_end[pk.name]] else end_words[1]
        names[pk.name] = f"{side}-{end}"
    return names


def balls_mm(cal: Calibration, balls: tuple[LabelledBall, ...]) -> np.ndarray:
    """Table mm of labelled ball centres (pixels cut at the ball centre's height; on the cloth plane where the
    calibration cannot place the camera)."""
    if not balls:
        return np.zeros((0, 2))
    px = np.array([b.px for b in balls], dtype=np.float64)
    try:
        return cal.ball_px_to_table(px)
    except CalibrationError:
        return cal.image_to_table(px)


def _match(a: np.ndarray, b: np.ndarray, gate: float) -> list[tuple[int, int]]:
    """Optimal one-to-one pairs (i of a, j of b) within ``gate``."""
    if len(a) == 0 or len(b) == 0:
        return []
    d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    cost = np.where(d <= gate, d, 1e9)
    r, c = linear_sum_assignment(cost)
    return [(int(i), int(j)) for i, j in zip(r, c, strict=True) if cost[i, j] < 1e9]


def tracks_at(tracks: dict[str, Track], frame: int, lo: int, hi: int) -> tuple[list[str], np.ndarray]:
    """Every track alive somewhere in frames [lo, hi], at its frame nearest ``frame``."""
    names, pts = [], []
    for ball, tr in tracks.items():
        inside = np.flatnonzero((tr.frame >= lo) & (tr.frame <= hi))
        if len(inside):
            k = inside[np.argmin(np.abs(tr.frame[inside] - frame))]
            names.append(ball)
            pts.append(tr.xy[k])
    return names, np.array(pts, dtype=np.float64).reshape(-1, 2)


def label_naming(label: ClipLabel) -> bool | None:
    """Whether the label names pockets as on a table lying across the picture (``top-left`` ...: True) or
    standing in it (``left-top`` ...: False); None where it names none. A table filmed obliquely, its long
    axis near a diagonal of the picture, can be read either way: the person labelling chose, and the run's
    pockets are named the same way."""
    firsts = {p.pocket.split("-")[0] for p in label.pots}
    if firsts and firsts <= {"top", "bottom"}:
        return True
    if firsts and firsts <= {"left", "right"}:
        return False
    return None


def _score_pots(s: ClipScore, label: ClipLabel, cal: Calibration, events: list[dict[str, Any]]) -> None:
    names = image_pocket_names(cal, label_naming(label))
    found = [e for e in events if e.get("type") == "pot"]
    s.pots_labelled, s.pots_found = len(label.pots), len(found)
    used: set[int] = set()
    for lp in sorted(label.pots, key=lambda p: p.frames[0]):
        lo = lp.frames[0] / label.fps - POT_SLACK_S
        hi = lp.frames[1] / label.fps + POT_SLACK_S
        mid = (lo + hi) / 2
        cands = [
            (abs(float(e.get("t") or 0.0) - mid), i)
            for i, e in enumerate(found)
            if i not in used and names.get(str(e.get("pocket"))) == lp.pocket and lo <= float(e.get("t") or 0.0) <= hi
        ]
        if not cands:
            continue
        _, i = min(cands)
        used.add(i)
        s.pots_right_pocket += 1
        ours = str(found[i].get("ball"))
        if is_numbered(lp.ball) and is_numbered(ours):
            s.pots_ball_comparable += 1
            s.pots_ball_right += int(ours == lp.ball)
    for i, e in enumerate(found):
        if i not in used:
            s.notes.append(f"pot not in the labels: {e.get('ball')} into {names.get(str(e.get('pocket')), '?')} "
                           f"at frame {e.get('frame')}")  # fmt: skip


def run_cue(tracks: dict[str, Track], events: list[dict[str, Any]]) -> str | None:
    """The run's cue ball: the track it names ``cue``; in a game whose tracker names no cue ball, the ball
    its first shot started with (a stroke sets the cue ball moving)."""
    if "cue" in tracks:
        return "cue"
    starts = sorted((float(e.get("t") or 0.0), str(e.get("ball"))) for e in events if e.get("type") == "shot_start")
    return starts[0][1] if starts else None


def _score_presence(
    s: ClipScore, label: ClipLabel, cal: Calibration, tracks: dict[str, Track], d: float, cue: str | None
) -> dict[str, str]:
    """Balls tracked at the two edges and the cue track's identity there; returns the labelled name of each
    track that lies on a labelled ball at the first frame (else at the last)."""
    edge = max(1, round(EDGE_S * label.fps))
    last = label.frames - 1
    names: dict[str, str] = {}
    for which, balls, frame, lo, hi in (
        ("first", label.balls_first, 0, 0, edge),
        ("last", label.balls_last, last, last - edge, last),
    ):
        truth = balls_mm(cal, balls)
        ids, pts = tracks_at(tracks, frame, lo, hi)
        pairs = _match(truth, pts, d)
        setattr(s, f"{which}_labelled", len(balls))
        setattr(s, f"{which}_tracked", len(pairs))
        for j, k in pairs:
            names.setdefault(ids[k], balls[j].ball)
        # Cue identity: our cue track against the labelled balls at this edge.
        if cue is None or cue not in ids:
            continue  # a cue ball never tracked is counted above, not as a transfer
        cue_xy = pts[ids.index(cue)]
        dist = np.linalg.norm(truth - cue_xy, axis=1) if len(truth) else np.zeros(0)
        lab_cue = labelled_cue(balls)
        at = balls.index(lab_cue) if lab_cue is not None else None
        # Two balls at rest in contact have centres one diameter apart: a cue ball resting against another
        # ball, tracked or labelled a few mm toward it, lies within a diameter of both labels. The track is
        # on the other ball only where that ball's label is also the nearer of the two.
        near = dist <= d if at is None else (dist <= d) & (dist < dist[at])
        on_other = [balls[j].ball for j in np.flatnonzero(near) if balls[j] is not lab_cue]
        off_cue = at is not None and dist[at] > d
        if on_other or off_cue:
            s.cue_transfers += 1
            what = f"on the labelled {on_other[0]}" if on_other else "off the labelled cue ball"
            s.notes.append(f"cue track ({cue}) {what} at the {which} frame")
    return names


def _speed_median(tr: Track, fps: float) -> float:
    if len(tr.frame) < 2:
        return 0.0
    dt = np.diff(tr.frame) / fps
    v = np.linalg.norm(np.diff(tr.xy, axis=0), axis=1) / np.maximum(dt, 1e-9)
    return float(np.median(v))


@dataclass
class PhantomTally:
    """The phantom tracks of one run (the module's docstring defines them) and the moving fragments excused,
    each with its lifetime (s)."""

    found: list[tuple[Track, float]] = field(default_factory=list)
    excused: list[tuple[Track, float]] = field(default_factory=list)

    @property
    def phantoms(self) -> int:
        return len(self.found)

    @property
    def phantom_s(self) -> float:
        return sum(life for _, life in self.found)

    @property
    def longest_s(self) -> float:
        return max((life for _, life in self.found), default=0.0)


def phantom_tally(
    tracks: Iterable[Track], near_ball: Callable[[Track], bool], fps: float, strikes: Iterable[int]
) -> PhantomTally:
    """The tracks for which ``near_ball`` (whether the track ever comes within one ball diameter of a real ball)
    is false, less the moving fragments: tracks born after the first of the ``strikes`` (frames; none: the clip
    begins with its shot under way) that move at a rolling ball's speed. The truth behind ``near_ball`` is the
    caller's: by-eye rest positions for real footage, every frame's truth balls for a rendered scene."""
    strikes = list(strikes)
    first_strike = min(strikes) - round(EDGE_S * fps) if strikes else 0
    out = PhantomTally()
    for tr in tracks:
        if near_ball(tr):
            continue
        life = (int(tr.frame[-1]) - int(tr.frame[0]) + 1) / fps
        moving = tr.frame[0] >= first_strike and _speed_median(tr, fps) >= MOVING_MM_S
        (out.excused if moving else out.found).append((tr, life))
    return out


def _score_phantoms(s: ClipScore, label: ClipLabel, cal: Calibration, tracks: dict[str, Track], d: float) -> None:
    rest = np.vstack([balls_mm(cal, label.balls_first), balls_mm(cal, label.balls_last)])

    def near_rest(tr: Track) -> bool:
        return bool(len(rest)) and bool(np.min(np.linalg.norm(tr.xy[:, None, :] - rest[None, :, :], axis=2)) <= d)

    tally = phantom_tally(tracks.values(), near_rest, label.fps, [sh.strike_frame for sh in label.shots])
    s.phantoms, s.phantom_s, s.phantom_longest_s = tally.phantoms, tally.phantom_s, tally.longest_s
    s.excused_moving, s.excused_moving_s = len(tally.excused), sum(life for _, life in tally.excused)
    for tr, life in tally.found:
        if life > 0.5:
            u, v = cal.table_to_image(np.median(tr.xy, axis=0).reshape(1, 2))[0]
            s.notes.append(
                f"phantom {tr.ball}: frames {int(tr.frame[0])}-{int(tr.frame[-1])} ({life:.1f} s), "
                f"about px ({u:.0f}, {v:.0f})"
            )


def _position_at(tracks: dict[str, Track], ball: str, frame: int, start: dict[str, Any]) -> np.ndarray | None:
    tr = tracks.get(ball)
    if tr is not None and len(tr.frame):
        k = int(np.argmin(np.abs(tr.frame - frame)))
        if abs(int(tr.frame[k]) - frame) <= 2:
            return tr.xy[k]
    pos = (start.get("positions") or {}).get(ball)
    return None if pos is None else np.asarray(pos, dtype=np.float64)


def _score_first_contacts(
    s: ClipScore,
    label: ClipLabel,
    cal: Calibration,
    events: list[dict[str, Any]],
    tracks: dict[str, Track],
    names: dict[str, str],
) -> None:
    d = cal.table.ball_diameter_mm
    starts = [e for e in events if e.get("type") == "shot_start"]
    s.shots_labelled = len(label.shots)
    used: set[int] = set()
    every = label.balls_first + label.balls_last
    every_mm = balls_mm(cal, every)
    for sh in sorted(label.shots, key=lambda x: x.strike_frame):
        t = sh.strike_frame / label.fps
        cands = [(abs(float(e.get("t") or 0.0) - t), i) for i, e in enumerate(starts)
                 if i not in used and abs(float(e.get("t") or 0.0) - t) <= SHOT_SLACK_S]  # fmt: skip
        if not cands:
            s.notes.append(f"shot at frame {sh.strike_frame}: no shot start found")
            continue
        _, i = min(cands)
        used.add(i)
        start = starts[i]
        struck = str(start.get("ball"))
        hits = [e for e in events if e.get("type") == "contact" and e.get("shot") == start.get("shot")
                and struck in (e.get("balls") or [])]  # fmt: skip
        hits.sort(key=lambda e: float(e.get("t") or 0.0))
        other = None
        if hits:
            a, b = hits[0]["balls"][:2]
            other = str(b if a == struck else a)
        if sh.first_hit is None or other is None:
            ok = sh.first_hit is None and other is None
        elif is_numbered(sh.first_hit) and is_numbered(other):
            ok = other == sh.first_hit
        elif other in names:
            ok = names[other] == sh.first_hit
        else:
            xy = _position_at(tracks, other, int(start.get("frame") or 0), start)
            ok = xy is not None and any(
                b.ball == sh.first_hit and np.linalg.norm(every_mm[j] - xy) <= d for j, b in enumerate(every)
            )
        s.first_contact_right += int(ok)
        if not ok:
            s.notes.append(f"shot at frame {sh.strike_frame}: first hit {other} (label {sh.first_hit})")


def _score_cuts_and_off(s: ClipScore, label: ClipLabel, events: list[dict[str, Any]]) -> None:
    for e in events:
        f = e.get("frame")
        if f is not None and any(a <= int(f) <= b for a, b in label.cuts):
            s.events_in_cuts += 1
    found = [e for e in events if e.get("type") == "off_table"]
    s.off_labelled, s.off_found = len(label.off_table), len(found)
    used: set[int] = set()
    for _ball, frame in label.off_table:
        t = frame / label.fps
        cands = [(abs(float(e.get("t") or 0.0) - t), i) for i, e in enumerate(found)
                 if i not in used and abs(float(e.get("t") or 0.0) - t) <= SHOT_SLACK_S]  # fmt: skip
        if cands:
            used.add(min(cands)[1])
            s.off_right += 1


def score_clip(
    label: ClipLabel,
    cal: Calibration,
    events: list[dict[str, Any]],
    tracks: dict[str, Track],
    speed: float | None = None,
) -> ClipScore:
    """Every figure of one clip's run (the module's docstring says what each means)."""
    s = ClipScore(label.name, label.split, speed=speed)
    d = cal.table.ball_diameter_mm
    _score_pots(s, label, cal, events)
    names = _score_presence(s, label, cal, tracks, d, run_cue(tracks, events))
    _score_phantoms(s, label, cal, tracks, d)
    _score_first_contacts(s, label, cal, events, tracks, names)
    _score_cuts_and_off(s, label, events)
    return s
