"""Path segmentation, the only streaming state of event detection.

Each ball's samples are cut into *segments*: a resting segment (the anchored position) or a moving segment (a
straight, decelerating path, ``tracking.trajectory``). A moving segment ends where its fit stops predicting the
ball (two samples in a row beyond the residual gate, or a kink the tracker saw), where the ball comes to rest, or
where it leaves the table; each such end is a ``Break`` for the detectors to explain.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from calibration.contract import Point
from tracking.detect.geometry import as_pt
from tracking.trajectory import PathFit, fit_path, intersect_paths

if TYPE_CHECKING:
    from tracking.extractor import EventExtractor


@dataclass(frozen=True)
class PathView:
    """One finished path as a detector reads it: the ball, its sample times and positions (mm, table frame) from
    its start to its end, and how much farther off a line its start must be to count as clear of it
    (``from_rest_mm``: a ball that set off from rest is measured off its true place by neighbours' edges). A path
    that starts at a kink carries the path that ended there (``before``, itself without one): a ball bent on a
    line by a contact passed over it, it did not rest on it, so where it came from is read off that path."""

    ball: str
    ts: tuple[float, ...]
    ps: tuple[np.ndarray, ...]
    from_rest_mm: float = 0.0
    before: PathView | None = None


def samples_between(b: Ball, t0: float, t1: float) -> PathView:
    """The ball's samples in a segment from ``t0`` to ``t1`` (its detections where the tracker anchored it)."""
    lo, hi = bisect.bisect_left(b.ts, t0), bisect.bisect_right(b.ts, t1)
    idx = [i for i in range(lo, hi) if b.sid[i] >= 0]
    return PathView(b.id, tuple(b.ts[i] for i in idx), tuple(b.seen.get(i, b.xy[i]) for i in idx))


def trail(b: Ball) -> Trail:
    """The ball's every sample as the tracker gave it (rejected outliers too), as ``cushions.rattle`` reads it."""
    n = len(b.ts)
    return Trail(b.id, b.ts_arr[:n].copy(), b.xy_arr[:n].copy())


def rest_positions(balls: Mapping[str, Ball], at: float | None = None) -> dict[str, Point]:
    """Where each ball on the table rests (its anchored place), for a shot's start and end; ``at``: the balls on
    the table at that time, a ball since gone from it (seen after ``at``) among them."""

    def there(o: Ball) -> bool:
        return o.on_table or (at is not None and bool(o.ts) and o.ts[-1] > at)

    return {k: as_pt(o.rest_pos) for k, o in balls.items() if there(o) and o.rest_pos is not None}


def last_places(balls: Mapping[str, Ball]) -> dict[str, Point]:
    """Where each ball on the table never seen still (no resting place: half hidden, its detections unsteady)
    was last seen, for a shot's start."""
    return {k: as_pt(o.xy[-1]) for k, o in balls.items() if o.on_table and o.rest_pos is None and o.xy}


def new_seg(ex: EventExtractor, b: Ball, kind: str, t: float, p: np.ndarray) -> Seg:
    ex.sid += 1
    seg = Seg(ex.sid, kind, t, p.copy())
    b.segs.append(seg)
    ex.segs[seg.sid] = seg
    return seg


def push(ex: EventExtractor, b: Ball, t: float, p: np.ndarray, seg: Seg | None) -> int:
    b.ts.append(t)
    b.xy.append(p)
    b.sid.append(seg.sid if seg is not None else -1)
    i = len(b.ts) - 1
    if i >= len(b.ts_arr):
        b.ts_arr = np.concatenate([b.ts_arr, np.empty(len(b.ts_arr))])
        b.xy_arr = np.concatenate([b.xy_arr, np.empty((len(b.xy_arr), 2))])
    b.ts_arr[i] = t
    b.xy_arr[i] = p
    if seg is not None:
        seg.idx.append(i)
    return i


def packed(ex: EventExtractor, b: Ball) -> bool:
    """Is ``b`` resting against another ball (within the frozen tolerance)?"""
    if b.rest_pos is None:
        return False
    reach = ex.table.ball_diameter_mm + ex.s.contacts.frozen_tol_mm
    return any(
        o is not b and o.on_table and o.rest_pos is not None and np.hypot(*(o.rest_pos - b.rest_pos)) <= reach
        for o in ex.balls.values()
    )


def add_move_sample(ex: EventExtractor, b: Ball, t: float, p: np.ndarray, kinked: bool) -> None:
    if not b.segs:
        new_seg(ex, b, "move", t, p)
        push(ex, b, t, p, b.seg)
        return
    if b.seg.kind == "move" and never_left(ex, b, t, p):
        # it was set moving by a few millimetres (a hard stroke's first blurred frame) and vanished: it
        # never left its place visibly, so that was its rest, and it is set moving now, seen far away
        b.seg.kind = "rest"
    if b.seg.kind == "rest":
        old = b.seg
        t_lo = b.ts[old.idx[-1]] if old.idx else t
        new = new_seg(ex, b, "move", t, b.rest_pos if b.rest_pos is not None else p)
        new.packed = packed(ex, b)
        push(ex, b, t, p, new)
        b.breaks.append(Break("start", old, new, t_lo, t))
        return
    seg = b.seg
    good = newest_in(b, seg, max(ex.s.segments.window, 3))  # all of them when fewer: enough for the tests below
    if kinked and len(good) >= 2:
        start = b.pending if b.pending is not None else None
        split(ex, b, t, p, start)
        return
    if len(good) < 3:
        if b.pending is not None:
            b.sid[b.pending] = -1
            b.pending = None
        push(ex, b, t, p, seg)
        return
    sel = good[-ex.s.segments.window :]
    f = fit_path(b.ts_arr[sel], b.xy_arr[sel], closed_form=True)
    step = float(np.linalg.norm(f.vel(t))) * ex.dt
    r = float(np.linalg.norm(f.at(t) - p))
    if r > ex.s.segments.break_mm + ex.s.segments.break_frac * step + 3 * f.rms_mm:
        if b.pending is None:
            b.pending = push(ex, b, t, p, None)
        else:
            split(ex, b, t, p, b.pending)
        return
    if b.pending is not None:
        b.pending = None  # the previous sample was an outlier (it stays rejected)
    push(ex, b, t, p, seg)


def never_left(ex: EventExtractor, b: Ball, t: float, p: np.ndarray) -> bool:
    """The moving segment so far is a few samples at its resting place, then the ball was gone for a
    while, and ``p`` (seen now) is far from that place."""
    if b.rest_pos is None or len(b.segs) < 2 or b.segs[-2].kind != "rest":
        return False
    newest = newest_in(b, b.seg, 1)
    if not newest or t - b.ts[newest[-1]] <= 4 * ex.dt:
        return False
    good = [i for i in b.seg.idx if b.sid[i] == b.seg.sid]
    near = ex.s.segments.start_min_mm
    if float(np.linalg.norm(p - b.rest_pos)) <= 3 * near:
        return False
    return all(float(np.linalg.norm(b.xy[i] - b.rest_pos)) <= near for i in good)


def split(ex: EventExtractor, b: Ball, t: float, p: np.ndarray, first: int | None) -> None:
    old = b.seg
    good = [i for i in old.idx if b.sid[i] == old.sid]
    t_lo = b.ts[good[-1]]
    if first is not None:
        new = new_seg(ex, b, "move", b.ts[first], b.xy[first])
        b.sid[first] = new.sid
        new.idx.append(first)
        t_hi = b.ts[first]
    else:
        new = new_seg(ex, b, "move", t, p)
        t_hi = t
    b.pending = None
    push(ex, b, t, p, new)
    b.breaks.append(Break("kink", old, new, t_lo, t_hi))


def fit(ex: EventExtractor, b: Ball, idx: list[int], head: bool = False) -> PathFit:
    good = [i for i in idx if b.sid[i] >= 0]
    sel = good[: ex.s.segments.window] if head else good[-ex.s.segments.window :]
    return fit_path(np.array([b.ts[j] for j in sel]), np.array([b.xy[j] for j in sel]))


def kink_span(b: Ball, br: Break, short_samples: int) -> Break:
    """The break a kink is read across: ``br``, or, where the path before it is a sample or two
    (``short_samples``) between two kinks nothing explained, the break from the path before that one (one bounce
    with a stray measurement in it, the blurred frame of a fast bounce: explained from the paths either side)."""
    before = seg_before(b, br.old)
    short = len([i for i in br.old.idx if b.sid[i] >= 0]) <= short_samples
    if br.old.unexplained and short and before is not None and before.kind == "move":
        t_lo = max((b.ts[i] for i in before.idx if b.sid[i] >= 0), default=br.t_lo)
        return Break("kink", before, br.new, t_lo, br.t_hi)
    return br


def kink_view(ex: EventExtractor, b: Ball, br: Break) -> Kink:
    """The kink of ``b``'s path across the break ``br`` (``kink_span``): the paths fitted either side, where they
    meet, and the window a touch is looked for in, as the kink's detectors read it."""
    dt = ex.dt
    old = fit(ex, b, br.old.idx)
    new = fit(ex, b, br.new.idx, head=True)
    t_k = intersect_paths(old, new, br.t_lo - 0.5 * dt, br.t_hi) if new.n >= 2 else br.t_lo + 0.5 * dt
    lo, hi = br.t_lo - dt, br.t_hi + 0.5 * dt
    into, t_last = trimmed_before_kink(ex, b, br.old.idx) or (old, br.t_lo)  # for timing a cushion touch
    return Kink(b.id, old, new, into, t_last, t_k, old.at(t_k), lo, hi, min(lo, t_last - 0.5 * dt), br.t_lo, br.t_hi)


def neighbours(ex: EventExtractor, k: Kink) -> list[Neighbour]:
    """The other balls' paths at a kink, as ``contacts.kink_readings`` reads them: each ball's path just before
    the bend, and where the bending ball's path in took samples from after the bend and the other was moving, its
    path just before the last sample in."""
    out = []
    for o in ex.balls.values():
        if o.id == k.ball or not o.ts:
            continue
        pb = path_before(ex, o, k.t)
        if pb is None:
            continue
        pt = path_before(ex, o, k.t_last) if k.into is not k.old and pb[1] else None
        after = range(bisect.bisect_right(o.ts, min(k.t_lo, k.t_last) + 0.25 * ex.dt), len(o.ts))
        ts = np.array([o.ts[i] for i in after])
        xy = np.array([o.seen.get(i, o.xy[i]) for i in after]).reshape(-1, 2)
        out.append(Neighbour(o.id, pb[0], pb[1], None if pt is None else pt[0], ts, xy))
    return out


def path_samples(b: Ball, seg: Seg) -> PathView:
    """The kept samples of the path ``seg`` so far (``cushions.paths_out`` reads them)."""
    good = [i for i in seg.idx if b.sid[i] >= 0]
    return PathView(b.id, tuple(b.ts[i] for i in good), tuple(b.xy[i] for i in good))


def finished_path(b: Ball, seg: Seg, packed_mm: float) -> PathView:
    """The finished path ``seg`` from its start through its kept samples to its end, with ``packed_mm`` more
    margin from a line where it set off from rest against other balls (their edges pull a resting ball's
    measured centre), as ``cushions.grazes`` and ``lines.crossings`` read it."""
    assert seg.end_t is not None and seg.end_p is not None  # (a finished path has its end)
    good = [i for i in seg.idx if b.sid[i] >= 0]
    ts = (seg.start_t, *(b.ts[i] for i in good), seg.end_t)
    ps = (seg.start_p, *(b.xy[i] for i in good), seg.end_p)
    before = seg_before(b, seg)
    packed = seg.packed and before is not None and before.kind == "rest"
    return PathView(b.id, ts, ps, packed_mm if packed else 0.0, path_into(b, seg))


def path_into(b: Ball, seg: Seg) -> PathView | None:
    """The finished path that ended at the kink where ``seg`` starts, from its start through its kept samples to
    its end (None where ``seg`` set off from rest, or is the ball's first)."""
    before = seg_before(b, seg)
    if before is None or before.kind != "move" or before.end_t is None or before.end_p is None:
        return None
    good = [i for i in before.idx if b.sid[i] >= 0]
    ts = (before.start_t, *(b.ts[i] for i in good), before.end_t)
    return PathView(b.id, ts, (before.start_p, *(b.xy[i] for i in good), before.end_p))


def settled_path(b: Ball, st: Settling, n: int) -> SettledPath:
    """A path that ended in rest (``st``) with the ball's first ``n`` detections in that rest, while it crept to
    where it settled, as ``breaks.settled_views`` reads it."""
    idx = st.rest.idx[:n]
    ts = (*st.ts, *(b.ts[i] for i in idx))
    ps = (*st.ps, *(b.seen.get(i, b.xy[i]) for i in idx))
    move = seg_before(b, st.rest)
    return SettledPath(PathView(b.id, ts, ps, st.from_rest, None if move is None else path_into(b, move)), len(idx))


def trimmed_before_kink(ex: EventExtractor, b: Ball, idx: list[int]) -> tuple[PathFit, float] | None:
    """The incoming path of a kink without its last samples, and the time of the last one kept, where those
    came after the bounce: a segment may take in a sample or two from after it before the break shows (a
    glancing bounce, or the blurred frame of the bounce itself, measured where the ball was on average).
    Trailing samples this far off the path of the ones before them (``tail_off_mm``) are left out, so the
    touch is timed on the incoming path alone. None when no sample is off it."""
    good = [i for i in idx if b.sid[i] >= 0]
    for m in (2, 1):
        keep = good[-ex.s.segments.window - m : -m]
        if len(keep) < 4:
            continue
        f = fit_path(np.array([b.ts[j] for j in keep]), np.array([b.xy[j] for j in keep]))
        if all(np.linalg.norm(f.at(b.ts[j]) - b.xy[j]) > ex.s.segments.tail_off_mm for j in good[-m:]):
            return f, b.ts[keep[-1]]
    return None


def path_before(ex: EventExtractor, b: Ball, t: float) -> tuple[PathFit, bool] | None:
    """The ball's path just before ``t``: (fit, moving). None if it has no sample by then."""
    i = bisect.bisect_right(b.ts, t + 0.25 * ex.dt) - 1
    while i >= 0 and b.sid[i] < 0:
        i -= 1
    if i < 0:
        return None
    seg = ex.segs[b.sid[i]]
    upto = seg.idx[: bisect.bisect_right(seg.idx, i)]  # its samples by then (``push`` appends growing indices)
    if seg.kind == "rest":
        a = np.array([b.xy[j] for j in upto[-ex.s.segments.window :]])
        return PathFit.still(a.mean(axis=0), seg.start_t, t), False
    sel = [j for j in upto if b.sid[j] >= 0]
    f = fit_path(
        np.array([b.ts[j] for j in sel[-ex.s.segments.window :]]),
        np.array([b.xy[j] for j in sel[-ex.s.segments.window :]]),
    )
    if len(sel) < 2:
        # one sample into a new leg (the tracker saw it bend a frame early: at a break the struck ball's last
        # frame before the hit): the leg it came in on, if it was moving
        prev = seg_before(b, seg)
        if prev is not None and prev.kind == "move" and any(b.sid[j] >= 0 for j in prev.idx):
            g = fit(ex, b, prev.idx)
            if g.n >= 2 and float(np.linalg.norm(g.vel(t))) > 5.0:
                return g, True
        return PathFit.still(b.xy[sel[-1]], seg.start_t, t), False
    return f, float(np.linalg.norm(f.vel(t))) > 5.0


def approaches(ex: EventExtractor, ball: str, t: float) -> list[Approach]:
    """Every other ball's path just before ``t`` (``path_before``), as ``contacts.find_hitter`` reads them."""
    out = []
    for o in ex.balls.values():
        if o.id == ball or not o.ts:
            continue
        pb = path_before(ex, o, t)
        if pb is None:
            continue
        start = o.seg.start_t if o.seg.kind == "move" else None
        out.append(Approach(o.id, pb[0], pb[1], o.last_event_t, start))
    return out


def left_rests(ex: EventExtractor, ball: str) -> list[LeftRest]:
    """Every other ball on the table that has rested: its last rest and its kept samples since, as
    ``contacts.unseen_striker`` reads them."""
    out = []
    for o in ex.balls.values():
        if o.id == ball or not o.on_table or o.rest_pos is None or not o.ts or not o.segs:
            continue
        rest = next((sg for sg in reversed(o.segs) if sg.kind == "rest" and sg.idx), None)
        if rest is None:
            continue
        after = [i for i in range(rest.idx[-1] + 1, len(o.ts)) if o.sid[i] >= 0]
        ts = np.array([o.ts[i] for i in after])
        xy = np.array([o.xy[i] for i in after]).reshape(-1, 2)
        out.append(LeftRest(o.id, o.rest_pos, o.ts[rest.idx[-1]], ts, xy))
    return out


def last_seen(ex: EventExtractor, ball: str, t: float) -> list[LastSeen]:
    """Every other ball on the table whose last sample by ``t`` was kept on a moving path: that sample and up
    to three before it on the path, as ``contacts.lost_hitter`` reads them."""
    out = []
    for m in ex.balls.values():
        if m.id == ball or not m.on_table or not m.ts:
            continue
        i = bisect.bisect_right(m.ts, t + 1e-9) - 1
        if i < 1 or m.sid[i] < 0 or ex.segs[m.sid[i]].kind != "move":
            continue
        idx = ex.segs[m.sid[i]].idx  # growing indices (``push`` appends them)
        sel = idx[: bisect.bisect_right(idx, i)][-4:]
        out.append(LastSeen(m.id, np.array([m.ts[j] for j in sel]), np.array([m.xy[j] for j in sel])))
    return out


def stroke_view(ex: EventExtractor) -> StrokeView | None:
    """The shot's struck ball (``EventExtractor.stroke``), as ``contacts.hit_at_stroke`` reads it."""
    if ex.stroke is None:
        return None
    ball, t0, p0 = ex.stroke
    b = ex.balls.get(ball)
    if b is None:
        return None
    n = len(b.ts)
    rest_ts = np.array([b.ts[i] for sg in b.segs if sg.kind == "rest" for i in sg.idx])
    kept = np.array(b.sid, dtype=np.int64) >= 0
    return StrokeView(ball, t0, p0, rest_ts, b.ts_arr[:n].copy(), b.xy_arr[:n].copy(), kept)


def set_off_view(ex: EventExtractor, b: Ball, br: Break, back_s: float) -> SetOffView:
    """A resting ball set moving (the break ``br``): its place, its detections over the last ``back_s`` of its
    rest, its kept samples on the new path and that path fitted to the first of them, as ``shots.set_off``
    reads them."""
    rest = [i for i in br.old.idx if i in b.seen and b.ts[i] >= br.t_lo - back_s]
    new = [i for i in br.new.idx if b.sid[i] >= 0]
    later: list[int] = []
    if new:
        far = max(new, key=lambda i: float(np.linalg.norm(b.xy[i] - br.new.start_p)))
        later = [i for i in range(far + 1, len(b.xy)) if b.sid[i] >= 0][:2]
    return SetOffView(
        b.id,
        br.new.start_p,
        br.t_lo,
        br.t_hi,
        np.array([b.ts[i] for i in rest]),
        np.array([b.seen[i] for i in rest]).reshape(-1, 2),
        np.array([b.ts[i] for i in new]),
        np.array([b.xy[i] for i in new]).reshape(-1, 2),
        fit(ex, b, br.new.idx, head=True),
        np.array([b.xy[i] for i in later]).reshape(-1, 2),
        bool(later) and ex.segs[b.sid[later[0]]].kind == "rest",
        np.array([b.ts[i] for i in later]),
    )


def back_in_sight_view(ex: EventExtractor, b: Ball, br: Break) -> tuple[PathView, list[np.ndarray]]:
    """A ball back in sight on the path of the break ``br``: its first four kept samples from that path's first
    on (its next paths too), and where every other ball on the table was last seen, as ``shots.stalled`` reads
    them."""
    first = next((i for i in br.new.idx if b.sid[i] >= 0), None)
    good = [] if first is None else [i for i in range(first, len(b.ts)) if b.sid[i] >= 0][:4]
    view = PathView(b.id, tuple(b.ts[i] for i in good), tuple(b.xy[i] for i in good))
    return view, [o.xy[-1] for o in ex.balls.values() if o is not b and o.on_table and o.xy]


def stop_of(ex: EventExtractor, b: Ball, rest_p: np.ndarray) -> tuple[float, np.ndarray]:
    """When a moving ball stopped. Under a constant deceleration the distance left to the resting point
    is a/2 (t_stop - t)^2, so its square root falls linearly to zero at t_stop: fit that line to the
    last moving samples (those clearly off the resting point)."""
    seg = b.seg
    good = [i for i in seg.idx if b.sid[i] >= 0][-60:]
    if not good:
        return seg.start_t, rest_p
    d = np.array([float(np.linalg.norm(b.xy[i] - rest_p)) for i in good])
    ts = np.array([b.ts[i] for i in good])
    k = len(good)
    while k > 0 and d[k - 1] <= 4 * ex.meas_sigma_mm:
        k -= 1
    j = k
    while j > 0 and d[j - 1] <= 400.0 and k - j < 25:
        j -= 1
    if k - j >= 3:
        slope, icpt = np.polyfit(ts[j:k], np.sqrt(d[j:k]), 1)
        if slope < 0:
            t_stop = -icpt / slope
            lo = ts[k - 1]
            hi = ts[k] if k < len(ts) else lo + 0.5
            return float(min(max(t_stop, lo), hi + 0.5)), rest_p
    return (float(ts[k]) if k < len(ts) else float(ts[-1])), rest_p


def end_of(ex: EventExtractor, b: Ball) -> tuple[float, np.ndarray]:
    good = [i for i in b.seg.idx if b.sid[i] >= 0]
    return b.ts[good[-1]], b.xy[good[-1]]


def kept_frames(ex: EventExtractor, b: Ball, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """The ball's samples ``lo`` to ``hi`` (not rejected outliers), one per frame, as (sample indices, frame
    numbers): ``one_per_frame``."""
    kept = lo + np.flatnonzero(np.array(b.sid[lo:hi], dtype=np.int64) >= 0)
    return one_per_frame(kept, b.ts_arr[kept], dt=ex.dt)


def one_per_frame(idx: np.ndarray, ts: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """The samples ``idx`` (taken at ``ts``), one per frame, as (sample indices, frame numbers): two samples a
    jittery clock rounds to one frame, the first stands for it."""
    frames = np.rint(ts / dt).astype(np.int64)
    # (a window may hold no kept sample at all: a ball hidden, or shaken off its fit, all that time)
    first = np.diff(frames, prepend=frames[:1] - 1) != 0
    return idx[first], frames[first]


def pair_track(ex: EventExtractor, a: Ball, b: Ball, t0: float, t1: float) -> PairTrack:
    """The centres of ``a`` and ``b`` in the frames both were seen (kept samples, one per frame:
    ``kept_frames``) after ``t0`` up to ``t1``, as ``contacts.parted`` reads them."""

    def window(o: Ball) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = np.searchsorted(o.ts_arr[: len(o.ts)], [t0, t1], side="right")
        kept, frames = kept_frames(ex, o, int(lo), int(hi))
        return frames, o.xy_arr[kept]

    fa, xa = window(a)
    fb, xb = window(b)
    common, ia, ib = np.intersect1d(fa, fb, return_indices=True)
    return PairTrack(a.id, b.id, common, xa[ia], xb[ib])


def lost_view(ex: EventExtractor, b: Ball) -> LostView:
    """A ball the tracker lost, as ``pots.lost`` reads it: the path it was moving on when last seen (fitted to
    its last ``window`` kept samples; None where it rested or had fewer than two) and its every sample."""
    moving = bool(b.segs) and b.seg.kind == "move"
    good = [i for i in b.seg.idx if b.sid[i] >= 0] if b.segs else []
    path = fit(ex, b, good) if moving and len(good) >= 2 else None
    return LostView(b.id, path, trail(b))


def sample_windows(ex: EventExtractor, t: float, w: int) -> list[SampleWindow]:
    """The last ``w`` samples of every ball sampled at ``t`` (``contacts.kisses`` reads them); none where no
    sample of any of them was kept on a moving path (balls at rest all along never kissed)."""
    live = [b for b in ex.balls.values() if len(b.ts) >= w and abs(b.ts[-1] - t) < 1e-9]
    if not live:
        return []
    sids = np.array([b.sid[len(b.sid) - w :] for b in live], dtype=np.int64)  # (balls, w): segments, -1 rejected
    move = [sid for sid in set(sids.ravel().tolist()) if sid >= 0 and ex.segs[sid].kind == "move"]
    if not move:
        return []
    moving = (sids[:, :, None] == np.array(move)).any(axis=2)  # kept on a moving path (a path or two a ball)
    kept = sids >= 0
    out = []
    for r, b in enumerate(live):
        n = len(b.ts)
        # (rows below n are never written again: views of them stay as they are)
        ts, xy = b.ts_arr[n - w : n], b.xy_arr[n - w : n]
        out.append(SampleWindow(b.id, ts, xy, kept[r], moving[r], tuple(br.t_lo for br in b.breaks)))
    return out


def frozen_cluster(ex: EventExtractor, ball: str, t: float) -> list[str]:
    """The balls resting at ``t`` that touch ``ball`` directly or through other touching balls (``touching``)."""
    rest = {
        k: o.rest_pos
        for k, o in ex.balls.items()
        if o.on_table and o.rest_pos is not None and (k == ball or resting_at(ex, o, t))
    }
    return touching(ball, rest, ex.table.ball_diameter_mm + ex.s.contacts.frozen_tol_mm)


def frozen_places(ex: EventExtractor, ball: str, t: float) -> tuple[RestingBall, ...]:
    """``ball`` and the balls resting at ``t`` against it directly or through each other (``frozen_cluster``), with
    their places, as ``contacts.unseen_hit`` reads them."""
    out = []
    for k in frozen_cluster(ex, ball, t):
        p = ex.balls[k].rest_pos
        if p is not None:
            out.append(RestingBall(k, p))
    return tuple(out)


def touching(ball: str, places: Mapping[str, np.ndarray], reach: float) -> list[str]:
    """``ball`` and the balls at ``places`` within ``reach`` of it (centre to centre) directly or through each
    other, nearer links first; just ``ball`` where it has no place."""
    if ball not in places:
        return [ball]
    out, frontier = [ball], [ball]
    while frontier:
        cur = frontier.pop()
        for k, p in places.items():
            if k not in out and float(np.linalg.norm(p - places[cur])) <= reach:
                out.append(k)
                frontier.append(k)
    return out


def resting_places(ex: EventExtractor, t: float) -> tuple[dict[str, np.ndarray], frozenset[str]]:
    """Where every ball on the table rests (its anchored place), and which of them were resting just before
    ``t`` (``resting_at``), as ``contacts.find_pusher`` reads them."""
    places = {k: o.rest_pos for k, o in ex.balls.items() if o.on_table and o.rest_pos is not None}
    return places, frozenset(k for k in places if resting_at(ex, ex.balls[k], t))


def resting_cluster(ex: EventExtractor, ball: str, t: float) -> tuple[RestingBall, ...]:
    """``ball`` and the balls resting against it at ``t`` (``frozen_cluster``), as ``contacts.chains`` reads them:
    empty where ``ball`` was not resting then (a moving ball hit passes nothing on)."""
    if not resting_at(ex, ex.balls[ball], t):
        return ()
    out = []
    for k in frozen_cluster(ex, ball, t):
        p = ex.balls[k].rest_pos
        assert p is not None  # (the cluster is made of resting balls)
        out.append(RestingBall(k, p))
    return tuple(out)


def resting_at(ex: EventExtractor, b: Ball, t: float) -> bool:
    """Was the ball resting just before ``t`` (its last sample by then in a resting segment)?"""
    pb = path_before(ex, b, t - 0.5 * ex.dt)
    return pb is not None and not pb[1] and b.rest_pos is not None


def rest_spells(ex: EventExtractor) -> list[RestSpell]:
    """Every ball on the table resting now: its current rest, as ``contacts.nudges`` reads it."""
    out = []
    for b in ex.balls.values():
        if not (b.on_table and b.segs and b.seg.kind == "rest"):
            continue
        idx = [j for j in b.seg.idx if j in b.seen]
        ts = np.array([b.ts[j] for j in idx])
        seen = np.array([b.seen[j] for j in idx]).reshape(-1, 2)
        out.append(RestSpell(b.id, b.seg.start_t, b.ts[-1], ts, seen))
    return out


def moving_samples(ex: EventExtractor, since: float) -> list[MovingSamples]:
    """Every ball's samples kept on moving paths from ``since`` on, as ``contacts.reached_by`` reads them."""
    out = []
    for m in ex.balls.values():
        i0 = bisect.bisect_left(m.ts, since)
        idx = [j for j in range(i0, len(m.ts)) if m.sid[j] >= 0 and ex.segs[m.sid[j]].kind == "move"]
        legs: dict[int, tuple[list[int], bool]] = {}  # sid -> its kept samples, set off from rest or turned
        for j in idx:
            if m.sid[j] not in legs:
                legs[m.sid[j]] = leg_start(ex, m, ex.segs[m.sid[j]])
        set_off = [legs[m.sid[j]][1] and legs[m.sid[j]][0].index(j) < 3 for j in idx]
        leg_t0 = [m.ts[legs[m.sid[j]][0][0]] for j in idx]
        ts = np.array([m.ts[j] for j in idx])
        xy = np.array([m.xy[j] for j in idx]).reshape(-1, 2)
        leg = np.array([m.sid[j] for j in idx], dtype=np.int64)
        out.append(MovingSamples(m.id, ts, xy, leg, np.array(leg_t0), np.array(set_off, dtype=bool)))
    return out


def leg_start(ex: EventExtractor, m: Ball, seg: Seg) -> tuple[list[int], bool]:
    """The kept samples of the moving path ``seg``, and whether it set off from rest or was turned a frame after
    the path before it was last seen (by a hit, or running on from one hit into the next)."""
    first = [i for i in seg.idx if m.sid[i] >= 0]
    before = seg_before(m, seg)
    if before is None:
        return first, False
    seen = [i for i in before.idx if m.sid[i] >= 0]
    turned = bool(seen) and m.ts[seen[-1]] >= m.ts[first[0]] - 1.5 * ex.dt
    return first, before.kind == "rest" or turned


@dataclass
class Seg:
    sid: int
    kind: str  # "rest" or "move"
    start_t: float
    start_p: np.ndarray
    idx: list[int] = field(default_factory=list)  # sample indices of this segment
    end_t: float | None = None
    end_p: np.ndarray | None = None
    packed: bool = False  # a path that started from rest against other balls
    unexplained: bool = False  # a path that began at a kink nothing explained


@dataclass
class Settling:
    """A path that ended in rest, waiting for the resting ball's detections to say where it settled."""

    ts: list[float]  # the path's samples, to its last moving one
    ps: list[np.ndarray]
    from_rest: float  # the extra margin of a path that started from rest
    rest: Seg  # the rest it ended in


@dataclass
class Break:
    kind: str  # "start" (rest -> move) or "kink" (move -> move)
    old: Seg
    new: Seg
    t_lo: float  # last sample of the old segment
    t_hi: float  # first sample of the new one


@dataclass
class Ball:
    id: str
    ts: list[float] = field(default_factory=list)
    xy: list[np.ndarray] = field(default_factory=list)
    seen: dict[int, np.ndarray] = field(default_factory=dict)  # resting samples: the detection (xy is the anchor)
    sid: list[int] = field(default_factory=list)  # segment of each sample (-1: rejected outlier)
    segs: list[Seg] = field(default_factory=list)
    pending: int | None = None  # first sample off the current fit, awaiting confirmation
    breaks: list[Break] = field(default_factory=list)
    on_table: bool = True
    potted: bool = False  # the tracker decided it dropped into a pocket
    rest_pos: np.ndarray | None = None
    last_event_t: float | None = None  # last contact or start, for chains through frozen clusters
    stop_t: float | None = None
    checked_unseen_start: bool = False
    waypoint: tuple[float, np.ndarray] | None = None  # where an unseen ball is known to have been
    settling: Settling | None = None  # the path it stopped at the end of, its lines judged once it settles
    unseen_seg: Seg | None = None  # the path it came back on after running unseen
    # ts and xy again as arrays (rows [0, len(ts)) filled; capacity doubles), for reading windows without copying
    ts_arr: np.ndarray = field(default_factory=lambda: np.empty(64))
    xy_arr: np.ndarray = field(default_factory=lambda: np.empty((64, 2)))

    @property
    def seg(ex) -> Seg:
        return ex.segs[-1]


@dataclass(frozen=True)
class RestingBall:
    """A ball at rest as a detector reads it: its id and its anchored place (mm, table frame)."""

    ball: str
    pos: np.ndarray


@dataclass(frozen=True)
class SampleWindow:
    """A ball's last samples as a detector reads them: times, positions (mm, table frame; a resting ball's
    anchored place), which were kept (not rejected outliers), which were kept on a moving path, and the last
    sample times before the breaks of its paths not explained yet (``Break.t_lo``)."""

    ball: str
    ts: np.ndarray
    xy: np.ndarray
    kept: np.ndarray
    moving: np.ndarray
    unexplained: tuple[float, ...]


@dataclass(frozen=True)
class RestSpell:
    """A resting ball's current rest as a detector reads it: when it began, the ball's last sample time, and its
    detections in it (times, positions; mm, table frame)."""

    ball: str
    start_t: float
    last_t: float
    ts: np.ndarray
    seen: np.ndarray

    def mean(self, lo: float, hi: float) -> np.ndarray | None:
        """The mean of its detections between ``lo`` and ``hi``; None with fewer than three."""
        pts = self.seen[(self.ts >= lo) & (self.ts <= hi)]
        return np.mean(pts, axis=0) if len(pts) >= 3 else None


@dataclass(frozen=True)
class MovingSamples:
    """A ball's samples kept on moving paths as a detector reads them: times, positions (mm, table frame), the
    path of each (``leg``: its segment's id), when that path was first seen (``leg_t0``), and whether the sample
    is among the first three of a path set off from rest or turned by a hit a frame before (``set_off``)."""

    ball: str
    ts: np.ndarray
    xy: np.ndarray
    leg: np.ndarray
    leg_t0: np.ndarray
    set_off: np.ndarray


@dataclass(frozen=True)
class Approach:
    """Another ball as the hitter of a ball set off reads it: its path just before then (``moving``: a moving
    path, not a rest), its last touch given out, and when its current path began, if it is moving now."""

    ball: str
    path: PathFit
    moving: bool
    last_event_t: float | None
    move_start_t: float | None


@dataclass(frozen=True)
class LeftRest:
    """A ball as a detector reads its leaving its place: where it rested, its last sample there (``gone_t``), and
    its kept samples since (times, positions; mm, table frame)."""

    ball: str
    rest_pos: np.ndarray
    gone_t: float
    after_ts: np.ndarray
    after_xy: np.ndarray


@dataclass(frozen=True)
class SetOffView:
    """A resting ball set moving as a detector reads its leaving: its place (the tracker's anchor), its last
    resting sample (``t_lo``) and first moving one (``t_hi``), its detections over the end of its rest and its
    kept samples on the new path (times, positions; mm, table frame), that path fitted to its first ``window``
    samples, and its next two kept samples after the new path's one farthest from the place (``back_xy``, seen
    at ``back_ts``), the first of them held at rest by the tracker or not (``back_resting``)."""

    ball: str
    place: np.ndarray
    t_lo: float
    t_hi: float
    rest_ts: np.ndarray
    rest_seen: np.ndarray
    new_ts: np.ndarray
    new_xy: np.ndarray
    path: PathFit
    back_xy: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    back_resting: bool = False
    back_ts: np.ndarray = field(default_factory=lambda: np.zeros(0))  # when ``back_xy`` were seen


@dataclass(frozen=True)
class SettledPath:
    """A path that ended in rest as a detector reads it: its samples to its last moving one, then the ball's
    detections while it crept to rest (``settling`` of them), and its extra margin from a line."""

    path: PathView
    settling: int


@dataclass(frozen=True)
class Trail:
    """A ball's every sample as the tracker gave it, rejected outliers too: times and positions (mm, table
    frame; a resting ball's anchored place)."""

    ball: str
    ts: np.ndarray
    xy: np.ndarray


@dataclass(frozen=True)
class PairTrack:
    """Two balls as the resolver reads whether they parted: the frames both were seen in over a span, and their
    centres in those frames (mm, table frame; one row per frame)."""

    a: str
    b: str
    frames: np.ndarray
    xy_a: np.ndarray
    xy_b: np.ndarray


@dataclass(frozen=True)
class LostView:
    """A ball the tracker lost, as ``pots.lost`` reads it: the path it was last seen moving on (None where it
    was resting, or its path had fewer than two kept samples) and its every sample (``Trail``)."""

    ball: str
    path: PathFit | None
    trail: Trail


@dataclass(frozen=True)
class LastSeen:
    """A moving ball as a detector reads it when it is lost from sight: its last samples (up to four) on the
    path it was last seen on, by some time."""

    ball: str
    ts: np.ndarray
    xy: np.ndarray


@dataclass(frozen=True)
class StrokeView:
    """The shot's struck ball as a detector reads it: when and where it was struck (``t0``, ``p0``), the times of
    its resting samples, and all its samples (times, positions; mm, table frame; which were kept)."""

    ball: str
    t0: float
    p0: np.ndarray
    rest_ts: np.ndarray
    ts: np.ndarray
    xy: np.ndarray
    kept: np.ndarray


@dataclass(frozen=True)
class Kink:
    """A moving ball's path bent between two samples (a ``Break`` of kind "kink"), as the detectors read it:
    the paths fitted either side, where they meet, and the window the touch that bent it is looked for in."""

    ball: str
    old: PathFit  # the path in (its last ``window`` samples)
    new: PathFit  # the path out (its first ``window`` samples)
    into: PathFit  # the path in without trailing samples that came after the bend (``trimmed_before_kink``)
    t_last: float  # the last sample on ``into``
    t: float  # where ``old`` and ``new`` meet (or half a frame after the last sample in, with one sample out)
    p: np.ndarray  # ``old`` at ``t``
    lo: float  # the window for a touch: from a frame before the last sample in ...
    hi: float  # ... to half a frame after the first sample out
    lo_into: float  # ``lo``, or earlier where ``into`` ends earlier
    t_lo: float  # the last sample in (``Break.t_lo``)
    t_hi: float  # the first sample out (``Break.t_hi``)

    @property
    def v_old(self) -> np.ndarray:
        return self.old.vel(self.t)

    @property
    def v_new(self) -> np.ndarray:
        return self.new.vel(self.t) if self.new.n >= 2 else self.old.vel(self.t)


@dataclass(frozen=True)
class Neighbour:
    """Another ball's path as a kink's detectors read it: the path just before the bend (``moving``: a moving
    path, not a rest), and its path just before the bending ball's last sample in, where that path in took in
    samples from after the bend and the other ball was moving (None otherwise); and its detections since the
    bending ball's last sample in (times, positions: a resting ball's own detections, not its anchor), which
    tell whether it left its place then (``contacts.swept_reading``)."""

    ball: str
    path: PathFit
    moving: bool
    path_to_last: PathFit | None
    ts_after: np.ndarray = field(default_factory=lambda: np.empty(0))
    xy_after: np.ndarray = field(default_factory=lambda: np.empty((0, 2)))


class KinkReading(NamedTuple):
    """One explanation of a kink: a cushion, a jaw (``kind`` "cushion", ``name`` the cushion or jaw) or a ball
    (``kind`` "ball", ``name`` its id), scored by how far from touching it had the ball at the bend, in
    tolerances (lower is better)."""

    score: float
    kind: str
    name: str
    t: float
    pos: np.ndarray
    residual_mm: float


def seg_before(b: Ball, seg: Seg) -> Seg | None:
    """The segment of ``b`` before ``seg`` (None for its first, or one not among its segments)."""
    k = next((j for j, sg in enumerate(b.segs) if sg is seg), 0)
    return b.segs[k - 1] if k > 0 else None


def newest_in(b: Ball, seg: Seg, k: int) -> list[int]:
    """The newest ``k`` (or fewer) samples of ``seg`` still in it (not since rejected), oldest first: the tail of
    ``[i for i in seg.idx if b.sid[i] == seg.sid]``, read from the end."""
    out: list[int] = []
    for i in reversed(seg.idx):
        if b.sid[i] == seg.sid:
            out.append(i)
            if len(out) == k:
                break
    out.reverse()
    return out
