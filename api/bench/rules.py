"""``tableref bench rules``: verdicts per second of the referee engine on a long generated log.

The log (``--shots`` shots of ``--game``, over as many frames as it takes) is generated once; each run
feeds every record to a fresh :class:`rules.referee.Referee`. The baseline, timed in the same command, is
parsing and validating the same JSON lines alone, so the ratio says what refereeing costs on top of
reading the log. Figures are medians of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from calibration.contract import parse_line
from rules.referee import Referee
from rules.registry import FEDERATION_GAMES
from rules.scenarios import generated_log


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        default="all",
        choices=("all", *FEDERATION_GAMES),
        metavar="GAME",
        help=f"a federation game ({', '.join(FEDERATION_GAMES)}) or 'all' (default)",
    )
    parser.add_argument("--shots", type=int, default=2000, help="shots in the generated log")
    parser.add_argument("--runs", type=int, default=5, help="timed runs (the median is printed)")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    games = list(FEDERATION_GAMES) if args.game == "all" else [args.game]
    for g in games:
        if g not in FEDERATION_GAMES:
            raise ValueError(f"bench rules: unknown federation game '{g}'")
    print(f"rules bench: {args.shots} shots per game, median of {args.runs} runs")
    print(f"{'game':<20}{'events':>8}{'verdicts':>10}{'verdicts/s':>13}{'events/s':>12}{'parse ev/s':>12}{'ratio':>7}")
    for game in games:
        script = generated_log(game, args.shots, seed=args.seed)
        lines = script.jsonl().splitlines()
        events = [parse_line(x, i) for i, x in enumerate(lines, start=1)]
        ref_t, parse_t = [], []
        n_verdicts = 0
        for _ in range(args.runs):
            t0 = time.perf_counter()
            for i, x in enumerate(lines, start=1):
                parse_line(x, i)
            parse_t.append(time.perf_counter() - t0)
            ref = Referee(game)
            t0 = time.perf_counter()
            for e in events:
                ref.feed(e)
            ref_t.append(time.perf_counter() - t0)
            n_verdicts = len(ref.finals())
        r, p = statistics.median(ref_t), statistics.median(parse_t)
        print(
            f"{game:<20}{len(events):>8}{n_verdicts:>10}{n_verdicts / r:>13.0f}{len(events) / r:>12.0f}"
            f"{len(events) / p:>12.0f}{r / p:>7.2f}"
        )
    return 0
