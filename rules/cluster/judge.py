"""The judgement of one Cluster shot (000 3.5-3.8, 4.1), a pure function of the shot's facts, the operator
inputs for it and the game ball in force. The game (``rules.cluster.game``) turns it into a verdict:
penalty ball, spotting, shelves, the next player.

Order (digest 4.10):

1. Operator fouls а/б/в/д, a ball disturbed without a contact (б), a stroke before the previous shot was
   over (д), a ball off the table (е), the cue ball touching no ball (г).
2. Something potted: without the game ball where one is required (ж, digest C8); a third ball in the
   chain to a pot without being announced (3.6е, penalty г, digest C7); otherwise a productive attack
   (3.6а): the pots count, a bonus shot follows (3.5б) and the game ball is set (3.6г-ж, 3.7).
3. Nothing potted: an attack-zone entry by the cue ball, the first object ball or an announced third ball
   (digest C5) that is not passive and involves the game ball where one is required is an unproductive
   attack (3.6а); otherwise the safety of 3.8; otherwise a passive attack is penalty з (4.1з) and
   anything else penalty г. A passive attack that meets 3.8 is a legal safety (3.5в, digest C6) unless
   ``strict_passive`` is set.

Any foul voids every pot of the shot (000 4.1); one penalty ball is drawn however many fouls apply.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rules.cluster.analysis import ShotFacts, ZoneEntry
from rules.cluster.fouls import MANUAL, ClusterFoul

Kind = Literal["productive", "attack", "safety", "foul"]


@dataclass(frozen=True)
class Judgement:
    kind: Kind
    fouls: tuple[ClusterFoul, ...]  # the striker's fouls (one penalty ball if any)
    opponent_fouls: tuple[ClusterFoul, ...]  # fouls of the opponent (interference)
    counted: tuple[str, ...]  # pots that count
    void: tuple[str, ...]  # pots that do not count (spotted)
    game_ball: str | None  # after a productive attack: the game ball for the next attack; None = free
    notes: tuple[str, ...]

    @property
    def continues(self) -> bool:
        """000 3.5б: a legal pot earns the striker another shot."""
        return self.kind == "productive"


def judge(
    facts: ShotFacts,
    game_ball: str | None,
    manual_codes: Iterable[str] = (),
    announced: Iterable[str] = (),
    reorder: str | None = None,
    early: bool = False,
    strict_passive: bool = False,
) -> Judgement:
    """Judge one shot. ``game_ball`` is the ball every attack must involve (None: free choice, 3.6б);
    ``announced`` the third balls declared for it (3.6е); ``reorder`` the ball named under 3.7;
    ``early`` says the stroke came before the previous shot was over (4.1д)."""
    fouls: list[ClusterFoul] = []
    opp: list[ClusterFoul] = []
    notes: list[str] = []
    for code in manual_codes:
        f = MANUAL.get(code)
        if f is None:
            notes.append(f"operator input '{code}' is not a foul in Cluster")
        elif f is ClusterFoul.INTERFERENCE:
            opp.append(f)
        else:
            fouls.append(f)
    if facts.disturbed:
        fouls.append(ClusterFoul.TOUCHED_BALL)
        notes.append("moved without a ball contact: " + ", ".join(facts.disturbed))
    if early:
        fouls.append(ClusterFoul.EARLY_SHOT)
    if facts.off_table:
        fouls.append(ClusterFoul.OFF_TABLE)
    if facts.first_object is None:
        fouls.append(ClusterFoul.NO_CONTACT)

    announced_set = set(announced) | ({reorder} if reorder else set())
    pair = {facts.cue} | ({facts.first_object} if facts.first_object else set())
    potted = facts.potted
    game_ball_next: str | None = None
    kind: Kind

    if potted:
        for pot in facts.pots:
            parts = facts.pot_participants(pot)
            if game_ball is not None and game_ball not in parts:
                fouls.append(ClusterFoul.NO_GAME_BALL)
                notes.append(f"game ball {game_ball} took no part in the pot of {pot.ball}")
            third = sorted(parts - pair - announced_set)
            if third:
                fouls.append(ClusterFoul.UNANNOUNCED_THIRD_BALL)
                notes.append("third balls not announced: " + ", ".join(third))
        if not fouls:
            kind = "productive"
            game_ball_next = _next_game_ball(facts, game_ball, reorder, notes)
        else:
            kind = "foul"
    else:
        eligible = [
            e for e in facts.entries if (e.ball in pair or e.ball in announced_set) and _involves(facts, e, game_ball)
        ]
        attack = [e for e in eligible if e.passive is None]
        passive = [e for e in eligible if e.passive is not None]
        if facts.first_object is not None and attack:
            kind = "attack"
            notes.append(f"unproductive attack: {attack[0].ball} reached the {attack[0].pocket} zone")
        elif facts.first_object is not None and facts.safety_made and not (strict_passive and passive):
            kind = "safety"
            if passive:
                notes.append("passive attack, but the safety rules are met (3.5в)")
        else:
            if facts.first_object is not None:
                if passive:
                    fouls.append(ClusterFoul.PASSIVE_ATTACK)
                    notes.append(_passive_note(passive[0]))
                else:
                    fouls.append(ClusterFoul.NO_ATTACK_NO_SAFETY)
            kind = "foul"
        if fouls:
            kind = "foul"

    fouls = list(dict.fromkeys(fouls))
    counted = potted if kind == "productive" else ()
    void = () if kind == "productive" else potted
    return Judgement(kind, tuple(fouls), tuple(opp), tuple(counted), tuple(void), game_ball_next, tuple(notes))


def _involves(facts: ShotFacts, entry: ZoneEntry, game_ball: str | None) -> bool:
    """000 3.6в: from the second attack of a visit the game ball takes part."""
    return game_ball is None or game_ball in facts.entry_participants(entry)


def _passive_note(e: ZoneEntry) -> str:
    why = {
        "i": "reached the zone after touching an adjacent cushion",
        "ii": "did not touch the second adjacent cushion after reaching the zone",
        "iii": "attacked the middle pocket from the passive zone",
    }[e.passive or "i"]
    return f"passive attack (2.2 {e.passive}): {e.ball} {why} of {e.pocket}"


def _next_game_ball(facts: ShotFacts, game_ball: str | None, reorder: str | None, notes: list[str]) -> str | None:
    """The game ball after a productive attack (digest 4.4, 000 2.2, 3.6г-ж, 3.7); None = free choice."""
    potted = set(facts.potted)
    gone = potted | set(facts.off_table)
    cue, obj = facts.cue, facts.first_object
    if cue in potted and obj in potted:
        notes.append("object ball and cue ball both potted: free choice (3.6г)")
        return None
    if facts.broken:
        notes.append("cluster broken on a productive attack: free choice (3.6д)")
        return None
    if reorder is not None:
        movers = [game_ball] if game_ball is not None else [b for b in (cue, obj) if b]
        if reorder not in gone and any(m is not None and facts.reaches(m, reorder) for m in movers):
            notes.append(f"re-order: {reorder} is the game ball (3.7)")
            return reorder
        notes.append(f"re-order of {reorder} not applied: the announced ball was not touched (3.7б)")
    parts: set[str] = set()
    for pot in facts.pots:
        parts |= facts.pot_participants(pot)
    if len(parts) == 2:
        left = sorted(parts - gone)
        return left[0] if left else None
    # 000 3.6ж: more than two balls took part
    if cue not in gone:
        return cue
    return obj if obj is not None and obj not in gone else None
