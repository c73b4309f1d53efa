"""DistributedSampler: each of `num_replicas` processes (one per GPU, say) reads its own share of a dataset.

All processes shuffle the indices the same way (a generator seeded with `seed + epoch`, so they agree without
talking to each other), pad the list by repeating its start until it divides evenly (or, with `drop_last`,
cut its tail), and process `rank` keeps every `num_replicas`-th index starting at `rank`. Call
`set_epoch(epoch)` before each epoch, or every epoch sees the same order.

PyTorch's torch/utils/data/distributed.py is the same. When `num_replicas` or `rank` is not given, PyTorch
asks `torch.distributed` for the process group of a multi-process run; teachtorch runs in one process, so
`teachtorch.distributed` answers as an uninitialised PyTorch does ("Default process group has not been
initialized"). Pass `num_replicas` and `rank` yourself.
"""

import math

from ... import distributed
from ...ops.random import Generator, randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices of `dataset` that process `rank` of `num_replicas` reads, shuffled per epoch."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = distributed.get_world_size()     # raises: no process group in teachtorch
        if rank is None:
            rank = distributed.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # the largest share every replica can have without repeating an index
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            # the same seed in every process: they all draw the same permutation, then each takes its share
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            # repeat the start so that every replica gets num_samples indices
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                                 f"({self.num_samples})")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use the permutation of this epoch (seed + epoch) from the next iteration on."""
        self.epoch = epoch
