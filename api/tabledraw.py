"""Top-down drawings of the table: outline, pockets, lines, ball paths, contacts, cushion touches, pots.

    img = draw_table(table, paths={"cue": xy_array, ...}, events=shot_events, positions=final_positions)
    save_png("trails.png", img)
    png_bytes = encode_png(img)

Everything is drawn in table millimetres scaled by ``px_per_mm``: the house end on the left, the left long
cushion (y = 0) at the top, as an overhead camera of ``CameraModel.overhead`` sees it. Functions only; no
state, so the live service can call them from any thread.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

import cv2
import numpy as np

from api.names import ball_label
from calibration.contract import Event
from calibration.table import TableModel

CLOTH = (92, 120, 36)  # BGR
RAIL = (40, 60, 90)
LINE = (200, 220, 200)
POCKET = (20, 20, 20)
TEXT = (255, 255, 255)
CONTACT = (0, 215, 255)
CUSHION = (255, 160, 60)
POT = (60, 60, 230)
SPOT = (0, 255, 0)


def ball_colour(ball: str) -> tuple[int, int, int]:
    """A stable, bright colour per ball id (the cue ball white)."""
    if ball == "cue":
        return (245, 245, 245)
    h = int(hashlib.md5(ball.encode()).hexdigest()[:6], 16)
    hue = h % 180
    hsv = np.array([[[hue, 200, 255]]], dtype=np.uint8)
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return (int(b), int(g), int(r))


class _Canvas:
    def __init__(self, table: TableModel, px_per_mm: float, margin_mm: float) -> None:
        self.table, self.k, self.m = table, px_per_mm, margin_mm
        w = round((table.length_mm + 2 * margin_mm) * px_per_mm)
        h = round((table.width_mm + 2 * margin_mm) * px_per_mm)
        self.img = np.zeros((h, w, 3), np.uint8)

    def p(self, xy: Iterable[float]) -> tuple[int, int]:
        x, y = list(xy)[:2]
        return (round((x + self.m) * self.k), round((y + self.m) * self.k))

    def r(self, mm: float) -> int:
        return max(1, round(mm * self.k))


def draw_table(
    table: TableModel,
    *,
    paths: Mapping[str, np.ndarray] | None = None,
    events: Iterable[Event] = (),
    positions: Mapping[str, tuple[float, float]] | None = None,
    spotted: Iterable[tuple[str, tuple[float, float]]] = (),
    title: str | None = None,
    px_per_mm: float = 0.3,
    labels: bool = True,
) -> np.ndarray:
    """A BGR picture of the table. ``paths``: {ball: N x 2 positions in mm} drawn as trails; ``events``:
    contacts (yellow), cushion touches (blue), pots (red) marked where they happened; ``positions``: balls
    drawn as discs (e.g. where they stopped); ``spotted``: balls put back, drawn as green rings. Labels show a
    ball's number only (a ball the camera could not number is a plain disc: its tracker id means nothing to a
    viewer)."""
    R = table.ball_radius_mm
    cv = _Canvas(table, px_per_mm, margin_mm=2.2 * R)
    img = cv.img
    img[:] = RAIL
    cv2.rectangle(img, cv.p((0, 0)), cv.p((table.length_mm, table.width_mm)), CLOTH, -1)
    for pk in table.pockets.values():
        c = pk.drop_point
        cv2.circle(img, cv.p(c), cv.r(pk.mouth_width_mm / 2 + 4), POCKET, -1, cv2.LINE_AA)
        for jaw in pk.jaws:
            cv2.line(img, cv.p(jaw.tip), cv.p(jaw.inner), (180, 180, 180), 1, cv2.LINE_AA)
    for cu in table.cushions.values():
        cv2.line(img, cv.p(cu.start), cv.p(cu.end), (30, 80, 20), 2, cv2.LINE_AA)
    for name, ln in table.lines.items():
        if name == "back":
            continue
        if ln.axis == "x":
            a, b = (ln.value_mm, 0.0), (ln.value_mm, table.width_mm)
        else:
            a, b = (0.0, ln.value_mm), (table.length_mm, ln.value_mm)
        cv2.line(img, cv.p(a), cv.p(b), LINE, 1, cv2.LINE_AA)
    for sp in table.spots.values():
        cv2.circle(img, cv.p(sp), 2, LINE, -1, cv2.LINE_AA)

    for ball, xy in (paths or {}).items():
        pts = np.asarray(xy, dtype=float).reshape(-1, 2)
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        if len(pts) >= 2:
            poly = np.array([cv.p(q) for q in pts], np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [poly], False, ball_colour(ball), 2, cv2.LINE_AA)
    for ev in events:
        if ev.type == "contact" and ev.pos is not None:
            cv2.circle(img, cv.p(ev.pos), cv.r(R * 0.5), CONTACT, 2, cv2.LINE_AA)
        elif ev.type == "cushion" and ev.pos is not None:
            cv2.drawMarker(img, cv.p(ev.pos), CUSHION, cv2.MARKER_TILTED_CROSS, cv.r(R * 0.9), 2)
        elif ev.type == "pot" and ev.pocket is not None:
            c = table.pockets[ev.pocket].drop_point
            cv2.circle(img, cv.p(c), cv.r(R * 1.4), POT, 3, cv2.LINE_AA)
            if labels and ev.ball and ball_label(ev.ball):
                _label(img, cv.p((c[0], c[1])), ball_label(ev.ball), POT)
    for ball, pos in (positions or {}).items():
        cv2.circle(img, cv.p(pos), cv.r(R), ball_colour(ball), -1, cv2.LINE_AA)
        cv2.circle(img, cv.p(pos), cv.r(R), (0, 0, 0), 1, cv2.LINE_AA)
        if labels and ball_label(ball):
            _label(img, cv.p(pos), ball_label(ball), (0, 0, 0))
    for ball, pos in spotted:
        cv2.circle(img, cv.p(pos), cv.r(R * 1.3), SPOT, 2, cv2.LINE_AA)
        if labels and ball_label(ball):
            _label(img, cv.p((pos[0], pos[1] - 2 * R)), ball_label(ball), SPOT)
    if title:
        cv2.putText(img, title, (8, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, TEXT, 1, cv2.LINE_AA)
    return img


def _label(img: np.ndarray, at: tuple[int, int], text: str, colour: tuple[int, int, int]) -> None:
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.35, 1)
    cv2.putText(img, text, (at[0] - w // 2, at[1] + h // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.35, colour, 1, cv2.LINE_AA)


def paths_from_rows(rows: Iterable[tuple[str, float, float]]) -> dict[str, np.ndarray]:
    """{ball: N x 2} from (ball, x, y) rows in time order (e.g. tracks.csv rows of one shot)."""
    acc: dict[str, list[tuple[float, float]]] = {}
    for ball, x, y in rows:
        acc.setdefault(ball, []).append((x, y))
    return {b: np.array(v, dtype=float) for b, v in acc.items()}


def shot_picture(
    table: TableModel,
    events: Iterable[Event],
    paths: Mapping[str, np.ndarray] | None = None,
    spotted: Iterable[tuple[str, tuple[float, float]]] = (),
    title: str | None = None,
    px_per_mm: float = 0.3,
) -> np.ndarray:
    """The review picture of one shot: its events, the paths, the balls where they stopped (its shot_end
    positions, else its shot_start positions) and any balls spotted after it."""
    evs = list(events)
    end = next((e for e in evs if e.type == "shot_end"), None)
    start = next((e for e in evs if e.type == "shot_start"), None)
    positions = (end or start).positions if (end or start) is not None else None  # type: ignore[union-attr]
    return draw_table(
        table, paths=paths, events=evs, positions=positions, spotted=spotted, title=title, px_per_mm=px_per_mm
    )


def encode_png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise ValueError("PNG encoding failed")
    return bytes(buf)


def save_png(path: str | Path, img: np.ndarray) -> None:
    Path(path).write_bytes(encode_png(img))
