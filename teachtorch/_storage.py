"""Storage: one flat buffer of bytes on one device.

This is PyTorch's `StorageImpl` (c10/core/StorageImpl.h): a data pointer, a size in bytes and a device, and
nothing else. It has no shape and no dtype. A tensor is an *interpretation* of a storage: a dtype, a
`storage_offset` and `(sizes, strides)` that say which elements of the buffer it shows and in what order.

Two tensors alias exactly when they share one storage (the same object, hence the same `data_ptr()`); views
are made by building a new tensor over the same storage, never by copying.

For cpu the buffer is a C-contiguous NumPy array: `uint8` when the storage was allocated as bytes, or the
very array a kernel computed when a result is wrapped (re-viewing it as bytes would cost more than the whole
add of two small tensors; the bytes are the same). `typed_array(...)` builds the strided NumPy view of a
tensor over it: a real view into these bytes, so anything written through it lands in the storage.
"""

import numpy as np

from ._device import cpu, meta


class UntypedStorage:
    """A flat byte buffer. `UntypedStorage(nbytes)` allocates zeroed bytes on the cpu."""

    __slots__ = ("_data", "device", "_nbytes", "_ptr", "__weakref__")

    def __init__(self, nbytes=0, *, device=None, _data=None):
        self._ptr = None
        self.device = cpu if device is None else device
        if _data is not None:
            self._data = _data
            self._nbytes = _data.nbytes
        elif self.device is meta:
            self._data = None  # meta storages have a size but no bytes
            self._nbytes = nbytes
        else:
            self._data = np.zeros(nbytes, dtype=np.uint8)
            self._nbytes = nbytes

    @classmethod
    def _wrap(cls, array):
        """A storage over the bytes of a fresh C-contiguous array (a kernel's result); no copy."""
        s = object.__new__(cls)
        s._data = array
        s._ptr = None
        s._nbytes = array.nbytes
        s.device = cpu
        return s

    def nbytes(self):
        return self._nbytes

    def size(self):
        """In PyTorch an untyped storage's size is its number of bytes."""
        return self._nbytes

    __len__ = size

    def element_size(self):
        return 1

    def data_ptr(self):
        """The address of the first byte. Two storages alias only if they are the same storage."""
        if self._ptr is None:       # the bytes never move, so ask NumPy once (traces ask on every op)
            self._ptr = 0 if self._data is None else self._data.__array_interface__["data"][0]
        return self._ptr

    def typed_array(self, dtype, offset, sizes, strides):
        """The NumPy view of a tensor: `(offset, sizes, strides)` in elements of `dtype`, over these bytes."""
        itemsize = dtype.itemsize
        if 0 in sizes:
            # no elements: the offset may even point past the end (an empty slice at the end is legal)
            return np.ndarray(sizes, dtype.numpy)
        return np.ndarray(
            sizes, dtype.numpy, buffer=self._data, offset=offset * itemsize,
            strides=[s * itemsize for s in strides],
        )

    def bytes(self):
        """The buffer as a flat 1-D uint8 array (a view)."""
        return self._data.reshape(-1).view(np.uint8)

    def tolist(self):
        return self.bytes().tolist()

    def __getitem__(self, i):
        return int(self.bytes()[i])

    def __repr__(self):
        body = " ".join(str(int(b)) for b in self.bytes()[:16]) if self._data is not None else ""
        more = " ..." if self._nbytes > 16 else ""
        return f"[teachtorch.storage.UntypedStorage(device={self.device}) of size {self._nbytes}]\n {body}{more}"
