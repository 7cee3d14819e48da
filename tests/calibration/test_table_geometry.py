"""The table model against numbers worked out by hand from the rule texts (000 = Cluster, 001 = federation).

Default table: L = 3569, W = 1778 (000 1.1), D = 68 (001 2.1.12 calls 68 mm the ball diameter), corner
mouth 73, middle mouth 83.
"""

from __future__ import annotations

import itertools
import math

import pytest

from calibration.table import TableModel, TableSpec, TableSpecError

T = TableModel()
L, W, D, R = 3569.0, 1778.0, 68.0, 34.0
C = 73.0 / math.sqrt(2.0)  # corner-pocket jaw tips sit 51.619 mm from the corner along each nose line


def test_lines_and_spots_000_2_1() -> None:
    # 000 2.1: the centre line halves the field; the house line halves the house half; the pyramid spot is
    # the centre of the pyramid half.
    assert T.lines["center"].value_mm == pytest.approx(1784.5)
    assert T.lines["house"].value_mm == pytest.approx(892.25)
    assert T.lines["long"].value_mm == pytest.approx(889.0)
    assert T.spots["pyramid"] == pytest.approx((2676.75, 889.0))
    assert T.spots["front"] == pytest.approx((892.25, 889.0))
    assert T.spots["center"] == pytest.approx((1784.5, 889.0))


def test_house_line_belongs_outside_001_2_1_6() -> None:
    assert T.in_house((892.25 - 1.6, 400.0))
    assert not T.in_house((892.25, 400.0))  # exactly on the line: outside
    assert not T.in_house((892.25 - 1.4, 400.0))  # within the 1.5 mm line tolerance: on the line
    assert not T.in_house((900.0, 400.0))
    assert not T.in_house((-5.0, 400.0))  # off the table


def test_centre_line_tie_goes_away_from_striker_001_2_1_6() -> None:
    on = (1784.5, 700.0)
    assert T.half(on, striker_half="house") == "pyramid"
    assert T.half(on, striker_half="pyramid") == "house"
    assert T.half((1784.5 - 1.6, 700.0), striker_half="house") == "house"
    assert T.half((1784.5 + 1.6, 700.0), striker_half="pyramid") == "pyramid"
    assert T.side((100.0, 889.0)) == "on"
    assert T.side((100.0, 887.0)) == "left"
    assert T.side((100.0, 891.0)) == "right"


def test_cushion_segments_and_pockets() -> None:
    cu = T.cushions
    assert cu["house"].start == pytest.approx((0.0, C)) and cu["house"].end == pytest.approx((0.0, W - C))
    assert cu["left-house"].end == pytest.approx((1784.5 - 41.5, 0.0))
    assert cu["left-pyramid"].start == pytest.approx((1784.5 + 41.5, 0.0))
    assert cu["left-house"].length_mm == pytest.approx(1743.0 - C)
    pk = T.pockets["house-left"]
    assert math.dist(pk.jaws[0].tip, pk.jaws[1].tip) == pytest.approx(73.0)
    assert pk.mouth_center == pytest.approx((C / 2, C / 2))
    assert T.pockets["middle-right"].mouth_center == pytest.approx((1784.5, W))
    assert T.pockets["middle-right"].outward == pytest.approx((0.0, 1.0))
    q = pk.point(12.0, -1.5)  # the pocket's own frame, inverted
    assert (pk.depth(q), pk.lateral(q)) == pytest.approx((12.0, -1.5))
    # A centre in the mouth of the middle pocket, and one a radius short of it.
    assert T.in_pocket_mouth((1784.5 + 41.0, 10.0)) == "middle-left"
    assert T.in_pocket_mouth((1784.5, R + 0.5)) is None
    assert T.in_pocket_mouth((C / 2 + 5.0, C / 2 + 5.0)) == "house-left"


def test_jaw_tips_are_rounded() -> None:
    """A jaw meets the cushion nose in an arc of D / 10 = 6.8 mm, tangent to both: a ball slanting past the
    right-angled tip of a middle pocket clears the sharp corner by r * (sqrt(2) - 1) = 2.82 mm more, past a
    corner pocket's 135-degree tip by r * (1 / sin(67.5 deg) - 1) = 0.56 mm more."""
    r = 6.8
    jaw = T.pockets["middle-left"].jaws[0]  # the face x = 1743 from the tip (1743, 0) into the pocket
    assert jaw.tip == pytest.approx((1743.0, 0.0)) and jaw.tip_radius == pytest.approx(r)
    assert jaw.tip_centre == pytest.approx((1743.0 - r, -r))
    diag = (1 / math.sqrt(2.0), 1 / math.sqrt(2.0))
    p = (1743.0 - r + (R + r) * diag[0], -r + (R + r) * diag[1])  # a centre touching the arc at 45 degrees
    assert jaw.distance(p) == pytest.approx(R)
    assert math.dist(p, jaw.tip) == pytest.approx(R - r * (math.sqrt(2.0) - 1.0))
    # on the straight face below the arc, and at the nose line's end of the arc
    assert jaw.distance((1743.0 + R, -30.0)) == pytest.approx(R)
    assert jaw.closest_point((1743.0 - r, 40.0)) == pytest.approx((1743.0 - r, 0.0))
    corner = T.pockets["house-left"].jaws[0]  # on the left long cushion, tip (C, 0)
    clear = r * (1 / math.sin(math.radians(67.5)) - 1.0)
    assert clear == pytest.approx(0.560, abs=1e-3)
    ux, uy = corner.tip_centre[0] - corner.tip[0], corner.tip_centre[1] - corner.tip[1]
    u = math.hypot(ux, uy)
    assert u == pytest.approx(r + clear)  # the tip lies on the wedge's bisector, r + clear from the centre
    q = (corner.tip[0] - ux / u * R, corner.tip[1] - uy / u * R)  # R from the sharp tip, along the bisector
    assert corner.distance(q) == pytest.approx(R + clear)
    # the cushions' flat noses end where the arcs meet them: r * tan(22.5 deg) = 2.82 mm short of a corner
    # pocket's tip, r short of a middle pocket's
    lo, hi = T.cushion_flats["left-house"]
    assert lo == pytest.approx(r * math.tan(math.radians(22.5))) and hi == pytest.approx(1743.0 - C - r)
    sharp = TableModel(TableSpec(jaw_tip_radius_mm=0.0)).pockets["house-left"].jaws[0]
    assert sharp.tip_centre is None and sharp.distance(q) == pytest.approx(R)


def test_pocket_zone_68_mm_001_2_1_12() -> None:
    # "touches the cushion in the pocket zone: 68 mm (a ball diameter) from the jaw along the cushion".
    tip_x = C  # left-house starts at the house-left jaw tip
    assert T.cushion_pocket_zone("left-house", (tip_x + 67.9, 0.0)) == "house-left"
    assert T.cushion_pocket_zone("left-house", (tip_x + 68.1, 0.0)) is None
    end_x = 1784.5 - 41.5  # and ends at the middle pocket's jaw tip
    assert T.cushion_pocket_zone("left-house", (end_x - 67.9, 0.0)) == "middle-left"
    assert T.cushion_pocket_zone("left-house", (end_x - 68.1, 0.0)) is None


def test_result_sector_136_mm_001_2_1_12() -> None:
    # Centre at most two diameters (136 mm) from the pocket edge, measured to the centre.
    mid = T.pockets["middle-left"]
    assert T.in_result_sector((1784.5, 135.9)) == mid.name
    assert T.in_result_sector((1784.5, 136.1)) is None
    # Straight out from the corner pocket's mouth along its axis.
    s = 1 / math.sqrt(2)
    mc = T.pockets["pyramid-right"].mouth_center
    inward = (-T.pockets["pyramid-right"].outward[0], -T.pockets["pyramid-right"].outward[1])
    assert inward == pytest.approx((-s, -s))
    assert T.in_result_sector((mc[0] + 135.0 * inward[0], mc[1] + 135.0 * inward[1])) == "pyramid-right"
    assert T.in_result_sector((mc[0] + 137.0 * inward[0], mc[1] + 137.0 * inward[1])) is None
    # Outside the 45-degree wedge: 100 mm in front of the middle mouth but 150 mm to the side of its edge.
    assert T.in_result_sector((1784.5 + 41.5 + 150.0, 100.0)) is None


def test_attack_marks_000_2_1_by_hand() -> None:
    # Corner pocket house-left, cushion "house": the drop point is R beyond the mouth centre along the axis:
    # (C/2 - R/sqrt2, C/2 - R/sqrt2) = (1.768, 1.768). The second ball (centre R off the nose, touching the
    # first) sits at y with (R - 1.768)^2 + (y - 1.768)^2 = D^2 -> y = 1.768 + 59.876 = 61.644, i.e.
    # 10.025 mm past the jaw tip (y = C = 51.619); the mark at its far edge is 10.025 + 34 = 44.025 mm
    # from the tip.
    drop = C / 2 - R / math.sqrt(2)
    y2 = drop + math.sqrt(D * D - (R - drop) ** 2)
    assert y2 == pytest.approx(61.644, abs=1e-3)
    m = T.attack_marks[("house-left", "house")]
    assert m.along_from_tip_mm == pytest.approx(44.025, abs=1e-3)
    assert m.point == pytest.approx((0.0, C + 44.025), abs=1e-3)
    assert math.dist((R, y2), T.pockets["house-left"].drop_point) == pytest.approx(D)
    # By symmetry the same distance on the long cushion and at every corner.
    for pk, cu in [("house-left", "left-house"), ("pyramid-right", "pyramid"), ("pyramid-right", "right-pyramid")]:
        assert T.attack_marks[(pk, cu)].along_from_tip_mm == pytest.approx(44.025, abs=1e-3)
    # Middle pocket: its drop point is R behind the nose line, so a ball touching it and the cushion would
    # sit in the mouth; the second ball rests at the jaw tip and the mark is R from the tip.
    assert T.attack_marks[("middle-left", "left-house")].along_from_tip_mm == pytest.approx(34.0)
    assert T.attack_marks[("middle-left", "left-house")].point == pytest.approx((1784.5 - 41.5 - 34.0, 0.0))
    # The attack zone of a cushion runs from the jaw tip to the mark.
    assert T.in_attack_zone_cushion("house", (0.0, C + 44.0)) == "house-left"
    assert T.in_attack_zone_cushion("house", (0.0, C + 44.1)) is None
    assert T.in_attack_zone_cushion("house", (0.0, W - C - 44.0)) == "house-right"


def test_attack_mark_override_replaces_geometry() -> None:
    t = TableModel(TableSpec(attack_mark_overrides=(("house-left", "house", 80.0),)))
    m = t.attack_marks[("house-left", "house")]
    assert m.measured and m.along_from_tip_mm == 80.0
    assert m.point == pytest.approx((0.0, C + 80.0))
    assert not t.attack_marks[("house-right", "house")].measured
    with pytest.raises(TableSpecError):
        TableSpec(attack_mark_overrides=(("house-left", "nowhere", 80.0),))


def test_passive_zones_000_2_1() -> None:
    # The imaginary line from the house cushion's centre (0, W/2) to the middle pocket's centre (L/2, 0)
    # crosses x = L/4 at y = W/4 = 444.5.
    assert T.passive_zone_at((892.25, 444.0)) == "left-house"
    assert T.passive_zone_at((892.25, 445.0)) is None
    assert T.passive_zone_at((892.25, W - 444.0)) == "right-house"
    assert T.passive_zone_at((3 * L / 4, 444.0)) == "left-pyramid"
    assert T.passive_zone_at((3 * L / 4, W - 100.0)) == "right-pyramid"
    assert T.passive_zone_at((1784.5, 889.0)) is None
    assert T.passive_zone_pocket("right-pyramid") == "middle-right"


def test_frozen_predicates() -> None:
    # Frozen to a cushion: centre within R + 1 mm of the nose (digest 1).
    assert T.frozen_to_cushion((600.0, R + 1.0)) == "left-house"
    assert T.frozen_to_cushion((600.0, R + 1.1)) is None
    assert T.frozen_to_cushion((L - R, 900.0)) == "pyramid"
    assert T.frozen_to_cushion((2600.0, W - R)) == "right-pyramid"
    # Two balls: centres within D + 1 mm.
    assert T.frozen_together((1000.0, 500.0), (1000.0 + 69.0, 500.0))
    assert not T.frozen_together((1000.0, 500.0), (1000.0 + 69.1, 500.0))
    name, dist = T.nearest_cushion((200.0, 150.0))
    assert name == "left-house" and dist == pytest.approx(150.0)
    # 001 2.1.10: a ball frozen beside a corner pocket with its centre at or past the jaw-arc midpoint
    # (20 mm past the tip, by default) counts as in the pocket.
    assert T.frozen_ball_in_pocket((C - 20.0, R)) == "house-left"
    assert T.frozen_ball_in_pocket((C - 19.0, R)) is None
    assert T.frozen_ball_in_pocket((1784.5 - 41.5 + 25.0, R)) is None  # middle pockets are not corner pockets


def test_rack_positions_001_2_1_3() -> None:
    rack = T.rack_positions()
    assert len(rack) == 15
    assert rack[0] == pytest.approx((2676.75, 889.0))  # apex on the back spot
    assert rack[-1] == pytest.approx((2676.75 + 4 * D * math.sqrt(3) / 2, 889.0 + 2 * D))
    assert rack[10] == pytest.approx((2912.31, 889.0 - 2 * D), abs=0.01)
    dists = [math.dist(a, b) for a, b in itertools.combinations(rack, 2)]
    assert min(dists) == pytest.approx(D)  # frozen together, none overlapping
    assert sum(1 for d in dists if abs(d - D) < 1e-6) == 30  # 30 touching pairs in a 15-ball triangle
    assert max(x for x, _ in rack) + R < L


def test_spec_limits() -> None:
    with pytest.raises(TableSpecError):
        TableSpec(length_mm=4000.0)
    with pytest.raises(TableSpecError):
        TableSpec(ball_diameter_mm=80.0)
    pool = TableModel(TableSpec(length_mm=2540.0, width_mm=1270.0, ball_diameter_mm=57.15))
    assert not pool.spec.is_regulation and T.spec.is_regulation
    assert pool.spots["pyramid"] == pytest.approx((1905.0, 635.0))
