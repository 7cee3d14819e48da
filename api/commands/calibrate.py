"""``tableref calibrate SRC --out FILE``: find the table in an image or video and write the calibration.

SRC is an image, or a video whose first seconds are reduced to their per-pixel median. Without
``--corners`` the playing field is found automatically (``calibration.auto``); with
``--corners "u,v;u,v;u,v;u,v"`` (house-left; house-right; pyramid-left; pyramid-right, pixels of the
image as recorded) those corners are used as they are. ``--check FILE`` validates an existing
calibration against SRC instead of writing one.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import cv2
import numpy as np

from api.cli_types import ball_diameter, table_size
from calibration.auto import auto_calibrate, checkerboard_lens
from calibration.mapping import CORNER_NAMES, Calibration, CalibrationError
from calibration.table import TableModel, TableSpec
from calibration.table_finder import read_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("src", metavar="SRC", help="image or video of the table")
    parser.add_argument("--out", metavar="FILE", help="where to write the calibration JSON")
    parser.add_argument(
        "--corners",
        metavar="U,V;U,V;U,V;U,V",
        help="manual calibration: the playing-field corners house-left; house-right; pyramid-left; pyramid-right",
    )
    parser.add_argument(
        "--table", metavar="LxW", type=table_size, help="playing field length x width in mm (default 3569x1778)"
    )
    parser.add_argument("--ball", type=ball_diameter, metavar="MM", help="ball diameter in mm (default 68)")
    parser.add_argument(
        "--distortion",
        choices=("none", "k1", "k1k2"),
        default="k1",
        help="radial lens terms to estimate from the cushion lines (default k1)",
    )
    parser.add_argument(
        "--flip", action="store_true", help="the house is at the other end from the one found (turn the table round)"
    )
    parser.add_argument(
        "--checkerboard", nargs="+", metavar="IMG", help="checkerboard images from this camera: lens from them"
    )
    parser.add_argument("--pattern", default="9x6", help="checkerboard inner corners, e.g. 9x6")
    parser.add_argument("--square", type=float, default=25.0, help="checkerboard square size in mm")
    parser.add_argument("--camera-height", type=float, metavar="MM", help="camera height above the cloth, if known")
    parser.add_argument(
        "--nose-height",
        type=float,
        default=0.0,
        metavar="MM",
        help="height of the cushion noses above the cloth; the found edges are projected down by it (default 0)",
    )
    parser.add_argument("--check", metavar="FILE", help="validate this calibration against SRC instead of writing")
    parser.add_argument(
        "--picture",
        metavar="PNG",
        help="also draw the calibrated table (cushion lines, pockets, house line) over SRC into this image, to check "
        "by eye",
    )


def parse_table(size: str | None, ball: float | None) -> TableModel:
    kwargs: dict[str, Any] = {}
    if size:
        try:
            length, width = (float(v) for v in size.lower().replace("×", "x").split("x"))
        except ValueError:
            raise CalibrationError(f"--table expects LxW in mm, e.g. 2540x1270; got {size!r}") from None
        kwargs.update(length_mm=length, width_mm=width)
    if ball:
        kwargs["ball_diameter_mm"] = ball
    return TableModel(TableSpec(**kwargs))


def parse_corners(text: str) -> dict[str, tuple[float, float]]:
    parts = [p for p in text.replace(" ", "").split(";") if p]
    if len(parts) != 4:
        raise CalibrationError(f"--corners needs four 'u,v' pairs separated by ';', got {len(parts)}")
    out = {}
    for name, part in zip(CORNER_NAMES, parts, strict=True):
        try:
            u, v = (float(x) for x in part.split(","))
        except ValueError:
            raise CalibrationError(f"--corners: {part!r} is not 'u,v'") from None
        out[name] = (u, v)
    return out


def run(args: argparse.Namespace) -> int:
    img = read_source(args.src)
    size = (int(img.shape[1]), int(img.shape[0]))
    if args.check:
        cal = Calibration.load(args.check, expect_image_size=size)
        print(json.dumps({"ok": True, "image_size": list(cal.image_size), "quality": cal.quality}))
        write_picture(args.picture, img, cal)
        return 0
    if not args.out:
        raise CalibrationError("give --out FILE (or --check FILE)")
    table = parse_table(args.table, args.ball)
    kmat, fixed_k = None, None
    if args.checkerboard:
        try:
            cols, rows = (int(v) for v in args.pattern.lower().split("x"))
        except ValueError:
            raise CalibrationError(f"--pattern {args.pattern!r}: expected COLSxROWS, e.g. 9x6") from None
        boards = [read_source(p) for p in args.checkerboard]
        kmat, k1, k2 = checkerboard_lens(boards, (cols, rows), args.square)
        fixed_k = (k1, k2)
    if args.corners:
        corners = parse_corners(args.corners)
        k1, k2 = fixed_k or (0.0, 0.0)
        cal = Calibration.from_corners(
            corners, size, table, camera_matrix=kmat, k1=k1, k2=k2, source="manual",
            camera_height_mm=args.camera_height,
        )  # fmt: skip
    else:
        cal = auto_calibrate(
            img, table, distortion=args.distortion, flip=args.flip, camera_matrix=kmat, fixed_k=fixed_k,
            nose_height_mm=args.nose_height,
        )  # fmt: skip
        if args.camera_height:
            cal = Calibration.from_corners(
                cal.corners_px, size, table, camera_matrix=cal.camera_matrix, k1=cal.k1, k2=cal.k2,
                source=cal.source, quality=cal.quality, camera_height_mm=args.camera_height,
            )  # fmt: skip
    cal.save(args.out)
    q = cal.quality
    summary = f"wrote {args.out}: {size[0]}x{size[1]}, {cal.source}"
    if "residual_px" in q:
        summary += (
            f", cushion-line residual {q['residual_px']:.2f} px / {q['residual_mm']:.2f} mm RMS"
            f", house end from {q.get('house_end_source', 'default')}"
        )
    print(summary, file=sys.stdout)
    write_picture(args.picture, img, cal)
    return 0


def write_picture(path: str | None, img: np.ndarray, cal: Calibration) -> None:
    if not path:
        return
    from api.calibration_picture import draw_calibration

    if not cv2.imwrite(path, draw_calibration(img, cal)):
        raise CalibrationError(f"--picture {path}: cannot write an image there (give a .png or .jpg path)")
    print(f"wrote {path}: the calibrated table drawn over the picture; check the lines sit on the cushions")
