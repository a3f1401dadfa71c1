"""Candidate search and closest-point projection onto master segments.

Candidates come from a KD-tree over segment midpoints (``O(n log n)``), so no
all-pairs distance matrix is ever formed.  Among the candidates of a slave node
the segment with the smallest distance to its (clamped) closest point wins;
this switches segments automatically as the node slides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree


@dataclass(frozen=True)
class Projection:
    """Closest master segment of each slave node.

    Attributes
    ----------
    segment : ndarray of int, shape (m,)
        Index into the master segments.
    xi : ndarray, shape (m,)
        Unclamped parametric coordinate on that segment.
    distance : ndarray, shape (m,)
        Distance to the clamped closest point.
    """

    segment: np.ndarray
    xi: np.ndarray
    distance: np.ndarray


def closest_segments(x_slave: np.ndarray, x_a: np.ndarray, x_b: np.ndarray,
                     n_candidates: int = 8) -> Projection:
    """Project slave nodes onto the closest of a set of straight segments.

    Parameters
    ----------
    x_slave : ndarray, shape (m, 2)
    x_a, x_b : ndarray, shape (n_seg, 2)
        Segment end points.
    n_candidates : int
        Nearest segment midpoints examined per slave node.
    """
    n_seg = x_a.shape[0]
    k = min(n_candidates, n_seg)
    tree = cKDTree(0.5 * (x_a + x_b))
    _, cand = tree.query(x_slave, k=k)
    cand = cand.reshape(x_slave.shape[0], k)
    a, b = x_a[cand], x_b[cand]                      # (m, k, 2)
    t = b - a
    d = x_slave[:, None, :] - a
    xi = np.einsum("mki,mki->mk", d, t) / np.einsum("mki,mki->mk", t, t)
    closest = a + np.clip(xi, 0.0, 1.0)[..., None] * t
    dist = np.linalg.norm(x_slave[:, None, :] - closest, axis=2)
    # prefer a segment whose interior holds the projection when distances tie
    outside = np.maximum(np.maximum(-xi, xi - 1.0), 0.0)
    length = np.sqrt(np.einsum("mki,mki->mk", t, t))
    best = np.argmin(dist + 1e-9 * length * (outside > 0), axis=1)
    rows = np.arange(x_slave.shape[0])
    return Projection(cand[rows, best], xi[rows, best], dist[rows, best])
