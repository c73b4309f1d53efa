"""The object tree of a checkpoint: how `save` turns Python objects into JSON, and what `load` may build back.

serialization.py is the file format (the prefix, the header, the storages' bytes); this is the "object" part of
its header. PyTorch pickles the object (torch/serialization.py, and torch/_weights_only_unpickler.py for what
`weights_only=True` may build); teachtorch writes a JSON tree, which can only describe data.

In the tree a JSON null, true/false, number, string or list stands for itself; everything else is a JSON object
with one key that names its type: {"tuple": [...]}, {"dict": [[key, value], ...]}, {"OrderedDict": [...]},
{"float": "nan"} (JSON has no NaN or infinities), {"tensor": {"storage": i, "dtype", "offset", "size",
"stride", "requires_grad"}}, {"parameter": {...}}, {"ref": n}; {"complex": [re, im]}, {"bytes": base64},
{"bytearray": base64}, {"set": [...]}, {"dtype": "float32"}, {"device": "cuda:0"}, {"Size": [...]}; and,
loaded only when allowed (as in PyTorch), {"frozenset": [...]}, {"global": [module, qualname]} (a class or
function, saved by name as pickle saves them) and {"object": [module, qualname, state]} (an instance: its
class and its `__dict__`).

References. Pickle remembers every object it has written (its "memo"), so an object met twice is written once
and loaded as one object: `[x, x]` comes back as two references to one list, and a list that contains itself
(`a = [1]; a.append(a)`) comes back with `b[1] is b`, also under `weights_only=True`. The tree does the same:
saving numbers the lists, tuples, dicts, sets, objects and tensors it meets 0, 1, 2, ..., and writes an object
met again as {"ref": its number}. A list, dict or object is numbered *before* its items (an item may be the list
itself: a submodule's attribute may point back at its parent), a tuple, set or tensor once it is made (loading
builds a tuple from its items; a tuple can only reach itself through a list, a dict or an object, which ends the
cycle). Loading numbers what it builds by the same rule, so the numbers agree.
"""

import base64
import collections
import copyreg
import importlib
import math
import pickle
import re
import sys
import types

import numpy as np

from . import _dtype
from ._device import device
from ._strides import INT64_MAX, check_numel, compute_storage_nbytes
from ._tensor import Size, Tensor

_DEVICE_TAG = re.compile(r"cpu|meta|cuda(:[0-9]{1,4})?")


# ---- save: objects to a tree --------------------------------------------------------------------------------


class _Encoder:
    """Turns an object into its JSON tree (see the module docstring), collecting its tensors' storages."""

    def __init__(self):
        self.storages = []        # (storage, dtype) in order of first appearance
        self.storage_index = {}   # id(storage) -> its index in `storages`
        self.number = {}          # id(list, tuple, dict or tensor) -> its number, for {"ref": number}
        self.count = 0            # (the objects stay alive while we encode them, so their ids stay theirs)

    def numbered(self, obj):
        self.number[id(obj)] = self.count
        self.count += 1

    def encode(self, obj):
        # Over 60 lines: one dispatch over every type a checkpoint may hold, in the order decode reads them.
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            if math.isfinite(obj):
                return float(obj)
            return {"float": repr(float(obj))}          # 'nan', 'inf', '-inf'
        if id(obj) in self.number:                      # met before: one object after loading, and cycles end
            return {"ref": self.number[id(obj)]}
        if isinstance(obj, Tensor):
            node = {"parameter" if _is_parameter(obj) else "tensor": self.encode_tensor(obj)}
            self.numbered(obj)
            return node
        if isinstance(obj, complex):
            return {"complex": [self.encode(obj.real), self.encode(obj.imag)]}
        if isinstance(obj, bytes):
            return {"bytes": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, _dtype.dtype):
            return {"dtype": obj.name}
        if isinstance(obj, device):
            return {"device": str(obj)}
        if type(obj) is Size:
            node = {"Size": [int(n) for n in obj]}
            self.numbered(obj)
            return node
        if isinstance(obj, (bytearray, set, frozenset)) and type(obj) in (bytearray, set, frozenset):
            kind = type(obj).__name__
            node = {kind: base64.b64encode(obj).decode("ascii") if kind == "bytearray" else
                    [self.encode(x) for x in obj]}
            self.numbered(obj)                          # after its items, like a tuple
            return node
        if isinstance(obj, list):
            self.numbered(obj)                          # before its items: an item may be the list itself
            return [self.encode(x) for x in obj]
        if isinstance(obj, tuple):                      # namedtuples are saved as plain tuples
            node = {"tuple": [self.encode(x) for x in obj]}
            self.numbered(obj)                          # after its items: loading builds it from them
            return node
        if type(obj) in (dict, collections.OrderedDict):  # a subclass (defaultdict) is an object of its own
            kind = "OrderedDict" if isinstance(obj, collections.OrderedDict) else "dict"
            self.numbered(obj)
            return {kind: [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
        if isinstance(obj, np.ndarray):
            node = {"ndarray": self.encode_array(obj)}
            self.numbered(obj)
            return node
        if isinstance(obj, np.generic):
            return {"npscalar": [_array_dtype(obj.dtype), base64.b64encode(_little_endian(np.asarray(obj))
                                                                           .tobytes()).decode("ascii")]}
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            return {"global": _global_name(obj)}
        state = _instance_state(obj)
        if state is None:
            raise TypeError(
                f"teachtorch.save cannot save an object of type {type(obj).__name__}: it saves tensors, numbers, "
                f"strings, None, lists, tuples, sets and dicts of them, and objects that pickle by their "
                f"attributes, such as a whole nn.Module (a {type(obj).__name__} pickles some other way)")
        module, qualname = _global_name(type(obj))
        self.numbered(obj)                              # before its attributes, which may point back at it
        return {"object": [module, qualname, self.encode(state[0])]}

    def encode_array(self, array):
        """A NumPy array: its bytes are saved as a storage of their own (as torch.save pickles them, by value:
        a view saves only what it shows)."""
        dtype = _array_dtype(array.dtype)
        # Fortran order is kept, as NumPy's pickling keeps it: a transposed array loads transposed
        order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
        self.storages.append((_ArrayBytes(_little_endian(array, order)), _dtype.uint8))
        return {"storage": len(self.storages) - 1, "dtype": dtype, "shape": list(array.shape), "order": order}

    def encode_tensor(self, t):
        storage = t.untyped_storage()
        if storage.device.type == "meta":
            raise RuntimeError("teachtorch.save: cannot save a tensor on the 'meta' device: it has no data")
        if id(storage) not in self.storage_index:       # each storage is saved once, however many tensors view it
            self.storage_index[id(storage)] = len(self.storages)
            self.storages.append((storage, t.dtype))
        elif self.storages[self.storage_index[id(storage)]][1] != t.dtype and storage.nbytes() > 0:
            # PyTorch refuses too: a storage's bytes are written (and byte-swapped) as one dtype
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        return {"storage": self.storage_index[id(storage)], "dtype": t.dtype.name, "offset": t.storage_offset(),
                "size": list(t.shape), "stride": list(t.stride()), "requires_grad": t.requires_grad}


def _array_dtype(dtype):
    """A NumPy dtype as a string (`"<f8"`, `"<U5"`), if its items are plain bytes (not Python objects)."""
    if dtype.kind not in "biufcSU" or dtype.fields is not None or dtype.subdtype is not None:
        raise TypeError(f"teachtorch.save cannot save a NumPy array of dtype {dtype}: only numbers, bools and "
                        f"fixed-size strings")
    return _little_endian_dtype(dtype).str


def _little_endian_dtype(dtype):
    return dtype.newbyteorder("<") if dtype.byteorder == ">" or (dtype.byteorder == "=" and sys.byteorder == "big") \
        else dtype


def _little_endian(array, order="C"):
    """A little-endian copy of `array` contiguous in `order` (or the array itself when it is one already)."""
    return np.asarray(array, dtype=_little_endian_dtype(array.dtype), order=order)


def _global_name(obj):
    """(module, qualname) of a class or function, checked as pickle checks it: importing the module and looking
    the name up must give back this very object (a lambda or a class defined inside a function cannot be saved)."""
    module = getattr(obj, "__module__", None) or "builtins"
    qualname = getattr(obj, "__qualname__", None) or obj.__name__
    found = sys.modules.get(module)
    try:
        for part in qualname.split("."):
            found = getattr(found, part)
    except AttributeError:
        found = None
    if found is not obj:
        raise pickle.PicklingError(f"Can't pickle {obj!r}: attribute lookup {qualname} on {module} failed")
    return [module, qualname]


def _instance_state(obj):
    """`(state,)` for an instance that pickle would save as "make a `type(obj)`, then set its attributes" (what
    `object.__reduce_ex__(2)` answers for a plain class: `copyreg.__newobj__`, no constructor arguments), or None
    for anything that pickles another way (its own `__reduce__`, constructor arguments, list or dict items)."""
    try:
        reduced = obj.__reduce_ex__(2)
    except TypeError:
        return None
    if not isinstance(reduced, tuple) or len(reduced) < 2:
        return None
    reduced = reduced + (None,) * (5 - len(reduced))
    function, arguments, state, list_items, dict_items = reduced[:5]
    if function is not copyreg.__newobj__ or arguments != (type(obj),) or list_items or dict_items:
        return None
    return (state,)


class _ArrayBytes:
    """The bytes of a NumPy array, standing in for a storage in the encoder's list."""
    device = device("cpu")

    def __init__(self, array):
        self.array = array

    def bytes(self):
        return self.array.reshape(-1, order="A").view(np.uint8)


def _is_parameter(t):
    parameter = _parameter_class()
    return parameter is not None and isinstance(t, parameter)


def _parameter_class():
    """nn.Parameter if teachtorch.nn defines it (imported only when needed: this file is below nn)."""
    try:
        from .nn.parameter import Parameter
    except ImportError:
        return None
    return Parameter



# ---- load: a tree to objects --------------------------------------------------------------------------------


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)      # JSON's true is not the number 1


class _Decoder:
    """Rebuilds the object from its JSON tree. Only the types listed in the module docstring come out, and
    classes and functions only through `find_global` (the allow-list, or an import when weights_only=False).
    `built` lists the lists, tuples, dicts, sets, objects and tensors made so far, numbered as `_Encoder`
    numbered them."""

    def __init__(self, storages, find_global):
        self.storages, self.find_global, self.built = storages, find_global, []

    def decode(self, node):
        # Over 60 lines: one dispatch over every type a checkpoint may hold, in the order encode writes them.
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            result = []
            self.built.append(result)                # before its items, which may refer to it
            for x in node:
                result.append(self.decode(x))
            return result
        if not isinstance(node, dict) or len(node) != 1:
            raise ValueError(f"unexpected entry {node!r}")
        kind, value = next(iter(node.items()))
        if kind == "ref":
            if not _is_int(value) or not 0 <= value < len(self.built):
                raise ValueError(f"reference {value!r} to an object that is not (yet) loaded")
            return self.built[value]
        if kind in ("tuple", "Size", "set", "frozenset"):
            if not isinstance(value, list):
                raise ValueError(f"a {kind}'s items are {type(value).__name__}, not a list")
            if kind == "frozenset" and self.find_global("builtins", "frozenset") is not frozenset:
                raise ValueError("builtins.frozenset is not frozenset")   # torch allow-lists set, not frozenset
            result = _BUILD[kind]([self.decode(x) for x in value])
            self.built.append(result)                # after its items, as saving numbered it
            return result
        if kind in ("dict", "OrderedDict"):
            if not isinstance(value, list):
                raise ValueError(f"a dict's items are {type(value).__name__}, not a list")
            result = {} if kind == "dict" else collections.OrderedDict()
            self.built.append(result)
            for k, v in value:
                key = self.decode(k)                 # the key first, then the value, as saving wrote them
                result[key] = self.decode(v)
            return result
        if kind == "float":
            if value not in ("nan", "inf", "-inf"):
                raise ValueError(f"{{'float': {value!r}}} is not nan, inf or -inf")
            return float(value)
        if kind == "complex":
            real, imag = (self.decode(x) for x in value)
            if not all(isinstance(x, float) for x in (real, imag)):
                raise ValueError(f"a complex number's parts are {value!r}, not two floats")
            return complex(real, imag)
        if kind in ("bytes", "bytearray"):
            result = base64.b64decode(value.encode("ascii"), validate=True)
            if kind == "bytearray":
                result = bytearray(result)
                self.built.append(result)
            return result
        if kind == "dtype":
            return _dtype._lookup(value)
        if kind == "device":
            if not isinstance(value, str) or not _DEVICE_TAG.fullmatch(value):
                raise ValueError(f"{value!r} is not a device")
            return device(value)
        if kind in ("tensor", "parameter"):
            result = _decode_tensor(value, self.storages, kind == "parameter")
            self.built.append(result)
            return result
        if kind == "ndarray":
            return self.decode_array(value)
        if kind == "npscalar":
            dtype, data = value
            dtype = _np_dtype(dtype)
            for module, name in (("numpy._core.multiarray", "scalar"), ("numpy", "dtype"),
                                 (type(dtype).__module__, type(dtype).__qualname__)):
                self.find_global(module, name)               # what torch.load must be allowed to call
            return np.frombuffer(base64.b64decode(data.encode("ascii"), validate=True), dtype=dtype)[0]
        if kind == "global":
            return self.find_global(*_qualified_name(value))
        if kind == "object":
            return self.decode_object(value)
        raise ValueError(f"unknown entry type {kind!r}")

    def decode_array(self, entry):
        """A NumPy array over the bytes of its storage (the loaded buffer itself: no copy)."""
        index, dtype, shape = entry["storage"], _np_dtype(entry["dtype"]), entry["shape"]
        order = entry.get("order", "C")
        for module, name in (("numpy._core.multiarray", "_reconstruct"), ("numpy", "ndarray"), ("numpy", "dtype"),
                             (type(dtype).__module__, type(dtype).__qualname__)):
            self.find_global(module, name)                   # the globals torch.load must be allowed to use
        if order not in ("C", "F"):
            raise ValueError(f"array order {order!r} is not 'C' or 'F'")
        if not _is_int(index) or not 0 <= index < len(self.storages):
            raise ValueError(f"storage index {index!r} is not one of the file's {len(self.storages)} storages")
        if not isinstance(shape, list) or not all(_is_int(n) and n >= 0 for n in shape):
            raise ValueError(f"bad array shape {shape!r}")
        check_numel(shape)
        buffer = self.storages[index]._data
        if buffer is None or buffer.nbytes != math.prod(shape) * dtype.itemsize:
            raise ValueError(f"an array of shape {shape} and dtype {dtype} does not fill its storage")
        result = buffer.view(np.uint8).view(dtype).reshape(shape, order=order)
        self.built.append(result)
        return result

    def decode_object(self, value):
        """An instance, made as pickle makes one: `cls.__new__(cls)`, then its state set (`__setstate__` if the
        class has one, else straight into `__dict__`, not through `__setattr__`)."""
        module, qualname, state = value
        cls = self.find_global(*_qualified_name([module, qualname]))
        if not isinstance(cls, type):
            raise ValueError(f"{module}.{qualname} is not a class")
        result = cls.__new__(cls)
        self.built.append(result)                    # before its attributes, which may refer to it
        state = self.decode(state)
        if hasattr(result, "__setstate__"):
            result.__setstate__(state)
        elif state is not None:
            if not isinstance(state, dict):
                raise ValueError(f"the state of a {module}.{qualname} is {type(state).__name__}, not a dict")
            result.__dict__.update(state)
        return result


_BUILD = {"tuple": tuple, "Size": Size, "set": set, "frozenset": frozenset}


def _np_dtype(text):
    dtype = np.dtype(text) if isinstance(text, str) else None
    if dtype is None or dtype.kind not in "biufcSU" or dtype.fields is not None or dtype.subdtype is not None:
        raise ValueError(f"{text!r} is not a NumPy dtype of numbers or fixed-size strings")
    return dtype


def _qualified_name(value):
    if (not isinstance(value, list) or len(value) != 2 or not all(isinstance(x, str) for x in value)
            or not all(part.isidentifier() for part in ".".join(value).split("."))):
        raise ValueError(f"{value!r} is not a module and a name")
    return value


def _decode_tensor(entry, storages, parameter):
    """A tensor over one of the loaded storages (PyTorch: `torch.empty(0).set_(storage, offset, size, stride)`)."""
    index = entry["storage"]
    if not _is_int(index) or not 0 <= index < len(storages):   # storages[-1] would quietly be the last one
        raise ValueError(f"storage index {index!r} is not one of the file's {len(storages)} storages")
    storage = storages[index]
    dtype = _dtype._lookup(entry["dtype"])
    offset, size, stride = entry["offset"], entry["size"], entry["stride"]
    _check_geometry(offset, size, stride, dtype.itemsize, storage.nbytes())
    requires_grad = entry["requires_grad"]
    if not isinstance(requires_grad, bool):
        raise ValueError(f"requires_grad is {requires_grad!r}, not true or false")
    t = Tensor._make(storage, offset, tuple(size), tuple(stride), dtype)
    parameter_class = _parameter_class() if parameter else None
    try:
        if parameter_class is not None:
            return parameter_class(t, requires_grad=requires_grad)
        return t.requires_grad_(True) if requires_grad else t
    except RuntimeError as e:                      # requires_grad on an integer tensor
        raise ValueError(f"a {dtype.name} tensor with requires_grad=True: {e}") from None


def _check_geometry(offset, size, stride, itemsize, storage_nbytes):
    """PyTorch's checks when it sets a tensor's geometry (`set_`): integers that fit in an int64, no negative
    size, stride or offset, an element count and a storage size that fit in an int64 (the stride arithmetic of
    _strides.py), and every element inside the storage. Raises ValueError, which `load` reports as malformed."""
    if (not isinstance(size, list) or not isinstance(stride, list) or len(size) != len(stride)
            or not all(_is_int(x) for x in (offset, *size, *stride))):
        raise ValueError(f"bad tensor geometry: offset {offset!r}, size {size!r}, stride {stride!r}")
    if not 0 <= offset <= INT64_MAX:
        raise ValueError(f"Tensor: invalid storage offset {offset}")
    if any(not 0 <= n <= INT64_MAX for n in size):
        raise ValueError(f"numel: integer multiplication overflow (size {size})")
    if any(not 0 <= s <= INT64_MAX for s in stride):
        raise ValueError(f"Storage size calculation overflowed with sizes={size} and strides={stride}")
    try:
        check_numel(size)
        nbytes = compute_storage_nbytes(size, stride, itemsize, offset)   # 0 when there is no element
    except RuntimeError as e:
        raise ValueError(str(e)) from None
    # the last element must lie inside the storage: a crafted file must not make us read past its end
    if nbytes > storage_nbytes:
        raise ValueError(f"tensor of size {tuple(size)} and stride {tuple(stride)} at offset {offset} needs "
                         f"{nbytes} bytes of storage, but its storage has {storage_nbytes}")


# ---- classes and functions named in a file: the weights_only allow-list ---------------------------------------
#
# PyTorch's weights_only unpickler builds only allow-listed types; `add_safe_globals([MyClass])` extends that
# list so a checkpoint holding a MyClass loads. Here a file names a class only to save a whole object
# ({"object": ...}) or a class or function itself ({"global": ...}). With weights_only=True the name must be on
# the list, and what is built is the object on the list: nothing is imported. With weights_only=False the module
# is imported and the name looked up in it, as pickle does.

_safe_globals = []


def _safe_global_finder():
    """The lookup for weights_only=True: by "module.qualname" among the allow-listed objects only."""
    allowed = {}
    for entry in _safe_globals:
        if isinstance(entry, tuple):
            obj, name = entry
        else:
            obj, name = entry, f"{getattr(entry, '__module__', '')}.{getattr(entry, '__qualname__', '')}"
        allowed[name] = obj

    def find(module, qualname):
        name = f"{module}.{qualname}"
        if name not in allowed:
            raise pickle.UnpicklingError(
                "Weights only load failed. This file can still be loaded, to do so you have two options, do those "
                "steps only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the "
                "default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running "
                "`torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
                "arbitrary code execution. Do it only if you got the file from a trusted source.\n\t(2) "
                "Alternatively, to load with `weights_only=True` please check the recommended steps in the "
                f"following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {name} was not an "
                f"allowed global by default. Please use `torch.serialization.add_safe_globals([{name}])` or the "
                f"`torch.serialization.safe_globals([{name}])` context manager to allowlist this global if you "
                f"trust this class/function.")
        return allowed[name]
    return find


class _NotFound(Exception):
    """A class or function that weights_only=False could not import: raised as its own error, not as 'malformed'."""

    def __init__(self, error):
        self.error = error


def _import_global(module, qualname):
    """The lookup for weights_only=False, pickle's `find_class`: import the module (running its code) and look
    the name up."""
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            try:
                found = getattr(found, part)
            except AttributeError:
                raise AttributeError(f"Can't get attribute '{qualname}' on {sys.modules[module]!r}") from None
    except (ImportError, AttributeError) as e:
        raise _NotFound(e) from None
    return found



def add_safe_globals(safe_globals):
    """Mark functions or classes (or (function, "module.name") pairs) as safe for `load(weights_only=True)`."""
    _safe_globals.extend(safe_globals)


def get_safe_globals():
    return list(_safe_globals)


def clear_safe_globals():
    _safe_globals[:] = []


class safe_globals:
    """`with torch.serialization.safe_globals([MyClass]):` allows them for the loads inside the block only."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self.saved = list(_safe_globals)
        _safe_globals[:] = self.saved + list(self.safe_globals)   # one slice store: no half-applied state

    def __exit__(self, *exc):
        _safe_globals[:] = self.saved
        return False



__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals"]
