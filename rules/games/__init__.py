"""The ten federation games of 001 section 2, one module each, over :class:`rules.game.Game`."""
