"""Samplers: the order in which a DataLoader visits a dataset's indices.

A sampler is an iterable of indices (`SequentialSampler`: 0, 1, 2, ...; `RandomSampler`: a fresh random
permutation every time it is iterated, i.e. every epoch; `WeightedRandomSampler`: indices drawn with given
probabilities). A `BatchSampler` groups another sampler's indices into lists of `batch_size`. The
DataLoader is these pieces put together:

    for indices in BatchSampler(RandomSampler(dataset), batch_size=32, drop_last=False):
        batch = collate_fn([dataset[i] for i in indices])

PyTorch's classes (torch/utils/data/sampler.py) are the same, and so is *when* they draw: the samplers are
generators that draw as they go. `RandomSampler(data, replacement=True, num_samples=10**10)` would need
80 GB for all its indices at once; it draws them 32 at a time instead, so taking the first hundred costs
almost nothing. A permutation is drawn one pass over the data at a time. `WeightedRandomSampler` draws all
its `num_samples` at once, with one `multinomial`, as PyTorch's does.

Random orders come from teachtorch's generator (NumPy's PCG64), so they are not PyTorch's orders, bit for
bit, even with the same seed; a seeded generator still gives the same order every run, and the same draws
(`randint` 32 at a time, `randperm` per pass, one `multinomial`) as PyTorch makes.
"""

import itertools

from ... import _dtype
from ...ops.factories import empty
from ...ops.tensor_new import as_tensor
from ...ops.random import Generator, multinomial, randint, randperm


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
            # 32 at a time, never all num_samples at once: a huge num_samples costs nothing until it is read
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), dtype=_dtype.int64, generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), dtype=_dtype.int64,
                               generator=generator).tolist()
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


class WeightedRandomSampler(Sampler):
    """`num_samples` indices of `weights`, index i drawn with probability weights[i] / sum(weights) (the
    weights need not sum to 1); without replacement, an index is drawn at most once."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=_dtype.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        # one multinomial for all num_samples (as in PyTorch): without replacement the draws depend on each other
        rand_tensor = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self):
        return self.num_samples


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
        # streams: a batch is read from the sampler only when it is asked for
        sampler_iter = iter(self.sampler)
        batch = list(itertools.islice(sampler_iter, self.batch_size))
        while len(batch) == self.batch_size or (batch and not self.drop_last):
            yield batch
            batch = list(itertools.islice(sampler_iter, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size   # rounded up


__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]
