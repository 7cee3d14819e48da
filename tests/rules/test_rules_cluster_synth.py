"""``tableref referee --game cluster`` on event logs written by ``tableref synth`` (physics-true truth of the
scenario library, copied unchanged into tests/data/rules_cluster/synth/ from ``tableref synth --scenario NAME
--seed N --truth-only``). Each expected verdict below was worked out by hand from the events and the
clauses of 000 (the reasoning is in the comment beside it).

A synthetic single-shot scenario starts mid-frame, so the operator's ``frame_start`` is put in front of it
(the lag needs none); the first shot is then not a break, because no pyramid is racked.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from api.cli import main
from tests.paths import DATA

SYNTH = DATA / "rules_cluster" / "synth"
FRAME_START = '{"type": "frame_start", "game": "cluster", "breaker": "A", "shot": 0}\n'

# shot, player, legal, foul codes, counted, void, spotted, score (A, B), next player
Row = tuple[int, str, bool, list[str], list[str], list[str], list[str], tuple[int, int], str]
EXPECTED: dict[str, list[Row]] = {
    # 0: break from the house; 16 crosses the middle line, balls 1 and 15 touch 2+ cushions; the only zone
    #    touch (15, jaw of middle-right) is by an unannounced third ball -> safety 3.8.
    # 1: 16 pots 8 (two balls, 8 and 13 are in no cluster) -> productive, game ball 16.
    # 2: 15 pots 2, the game ball 16 takes no part -> 4.1ж; 8 from B's shelf and the void 2 are spotted.
    # 3: 7 touches the pyramid cushion outside the zone, then right-pyramid 6 mm from the pyramid-right jaw
    #    tip (inside the zone): 2.2 (i) passive; no ball crosses the middle line -> 4.1з, A owes a ball.
    "cluster-frame-3": [
        (0, "A", True, [], [], [], [], (0, 0), "B"),
        (1, "B", True, [], ["8"], [], [], (0, 1), "B"),
        (2, "B", False, ["no_game_ball"], [], ["2"], ["8", "2"], (0, 0), "A"),
        (3, "A", False, ["passive_attack"], [], [], [], (0, 0), "B"),
    ],
    # 2 hits 1 into middle-left: productive attack of two balls, 2 stays the game ball, A plays on.
    "cluster-pot-0": [(0, "A", True, [], ["1"], [], [], (1, 0), "A")],
    # 4 hits 6; 6 touches five cushions and crosses the middle line: safety.
    "cluster-random-0": [(0, "A", True, [], [], [], [], (0, 0), "B")],
    # 4 hits 6, 6 touches one cushion outside every zone, nothing crosses the middle line: 4.1г, a debt.
    "cluster-random-1": [(0, "A", False, ["no_attack_no_safety"], [], [], [], (0, 0), "B")],
    # свояк: "cue" hits 1 and is potted itself: productive, it counts; the game ball is 1.
    "kiss-0": [(0, "A", True, [], ["cue"], [], [], (1, 0), "A")],
    # 1 stops in the middle-right mouth without a jaw touch: it reached the pocket's zone from in front of
    # the pocket (not a passive zone): unproductive attack, legal, the turn passes.
    "stop-in-mouth-0": [(0, "A", True, [], [], [], [], (0, 0), "B")],
    # the cue ball touches no ball: 4.1г.
    "no-ball-0": [(0, "A", False, ["no_contact"], [], [], [], (0, 0), "B")],
    # a cluster of four broken up, nothing potted; 3 touches two cushions, the cue ball crosses: safety.
    "cluster-hit-0": [(0, "A", True, [], [], [], [], (0, 0), "B")],
}


def _run(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], frame_start: bool = True) -> list[Any]:
    path = tmp_path / f"{name}.jsonl"
    text = (SYNTH / f"{name}.jsonl").read_text(encoding="utf-8")
    path.write_text((FRAME_START if frame_start else "") + text, encoding="utf-8")
    assert main(["referee", "--game", "cluster", str(path)]) == 0
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_synth_cluster_scenarios_get_the_right_verdicts(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = _run(name, tmp_path, capsys)
    got = [
        (
            v["shot"], v["player"], v["legal"], [f["code"] for f in v["fouls"]], v["counted"], v["void"],
            [s["ball"] for s in v["spot"]], (v["score"]["A"], v["score"]["B"]), v["next_player"],
        )
        for v in verdicts
    ]  # fmt: skip
    assert got == EXPECTED[name]


def test_synth_cluster_details(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = _run("cluster-frame-3", tmp_path, capsys)
    assert "game ball now 16" in frame[1]["notes"][0]
    assert any("2.2 i" in n and "pyramid-right" in n for n in frame[3]["notes"])
    assert frame[2]["fouls"][0]["rule"] == "000 4.1ж" and frame[3]["fouls"][0]["rule"] == "000 4.1з"
    (pot,) = _run("cluster-pot-0", tmp_path, capsys)
    assert "game ball now 2" in pot["notes"][1]
    (kiss,) = _run("kiss-0", tmp_path, capsys)
    assert "game ball now 1" in kiss["notes"][1]


def test_synth_cluster_lag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # both balls touch the pyramid cushion once and come back on their own side; 2 stops at x = 1881 mm,
    # 1 at x = 2145 mm: B (the right-hand ball) is nearer the house cushion and wins (000 3.3в)
    (v,) = _run("lag-0", tmp_path, capsys, frame_start=False)
    assert v["next_player"] == "B" and v["notes"][0].startswith("lag won by B")


@pytest.mark.synth
@pytest.mark.slow
def test_synth_still_writes_the_committed_truth(tmp_path: Path) -> None:
    pytest.importorskip("pooltool")
    if shutil.which("tableref") is None:
        pytest.skip("tableref is not installed")
    cmd = [sys.executable, "-m", "api.cli", "synth", "--out", str(tmp_path / "s"), "--scenario", "cluster-pot"]
    subprocess.run([*cmd, "--seed", "0", "--truth-only"], check=True, capture_output=True, timeout=600)
    written = [json.loads(line) for line in (tmp_path / "s" / "truth" / "events.jsonl").read_text().splitlines()]
    committed = [json.loads(line) for line in (SYNTH / "cluster-pot-0.jsonl").read_text().splitlines()]
    # the same events, fields and values; the physics' floating point differs in its last digits from one CPU
    # to another (1e-14 between an Intel and an AMD host), so numbers are compared to a relative 1e-9
    got, want = _leaves(written), _leaves(committed)
    assert [(path, v) for path, v in got if not isinstance(v, float)] == [
        (path, v) for path, v in want if not isinstance(v, float)
    ]
    assert [path for path, v in got if isinstance(v, float)] == [path for path, v in want if isinstance(v, float)]
    assert [v for _, v in got if isinstance(v, float)] == pytest.approx(
        [v for _, v in want if isinstance(v, float)], rel=1e-9
    )


def _leaves(value: object, path: str = "") -> list[tuple[str, object]]:
    """Every scalar in a JSON value with its path (``[3].pos[0]``)."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}[{i}]")]
    return [(path, value)]
