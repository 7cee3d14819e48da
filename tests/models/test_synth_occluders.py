"""The rendered player's looks: the plain player as before, and the varied one's glove, watch, light sleeve and
free hand resting on the cloth, each drawn where a real player's would be."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.table import TableModel
from models.synth.occluders import (
    GLOVE_BGR,
    LIGHT_SLEEVE_BGR,
    PLAIN,
    SKIN_BGR,
    SLEEVE_BGR,
    PlayerLook,
    draw_player,
    varied_look,
)
from models.synth.video import RenderSettings, RenderSettingsError

TABLE = TableModel()
SIZE = (960, 540)
BALL = (2000.0, 900.0)


def _drawn(look: PlayerLook, t_rel: float = -0.5) -> tuple[CameraModel, np.ndarray]:
    camera = CameraModel.overhead(TABLE, SIZE)
    img = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    assert draw_player(img, camera, BALL, 0.0, TABLE.ball_radius_mm, t_rel, look=look)
    return camera, img


def _of_colour(img: np.ndarray, bgr: tuple[int, int, int]) -> np.ndarray:
    return np.all(np.abs(img.astype(int) - np.array(bgr)) <= 2, axis=2)


def test_the_plain_player_is_the_default_one() -> None:
    camera = CameraModel.overhead(TABLE, SIZE)
    a = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    b = a.copy()
    draw_player(a, camera, BALL, 30.0, TABLE.ball_radius_mm, -0.5, 1)
    draw_player(b, camera, BALL, 30.0, TABLE.ball_radius_mm, -0.5, 1, PLAIN)
    assert np.array_equal(a, b)
    assert _of_colour(a, SLEEVE_BGR).sum() > 1000 and _of_colour(a, SKIN_BGR).sum() > 50


def test_a_varied_player_wears_what_it_is_given_and_rests_a_hand_beside_the_bridge() -> None:
    look = PlayerLook(LIGHT_SLEEVE_BGR[0], GLOVE_BGR[0], (212, 214, 218), resting_hand=True)
    camera, img = _drawn(look)
    _, plain = _drawn(PLAIN)
    assert _of_colour(img, SLEEVE_BGR).sum() == 0 and _of_colour(img, LIGHT_SLEEVE_BGR[0]).sum() > 1000
    # the watch: a 40 mm face on a strap across the wrist, behind the gloved hand (the cue points +x)
    _, bare_wrist = _drawn(replace(look, watch_bgr=None))
    watch = np.argwhere(np.any(img != bare_wrist, axis=2))
    px_per_mm = float(np.linalg.norm(camera.project(np.array([[1000.0, 0.0]]), 0.0)[0]
                                     - camera.project(np.array([[0.0, 0.0]]), 0.0)[0])) / 1000.0  # fmt: skip
    along = (watch[:, 1].max() - watch[:, 1].min() + 1) / px_per_mm
    assert 35.0 < along < 55.0
    glove = np.argwhere(_of_colour(img, GLOVE_BGR[0]))
    assert len(glove) > 50 and watch[:, 1].mean() < glove[:, 1].mean()
    # the resting hand: skin where the plain player has none, and it stays put while the cue strokes
    hand = _of_colour(img, SKIN_BGR) & ~_of_colour(plain, SKIN_BGR)
    assert hand.sum() > 50
    (_, later), (_, plain_later) = _drawn(look, t_rel=-0.3), _drawn(PLAIN, t_rel=-0.3)
    assert np.array_equal(hand, _of_colour(later, SKIN_BGR) & ~_of_colour(plain_later, SKIN_BGR))


def test_varied_looks_cover_every_choice_and_the_option_is_checked() -> None:
    rng = np.random.default_rng(5)
    looks = [varied_look(rng) for _ in range(64)]
    assert {lk.bridge_bgr for lk in looks} == {SKIN_BGR, *GLOVE_BGR}
    assert {lk.resting_hand for lk in looks} == {True, False}
    assert any(lk.watch_bgr is None for lk in looks) and any(lk.watch_bgr is not None for lk in looks)
    assert {lk.sleeve_bgr for lk in looks} == {SLEEVE_BGR, *LIGHT_SLEEVE_BGR}
    stays = [lk.stay_s for lk in looks]
    assert 0.0 in stays and all(s == 0.0 or 1.0 <= s <= 3.0 for s in stays) and max(stays) > 1.0
    assert RenderSettings(player="varied").player == "varied"
    with pytest.raises(RenderSettingsError, match="plain or varied"):
        RenderSettings(player="gloves")


def test_a_player_who_stays_down_holds_the_follow_through_then_leaves_as_before() -> None:
    from models.synth.occluders import HOLD_S, LEAVE_S, pose_at

    assert pose_at(HOLD_S + 1.5, stay_s=2.0) == pose_at(HOLD_S)  # still down, the cue through the ball
    assert pose_at(LEAVE_S + 0.5) is None and pose_at(LEAVE_S + 0.5, stay_s=2.0) is not None
    later, then = pose_at(LEAVE_S - 0.2 + 2.0, stay_s=2.0), pose_at(LEAVE_S - 0.2)  # withdrawing, 2 s later
    assert later is not None and then is not None and then.away_mm > 0.0
    assert (later.gap_mm, later.away_mm) == pytest.approx((then.gap_mm, then.away_mm))
    assert pose_at(-0.5, stay_s=2.0) == pose_at(-0.5)  # the stroke itself is unchanged
    look = PlayerLook(stay_s=2.0)
    camera = CameraModel.overhead(TABLE, SIZE)
    img = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    assert draw_player(img, camera, BALL, 0.0, TABLE.ball_radius_mm, LEAVE_S + 1.0, look=look) and img.any()
    assert not draw_player(img, camera, BALL, 0.0, TABLE.ball_radius_mm, LEAVE_S + 1.0)
