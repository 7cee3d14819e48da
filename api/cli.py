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
from pathlib import Path
from types import ModuleType

# Before numpy loads: the tracker's small matrix products on one BLAS thread give the same digits run to run
# (OpenBLAS splits some of them across threads and the sums differ in the last bits), and they do not fight
# the decode and detection threads for the cores. An operator's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Before cv2 loads: a file OpenCV cannot read gets our one-line error, not FFmpeg's and OpenCV's own warnings
# printed above it ("moov atom not found", "backend is generally available but can't be used..."). An
# operator who wants them back sets these.
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # FFmpeg's AV_LOG_QUIET

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
    "warmup": ("warmup", "compile the ball detector's kernels now (done once, automatically, on first use)"),
}

EPILOG = (
    "Start with `tableref demo`. `tableref COMMAND --help` lists a command's options and their defaults. "
    "Formats and the HTTP API: docs/CONTRACT.md and docs/CONTRACT-EXTENSIONS.md."
)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default after its help, unless the help already names it or there is none to show
    (an unset option, a flag that is off)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        unset = default is None or default is False or default == argparse.SUPPRESS  # (0 and 0.0 are shown)
        if "default" in text or unset or not action.option_strings:
            return text
        return text + " (default: %(default)s)"


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
    parser = argparse.ArgumentParser(
        prog="tableref", description="Computer-vision referee for Russian billiards.", epilog=EPILOG
    )
    parser.add_argument("--version", action="version", version=f"tableref {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=HelpFormatter)
        if load and (only is None or only == name):
            with contextlib.suppress(NotAvailable):  # main() reports it when the command is asked for
                _load(name).add_arguments(p)
    return parser


def version() -> str:
    """The installed package's version, from its metadata."""
    from importlib import metadata

    try:
        return metadata.version("tableref")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _names_a_file(value: object) -> bool:
    return isinstance(value, str) and Path(value).exists()


def needs_kernels(args: argparse.Namespace) -> bool:
    """Whether the command will run the ball detector, whose compiled kernels must be ready before a clock
    starts. A missing input is left to the command's own one-line error (no compile before it)."""
    name = args.command
    if name == "demo":
        return not getattr(args, "replay_truth", False)
    if name == "serve":
        source = str(args.source)
        is_camera_or_stream = source.isdigit() or "://" in source
        return is_camera_or_stream or (_names_a_file(source) and not source.endswith(".jsonl"))
    if name == "analyze":
        return _names_a_file(args.video)
    if name == "detect":
        return _names_a_file(args.image)
    if name == "bench":
        return args.name in ("all", "detect", "analyze") or (args.name == "tracking" and "--suite" in args.options)
    return False


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
        if needs_kernels(args):
            from api.warmup import ensure_compiled

            ensure_compiled()
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
