"""Two small 2-D classification sets, generated with NumPy: two interleaved half moons, and K spiral arms.

Both are the classic first data sets for a classifier whose decision boundary you can draw: a straight line
cannot separate the classes, a small MLP can. `make_moons` follows scikit-learn's `make_moons` (without
needing scikit-learn); `make_spirals` is the K-arm spiral of Stanford's CS231n notes. Points come shuffled,
as float32 (n, 2) coordinates and int64 (n,) class labels, fixed by `seed`.
"""

import numpy as np

from ..ops.tensor_new import from_numpy


def _shuffled(points, labels, rng):
    order = rng.permutation(len(labels))
    return (from_numpy(np.ascontiguousarray(points[order], dtype=np.float32)),
            from_numpy(np.ascontiguousarray(labels[order], dtype=np.int64)))


def make_moons(n=200, noise=0.1, seed=0):
    """(points, labels): `n` points on two interleaved half circles (class 0 on top, class 1 below), plus
    Gaussian noise of standard deviation `noise`."""
    rng = np.random.default_rng(seed)
    n_outer = n // 2
    n_inner = n - n_outer
    t_outer = np.linspace(0, np.pi, n_outer)
    t_inner = np.linspace(0, np.pi, n_inner)
    outer = np.stack([np.cos(t_outer), np.sin(t_outer)], axis=1)               # the upper half circle
    inner = np.stack([1 - np.cos(t_inner), 0.5 - np.sin(t_inner)], axis=1)     # the lower one, shifted right
    points = np.concatenate([outer, inner]) + rng.normal(scale=noise, size=(n, 2))
    labels = np.concatenate([np.zeros(n_outer), np.ones(n_inner)])
    return _shuffled(points, labels, rng)


def make_spirals(n=300, classes=3, noise=0.2, seed=0):
    """(points, labels): `n` points on `classes` spiral arms around the origin (as even as `n` allows); each
    point's angle is jittered by Gaussian noise of standard deviation `noise` (radians)."""
    rng = np.random.default_rng(seed)
    points, labels = [], []
    for k in range(classes):
        m = n // classes + (1 if k < n % classes else 0)     # the first n % classes arms get one point more
        radius = np.linspace(0.0, 1.0, m)
        angle = np.linspace(4.0 * k, 4.0 * (k + 1), m) + rng.normal(scale=noise, size=m)
        points.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1))
        labels.append(np.full(m, k))
    return _shuffled(np.concatenate(points), np.concatenate(labels), rng)
