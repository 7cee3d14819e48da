"""``tableref bench names``: the colour words viewers read (``api.names.colour_word``) on real cameras.

A ball the camera could not number is named by its colour in a coloured set ("the yellow ball"). This bench
measures those words where a person labelled each ball's colour, split as the real clips are:

- the first frame of every labelled real clip (``tests/data/real/clips``: pool broadcast, padova pool, the
  snooker rig, a carom table), its split the clip's;
- the snooker rig's stills: ``with_halo_2`` tuning, ``with_halo`` and ``without_halo`` held out.

Each picture is calibrated as ``tableref detect`` does it (``calibration.auto``) and run through the
classical detector; the detection matched to a labelled ball (within half its radius) gives the ball's mean
colour (``Detections.colour``). A word is *right* when it is one a viewer uses for that ball's colour
(``ACCEPTED``), *silent* when the ball is just "a ball" (says less, never misleads), *wrong* otherwise.
``--write FILE`` keeps every measured colour (small JSON, no picture) for the tests.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from api.bench._real_labels import SPLITS, ClipLabel, LabelError, load_label
from api.bench.stills import SNOOKER, match, snooker_stills
from api.names import colour_word, named_size
from calibration.mapping import CalibrationError
from calibration.table import TableModel, TableSpec

CLIPS = Path(__file__).resolve().parents[2] / "tests" / "data" / "real" / "clips"
STILL_SPLITS = {"with_halo_2": "tuning", "with_halo": "heldout", "without_halo": "heldout"}

# The words a viewer uses for a ball of each colour. Maroon sits between brown and a dark red, so both are
# its words; a white ball says nothing a viewer can match (None: "a ball").
ACCEPTED: dict[str, frozenset[str | None]] = {
    "white": frozenset({None}), "black": frozenset({"black"}), "yellow": frozenset({"yellow"}),
    "blue": frozenset({"blue"}), "red": frozenset({"red"}), "purple": frozenset({"purple"}),
    "orange": frozenset({"orange"}), "green": frozenset({"green"}), "maroon": frozenset({"brown", "red"}),
    "brown": frozenset({"brown"}), "pink": frozenset({"pink"}),
}  # fmt: skip
# A standard pool set's numbers (stripes 9-15 repeat 1-7's colours), as on the broadcast's 9-ball rack.
POOL_NUMBERS = ("", "yellow", "blue", "red", "purple", "orange", "green", "maroon", "black")


def nominal_colour(label: str) -> str | None:
    """A labelled ball's colour: "cue" -> white, "5" -> orange, "maroon-stripe" -> maroon; None if unknown."""
    name = label.lower()
    if name in ("cue", "white"):
        return "white"
    if name.isdigit():
        n = int(name)
        return POOL_NUMBERS[n if n <= 8 else n - 8] if 1 <= n <= 15 else None
    colour = name.split("-")[0]
    return colour if colour in ACCEPTED else None


@dataclass(frozen=True)
class Measured:
    source: str  # the clip's label name, or "<still set>/<image>"
    split: str
    ball: str  # as labelled
    colour: str  # nominal (ACCEPTED's keys)
    bgr: tuple[float, float, float] | None  # the matched detection's mean colour; None where none matched
    radius_px: float = 0.0  # the matched detection's image radius

    @property
    def verdict(self) -> str:
        """ "right", "silent" (a ball), "wrong", or "unseen" (no detection matched)."""
        if self.bgr is None:
            return "unseen"
        word = colour_word(self.bgr) if named_size(self.radius_px) else None
        if word in ACCEPTED[self.colour]:
            return "right"
        return "silent" if word is None else "wrong"


@dataclass(frozen=True)
class Picture:
    source: str
    split: str
    image: np.ndarray
    table: TableModel
    balls: tuple[tuple[str, float, float], ...]  # (label, u, v)


def first_frame(label: ClipLabel, realdata: Path) -> np.ndarray | None:
    path = realdata / label.source
    if label.is_sequence:
        return cv2.imread(str(path.parent / (path.name % label.first_image)), cv2.IMREAD_COLOR)
    cap = cv2.VideoCapture(str(path))
    try:
        ok, img = cap.read()
    finally:
        cap.release()
    return img if ok else None


def pictures(realdata: Path, clips: Path = CLIPS) -> Iterator[Picture]:
    """Every labelled picture with a ball of known colour: the clips' first frames, then the snooker stills."""
    for path in sorted(clips.glob("*.json")):
        try:
            label = load_label(path)
        except LabelError:
            continue
        img = first_frame(label, realdata)
        if img is None:
            continue
        spec = TableSpec(length_mm=label.table_mm[0], width_mm=label.table_mm[1], ball_diameter_mm=label.ball_mm)
        balls = tuple((b.ball, *b.px) for b in label.balls_first)
        yield Picture(label.name, label.split, img, TableModel(spec), balls)
    for name, split in STILL_SPLITS.items():
        folder = realdata / "snooker-rig-stills" / "with_projector_on" / name
        if not (folder / "testcases.json").exists():
            continue
        types = {
            Path(c["image"]).stem: [b.get("type", "") for b in c["balls"]]
            for c in json.loads((folder / "testcases.json").read_text(encoding="utf-8"))["cases"]
        }
        for still in snooker_stills(folder):
            img = cv2.imread(str(still.image), cv2.IMREAD_COLOR)
            if img is None:
                continue
            kinds = types[still.image.stem]
            yield Picture(
                still.name, split, img, TableModel(SNOOKER),
                tuple((k, float(u), float(v)) for k, (u, v) in zip(kinds, still.px, strict=True)),
            )  # fmt: skip


def measure(picture: Picture) -> list[Measured]:
    """Each labelled ball of known colour with the mean colour of the detection matched to it."""
    from calibration.auto import auto_calibrate
    from vision.detector import make_detector

    known = [(b, nominal_colour(b), u, v) for b, u, v in picture.balls if nominal_colour(b) is not None]
    if not known:
        return []
    try:
        cal = auto_calibrate(picture.image, picture.table)
        dets = make_detector("classical", cal).detect(picture.image)
    except (CalibrationError, ValueError):
        return [Measured(picture.source, picture.split, b, str(c), None) for b, c, _, _ in known]
    true_px = np.array([[u, v] for _, _, u, v in known])
    radius = np.full(len(known), float(np.median(dets.radius_px)) if len(dets) else 0.0)
    got = {j: i for i, j in match(dets.px, true_px, radius)}
    out = []
    for j, (ball, colour, _, _) in enumerate(known):
        k = got.get(j)
        bgr = None if k is None else tuple(round(float(c), 1) for c in dets.colour[k])
        r = 0.0 if k is None else round(float(dets.radius_px[k]), 1)
        out.append(Measured(picture.source, picture.split, ball, str(colour), bgr, r))  # type: ignore[arg-type]
    return out


def report(rows: list[Measured]) -> str:
    lines = [f"{'colour':<8}" + "".join(f"{s + ' right/silent/wrong/unseen':>36}" for s in SPLITS)]
    for colour in [*ACCEPTED, "all"]:
        cells = []
        for split in SPLITS:
            sel = [r for r in rows if r.split == split and colour in ("all", r.colour)]
            counts = [sum(r.verdict == v for r in sel) for v in ("right", "silent", "wrong", "unseen")]
            cells.append("/".join(map(str, counts)) if sel else "-")
        if any(c != "-" for c in cells):
            lines.append(f"{colour:<8}" + "".join(f"{c:>36}" for c in cells))
    wrong = Counter((r.split, r.colour, colour_word(r.bgr)) for r in rows if r.verdict == "wrong")
    if wrong:
        lines += ["", "wrong words (split: colour -> word, balls):"]
        lines += [f"  {s}: {c} -> {w}, {n}" for (s, c, w), n in sorted(wrong.items())]
    lines += [
        "",
        "right: a word a viewer uses for that colour; silent: 'a ball' (a white ball, a colour between two words,",
        "or a ball imaged under api.names.MIN_NAMED_RADIUS_PX); unseen: no detection matched the labelled ball.",
    ]
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--realdata", default=None, help="footage folder (default: ../shared/realdata)")
    parser.add_argument("--write", default=None, metavar="FILE", help="keep every measured colour as JSON")


def run(args: argparse.Namespace) -> int:
    from api.bench.real import default_realdata

    realdata = Path(args.realdata) if args.realdata else default_realdata()
    if realdata is None or not realdata.is_dir():
        print("colour names: ../shared/realdata not found; left out (give --realdata DIR)")
        return 0
    rows = [m for p in pictures(realdata) for m in measure(p)]
    print(report(rows), end="")
    if args.write:
        keep = {"source": __doc__.splitlines()[0], "balls": [asdict(r) for r in rows if r.bgr is not None]}
        Path(args.write).write_text(json.dumps(keep, separators=(",", ":")) + "\n", encoding="utf-8")
    return 0
