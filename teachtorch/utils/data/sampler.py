"""Samplers: the order in which a DataLoader visits a dataset's indices.

A sampler is an iterable of indices (`SequentialSampler`: 0, 1, 2, ...; `RandomSampler`: a fresh random
permutation every time it is iterated, i.e. every epoch). A `BatchSampler` groups another sampler's indices
into lists of `batch_size`. The DataLoader is these pieces put together:

    for indices in BatchSampler(RandomSampler(dataset), batch_size=32, drop_last=False):
        batch = collate_fn([dataset[i] for i in indices])

PyTorch's classes (torch/utils/data/sampler.py) are the same. Random orders come from teachtorch's generator
(NumPy's PCG64), so they are not PyTorch's orders, bit for bit, even with the same seed; a seeded generator
still gives the same order every run.
"""

from ... import _dtype
from ...ops.factories import empty
from ...ops.random import Generator, randint, randperm


class Sampler:
    """The base class: subclasses define `__iter__` (yielding indices) and usually `__len__`."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1, in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, a new one at every iteration (without replacement), or
    `num_samples` indices drawn with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            # Seeded from the default generator, so `teachtorch.manual_seed(s)` fixes the order (as in PyTorch).
            seed = int(empty((), dtype=_dtype.int64).random_().item())
            generator = Generator().manual_seed(seed)
        if self.replacement:
            yield from randint(high=n, size=(self.num_samples,), dtype=_dtype.int64, generator=generator).tolist()
        else:
            # whole permutations, then the first few indices of one more if num_samples is not a multiple of n
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order (a new one at every iteration)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size`; the last, shorter list is dropped if
    `drop_last`."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size   # rounded up


__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler"]
