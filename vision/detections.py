"""One frame's ball detections: parallel numpy arrays, validated on construction, filtered by masks.

Every detector (classical, neural, the Hough baseline) returns a ``Detections``; tracking reads only this.
Rows are balls. ``px`` is the ball centre's image in the frame as recorded (distorted pixels, sub-pixel);
``pos_mm`` is the point of the cloth directly below the ball centre in table millimetres (parallax
corrected, CONTRACT.md section 1); ``cls`` holds integer codes into ``CLASS_NAMES``.

Three flags say why a detection may not be a new ball, for the tracker's births (all False unless set, see
``with_flags``): ``in_pocket``, past a pocket's mouth line between its jaws (``vision.pockets``: a ball there
is dropping or has dropped, never one to start a track on); ``covered``, inside what covers the cloth in this
frame (``vision.cover``: a player's body, arm or a graphic, where a glove or a watch looks like a ball); and
``unlike_ball``, a proposal whose look the learned classifier judges not a ball's (``vision.ball_classifier``).
``p_ball`` holds that judgement (p(ball) of the proposal's look, NaN where it was not judged): a dark ball that
the geometry finds poorly but that looks like a ball may start a track on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

CLASS_NAMES: tuple[str, ...] = ("ball", "cue")
BALL, CUE = 0, 1


# The fields, their dtype and the shape of one row.
_FIELDS: tuple[tuple[str, type, tuple[int, ...]], ...] = (
    ("px", np.float64, (2,)),
    ("pos_mm", np.float64, (2,)),
    ("radius_px", np.float64, ()),
    ("confidence", np.float64, ()),
    ("cls", np.int64, ()),
    ("colour", np.float64, (3,)),
)
_FLAGS = ("in_pocket", "covered", "unlike_ball")  # (N,) bool each, False where not given


def _as(a: Any, dtype: type, shape_tail: tuple[int, ...]) -> np.ndarray:
    arr: np.ndarray = np.asarray(a, dtype=dtype)
    if arr.size == 0:
        arr = arr.reshape((0, *shape_tail))
    return arr


@dataclass(frozen=True)
class Detections:
    px: np.ndarray  # (N, 2) float64: ball-centre image pixels (u, v), distorted, sub-pixel
    pos_mm: np.ndarray  # (N, 2) float64: table mm of the cloth point below the ball centre
    radius_px: np.ndarray  # (N,) float64: apparent ball radius in image pixels
    confidence: np.ndarray  # (N,) float64 in [0, 1]
    cls: np.ndarray  # (N,) int64 codes into CLASS_NAMES
    colour: np.ndarray  # (N, 3) float64: mean BGR (0..255) of the ball's inner disc, an appearance cue
    in_pocket: np.ndarray | None = None  # (N,) bool: past a pocket's mouth line, between its jaws
    covered: np.ndarray | None = None  # (N,) bool: inside what covers the cloth in this frame
    unlike_ball: np.ndarray | None = None  # (N,) bool: its look is not a ball's (a glove, a watch, a hole)
    p_ball: np.ndarray | None = None  # (N,) float64: p(ball) of its look, NaN where not judged

    def __post_init__(self) -> None:
        self._set_flags()
        arrays = [_as(getattr(self, name), dtype, tail) for name, dtype, tail in _FIELDS]
        n = arrays[0].shape[0] if arrays[0].ndim == 2 else -1
        tails = [t for _, _, t in _FIELDS]
        if all(
            a.ndim == 1 + len(t) and a.shape[1:] == t and a.shape[0] == n for a, t in zip(arrays, tails, strict=True)
        ):
            # Well-formed rows (every frame of a working detector): their values checked in one compiled pass.
            from vision.detections_kernels import first_invalid  # numba, loaded on the first rows made

            bad = first_invalid(*arrays, len(CLASS_NAMES)) if n else -1
            if bad < 0:
                for (name, _, _), arr in zip(_FIELDS, arrays, strict=True):
                    object.__setattr__(self, name, arr)
                self._check_flags(n)
                return
        self._check_one_by_one()
        self._check_flags(len(self.px))

    def _set_flags(self) -> None:
        for name in _FLAGS:
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, np.asarray(v, dtype=bool).reshape(-1))
        if self.p_ball is not None:
            object.__setattr__(self, "p_ball", np.asarray(self.p_ball, dtype=np.float64).reshape(-1))

    def _check_flags(self, n: int) -> None:
        if self.p_ball is None:
            object.__setattr__(self, "p_ball", np.full(n, np.nan))
        for name in (*_FLAGS, "p_ball"):
            v = getattr(self, name)
            if v is None:
                object.__setattr__(self, name, np.zeros(n, bool))
            elif v.shape != (n,):
                raise ValueError(f"Detections.{name} has shape {v.shape}, expected ({n},)")

    def _check_one_by_one(self) -> None:
        """The checks one at a time, raising ValueError with the first that fails."""
        n: int | None = None
        for name, dtype, tail in _FIELDS:
            arr = _as(getattr(self, name), dtype, tail)
            if arr.ndim != 1 + len(tail) or arr.shape[1:] != tail:
                raise ValueError(f"Detections.{name} has shape {arr.shape}, expected (N, {', '.join(map(str, tail))})")
            if n is None:
                n = arr.shape[0]
            elif arr.shape[0] != n:
                raise ValueError(f"Detections.{name} has {arr.shape[0]} rows, expected {n}")
            if dtype is np.float64 and not np.isfinite(arr).all():
                raise ValueError(f"Detections.{name} holds non-finite values")
            object.__setattr__(self, name, arr)
        if not n:
            return
        if self.cls.min() < 0 or self.cls.max() >= len(CLASS_NAMES):
            raise ValueError(f"Detections.cls holds codes outside 0..{len(CLASS_NAMES) - 1}")
        if self.confidence.min() < 0 or self.confidence.max() > 1:
            raise ValueError("Detections.confidence must lie in [0, 1]")
        if self.radius_px.min() <= 0:
            raise ValueError("Detections.radius_px must be positive")

    # ---- construction -----------------------------------------------------------------------------------
    @classmethod
    def empty(cls) -> Detections:
        z = np.zeros
        return cls(z((0, 2)), z((0, 2)), z(0), z(0), z(0, np.int64), z((0, 3)))

    @classmethod
    def concatenate(cls, parts: list[Detections]) -> Detections:
        if not parts:
            return cls.empty()
        return cls(
            np.concatenate([p.px for p in parts]),
            np.concatenate([p.pos_mm for p in parts]),
            np.concatenate([p.radius_px for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.cls for p in parts]),
            np.concatenate([p.colour for p in parts]),
            np.concatenate([p.in_pocket for p in parts]),
            np.concatenate([p.covered for p in parts]),
            np.concatenate([p.unlike_ball for p in parts]),
            np.concatenate([p.p_ball for p in parts]),
        )

    # ---- access -----------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.px.shape[0])

    def __getitem__(self, index: np.ndarray | slice | list[int] | int) -> Detections:
        """Rows selected by a boolean mask, an index array, a slice or one index (kept 2-D)."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        flags = [np.asarray(getattr(self, name))[index] for name in (*_FLAGS, "p_ball")]  # (N,) once constructed
        return Detections(
            self.px[index], self.pos_mm[index], self.radius_px[index], self.confidence[index], self.cls[index],
            self.colour[index], *flags,
        )  # fmt: skip

    @property
    def class_names(self) -> list[str]:
        return [CLASS_NAMES[int(c)] for c in self.cls]

    def with_cls(self, cls: np.ndarray) -> Detections:
        return replace(self, cls=cls)

    def with_flags(
        self,
        in_pocket: np.ndarray | None = None,
        covered: np.ndarray | None = None,
        unlike_ball: np.ndarray | None = None,
    ) -> Detections:
        """The same rows with ``in_pocket``, ``covered`` and/or ``unlike_ball`` set (the others kept)."""
        return replace(
            self,
            in_pocket=self.in_pocket if in_pocket is None else in_pocket,
            covered=self.covered if covered is None else covered,
            unlike_ball=self.unlike_ball if unlike_ball is None else unlike_ball,
        )

    def to_records(self) -> list[dict[str, Any]]:
        """The CONTRACT.md section 7 objects ``tableref detect`` prints, one per ball."""
        return [
            {
                "px": [round(float(self.px[i, 0]), 2), round(float(self.px[i, 1]), 2)],
                "pos": [round(float(self.pos_mm[i, 0]), 1), round(float(self.pos_mm[i, 1]), 1)],
                "radius_px": round(float(self.radius_px[i]), 2),
                "confidence": round(float(self.confidence[i]), 3),
                "cls": CLASS_NAMES[int(self.cls[i])],
            }
            for i in range(len(self))
        ]
