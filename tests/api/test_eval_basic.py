"""``tableref eval``: truth against itself scores perfectly; known perturbations drop exactly what they should."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from api.cli import main
from calibration.contract import Event, read_jsonl, write_jsonl
from tests.paths import REPO
from tracking.evaluation import EvaluationError, evaluate

DEMO = REPO / "api" / "data" / "demo"
RENAME = {"cue": "t1", "1": "t9", "2": "t2", "3": "t3"}  # a tracker's own ids for some balls


def _copy_truth(dst: Path) -> tuple[list[Event], list[dict[str, str]], float]:
    dst.mkdir(parents=True, exist_ok=True)
    events = read_jsonl(DEMO / "truth" / "events.jsonl")
    with open(DEMO / "truth" / "tracks.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    fps = float(json.loads((DEMO / "camera.json").read_text())["fps"])
    return events, rows, fps


def _rename(ev: Event) -> Event:
    upd: dict = {}
    if ev.ball:
        upd["ball"] = RENAME.get(ev.ball, ev.ball)
    if ev.balls:
        upd["balls"] = tuple(RENAME.get(b, b) for b in ev.balls)
    if ev.positions:
        upd["positions"] = {RENAME.get(b, b): p for b, p in ev.positions.items()}
    return ev.model_copy(update=upd)


def _write(dst: Path, events: list[Event], rows: list[dict[str, str]]) -> None:
    write_jsonl(dst / "events.jsonl", events)
    with open(dst / "tracks.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["frame", "t", "ball", "x", "y", "visible"])
        w.writeheader()
        w.writerows(rows)


def test_truth_against_itself_is_perfect() -> None:
    res = evaluate(DEMO, DEMO)
    assert res["fps"] == 25.0 and res["tolerance_s"] == pytest.approx(0.04)
    for typ, s in res["events"].items():
        assert s["precision"] == s["recall"] == s["f1"] == 1.0, typ
        assert s["dt_median_s"] == 0.0 and s["dt_p95_s"] == 0.0
    assert res["tracks"]["error_mm"] == {"median": 0.0, "p95": 0.0, "max": 0.0}
    assert res["tracks"]["coverage"] == 1.0
    assert res["missed"] == [] and res["extra"] == []


def test_perturbed_copy_drops_exactly_what_was_changed(tmp_path: Path) -> None:
    events, rows, fps = _copy_truth(tmp_path / "pred")
    frame = 1.0 / fps
    pots = [e for e in events if e.type == "pot"]
    assert pots, "the demo truth must hold a pot"
    removed = pots[0]
    pred: list[Event] = []
    for ev in events:
        if ev is removed:
            continue
        if ev.type == "cushion":  # two frames late: outside the one-frame tolerance
            ev = ev.model_copy(update={"t": (ev.t or 0.0) + 2 * frame})
        elif ev.type == "contact":  # half a frame early: inside it
            ev = ev.model_copy(update={"t": max((ev.t or 0.0) - 0.5 * frame, 0.0)})
        pred.append(_rename(ev))
    moved = [dict(r, ball=RENAME.get(r["ball"], r["ball"]), x=str(float(r["x"]) + 3.0)) for r in rows]
    _write(tmp_path / "pred", pred, moved)

    res = evaluate(tmp_path / "pred", DEMO)
    assert {RENAME[b]: b for b in RENAME}.items() <= res["ids"].items()
    ev = res["events"]
    n_cushions = sum(e.type == "cushion" for e in events)
    assert ev["cushion"]["matched"] == 0 and ev["cushion"]["precision"] == 0.0 and ev["cushion"]["recall"] == 0.0
    assert ev["cushion"]["truth"] == ev["cushion"]["pred"] == n_cushions
    assert ev["pot"]["recall"] == pytest.approx((len(pots) - 1) / len(pots))
    assert ev["pot"]["pred"] == len(pots) - 1
    assert ev["contact"]["f1"] == 1.0
    assert ev["contact"]["dt_median_s"] == pytest.approx(0.5 * frame, abs=1e-6)
    for typ in ("shot_start", "shot_end", "line_cross"):
        assert ev[typ]["f1"] == 1.0 and ev[typ]["dt_p95_s"] == 0.0
    assert len(res["missed"]) == n_cushions + 1
    assert len(res["extra"]) == n_cushions
    err = res["tracks"]["error_mm"]
    assert err["median"] == pytest.approx(3.0, abs=1e-3) and err["max"] == pytest.approx(3.0, abs=1e-3)

    # With a tolerance of three frames the late cushions match again.
    wide = evaluate(tmp_path / "pred", DEMO, tolerance_s=3 * frame)
    assert wide["events"]["cushion"]["f1"] == 1.0
    assert wide["events"]["cushion"]["dt_median_s"] == pytest.approx(2 * frame, abs=1e-6)


def test_eval_cli_prints_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    assert main(["eval", str(DEMO), str(DEMO), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "contact" in text and "tracks:" in text and "1.000" in text
    obj = json.loads(out.read_text())
    assert obj["events"]["all"]["f1"] == 1.0


def test_eval_refuses_bad_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path / "missing"), str(DEMO)]) == 2
    (tmp_path / "p").mkdir()
    with pytest.raises(EvaluationError, match=r"no events\.jsonl"):
        evaluate(tmp_path / "p", DEMO)
    (tmp_path / "p" / "events.jsonl").write_text('{"type": "contact"}\n')
    assert main(["eval", str(tmp_path / "p"), str(DEMO)]) == 2
    assert "line 1" in capsys.readouterr().err


def test_truth_folder_without_camera_json_takes_fps_from_tracks(tmp_path: Path) -> None:
    shutil.copytree(DEMO / "truth", tmp_path / "t")
    res = evaluate(tmp_path / "t", tmp_path / "t")
    assert res["fps"] == pytest.approx(25.0)
    assert res["events"]["all"]["f1"] == 1.0
