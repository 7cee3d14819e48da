"""The Cluster game (seed 000): geometry predicates, shot analysis, the judgement and the game.

``ClusterGame`` is what :mod:`rules.registry` resolves the name ``cluster`` to; ``ClusterState`` adds the
game ball of the visit to the base frame state (it is in ``/state`` as ``game_ball``).

Modules: ``geometry`` (clusters, attack zones, passive zones, the middle line, spotting, the rack),
``analysis`` (the facts of one shot: participation, reach, zone entries, safety), ``judge`` (attack,
safety and penalties of one shot), ``fouls`` (the 4.1 penalties as an enum citing their clauses), ``lag``
(3.3) and ``game`` (the base's fixed steps with the Cluster judgement).

Implemented, each with golden-shot tests naming the clause: 2.1 marks and zones (measured marks where the
table spec has them); 2.2 clusters, game ball, passive attack (i)-(iii); 3.2 the rack; 3.3 the lag а-г;
3.4 the break from the house, begun when the cue ball's centre crosses the house line; 3.5 turns and the
bonus shot; 3.6 а-ж; 3.7 re-order; 3.8 safety; 3.9 end of the frame with its settle window; 4.1 а-з with
the penalty ball from the shelf or as a debt, spotting of penalty, void and off-table balls; 5 the
opponent's choice after a penalty. Borrowed from 001 with the Cluster penalty (digest C14): hanging balls
(2.1.15), the frozen cue ball's 45-degree rule (2.1.2), interference by the opponent (2.1.19).

Not implemented in this package: the blocked-position and referee-error procedures of 001 that digest C14
would borrow (the base referee's ``rerack`` input is game-independent and untested for Cluster).
"""

from rules.cluster.game import ClusterGame, ClusterState

__all__ = ["ClusterGame", "ClusterState"]
