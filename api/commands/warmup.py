"""``tableref warmup``: compile the ball detector's kernels now, rather than at the first command that needs
them (``demo``, ``analyze``, ``serve``, ``detect`` and the video benchmarks do it themselves, once, before
their clock starts). Prints where the compiled kernels are kept."""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="compile again even where a compiled copy is marked ready")


def run(args: argparse.Namespace) -> int:
    from api.warmup import warm_up

    report = warm_up(sys.stderr, force=args.force)
    if report.missing:
        print(f"tableref warmup: the bundled clip did not reach {len(report.missing)} kernel(s): "
              f"{', '.join(report.missing)}; they compile on first use", file=sys.stderr)  # fmt: skip
    state = "compiled" if report.compiled_now else "already compiled"
    print(f"tableref warmup: {report.kernels} kernels {state} ({report.seconds:.1f} s) in {report.where}")
    return 0
