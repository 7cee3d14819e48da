"""The `tableref` command: help, unknown commands, and one-line errors instead of tracebacks."""

import subprocess
import sys

from api.cli import COMMANDS, main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_help_lists_every_contract_command():
    out = run_cli("--help")
    assert out.returncode == 0
    for name in ("demo", "analyze", "referee", "serve", "calibrate", "detect", "synth", "eval"):
        assert name in COMMANDS
        assert name in out.stdout


def test_no_command_prints_usage_and_fails(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_unknown_command_is_an_argparse_error():
    out = run_cli("juggle")
    assert out.returncode == 2
    assert "invalid choice" in out.stderr
    assert "Traceback" not in out.stderr
