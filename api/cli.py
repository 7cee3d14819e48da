"""The ``tableref`` command: one entry point, one module per subcommand.

Each subcommand lives in ``api/commands/<name>.py`` and exposes ``add_arguments(parser)`` and
``run(args) -> int``. They are imported only when called, so a light install can run ``referee`` without
loading the vision stack, and a subcommand whose module is not there yet says so in one line.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

# Before numpy loads: the tracker's small matrix products on one BLAS thread give the same digits run to run
# (OpenBLAS splits some of them across threads and the sums differ in the last bits), and they do not fight
# the decode and detection threads for the cores. An operator's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# name -> (module under api.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "the main job on the bundled demo clip: observe, referee, serve the live overlay"),
    "analyze": ("analyze", "recorded video to events.jsonl, tracks.csv, verdicts.jsonl and report.html"),
    "referee": ("referee", "events plus operator inputs to verdicts (JSON lines on stdout)"),
    "serve": ("serve", "the live service over a camera, stream URL or video file"),
    "calibrate": ("calibrate", "find the table in an image or video and write the calibration"),
    "detect": ("detect", "print the balls the detector sees in one image"),
    "synth": ("synth", "render a physics-true scenario with exact ground truth"),
    "eval": ("eval", "compare predicted events and tracks with the truth"),
    "bench": ("bench", "run the benchmarks and print their figures"),
    "train-detector": ("train_detector", "train, export and document the neural ball detector (train extra)"),
}


class NotAvailable(Exception):
    """The subcommand's module is not part of this build yet."""


def _load(name: str) -> ModuleType:
    module = f"api.commands.{COMMANDS[name][0]}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            raise NotAvailable(name) from None
        raise


def build_parser(load: bool = True, only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tableref", description="Computer-vision referee for Russian billiards.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if load and (only is None or only == name):
            with contextlib.suppress(NotAvailable):  # main() reports it when the command is asked for
                _load(name).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wanted = next((a for a in argv if not a.startswith("-")), None)
    if wanted in COMMANDS:
        try:
            _load(wanted)
        except NotAvailable:
            print(f"tableref {wanted}: not available yet", file=sys.stderr)
            return 3
    parser = build_parser(only=wanted if wanted in COMMANDS else None)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        module = _load(args.command)
        code = module.run(args)
    except NotAvailable:
        print(f"tableref {args.command}: not available yet", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print(f"tableref {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:
        # Domain errors (bad calibration, malformed events, unreadable video, unknown game) are ValueError
        # subclasses with a one-line message; a missing or unreadable file is an OSError.
        print(f"tableref {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return int(code or 0)


if __name__ == "__main__":
    raise SystemExit(main())
