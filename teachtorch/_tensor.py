"""Tensor: a strided interpretation of one storage.

This is PyTorch's `TensorImpl` (c10/core/TensorImpl.h). A tensor holds no elements of its own; it holds

    storage         the flat buffer of bytes (shared with every view of it)
    storage_offset  where element [0, 0, ...] is, counted in elements
    sizes, strides  element [i0, i1, ...] lives at  storage_offset + i0*stride[0] + i1*stride[1] + ...
    dtype           how to read the bytes
    key set         which dispatcher layers apply to it (from its device)
    version counter bumped by every in-place write; shared with its views, so autograd can tell that a
                    tensor it saved has been changed
and the autograd fields (`requires_grad`, `grad`, `grad_fn`, `_base`) that the autograd engine fills in.

A *view* is a new Tensor over the same storage with other (offset, sizes, strides): transposing swaps two
strides, slicing moves the offset and multiplies a stride, expanding sets a stride to 0. No element moves.

Where the methods come from: this file holds only what reads the metadata. The ops (`add`, `sum`, `view`, ...)
are defined in `teachtorch/ops/` and attached to Tensor there, much as PyTorch generates its Python methods
(`python_variable_methods.cpp`) from `native_functions.yaml` entries that say `variants: method`.
"""

import copy

from . import _dtype
from ._dispatch_key import KEYS_OF_DEVICE
from ._grad_mode import GradMode
from ._strides import is_channels_last_contiguous, is_contiguous, normalize_dim


class Size(tuple):
    """`torch.Size`: a tuple of ints that prints as `torch.Size([3, 4])`."""

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    # tuple's arithmetic returns a plain tuple; PyTorch's Size arithmetic stays a Size, on either side
    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        r = tuple.__mul__(self, n)
        return r if r is NotImplemented else Size(r)

    __rmul__ = __mul__


class VersionCounter:
    """PyTorch's `VariableVersion`: one counter shared by a tensor and all its views."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor:
    __slots__ = ("_storage", "_offset", "_sizes", "_strides", "dtype", "_keys", "_vc", "_array",
                 "__weakref__", "__dict__")

    # The autograd fields start as these class-level defaults and are set on a tensor only when they change
    # (most tensors never require grad). PyTorch saves the same work by leaving `autograd_meta_` null.
    _requires_grad = False
    _grad_fn = None
    _output_nr = 0
    _base = None
    _attr_version = 0

    # NumPy hands `ndarray + tensor` to our __radd__ rather than broadcasting over our elements; like PyTorch's,
    # our operators refuse NumPy arrays (ops/operators.py `operand_or_none`), so it ends in a TypeError.
    __array_priority__ = 1000

    # `Tensor([1, 2])` (the legacy constructor), `__array_wrap__` and pickling build tensors from data, which is
    # the ops layer's job: ops/tensor_new.py and ops/factories.py bind them onto this class.

    @classmethod
    def _make(cls, storage, offset, sizes, strides, dtype, array=None):
        """Build a tensor over `storage`. `array` is its backend array when the caller already has it."""
        t = object.__new__(cls)
        t._storage = storage
        t._offset = offset
        t._sizes = sizes
        t._strides = strides
        t.dtype = dtype
        t._keys = KEYS_OF_DEVICE[storage.device.type]
        t._vc = VersionCounter()
        t._array = array
        if GradMode.inference:       # made inside inference_mode(): it can never join autograd
            t._is_inference = True
        return t

    def _data(self):
        """The backend array of this tensor: a strided view into the storage (never a copy)."""
        a = self._array
        if a is None:
            if self._storage._data is None:
                raise NotImplementedError("Cannot access data of a tensor on the 'meta' device: it has none.")
            a = self._array = self._storage.typed_array(self.dtype, self._offset, self._sizes, self._strides)
        return a

    def _set_metadata(self, storage, offset, sizes, strides):
        """Re-point this tensor (used by `out=` resizing and `.data =`); drops the cached array."""
        self._storage, self._offset, self._sizes, self._strides = storage, offset, sizes, strides
        self._array = None

    # ---- metadata ---------------------------------------------------------------------------------------

    def size(self, dim=None):
        if dim is None:
            return Size(self._sizes)
        return self._sizes[self._dim_of(dim)]

    def _dim_of(self, dim):
        # size(d) and stride(d) do not "wrap" a 0-d tensor as if it had one dim, unlike most ops
        if not self._sizes:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return normalize_dim(dim, len(self._sizes))

    @property
    def shape(self):
        return Size(self._sizes)

    def stride(self, dim=None):
        if dim is None:
            return self._strides
        return self._strides[self._dim_of(dim)]

    def storage_offset(self):
        return self._offset

    def untyped_storage(self):
        return self._storage

    def data_ptr(self):
        """Address of this tensor's first element: the storage's address plus the offset in bytes."""
        return self._storage.data_ptr() + self._offset * self.dtype.itemsize

    def dim(self):
        return len(self._sizes)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._sizes)

    def numel(self):
        n = 1
        for s in self._sizes:
            n *= s
        return n

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self, memory_format=None):
        """Are the elements laid out in memory in this order (row-major, or NHWC for channels_last)?"""
        if memory_format is not None and str(memory_format) == "channels_last":
            return len(self._sizes) == 4 and is_channels_last_contiguous(self._sizes, self._strides)
        return is_contiguous(self._sizes, self._strides)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return False

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self):
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._storage.device.type == "cpu"

    @property
    def is_meta(self):
        return self._storage.device.type == "meta"

    @property
    def layout(self):
        return "torch.strided"

    def get_device(self):
        d = self._storage.device
        return -1 if d.type == "cpu" else (d.index or 0)

    # ---- version counter and views ----------------------------------------------------------------------

    @property
    def _version(self):
        return self._vc.value

    # ---- autograd fields ----------------------------------------------------------------------------------
    # `requires_grad`, `grad`, `grad_fn`, `is_leaf`, `backward`, hooks: defined in autograd/tensor_methods.py,
    # next to the engine that gives them meaning.

    # ---- conversion to Python and NumPy -----------------------------------------------------------------

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (a strided view), as `torch.Tensor.numpy()`."""
        if type(force) is not bool:   # the parser takes True or False only: not 'x', 1 or numpy.bool
            raise TypeError(f"numpy(): argument 'force' must be bool, not {typename(force)}")
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._storage.device.type != "cpu":
            if force:
                return self.cpu().numpy()
            raise TypeError(
                f"can't convert {self._storage.device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first.")
        return self._data()

    def __array__(self, dtype=None, copy=None):
        # as PyTorch's `__array__` (which calls `numpy()`), a tensor that requires grad is refused
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        a = self.cpu()._data()
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self._storage.device.type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._host_array().reshape(()).item()

    def tolist(self):
        if self._storage._data is None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return self._host_array().tolist()

    def _host_array(self):
        """The elements as a NumPy array on the host (a view for cpu tensors, a copy otherwise)."""
        if self._storage.device.type == "cpu":
            return self._data()
        if self._storage.device.type == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return self._storage.to_host(self._data())

    def __len__(self):
        if not self._sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._sizes[0]

    def __iter__(self):
        if not self._sizes:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        # PyTorch's reversed(t) is a tensor, flipped along dim 0 (a 0-d tensor is its own reverse)
        return self if not self._sizes else self.flip(0)

    def __contains__(self, element):
        # `x in t` is elementwise membership, as in PyTorch: does any element (or broadcast row) equal x?
        if isinstance(element, (Tensor, bool, int, float, complex)):
            return bool((element == self).any().item())
        raise RuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    def __bool__(self):
        if self.numel() != 1:
            what = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self.item())

    def __float__(self):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.item())

    def __int__(self):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self.item())

    __hash__ = object.__hash__

    def __repr__(self, *, tensor_contents=None):
        from ._repr import format_tensor

        d = self.dtype
        is_default = d is _dtype.get_default_dtype() or d is _dtype.int64 or d is _dtype.bool_
        dev = self._storage.device
        if dev.type == "meta":
            return f"tensor(..., device='meta', size={tuple(self._sizes)}" + (
                "" if is_default else f", dtype={d}") + ")"
        values = self._host_array()
        grad_fn = type(self.grad_fn).__name__ if self.grad_fn is not None else None
        return format_tensor(values, dtype_name=d.name, is_default_dtype=is_default,
                             device=None if dev.type == "cpu" else str(dev),
                             requires_grad=self.requires_grad, grad_fn_name=grad_fn)

    __str__ = __repr__

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __deepcopy__(self, memo):
        """`copy.deepcopy(t)`: new bytes with the same geometry (sizes, strides, offset), as PyTorch does.

        Like torch/_tensor.py's `__deepcopy__`: only graph leaves can be copied; tensors that shared a
        storage share the one copied storage (the memo maps old storages to new); `requires_grad`, `.grad`
        and a subclass (Parameter) come along, so `copy.deepcopy(model)` gives an independent model."""
        if id(self) in memo:
            return memo[id(self)]
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        old = self._storage
        storage = memo.get(id(old))
        if storage is None:
            data = None if old._data is None else old._data.copy()
            storage = memo[id(old)] = type(old)(old._nbytes, device=old.device, _data=data)   # cpu or GPU storage
            memo.setdefault(id(memo), []).append(old)      # keep `old` alive while its id is a memo key
        new = type(self)._make(storage, self._offset, self._sizes, self._strides, self.dtype)
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            if name == "_requires_grad" or name == "_grad" or not name.startswith("_"):
                setattr(new, name, copy.deepcopy(value, memo))   # requires_grad, .grad, Buffer's persistent
        return new

    def __dir__(self):
        return sorted(set(object.__dir__(self)))


def is_tensor(obj):
    return isinstance(obj, Tensor)


def typename(obj):
    """The type name PyTorch's argument errors print (`THPUtils_typename`): int, Tensor, numpy.ndarray."""
    if isinstance(obj, Tensor):
        return "Tensor"
    t = type(obj)
    # CPython's tp_name: a class written in Python (a heap type) is named alone, `Foo`; a builtin or C type
    # carries its module unless it is in builtins: `int`, `numpy.ndarray`
    heap_type = t.__flags__ & (1 << 9)
    return t.__name__ if t.__module__ == "builtins" or heap_type else f"{t.__module__}.{t.__name__}"
