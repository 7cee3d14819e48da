"""Play on after a foul (001 2.1.8, 000 5) in every game, from golden logs replayed by ``tableref referee``.

``play_on`` comes between the foul shot's end and the next stroke, numbered for either of the two shots; it
amends the foul shot's verdict (``next_player``, a note citing the clause). One that cannot apply (no foul
pending, the player who plays anyway) is refused: a one-line reason on stderr, a note on the verdict, and
the verdicts are as if it had not been sent. In the ball games the foul with an empty shelf is a debt
(001 2.4.7): play on applies the same.
"""

from __future__ import annotations

import contextlib
import json

import pytest

from api.cli import main
from calibration.contract import Event
from rules.errors import RefereeInputError
from rules.registry import FEDERATION_GAMES
from rules.scenarios import Script
from tests.paths import DATA

DATA = DATA / "rules_play_on"
GAMES = [*sorted(FEDERATION_GAMES), "cluster"]


def clause(game: str) -> str:
    return "000 5" if game == "cluster" else "001 2.1.8"


def play_on(s: Script, shot: int, player: str) -> None:
    """A play-on choice as the operator sends it; a refusal stays in the log (the referee must say why)."""
    ev = Event.model_validate({"type": "play_on", "shot": shot, "player": player})
    s.events.append(ev)
    with contextlib.suppress(RefereeInputError):
        s.verdicts += s.ref.feed(ev)


def safe(s: Script, ball: str) -> None:
    """A legal stroke that pots nothing in every game: it crosses the centre line and the struck ball
    touches two cushions (001 2.1.11(1), 2.7.6(1), 000 3.8)."""
    s.play("cue", ("cross", "cue", "center", "+x"), ("hit", "cue", ball), ("rail", ball, "pyramid"),
           ("rail", ball, "right-pyramid"), ("rail", "cue", "pyramid"))  # fmt: skip


def miss(s: Script) -> None:
    """The cue ball touches no ball (001 2.1.22(1); Cluster: neither attack nor safety, 000 4.1г)."""
    s.play("cue", ("rail", "cue", "left-house"))


def script(game: str) -> Script:
    s = Script(game, breaker="A")
    s.play("cue", ("cross", "cue", "house", "+x"), ("cross", "cue", "center", "+x"), ("hit", "cue", "4"),
           ("rail", "4", "pyramid"), ("rail", "4", "right-pyramid"), ("rail", "cue", "pyramid"))  # fmt: skip
    miss(s)  # shot 1: B's foul
    play_on(s, 2, "B")  # numbered for the next shot: A orders B to play on
    safe(s, "5")  # shot 2: B plays again
    play_on(s, 3, "A")  # refused: shot 2 was no foul
    miss(s)  # shot 3: A's foul
    play_on(s, 3, "B")  # refused: B plays next anyway; play on names the offender
    play_on(s, 3, "A")  # numbered for the foul shot: B orders A to play on
    safe(s, "6")  # shot 4: A plays again
    return s


@pytest.mark.parametrize("game", GAMES)
def test_play_on_golden_log(game, capsys):
    events = DATA / f"{game}.events.jsonl"
    assert events.read_text(encoding="utf-8") == script(game).jsonl()
    assert main(["referee", "--game", game, str(events)]) == 0
    captured = capsys.readouterr()
    got = [json.loads(x) for x in captured.out.splitlines()]
    want = [json.loads(x) for x in (DATA / f"{game}.verdicts.jsonl").read_text(encoding="utf-8").splitlines()]
    assert got == want
    assert [v["player"] for v in got] == ["A", "B", "B", "A", "A"]
    # shot 1: B's foul, then B ordered to play on by a play_on numbered for shot 2
    foul = got[1]
    assert not foul["legal"] and foul["fouls"] and foul["amended"] is True
    rule = foul["fouls"][0]["rule"]
    assert rule == ("000 4.1г" if game == "cluster" else "001 2.1.22(1)"), foul
    assert foul["next_player"] == "B" and f"play on: B takes the next shot ({clause(game)})" in foul["notes"]
    if game != "cluster" and FEDERATION_GAMES[game].scoring == "balls":
        assert any("debt" in n for n in foul["notes"])  # the penalty is a debt (001 2.4.7): play on all the same
    # shot 3: A's foul; the refused choices noted, then A ordered to play on by one numbered for shot 3
    assert not got[3]["legal"] and got[3]["next_player"] == "A" and got[3]["amended"] is True
    refused = [n for n in got[3]["notes"] if "play_on refused" in n]
    assert len(refused) == 2 and "no foul pending" in refused[0] and "wrong player" in refused[1]
    assert all(clause(game) in n for n in refused)
    err = captured.err.splitlines()
    assert len(err) == 2 and all(x.startswith("tableref referee: line ") for x in err)
    assert "play_on refused: no foul pending" in err[0]
    assert "play_on refused: wrong player: B takes the next shot anyway" in err[1]


@pytest.mark.parametrize("game", GAMES)
def test_play_on_in_the_engine_amends_the_foul_shot_or_is_refused(game):
    s = Script(game, breaker="A")
    with pytest.raises(RefereeInputError, match="no foul pending"):
        s.play_on("B")  # before any shot
    s.play("cue", ("cross", "cue", "house", "+x"), ("cross", "cue", "center", "+x"), ("hit", "cue", "4"),
           ("rail", "4", "pyramid"), ("rail", "4", "right-pyramid"), ("rail", "cue", "pyramid"))  # fmt: skip
    miss(s)
    before = s.ref.observable()
    for shot, player, why in ((1, "A", "wrong player"), (3, "B", "the foul pending is shot 1's"),
                              (0, "B", "frozen")):  # fmt: skip
        with pytest.raises(RefereeInputError, match=why):
            s.ref.feed(Event.model_validate({"type": "play_on", "shot": shot, "player": player}))
        assert s.ref.observable() == before  # a refusal leaves everything as it was
    (v,) = s.ref.feed(Event.model_validate({"type": "play_on", "shot": 2, "player": "B"}))
    assert v.shot == 1 and v.amended and v.next_player == "B" and s.ref.state.to_play == "B"
    with pytest.raises(RefereeInputError, match="already ordered"):
        s.ref.feed(Event.model_validate({"type": "play_on", "shot": 1, "player": "B"}))
    s.ref.feed(Event(type="shot_start", t=99.0, shot=2, ball="cue", positions=dict(s.pos)))
    with pytest.raises(RefereeInputError, match="in progress"):
        s.ref.feed(Event.model_validate({"type": "play_on", "shot": 2, "player": "A"}))


def write_golden() -> None:  # pragma: no cover - regenerates the logs after a reviewed rule change
    DATA.mkdir(parents=True, exist_ok=True)
    from rules.referee import referee_lines

    for game in GAMES:
        text = script(game).jsonl()
        (DATA / f"{game}.events.jsonl").write_text(text, encoding="utf-8")
        out = referee_lines(game, text.splitlines(), on_refused=lambda n, m: None)
        (DATA / f"{game}.verdicts.jsonl").write_text("".join(v.to_json() + "\n" for v in out), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    write_golden()
