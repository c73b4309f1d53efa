"""A stand-in for `cupyx` (CuPy's own extras) next to tests/fake_cupy.py: the scatter functions, which do what
NumPy's `ufunc.at` does (unbuffered: repeated indices all take part)."""

import numpy as _np

from fake_cupy import _plain


def scatter_add(a, slices, value):
    _np.add.at(_plain(a), _plain(slices), _plain(value))


def scatter_max(a, slices, value):
    _np.maximum.at(_plain(a), _plain(slices), _plain(value))


def scatter_min(a, slices, value):
    _np.minimum.at(_plain(a), _plain(slices), _plain(value))
