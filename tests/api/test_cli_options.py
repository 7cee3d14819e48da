"""What a user meets at the command line: the version, options that list their choices and defaults, errors
that name the expected form, help that cites a file the user has, and a README whose first commands are the
ones CI runs."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from importlib import metadata

import pytest

from api.cli import COMMANDS, build_parser, main
from calibration.contract import GAMES
from tests.paths import REPO

REPO = REPO


def help_of(command: str) -> str:
    parser = build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return str(sub.choices[command].format_help())


def test_version_comes_from_the_package_metadata(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"tableref {metadata.version('tableref')}"


@pytest.mark.parametrize("command", ["analyze", "serve", "referee"])
def test_game_lists_its_choices_and_refuses_others(command, capsys):
    text = " ".join(help_of(command).split())
    assert all(g in text for g in GAMES)
    argv = {"analyze": ["analyze", "v.mp4", "--out", "o"], "serve": ["serve"], "referee": ["referee", "e.jsonl"]}
    with pytest.raises(SystemExit) as done:
        main([*argv[command], "--game", "moskow"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'moskow'" in err and "moscow-fast-called" in err


def test_serve_shows_its_defaults():
    text = " ".join(help_of("serve").split())
    assert "(default: 0)" in text  # the first camera
    assert "(default: russian71)" in text


@pytest.mark.parametrize("command", ["analyze", "calibrate"])
@pytest.mark.parametrize("value", ["1881", "12x", "axb", "0x1270"])
def test_table_errors_name_the_expected_form(command, value, capsys, tmp_path):
    argv = {"analyze": ["analyze", str(tmp_path / "v.mp4"), "--game", "moscow", "--out", str(tmp_path)],
            "calibrate": ["calibrate", str(tmp_path / "t.png")]}[command]  # fmt: skip
    with pytest.raises(SystemExit) as done:
        main([*argv, "--table", value])
    assert done.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (
        f"tableref {command}: error: argument --table: expects LxW (playing-field length x width) in mm, "
        f"e.g. 2540x1270; got {value!r}"
    )


def test_a_bad_ball_diameter_is_refused_as_it_is_parsed(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["analyze", str(tmp_path / "v.mp4"), "--game", "moscow", "--out", str(tmp_path), "--ball", "-3"])
    assert "argument --ball: expects a length in mm, e.g. 57.15; got '-3'" in capsys.readouterr().err


def test_an_unreadable_video_gets_our_error_alone(tmp_path):
    # FFmpeg and OpenCV would print their own warnings first ("moov atom not found", "backend ... can't be
    # used"); the user should read one line, ours.
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all\n" * 50)
    out = subprocess.run([sys.executable, "-m", "api.cli", "analyze", str(bad), "--game", "moscow", "--out",
                          str(tmp_path / "o")], cwd=REPO, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [f"tableref analyze: error: cannot open {bad} as a video"]


def test_help_cites_the_contract_the_user_has():
    assert (REPO / "docs" / "CONTRACT.md").exists()
    assert "CONTRACT-EXTENSIONS.md" in (REPO / "docs" / "CONTRACT.md").read_text()
    for command in COMMANDS:
        text = help_of(command)
        assert not re.search(r"(?<!docs/)CONTRACT\.md", text), command


def test_the_shipped_contract_is_the_project_contract():
    shared = REPO.parent / "shared" / "CONTRACT.md"
    if not shared.exists():
        pytest.skip("../shared/CONTRACT.md is not beside this checkout")
    ours = (REPO / "docs" / "CONTRACT.md").read_text().splitlines()
    pointer = [i for i, ln in enumerate(ours) if "CONTRACT-EXTENSIONS.md" in ln]
    assert pointer  # the pointer paragraph to our additions
    start, end = pointer[0] - 1, pointer[-1] + 2  # the paragraph and the blank line after it
    assert ours[:start] + ours[end:] == shared.read_text().splitlines()


def test_the_readme_opens_with_the_commands_ci_runs():
    readme = (REPO / "README.md").read_text().splitlines()
    block = readme[readme.index("```bash") + 1 : readme.index("```")]
    commands = [line.split("#")[0].strip() for line in block]
    assert commands[0] == "pip install . && tableref demo"
    ci = [ln.strip() for ln in (REPO / ".ci" / "run").read_text().splitlines() if ln and not ln.startswith("#")]
    assert commands[1] in ci
    assert readme.index("```bash") < 5


def test_the_readme_user_part_is_short_and_undated():
    text = (REPO / "README.md").read_text()
    assert "UTC" not in text
    user_part = text.split("\n## More", 1)[0]
    assert len(user_part.splitlines()) <= 150
    limits = text.split("## Known limits", 1)[1].split("\n## ", 1)[0]
    bullets = [ln for ln in limits.splitlines() if ln.startswith("- ")]
    # ten limits, a line and a figure each (the figures' commands and history live in measured/)
    assert len(bullets) == 10 and not [ln for ln in limits.splitlines() if ln.startswith("  ")]
    assert all(re.search(r"\d", b) for b in bullets), bullets
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text)  # dates live in measured/
    for link in re.findall(r"\]\(([^)#]+)\)", text):
        assert (REPO / link).exists(), link
