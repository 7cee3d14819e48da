"""``tableref bench code``: how big and how tangled the tracking core is, counted from its source.

What a newcomer has to hold in their head to follow the tracker and the event extractor, counted the same way
before and after a refactor (``--rev REV`` counts a commit's files, read with ``git show``):

- lines of each file;
- settings fields: the annotated fields of every ``@dataclass`` whose name ends in ``Settings`` in the files,
  and of the named settings classes wherever they live (``ExtractorSettings``, ``TrackerSettings``,
  ``FilterSettings``); a field holding another settings class counts once, as the fields of that class count
  on their own;
- bare numeric literals: every int or float constant in the code outside the settings classes' bodies,
  except 0, 1, 2 and 0.5 (indices, halves and doubles say how code is written, not what the table is) and
  except docstrings; ``-3`` counts once (its 3);
- ``cost[...] = big`` vetoes: assignments of the name ``big`` into a subscript of ``cost`` in the tracker's
  association and the methods it hands the cost matrix to;
- the longest function (its lines, decorators excluded) and the functions over complexity 10, from
  ``ruff check --select C901`` (McCabe).
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
# the tracking core: the event extractor and the tracker, with the modules each was split into, and every other
# module of tracking/ the live path runs (the filter, ids, path fits, the rattle model, guided measurement of
# fast balls, a still ball's re-measured jump); the bench's scoring and simulation (evaluation, metrics,
# kinematic_sim) are tools, not the core
CORE = (
    "tracking/extractor.py",
    "tracking/tracker.py",
    "tracking/tracker_settings.py",
    "tracking/association.py",
    "tracking/gates.py",
    "tracking/states.py",
    "tracking/paths.py",
    "tracking/births.py",
    "tracking/bursts.py",
    "tracking/hidden_balls.py",
    "tracking/identities.py",
    "tracking/pocket_watch.py",
    "tracking/kalman.py",
    "tracking/ids.py",
    "tracking/trajectory.py",
    "tracking/rattle.py",
    "tracking/guided.py",
    "tracking/jumps.py",
)
CORE_PACKAGES = ("tracking/detect",)  # every module of these counts too, where the revision has them
NAMED_SETTINGS = ("ExtractorSettings", "TrackerSettings", "FilterSettings")
STRUCTURAL = (0, 1, 2, 0.5)
MAX_COMPLEXITY = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rev", default=None, help="count the files of this git revision (default: the work tree)")
    parser.add_argument(
        "--files",
        default=None,
        help=f"comma-separated files (default {','.join(CORE)} and the modules under {','.join(CORE_PACKAGES)})",
    )
    parser.add_argument("--out", metavar="FILE", help="also write the printed report to FILE (a folder: code.txt)")


@dataclass(frozen=True)
class Source:
    path: str
    text: str

    @property
    def tree(self) -> ast.Module:
        return ast.parse(self.text, filename=self.path)


def read_source(path: str, rev: str | None) -> Source:
    if rev is None:
        return Source(path, (REPO / path).read_text(encoding="utf-8"))
    got = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=REPO, capture_output=True, text=True)
    if got.returncode != 0:
        raise ValueError(f"{path} at {rev}: {got.stderr.strip().splitlines()[-1] if got.stderr else 'not found'}")
    return Source(path, got.stdout)


def _is_dataclass(node: ast.ClassDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "dataclass":
            return True
    return False


def settings_classes(tree: ast.Module) -> Iterator[ast.ClassDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name.endswith("Settings") and _is_dataclass(node):
            yield node


def field_count(cls: ast.ClassDef) -> int:
    return sum(1 for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name))


def _docstrings(tree: ast.Module) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def bare_numbers(tree: ast.Module) -> list[tuple[int, float]]:
    """(line, value) of each counted literal (the rule in the module docstring)."""
    inside_settings = {id(n) for cls in settings_classes(tree) for n in ast.walk(cls)}
    docs = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in inside_settings or id(node) in docs:
            continue
        v = node.value
        if isinstance(v, bool) or not isinstance(v, int | float):
            continue
        if v in STRUCTURAL:
            continue
        out.append((node.lineno, v))
    return sorted(out)


def big_vetoes(tree: ast.Module) -> list[tuple[str, int]]:
    """(function, line) of each ``cost[...] = big``."""
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.Assign) or not (isinstance(node.value, ast.Name) and node.value.id == "big"):
                continue
            for target in node.targets:
                into = target.value if isinstance(target, ast.Subscript) else None
                if isinstance(into, ast.Name) and into.id == "cost":
                    out.append((fn.name, node.lineno))
    return sorted(set(out), key=lambda x: x[1])


def functions(tree: ast.Module) -> list[tuple[int, str, int]]:
    """(lines, qualified name, first line) of every function and method."""
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                end = child.end_lineno or child.lineno
                out.append((end - child.lineno + 1, f"{prefix}{child.name}", child.lineno))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return sorted(out, reverse=True)


_C901 = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: C901 `(?P<name>[^`]+)` is too complex \((?P<n>\d+) > \d+\)")


def complexity(sources: list[Source]) -> list[tuple[int, str, str, int]] | str:
    """(complexity, file, function, line) over MAX_COMPLEXITY, worst first; or why ruff could not say."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for s in sources:
            p = Path(tmp) / s.path
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(s.text, encoding="utf-8")
            paths.append(s.path)
        cmd = [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "C901", "--output-format", "concise",
               "--config", f"lint.mccabe.max-complexity={MAX_COMPLEXITY}", *paths]  # fmt: skip
        try:
            got = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        except OSError as exc:
            return f"ruff could not run ({exc})"
    if got.returncode not in (0, 1):
        return f"ruff could not run: {(got.stderr or got.stdout).strip().splitlines()[-1:]}"
    rows = []
    for line in got.stdout.splitlines():
        m = _C901.match(line)
        if m:
            rows.append((int(m["n"]), m["path"], m["name"], int(m["line"])))
    return sorted(rows, key=lambda r: (-r[0], r[1], r[3]))


def named_settings(rev: str | None) -> list[tuple[str, str, int]]:
    """(class, file, fields) of each of NAMED_SETTINGS, found anywhere under tracking/."""
    out = []
    for path in python_files("tracking", rev):
        for cls in settings_classes(read_source(path, rev).tree):
            if cls.name in NAMED_SETTINGS:
                out.append((cls.name, path, field_count(cls)))
    return out


def python_files(folder: str, rev: str | None) -> list[str]:
    """The .py files under ``folder`` in the work tree (``rev`` None) or at ``rev``, sorted."""
    if rev is None:
        return sorted(str(p.relative_to(REPO)) for p in (REPO / folder).rglob("*.py"))
    listed = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, folder], cwd=REPO,
                            capture_output=True, text=True, check=True)  # fmt: skip
    return sorted(p for p in listed.stdout.split() if p.endswith(".py"))


def core_files(rev: str | None) -> list[str]:
    """CORE (those the revision has) and the modules of CORE_PACKAGES (those with any code: an empty
    ``__init__.py`` adds nothing)."""
    present = set(python_files("tracking", rev))  # a revision before a split lacks the modules split out
    extra = [f for pkg in CORE_PACKAGES for f in python_files(pkg, rev)]
    return [*(f for f in CORE if f in present), *(f for f in extra if read_source(f, rev).text.strip())]


def _commit(rev: str) -> str:
    got = subprocess.run(["git", "rev-parse", "--short", rev], cwd=REPO, capture_output=True, text=True)
    return got.stdout.strip() or "?"


def report(files: list[str], rev: str | None) -> list[str]:
    sources = [read_source(f, rev) for f in files]
    where = "work tree" if rev is None else f"{rev} = {_commit(rev)}"
    lines = [f"tracking core counts ({where}); rules: tableref bench code --help"]
    lines.append("")
    lines.append(f"{'file':<32}{'lines':>7}{'settings fields':>17}{'bare numbers':>14}{'big vetoes':>12}")
    total = [0, 0, 0, 0]
    all_vetoes: list[tuple[str, str, int]] = []
    all_fns: list[tuple[int, str, int]] = []
    for s in sources:
        tree = s.tree
        n_lines = len(s.text.splitlines())
        n_fields = sum(field_count(c) for c in settings_classes(tree))
        n_numbers = len(bare_numbers(tree))
        vetoes = big_vetoes(tree)
        all_vetoes += [(s.path, fn, ln) for fn, ln in vetoes]
        all_fns += [(n, f"{s.path}:{name}", ln) for n, name, ln in functions(tree)]
        for k, v in enumerate((n_lines, n_fields, n_numbers, len(vetoes))):
            total[k] += v
        lines.append(f"{s.path:<32}{n_lines:>7}{n_fields:>17}{n_numbers:>14}{len(vetoes):>12}")
    lines.append(f"{'total':<32}{total[0]:>7}{total[1]:>17}{total[2]:>14}{total[3]:>12}")
    lines.append("")
    lines.append("settings classes (fields; a nested settings field counts once):")
    for name, path, n in named_settings(rev):
        lines.append(f"  {name:<20} {path:<32} {n:>4}")
    lines.append("")
    lines.append("cost[...] = big vetoes, by function:")
    by_fn: dict[str, list[int]] = {}
    for path, fn, ln in all_vetoes:
        by_fn.setdefault(f"{path}:{fn}", []).append(ln)
    for fn, lns in by_fn.items():
        lines.append(f"  {fn}: {len(lns)} (lines {', '.join(map(str, lns))})")
    lines.append("")
    lines.append("longest functions (lines):")
    for n, name, ln in sorted(all_fns, reverse=True)[:5]:
        lines.append(f"  {n:>5}  {name} (line {ln})")
    lines.append("")
    worst = complexity(sources)
    if isinstance(worst, str):
        lines.append(f"complexity: {worst}")
    else:
        lines.append(f"functions over McCabe complexity {MAX_COMPLEXITY} (ruff C901): {len(worst)}")
        for n, path, name, ln in worst:
            lines.append(f"  {n:>5}  {path}:{name} (line {ln})")
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        files = [f.strip() for f in str(args.files).split(",") if f.strip()] if args.files else core_files(args.rev)
        text = "\n".join(report(files, args.rev)) + "\n"
    except (OSError, ValueError, SyntaxError) as exc:
        print(f"tableref bench code: {exc}", file=sys.stderr)
        return 2
    print(text, end="")
    if getattr(args, "out", None):
        out = Path(args.out)
        if out.is_dir():
            out = out / "code.txt"
        out.write_text(text, encoding="utf-8")
    return 0
