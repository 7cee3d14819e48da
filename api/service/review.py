"""A shot's review pack: its events with confidence, its verdict with the cited clauses, its start and
end positions, the top-down picture and the video excerpt."""

from __future__ import annotations

import importlib
import os
import threading
from pathlib import Path
from typing import Any

import cv2

from api import names
from api.store import Store
from calibration.contract import Event
from calibration.table import TableModel

CLIP_MARGIN_S = 0.5  # video shown before the shot starts and after it ends
PICTURE_PX_PER_MM = 0.3  # the review drawing's scale (the console draws over it in the same frame)
PICTURE_MARGIN_BALLS = 2.2  # the drawing's margin around the playing field, in ball radii


def shot_pack(
    store: Store,
    match_id: int,
    shot: int,
    table: TableModel | None = None,
    fps: float | None = None,
    looks: names.Looks | None = None,
) -> dict[str, Any] | None:
    """The review pack of a shot; ``looks`` names the balls the camera could not number by colour."""
    row = store.shot(match_id, shot)
    if row is None:
        return None
    history = store.verdict_history(match_id, shot)
    verdict = history[-1] if history else None
    events = store.shot_events(match_id, shot)
    pack: dict[str, Any] = {
        **row,
        "player": verdict.get("player") if verdict else None,
        "events": events,
        "inputs": store.shot_inputs(match_id, shot),
        "verdict": verdict,
        "amendments": len(history) - 1 if history else 0,
        "clauses": sorted({f["rule"] for f in (verdict or {}).get("fouls", []) if f.get("rule")}),
        "notes": names.verdict_notes(verdict or {}, looks),
        "summary": names.shot_text(events, first_of_frame=_opens_frame(store, match_id, shot), looks=looks)
        if events
        else "",
        "picture": f"/shots/{shot}/picture.png",
        "clip": f"/shots/{shot}/clip",
    }
    if fps:
        # The clip starts CLIP_MARGIN_S before the shot's first frame: the console maps video time to match time.
        pack["fps"] = fps
        first = max(int(row.get("start_frame") or 0) - round(CLIP_MARGIN_S * fps), 0)
        pack["clip_t0"] = first / fps
    if table is not None:
        pack["table"] = {
            "length_mm": table.length_mm, "width_mm": table.width_mm,
            "margin_mm": PICTURE_MARGIN_BALLS * table.ball_radius_mm, "px_per_mm": PICTURE_PX_PER_MM,
        }  # fmt: skip
    return pack


def _opens_frame(store: Store, match_id: int, shot: int) -> bool:
    """Whether the shot is a frame's break (its summary then says so)."""
    return any(f.get("first_shot") == shot for f in store.game_frames(match_id))


def shot_list(store: Store, match_id: int) -> list[dict[str, Any]]:
    verdicts = {v["shot"]: v for _, v in store.latest_verdicts(match_id)}
    out = []
    for row in store.shots(match_id):
        v = verdicts.get(row["shot"])
        out.append({
            "shot": row["shot"], "game_frame": row["game_frame"], "t_start": row["t_start"], "t_end": row["t_end"],
            "player": v.get("player") if v else None, "legal": v.get("legal") if v else None,
            "fouls": [f.get("code") for f in v.get("fouls", [])] if v else [],
            "counted": v.get("counted", []) if v else [],
        })  # fmt: skip
    return out


TRACK_MAX_SAMPLES = 600  # ball snapshots sent for one shot's replay (a 20 s shot at 30 fps)


def shot_track(store: Store, match_id: int, pack: dict[str, Any]) -> dict[str, Any]:
    """Where every ball was during the shot, for the console to draw them in step with the replay:
    ``{"samples": [[frame, {ball: [x, y]}], ...]}``, each a full snapshot taken when any ball moved (the
    service stores the tracker's positions only then), thinned evenly to ``TRACK_MAX_SAMPLES``."""
    first = int(pack["start_frame"]) if pack.get("start_frame") is not None else 0
    last = int(pack["end_frame"]) if pack.get("end_frame") is not None else first + 100_000
    frames: dict[int, dict[str, list[float]]] = {}
    for frame, ball, x, y in store.track_frames(match_id, first, last):
        frames.setdefault(frame, {})[ball] = [round(x, 1), round(y, 1)]
    samples = sorted(frames.items())
    if len(samples) > TRACK_MAX_SAMPLES:
        step = len(samples) / TRACK_MAX_SAMPLES
        samples = [samples[int(i * step)] for i in range(TRACK_MAX_SAMPLES)] + [samples[-1]]
    return {"shot": pack["shot"], "samples": [[f, balls] for f, balls in samples]}


def picture_png(pack: dict[str, Any], table: TableModel, paths: list[tuple[str, float, float]]) -> bytes | None:
    """The top-down drawing of the shot (paths, contacts, cushions, pots, spotted balls), or None when the
    drawing module is not part of this build."""
    try:
        tabledraw = importlib.import_module("api.tabledraw")
    except ModuleNotFoundError as exc:
        if exc.name == "api.tabledraw":
            return None
        raise
    events = [Event.model_validate({k: v for k, v in e.items() if k != "seq"}) for e in pack["events"]]
    verdict = pack.get("verdict") or {}
    spotted = [(str(s["ball"]), (float(s["pos"][0]), float(s["pos"][1]))) for s in verdict.get("spot") or []]
    img = tabledraw.shot_picture(
        table, events, paths=tabledraw.paths_from_rows(paths) if paths else None, spotted=spotted,
        title=f"shot {pack['shot'] + 1}", px_per_mm=PICTURE_PX_PER_MM,
    )  # fmt: skip
    return bytes(tabledraw.encode_png(img))


class ClipError(Exception):
    """A clip that cannot be served, with the HTTP status and a one-line reason (no server paths)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class ShotClips:
    """The shot clips of the service's matches: each cut once, under a lock, and kept in ``cache_dir``.

    Cutting a clip re-encodes seconds of video; the first viewers of a disputed shot ask for it at once, and
    each cutting it again wasted the machine and raced on the same file. One lock per clip: the first request
    cuts, the others wait and get the same file. A clip is for the referee's console (with the operator
    token) until the operator publishes it; then anyone may fetch it (a marker file beside it says so, so
    publication survives a restart)."""

    def __init__(self, cache_dir: Path) -> None:
        self.dir = Path(cache_dir) / "clips"
        self._guard = threading.Lock()
        self._locks: dict[Path, threading.Lock] = {}
        self.cuts = 0  # clips actually encoded by this process (the rest came from the cache)

    def path(self, match_id: int, shot: int) -> Path:
        return self.dir / f"match{match_id}-shot{shot}.webm"

    def published(self, match_id: int, shot: int) -> bool:
        return self.path(match_id, shot).with_suffix(".published").exists()

    def publish(self, match_id: int, shot: int) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path(match_id, shot).with_suffix(".published").touch()

    def clip(self, video: Path | None, pack: dict[str, Any], fps: float | None, match_id: int) -> Path:
        if video is None:
            raise ClipError(404, "this match has no recorded video (its source is an event log or a live feed)")
        if pack.get("end_frame") is None:
            raise ClipError(409, f"shot {pack['shot']} is still being played; its clip is cut once it ends")
        out = self.path(match_id, int(pack["shot"]))
        with self._guard:
            lock = self._locks.setdefault(out, threading.Lock())
        with lock:
            if out.exists():
                return out
            try:
                clip_file(video, pack, fps, out)
            except OSError as exc:
                raise ClipError(500, f"the clip of shot {pack['shot']} could not be cut: {exc}") from None
            self.cuts += 1
            return out


def clip_file(source_video: Path, pack: dict[str, Any], fps: float | None, out: Path) -> Path:
    """Cut the shot out of the source video into a WebM (VP8, which browsers play) at ``out``; cached.
    Errors name no file (the message reaches web clients)."""
    if out.exists():
        return out
    cap = cv2.VideoCapture(str(source_video))
    if not cap.isOpened():
        raise OSError("the match video cannot be opened")
    try:
        rate = fps or float(cap.get(cv2.CAP_PROP_FPS) or 0.0) or 30.0
        margin = round(CLIP_MARGIN_S * rate)
        first = max(int(pack.get("start_frame") or 0) - margin, 0)
        end = pack.get("end_frame")
        last = (int(end) if end is not None else first + int(10 * rate)) + margin
        cap.set(cv2.CAP_PROP_POS_FRAMES, first)
        out.parent.mkdir(parents=True, exist_ok=True)
        # A name of its own per writer, so that a crashed cut never leaves a half file under the final name.
        tmp = out.with_name(f"{out.stem}.{os.getpid()}-{threading.get_ident()}.part.webm")
        writer: cv2.VideoWriter | None = None
        try:
            for _ in range(first, last + 1):
                ok, frame = cap.read()
                if not ok:
                    break
                if writer is None:
                    h, w = frame.shape[:2]
                    writer = cv2.VideoWriter(str(tmp), cv2.VideoWriter.fourcc(*"VP80"), rate, (w, h))
                    if not writer.isOpened():
                        raise OSError("this OpenCV build cannot write VP8 video")
                writer.write(frame)
            if writer is None:
                raise OSError(f"the match video has no frames from frame {first}")
            writer.release()
            tmp.replace(out)
        finally:
            if writer is not None:
                writer.release()
            tmp.unlink(missing_ok=True)
        return out
    finally:
        cap.release()
