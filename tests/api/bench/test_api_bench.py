"""``tableref bench``: the dispatcher finds the benchmarks, refuses unknown ones, and regenerates only the
README's "Measured" section between its markers."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from api.bench import service as service_bench
from api.cli import main
from api.commands.bench import (
    END,
    START,
    available,
    earlier_results,
    measured_section,
    times_svg,
    update_readme,
)

RESULTS = [
    {"name": "service", "status": "ok", "wall_s": 12.5, "output": "clients | fps\n      1 |  41.9\n"},
    {"name": "rules", "status": "failed: ValueError: x", "wall_s": 1.0, "output": ""},
]
MACHINE = {"cpu": "Test CPU", "cores": 2, "memory_gib": 24.0, "os": "Linux", "python": "3.11.7"}


def test_the_service_benchmark_is_found_and_an_unknown_one_is_refused(capsys):
    assert "service" in available()
    assert main(["bench", "no-such-bench"]) == 2
    assert "no benchmark 'no-such-bench'" in capsys.readouterr().err


def test_readme_markers_are_added_once_then_only_their_content_changes(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# tableref\n\nIntro.\n")
    section = measured_section(RESULTS, tmp_path / "measured", tmp_path, "2026-11-30 06:00 UTC", MACHINE)
    update_readme(readme, section)
    text = readme.read_text()
    assert text.startswith("# tableref\n\nIntro.\n\n" + START)
    assert text.rstrip().endswith(END)
    assert "Test CPU, 2 cores" in text and "2026-11-30 06:00 UTC" in text
    assert "`tableref bench service` (12.5 s, ok)" in text and "      1 |  41.9" in text
    readme.write_text(text + "\n## Licence\n\nOurs.\n")
    update_readme(readme, section.replace("41.9", "43.0"))
    again = readme.read_text()
    assert again.count(START) == 1 and again.count(END) == 1
    assert "43.0" in again and "41.9" not in again
    assert again.startswith("# tableref\n\nIntro.\n\n") and again.endswith("## Licence\n\nOurs.\n")


def test_the_readme_section_can_be_rebuilt_from_an_earlier_run(tmp_path):
    out = tmp_path / "measured"
    out.mkdir()
    (out / "service.txt").write_text("fps 41.9\n")
    (out / "summary.json").write_text(json.dumps({
        "date": "2026-11-30 06:00 UTC", "machine": MACHINE,
        "benchmarks": [{"name": "service", "status": "ok", "wall_s": 3.0}],
    }))  # fmt: skip
    readme = tmp_path / "README.md"
    readme.write_text("# x\n")
    assert main(["bench", "all", "--out", str(out), "--readme", str(readme), "--readme-only"]) == 0
    text = readme.read_text()
    assert "fps 41.9" in text and "2026-11-30 06:00 UTC" in text and "Tables and plots: `measured/`" in text


def test_a_partial_rerun_keeps_the_other_benchmarks_with_their_own_dates(tmp_path):
    out = tmp_path / "measured"
    out.mkdir()
    (out / "service.txt").write_text("fps 41.9\n")
    (out / "rules.txt").write_text("calls 100\n")
    (out / "summary.json").write_text(json.dumps({
        "date": "2026-11-30 06:00 UTC", "machine": MACHINE,
        "benchmarks": [{"name": "service", "status": "ok", "wall_s": 3.0},
                       {"name": "rules", "status": "ok", "wall_s": 2.0, "date": "2026-11-29 10:00 UTC"}],
    }))  # fmt: skip
    kept = earlier_results(out, {"rules"})
    assert [(r["name"], r["date"], r["output"]) for r in kept] == [("service", "2026-11-30 06:00 UTC", "fps 41.9\n")]
    rerun = {"name": "rules", "status": "ok", "wall_s": 2.5, "date": "2026-12-01 05:00 UTC", "output": "calls 99\n"}
    text = measured_section([*kept, rerun], out, tmp_path, "2026-12-01 05:00 UTC", MACHINE)
    assert "(the date of each run under its heading)" in text
    assert "`tableref bench service` (3.0 s, ok, 2026-11-30 06:00 UTC)" in text and "fps 41.9" in text
    assert "`tableref bench rules` (2.5 s, ok, 2026-12-01 05:00 UTC)" in text and "calls 99" in text
    assert earlier_results(tmp_path / "nowhere", set()) == []


def test_runs_made_on_different_hosts_each_name_their_own(tmp_path):
    """A partial rerun on another host (a shared machine pool) names each run's processor under its heading,
    not the newest host for all of them."""
    out = tmp_path / "measured"
    out.mkdir()
    (out / "service.txt").write_text("fps 41.9\n")
    other = {**MACHINE, "cpu": "Other CPU"}
    (out / "summary.json").write_text(json.dumps({
        "date": "2026-11-30 06:00 UTC", "machine": other,
        "benchmarks": [{"name": "service", "status": "ok", "wall_s": 3.0, "machine": other}],
    }))  # fmt: skip
    kept = earlier_results(out, {"rules"})
    assert kept[0]["machine"] == other
    rerun = {"name": "rules", "status": "ok", "wall_s": 2.5, "date": "2026-12-01 05:00 UTC", "output": "calls 99\n",
             "machine": MACHINE}  # fmt: skip
    text = measured_section([*kept, rerun], out, tmp_path, "2026-12-01 05:00 UTC", MACHINE)
    assert "machines: each run's under its heading" in text and "Test CPU, 2 cores, 24.0 GiB" not in text
    assert "`tableref bench service` (3.0 s, ok, 2026-11-30 06:00 UTC, Other CPU, 2 cores)" in text
    assert "`tableref bench rules` (2.5 s, ok, 2026-12-01 05:00 UTC, Test CPU, 2 cores)" in text
    same = measured_section([{**rerun, "machine": other}], out, tmp_path, "2026-12-01 05:00 UTC", other)
    assert "machine: Other CPU, 2 cores, 24.0 GiB, Linux, Python 3.11.7." in same


def test_plots_are_well_formed_svg():
    bars = ET.fromstring(times_svg(RESULTS))
    assert bars.tag.endswith("svg") and len([e for e in bars.iter() if e.tag.endswith("rect")]) == 3
    cdf = ET.fromstring(service_bench.latency_svg({"pots, 1 client": [10.0, 20.0, 30.0], "none": []}, "t"))
    lines = [e for e in cdf.iter() if e.tag.endswith("polyline")]
    assert len(lines) == 1 and len(lines[0].get("points", "").split()) == 3
