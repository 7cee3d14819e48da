"""Rules: events in, verdicts out, for the ten federation games of 001 section 2 and Cluster (000).

Layers, each a small module:

* :mod:`rules.shot` - a typed :class:`~rules.shot.Shot`: the camera events from ``shot_start`` to
  ``shot_end``, the positions at both ends, the operator inputs for it, late pots, the table model.
* :mod:`rules.fouls` - fouls as enums carrying their clause (``"001 2.1.22(1)"``); display text by lookup.
* :class:`calibration.contract.Verdict` - the frozen verdict of CONTRACT.md section 4 (in the contract).
* :mod:`rules.predicates`, :mod:`rules.inhand`, :mod:`rules.lag`, :mod:`rules.warnings` - the general rules
  (001 2.1) as plain functions over a shot; :mod:`rules.spotting` - exact spotting positions.
* :mod:`rules.state` - immutable frame and match state (frozen dataclasses, ``dataclasses.replace``).
* :mod:`rules.game` - the base :class:`~rules.game.Game`: a fixed order of steps, parameters as class
  data, behaviour differences as overridden methods; :mod:`rules.games` - one module per game.
* :mod:`rules.registry` - CONTRACT names to game classes (``cluster`` resolves lazily to :mod:`rules.cluster`).
* :mod:`rules.referee` - the engine the CLI, ``analyze`` and the live service share:
  ``Referee(game).feed(event) -> [Verdict]``, ``.state``, ``.snapshot()``, ``.finals()``.

How a game plugs in: subclass :class:`rules.game.Game`, set its parameters (``target``, ``scoring``,
``penalty``, ``fast``, ``calls``, ``call_any``, ``safety``, ``pocket_zone``, ``spotting``, ``cue_ball``,
``cue_potted``...), override the steps that play differently (``camera_fouls``, ``counted``,
``apply_call``, ``safety_ok``, ``spot_positions``, ``score_and_win``, ``after_shot``...), define its own
:class:`~rules.fouls.FoulKind` enum if its fouls cite another document, keep extra state in a
:class:`~rules.state.FrameState` subclass (``state_class``) or in ``FrameState.extra``, and add its name to
:mod:`rules.registry`. A game may also replace :meth:`~rules.game.Game.judge` whole, as long as it stays a
pure function ``(state, shot) -> (verdict, state)``: the referee relies on that to amend verdicts.

Implemented from 001 2.1: strokes and operator fouls (2.1.2), the lag (2.1.4), the shot from hand with
the temporary house, placement warning, in-play rule, house balls and normal/fast counting (2.1.5), ball
position ties (2.1.6), the turn and play-on (2.1.8), rolling a frozen ball with the in-pocket exception
(2.1.10), safety (2.1.11, 2.7.6), the pocket-zone exception with the middle-pocket blind zone (2.1.12),
balls off the table (2.1.13), spotting (2.1.14 and each game's clause), hanging balls (2.1.15),
blocked-position re-rack (2.1.16, operator), opponent interference (2.1.19, operator), mandatory warnings
(2.1.20 and the 2.1.5в placement warning, given by the engine itself: docs/warnings.md), all fifteen fouls
of 2.1.22 with one penalty per shot. Inputs that cannot apply are refused with the reason, never ignored;
records a shot cannot place leave its verdict flagged ``review``, never unjudged. Not judged: time limits (2.1.17),
outside interference (2.1.18) and referee errors (2.1.21), which need the referee's account of events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from calibration.contract import Event, Verdict
    from calibration.table import TableModel


def referee_events(
    game: str,
    events: Iterable[Event],
    table: TableModel | None = None,
    frames_to_win: int = 1,
    strict: bool = False,
    errors: list[str] | None = None,
) -> list[Verdict]:
    """The final verdicts (one per shot) for a whole event stream, as ``analyze`` needs them.

    ``strict``: the first record the engine cannot accept raises :class:`rules.errors.RefereeInputError`
    (what ``tableref referee`` does with a file). Otherwise such a record (a tracking glitch: a ball potted
    twice, an event for a ball the shot did not start with) is skipped, its reason appended to ``errors``
    when given, and refereeing goes on from the state before it.
    """
    from rules.errors import RefereeInputError
    from rules.referee import Referee

    ref = Referee(game, table=table, frames_to_win=frames_to_win)
    for n, ev in enumerate(events, start=1):
        try:
            ref.feed(ev, line=n)
        except RefereeInputError as exc:
            if strict:
                raise
            if errors is not None:
                errors.append(str(exc))
    return ref.finals()


__all__ = ["referee_events"]
