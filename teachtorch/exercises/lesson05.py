"""Lesson 5, how an op is dispatched: the exercises.

    L05.dispatch_path    dispatch_path(keys, table) -> the dispatch keys a call runs at, in order
    L05.register_axpby   register_axpby(lib): define `axpby(x, y, alpha, beta) = alpha*x + beta*y` in `lib`,
                         with a CPU (and CUDA) kernel, a Meta kernel and an Autograd kernel

`dispatch_path` is checked against teachtorch's own dispatcher: each case builds a real operator in a scratch
namespace, registers at each key a kernel of the kind the table says ("layer": do nothing and redispatch
below itself; "kernel": compute and return; "fallthrough": `dispatcher.FALLTHROUGH`), runs it with
`dispatcher.redispatch` on that key set under `dispatch.trace()`, and reads the trace's keys. PyTorch's
counterpart: `Dispatcher::call` / `redispatch` in aten/src/ATen/core/dispatch/Dispatcher.h, with the key order
of c10/core/DispatchKey.h.

`register_axpby` is run on a fresh `teachtorch.library.Library` each case (destroyed after it, so it can run
again and again). The check calls the new op on seeded random float32 tensors of small shapes and compares:
the dispatch keys the trace records for a call whose inputs require grad (`["AutogradCPU", "CPU"]`), the
values (alpha*x + beta*y), the shape and device of a call on meta tensors, whether the CUDA slot of the op's
dispatch table holds a kernel (read from the table: the check needs no GPU), and the gradients of x and y for a
random upstream gradient. PyTorch's counterpart is the same code with `torch.library.Library` (torch/library.py;
`torch.library.register_fake` and `torch.library.register_autograd` write the Meta and Autograd kernels for
you, as `register_fake` and `register_autograd` in teachtorch/library.py do here).
"""

from collections import namedtuple

import numpy as np

from .. import _tensor
from .._dispatch_key import DispatchKey, below, bit
from ..dispatch import dispatcher
from ..dispatch.trace import trace
from ..library import Library
from .core import Exercise

# ---- L05.dispatch_path ---------------------------------------------------------------------------------------

KINDS = ("layer", "kernel", "fallthrough")
_SCRATCH = "l05scratch"


def _scratch_kernel(op, key, kind):
    if kind == "fallthrough":
        return dispatcher.FALLTHROUGH
    if kind == "kernel":
        def kernel(ks, x):
            return x
        return kernel

    def layer(ks, x):                       # does its part (nothing), then hands on to the keys below it
        return dispatcher.redispatch(op, ks & below(key), (x,))
    return layer


def _dispatch_path(keys, table):
    """The keys teachtorch's dispatcher runs at, read from a trace of a real operator with this table."""
    from .. import zeros
    name = f"{_SCRATCH}::path"
    dispatcher.OPERATORS.pop(name, None)
    op = dispatcher.define("path(Tensor x) -> Tensor", namespace=_SCRATCH)
    try:
        for key_name, kind in table.items():
            key = DispatchKey[key_name]
            dispatcher.impl(op, key, _scratch_kernel(op, key, kind))
        ks = sum(bit(DispatchKey[k]) for k in keys)
        x = zeros(1)
        with trace() as t:
            dispatcher.redispatch(op, ks, (x,))
        return [e.key for e in t.events if e.op == name]
    finally:
        dispatcher.OPERATORS.pop(name, None)


_LAYER_KEYS = ("AutogradCPU", "AutogradCUDA", "AutogradMeta", "ADInplaceOrView", "Python", "BackendSelect")
_BACKENDS = ("CPU", "CUDA", "Meta")


def _random_path_case(rng):
    backends = [b for b in _BACKENDS if rng.random() < 0.4] or [_BACKENDS[int(rng.integers(0, 3))]]
    layers = [k for k in _LAYER_KEYS if rng.random() < 0.55]
    table = {k: "kernel" for k in backends}
    for k in layers:
        table[k] = str(rng.choice(KINDS, p=[0.5, 0.15, 0.35]))
    keys = list(table)
    rng.shuffle(keys)
    return keys, {k: table[k] for k in keys}


_ADD = {"AutogradCPU": "layer", "ADInplaceOrView": "fallthrough", "BackendSelect": "fallthrough", "CPU": "kernel"}
_PATH_KNOWN = [
    # a + b on cpu: autograd, then the CPU kernel (ADInplaceOrView and BackendSelect fall through)
    ((["CPU", "BackendSelect", "AutogradCPU", "ADInplaceOrView"], _ADD), ["AutogradCPU", "CPU"]),
    # a.add_(b): ADInplaceOrView has a kernel that bumps the version counter, then redispatches
    ((["CPU", "BackendSelect", "AutogradCPU", "ADInplaceOrView"], {**_ADD, "ADInplaceOrView": "layer"}),
     ["AutogradCPU", "ADInplaceOrView", "CPU"]),
    # a + b on meta tensors, inside a TorchDispatchMode (the Python key's fallback hands the call on)
    ((["ADInplaceOrView", "Python", "Meta", "AutogradMeta"],
      {"ADInplaceOrView": "fallthrough", "Python": "layer", "Meta": "kernel", "AutogradMeta": "layer"}),
     ["AutogradMeta", "Python", "Meta"]),
    # x.reshape(...): a math kernel (CompositeImplicitAutograd) at AutogradCPU calls other ops: the call of
    # reshape itself ends there
    ((["ADInplaceOrView", "CPU", "AutogradCPU"], {"ADInplaceOrView": "fallthrough", "CPU": "kernel",
                                                  "AutogradCPU": "kernel"}), ["AutogradCPU"]),
    # tt.zeros(3): no tensor argument; BackendSelect's kernel reads `device=` and adds that backend's key (the
    # model cannot add keys: CPU is in the set already)
    ((["ADInplaceOrView", "CPU", "BackendSelect"], {"BackendSelect": "layer", "ADInplaceOrView": "fallthrough",
                                                    "CPU": "kernel"}), ["BackendSelect", "CPU"]),
]

# ---- L05.register_axpby --------------------------------------------------------------------------------------

AxpbyResult = namedtuple("AxpbyResult", "keys value meta cuda x_grad y_grad")
_CHECK_NS = "l05check"


def _inputs(shape, seed):
    """x, y and the upstream gradient g of one case, as float32 NumPy arrays (seed None: x = 0, 1, 2, ...; y = 1)."""
    n = int(np.prod(shape))
    if seed is None:
        return (np.arange(n, dtype=np.float32).reshape(shape), np.ones(shape, np.float32),
                np.ones(shape, np.float32))
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(shape).astype(np.float32) for _ in range(3))


def _axpby_expected(shape, alpha, beta, seed):
    from .. import tensor
    x, y, g = _inputs(shape, seed)
    value = np.float32(alpha) * x + np.float32(beta) * y
    return AxpbyResult(["AutogradCPU", "CPU"], tensor(value), (tuple(shape), "meta"), "a kernel",
                       tensor(np.float32(alpha) * g), tensor(np.float32(beta) * g))


def _error(e):
    return f"{type(e).__name__}: {str(e)[:150]}"


def _try(fn):
    try:
        return fn()
    except Exception as e:           # a missing kernel, a failing backward: a value to compare, not a crash
        return _error(e)


def _run_axpby(op, shape, alpha, beta, seed):
    """Call the registered op as the check does: (keys, value, meta, cuda, x.grad, y.grad). `cuda` is read from
    the dispatch table (this machine may have no GPU): does the CUDA slot hold a kernel of the op's own?"""
    from .. import empty, tensor
    xa, ya, ga = _inputs(shape, seed)
    x, y = tensor(xa, requires_grad=True), tensor(ya, requires_grad=True)
    with trace() as t:
        out = _try(lambda: op(x, y, alpha, beta))
    keys = [e.key for e in t.events if e.op == op.name]
    value = out.detach() if isinstance(out, _tensor.Tensor) else out

    def meta():
        m = op(empty(shape, device="meta"), empty(shape, device="meta"), alpha, beta)
        return tuple(m.shape), m.device.type

    def backward():
        if not isinstance(out, _tensor.Tensor):
            raise RuntimeError("the call failed: no output to run backward from")
        out.backward(tensor(ga))
        return x.grad, y.grad
    grads = _try(backward)
    x_grad, y_grad = grads if isinstance(grads, tuple) else (grads, grads)
    source = op.sources[DispatchKey.CUDA]
    cuda = "a kernel" if source != "missing" and "fallback" not in source else f"none ({source})"
    return AxpbyResult(keys, value, _try(meta), cuda, x_grad, y_grad)


def _call_register(answer, args):
    """Give the answer a fresh library, run the op, destroy the library (and anything left in its namespace)."""
    for name in [n for n in dispatcher.OPERATORS if n.startswith(_CHECK_NS + "::")]:
        dispatcher.OPERATORS.pop(name)
    lib = Library(_CHECK_NS, "DEF")
    try:
        answer(lib)                  # the stub's NotImplementedError goes up: "not solved yet"
        op = dispatcher.lookup(f"{_CHECK_NS}::axpby")
        return _run_axpby(op, *args)
    finally:
        lib._destroy()
        for name in [n for n in dispatcher.OPERATORS if n.startswith(_CHECK_NS + "::")]:
            dispatcher.OPERATORS.pop(name)
        from ..dispatch.ops_namespace import ops
        ops.__dict__.pop(_CHECK_NS, None)


def _random_axpby_case(rng):
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(0, 4))))
    alpha, beta = (round(float(rng.uniform(-3, 3)), 2) for _ in range(2))
    return shape, alpha, beta, int(rng.integers(0, 2**31))


EXERCISES = [
    Exercise(
        name="L05.dispatch_path",
        title="dispatch_path(keys, table): the keys a call with this key set runs at, highest first",
        reference=_dispatch_path,
        known=_PATH_KNOWN,
        random_args=_random_path_case,
        hints=["Go through the keys from the highest priority to the lowest: "
               "sorted(keys, key=lambda k: DispatchKey[k], reverse=True).",
               "A 'fallthrough' key is skipped (not in the path); a 'layer' runs and hands on to the keys below "
               "it; a 'kernel' runs and the call ends there.",
               "path = []; for each key, highest first: skip fallthroughs, append the key, stop after a 'kernel'."],
        solution='''def dispatch_path(keys, table):
    from teachtorch.dispatch import DispatchKey
    path = []
    for key in sorted(keys, key=lambda k: DispatchKey[k], reverse=True):
        if table[key] == "fallthrough":
            continue
        path.append(key)
        if table[key] == "kernel":
            break
    return path''',
    ),
    Exercise(
        name="L05.register_axpby",
        title="register_axpby(lib): define axpby in `lib`, with CPU/CUDA, Meta and Autograd kernels",
        reference=_axpby_expected,
        known=[(((3,), 2.0, 3.0, None), _axpby_expected((3,), 2.0, 3.0, None)),
               (((2, 2), 0.5, -1.0, None), _axpby_expected((2, 2), 0.5, -1.0, None)),
               (((2, 3), 1.5, 0.0, 7), _axpby_expected((2, 3), 1.5, 0.0, 7))],
        random_args=_random_axpby_case,
        call=_call_register,
        hints=["The result compares (keys, value, meta, cuda, x_grad, y_grad): the first item that differs is the piece "
               "to fix. Do what sections 5 to 7 do for `scale`: lib.define, then lib.impl once per key.",
               "The CPU kernel gets plain tensors: compute alpha * x._data() + beta * y._data() and wrap it. The "
               "Meta kernel only makes an empty tensor of the right shape: tt.empty_like(x).",
               "The Autograd kernel (with_keyset=True) runs a Function whose forward redispatches with "
               "ks & BELOW_AUTOGRAD (so the trace shows AutogradCPU then CPU) and whose backward returns "
               "(None, grad * alpha, grad * beta, None, None)."],
        solution='''def register_axpby(lib):
    import teachtorch as tt
    from teachtorch.backends import wrap
    from teachtorch.dispatch import DispatchKey, redispatch
    BELOW_AUTOGRAD = (1 << DispatchKey.AutogradCPU) - 1

    lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
    op = tt.dispatch.lookup(f"{lib.ns}::axpby")

    def axpby_kernel(x, y, alpha, beta):
        return wrap(alpha * x._data() + beta * y._data(), x.dtype, x.device)

    def axpby_meta(x, y, alpha, beta):
        return tt.empty_like(x)

    class Axpby(tt.autograd.Function):
        @staticmethod
        def forward(ctx, ks, x, y, alpha, beta):
            ctx.alpha, ctx.beta = alpha, beta
            return redispatch(op, ks & BELOW_AUTOGRAD, (x, y, alpha, beta))

        @staticmethod
        def backward(ctx, grad):
            return None, grad * ctx.alpha, grad * ctx.beta, None, None

    def axpby_autograd(ks, x, y, alpha, beta):
        return Axpby.apply(ks, x, y, alpha, beta)

    lib.impl("axpby", axpby_kernel, "CPU")
    lib.impl("axpby", axpby_kernel, "CUDA")
    lib.impl("axpby", axpby_meta, "Meta")
    lib.impl("axpby", axpby_autograd, "Autograd", with_keyset=True)''',
    ),
]
