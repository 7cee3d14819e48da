"""A cushion whose face the camera sees: its nose found behind a lit, cloth-coloured top (``calibration.auto``
re-finds such a side; ``table_finder.nose_behind_lit_top`` reads the profiles)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from api.bench.calibration import CONDITIONS, render_condition
from calibration.auto import auto_calibrate, calibration_from_edges
from calibration.table_finder import find_table, nose_behind_lit_top

DATA = Path(__file__).resolve().parents[1] / "data" / "calibration" / "cushion-profiles-1024x576.npz"
BY_NAME = {c.name: c for c in CONDITIONS}


def _profiles() -> dict[str, np.ndarray]:
    with np.load(DATA) as z:
        return {k: z[k] for k in z.files}


def test_the_nose_of_a_lit_cushion_top_is_found_on_real_profiles() -> None:
    """Lab profiles (1 mm apart on the cloth plane) measured inward from the rail's wood across a long cushion
    whose top is lit and cloth-coloured, on 1024x576 footage: the finder's first strong step there was the
    wood, 50 mm outside the nose. Nearly every profile shows the nose at about that depth."""
    z = _profiles()
    at = nose_behind_lit_top(z["faced_wood"].astype(np.float32))
    found = at[np.isfinite(at)]
    assert len(found) >= 0.8 * len(at)
    lo, mid, hi = np.percentile(found, [10, 50, 90])
    assert 40.0 <= mid <= 60.0  # a cushion top is about 50 mm wide
    assert hi - lo < 10.0  # one crease along the cushion, not scattered texture


def test_no_nose_where_the_edge_already_is_the_foot() -> None:
    """The other long cushion of the same view: the finder took the foot of its face, so inward of it lies
    cloth only, with no shaded band to find."""
    z = _profiles()
    at = nose_behind_lit_top(z["faced_foot"].astype(np.float32))
    assert np.isfinite(at).sum() <= 0.1 * len(at)


def _profile(bands: list[tuple[int, tuple[float, float, float]]]) -> np.ndarray:
    """One Lab profile from (length in samples, colour) bands, inward order."""
    return np.concatenate([np.tile(np.array(c, np.float32), (n, 1)) for n, c in bands])[None]


CLOTH = (150.0, 80.0, 145.0)


@pytest.mark.parametrize(
    ("bands", "expected"),
    [
        # lit cloth-coloured top 40 samples, face in shade 12, cloth: the nose where the top ends
        ([(40, (145.0, 80.0, 146.0)), (12, (125.0, 82.0, 146.0)), (100, CLOTH)], 40.0),
        # the same top in wood's colours (a bare rail): not a cushion top
        ([(40, (145.0, 140.0, 160.0)), (12, (125.0, 82.0, 146.0)), (100, CLOTH)], None),
        # a face only 4 L units darker: the cloth's own shading, not a face
        ([(40, (145.0, 80.0, 146.0)), (12, (141.0, 80.0, 146.0)), (100, CLOTH)], None),
        # cloth at once: the edge was the foot
        ([(152, CLOTH)], None),
    ],
)
def test_nose_behind_lit_top_cases(bands: list[tuple[int, tuple[float, float, float]]], expected: float | None) -> None:
    at = nose_behind_lit_top(_profile(bands))
    if expected is None:
        assert np.isnan(at[0])
    else:
        assert at[0] == pytest.approx(expected, abs=1.5)


@pytest.mark.parametrize("name", ["3D cushions, tilt 35, nose 38 given", "tilt 30 across", "pool 2540x1270, tilt 20"])
def test_rendered_cushions_with_a_contrasting_face_keep_their_edges(name: str) -> None:
    """Rendered cushions have a dark nose strip: the finder's first strong step is the field's edge, and no
    side is re-found."""
    img, _, table = render_condition(BY_NAME[name], (1280, 720), np.random.default_rng(5))
    cal = auto_calibrate(img, table)
    assert "faced_noses" not in cal.quality


def test_a_nose_seen_from_inside_is_moved_in_by_its_parallax() -> None:
    """A side taken on a nose ``h`` high although the camera sees its face: its image line lies on the cloth
    ``h d / (H - h)`` outside the field (``d`` the camera's distance inside that cushion), which the nose
    correction takes back. Here the rendered right line is the field's edge itself, so telling the calibration
    it is a nose shifts the field's right edge out by exactly that amount, and leaves the left edge alone."""
    cond = BY_NAME["3D cushions, tilt 35, nose 38 given"]
    img, cam, table = render_condition(cond, (1280, 720), np.random.default_rng(5))
    edges = find_table(img)
    plain = calibration_from_edges(edges, table, img=img, nose_height_mm=cond.cushion_mm)
    told = calibration_from_edges(edges, table, img=img, nose_height_mm=cond.cushion_mm, noses_found=("right",))
    L, W, h = table.length_mm, table.width_mm, cond.cushion_mm
    along = np.linspace(0.2 * L, 0.8 * L, 7)
    right_px = cam.project(np.column_stack([along, np.full_like(along, W)]))
    left_px = cam.project(np.column_stack([along, np.zeros_like(along)]))
    c = told.camera_centre_mm()
    expected = h * (W - c[1]) / (-c[2] - h)
    assert expected > 5.0
    shift = told.image_to_table(right_px)[:, 1] - plain.image_to_table(right_px)[:, 1]
    assert np.median(shift) == pytest.approx(expected, abs=0.1 * expected)
    assert np.abs(told.image_to_table(left_px)[:, 1] - plain.image_to_table(left_px)[:, 1]).max() < 3.0
