"""`x.resize_(*sizes)` and `x.resize_as_(other)`: give a tensor new sizes, keeping its storage when it is big enough.

How PyTorch does it (aten/src/ATen/native/Resize.cpp, `resize_` and `resize_impl_cpu_`): the tensor keeps its
storage and its storage_offset and gets contiguous strides for the new sizes (channels_last ones with
`memory_format=torch.channels_last`); if the new sizes are the ones it has, nothing changes, not even odd strides.
The elements are not moved: `x.resize_(2, 2)` of `arange(6)` shows 0, 1, 2, 3. When the storage is too small,
PyTorch grows it in place (a new buffer for the same StorageImpl, the old bytes copied, the rest uninitialized).
It is how `out=` tensors are resized, and what the warning about resizing them suggests (`t.resize_(0)`).

One difference: a teachtorch storage never moves its bytes (a view's NumPy array points into them, and the
explorer draws them by address), so a tensor that must grow gets a new storage, the old bytes copied and the rest
zeroed; other views of the old storage keep the old one. Shrinking, the common case, shares as in PyTorch.
"""

import operator

from .. import _dtype
from .._strides import channels_last_strides, check_numel, checked_contiguous_strides, compute_storage_nbytes
from .._tensor import Tensor
from ..backends import empty
from ._define import bind_method


def resize_(self, *sizes, memory_format=None):
    """Sizes as in `view`: `x.resize_(2, 3)` or `x.resize_((2, 3))`."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    sizes = tuple(operator.index(n) for n in sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in sizes):          # PyTorch multiplies them as unsigned: a negative size overflows
        raise RuntimeError("numel: integer multiplication overflow")
    check_numel(sizes)
    format_name = "contiguous_format" if memory_format is None else str(memory_format).removeprefix("torch.")
    if format_name == "channels_last":
        strides = channels_last_strides(sizes)          # PyTorch's "required rank 4 tensor" error for others
    elif format_name == "contiguous_format":
        strides = checked_contiguous_strides(sizes)
    else:
        raise RuntimeError(f"Unsupported memory format {format_name}")
    if sizes == self._sizes and memory_format is None:
        return self
    storage, offset = self._storage, self._offset
    needed = compute_storage_nbytes(sizes, strides, self.dtype.itemsize, offset)
    if needed > storage.nbytes():
        storage = _grown(storage, needed, self.device)
    self._set_metadata(storage, offset, sizes, strides)
    return self


def resize_as_(self, the_template, memory_format=None):
    return resize_(self, the_template.shape, memory_format=memory_format)


def _grown(storage, nbytes, device):
    """A storage of `nbytes` on `device` that starts with the bytes of `storage` (zeros after them)."""
    fresh = empty((nbytes,), _dtype.uint8, device)
    if device.type != "meta" and storage.nbytes() > 0:
        old = Tensor._make(storage, 0, (storage.nbytes(),), (1,), _dtype.uint8)
        fresh[:storage.nbytes()].copy_(old)
    return fresh.untyped_storage()


bind_method("resize_", resize_)
bind_method("resize_as_", resize_as_)

__all__ = []    # Tensor methods only, as in PyTorch (torch.resize_as_ exists there, rarely used)
