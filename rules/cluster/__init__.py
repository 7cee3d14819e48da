"""The Cluster game (seed 000): geometry predicates, shot analysis and the game over the rules base."""
