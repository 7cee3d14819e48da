"""``tableref referee --game cluster`` on whole Cluster event logs (camera events and operator inputs in one
stream, CONTRACT.md section 3), with the verdicts worked out by hand from the clauses of 000.

The logs live in tests/data/rules_cluster/; ``build_*`` below write them (the test checks the committed
files are exactly what the builders write, so they stay reproducible).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api.cli import main
from calibration.contract import Event, read_jsonl
from calibration.table import Point
from rules.cluster.geometry import spot_positions
from rules.referee import Referee
from tests.paths import DATA
from tests.rules.test_rules_cluster_shots import D, ShotLog, T, W

DATA = DATA / "rules_cluster"
SPOT = T.spots["pyramid"]
RACK = {f"t{i + 2}": p for i, p in enumerate(T.rack_positions())}


class FrameLog:
    """A stream of shots with the positions carried from one shot's end to the next shot's start."""

    def __init__(self, positions: dict[str, Point]) -> None:
        self.pos = dict(positions)
        self.events: list[Event] = []
        self.n = 0
        self.t = 0.0

    def add(self, type_: str, **kw: Any) -> FrameLog:
        self.events.append(Event(type=type_, **kw))  # type: ignore[arg-type]
        return self

    def shot(
        self,
        cue: str,
        play: Callable[[ShotLog], object],
        before: tuple[Event, ...] = (),
        after: tuple[Event, ...] = (),
        spot: tuple[str, ...] = (),
    ) -> FrameLog:
        """One shot: operator inputs ``before`` its stroke, the camera events ``play`` writes, inputs
        ``after`` it; ``spot``: balls the referee puts back after it (in the 000 4.1 order)."""
        s = ShotLog(cue, self.pos, shot=self.n, t0=self.t)
        play(s)
        self.events += [e.model_copy(update={"shot": self.n}) for e in before]
        self.events += s.stream()
        self.events += [e.model_copy(update={"shot": self.n}) for e in after]
        self.pos = s.end
        for b, p in spot_positions(T, list(spot), self.pos):
            self.pos[b] = p
        self.n += 1
        self.t = s.t + 2.0
        return self

    def lines(self) -> str:
        return "".join(e.to_json() + "\n" for e in self.events)


def inp(type_: str, **kw: Any) -> Event:
    return Event(type=type_, **kw)  # type: ignore[arg-type]


# ---- the logs -------------------------------------------------------------------------------------------
def build_visits() -> FrameLog:
    """Break, a visit with the game ball, a penalty with play-on, an unproductive attack, debts."""
    f = FrameLog({"t1": (400.0, 889.0), **RACK})
    f.add("frame_start", game="cluster", breaker="A", shot=0)
    # 0 A breaks: crosses the house and middle lines, the apex t2 drives t3 to two cushions -> safety 3.8
    f.shot(
        "t1",
        lambda s: (
            s.cross("t1", "+x", "house").cross("t1", "+x", "center").hit("t1", "t2").hit("t2", "t3")
            .cushion("t3", "right-pyramid").cushion("t3", "pyramid")
            .rest("t1", (2300.0, 889.0)).rest("t2", (2500.0, 600.0)).rest("t3", (3300.0, 1500.0))
        ),
    )  # fmt: skip
    # 1 B: t1 pots t3 -> productive, the game ball is t1 (the survivor of two balls, 2.2)
    f.shot("t1", lambda s: s.hit("t1", "t3").pot("t3", "pyramid-right").rest("t1", (3000.0, 1300.0)))
    # 2 B: t1 -> t2 -> t7 and t7 potted, t7 not announced -> penalty г (3.6е); t3 from B's shelf to the
    #   spot, t7 after it; A hands the shot back (000 5: play_on B)
    f.shot(
        "t1",
        lambda s: s.hit("t1", "t2").hit("t2", "t7").pot("t7", "pyramid-left").rest("t2", (2900.0, 400.0)),
        after=(inp("play_on", player="B"),),
        spot=("t3", "t7"),
    )
    # 3 B (a new visit, free): t4 (in the rack, any ball may be the cue ball) sends t2 into the jaws of
    #   pyramid-left on both sides and goes on to knock t8 out of the rack -> unproductive attack, legal
    f.shot(
        "t4",
        lambda s: (
            s.hit("t4", "t2").jaw("t2", "pyramid-left", "left-pyramid").jaw("t2", "pyramid-left", "pyramid")
            .hit("t4", "t8").rest("t2", (3450.0, 110.0)).rest("t4", (2000.0, 300.0)).rest("t8", (1500.0, 1200.0))
        ),
    )  # fmt: skip
    # 4 A: t1 touches no ball -> penalty г; A has no balls: a debt (digest C10)
    f.shot("t1", lambda s: s.cushion("t1", "right-pyramid").rest("t1", (2800.0, 1700.0)))
    # 5 B: t4 pots t2, but the operator calls a double hit -> penalty в, t2 void and spotted; B has no
    #   balls either: a debt
    f.shot(
        "t4",
        lambda s: s.hit("t4", "t2").pot("t2", "pyramid-left"),
        after=(inp("manual_foul", code="double_hit"),),
        spot=("t2",),
    )
    # 6 A: t1 pots t9 cleanly -> counts, but settles A's debt: t9 is spotted, A stays on 0 and plays on
    f.shot("t1", lambda s: s.hit("t1", "t9").pot("t9", "pyramid-right"), spot=("t9",))
    # 7 A: the game ball is t1; re-order to t4: t1 pots t8 and then touches t4 -> t4 is the game ball
    #   (neither ball is in a cluster, so no free choice under 3.6д)
    f.shot(
        "t1",
        lambda s: s.hit("t1", "t8").pot("t8", "middle-right").hit("t1", "t4"),
        before=(inp("reorder", ball="t4"),),
    )
    # 8 A: t4 (the game ball) is struck and pots t5 -> legal, two balls on A's shelf (t8, t5)
    f.shot("t4", lambda s: s.hit("t4", "t5").pot("t5", "pyramid-right"))
    # 9 A: t11 pots t10 without the game ball t4 -> penalty ж (4.1ж): t5 (last on A's shelf) and the void
    #   t10 are spotted
    f.shot("t11", lambda s: s.hit("t11", "t10").pot("t10", "pyramid-right"), spot=("t5", "t10"))
    return f


VISITS_EXPECTED = [
    # shot, player, legal, foul codes, counted, void, spotted balls, score A, score B, next player
    (0, "A", True, [], [], [], [], 0, 0, "B"),
    (1, "B", True, [], ["t3"], [], [], 0, 1, "B"),
    (2, "B", False, ["unannounced_third_ball"], [], ["t7"], ["t3", "t7"], 0, 0, "B"),
    (3, "B", True, [], [], [], [], 0, 0, "A"),
    (4, "A", False, ["no_contact"], [], [], [], 0, 0, "B"),
    (5, "B", False, ["double_hit"], [], ["t2"], ["t2"], 0, 0, "A"),
    (6, "A", True, [], ["t9"], [], ["t9"], 0, 0, "A"),
    (7, "A", True, [], ["t8"], [], [], 1, 0, "A"),
    (8, "A", True, [], ["t5"], [], [], 2, 0, "A"),
    (9, "A", False, ["no_game_ball"], [], ["t10"], ["t5", "t10"], 1, 0, "B"),
]


def build_frame_won() -> FrameLog:
    """B breaks and wins the frame by potting eight balls in one visit with the game ball t1."""
    f = FrameLog({"t1": (400.0, 889.0), **RACK})
    f.add("frame_start", game="cluster", breaker="B", shot=0)
    f.shot(
        "t1",
        lambda s: (
            s.cross("t1", "+x", "house").cross("t1", "+x", "center").hit("t1", "t2")
            .jaw("t2", "pyramid-right", "right-pyramid").jaw("t2", "pyramid-right", "pyramid")
            .rest("t2", (3300.0, 1600.0)).rest("t1", (2400.0, 1000.0))
        ),
    )  # fmt: skip
    # A's turn: a safety (t1 -> t2, t2 two cushions, t1 back over the middle line)
    f.shot(
        "t1",
        lambda s: (
            s.hit("t1", "t2").cushion("t2", "right-pyramid").cushion("t2", "pyramid").cross("t1", "-x")
            .rest("t1", (1200.0, 900.0))
        ),
    )  # fmt: skip
    pockets = ["pyramid-left", "pyramid-right", "middle-left", "middle-right"] * 2
    for k, ball in enumerate(["t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]):
        f.shot("t1", lambda s, b=ball, p=pockets[k]: s.hit("t1", b).pot(b, p))  # type: ignore[misc]
    return f


def build_lag() -> FrameLog:
    """The lag decides who breaks (000 3.3): A's ball stops nearer the house cushion."""
    f = FrameLog({"a": (300.0, 600.0), "b": (300.0, 1200.0)})
    f.shot(
        "a",
        lambda s: (
            s.cushion("a", "pyramid", (T.length_mm, 600.0)).cushion("b", "pyramid", (T.length_mm, 1200.0))
            .rest("a", (250.0, 610.0)).rest("b", (420.0, 1190.0))
        ),
    )  # fmt: skip
    return f


BUILDERS = {"visits": build_visits, "frame_won": build_frame_won, "lag": build_lag}


def run_cli(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    rc = main(["referee", "--game", "cluster", str(path)])
    out = capsys.readouterr().out
    assert rc == 0
    return [json.loads(x) for x in out.splitlines()]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_committed_logs_are_what_the_builders_write(name: str) -> None:
    assert (DATA / f"{name}.jsonl").read_text(encoding="utf-8") == BUILDERS[name]().lines()


def test_000_visits_log_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    verdicts = run_cli(DATA / "visits.jsonl", capsys)
    assert len(verdicts) == len(VISITS_EXPECTED)
    for v, (shot, player, legal, fouls, counted, void, spotted, a, b, nxt) in zip(
        verdicts, VISITS_EXPECTED, strict=True
    ):
        got = (
            v["shot"], v["player"], v["legal"], [f["code"] for f in v["fouls"]], v["counted"], v["void"],
            [s["ball"] for s in v["spot"]], v["score"]["A"], v["score"]["B"], v["next_player"],
        )  # fmt: skip
        assert got == (shot, player, legal, fouls, counted, void, spotted, a, b, nxt), f"shot {shot}"
        assert not v["frame_over"] and v["winner"] is None and not v["ball_in_hand"]
        for s in v["spot"]:
            assert s["pos"][1] == pytest.approx(W / 2)
    # shot 2: t3 on the free pyramid spot, t7 beyond it toward the pyramid cushion (000 4.1)
    spot2 = {s["ball"]: s["pos"] for s in verdicts[2]["spot"]}
    assert spot2["t3"] == pytest.approx(list(SPOT), abs=0.06)  # verdicts round to 0.1 mm
    assert spot2["t7"][0] > SPOT[0] + D
    # every foul cites its 000 clause
    rules = {f["code"]: f["rule"] for v in verdicts for f in v["fouls"]}
    assert rules == {
        "unannounced_third_ball": "000 4.1г",
        "no_contact": "000 4.1г",
        "double_hit": "000 4.1в",
        "no_game_ball": "000 4.1ж",
    }
    assert any("play on" in n for n in verdicts[2]["notes"])
    assert any("t4" in n and "3.7" in n for n in verdicts[7]["notes"])
    assert "game ball now t4" in verdicts[8]["notes"][0]


def test_000_visits_log_spots_never_overlap() -> None:
    ref = Referee("cluster")
    for e in read_jsonl(DATA / "visits.jsonl"):
        ref.feed(e)
        table = ref.state.table or {}
        pts = list(table.values())
        assert all(math.dist(p, q) >= D - 1e-6 for i, p in enumerate(pts) for q in pts[i + 1 :])
    assert ref.state.debts == (0, 1)  # B still owes the ball of shot 5; A paid with t9


def test_000_3_9_frame_won_log(capsys: pytest.CaptureFixture[str]) -> None:
    verdicts = run_cli(DATA / "frame_won.jsonl", capsys)
    assert [v["player"] for v in verdicts] == ["B", "A"] + ["B"] * 8
    assert all(v["legal"] for v in verdicts)
    assert [v["score"]["B"] for v in verdicts[2:]] == list(range(1, 9))
    last = verdicts[-1]
    assert last["frame_over"] and last["winner"] == "B"
    assert not any(v["frame_over"] for v in verdicts[:-1])


def test_000_3_3_lag_log(capsys: pytest.CaptureFixture[str]) -> None:
    (v,) = run_cli(DATA / "lag.jsonl", capsys)
    assert v["next_player"] == "A" and v["notes"][0].startswith("lag won by A")


def test_referee_rejects_a_bad_line_keeping_earlier_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (DATA / "visits.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(i for i, line in enumerate(text) if '"shot": 3' in line and "shot_start" in line)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(text[:cut]) + '{"type": "pot", "t": 99.0, "ball": "zz", "pocket": "nowhere"}\n')
    rc = main(["referee", "--game", "cluster", str(bad)])
    cap = capsys.readouterr()
    assert rc == 2 and f"line {cut + 1}" in cap.err
    assert [json.loads(x)["shot"] for x in cap.out.splitlines()] == [0, 1, 2]


def test_000_4_1d_stroke_before_the_previous_shot_was_over(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (DATA / "frame_won.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    drop = next(i for i, x in enumerate(lines) if '"shot_end"' in x and '"shot": 2,' in x)
    path = tmp_path / "early.jsonl"
    path.write_text("".join(lines[:drop] + lines[drop + 1 :]), encoding="utf-8")
    verdicts = run_cli(path, capsys)
    assert verdicts[2]["legal"] and verdicts[2]["counted"] == ["t2"]  # shot 2 itself was fine
    v = verdicts[3]
    assert [f["code"] for f in v["fouls"]] == ["early_shot"] and v["fouls"][0]["rule"] == "000 4.1д"
    assert v["void"] == ["t3"] and [s["ball"] for s in v["spot"]] == ["t2", "t3"] and v["next_player"] == "A"


def test_000_4_1b_ball_moved_by_hand_is_seen_by_the_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (DATA / "frame_won.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, x in enumerate(lines) if '"type": "pot"' in x and '"shot": 2,' in x)
    touch = Event(type="disturbed", t=json.loads(lines[at])["t"], shot=2, ball="t10", pos=RACK["t10"])
    path = tmp_path / "touched.jsonl"
    path.write_text("".join([*lines[: at + 1], touch.to_json() + "\n", *lines[at + 1 :]]), encoding="utf-8")
    v = run_cli(path, capsys)[2]
    assert [f["code"] for f in v["fouls"]] == ["touched_ball"] and v["fouls"][0]["rule"] == "000 4.1б"
    assert v["void"] == ["t2"] and v["score"]["B"] == 0 and v["next_player"] == "A"


def test_000_4_1b_is_not_called_on_an_uncertain_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the same touch, read by the camera only with its review flag: the pot counts, the verdict is flagged and
    # says the penalty is the operator's to give
    lines = (DATA / "frame_won.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, x in enumerate(lines) if '"type": "pot"' in x and '"shot": 2,' in x)
    touch = Event(type="disturbed", t=json.loads(lines[at])["t"], shot=2, ball="t10", pos=RACK["t10"], review=True)
    path = tmp_path / "touched.jsonl"
    path.write_text("".join([*lines[: at + 1], touch.to_json() + "\n", *lines[at + 1 :]]), encoding="utf-8")
    v = run_cli(path, capsys)[2]
    assert v["fouls"] == [] and v["counted"] == ["t2"] and v["review"] is True
    assert any("ball t10 may have moved" in n and "000 4.1б" in n for n in v["notes"]), v["notes"]
