"""The Cluster game (seed 000): geometry predicates, shot analysis, the judgement and the game.

``ClusterGame`` is what :mod:`rules.registry` resolves the name ``cluster`` to.
"""

from rules.cluster.game import ClusterGame, ClusterState

__all__ = ["ClusterGame", "ClusterState"]
