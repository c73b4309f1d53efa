"""Collation: turning a list of samples into one batch.

The DataLoader fetches `batch_size` samples, `[dataset[i] for i in indices]`, and hands that list to
`collate_fn`. `default_collate` builds the batch by the type of the samples, recursively:

    tensors            -> stacked along a new dim 0             [t0, t1] -> stack([t0, t1])
    NumPy arrays       -> tensors, then stacked
    NumPy scalars      -> one tensor of their dtype             [np.float32(1), ...] -> float32 tensor
    Python floats      -> a float64 tensor (not the default dtype: PyTorch's rule)
    Python ints, bools -> an int64 / bool tensor
    strings, bytes     -> kept as a list
    dicts              -> a dict of batches, one per key        [{"x": a0}, {"x": a1}] -> {"x": collate([a0, a1])}
    namedtuples        -> the same namedtuple of batches
    tuples, lists      -> transposed, each position collated    [(x0, y0), (x1, y1)] -> [collate([x0, x1]), collate([y0, y1])]

PyTorch's version is torch/utils/data/_utils/collate.py; it looks the type up in a table
(`default_collate_fn_map`) so users can extend it; here the same rules are one chain of `if`s.
`default_convert` is what the DataLoader uses when batching is off (`batch_size=None`): it converts NumPy
data to tensors and leaves everything else alone.
"""

import collections.abc
import copy
import re

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ...ops.shape_ops import stack
from ...ops.tensor_new import as_tensor, tensor

# NumPy dtypes of strings ('S', 'a', 'U') and Python objects ('O') have no tensor counterpart.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def default_collate(batch):
    """Merge a list of samples into a batch (see the module docstring for the rules)."""
    elem = batch[0]
    elem_type = type(elem)

    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
            raise TypeError(default_collate_err_msg_format.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return as_tensor(batch)   # NumPy scalars keep their dtype
    if isinstance(elem, float):
        return tensor(batch, dtype=_dtype.float64)
    if isinstance(elem, int):     # bool is an int too: [True, False] gives a bool tensor
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch

    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)   # keeps the mapping's type (an OrderedDict stays one)
                clone.update(collated)
                return clone
            return elem_type(collated)
        except TypeError:             # a mapping type that cannot be built from a dict
            return collated

    if isinstance(elem, tuple) and hasattr(elem, "_fields"):   # a namedtuple
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))

    if isinstance(elem, collections.abc.Sequence):
        elem_size = len(elem)
        if not all(len(e) == elem_size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))   # tuples of samples: a batch of strings comes out as a tuple, as in PyTorch
        collated = [default_collate(samples) for samples in transposed]
        if isinstance(elem, tuple):
            return collated           # tuples become lists (PyTorch keeps this for backwards compatibility)
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, c in enumerate(collated):
                    clone[i] = c
                return clone
            return elem_type(collated)
        except TypeError:
            return collated

    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_convert(data):
    """NumPy arrays and scalars (also inside dicts, tuples, lists) to tensors; everything else unchanged."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update(converted)
                return clone
            return elem_type(converted)
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, c in enumerate(converted):
                    clone[i] = c
                return clone
            return elem_type(converted)
        except TypeError:
            return converted
    return data


__all__ = ["default_collate", "default_convert"]
