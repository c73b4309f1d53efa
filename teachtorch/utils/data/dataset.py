"""Datasets: what a DataLoader reads samples from.

A *map-style* dataset is anything with `__getitem__(i)` and `__len__()`: sample `i` of `len(dataset)`. An
*iterable-style* dataset is a stream: `__iter__()` yields samples one after another (for data you cannot
index, such as lines read from a socket). PyTorch's classes are the same and live in
torch/utils/data/dataset.py; they are plain Python there too.

    TensorDataset(x, y)          sample i is (x[i], y[i])
    Subset(dataset, indices)     sample i is dataset[indices[i]]
    ConcatDataset([a, b])        a's samples, then b's
    random_split(ds, [0.8, 0.2]) Subsets over a random permutation of the indices, sized by count or fraction
"""

import bisect
import math
import warnings

from ...ops.random import default_generator, randperm


class Dataset:
    """The base class of map-style datasets: subclasses define `__getitem__` (and usually `__len__`)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """The base class of iterable-style datasets: subclasses define `__iter__`, which yields samples."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Samples are slices of tensors along their first dimension: `dataset[i] == (x[i], y[i])`.

    Every tensor must have the same size in dimension 0 (the number of samples)."""

    def __init__(self, *tensors):
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            # PyTorch checks this with `assert`; the same AssertionError and text here
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order: `subset[i] == dataset[indices[i]]`."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        # The DataLoader asks for a whole batch at once when a dataset can give one (PyTorch does the same).
        if hasattr(self.dataset, "__getitems__"):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several map-style datasets one after another. `cumulative_sizes[k]` is where dataset k ends."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        # the first dataset whose end lies past idx holds it (a binary search over the ends)
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if dataset_idx == 0 else self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][idx - start]


def _lengths_from_fractions(fractions, n):
    """Fractions that sum to 1 as counts: floor(fraction * n) each, then the remainder one by one, round robin."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    remainder = n - sum(lengths)
    for i in range(remainder):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=default_generator):
    """Split `dataset` into non-overlapping random Subsets of the given `lengths` (counts, or fractions summing to 1).

    One random permutation of all indices is cut into consecutive pieces, as PyTorch does; pass
    `generator=teachtorch.Generator().manual_seed(s)` for the same split every time."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    subsets = []
    start = 0
    for length in lengths:
        subsets.append(Subset(dataset, indices[start:start + length]))
        start += length
    return subsets


__all__ = ["ConcatDataset", "Dataset", "IterableDataset", "Subset", "TensorDataset", "random_split"]
