"""The dispatcher: every op call goes through `call`, and every layer hands on with `redispatch`.

How PyTorch does it (aten/src/ATen/core/dispatch/Dispatcher.h, OperatorEntry.cpp, DispatchKeyExtractor.h):

1. Each operator (`aten::add.Tensor`) has a schema and a *dispatch table*: one kernel per runtime key.
2. A call computes the key set: the OR of its tensor arguments' key sets, plus the thread's included keys,
   minus its excluded keys, minus the keys this op falls through.
3. It runs the kernel of the highest key. A layer's kernel does its job and calls `redispatch` with the keys
   below its own, so the next layer runs: Autograd -> ADInplaceOrView -> ... -> CPU.

The table is filled when kernels are registered, not at call time (OperatorEntry::computeDispatchTableEntry):
for each runtime key the first of these wins:

    a kernel registered directly to that key
    CompositeExplicitAutograd   (backend keys: one kernel for every backend, e.g. view ops need no device code)
    CompositeImplicitAutograd   (backend keys, and autograd keys of backends with no kernel of their own:
                                 a "math" kernel made of other ops, so autograd falls out of the pieces)
    Autograd                    (autograd keys)
    the key's backend fallback  (one kernel for every op, or a *fallthrough* that skips the key)
    missing                     -> NotImplementedError "Could not run 'aten::foo' with arguments from ..."

Kernels are called as `kernel(keyset, *args)`, args normalised to schema order, so a kernel can redispatch.
With no trace active, the only extra cost of tracing is the one `if _active_trace is not None` check.
"""

import functools
import os

from .._dispatch_key import (
    ALIAS_KEYS, AUTOGRAD_KEYS, BACKEND_KEYS, BACKEND_OF_AUTOGRAD_KEY, NUM_KEYS, Autograd,
    CompositeExplicitAutograd, CompositeImplicitAutograd, DispatchKey, bit,
)
from .._tensor import Tensor
from .schema import parse_schema

FALLTHROUGH = "fallthrough"   # register this as a kernel to make the dispatcher skip a key

OPERATORS = {}                # "aten::add.Tensor" -> OpOverload
_backend_fallbacks = {}       # DispatchKey -> boxed kernel `fn(op, keyset, *args)` or FALLTHROUGH
_active_trace = None          # set by dispatch.trace(); see trace.py


class LocalDispatchKeySet:
    """PyTorch's thread-local include/exclude sets (c10/core/impl/LocalDispatchKeySet.h).

    PyTorch keeps one per thread; teachtorch runs ops on one thread, so it keeps one. `include` always holds
    BackendSelect (so factory functions with no tensor argument reach it) and ADInplaceOrView.
    """

    include = bit(DispatchKey.BackendSelect) | bit(DispatchKey.ADInplaceOrView)
    exclude = 0


tls = LocalDispatchKeySet


class OpOverload:
    """One operator overload, `aten::add.Tensor`: its schema, registered kernels and dispatch table."""

    __slots__ = ("namespace", "name", "schema", "kernels", "table", "sources", "mask", "tensor_args",
                 "int_args", "nargs", "__name__")

    def __init__(self, namespace, schema):
        self.namespace = namespace
        self.schema = schema
        self.name = f"{namespace}::{schema.full_name}"
        self.__name__ = schema.full_name
        self.kernels = {}          # what was registered: key or alias key -> kernel
        self.nargs = len(schema.arguments)
        # (position, is_list) of every Tensor, Tensor? and Tensor[] argument: where key sets come from
        self.tensor_args = tuple((i, a.type.endswith("[]")) for i, a in enumerate(schema.arguments) if a.is_tensor)
        self.int_args = schema.int_positions   # Python numbers checked on every call from Python
        self._compute_table()

    # ---- calling ----------------------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != self.nargs:
            args = self.schema.bind(args, kwargs, self.schema.name)
        if self.int_args:
            args = self.schema.check_int64(args, self.int_args)
        return call(self, args)

    def __repr__(self):
        return f"<OpOverload {self.name}>"

    def __str__(self):
        return python_name(self.name)

    @property
    def __doc__(self):
        return str(self.schema)

    # ---- the dispatch table -----------------------------------------------------------------------------

    def _compute_table(self):
        table, sources, mask = [], [], (1 << NUM_KEYS) - 1
        for key in DispatchKey:
            kernel, source = self._compute_entry(key)
            if kernel is FALLTHROUGH:
                mask &= ~bit(key)   # fallthrough keys are masked out once, here, so skipping them is free
            table.append(kernel)
            sources.append(source)
        # Slot -1 is taken when no key at all is set (no tensor argument and no backend to select).
        table.append(self._missing(None))
        self.table, self.sources, self.mask = table, sources, mask

    def _compute_entry(self, key):
        k = self.kernels
        if key in k:
            return k[key], "kernel"
        if key in BACKEND_KEYS:
            if CompositeExplicitAutograd in k:
                kernel = k[CompositeExplicitAutograd]
                return kernel, f"{kernel_name(kernel)} [default backend kernel: CompositeExplicitAutograd]"
            if CompositeImplicitAutograd in k:
                kernel = k[CompositeImplicitAutograd]
                return kernel, f"{kernel_name(kernel)} [math kernel: CompositeImplicitAutograd]"
        if key in AUTOGRAD_KEYS:
            backend = BACKEND_OF_AUTOGRAD_KEY[key]
            if CompositeImplicitAutograd in k and backend not in k and CompositeExplicitAutograd not in k:
                kernel = k[CompositeImplicitAutograd]
                return kernel, f"{kernel_name(kernel)} [math kernel: CompositeImplicitAutograd]"
            if Autograd in k:
                return k[Autograd], f"{kernel_name(k[Autograd])} [autograd kernel: Autograd]"
        fallback = _backend_fallbacks.get(key)
        if fallback is FALLTHROUGH:
            return FALLTHROUGH, "fallthrough"
        if fallback is not None:
            # A boxed fallback serves every op, so it is told which one: fallback(op, keyset, *args).
            return functools.partial(fallback, self), f"{kernel_name(fallback)} [backend fallback]"
        return self._missing(key), "missing"

    def _missing(self, key):
        name = self.name

        def missing_kernel(ks, *args):
            available = [k.name for k in DispatchKey if self.sources[k] not in ("missing",)
                         and not self.sources[k].startswith("fallthrough")]
            where = "the 'Undefined' backend" if key is None else f"the '{key.name}' backend"
            raise NotImplementedError(
                f"Could not run '{name}' with arguments from {where}. This could be because the operator "
                f"doesn't exist for this backend. '{name}' is only available for these backends: "
                f"[{', '.join(available)}]."
            )

        return missing_kernel

    def dump_table(self):
        """Which kernel each runtime key resolves to, like `torch._C._dispatch_dump_table`."""
        lines = []
        for key in reversed(DispatchKey):
            source = self.sources[key]
            if source == "missing":
                continue
            kernel = self.table[key]
            if kernel is FALLTHROUGH:
                lines.append(f"{key.name}: fallthrough [backend fallback]")
            elif source == "kernel":
                lines.append(f"{key.name}: {kernel_name(kernel)} [kernel]")
            else:
                lines.append(f"{key.name}: {source}")
        return "\n".join(lines)


def python_name(name):
    """"aten::add.Tensor" -> "aten.add.Tensor", and "aten::sum" -> "aten.sum.default", as PyTorch prints ops."""
    ns, rest = name.split("::")
    return f"{ns}.{rest}" if "." in rest else f"{ns}.{rest}.default"


def without_keyset(fn):
    """The kernel `kernel(ks, *args)` of a function `fn(*args)` that never redispatches (composite and view
    kernels, `torch.library` kernels): the keyset is dropped, and the trace shows `fn` (`__wrapped__`)."""
    def kernel(ks, *args):
        return fn(*args)
    kernel.__wrapped__ = fn
    return kernel


def kernel_function(fn):
    """The Python function a registered kernel runs, looking through `functools.partial` and through wrappers
    that name what they wrap in `__wrapped__` (as `functools.wraps` does): the CUDA device check, the
    keyset-dropping wrapper of composite and view kernels, `torch.library` kernels."""
    while True:
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif getattr(fn, "__wrapped__", None) is not None:
            fn = fn.__wrapped__
        else:
            return fn


def kernel_name(fn):
    """The name a trace shows for a kernel: the name of its `def` in the source, so it can be grepped.

    A function defined inside another shows its own name (`autograd_kernel`, not
    `make_autograd_kernel.<locals>.autograd_kernel`). A kernel shared by several ops shows what it was made
    with, as the code that made it reads: a method of a kernel object its object (`PointwiseKernel(
    pointwise_math.add).functional`), a `functools.partial` its bound names (`max_min_dim_kernel('max')`), a
    wrapper object what it wraps (`DeviceCheck(mm_kernel)`).
    """
    bound = []
    while True:
        if isinstance(fn, functools.partial):
            bound = [a for a in fn.args if isinstance(a, str)] + bound
            fn = fn.func
        elif getattr(fn, "__wrapped__", None) is not None:
            fn = fn.__wrapped__
        else:
            break
    owner = getattr(fn, "__self__", None)
    if owner is not None and type(owner).__repr__ is not object.__repr__ and not isinstance(owner, type):
        return f"{owner!r}.{fn.__name__}"
    if not hasattr(fn, "__code__") and hasattr(getattr(type(fn), "__call__", None), "__code__"):
        return repr(fn)       # a kernel object called directly: DeviceCheck(mm_kernel)
    name = getattr(fn, "__qualname__", None) or getattr(type(fn), "__qualname__", None) or repr(fn)
    if not name.endswith("<lambda>"):     # a lambda (a user's `torch.library` kernel) keeps where it is
        name = name.rsplit("<locals>.", 1)[-1]
    return f"{name}({', '.join(map(repr, bound))})" if bound else name


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # the folder of teachtorch/
_sources = {}    # code object -> "teachtorch/kernels/pointwise.py:322" (traces ask on every hop)


def kernel_source(fn):
    """Where a kernel is written, as `file:line` of its `def` ("teachtorch/kernels/pointwise.py:312"), so that
    every hop of a trace can be opened in the source. "" for what has no Python code (a builtin)."""
    fn = kernel_function(fn)
    code = getattr(fn, "__code__", None) or getattr(getattr(type(fn), "__call__", None), "__code__", None)
    if code is None:
        return ""
    where = _sources.get(code)
    if where is None:
        path = code.co_filename
        if path.startswith(_ROOT + os.sep):
            path = os.path.relpath(path, _ROOT).replace(os.sep, "/")
        where = _sources[code] = f"{path}:{code.co_firstlineno}"
    return where


# ---- registration ---------------------------------------------------------------------------------------


def define(schema_text, namespace="aten"):
    """Add an operator to the registry (`TORCH_LIBRARY(ns, m) { m.def(schema) }`) and return it."""
    schema = parse_schema(schema_text)
    name = f"{namespace}::{schema.full_name}"
    if name in OPERATORS:
        raise RuntimeError(f"Tried to register an operator ({name}) with the same name and overload name "
                           f"multiple times.")
    op = OpOverload(namespace, schema)
    OPERATORS[name] = op
    _on_define(op)
    return op


def impl(op, key, kernel):
    """Register `kernel(keyset, *args)` for `op` under a runtime key or an alias key; refill the table."""
    if isinstance(op, str):
        op = lookup(op)
    if not (key in ALIAS_KEYS or isinstance(key, DispatchKey)):
        key = DispatchKey[key]
    op.kernels[key] = kernel
    op._compute_table()
    return kernel


def register_fallback(key, kernel):
    """A backend fallback: `kernel(op, keyset, *args)` for every op without its own kernel at `key`."""
    _backend_fallbacks[key] = kernel
    for op in OPERATORS.values():
        op._compute_table()


def lookup(name):
    """`lookup("add.Tensor")` or `lookup("aten::add.Tensor")`."""
    if "::" not in name:
        name = "aten::" + name
    try:
        return OPERATORS[name]
    except KeyError:
        raise RuntimeError(f"No such operator {name}") from None


# Hooks run on every new operator (the ADInplaceOrView layer registers its kernels here).
_define_hooks = []


def _on_define(op):
    for hook in _define_hooks:
        hook(op)


# ---- the call path --------------------------------------------------------------------------------------


def keyset_of(op, args):
    """Step 2: OR the key sets of every tensor argument, add TLS-included keys, drop excluded ones."""
    ks = 0
    for i, is_list in op.tensor_args:
        a = args[i]
        if is_list:
            for t in a:
                if isinstance(t, Tensor):
                    ks |= t._keys
        elif isinstance(a, Tensor):
            ks |= a._keys
    return (ks | tls.include) & ~tls.exclude


def call(op, args):
    """Run `op` on normalised `args` from the top: the highest key of the call's key set goes first."""
    ks = keyset_of(op, args) & op.mask
    key = ks.bit_length() - 1          # the highest set bit
    if _active_trace is not None:
        return _active_trace.hop(op, key, ks, args)
    return op.table[key](ks, *args)


def redispatch(op, ks, args):
    """Hand on to the next layer: `ks` is the caller's key set with its own key and all above removed."""
    ks &= op.mask
    key = ks.bit_length() - 1
    if _active_trace is not None:
        return _active_trace.hop(op, key, ks, args)
    return op.table[key](ks, *args)
