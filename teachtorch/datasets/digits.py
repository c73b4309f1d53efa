"""The handwritten digits that ship inside scikit-learn: 1797 images of 8x8 pixels, labels 0 to 9.

They are the test set of the UCI "optdigits" data (written by 13 people), stored in the scikit-learn wheel as
`digits.csv.gz`; `sklearn.datasets.load_digits` reads that file and never downloads. scikit-learn is an
optional dependency (the `lab` extra), so it is imported only when the digits are asked for.

The images come as PyTorch's image layout, (N, C, H, W) = (1797, 1, 8, 8), float32 scaled from the 0..16 ink
counts to [0, 1]; `nn.Flatten()` turns them into the 64 inputs of an MLP. The labels are int64, the dtype
`cross_entropy` wants for class indices.

A random 80/20 split mixes every writer into both halves, which flatters every model a little: say which split
you report. `digits_split(seed)` is fixed by its seed on every machine (NumPy's `default_rng(seed)`).
"""

import numpy as np

from ..ops.tensor_new import from_numpy
from ..utils.data import TensorDataset


def _sklearn_digits():
    try:
        from sklearn.datasets import load_digits as sklearn_load_digits
    except ImportError:
        raise ImportError("teachtorch.datasets.load_digits reads the digits bundled with scikit-learn, which is not "
                          "installed: `pip install scikit-learn` (or `pip install teachtorch[lab]`)") from None
    bunch = sklearn_load_digits()
    images = np.ascontiguousarray(bunch.images[:, None, :, :] / 16.0, dtype=np.float32)   # (N, 1, 8, 8) in [0, 1]
    labels = np.ascontiguousarray(bunch.target, dtype=np.int64)
    return images, labels


def load_digits():
    """(images, labels): float32 images of shape (1797, 1, 8, 8) in [0, 1] and int64 labels of shape (1797,)."""
    images, labels = _sklearn_digits()
    return from_numpy(images), from_numpy(labels)


def digits_split(seed=0, train_fraction=0.8):
    """(train, test) TensorDatasets of (image, label): a fixed random split, 1437 / 360 images by default."""
    images, labels = _sklearn_digits()
    order = np.random.default_rng(seed).permutation(len(labels))
    n_train = int(train_fraction * len(labels))
    train, test = order[:n_train], order[n_train:]
    return (TensorDataset(from_numpy(images[train]), from_numpy(labels[train])),
            TensorDataset(from_numpy(images[test]), from_numpy(labels[test])))
