"""Register new operators from outside teachtorch, as `torch.library` does.

    lib = teachtorch.library.Library("teach", "DEF")
    lib.define("mysin(Tensor x) -> Tensor")
    lib.impl("mysin", lambda x: teachtorch.from_numpy(np.sin(x.numpy())), "CPU")
    teachtorch.ops.teach.mysin(x)           # dispatched like any built-in op; traces show `teach.mysin`

This mirrors PyTorch's `torch.library.Library(ns, "DEF" | "IMPL" | "FRAGMENT")`, `.define(schema)` and
`.impl(name, fn, dispatch_key)` (torch/library.py), which fill the same operator table as the built-in ops.
Kernels registered here receive the op's arguments only; pass `with_keyset=True` to also receive the key set
as the first argument (needed to `redispatch` from a layer such as Autograd), as PyTorch does.

Two shortcuts write the usual kernels for you, as PyTorch's do:

    register_fake("teach::mysin", lambda x: teachtorch.empty_like(x))      # the Meta kernel: shapes only
    register_autograd("teach::mysin", backward, setup_context=setup)        # the Autograd kernel

`register_autograd` builds the Autograd layer lesson 5 writes by hand: an `autograd.Function` whose forward
redispatches below the autograd keys and calls `setup_context(ctx, inputs, output)`, and whose backward is
yours. It uses the autograd engine, so this file sits above it (tests/test_layering.py).
"""

from ._dispatch_key import ALIAS_KEYS, DispatchKey
from .autograd.function import Function
from .dispatch import dispatcher
from .dispatch.ops_namespace import OpOverloadPacket, ops

# a key set with every key below the autograd keys: what an Autograd kernel redispatches to (PyTorch:
# c10::after_autograd_keyset)
AFTER_AUTOGRAD = (1 << DispatchKey.AutogradCPU) - 1

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


def _operator(op):
    """The operator `op` names: "ns::name", "ns::name.overload", an ops packet (its default) or an overload."""
    if isinstance(op, str):
        return dispatcher.lookup(op)
    if isinstance(op, OpOverloadPacket):
        return op.default
    return op


def register_fake(op, func=None, *, lib=None):
    """Register `func` as the Meta kernel of `op`, its shape function: called with meta tensors, it returns
    tensors of the output's shape, dtype and device and computes nothing (PyTorch: `torch.library.
    register_fake`, used by FakeTensor and torch.compile). Usable as a decorator."""
    def register(f):
        dispatcher.impl(_operator(op), DispatchKey.Meta, dispatcher.without_keyset(f))
        return f
    return register(func) if func is not None else register


def register_autograd(op, backward, *, setup_context=None, lib=None):
    """Make `op` differentiable, as `torch.library.register_autograd` does.

    `setup_context(ctx, inputs, output)` runs after the forward and saves on `ctx` what the backward needs
    (`ctx.save_for_backward(...)` for tensors); `backward(ctx, *grads)` returns one gradient per input of the
    op, None for the ones that are not tensors. The node in the graph is named as PyTorch names it:
    `GeneratedBackwardFor_<ns>_<name>_<overload>Backward`."""
    entry = _operator(op)
    ns, _, rest = entry.name.partition("::")
    name, _, overload = rest.partition(".")

    def forward(ctx, ks, *args):
        out = dispatcher.redispatch(entry, ks & AFTER_AUTOGRAD, args)   # on to the backend kernel
        if setup_context is not None:
            setup_context(ctx, args, out)
        return out

    def backward_with_keyset(ctx, *grads):
        grads_in = backward(ctx, *grads)
        grads_in = grads_in if isinstance(grads_in, tuple) else (grads_in,)
        return (None,) + grads_in                                         # none for `ks`

    node = type(f"GeneratedBackwardFor_{ns}_{name}_{overload or 'default'}", (Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward_with_keyset)})

    def autograd_kernel(ks, *args):
        return node.apply(ks, *args)
    dispatcher.impl(entry, "Autograd", autograd_kernel)
