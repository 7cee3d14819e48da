"""The compiled blob labelling (``vision.blob_kernels``) gives OpenCV's 8-connected components: the same
statistics, centroids and label image, numbered in the same order."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.blob_kernels import blob_labels, blob_stats


def _opencv(mask: np.ndarray):
    _, labels, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_16U, cv2.CCL_BOLELLI)
    return labels, stats[1:], cents[1:]


def _masks():
    rng = np.random.default_rng(3)
    for k in range(120):
        h, w = (int(v) for v in rng.integers(1, 70, 2))
        mask = np.where(rng.uniform(0, 1, (h, w)) < rng.choice([0.03, 0.2, 0.45, 0.6, 0.9]), 255, 0).astype(np.uint8)
        if k % 3 == 0:  # blobs the size of balls, touching and merging
            mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        yield mask
    yield np.zeros((5, 9), np.uint8)
    yield np.full((1, 1), 255, np.uint8)
    # A spiral and a comb: blobs that join only late in the scan, after many provisional labels.
    comb = np.zeros((40, 61), np.uint8)
    comb[:, ::2] = 255
    comb[-1] = 255
    yield comb
    yield np.ascontiguousarray(comb[::-1])


@pytest.mark.parametrize("mask", list(_masks()), ids=lambda m: f"{m.shape[0]}x{m.shape[1]}")
def test_blobs_are_opencvs(mask):
    labels, stats, cents = _opencv(mask)
    got_stats, got_cents = blob_stats(mask)
    np.testing.assert_array_equal(got_stats, stats)
    np.testing.assert_array_equal(got_cents, cents)
    got_labels, got_stats2, _ = blob_labels(mask)
    assert got_labels.dtype == np.uint16
    np.testing.assert_array_equal(got_labels, labels)
    np.testing.assert_array_equal(got_stats2, stats)
    assert len(stats) == int(labels.max())


def test_comb_is_one_blob_and_the_cloth_none():
    comb = np.zeros((40, 61), np.uint8)
    comb[:, ::2] = 255
    comb[-1] = 255
    stats, cents = blob_stats(comb)
    assert stats.tolist() == [[0, 0, 61, 40, int(np.count_nonzero(comb))]]
    assert cents.shape == (1, 2) and 0 < cents[0, 0] < 60 and 0 < cents[0, 1] < 39
    assert blob_stats(np.zeros((4, 4), np.uint8))[0].shape == (0, 5)
