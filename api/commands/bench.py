"""``tableref bench NAME [OPTIONS]`` runs one benchmark (``api/bench/NAME.py``); ``tableref bench all`` runs
every one with its defaults, writes each printed table and the plots into a folder (``measured/``), and
regenerates the "Measured" section of ``measured/README.md`` (between ``<!-- measured:start -->`` and
``<!-- measured:end -->``) with the date and the machine, so the figures there are never typed by hand. The
project README keeps no dated figures: its "Known limits" links there."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib
import io
import json
import os
import pkgutil
import platform
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

import api.bench

START, END = "<!-- measured:start -->", "<!-- measured:end -->"
REPO = Path(__file__).resolve().parent.parent.parent


class UnknownBenchmark(ValueError):
    pass


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help=f"a benchmark ({', '.join(available()) or 'none yet'}) or 'all'")
    p.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        help="the benchmark's own options (tableref bench NAME --help); for 'all': --out DIR, --only A,B, --skip A,B, "
        "--no-readme",
    )


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(api.bench.__path__) if not m.name.startswith("_"))


def load(name: str) -> ModuleType:
    if name not in available():
        raise UnknownBenchmark(f"no benchmark '{name}' (available: {', '.join(available())})")
    module = importlib.import_module(f"api.bench.{name}")
    if not (hasattr(module, "add_arguments") and hasattr(module, "run")):
        raise UnknownBenchmark(f"api/bench/{name}.py is not a benchmark (no add_arguments/run)")
    return module


def run(args: argparse.Namespace) -> int:
    if args.name != "all":
        module = load(args.name)
        parser = argparse.ArgumentParser(prog=f"tableref bench {args.name}")
        module.add_arguments(parser)
        return int(module.run(parser.parse_args(args.options)) or 0)
    parser = argparse.ArgumentParser(prog="tableref bench all")
    parser.add_argument("--out", default=str(REPO / "measured"), help="folder for the tables and plots")
    parser.add_argument("--only", default=None, help="comma-separated benchmarks to run (default: all)")
    parser.add_argument("--skip", default="", help="comma-separated benchmarks to leave out")
    parser.add_argument(
        "--readme", default=str(REPO / "measured" / "README.md"), help="file whose Measured section is rewritten"
    )
    parser.add_argument("--no-readme", action="store_true", help="do not touch that file")
    parser.add_argument(
        "--readme-only", action="store_true", help="rewrite the Measured section from the tables in --out; run nothing"
    )
    opts = parser.parse_args(args.options)
    if opts.readme_only:
        return readme_from_results(Path(opts.out), Path(opts.readme))
    names = [n.strip() for n in opts.only.split(",")] if opts.only else available()
    names = [n for n in names if n and n not in set(opts.skip.split(","))]
    return run_all(names, Path(opts.out), None if opts.no_readme else Path(opts.readme))


class Tee(io.TextIOBase):
    """Writes go to every stream given (the console and a buffer kept for the results)."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, s: str) -> int:
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self) -> None:
        for st in self.streams:
            st.flush()


def run_all(names: list[str], out: Path, readme: Path | None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    for name in names:
        module = load(name)
        parser = argparse.ArgumentParser(prog=f"tableref bench {name}")
        module.add_arguments(parser)
        ns = parser.parse_args([])
        if hasattr(ns, "out") and ns.out is None:
            ns.out = str(out)
        print(f"== tableref bench {name}", file=sys.stderr, flush=True)
        buf = io.StringIO()
        start = time.monotonic()
        status = "ok"
        try:
            with contextlib.redirect_stdout(Tee(sys.stdout, buf)):
                code = int(module.run(ns) or 0)
            if code:
                status = f"exit {code}"
        except Exception as exc:  # one benchmark failing must not lose the others' figures
            status = f"failed: {type(exc).__name__}: {exc}"
            traceback.print_exc()
        wall = time.monotonic() - start
        (out / f"{name}.txt").write_text(buf.getvalue())
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        results.append({"name": name, "status": status, "wall_s": round(wall, 1), "date": when,
                        "output": buf.getvalue()})  # fmt: skip
    failed = [r["name"] for r in results if r["status"] != "ok"]
    machine = machine_info()
    for r in results:
        r["machine"] = machine
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    results = earlier_results(out, {r["name"] for r in results}) + results
    results.sort(key=lambda r: r["name"])
    (out / "summary.json").write_text(json.dumps({"date": when, "machine": machine, "benchmarks": [
        {k: r[k] for k in ("name", "status", "wall_s", "date", "machine")} for r in results]}, indent=2))  # fmt: skip
    (out / "bench-times.svg").write_text(times_svg(results))
    if readme is not None:
        update_readme(readme, measured_section(results, out, readme.parent, when, machine))
        print(f"tableref bench: README section updated ({readme})", file=sys.stderr)
    if failed:
        print(f"tableref bench: failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def earlier_results(out: Path, rerun: set[str]) -> list[dict[str, Any]]:
    """The benchmarks of an earlier ``bench all`` in ``out`` that this run leaves alone (``--only``, ``--skip``),
    each with its own date and machine, so a partial rerun keeps the others' figures instead of dropping them."""
    try:
        summary = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return []
    kept = []
    for b in summary.get("benchmarks", []):
        table = out / f"{b['name']}.txt"
        if b["name"] not in rerun and table.exists():
            kept.append({**_dated(b, summary), "output": table.read_text()})
    return kept


def _dated(b: dict[str, Any], summary: dict[str, Any]) -> dict[str, Any]:
    """A benchmark's entry of ``summary.json`` with its date and machine (a summary written before they were
    kept per benchmark gives its own)."""
    return {**b, "date": b.get("date", summary["date"]), "machine": b.get("machine", summary.get("machine"))}


def readme_from_results(out: Path, readme: Path) -> int:
    """The README section from a results folder written by an earlier ``bench all`` (its date and machine)."""
    summary = json.loads((out / "summary.json").read_text())
    results = [{**_dated(b, summary), "output": (out / f"{b['name']}.txt").read_text()} for b in summary["benchmarks"]]
    update_readme(readme, measured_section(results, out, readme.parent, summary["date"], summary["machine"]))
    print(f"tableref bench: README section rewritten from {out}", file=sys.stderr)
    return 0


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_gib = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        kb = next(int(x.split()[1]) for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal"))
        mem_gib = round(kb / 2**20, 1)
    try:
        cores: int | None = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {"cpu": cpu, "cores": cores, "memory_gib": mem_gib, "os": platform.platform(),
            "python": platform.python_version()}  # fmt: skip


def measured_section(results: list[dict[str, Any]], out: Path, root: Path, when: str, machine: dict[str, Any]) -> str:
    def rel(p: Path) -> str:
        try:
            return str(p.resolve().relative_to(root.resolve()))
        except ValueError:
            return str(p)

    tables = "the files beside this one" if rel(out) == "." else f"`{rel(out)}/`"

    dates = {r.get("date", when) for r in results}
    single = len(dates) <= 1
    machines = {_machine_text(r.get("machine") or machine) for r in results}
    one_machine = len(machines) <= 1
    on = f"on {next(iter(dates), when)}" if single else "(the date of each run under its heading)"
    where = (
        f"machine: {next(iter(machines), _machine_text(machine))}"
        if one_machine
        else "machines: each run's under its heading (the runs were made on different hosts)"
    )
    lines = [
        "## Measured",
        "",
        f"Regenerated by `tableref bench all` {on}; {where}. Tables and plots: {tables}.",
        "",
    ]
    for r in results:
        run = f"{r['wall_s']} s, {r['status']}" + ("" if single else f", {r.get('date', when)}")
        if not one_machine:
            run += f", {_machine_text(r.get('machine') or machine, short=True)}"
        lines += [f"### {r['name']}", "", f"`tableref bench {r['name']}` ({run})", ""]
        lines += ["```text", r["output"].rstrip() or "(no output)", "```", ""]
        svg = out / f"{r['name']}-latency.svg"
        if svg.exists():
            lines += [f"![{r['name']} latency]({rel(svg)})", ""]
    lines += [f"![benchmark wall times]({rel(out / 'bench-times.svg')})", ""]
    return "\n".join(lines)


def _machine_text(m: dict[str, Any], short: bool = False) -> str:
    """How the README names a machine (``machine_info``); ``short``: its processor and cores."""
    text = f"{m['cpu']}, {m['cores']} cores"
    return text if short else f"{text}, {m['memory_gib']} GiB, {m['os']}, Python {m['python']}"


def update_readme(readme: Path, section: str) -> None:
    """Replace the text between the markers (only that); add the markers at the end when absent."""
    text = readme.read_text() if readme.exists() else ""
    block = f"{START}\n{section.rstrip()}\n{END}"
    if START in text and END in text and text.index(START) < text.index(END):
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    readme.write_text(text)


def times_svg(results: list[dict[str, Any]]) -> str:
    """Bar chart of each benchmark's wall time, as a standalone SVG."""
    w, bar, left = 560, 26, 110
    h = 40 + bar * len(results) + 30
    top = max([r["wall_s"] for r in results] + [1.0])
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        '<text x="10" y="20" font-size="14">tableref bench all: wall time per benchmark (s)</text>',
    ]
    for i, r in enumerate(results):
        y = 36 + i * bar
        length = (w - left - 70) * r["wall_s"] / top
        colour = "#1d7a3a" if r["status"] == "ok" else "#b3261e"
        parts.append(f'<text x="{left - 8}" y="{y + 16}" text-anchor="end">{r["name"]}</text>')
        parts.append(f'<rect x="{left}" y="{y + 4}" width="{length:.1f}" height="{bar - 8}" fill="{colour}"/>')
        parts.append(f'<text x="{left + length + 6:.1f}" y="{y + 16}">{r["wall_s"]}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
