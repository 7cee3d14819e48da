"""``report.html`` of ``tableref analyze``: a summary, the trails picture and every shot's events.

Pictures are written beside the page as PNG files and linked, so the page stays small and opens offline.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from api import names
from api.tabledraw import paths_from_rows, save_png, shot_picture
from calibration.contract import Event
from calibration.table import TableModel


def write_report(
    out_dir: str | Path,
    table: TableModel,
    events: Sequence[Event],
    rows: Iterable[Any],
    *,
    video: str = "",
    verdicts: Sequence[Mapping[str, Any]] = (),
    stats: Mapping[str, Any] | None = None,
    max_shot_pictures: int = 60,
    game: str | None = None,
    players: Mapping[str, str] | None = None,
    looks: names.Looks | None = None,
) -> Path:
    """Write report.html, trails.png and shot_NNN.png into ``out_dir``; returns the page's path.
    ``rows`` are track rows with ``frame, t, ball, x, y, visible`` attributes. Balls, players and the game
    are named as people read them (api.names); each shot is one line of summary with its events (in time
    order) one click away, and its verdict with the notes that explain it. ``looks`` names the balls the
    camera could not number by their colour (``api.names.looks``)."""
    players = dict(players or {"A": "A", "B": "B"})
    for e in events:
        if e.type == "frame_start" and e.players:
            players.update(e.players)
    out = Path(out_dir)
    rows = list(rows)
    paths = paths_from_rows((r.ball, r.x, r.y) for r in rows)
    cam = [e for e in events if e.is_camera_event]
    last_positions: dict[str, tuple[float, float]] = {}
    for r in rows:
        last_positions[r.ball] = (r.x, r.y)
    from api.tabledraw import draw_table

    save_png(out / "trails.png", draw_table(table, paths=paths, events=cam, positions=last_positions, title=video))

    shots: dict[int, list[Event]] = {}
    for e in cam:
        if e.shot is not None:
            shots.setdefault(e.shot, []).append(e)
    bounds = {k: (min(e.t or 0 for e in v), max(e.t or 0 for e in v)) for k, v in shots.items()}
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>tableref report</title>",
        "<style>body{font-family:sans-serif;margin:1.5em;max-width:1300px}td,th{padding:2px 8px;text-align:left}"
        "tr.review{background:#fff3c4}img{max-width:100%;border:1px solid #888}.foul{color:#b3261e}"
        "summary{cursor:pointer}</style></head><body>",
        f"<h1>tableref analyze: {html.escape(video)}</h1>",
    ]
    if game:
        parts.append(
            f"<p>Game: <b>{html.escape(names.game_name(game))}</b> ({html.escape(names.game_title(game))}), "
            f"{html.escape(names.target_text(game))}; {html.escape(names.player_name(players, 'A'))} against "
            f"{html.escape(names.player_name(players, 'B'))}.</p>"
        )
    counts: dict[str, int] = {}
    for e in cam:
        counts[e.type] = counts.get(e.type, 0) + 1
    words = {"contact": "contacts", "cushion": "cushion touches", "line_cross": "line crossings", "pot": "pots",
             "off_table": "balls off the table", "disturbed": "balls disturbed"}  # fmt: skip
    summary = ", ".join(f"{counts[k]} {w}" for k, w in words.items() if counts.get(k)) or "no events"
    parts.append(f"<p>{len(shots)} shots; {html.escape(summary)}.</p>")
    if stats:
        parts.append(
            "<p>" + ", ".join(f"{html.escape(str(k))}: {html.escape(str(v))}" for k, v in stats.items()) + "</p>"
        )
    n_review = sum(1 for e in cam if e.review)
    if n_review:
        parts.append(f"<p><b>{n_review} events flagged for review</b> (highlighted).</p>")
    parts.append("<h2>All ball paths</h2><img src='trails.png' alt='trails'>")
    verdict_by_shot = {int(v.get("shot", -1)): v for v in verdicts}
    frame_firsts = _first_shots_of_frames(events)
    for k in sorted(shots):
        evs = sorted(shots[k], key=lambda e: e.t or 0.0)
        t0, t1 = bounds[k]
        v = verdict_by_shot.get(k)
        who = f" · {names.player_name(players, v.get('player'))}" if v and v.get("player") else ""
        parts.append(f"<h2>Shot {k + 1} ({t0:.2f}-{t1:.2f} s){html.escape(who)}</h2>")
        if k < max_shot_pictures:
            sel = [r for r in rows if t0 - 1e-6 <= r.t <= t1 + 1e-6]
            pic = shot_picture(table, evs, paths_from_rows((r.ball, r.x, r.y) for r in sel), title=f"shot {k + 1}")
            save_png(out / f"shot_{k:03d}.png", pic)
            parts.append(f"<img src='shot_{k:03d}.png' alt='shot {k + 1}'>")
        if v is not None:
            cls = "verdict foul" if v.get("fouls") else "verdict"
            parts.append(f"<p class='{cls}'>Verdict: {html.escape(names.verdict_text(v, players, looks))}</p>")
            notes = names.verdict_notes(v, looks)
            if notes:
                parts.append("<ul class='notes'>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
        dicts = [e.to_dict() for e in evs]
        summary = names.shot_text(dicts, first_of_frame=k in frame_firsts, looks=looks)
        n_review = sum(1 for e in evs if e.review)
        flag = f" · {n_review} flagged for review" if n_review else ""
        parts.append(f"<details><summary>{html.escape(summary + flag)} ({len(evs)} events)</summary>")
        parts.append("<table><tr><th>t (s)</th><th>frame</th><th>event</th><th>confidence</th></tr>")
        for e, d in zip(evs, dicts, strict=True):
            cls = " class='review'" if e.review else ""
            parts.append(
                f"<tr{cls}><td>{(e.t or 0):.3f}</td><td>{e.frame}</td>"
                f"<td>{html.escape(names.event_text(d, looks))}</td><td>{e.confidence:.2f}</td></tr>"
            )
        parts.append("</table></details>")
    loose = [e for e in cam if e.shot is None]
    if loose:
        parts.append("<h2>Between shots</h2><table>")
        for e in loose:
            parts.append(
                f"<tr><td>{(e.t or 0):.3f}</td><td>{html.escape(names.event_text(e.to_dict(), looks))}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    page = out / "report.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page


def _first_shots_of_frames(events: Sequence[Event]) -> set[int]:
    """The shots that open a frame of play (the break): the first shot, and the first after each frame_start."""
    out: set[int] = set()
    opened = True
    for e in events:
        if e.type == "frame_start":
            opened = True
        elif e.type == "shot_start" and e.shot is not None and opened:
            out.add(e.shot)
            opened = False
    return out
