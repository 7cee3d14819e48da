"""The referee's calls on the events found against its calls on the truth's events, scene by scene.

Event F1 weighs every contact alike; a club judges us by the calls. Each rendered scenario folder names its
game (``truth/scenario.json``) and may carry operator inputs (``truth/inputs.jsonl``); the rules engine runs
over the truth's events and over the pipeline's, with the same inputs, as ``tableref analyze`` runs it. Two
verdicts are the same call when their fouls, counted, voided and spotted balls, score, next player, ball in
hand and frame result agree (the notes, free text, are not compared); a scene agrees when every verdict does
and the referee refused neither stream.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from api.commands.analyze import merge_inputs, run_rules
from calibration.contract import Event, read_jsonl
from calibration.table import TableModel

_CALL = ("counted", "void", "spot", "score", "next_player", "ball_in_hand", "frame_over", "winner")


def call(verdict: dict[str, Any]) -> tuple[Any, ...]:
    """What a verdict decides, comparable across two runs."""
    fouls = tuple(sorted(f["code"] for f in verdict.get("fouls", [])))
    rest = tuple(json.dumps(verdict.get(k), sort_keys=True) for k in _CALL)
    return (verdict.get("shot"), fouls, *rest)


def verdict_difference(folder: Path, found: list[Event], truth: list[Event], table: TableModel) -> str | None:
    """None when the referee makes the same calls on ``found`` as on ``truth`` (the scene's game and inputs),
    else what differs first, in words."""
    about = folder / "truth" / "scenario.json"
    game = json.loads(about.read_text(encoding="utf-8")).get("game") if about.exists() else None
    if not game:
        return None  # no game named: nothing to referee
    inputs_file = folder / "truth" / "inputs.jsonl"
    inputs = read_jsonl(inputs_file) if inputs_file.exists() else []
    want, want_problem = run_rules(game, table, merge_inputs(truth, inputs))
    got, got_problem = run_rules(game, table, merge_inputs(found, inputs))
    if got_problem != want_problem:
        return f"referee: {got_problem or 'no refusal'} (on the truth: {want_problem or 'no refusal'})"
    for k in range(max(len(want), len(got))):
        if k >= len(got):
            return f"verdict {k}: none (on the truth: {_words(want[k])})"
        if k >= len(want):
            return f"verdict {k}: {_words(got[k])} (none on the truth)"
        if call(got[k]) != call(want[k]):
            return f"verdict {k}: {_words(got[k])} (on the truth: {_words(want[k])})"
    return None


def _words(v: dict[str, Any]) -> str:
    fouls = ",".join(f["code"] for f in v.get("fouls", [])) or "no foul"
    counted = ",".join(v.get("counted", [])) or "nothing"
    return f"shot {v.get('shot')} {fouls}, counted {counted}, next {v.get('next_player')}"
