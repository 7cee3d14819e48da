"""Compare predicted events and tracks with ground truth (``tableref eval PRED_DIR TRUTH_DIR``).

1. Ball ids. A prediction may name balls differently (tracker ids ``t1``, ``t2``...). At every truth
   ``shot_start`` the predicted positions of that moment (the predicted ``shot_start`` nearest in time, or
   else the predicted tracks at that frame) are assigned to the truth positions (Hungarian, gated at one
   ball diameter); each predicted id takes the truth id it was assigned most often.
2. Events. For each camera event type, a predicted event matches a truth event of the same type with the
   same key (contact: the two balls, either order; cushion: ball and cushion or jaw; pot: ball and pocket;
   line_cross: ball, line and direction; shot_start / off_table / disturbed: the ball; shot_end: none)
   when their times differ by at most the tolerance (default: one frame of the truth video, ``1 / fps``).
   Matching is one-to-one, closest times first. Per type: precision, recall, F1, and the median and 95th
   percentile of |t_pred - t_truth| over the matches.
3. Tracks. Rows of the same frame and (mapped) ball are paired; position error in mm: median, p95, max,
   and the share of truth rows that have a predicted row.
4. Confidence. How well an event's confidence tells the events that match the truth (right) from those that
   match none (wrong): the AUC (the chance that a right event, drawn at random, is more confident than a wrong
   one; ties count half; 0.5 is no better than a coin) and the ``review`` flag's share of the wrong events
   flagged, of the right events flagged, and of the flagged events that are wrong (its precision).
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.contract import CAMERA_EVENT_TYPES, Event, read_jsonl

EVENT_TYPES = ("shot_start", "contact", "cushion", "line_cross", "pot", "off_table", "disturbed", "shot_end")


class EvaluationError(ValueError):
    """A prediction or truth folder that cannot be evaluated, with the reason."""


def _find(folder: Path, name: str, required: bool = True) -> Path | None:
    for cand in (folder / name, folder / "truth" / name):
        if cand.is_file():
            return cand
    if required:
        raise EvaluationError(f"no {name} in {folder} (nor in {folder / 'truth'})")
    return None


def load_tracks(path: Path | None) -> dict[tuple[int, str], tuple[float, float, float]]:
    """(frame, ball) -> (t, x, y) of a tracks.csv (CONTRACT.md section 5)."""
    out: dict[tuple[int, str], tuple[float, float, float]] = {}
    if path is None:
        return out
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        need = {"frame", "t", "ball", "x", "y"}
        if not need <= set(reader.fieldnames or ()):
            raise EvaluationError(f"{path}: header must hold {', '.join(sorted(need))}")
        for i, row in enumerate(reader, start=2):
            try:
                out[(int(row["frame"]), row["ball"])] = (float(row["t"]), float(row["x"]), float(row["y"]))
            except (TypeError, ValueError):
                raise EvaluationError(f"{path} line {i}: not numbers") from None
    return out


def _fps(truth_dir: Path, tracks: dict[tuple[int, str], tuple[float, float, float]]) -> float:
    cam = truth_dir / "camera.json"
    if cam.is_file():
        obj = json.loads(cam.read_text(encoding="utf-8"))
        if obj.get("fps"):
            return float(obj["fps"])
    frames = sorted({(f, v[0]) for (f, _), v in tracks.items()})
    if len(frames) >= 2 and frames[-1][1] > frames[0][1]:
        return (frames[-1][0] - frames[0][0]) / (frames[-1][1] - frames[0][1])
    raise EvaluationError(f"cannot tell the frame rate of {truth_dir}: no camera.json fps and no tracks")


def _positions_at_frame(tracks: dict[tuple[int, str], tuple[float, float, float]], frame: int) -> dict[str, Any]:
    return {b: (v[1], v[2]) for (f, b), v in tracks.items() if f == frame}


def match_ball_ids(
    truth_events: list[Event],
    pred_events: list[Event],
    pred_tracks: dict[tuple[int, str], tuple[float, float, float]],
    fps: float,
    gate_mm: float = 68.0,
) -> dict[str, str]:
    """Predicted id -> truth id, by positions at every truth shot start (see the module docstring)."""
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    pred_starts = [e for e in pred_events if e.type == "shot_start" and e.positions]
    for ts in (e for e in truth_events if e.type == "shot_start" and e.positions):
        truth_pos = ts.positions or {}
        near = min(pred_starts, key=lambda e: abs((e.t or 0.0) - (ts.t or 0.0)), default=None)
        if near is not None and abs((near.t or 0.0) - (ts.t or 0.0)) <= 1.0:
            pred_pos = dict(near.positions or {})
        else:
            pred_pos = _positions_at_frame(pred_tracks, round((ts.t or 0.0) * fps) - 1)
        if not pred_pos or not truth_pos:
            continue
        pids, tids = list(pred_pos), list(truth_pos)
        cost = np.array([[math.dist(pred_pos[p], truth_pos[t]) for t in tids] for p in pids])
        rows, cols = linear_sum_assignment(cost)
        for r, c in zip(rows, cols, strict=True):
            if cost[r, c] <= gate_mm:
                votes[pids[r]][tids[c]] += 1
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for pid, cnt in sorted(votes.items(), key=lambda kv: -max(kv[1].values())):
        for tid, _ in cnt.most_common():
            if tid not in taken:
                mapping[pid] = tid
                taken.add(tid)
                break
    # Ids never seen at a shot start keep their name where the truth has the same id free.
    truth_ids = {b for e in truth_events for b in _balls(e)} | {b for e in truth_events for b in (e.positions or {})}
    pred_ids = {b for e in pred_events for b in _balls(e)} | {b for _, b in pred_tracks}
    for pid in sorted(pred_ids - set(mapping)):
        if pid in truth_ids and pid not in taken:
            mapping[pid] = pid
            taken.add(pid)
    return mapping


def event_key(ev: Event, ids: dict[str, str]) -> tuple[Any, ...]:
    """What must agree, besides the type and the time, for two events to match."""

    def m(b: str | None) -> str | None:
        return None if b is None else ids.get(b, f"?{b}")

    if ev.type == "contact":
        return (frozenset(m(b) for b in ev.balls or ()),)
    if ev.type == "cushion":
        return (m(ev.ball), ev.cushion)
    if ev.type == "pot":
        return (m(ev.ball), ev.pocket)
    if ev.type == "line_cross":
        return (m(ev.ball), ev.line, ev.direction)
    if ev.type in ("shot_start", "off_table", "disturbed"):
        return (m(ev.ball),)
    return ()


def match_events(
    truth: list[Event], pred: list[Event], tolerance_s: float, ids: dict[str, str]
) -> tuple[list[tuple[Event, Event]], list[Event], list[Event]]:
    """One-to-one matches (truth, pred), closest times first; then unmatched truth and unmatched pred."""
    ident = {b: b for e in truth for b in _balls(e)}
    cands = []
    for i, te in enumerate(truth):
        tk = event_key(te, ident)
        for j, pe in enumerate(pred):
            if pe.type != te.type:
                continue
            dt = abs((pe.t or 0.0) - (te.t or 0.0))
            if dt <= tolerance_s + 1e-9 and event_key(pe, ids) == tk:
                cands.append((dt, i, j))
    cands.sort()
    used_t: set[int] = set()
    used_p: set[int] = set()
    pairs = []
    for _dt, i, j in cands:
        if i in used_t or j in used_p:
            continue
        used_t.add(i)
        used_p.add(j)
        pairs.append((truth[i], pred[j]))
    missed = [e for i, e in enumerate(truth) if i not in used_t]
    extra = [e for j, e in enumerate(pred) if j not in used_p]
    return pairs, missed, extra


def _balls(e: Event) -> Iterable[str]:
    if e.ball:
        yield e.ball
    yield from e.balls or ()


def _stats(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "p95": None, "max": None}
    a = np.asarray(values, dtype=np.float64)
    return {"median": float(np.median(a)), "p95": float(np.percentile(a, 95)), "max": float(a.max())}


def evaluate(pred_dir: str | Path, truth_dir: str | Path, tolerance_s: float | None = None) -> dict[str, Any]:
    """Scores of a prediction folder against a truth folder (see the module docstring).

    Each folder holds ``events.jsonl`` and ``tracks.csv`` directly or under ``truth/``; the truth folder's
    ``camera.json`` gives the frame rate. Returns a JSON-able dict: ``tolerance_s``, ``fps``, ``ids``
    (predicted -> truth), ``events`` (per type and ``all``: counts, precision, recall, f1, dt stats in s),
    ``tracks`` (error stats in mm, coverage), ``missed`` and ``extra`` (the unmatched events)."""
    pred_dir, truth_dir = Path(pred_dir), Path(truth_dir)
    truth_events = [e for e in read_jsonl(_find(truth_dir, "events.jsonl")) if e.type in CAMERA_EVENT_TYPES]  # type: ignore[arg-type]
    pred_events = [e for e in read_jsonl(_find(pred_dir, "events.jsonl")) if e.type in CAMERA_EVENT_TYPES]  # type: ignore[arg-type]
    truth_tracks = load_tracks(_find(truth_dir, "tracks.csv", required=False))
    pred_tracks = load_tracks(_find(pred_dir, "tracks.csv", required=False))
    fps = _fps(truth_dir, truth_tracks)
    tol = 1.0 / fps if tolerance_s is None else float(tolerance_s)
    ids = match_ball_ids(truth_events, pred_events, pred_tracks, fps)
    per_type: dict[str, Any] = {}
    all_missed: list[Event] = []
    all_extra: list[Event] = []
    all_dt: list[float] = []
    tot: Counter[str] = Counter()
    for typ in EVENT_TYPES:
        te = [e for e in truth_events if e.type == typ]
        pe = [e for e in pred_events if e.type == typ]
        if not te and not pe:
            continue
        pairs, missed, extra = match_events(te, pe, tol, ids)
        dts = [abs((p.t or 0.0) - (t.t or 0.0)) for t, p in pairs]
        per_type[typ] = _scores(len(te), len(pe), len(pairs), dts)
        all_missed += missed
        all_extra += extra
        all_dt += dts
        tot.update(truth=len(te), pred=len(pe), matched=len(pairs))
    per_type["all"] = _scores(tot["truth"], tot["pred"], tot["matched"], all_dt)
    errs = []
    inverse = {t: p for p, t in ids.items()}
    for (frame, tb), (_t, x, y) in truth_tracks.items():
        pb = inverse.get(tb, tb if tb not in ids else None)
        if pb is None:
            continue
        pr = pred_tracks.get((frame, pb))
        if pr is not None:
            errs.append(math.hypot(pr[1] - x, pr[2] - y))
    tracks = {
        "truth_rows": len(truth_tracks),
        "pred_rows": len(pred_tracks),
        "matched_rows": len(errs),
        "coverage": len(errs) / len(truth_tracks) if truth_tracks else None,
        "error_mm": _stats(errs),
    }
    return {
        "pred_dir": str(pred_dir),
        "truth_dir": str(truth_dir),
        "fps": fps,
        "tolerance_s": tol,
        "ids": ids,
        "events": per_type,
        "tracks": tracks,
        "missed": [e.to_dict() for e in all_missed],
        "extra": [e.to_dict() for e in all_extra],
    }


def _scores(n_truth: int, n_pred: int, n_matched: int, dts: list[float]) -> dict[str, Any]:
    p = n_matched / n_pred if n_pred else (1.0 if n_truth == 0 else 0.0)
    r = n_matched / n_truth if n_truth else (1.0 if n_pred == 0 else 0.0)
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    s = _stats(dts)
    return {
        "truth": n_truth, "pred": n_pred, "matched": n_matched, "precision": p, "recall": r, "f1": f1,
        "dt_median_s": s["median"], "dt_p95_s": s["p95"],
    }  # fmt: skip


def format_report(result: dict[str, Any]) -> str:
    """The scores as a fixed-width table."""
    lines = [
        f"events (tolerance {result['tolerance_s'] * 1000:.1f} ms = {result['tolerance_s'] * result['fps']:.2f} "
        f"frames at {result['fps']:g} fps)",
        f"{'type':<12}{'truth':>7}{'pred':>7}{'match':>7}{'prec':>8}{'recall':>8}{'F1':>8}{'dt_med_ms':>11}{'dt_p95_ms':>11}",
    ]

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v * 1000:.2f}"

    for typ, s in result["events"].items():
        lines.append(
            f"{typ:<12}{s['truth']:>7}{s['pred']:>7}{s['matched']:>7}{s['precision']:>8.3f}{s['recall']:>8.3f}"
            f"{s['f1']:>8.3f}{ms(s['dt_median_s']):>11}{ms(s['dt_p95_s']):>11}"
        )
    tr = result["tracks"]
    e = tr["error_mm"]

    def mm(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    cov = "-" if tr["coverage"] is None else f"{tr['coverage']:.3f}"
    lines.append(
        f"tracks: truth rows {tr['truth_rows']}, predicted {tr['pred_rows']}, paired {tr['matched_rows']} "
        f"(coverage {cov}); error mm median {mm(e['median'])} p95 {mm(e['p95'])} max {mm(e['max'])}"
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class Judged:
    """A predicted event's confidence and review flag, and whether it matched a truth event (``right``)."""

    confidence: float
    review: bool
    right: bool


def judged_events(truth: Sequence[Event], pred: Sequence[Event], kind: str, tolerance_s: float) -> list[Judged]:
    """Each predicted event of type ``kind``, matched one-to-one against the truth's (ids as they are named: the
    bench's pipeline is given the truth's ids), with its confidence, flag and whether it matched."""
    te = [e for e in truth if e.type == kind]
    pe = [e for e in pred if e.type == kind]
    ids = {b: b for e in (*te, *pe) for b in _balls(e)}
    pairs, _missed, _extra = match_events(te, pe, tolerance_s, ids)
    right = {id(p) for _t, p in pairs}
    return [Judged(float(e.confidence), bool(e.review), id(e) in right) for e in pe]


def confidence_auc(right: Sequence[float], wrong: Sequence[float]) -> float | None:
    """The chance that a right event's confidence is above a wrong one's (ties count half): the Mann-Whitney U
    over the product of the counts; None without events of both sides."""
    if not len(right) or not len(wrong):
        return None
    r = np.asarray(right, dtype=np.float64)
    w = np.sort(np.asarray(wrong, dtype=np.float64))
    below = np.searchsorted(w, r, side="left")
    tied = np.searchsorted(w, r, side="right") - below
    return float((below.sum() + 0.5 * tied.sum()) / (len(r) * len(w)))


@dataclass(frozen=True)
class ConfidenceSplit:
    """How well confidence and the review flag separate right events from wrong ones (module docstring, 4)."""

    right: int
    wrong: int
    auc: float | None
    wrong_flagged: float | None  # share of the wrong events flagged for review (higher is better)
    right_flagged: float | None  # share of the right events flagged (lower is better)
    flag_precision: float | None  # share of the flagged events that are wrong (higher is better)


def confidence_split(judged: Sequence[Judged]) -> ConfidenceSplit:
    """The figures of ``ConfidenceSplit`` over ``judged``."""
    right = [j for j in judged if j.right]
    wrong = [j for j in judged if not j.right]
    flagged = [j for j in judged if j.review]

    def share(part: int, whole: int) -> float | None:
        return part / whole if whole else None

    return ConfidenceSplit(
        right=len(right),
        wrong=len(wrong),
        auc=confidence_auc([j.confidence for j in right], [j.confidence for j in wrong]),
        wrong_flagged=share(sum(j.review for j in wrong), len(wrong)),
        right_flagged=share(sum(j.review for j in right), len(right)),
        flag_precision=share(sum(not j.right for j in flagged), len(flagged)),
    )
