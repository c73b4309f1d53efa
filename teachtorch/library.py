"""Register new operators from outside teachtorch, as `torch.library` does.

    lib = teachtorch.library.Library("teach", "DEF")
    lib.define("mysin(Tensor x) -> Tensor")
    lib.impl("mysin", lambda x: teachtorch.from_numpy(np.sin(x.numpy())), "CPU")
    teachtorch.ops.teach.mysin(x)           # dispatched like any built-in op; traces show `teach.mysin`

This mirrors PyTorch's `torch.library.Library(ns, "DEF" | "IMPL" | "FRAGMENT")`, `.define(schema)` and
`.impl(name, fn, dispatch_key)` (torch/library.py), which fill the same operator table as the built-in ops.
Kernels registered here receive the op's arguments only; pass `with_keyset=True` to also receive the key set
as the first argument (needed to `redispatch` from a layer such as Autograd), as PyTorch does.
"""

from ._dispatch_key import ALIAS_KEYS, DispatchKey
from .dispatch import dispatcher
from .dispatch.ops_namespace import ops

_KINDS = ("DEF", "IMPL", "FRAGMENT")


class Library:
    def __init__(self, ns, kind):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == "DEF" and any(name.startswith(ns + "::") for name in dispatcher.OPERATORS):
            raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}")
        self.ns = ns
        self.kind = kind
        self._defined = []

    def define(self, schema, alias_analysis=""):
        """Add an operator `ns::name.overload` with this schema; returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError("define() is not allowed on a Library of kind IMPL")
        op = dispatcher.define(schema, namespace=self.ns)
        self._defined.append(op.name)
        return op.schema.full_name

    def impl(self, op_name, fn, dispatch_key="CompositeImplicitAutograd", *, with_keyset=False):
        """Register `fn` as the kernel of `op_name` for a runtime key ("CPU", "Meta", ...) or an alias key."""
        name = op_name if "::" in op_name else f"{self.ns}::{op_name}"
        op = dispatcher.lookup(name)
        key = dispatch_key if dispatch_key in ALIAS_KEYS else DispatchKey[dispatch_key]
        if fn is dispatcher.FALLTHROUGH:
            kernel = fn
        elif with_keyset:
            kernel = fn
        else:
            kernel = dispatcher.without_keyset(fn)
        dispatcher.impl(op, key, kernel)

    def fallback(self, fn, dispatch_key):
        """A boxed fallback `fn(op, keyset, *args)` for every op at `dispatch_key`."""
        dispatcher.register_fallback(DispatchKey[dispatch_key], fn)

    def _destroy(self):
        for name in self._defined:
            dispatcher.OPERATORS.pop(name, None)
            # and the packet `ops.<ns>.<name>` kept from a lookup, as PyTorch's Library._destroy deletes it
            ns, _, rest = name.partition("::")
            namespace = ops.__dict__.get(ns)
            if namespace is not None:
                namespace.__dict__.pop(rest.split(".")[0], None)
        self._defined.clear()


fallthrough_kernel = dispatcher.FALLTHROUGH


def define(qualname, schema):
    """`define("ns::name", "(Tensor x) -> Tensor")`, the short form of `Library(ns, "FRAGMENT").define`."""
    ns, name = qualname.split("::")
    return dispatcher.define(name + schema, namespace=ns)


def impl(qualname, dispatch_key, fn=None):
    """`impl("ns::name", "CPU", fn)`, also usable as a decorator."""
    def register(f):
        op = dispatcher.lookup(qualname)
        key = dispatch_key if dispatch_key in ALIAS_KEYS else DispatchKey[dispatch_key]
        dispatcher.impl(op, key, dispatcher.without_keyset(f))
        return f
    return register(fn) if fn is not None else register
