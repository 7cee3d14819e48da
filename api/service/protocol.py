"""The match protocol (протокол встречи): frames of play, their scores and winners, fouls per player,
as JSON and as a printable HTML page."""

from __future__ import annotations

import html
from typing import Any

from api import names as display
from api.store import Store


def match_protocol(store: Store, match_id: int) -> dict[str, Any]:
    match = store.match(match_id)
    frames: dict[int, dict[str, Any]] = {
        f["n"]: {"n": f["n"], "game": f["game"], "breaker": f["breaker"]} for f in store.game_frames(match_id)
    }
    for row in store.shots(match_id):
        frames.setdefault(row["game_frame"], {"n": row["game_frame"], "game": match.game, "breaker": None})
    for fr in frames.values():
        fr.update(shots=0, score={"A": 0, "B": 0}, winner=None, fouls={"A": 0, "B": 0}, foul_list=[])
    for row in store.shots(match_id):
        frames[row["game_frame"]]["shots"] += 1
    for game_frame, v in store.latest_verdicts(match_id):
        fr = frames.setdefault(
            game_frame,
            {"n": game_frame, "game": match.game, "breaker": None, "shots": 0,
             "score": {"A": 0, "B": 0}, "winner": None, "fouls": {"A": 0, "B": 0}, "foul_list": []},
        )  # fmt: skip
        if isinstance(v.get("score"), dict):
            fr["score"] = {"A": v["score"].get("A", 0), "B": v["score"].get("B", 0)}
        if v.get("frame_over"):
            fr["winner"] = v.get("winner")
        player = v.get("player")
        for foul in v.get("fouls") or []:
            if player in ("A", "B"):
                fr["fouls"][player] += 1
            fr["foul_list"].append({"shot": v.get("shot"), "player": player, **foul})
    _conceded_before_a_stroke(store, match_id, frames)
    ordered = [frames[n] for n in sorted(frames)]
    won = {"A": sum(1 for f in ordered if f["winner"] == "A"), "B": sum(1 for f in ordered if f["winner"] == "B")}
    fouls = {p: sum(f["fouls"][p] for f in ordered) for p in ("A", "B")}
    return {
        "match": match.id,
        "game": match.game,
        "source": match.source,
        "status": match.status,
        "players": _players(store, match_id, match.players),
        "game_name": display.game_name(match.game),
        "frames": ordered,
        "frames_won": won,
        "fouls": fouls,
    }


def _conceded_before_a_stroke(store: Store, match_id: int, frames: dict[int, dict[str, Any]]) -> None:
    """A frame conceded before its first stroke has no verdict to give its result (001 1.5.5): the conceder
    keeps his score, nothing, and the winner is credited with the frame's maximum (71 points or 8 balls).
    Such a concession names the shot its frame_start named (no shot was played in between); the k-th
    frame_start naming shot S opened the k-th frame whose first shot is S."""
    by_first: dict[int, list[int]] = {}
    for f in store.game_frames(match_id):
        by_first.setdefault(f["first_shot"], []).append(f["n"])
    starts: list[tuple[int, Any, int | None]] = []  # (seq, shot, frame opened)
    opened: dict[Any, int] = {}
    for ev in store.inputs_of_type(match_id, "frame_start"):
        k = opened.get(ev.get("shot"), 0)
        opened[ev.get("shot")] = k + 1
        ns = by_first.get(ev.get("shot"), [])
        starts.append((ev["seq"], ev.get("shot"), ns[k] if k < len(ns) else None))
    for ev in store.inputs_of_type(match_id, "concede"):
        before = [st for st in starts if st[0] < ev["seq"]]
        if not before or before[-1][1] != ev.get("shot") or before[-1][2] is None:
            continue
        fr = frames.get(before[-1][2])
        if fr is None or fr["shots"] or fr["winner"] is not None or ev.get("player") not in ("A", "B"):
            continue
        winner = "B" if ev["player"] == "A" else "A"
        fr["winner"] = winner
        fr["score"] = {side: display.target(fr["game"])[0] if side == winner else 0 for side in ("A", "B")}


def _players(store: Store, match_id: int, players: dict[str, str]) -> dict[str, str]:
    """The players as the operator named them at the last frame's start (else as the match was opened)."""
    out = dict(players)
    for ev in store.inputs_of_type(match_id, "frame_start"):
        out.update(ev.get("players") or {})
    return out


def protocol_html(proto: dict[str, Any], looks: display.Looks | None = None) -> str:
    """The protocol as a printable page; ``looks`` names the balls the camera could not number by colour."""
    e = html.escape
    names = {side: display.player_name(proto["players"], side) for side in ("A", "B")}
    game = f"{display.game_name(proto['game'])} ({display.game_title(proto['game'])})"
    rows = []
    for fr in proto["frames"]:
        winner = names.get(fr["winner"], fr["winner"]) if fr["winner"] else "—"
        rows.append(
            f"<tr><td>{fr['n']}</td><td>{e(display.game_name(fr['game']))}</td>"
            f"<td>{e(str(names.get(fr['breaker'], '—')))}</td>"
            f"<td>{fr['shots']}</td><td>{fr['score']['A']} : {fr['score']['B']}</td><td>{e(str(winner))}</td>"
            f"<td>{fr['fouls']['A']}</td><td>{fr['fouls']['B']}</td></tr>"
        )
    fouls = [
        f"<tr><td>{_shot_no(f['shot'])}</td><td>{e(str(names.get(f['player'], f['player'])))}</td>"
        f"<td>{e(str(f.get('code')))}</td><td>{e(display.humanize(str(f.get('text', '')), looks))}</td>"
        f"<td>{e(str(f.get('rule', '')))}</td></tr>"
        for fr in proto["frames"]
        for f in fr["foul_list"]
    ]
    a, b = e(names.get("A", "A")), e(names.get("B", "B"))
    return f"""<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><title>Протокол встречи — match {proto["match"]}</title>
<link rel="stylesheet" href="/static/protocol.css"></head>
<body>
<h1>Протокол встречи / Match protocol</h1>
<p>Game <b>{e(game)}</b> · match {proto["match"]} · {e(str(proto["status"]))}</p>
<p class="players"><b>A</b>: {a} &nbsp; <b>B</b>: {b} &nbsp; · frames won {proto["frames_won"]["A"]} : {
        proto["frames_won"]["B"]
    } · fouls {proto["fouls"]["A"]} : {proto["fouls"]["B"]}</p>
<table><thead><tr><th>Frame</th><th>Game</th><th>Breaker</th><th>Shots</th><th>Score {a} : {b}</th>
<th>Winner</th><th>Fouls {a}</th><th>Fouls {b}</th></tr></thead>
<tbody>{"".join(rows) or '<tr><td colspan="8">no frames yet</td></tr>'}</tbody></table>
<h2>Fouls</h2>
<table><thead><tr><th>Shot</th><th>Player</th><th>Foul</th><th>Text</th><th>Rule</th></tr></thead>
<tbody>{"".join(fouls) or '<tr><td colspan="5">none</td></tr>'}</tbody></table>
<p class="sign">Referee: ____________________ &nbsp;&nbsp; {a}: ____________ &nbsp;&nbsp; {b}: ____________</p>
</body></html>
"""


def _shot_no(shot: Any) -> str:
    """Shots as people count them, from 1 (the records number them from 0)."""
    return str(shot + 1) if isinstance(shot, int) else "—"
