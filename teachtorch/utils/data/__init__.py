"""teachtorch.utils.data: datasets, samplers, collation and the DataLoader (PyTorch's torch.utils.data).

    dataset.py      Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split
    sampler.py      SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler, BatchSampler
    distributed.py  DistributedSampler: one process's share of the indices
    collate.py      default_collate, default_convert
    dataloader.py   DataLoader: sampler -> batches of indices -> samples -> collate_fn
"""

from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "default_convert", "random_split"]
