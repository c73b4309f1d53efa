"""The legacy tensor types: `torch.FloatTensor(2, 3)`, `torch.LongTensor([1, 2])`, `isinstance(x, torch.FloatTensor)`.

Before PyTorch 0.4 every (dtype, device) pair was its own class; code written then still says
`torch.FloatTensor(...)`. In PyTorch today these names are objects of the metaclass `torch.tensortype`
(torch/csrc/tensor/python_tensor.cpp): they are *not* subclasses of `torch.Tensor`, calling one runs the legacy
constructor `Tensor.new()` (integers are sizes, a sequence is data, a tensor of the same type is aliased), and
`isinstance(x, torch.FloatTensor)` asks "is x a float32 cpu tensor?". The same here, with `x.type()` naming them
(ops/conversions.py).
"""

from . import _dtype
from ._tensor import Size, Tensor

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "HalfTensor", "IntTensor",
           "LongTensor", "ShortTensor"]

# the C++ type names PyTorch's TensorOptions message prints
_CPP_NAME = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
             "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double"}


def _options(dtype):
    return (f"TensorOptions(dtype={_CPP_NAME[dtype.name]}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


class tensortype(type):
    """The metaclass: `isinstance` checks dtype and device, the class prints as <class 'torch.FloatTensor'>."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None):
        from .ops import empty, tensor   # (`teachtorch.ops` the attribute is the dispatcher's op namespace)
        dtype = cls.dtype
        if len(args) == 1 and isinstance(args[0], Tensor):
            other = args[0]
            if other.dtype is not dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(other.dtype)})")
            # a new tensor that aliases `other`, as PyTorch's legacy constructor does
            return other.as_strided(other.size(), other.stride(), other.storage_offset())
        if not args:
            return empty(0, dtype=dtype, device=device)
        if len(args) == 1 and isinstance(args[0], Size) or all(type(a) is int for a in args):
            sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
            return empty(sizes, dtype=dtype, device=device)
        if len(args) == 1:
            data = args[0]
            if isinstance(data, str):
                raise TypeError("new(): invalid data type 'str'")
            if not hasattr(data, "__len__") and not hasattr(data, "__array__"):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
            return tensor(data, dtype=dtype, device=device)
        raise TypeError(f"new() received an invalid combination of arguments - got {args}")

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _legacy_type(name, dtype):
    return tensortype(name, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False, "__module__": "torch"})


BoolTensor = _legacy_type("BoolTensor", _dtype.bool_)
ByteTensor = _legacy_type("ByteTensor", _dtype.uint8)
CharTensor = _legacy_type("CharTensor", _dtype.int8)
ShortTensor = _legacy_type("ShortTensor", _dtype.int16)
IntTensor = _legacy_type("IntTensor", _dtype.int32)
LongTensor = _legacy_type("LongTensor", _dtype.int64)
HalfTensor = _legacy_type("HalfTensor", _dtype.float16)
FloatTensor = _legacy_type("FloatTensor", _dtype.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dtype.float64)
