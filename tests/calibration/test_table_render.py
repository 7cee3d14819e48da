"""The table renderer draws the model where the camera model says it is."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.table import TableModel
from models.synth.table_render import CLOTH_BLUE, Occluder, occluder_mask, render_table


@pytest.mark.parametrize(("size", "tilt", "k1"), [((1280, 720), 0.0, 0.0), ((1920, 1080), 25.0, -0.12)])
def test_features_land_on_their_projections(size: tuple[int, int], tilt: float, k1: float) -> None:
    table = TableModel()
    cam = CameraModel.overhead(table, size, tilt_deg=tilt, k1=k1)
    img = render_table(cam, table, np.random.default_rng(3), noise_sigma=0.0)
    assert img.shape == (size[1], size[0], 3) and img.dtype == np.uint8
    grey = img.astype(float).mean(axis=2)
    # The three spots are white marks on the cloth.
    for spot in table.spots.values():
        u, v = np.round(cam.project(np.array([spot]))[0]).astype(int)
        assert grey[v, u] > 150, spot
    # Cloth just inside the field, 60 mm from a corner along the diagonal; wood outside the cushion band.
    L, W = table.length_mm, table.width_mm
    inside = cam.project(np.array([[150.0, 150.0], [L - 150.0, W - 150.0]]))
    for u, v in np.round(inside).astype(int):
        b, g, r = img[v, u].astype(int)
        assert g > b + 30 and g > r + 30  # green cloth
    rail = cam.project(np.array([[L / 3, -100.0], [L / 3, W + 100.0]]))
    for u, v in np.round(rail).astype(int):
        b, g, r = img[v, u].astype(int)
        assert r > g > b  # brown wood
    # Pocket mouths are dark.
    for pk in table.pockets.values():
        p = np.array(pk.mouth_center) + 20.0 * np.array(pk.outward)
        u, v = np.round(cam.project(p[None])[0]).astype(int)
        assert grey[v, u] < 40, pk.name


def test_seeded_and_options() -> None:
    table = TableModel()
    cam = CameraModel.overhead(table, (1280, 720), tilt_deg=10)
    a = render_table(cam, table, np.random.default_rng(5), lighting="uneven")
    b = render_table(cam, table, np.random.default_rng(5), lighting="uneven")
    c = render_table(cam, table, np.random.default_rng(6), lighting="uneven")
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    blue = render_table(cam, table, np.random.default_rng(5), cloth_bgr=CLOTH_BLUE)
    u, v = np.round(cam.project(np.array([[900.0, 500.0]]))[0]).astype(int)
    assert blue[v, u, 0] > blue[v, u, 1] > blue[v, u, 2]
    with pytest.raises(ValueError):
        render_table(cam, table, np.random.default_rng(5), lighting="disco")  # type: ignore[arg-type]


def test_occluder_covers_a_fifth_of_a_long_cushion() -> None:
    table = TableModel()
    cam = CameraModel.overhead(table, (1280, 720))
    occ = Occluder(side="right", x_mm=2600.0, length_mm=table.length_mm / 5)
    img = render_table(cam, table, np.random.default_rng(0), occluder=occ)
    mask = occluder_mask(cam, table, occ)
    assert 0.01 < mask.mean() < 0.1
    assert np.all(img[mask] == np.array(occ.bgr, np.uint8))
    # The cushion nose under the blob's centre is hidden; far from it, it is not.
    u, v = np.round(cam.project(np.array([[2600.0, table.width_mm]]))[0]).astype(int)
    assert mask[v, u]
    u, v = np.round(cam.project(np.array([[900.0, table.width_mm]]))[0]).astype(int)
    assert not mask[v, u]


def test_raised_cushions_show_their_faces_to_the_camera() -> None:
    table = TableModel()
    cam = CameraModel.overhead(table, (1280, 720), tilt_deg=20)
    flat = render_table(cam, table, np.random.default_rng(0), noise_sigma=0.0)
    raised = render_table(cam, table, np.random.default_rng(0), noise_sigma=0.0, cushion_height_mm=40.0)
    # The cloth up to the field's edge looks the same; just outside the far cushion's base the raised
    # table shows the shaded nose face where the flat one shows the cushion top.
    inside = np.round(cam.project(np.array([[table.length_mm - 30.0, 900.0]]))[0]).astype(int)
    assert np.abs(flat[inside[1], inside[0]].astype(int) - raised[inside[1], inside[0]].astype(int)).max() < 6
    assert not np.array_equal(flat, raised)
    with pytest.raises(ValueError):
        render_table(cam, table, np.random.default_rng(0), cushion_height_mm=-1.0)
