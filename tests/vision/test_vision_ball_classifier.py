"""The learned ball / not-a-ball judge (vision.ball_classifier) and the classical detector using it.

Crops under tests/data/classifier/ were cut from real tuning frames (models/ball_classifier/test_crops.py):
the classical detector's proposals off every labelled ball (gloves, hands, a shirt, pocket holes, cushion
marks) and labelled balls, half of them the darkest on their cloth (dark balls on blue cloth). ``watch.png`` is
the same kind of crop of a player's wrist with a wristwatch resting on the rail (tuning clip padova game2_clip1,
frame 10, at (902, 300) px, ball radius 11 px); ``jaw_ball.png`` is a square of 8 ball radii, 64 px, around a
ball hanging in a corner pocket's jaws (tuning clip pool-overhead 2019_PoolChamp_Clip1, frame 79, the potted 5 at
(303.9, 856.5) px, radius 18.1 px: the jaw rubber and the hole around it).
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tests.paths import DATA
from vision.ball_classifier import CROP_PX, DEFAULT_MODEL, BallClassifier, combine, cut_crops, load_ball_classifier

pytest.importorskip("onnxruntime")

DATA = DATA / "classifier" / "crops.npz"
THRESHOLD = json.loads((DEFAULT_MODEL.parent / "threshold.json").read_text(encoding="utf-8"))["threshold"]


@pytest.fixture(scope="module")
def model() -> BallClassifier:
    return BallClassifier(DEFAULT_MODEL)


@pytest.fixture(scope="module")
def crops() -> dict[str, np.ndarray]:
    return dict(np.load(DATA))


def test_the_model_is_small_and_judges_a_batch_of_any_size(model):
    assert DEFAULT_MODEL.stat().st_size < 1_000_000
    for n in (1, 16, 40):
        p = model.predict_crops(np.zeros((n, CROP_PX, CROP_PX, 3), np.uint8))
        assert p.shape == (n,) and np.all((p >= 0) & (p <= 1))
    assert model.predict_crops(np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8)).shape == (0,)


def test_real_balls_and_real_hands_gloves_and_pocket_holes_are_told_apart(model, crops):
    p = model.predict_crops(crops["crops"])
    ball = crops["ball"]
    assert ball.sum() >= 20 and (~ball).sum() >= 20
    kept_balls = np.mean(p[ball] >= THRESHOLD)
    kept_dark = np.mean(p[crops["dark"]] >= THRESHOLD)
    dropped = np.mean(p[~ball] < THRESHOLD)
    assert kept_balls >= 0.9, (kept_balls, np.round(p[ball], 2))
    assert kept_dark >= 0.9, np.round(p[crops["dark"]], 2)
    assert dropped >= 0.8, (dropped, np.round(p[~ball], 2))
    assert np.median(p[ball]) > np.median(p[~ball]) + 0.5


def test_crops_are_centred_on_the_proposal_and_span_two_and_a_half_diameters():
    img = np.full((200, 300, 3), 90, np.uint8)
    cv2.circle(img, (140, 80), 10, (255, 255, 255), -1)
    c = cut_crops(img, np.array([[140.0, 80.0]]), np.array([10.0]))[0]
    white = np.argwhere(c[:, :, 0] > 170)
    # The disc is 2 radii of the 5-radius square: 12.8 of 32 px, centred at 15.5.
    assert np.allclose(white.mean(axis=0), 15.5, atol=0.6)
    assert 11 <= np.ptp(white[:, 1]) + 1 <= 15
    # A proposal by the frame's edge gets the edge repeated, not an error.
    assert cut_crops(img, np.array([[2.0, 198.0]]), np.array([10.0])).shape == (1, CROP_PX, CROP_PX, 3)


def test_a_ball_like_look_lifts_a_dark_balls_confidence_as_a_new_ball_and_nothing_is_lowered():
    detector_conf = np.array([0.42, 0.75, 0.42])  # a dark ball on blue cloth, a glove, a proposal not judged
    c = combine(detector_conf, np.array([0.97, 0.1, np.nan]))
    assert c[0] >= 0.6 and c[1] == pytest.approx(0.75) and c[2] == pytest.approx(0.42)


def test_a_ball_like_look_starts_a_track_as_the_video_opens_and_not_later():
    """A dark ball (0.35 by its rim) that looks like a ball gets a track in the opening moments; a blob with as
    little rim that looks as round and lit later on (the bridge hand on a rendered cue: 0.32, p(ball) 0.99) does
    not; without its look the dark ball gets a track only once it has held still for ``rest_vouch_s``."""
    from calibration.table import TableModel
    from tracking.tracker import Tracker

    dt = 1.0 / 60.0
    balls = np.array([[500.0, 500.0], [1200.0, 700.0]])  # a clean ball, a dark ball
    hand = np.array([[2200.0, 900.0]])

    def run(look: bool) -> list[set[tuple[int, int]]]:
        tracker, seen = Tracker(TableModel()), []
        for i in range(90):
            pos, conf, p = balls, np.array([0.95, 0.35]), np.array([0.99, 0.98])
            if i >= 60:  # a second after the first frame
                pos, conf, p = np.vstack([balls, hand]), np.array([0.95, 0.35, 0.32]), np.array([0.99, 0.98, 0.99])
            tf = tracker.step(i, i * dt, pos, conf, look=p if look else None)
            seen.append({(round(b.pos[0]), round(b.pos[1])) for b in tf.balls})
        return seen

    judged, plain = run(True), run(False)
    assert judged[10] == judged[-1] == {(500, 500), (1200, 700)}
    assert plain[10] == {(500, 500)}
    assert plain[-1] == {(500, 500), (1200, 700)}  # held still for a second: a ball however weak its rim


def test_a_missing_model_falls_back_with_a_warning(tmp_path, capsys):
    assert load_ball_classifier(tmp_path / "none.onnx") is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ball classifier not used" in err
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    assert load_ball_classifier(bad) is None
    assert "ball classifier not used" in capsys.readouterr().err


def _paste(img: np.ndarray, crop: np.ndarray, centre: np.ndarray, r: float) -> None:
    """Lay what a real crop shows off its own cloth (a glove, a shirt, a pocket's hole) on a rendered table, at
    the scale the crop was cut (``SPAN_DIAMETERS`` of a ball of image radius ``r``)."""
    side = round(5 * r)
    big = cv2.resize(crop, (side, side), interpolation=cv2.INTER_LINEAR).astype(float)
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]).astype(float)
    mask = (np.linalg.norm(big - np.median(border, axis=0), axis=2) > 45).astype(np.float32)
    mask = cv2.GaussianBlur(mask, (3, 3), 0)[..., None]
    x0, y0 = int(centre[0] - side / 2), int(centre[1] - side / 2)
    roi = img[y0 : y0 + side, x0 : x0 + side].astype(float)
    img[y0 : y0 + side, x0 : x0 + side] = (roi * (1 - mask) + big * mask).astype(np.uint8)


def _non_ball(crops: dict[str, np.ndarray], frame: str) -> np.ndarray:
    """The real crop of a thing that is not a ball: one of crops.npz's (by its frame) or a PNG beside it."""
    if frame.endswith(".png"):
        return cv2.imread(str(DATA.parent / frame), cv2.IMREAD_COLOR)
    (k,) = np.flatnonzero((crops["frame"] == frame) & ~crops["ball"])
    return crops["crops"][k]


@pytest.mark.parametrize(
    ("frame", "what"),
    [("padova--game1_clip1@0", "a glove"), ("watch.png", "a wristwatch"),
     ("pool-overhead--2019_PoolChamp_Clip2@6", "a shirt badge"),
     ("pool-overhead--2019_PoolChamp_Clip1@2", "a pocket's hole")],
)  # fmt: skip
def test_the_detector_flags_a_non_ball_beside_balls_and_no_track_starts_on_it(crops, frame, what):
    pytest.importorskip("models.synth.balls")
    from tests.detect_support import render
    from vision.classical import ClassicalDetector

    rendered = render([(800.0, 600.0), (1500.0, 900.0), (2200.0, 500.0)], size=(1280, 720))
    plain = ClassicalDetector(rendered.calibration, ball_classifier=False).detect(rendered.image)
    assert len(plain.px) == 3
    r = float(np.median(plain.radius_px))
    img = rendered.image.copy()
    centre = rendered.px[0] + np.array([4 * r, 0.0])
    _paste(img, _non_ball(crops, frame), centre, r)

    def near(dets):
        return np.linalg.norm(dets.px - centre, axis=1) < 2 * r

    without = ClassicalDetector(rendered.calibration, ball_classifier=False).detect(img)
    assert near(without).any(), f"{what} pasted beside the balls is not even proposed"
    judged = ClassicalDetector(rendered.calibration, ball_classifier=True).detect(img)  # its threshold: the default
    assert near(judged).any() and judged.unlike_ball[near(judged)].all(), f"{what} not flagged: p(ball) too high"
    on_balls = np.linalg.norm(judged.px[:, None] - rendered.px[None], axis=2).min(axis=0) < r / 2
    assert on_balls.all(), "a rendered ball was dropped"
    at_ball = np.linalg.norm(judged.px[:, None] - rendered.px[None], axis=2).min(axis=1) < r / 2
    assert not judged.unlike_ball[at_ball].any(), "a rendered ball was flagged"

    from api.pipeline import Pipeline

    pipe = Pipeline(table=rendered.calibration.table, game="eight")
    for i in range(30):  # a second at 30 fps: the thing stays beside the balls
        pipe.step_detections(judged, i, i / 30)
    tracked = np.array([b.pos for b in pipe.last.balls]).reshape(-1, 2)
    thing = judged.pos_mm[near(judged)][0]
    assert len(tracked) == 3 and np.linalg.norm(tracked - thing, axis=1).min() > 40.0, f"{what} became a ball"


def test_a_ball_frozen_among_two_others_is_packed_and_a_lone_pair_is_not():
    from vision.ball_classifier import packed

    d = 57.15
    row = np.array([[0.0, 0.0], [d, 0.0], [2 * d, 0.0], [500.0, 500.0], [500.0 + d + 1.0, 500.0]])
    assert packed(row, d).tolist() == [False, True, False, False, False]
    tri = np.array([[0.0, 0.0], [d, 0.0], [d / 2, d * np.sqrt(3) / 2]])
    assert packed(tri, d).all()
    assert not packed(tri * 1.2, d).any()


def test_the_detector_uses_the_threshold_chosen_on_the_tuning_footage():
    from vision.classical import ClassicalSettings

    assert ClassicalSettings().ball_min_p == pytest.approx(THRESHOLD)


def test_the_detector_with_the_classifier_keeps_a_ball_hanging_in_a_pockets_jaws():
    """A real ball hanging in a corner pocket's jaws, laid into a rendered pocket's jaws: its crop shows the jaw
    rubber and the hole, and the network calls it no ball; past the mouth line the classifier does not judge, so
    the detector with the classifier keeps it with its own confidence (the tracker decides what is inside a pocket)."""
    pytest.importorskip("models.synth.balls")
    from calibration.table import TableModel
    from tests.detect_support import render
    from vision.classical import ClassicalDetector
    from vision.pockets import PocketInteriors

    table = TableModel()  # the table ``render`` draws
    # 0.8 radii past the mouth line of a corner pocket, on its axis: the ball's front is over the hole.
    jaw = table.pockets["pyramid-left"].point(0.8 * table.ball_radius_mm, 0.0)
    rendered = render([(800.0, 600.0), (1500.0, 900.0), (2200.0, 500.0), jaw], size=(1280, 720))
    cal = rendered.calibration
    t = cal.table
    r = float(np.median(ClassicalDetector(cal, ball_classifier=False).detect(rendered.image).radius_px))
    centre = rendered.px[3]  # the rendered ball there is covered by the real one and its pocket
    context = cv2.imread(str(DATA.parent / "jaw_ball.png"), cv2.IMREAD_COLOR)  # 8 ball radii square
    side = round(8 * r)
    x0, y0 = round(centre[0] - side / 2), round(centre[1] - side / 2)
    img = rendered.image.copy()
    img[y0 : y0 + side, x0 : x0 + side] = cv2.resize(context, (side, side), interpolation=cv2.INTER_LINEAR)

    plain = ClassicalDetector(cal, ball_classifier=False).detect(img)
    near = np.flatnonzero(np.linalg.norm(plain.px - centre, axis=1) < r)
    assert len(near) == 1, "the ball in the jaws is not even proposed"
    (k,) = near
    assert PocketInteriors(t).contains(plain.pos_mm[k : k + 1])[0]
    p = BallClassifier(DEFAULT_MODEL).predict(img, plain.px[k : k + 1], plain.radius_px[k : k + 1])[0]
    assert p < THRESHOLD, f"the network alone keeps it (p {p:.2f}): this test would not show the pocket rule"

    judged = ClassicalDetector(cal, ball_classifier=True).detect(img)
    kept = np.flatnonzero(np.linalg.norm(judged.px - centre, axis=1) < r)
    assert len(kept) == 1, "the ball in the pocket's jaws is gone"
    assert judged.confidence[kept[0]] == pytest.approx(plain.confidence[k])
    assert not judged.unlike_ball[kept[0]] and np.isnan(judged.p_ball[kept[0]]), "judged by its look in the jaws"
    on_balls = np.linalg.norm(judged.px[:, None] - rendered.px[None, :3], axis=2).min(axis=0) < r / 2
    assert on_balls.all(), "a rendered ball was dropped"


def test_proposals_inside_a_pocket_or_sure_by_geometry_are_not_flagged_and_no_confidence_is_lowered(model):
    from vision.ball_classifier import judge

    frame = np.full((200, 300, 3), 60, np.uint8)  # no ball anywhere: every proposal judged looks unlike one
    px = np.array([[50.0, 50.0], [150.0, 100.0], [250.0, 150.0], [150.0, 40.0]])

    assert np.all(model.predict(frame, px, np.full(4, 10.0)) < THRESHOLD)
    sure = np.array([False, False, False, True])
    unjudged = np.array([False, True, False, False])
    unlike, p = judge(model, frame, px, np.full(4, 10.0), THRESHOLD, sure, unjudged)
    assert unlike.tolist() == [True, False, True, False]
    assert np.isnan(p[1]) and np.all(p[[0, 2, 3]] < THRESHOLD)  # the one in a pocket's mouth is not judged


def test_a_clean_ball_is_not_shown_to_the_network():
    """A proposal as confident as ``ball_sure_confidence`` (a clean rim and vote peak) is neither flagged nor
    lifted past any confidence a track starts at by its look, so it is not judged: p(ball) NaN."""
    pytest.importorskip("models.synth.balls")
    from tests.detect_support import render
    from vision.classical import ClassicalDetector, ClassicalSettings

    rendered = render([(800.0, 600.0), (1500.0, 900.0), (2200.0, 500.0)], size=(1280, 720))
    judged = ClassicalDetector(rendered.calibration, ball_classifier=True).detect(rendered.image)
    clean = judged.confidence >= ClassicalSettings().ball_sure_confidence
    assert clean.sum() == 3
    assert np.isnan(judged.p_ball[clean]).all() and not judged.unlike_ball[clean].any()
