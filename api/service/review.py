"""A shot's review pack: its events with confidence, its verdict with the cited clauses, its start and
end positions, the top-down picture and the video excerpt."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import cv2

from api.store import Store
from calibration.table import TableModel
from tracking.events import Event

CLIP_MARGIN_S = 0.5  # video shown before the shot starts and after it ends


def shot_pack(store: Store, match_id: int, shot: int) -> dict[str, Any] | None:
    row = store.shot(match_id, shot)
    if row is None:
        return None
    history = store.verdict_history(match_id, shot)
    verdict = history[-1] if history else None
    return {
        **row,
        "player": verdict.get("player") if verdict else None,
        "events": store.shot_events(match_id, shot),
        "inputs": store.shot_inputs(match_id, shot),
        "verdict": verdict,
        "amendments": len(history) - 1 if history else 0,
        "clauses": sorted({f["rule"] for f in (verdict or {}).get("fouls", []) if f.get("rule")}),
        "picture": f"/shots/{shot}/picture.png",
        "clip": f"/shots/{shot}/clip",
    }


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
        title=f"shot {pack['shot']}",
    )  # fmt: skip
    return bytes(tabledraw.encode_png(img))


def clip_file(source_video: Path, pack: dict[str, Any], fps: float | None, out: Path) -> Path:
    """Cut the shot out of the source video into a WebM (VP8, which browsers play) at ``out``; cached."""
    if out.exists():
        return out
    cap = cv2.VideoCapture(str(source_video))
    if not cap.isOpened():
        raise OSError(f"cannot open the match video {source_video}")
    try:
        rate = fps or float(cap.get(cv2.CAP_PROP_FPS) or 0.0) or 30.0
        margin = round(CLIP_MARGIN_S * rate)
        first = max(int(pack.get("start_frame") or 0) - margin, 0)
        end = pack.get("end_frame")
        last = (int(end) if end is not None else first + int(10 * rate)) + margin
        cap.set(cv2.CAP_PROP_POS_FRAMES, first)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".part.webm")
        writer: cv2.VideoWriter | None = None
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
            raise OSError(f"the match video has no frames from {first}")
        writer.release()
        tmp.replace(out)
        return out
    finally:
        cap.release()
