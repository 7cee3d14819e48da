"""``tableref eval PRED_DIR TRUTH_DIR``: precision, recall and timing of events, position error of tracks.

The logic lives in ``tracking.evaluation`` (``evaluate(pred_dir, truth_dir, tolerance_s=None)``); this
prints its table and, with ``--json FILE``, writes the full result (including the unmatched events).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tracking.evaluation import evaluate, format_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pred_dir", help="folder with the predicted events.jsonl and tracks.csv")
    parser.add_argument("truth_dir", help="synth scenario folder (truth/ and camera.json) or a folder of truth files")
    parser.add_argument(
        "--tolerance", type=float, default=None, help="time tolerance in seconds (default: one frame, 1/fps)"
    )
    parser.add_argument("--json", dest="json_out", default=None, help="also write the result as JSON here")


def run(args: argparse.Namespace) -> int:
    for d in (args.pred_dir, args.truth_dir):
        if not Path(d).is_dir():
            raise FileNotFoundError(f"no folder {d}")
    result = evaluate(args.pred_dir, args.truth_dir, args.tolerance)
    print(format_report(result))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0
