"""The handwritten digits: 1797 images of 8x8 pixels, labels 0 to 9.

They are the test set of the UCI "optdigits" data (E. Alpaydin and C. Kaynak, 1998; written by 13 people:
https://archive.ics.uci.edu/dataset/80, CC BY 4.0). teachtorch ships them as `data/digits.csv.gz`, the same
57 KB file scikit-learn bundles and `sklearn.datasets.load_digits` reads (64 ink counts 0..16 and the label
on each line), so nothing is downloaded and a student's install needs no scikit-learn.

The images come as PyTorch's image layout, (N, C, H, W) = (1797, 1, 8, 8), float32 scaled from the 0..16 ink
counts to [0, 1]; `nn.Flatten()` turns them into the 64 inputs of an MLP. The labels are int64, the dtype
`cross_entropy` wants for class indices.

A random 80/20 split mixes every writer into both halves, which flatters every model a little: say which split
you report. `digits_split(seed)` is fixed by its seed on every machine (NumPy's `default_rng(seed)`).
"""

from pathlib import Path

import numpy as np

from ..ops.tensor_new import from_numpy
from ..utils.data import TensorDataset

DIGITS_FILE = Path(__file__).resolve().parent / "data" / "digits.csv.gz"


def _digits_arrays():
    table = np.loadtxt(DIGITS_FILE, delimiter=",", dtype=np.float64)       # (1797, 65): pixels, then label
    images = np.ascontiguousarray(table[:, :64].reshape(-1, 1, 8, 8) / 16.0, dtype=np.float32)  # in [0, 1]
    labels = np.ascontiguousarray(table[:, 64], dtype=np.int64)
    return images, labels


def load_digits():
    """(images, labels): float32 images of shape (1797, 1, 8, 8) in [0, 1] and int64 labels of shape (1797,)."""
    images, labels = _digits_arrays()
    return from_numpy(images), from_numpy(labels)


def digits_split(seed=0, train_fraction=0.8):
    """(train, test) TensorDatasets of (image, label): a fixed random split, 1437 / 360 images by default."""
    images, labels = _digits_arrays()
    order = np.random.default_rng(seed).permutation(len(labels))
    n_train = int(train_fraction * len(labels))
    train, test = order[:n_train], order[n_train:]
    return (TensorDataset(from_numpy(images[train]), from_numpy(labels[train])),
            TensorDataset(from_numpy(images[test]), from_numpy(labels[test])))
