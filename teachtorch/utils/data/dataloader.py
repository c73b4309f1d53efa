"""DataLoader: iterate over a dataset in batches.

A DataLoader is three small pieces put together (PyTorch's torch/utils/data/dataloader.py does the same):

    sampler        which indices, in which order       SequentialSampler, or RandomSampler if shuffle=True
    batch_sampler  groups them into batches             BatchSampler(sampler, batch_size, drop_last)
    collate_fn     merges one batch of samples          default_collate: stacks tensors, ...

so that one epoch is

    for indices in batch_sampler:
        yield collate_fn([dataset[i] for i in indices])

Each `for batch in loader:` starts a new epoch: a RandomSampler draws a new permutation, so a shuffled loader
visits the data in a different order every epoch (and in the same orders every run when it has a seeded
`generator=teachtorch.Generator().manual_seed(s)`).

What is left out: PyTorch can load batches in worker processes (`num_workers > 0`) and pin memory for fast
copies to a GPU. teachtorch loads in the main process only; `num_workers > 0` warns and loads there.

One shortcut: for a `TensorDataset` with the default collate function, a batch is gathered with one
advanced-indexing op per tensor (`x[indices]`) instead of `batch_size` reads and a `stack`. The batch is the
same (values, dtype, shape); it costs 2 ops instead of 2 * batch_size + 2.
"""

import math
import warnings

from ... import _dtype
from ...ops.tensor_new import tensor
from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler


class DataLoader:
    """Iterate over `dataset` in batches of `batch_size`, optionally shuffled, merged by `collate_fn`."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False):
        # Over 60 lines: DataLoader's argument checks, in PyTorch's order and with its messages.
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if num_workers > 0:
            warnings.warn(f"teachtorch's DataLoader loads batches in the main process only; num_workers="
                          f"{num_workers} is ignored (PyTorch would start {num_workers} worker processes).",
                          UserWarning, stacklevel=2)
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")

        is_iterable = isinstance(dataset, IterableDataset)
        if is_iterable:
            # a stream has no indices to shuffle or sample
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")

        if sampler is None and not is_iterable:
            if shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        # batching is on unless batch_size=None (then each sample is only converted, not merged)
        self._auto_collation = batch_sampler is not None or (is_iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            return self._iter_stream()
        return self._iter_indices()

    def _iter_indices(self):
        if not self._auto_collation:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            yield self._fetch(indices)

    def _fetch(self, indices):
        """One batch: the samples at `indices`, merged by collate_fn."""
        if type(self.dataset) is TensorDataset and self.collate_fn is default_collate:
            # the shortcut from the module docstring: one gather per tensor, the batch default_collate would make
            # (only for TensorDataset itself: a subclass may have its own __getitem__)
            index = tensor(indices, dtype=_dtype.int64)
            return [t[index] for t in self.dataset.tensors]
        if hasattr(self.dataset, "__getitems__"):
            samples = self.dataset.__getitems__(indices)
        else:
            samples = [self.dataset[i] for i in indices]
        return self.collate_fn(samples)

    def _iter_stream(self):
        if not self._auto_collation:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        """The number of batches in one epoch."""
        if isinstance(self.dataset, IterableDataset):
            length = len(self.dataset)   # a stream has a length only if it says so
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


__all__ = ["DataLoader"]
