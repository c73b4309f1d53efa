"""The dispatcher's public face: trace it, read its tables, register ops.

    with teachtorch.dispatch.trace() as t: ...        every hop, recorded (trace.py)
    teachtorch.dispatch.dump_table("add.Tensor")      which kernel each key resolves to
    teachtorch.dispatch.define(schema) / impl(...)    add an op from outside the package (see library.py)
"""

from .._dispatch_key import DispatchKey, keyset_names
from .dispatcher import (
    FALLTHROUGH, OPERATORS, call, define, impl, keyset_of, lookup, redispatch, register_fallback, tls,
)
from .trace import DispatchEvent, TensorInfo, trace
from .python_mode import TorchDispatchMode
from .ops_namespace import ops


def dump_table(name):
    """The dispatch table of an op, like `torch._C._dispatch_dump_table("aten::add.Tensor")`."""
    return lookup(name).dump_table()


def keys_of(tensor):
    """The dispatch keys a tensor carries, highest priority first."""
    return keyset_names(tensor._keys)
