"""teachtorch.utils.data: datasets, samplers, collation and the DataLoader (PyTorch's torch.utils.data).

    dataset.py      Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split
    sampler.py      SequentialSampler, RandomSampler, SubsetRandomSampler, BatchSampler
    collate.py      default_collate, default_convert
    dataloader.py   DataLoader: sampler -> batches of indices -> samples -> collate_fn
"""

from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset", "default_collate",
           "default_convert", "random_split"]
