"""Names people read: players, games, balls, pockets, cushions, manual fouls.

Everything a person sees (the overlay, the referee's console, the protocol, report.html, the terminal)
names things through here, never by the record's internal ids. A ball the tracker could not number
(``t6``) is "a ball" to a viewer: the id only says which track it was, and a broadcast audience or a
referee has nothing to match it with. Numbers are shown only where the game's rack numbers the balls
(the Russian pyramid's fixed order, 001 2.2.3) or an operator said "this ball is number 7".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from calibration.contract import games

# What a viewer calls each game, with the rule document's own title, what wins a frame, and whether its rack
# numbers the balls (001 2.2.3): declared once with the game (calibration.contract.games).
GAME_NAMES: dict[str, tuple[str, str]] = {g.name: (g.human, g.title) for g in games.DECLARED}
_TARGETS: dict[str, tuple[int, str]] = {g.name: (g.target, g.scoring) for g in games.DECLARED}
_DEFAULT_TARGET = (8, "balls")
NUMBERED_RACK_GAMES = tuple(g.name for g in games.DECLARED if g.rack_order)

POCKET_NAMES: dict[str, str] = {
    "house-left": "left corner pocket at the house end",
    "house-right": "right corner pocket at the house end",
    "middle-left": "left middle pocket",
    "middle-right": "right middle pocket",
    "pyramid-left": "left corner pocket at the pyramid end",
    "pyramid-right": "right corner pocket at the pyramid end",
}
POCKET_SHORT: dict[str, str] = {
    "house-left": "house left", "house-right": "house right", "middle-left": "middle left",
    "middle-right": "middle right", "pyramid-left": "pyramid left", "pyramid-right": "pyramid right",
}  # fmt: skip
CUSHION_NAMES: dict[str, str] = {
    "house": "the house cushion",
    "pyramid": "the pyramid cushion",
    "left-house": "the left cushion (house half)",
    "left-pyramid": "the left cushion (pyramid half)",
    "right-house": "the right cushion (house half)",
    "right-pyramid": "the right cushion (pyramid half)",
}
LINE_NAMES: dict[str, str] = {"house": "the house line", "center": "the centre line", "long": "the long line"}

# The operator's manual fouls (CONTRACT.md section 3) as a referee says them, with the 001 clause.
MANUAL_FOUL_NAMES: dict[str, str] = {
    "feet_off_floor": "no foot on the floor (001 2.1.22(6))",
    "double_hit": "double hit (001 2.1.22(9))",
    "push": "push stroke (001 2.1.22(8))",
    "press": "press stroke (001 2.1.22(8))",
    "not_cue_tip": "not struck with the tip (001 2.1.22(5))",
    "touched_ball": "a ball touched by hand, cue or clothing (001 2.1.22(4))",
    "early_shot": "stroke before the balls stopped (001 2.1.22(3))",
    "interference": "interference (001 2.1.22(15))",
    "body_over_rail": "from hand, body over the rail outside the house (001 2.1.22(14))",
}

TRACKER_ID = re.compile(r"^t[1-9][0-9]*$")

# A ball the camera could not number is named by its colour where the set is coloured (pool, snooker): the
# word a viewer of the picture would use, from the detector's mean colour of the ball's inner disc (BGR,
# 0..255), by hue, saturation and value. The bounds were chosen on the tuning pictures of ``tableref bench
# names`` (the first frames of the tuning clips and the snooker rig's with_halo_2 stills: 280 balls on four
# cameras, tests/data/names/colours.json); the held-out clips' first frames are only reported (measured/).
# Where a colour could be either of two words it says none: "a ball" never misleads a viewer, a wrong colour
# does. A white ball (a Russian pyramid set, a cue ball) says nothing a viewer can match: it stays "a ball".
WHITE_BELOW_SATURATION = 0.25  # white balls measure 0.04-0.24 on the tuning cameras
BLACK_BELOW_VALUE = 0.25  # black 0.12-0.28; the darkest coloured ball, a broadcast's green, 0.38-0.40
DIM_BELOW_VALUE = 0.37  # below it and off the greens, black: the black ball takes the cloth's tint
PALE_BELOW_SATURATION = 0.71  # pink 0.23-0.71; red 0.83-0.99 on a sharp camera
# A ball imaged smaller than this radius is a few dozen pixels of rim, glare and motion blur: its mean colour
# drifts by a family (reds read pink, purples blue on a 9 px ball), so it is not named.
MIN_NAMED_RADIUS_PX = 12.0
_HUES: tuple[tuple[float, str | None], ...] = (  # (upper bound of hue in degrees, family), in order
    (3.0, "red"), (11.0, None), (30.0, "orange"), (70.0, "yellow"), (190.0, "green"), (260.0, "blue"),
    (300.0, "purple"), (335.0, "pink"), (360.0, "red"),
)  # fmt: skip
# red 345-360 and 0-1, orange 10-26, yellow 37-55, green 103-185, blue 199-217 on the tuning cameras. Hue 3-11
# is no word: a warm light turns a brown ball there (5-11 on the snooker rig) and a cool one an orange ball.
DARK_BELOW_VALUE = 0.65  # a dark orange is brown (maroon 0.45-0.57 on the tuning cameras; orange 0.72-0.91)


def named_size(radius_px: float) -> bool:
    """Whether a ball imaged this large shows its colour well enough to be named (``MIN_NAMED_RADIUS_PX``)."""
    return radius_px >= MIN_NAMED_RADIUS_PX


def colour_word(bgr: tuple[float, float, float] | None) -> str | None:
    """ "yellow", "red", "black"... for a coloured ball's mean colour; None for a white one (or none)."""
    if bgr is None:
        return None
    b, g, r = (min(max(float(c), 0.0), 255.0) / 255.0 for c in bgr)
    hi, lo = max(r, g, b), min(r, g, b)
    value = hi
    sat = 0.0 if hi <= 0.0 else (hi - lo) / hi
    if value < BLACK_BELOW_VALUE:
        return "black"
    span = hi - lo
    if span <= 0.0:
        hue = 0.0
    elif hi == r:
        hue = (60.0 * (g - b) / span) % 360.0
    elif hi == g:
        hue = 60.0 * (b - r) / span + 120.0
    else:
        hue = 60.0 * (r - g) / span + 240.0
    family = next(name for bound, name in _HUES if hue < bound)
    if value < DIM_BELOW_VALUE and family != "green":
        return "black"
    if sat < WHITE_BELOW_SATURATION or family is None:
        return None
    if family == "red" and sat < PALE_BELOW_SATURATION:
        return "pink"
    if family == "orange" and value < DARK_BELOW_VALUE:
        return "brown"
    return family


def looks(colours: Mapping[str, tuple[float, float, float]]) -> dict[str, str]:
    """The colour word of every ball the camera could not number whose colour names it (``t6`` -> "yellow")."""
    out = {}
    for ball, bgr in colours.items():
        word = colour_word(bgr) if TRACKER_ID.match(ball) else None
        if word is not None:
            out[ball] = word
    return out


def game_name(game: str | None) -> str:
    """ "Moscow pyramid" for ``moscow``; an unknown code is shown as it is."""
    if not game:
        return ""
    return GAME_NAMES.get(game, (game, game))[0]


def game_title(game: str | None) -> str:
    """The rule document's own (Russian) title of the game."""
    if not game:
        return ""
    return GAME_NAMES.get(game, (game, game))[1]


def target(game: str | None) -> tuple[int, str]:
    """What wins a frame: (71, "points") or (8, "balls")."""
    return _TARGETS.get(game or "", _DEFAULT_TARGET)


def target_text(game: str | None) -> str:
    n, unit = target(game)
    return f"{n} {unit} to win"


def numbered(game: str | None) -> bool:
    """Whether the game's rack numbers the balls, so a viewer reads the numbers off the table."""
    return game in NUMBERED_RACK_GAMES


Looks = Mapping[str, str]  # ball id -> the colour word it is named by (``looks``); empty for a white set


def ball_name(ball: str | None, *, article: bool = True, looks: Looks | None = None) -> str:
    """ "ball 7", "the cue ball", "the yellow ball" (a coloured ball the camera could not number; "a red
    ball" when the set has several), or "a ball" for one the camera could neither number nor tell by colour."""
    if ball is None:
        return "a ball" if article else "ball"
    if ball == "cue":
        return "the cue ball" if article else "cue ball"
    if TRACKER_ID.match(ball):
        word = (looks or {}).get(ball)
        if word is None:
            return "a ball" if article else "ball"
        if not article:
            return f"{word} ball"
        alone = sum(1 for w in (looks or {}).values() if w == word) == 1
        return f"{'the' if alone else _a(word)} {word} ball"
    return f"ball {ball}"


def _a(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def ball_label(ball: str) -> str:
    """The short mark drawn on a ball in a picture: its number, or nothing (a plain disc) when unknown."""
    if ball == "cue" or TRACKER_ID.match(ball):
        return ""
    return ball


def balls_text(balls: Iterable[str], looks: Looks | None = None) -> str:
    """ "ball 3, the yellow ball and 2 balls" - numbered balls by number, coloured ones by colour, the rest
    counted."""
    named: list[str] = []
    unnamed = 0
    shades: dict[str, int] = {}
    for b in balls:
        word = (looks or {}).get(b) if TRACKER_ID.match(b) else None
        if TRACKER_ID.match(b) and word is None:
            unnamed += 1
        elif word is not None:
            shades[word] = shades.get(word, 0) + 1
        else:
            named.append(ball_name(b, article=True).removeprefix("the "))
    for word, n in shades.items():
        alone = sum(1 for w in (looks or {}).values() if w == word) == 1
        named.append(
            f"the {word} ball" if n == 1 and alone else f"{n} {word} balls" if n > 1 else f"{_a(word)} {word} ball"
        )
    if unnamed:
        named.append("a ball" if unnamed == 1 else f"{unnamed} balls")
    if not named:
        return "none"
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


_PAIR_IN_TEXT = re.compile(r"\bballs (cue|t[1-9][0-9]*|[0-9]+) and (cue|t[1-9][0-9]*|[0-9]+)\b")
_CUE_IN_TEXT = re.compile(r"\bball cue\b")
_TRACKER_NAMED = re.compile(r"\b(?:[Bb]all )?(t[1-9][0-9]*)\b")


def humanize(text: str, looks: Looks | None = None) -> str:
    """A rule note, warning or foul text with ball ids as people say them: "balls t3 and t5" is "two balls"
    (or the two by colour), "ball t6" is "a ball" or "the yellow ball", "ball cue" is "the cue ball"."""

    def pair(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        if all(TRACKER_ID.match(x) and x not in (looks or {}) for x in (a, b)):
            return "two balls"
        return f"{ball_name(a, looks=looks)} and {ball_name(b, looks=looks)}"

    text = _PAIR_IN_TEXT.sub(pair, text)
    text = _CUE_IN_TEXT.sub("the cue ball", text)
    return _TRACKER_NAMED.sub(lambda m: ball_name(m.group(1), looks=looks), text)


def pocket_name(pocket: str | None) -> str:
    return POCKET_NAMES.get(pocket or "", pocket or "")


def player_name(players: Mapping[str, str], side: str | None) -> str:
    if side is None:
        return "—"
    name = str(players.get(side) or side)
    # An unnamed player is shown by the side he plays for, never as a bare letter.
    return f"Player {side}" if name == side else name


def score_text(score: Mapping[str, Any] | None, players: Mapping[str, str]) -> str:
    """ "Ivanov 2 : 1 Petrov" (never a dict)."""
    score = score or {}
    return (
        f"{player_name(players, 'A')} {_num(score.get('A', 0))} : {_num(score.get('B', 0))} {player_name(players, 'B')}"
    )


def _num(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def event_text(ev: Mapping[str, Any], looks: Looks | None = None) -> str:
    """One camera event or operator input in words."""
    kind = ev.get("type")
    ball = ball_name(ev.get("ball"), looks=looks)
    if kind == "contact":
        a, b = [*list(ev.get("balls") or []), None, None][:2]
        return f"{ball_name(a, looks=looks)} hits {ball_name(b, looks=looks)}"
    if kind == "cushion":
        cu = str(ev.get("cushion") or "")
        where = f"the jaw of the {pocket_name(cu[4:])}" if cu.startswith("jaw:") else CUSHION_NAMES.get(cu, cu)
        return f"{ball} touches {where}"
    if kind == "line_cross":
        return f"{ball} crosses {LINE_NAMES.get(str(ev.get('line')), ev.get('line'))}"
    if kind == "pot":
        return f"{ball} into the {pocket_name(ev.get('pocket'))}"
    if kind == "shot_start":
        return f"{ball} struck"
    if kind == "shot_end":
        return f"all balls at rest ({len(ev.get('positions') or {})} on the table)"
    if kind == "off_table":
        return f"{ball} left the table"
    if kind == "disturbed":
        return f"{ball} moved without a contact"
    return input_text(ev, looks=looks)


def input_text(ev: Mapping[str, Any], players: Mapping[str, str] | None = None, looks: Looks | None = None) -> str:
    """An operator input in words."""
    players = players or {}
    kind = ev.get("type")
    if kind == "frame_start":
        names = dict(players)
        names.update(ev.get("players") or {})
        return f"new frame of {game_name(ev.get('game'))}, {player_name(names, ev.get('breaker'))} breaks"
    if kind == "call":
        if ev.get("cue_pocket"):
            return f"call: the cue ball into the {pocket_name(ev.get('cue_pocket'))}"
        return f"call: {ball_name(ev.get('ball'), looks=looks)} into the {pocket_name(ev.get('pocket'))}"
    if kind == "call_any":
        return "call: any ball (заказ с падающим)"
    if kind == "reorder":
        return f"game ball re-ordered: {ball_name(ev.get('ball'), looks=looks)}"
    if kind == "third_ball":
        return f"third balls announced: {balls_text(ev.get('balls') or [], looks)}"
    if kind == "manual_foul":
        return f"foul called by the referee: {MANUAL_FOUL_NAMES.get(str(ev.get('code')), ev.get('code'))}"
    if kind == "play_on":
        return f"{player_name(players, ev.get('player'))} plays on"
    if kind == "rerack":
        return "re-rack ordered (001 2.1.16)"
    if kind == "concede":
        return f"{player_name(players, ev.get('player'))} concedes the frame"
    if kind == "placement_warning":
        return "warned: the cue ball is placed outside the house (001 2.1.5в)"
    if kind == "rename":
        return (
            f"{ball_name(ev.get('ball'), looks=looks)} is number {ev.get('to')}"
            if ev.get("to") != "cue"
            else (f"{ball_name(ev.get('ball'), looks=looks)} is the cue ball")
        )
    if kind == "void_pot":
        return f"pot of {ball_name(ev.get('ball'), looks=looks)} voided"
    return str(kind)


@dataclass(frozen=True)
class ShotSummary:
    """A shot in a few words: how many balls moved and went in, and the struck ball's first contact."""

    struck: str | None
    moved: int  # object balls that moved
    potted: list[tuple[str, str]]  # (ball, pocket) in time order
    contacts: int
    cushions: int
    first_contact: str | None

    @property
    def is_break_like(self) -> bool:
        # A shot that set many balls moving reads as a cluster of simultaneous contacts: a viewer wants the
        # count, not forty lines at one instant.
        return self.moved > 4


MOVED_MM = 5.0  # a ball whose resting place changed by more than this moved (well above position noise)


def summarize_shot(events: Iterable[Mapping[str, Any]]) -> ShotSummary:
    evs = sorted(events, key=lambda e: (e.get("t") is None, e.get("t") or 0.0))
    start = next((e for e in evs if e.get("type") == "shot_start"), None)
    end = next((e for e in evs if e.get("type") == "shot_end"), None)
    moved: set[str] = set()
    potted: list[tuple[str, str]] = []
    contacts = cushions = 0
    first_contact = None
    struck = start.get("ball") if start else None
    if struck:
        moved.add(str(struck))
    for e in evs:
        kind = e.get("type")
        if kind == "contact":
            contacts += 1
            moved.update(str(b) for b in e.get("balls") or [])
            if first_contact is None and struck in (e.get("balls") or []):
                first_contact = next((str(b) for b in e.get("balls") or [] if b != struck), None)
        elif kind == "cushion":
            cushions += 1
            moved.add(str(e.get("ball")))
        elif kind in ("pot", "off_table"):
            moved.add(str(e.get("ball")))
            if kind == "pot":
                potted.append((str(e.get("ball")), str(e.get("pocket"))))
        elif kind == "line_cross":
            moved.add(str(e.get("ball")))
    if start and end:
        a, b = start.get("positions") or {}, end.get("positions") or {}
        for ball, p in a.items():
            q = b.get(ball)
            if q is not None and ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5 > MOVED_MM:
                moved.add(ball)
    # "15 balls moved" counts the object balls, as a viewer counts the rack.
    return ShotSummary(struck, len(moved - {"cue"}), potted, contacts, cushions, first_contact)


def shot_text(events: Iterable[Mapping[str, Any]], *, first_of_frame: bool = False, looks: Looks | None = None) -> str:
    """ "break: 15 balls moved, 2 potted (ball 3, ball 7)" or "the cue ball hits ball 7; ball 7 into the ..."."""
    evs = list(events)
    s = summarize_shot(evs)
    if first_of_frame or s.is_break_like:
        head = "break" if first_of_frame else "shot"
        pots = f" ({balls_text((b for b, _ in s.potted), looks)})" if s.potted else ""
        return f"{head}: {s.moved} balls moved, {len(s.potted)} potted{pots}"
    parts = []
    if s.first_contact is not None:
        parts.append(f"{ball_name(s.struck, looks=looks)} hits {ball_name(s.first_contact, looks=looks)}")
    elif s.struck is not None:
        parts.append(f"{ball_name(s.struck, looks=looks)} touches no ball")
    parts += [f"{ball_name(b, looks=looks)} into the {pocket_name(p)}" for b, p in s.potted]
    if s.cushions:
        parts.append(f"{s.cushions} cushion touch{'es' if s.cushions > 1 else ''}")
    return "; ".join(parts) or "no movement seen"


def verdict_text(v: Mapping[str, Any], players: Mapping[str, str], looks: Looks | None = None) -> str:
    """A verdict in one line: the fouls with their clauses, or what counted; the score by name."""
    fouls = v.get("fouls") or []
    if fouls:
        call = "Foul: " + "; ".join(
            humanize(str(f.get("text") or f.get("code")), looks) + (f", {f['rule']}" if f.get("rule") else "")
            for f in fouls
        )
    elif v.get("counted"):
        call = "Counted: " + balls_text(v["counted"], looks)
    else:
        call = "Legal shot"
    if v.get("void"):
        call += " · void: " + balls_text(v["void"], looks)
    out = f"{call} · {score_text(v.get('score'), players)}"
    if v.get("frame_over"):
        out += f" · frame to {player_name(players, v.get('winner'))}"
    elif v.get("next_player") in ("A", "B"):
        out += f" · next: {player_name(players, v['next_player'])}"
    return out


def verdict_notes(v: Mapping[str, Any], looks: Looks | None = None) -> list[str]:
    return [humanize(str(n), looks) for n in v.get("notes") or []]


def display_info(game: str) -> dict[str, Any]:
    """What a page needs to name things for this match (served as JSON)."""
    n, unit = target(game)
    return {
        "game": game,
        "game_name": game_name(game),
        "game_title": game_title(game),
        "target": n,
        "target_unit": unit,
        "target_text": target_text(game),
        "numbered": numbered(game),
        "games": {g: names[0] for g, names in GAME_NAMES.items()},
        "pockets": dict(POCKET_NAMES),
        "pockets_short": dict(POCKET_SHORT),
        "manual_fouls": dict(MANUAL_FOUL_NAMES),
    }
