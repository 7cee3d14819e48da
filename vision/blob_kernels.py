"""Connected blobs of a binary mask, compiled: what ``cv2.connectedComponentsWithStats`` (8-connectivity)
gives for the blobs (not the background), in the order OpenCV labels them, at a fraction of its cost on the
sparse masks the classical detector labels (OpenCV visits every pixel for its statistics).

OpenCV's labelling (Bolelli's Spaghetti, like BBDT) scans the image in 2 x 2 blocks, row pair by row pair, and
numbers the blobs in the order their first block comes up. All the pixels of one block touch each other, so a
block belongs to one blob: ordering the blobs by their first block gives OpenCV's numbering.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def _root(parent: np.ndarray, a: int) -> int:
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@numba.njit(cache=True, nogil=True, inline="always")
def _union(parent: np.ndarray, a: int, b: int) -> int:
    ra = _root(parent, a)
    rb = _root(parent, b)
    if ra < rb:
        parent[rb] = ra
        return ra
    parent[ra] = rb
    return rb


@numba.njit(cache=True, nogil=True)
def _scan(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """One raster scan: the set pixels (x, y), each one's provisional label (1-based) and the union-find
    forest of the labels (``parent``; ``_root`` gives a label's blob), and the number of labels."""
    h, w = mask.shape
    # Provisional labels of the previous and the current row, shifted by one (index 0 and w + 1 stay 0).
    prev = np.zeros(w + 2, np.int32)
    cur = np.zeros(w + 2, np.int32)
    cap = 256
    pix_x = np.empty(cap, np.int32)
    pix_y = np.empty(cap, np.int32)
    pix_l = np.empty(cap, np.int32)
    parent = np.empty(cap + 1, np.int32)
    n_pix = 0
    n_prov = 0
    for y in range(h):
        row = mask[y]
        cur[:] = 0
        for x in range(w):
            if row[x] == 0:
                continue
            lab = cur[x]  # left
            for other in (prev[x], prev[x + 1], prev[x + 2]):  # up-left, up, up-right
                if other:
                    lab = other if lab == 0 else _union(parent, lab, other)
            if lab == 0:
                n_prov += 1
                if n_prov >= parent.shape[0]:
                    grown = np.empty(parent.shape[0] * 2, np.int32)
                    grown[: parent.shape[0]] = parent
                    parent = grown
                parent[n_prov] = n_prov
                lab = n_prov
            cur[x + 1] = lab
            if n_pix == pix_x.shape[0]:
                pix_x = np.concatenate((pix_x, np.empty(n_pix, np.int32)))
                pix_y = np.concatenate((pix_y, np.empty(n_pix, np.int32)))
                pix_l = np.concatenate((pix_l, np.empty(n_pix, np.int32)))
            pix_x[n_pix] = x
            pix_y[n_pix] = y
            pix_l[n_pix] = lab
            n_pix += 1
        prev, cur = cur, prev
    return pix_x[:n_pix], pix_y[:n_pix], pix_l[:n_pix], parent, n_prov


@numba.njit(cache=True, nogil=True)
def _blobs(mask: np.ndarray, want_labels: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``blob_stats``, and the label image (uint16, 0: background; empty unless ``want_labels``)."""
    h, w = mask.shape
    pix_x, pix_y, pix_l, parent, n_prov = _scan(mask)
    n_pix = pix_x.shape[0]
    # Each blob: its first 2 x 2 block in OpenCV's scan order, bounding box, area and coordinate sums.
    bw = (w + 1) // 2
    first = np.full(n_prov + 1, np.iinfo(np.int64).max, np.int64)
    x0 = np.full(n_prov + 1, w, np.int32)
    y0 = np.full(n_prov + 1, h, np.int32)
    x1 = np.full(n_prov + 1, -1, np.int32)
    y1 = np.full(n_prov + 1, -1, np.int32)
    area = np.zeros(n_prov + 1, np.int64)
    sx = np.zeros(n_prov + 1)
    sy = np.zeros(n_prov + 1)
    for p in range(n_pix):
        x = pix_x[p]
        y = pix_y[p]
        r = _root(parent, pix_l[p])
        pix_l[p] = r
        key = (y // 2) * bw + x // 2
        if key < first[r]:
            first[r] = key
        x0[r] = min(x0[r], x)
        x1[r] = max(x1[r], x)
        y0[r] = min(y0[r], y)
        y1[r] = max(y1[r], y)
        area[r] += 1
        sx[r] += x
        sy[r] += y
    roots = np.flatnonzero(area)
    order = roots[np.argsort(first[roots])]
    n = order.shape[0]
    stats = np.empty((n, 5), np.int32)
    cents = np.empty((n, 2))
    final = np.zeros(n_prov + 1, np.int32)
    for i in range(n):
        r = order[i]
        final[r] = i + 1
        stats[i, 0] = x0[r]
        stats[i, 1] = y0[r]
        stats[i, 2] = x1[r] - x0[r] + 1
        stats[i, 3] = y1[r] - y0[r] + 1
        stats[i, 4] = area[r]
        cents[i, 0] = sx[r] / area[r]
        cents[i, 1] = sy[r] / area[r]
    if not want_labels:
        return np.zeros((0, 0), np.uint16), stats, cents
    labels = np.zeros((h, w), np.uint16)
    for p in range(n_pix):
        labels[pix_y[p], pix_x[p]] = final[pix_l[p]]
    return labels, stats, cents


@numba.njit(cache=True, nogil=True)
def blob_stats(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Statistics (n, 5) int32 — left, top, width, height, area, as ``cv2.CC_STAT_*`` — and centroids
    (n, 2) float64 (x, y) of the 8-connected blobs of the non-zero pixels of ``mask`` (2-D uint8), in
    OpenCV's label order (label 1 first; the background's row is not included)."""
    _, stats, cents = _blobs(mask, False)
    return stats, cents


@numba.njit(cache=True, nogil=True)
def blob_labels(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``blob_stats`` and the label image (uint16, as ``cv2.connectedComponents`` with ``cv2.CV_16U``: 0 for
    the background, blob ``i`` of the statistics labelled ``i + 1``). At most 65535 blobs."""
    return _blobs(mask, True)
