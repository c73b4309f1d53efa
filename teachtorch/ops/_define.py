"""How ops become functions and Tensor methods.

PyTorch generates its Python API from `native_functions.yaml`: for each op a schema, a function in `torch`
and, when the entry says `variants: method`, a `Tensor` method (tools/autograd/gen_python_functions.py).
teachtorch does the same by hand, in small steps a reader can follow:

    op = define("exp(Tensor self) -> Tensor")          # the operator and its schema (dispatch/dispatcher.py)
    register_kernel(op, exp_kernel)                     # backend kernels (CPU, CUDA, Meta)
    exp = function(op)                                  # teachtorch.exp(input)
    Tensor.exp = method(op)                             # x.exp()

Every one of them ends in `dispatcher.call(op, args)`, so every op, method or function, is dispatched.
"""

from .._dispatch_key import CompositeImplicitAutograd, DispatchKey
from .._tensor import Tensor
from ..backends import cuda as cuda_backend
from ..backends.device_check import cuda_kernel
from ..dispatch.dispatcher import call, define, impl, without_keyset

# The backends. A kernel is written once against an array module `xp` (NumPy or CuPy), so the same
# function is registered under CPU, CUDA and Meta; under CUDA it is wrapped the way PyTorch's generated
# RegisterCUDA.cpp wraps it: check that every tensor is on one device, and make that GPU current.
KERNEL_KEYS = [DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta]
KERNELS = []   # (op, kernel) pairs, in registration order


def register_kernel(op, kernel):
    KERNELS.append((op, kernel))
    impl(op, DispatchKey.CPU, kernel)
    impl(op, DispatchKey.Meta, kernel)
    if getattr(kernel, "device_check", True):
        impl(op, DispatchKey.CUDA, cuda_kernel(op, kernel, cuda_backend.current_device, cuda_backend.device_guard))
    else:   # `device_check: NoCheck`: the kernel checks devices itself (TensorIterator ops, copy_)
        impl(op, DispatchKey.CUDA, kernel)
    return kernel


def kernel_op(schema, kernel):
    """Define an op and register its backend kernel `kernel(keyset, *args)`."""
    op = define(schema)
    register_kernel(op, kernel)
    return op


def composite_op(schema, fn):
    """Define a CompositeImplicitAutograd op: `fn(*args)` calls other ops, each dispatched in turn.

    Such an op gets no ADInplaceOrView kernel even when it writes (`max.out`): the ops it calls bump the
    version counters, and a second bump would count one write twice (PyTorch generates none for them either).
    """
    op = define(schema)
    impl(op, CompositeImplicitAutograd, without_keyset(fn))
    if op.kernels.pop(DispatchKey.ADInplaceOrView, None) is not None:
        op._compute_table()
    return op


def inplace_schema(schema):
    """`exp(Tensor self) -> Tensor`  ->  `exp_(Tensor(a!) self) -> Tensor(a!)`."""
    name, rest = schema.split("(", 1)
    base, _, overload = name.partition(".")
    rest = rest.replace("Tensor self", "Tensor(a!) self", 1)
    head = f"{base}_.{overload}" if overload else f"{base}_"
    return head + "(" + rest.rsplit("->", 1)[0].rstrip() + " -> Tensor(a!)"


def out_schema(schema):
    """`exp(Tensor self) -> Tensor`  ->  `exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)`."""
    name, rest = schema.split("(", 1)
    base = name.split(".")[0]
    args = rest.rsplit("->", 1)[0].rstrip()[:-1]   # drop the closing parenthesis
    sep = ", Tensor(a!) out" if "*" in args else (", *, Tensor(a!) out" if args else "*, Tensor(a!) out")
    return f"{base}.out({args}{sep}) -> Tensor(a!)"


def public_name(fn, name):
    """Give a public function (or Tensor method) made for one of several ops its public name, as PyTorch's
    generated bindings are named (`torch.max.__name__ == "max"`), so `help()` and `repr` show it.

    Only public functions are named so: a kernel keeps the name of its `def`, which is what a dispatch trace
    shows and what grep finds.
    """
    fn.__name__ = fn.__qualname__ = name
    return fn


def function(op, out_op=None, name=None, doc=None):
    """The public function `teachtorch.<name>(...)`, with `out=` when the op has an out variant."""
    if out_op is None:
        def fn(*args, **kwargs):
            return op(*args, **kwargs)
    else:
        def fn(*args, out=None, **kwargs):
            if out is None:
                return op(*args, **kwargs)
            return out_op(*args, out=out, **kwargs)
    public_name(fn, name or op.schema.name)
    fn.__doc__ = doc or f"Dispatches `{op.schema}`."
    return fn


def method(op, name=None):
    """A Tensor method calling `op` with the tensor as `self`."""
    def m(self, *args, **kwargs):
        return op(self, *args, **kwargs)
    public_name(m, name or op.schema.name)
    m.__doc__ = f"Dispatches `{op.schema}`."
    return m


def bind_method(name, fn):
    setattr(Tensor, name, fn)


__all__ = ["define", "call", "public_name", "register_kernel", "kernel_op", "composite_op", "function", "method",
           "bind_method", "inplace_schema", "out_schema", "Tensor"]
