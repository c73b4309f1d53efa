"""Devices: where a storage's bytes live.

PyTorch's `c10::Device` is a (type, index) pair; the device of a tensor is the device of its storage's data
pointer. teachtorch knows three device types: `cpu` (NumPy arrays), `cuda` (CuPy arrays) and `meta`
(no data at all: only sizes, strides and dtypes, for shape checking and for showing stride rules).
"""

_TYPES = ("cpu", "cuda", "meta")


class device:
    """`teachtorch.device("cpu")`, `device("cuda", 0)` or `device("cuda:0")`, as in PyTorch."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif ":" in type:
            if index is not None:
                raise ValueError(f"type (string) must not include an index because index was passed explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: {type}"
            )
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    # `with teachtorch.device("cuda"):` makes factories without `device=` allocate there (as in PyTorch 2)
    def __enter__(self):
        new = as_device(self)
        n = len(_default_device_stack)
        # plain stores, with no call between them or after them: Ctrl-C cannot split them (see _grad_mode.py)
        _default_device_stack[n:] = (_default[0],)
        _default[0] = None if new is cpu else new
        return self

    def __exit__(self, *exc):
        if _default_device_stack:
            _default[0] = _default_device_stack[-1]
            del _default_device_stack[-1:]
        return False


cpu = device("cpu")
meta = device("meta")


_default = [None]             # the default device of factories; None means cpu
_default_device_stack = []


def set_default_device(d):
    """`torch.set_default_device`: where `zeros(3)`, `tensor([1])`, `arange(4)`... allocate when given no
    `device=`. `None` goes back to the cpu. (PyTorch does this with a TorchFunctionMode that fills in the
    `device` argument of factory functions; teachtorch's factories read it directly, see `default_device`.)"""
    _default[0] = None if d is None else as_device(d)
    if _default[0] is cpu:
        _default[0] = None


def get_default_device():
    return cpu if _default[0] is None else _default[0]


def default_device(d):
    """The device a factory allocates on: `d` when given, else the default device."""
    return get_default_device() if d is None else as_device(d)


def as_device(d):
    """Normalise what users pass as `device=`: None (cpu), a string, or a device. `cuda` means `cuda:0`."""
    if d is None:
        return cpu
    if isinstance(d, device):
        dev = d
    elif isinstance(d, int):
        dev = device("cuda", d)
    else:
        dev = device(d)
    if dev.type == "cuda" and dev.index is None:
        dev = device("cuda", 0)
    if dev.type == "cpu" and dev.index not in (None, 0):
        raise RuntimeError(f"CPU device index must be -1 or zero, got {dev.index}")
    if dev.type == "cpu":
        return cpu
    if dev.type == "meta":
        return meta
    return dev
