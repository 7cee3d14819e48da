"""``report.html`` of ``tableref analyze``: a summary, the trails picture and every shot's events.

Pictures are written beside the page as PNG files and linked, so the page stays small and opens offline.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from api.tabledraw import paths_from_rows, save_png, shot_picture
from calibration.table import TableModel
from tracking.events import Event


def _describe(ev: Event) -> str:
    if ev.type == "contact" and ev.balls:
        return f"{ev.balls[0]} hits {ev.balls[1]}"
    if ev.type == "cushion":
        return f"{ev.ball} touches {ev.cushion}"
    if ev.type == "line_cross":
        return f"{ev.ball} crosses the {ev.line} line ({ev.direction})"
    if ev.type == "pot":
        return f"{ev.ball} into {ev.pocket}"
    if ev.type == "shot_start":
        return f"{ev.ball} struck"
    if ev.type == "shot_end":
        return f"all at rest ({len(ev.positions or {})} balls on the table)"
    if ev.type in ("off_table", "disturbed"):
        return f"{ev.ball} at {ev.pos}"
    return ev.type


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
) -> Path:
    """Write report.html, trails.png and shot_NNN.png into ``out_dir``; returns the page's path.
    ``rows`` are track rows with ``frame, t, ball, x, y, visible`` attributes."""
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
        "tr.review{background:#fff3c4}img{max-width:100%;border:1px solid #888}</style></head><body>",
        f"<h1>tableref analyze: {html.escape(video)}</h1>",
    ]
    counts: dict[str, int] = {}
    for e in cam:
        counts[e.type] = counts.get(e.type, 0) + 1
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "no events"
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
    for k in sorted(shots):
        evs = shots[k]
        t0, t1 = bounds[k]
        parts.append(f"<h2>Shot {k} ({t0:.2f}-{t1:.2f} s)</h2>")
        if k < max_shot_pictures:
            sel = [r for r in rows if t0 - 1e-6 <= r.t <= t1 + 1e-6]
            pic = shot_picture(table, evs, paths_from_rows((r.ball, r.x, r.y) for r in sel), title=f"shot {k}")
            save_png(out / f"shot_{k:03d}.png", pic)
            parts.append(f"<img src='shot_{k:03d}.png' alt='shot {k}'>")
        v = verdict_by_shot.get(k)
        if v is not None:
            fouls = "; ".join(f"{f.get('code')} ({f.get('rule')})" for f in v.get("fouls", [])) or "none"
            parts.append(
                f"<p>Verdict: {'legal' if v.get('legal') else 'foul'}; fouls: {html.escape(fouls)}; "
                f"counted: {html.escape(', '.join(map(str, v.get('counted', []))) or '-')}; "
                f"score {html.escape(str(v.get('score')))}</p>"
            )
        parts.append("<table><tr><th>t (s)</th><th>frame</th><th>event</th><th>what</th><th>confidence</th></tr>")
        for e in evs:
            cls = " class='review'" if e.review else ""
            parts.append(
                f"<tr{cls}><td>{(e.t or 0):.4f}</td><td>{e.frame}</td><td>{e.type}</td>"
                f"<td>{html.escape(_describe(e))}</td><td>{e.confidence:.2f}</td></tr>"
            )
        parts.append("</table>")
    loose = [e for e in cam if e.shot is None]
    if loose:
        parts.append("<h2>Between shots</h2><table>")
        for e in loose:
            parts.append(f"<tr><td>{(e.t or 0):.3f}</td><td>{e.type}</td><td>{html.escape(_describe(e))}</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    page = out / "report.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page
