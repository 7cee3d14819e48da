"""``tableref bench code``: the counting rules on a small source whose counts are known by reading it."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

from api.bench.code import Source, bare_numbers, big_vetoes, complexity, field_count, functions, settings_classes
from tests.paths import REPO

REPO = REPO

SAMPLE = textwrap.dedent(
    '''
    """A module: 3.5 in a docstring is words."""
    from dataclasses import dataclass, field


    @dataclass(frozen=True)
    class GateSettings:
        reach_mm: float = 14.0
        window: int = 10


    @dataclass(frozen=True)
    class OuterSettings:
        gate: GateSettings = field(default_factory=GateSettings)
        slack_s: float = 0.25


    def associate(cost, rows, big=1e9):
        """Picks: 7.0 here is a docstring too."""
        cost[rows] = big
        cost[0, rows > 2] = big
        other = cost.copy()
        other[rows] = big
        if rows.sum() > 40:
            return -3 * cost + 0.5
        return cost * 2 + 1
    '''
)


def test_rules_count_what_they_say() -> None:
    tree = ast.parse(SAMPLE)
    assert sorted(c.name for c in settings_classes(tree)) == ["GateSettings", "OuterSettings"]
    assert [field_count(c) for c in settings_classes(tree)] == [2, 2]  # the nested settings field counts once
    # 1e9 (the default of big), 40 and 3 count; the settings' defaults, 0, 1, 2, 0.5 and the docstrings do not
    assert [v for _, v in bare_numbers(tree)] == [1e9, 40, 3]
    # only assignments of big into cost: the copy's veto is not one
    assert [fn for fn, _ in big_vetoes(tree)] == ["associate", "associate"]
    assert functions(tree)[0][1] == "associate"


def test_complexity_names_the_tangled_function() -> None:
    branches = "\n".join(f"    if x == {k}:\n        y += {k}" for k in range(12))
    text = f"def tangled(x):\n    y = 0\n{branches}\n    return y\n\n\ndef flat(x):\n    return x\n"
    src = Source("pkg/mod.py", text)
    worst = complexity([src])
    assert not isinstance(worst, str), worst
    assert [(name, path) for _, path, name, _ in worst] == [("tangled", "pkg/mod.py")]
    assert worst[0][0] == 13


def test_cli_counts_a_revision_and_refuses_a_missing_file() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "api.cli", "bench", "code", "--rev", "HEAD"], cwd=REPO, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    assert "tracking/extractor.py" in ok.stdout and "ruff C901" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "api.cli", "bench", "code", "--files", "tracking/none.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "none.py" in bad.stderr
