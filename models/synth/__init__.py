"""Synthetic scenes with exact ground truth: pooltool physics, OpenCV rendering, CONTRACT truth files.

This package sits beside the live pipeline (the detector in ``models/`` is trained on its output): it
imports the table model (``calibration.table``), the camera model (``calibration.camera``) and the event
records (``calibration.contract``), and no live-path module imports it. pooltool is the optional ``synth``
extra; it is imported only when a scenario is simulated.
"""
