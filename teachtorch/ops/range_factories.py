"""Ranges: `arange`, `linspace`, `logspace`, `eye` (aten/src/ATen/native/RangeFactories.cpp).

Factory ops like those in factories.py (BackendSelect picks the backend from `device=`). Their kernels, in
kernels/range_factories.py, compute the values the way PyTorch's kernels compute them, step for step, so
that they match to the last bit: `arange` element i is `start + i * step` in the accumulate type,
`linspace` fills from both ends.
"""

import operator

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..kernels import range_factories as K
from ._define import kernel_op
from .factories import (  # the argument checks and helpers every factory shares
    _FACTORY_TAIL, _as_number, _check_dtype, _factory, _finish, _is_index, _type_name, check_device, check_out,
    check_requires_grad,
)

# PyTorch's three overloads, one per way of calling it: arange(end), arange(start, end), arange(start, end, step)
arange_end_op = _factory(f"arange(Scalar end, {_FACTORY_TAIL}) -> Tensor", K.arange_end_kernel)
arange_start_op = _factory(f"arange.start(Scalar start, Scalar end, {_FACTORY_TAIL}) -> Tensor", K.arange_start_kernel)
arange_op = _factory(f"arange.start_step(Scalar start, Scalar end, Scalar step=1, {_FACTORY_TAIL}) -> Tensor",
                     K.arange_kernel)
arange_out_op = kernel_op("arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)",
                          K.arange_out_kernel)

_ARANGE_SIGNATURES = (
    " * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout "
    "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


def _number(v, fn, given):
    """A `Number` argument: Python numbers, NumPy scalars and 0-d tensors (read with .item())."""
    if isinstance(v, Tensor) and v.dim() == 0:
        return v.item()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (bool, int, float)):
        return v
    raise TypeError(f"{fn}() received an invalid combination of arguments - got ({', '.join(given)}), but "
                    f"expected one of:\n" + _ARANGE_SIGNATURES)


_MISSING = object()


def arange(start=_MISSING, end=_MISSING, step=_MISSING, *, dtype=None, device=None, requires_grad=False, out=None,
           layout=None, pin_memory=False):
    """`arange(end)`, `arange(start, end)`, `arange(start, end, step)`: start + i * step while before end."""
    given = [_type_name(v) for v in (start, end, step) if v is not _MISSING]
    overload = ("default", "start", "start_step")[len(given) - 1] if given else "start_step"
    check_requires_grad(requires_grad, "arange", signatures=_ARANGE_SIGNATURES, given=given)
    if end is _MISSING:
        start, end = 0, start
    if start is _MISSING:
        start = 0
    if end is _MISSING:
        raise TypeError("arange() received an invalid combination of arguments - got (), but expected one of:\n"
                        + _ARANGE_SIGNATURES)
    step = 1 if step is _MISSING else step
    start, end, step = (_number(v, "arange", given) for v in (start, end, step))
    _check_dtype(dtype, "arange")
    if out is not None:
        check_out("arange", out, dtype)
        return arange_out_op(start, end, step, out=out)
    if dtype is None:
        # any float among start, end, step makes a float tensor of the default dtype; else int64
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = _dtype.get_default_dtype() if is_float else _dtype.int64
    device = check_device(device)
    if overload == "default":
        return _finish(arange_end_op(end, dtype=dtype, device=device), requires_grad)
    if overload == "start":
        return _finish(arange_start_op(start, end, dtype=dtype, device=device), requires_grad)
    return _finish(arange_op(start, end, step, dtype=dtype, device=device), requires_grad)


linspace_op = _factory(f"linspace(Scalar start, Scalar end, int steps, {_FACTORY_TAIL}) -> Tensor",
                       K.linspace_kernel)
linspace_out_op = kernel_op("linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)",
                            K.linspace_out_kernel)
logspace_op = _factory(f"logspace(Scalar start, Scalar end, int steps, float base=10.0, {_FACTORY_TAIL}) -> Tensor",
                       K.logspace_kernel)
logspace_out_op = kernel_op("logspace.out(Scalar start, Scalar end, int steps, float base=10.0, *, Tensor(a!) out) "
                            "-> Tensor(a!)", K.logspace_out_kernel)
eye_op = _factory(f"eye.m(SymInt n, SymInt? m=None, {_FACTORY_TAIL}) -> Tensor", K.eye_kernel)
eye_out_op = kernel_op("eye.m_out(SymInt n, SymInt? m=None, *, Tensor(a!) out) -> Tensor(a!)", K.eye_out_kernel)


def _space_signatures(fn):
    """The signatures PyTorch lists for linspace or logspace: start and end may each be a Number or a 0-d Tensor."""
    base = "float base = 10.0, " if fn == "logspace" else ""
    return "".join(f" * ({a} start, {b} end, int steps, {base}*, Tensor out = None, torch.dtype dtype = None, "
                   "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
                   "bool requires_grad = False)\n"
                   for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number")))


_SPACE_SIGNATURES = {fn: _space_signatures(fn) for fn in ("linspace", "logspace")}


def _space_args(fn, start, end, steps, requires_grad):
    """The argument checks linspace and logspace share, in the parser's order; start, end and steps as numbers."""
    check_requires_grad(requires_grad, fn, signatures=_SPACE_SIGNATURES[fn],
                        given=[_type_name(v) for v in (start, end, steps)])
    for name, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v.dim() != 0:
            raise RuntimeError(f"{fn} only supports 0-dimensional start and end tensors, but got {name} with "
                               f"{v.dim()} dimension(s).")
    if not _is_index(steps):
        raise TypeError(f"{fn}(): argument 'steps' (position 3) must be int, not {_type_name(steps)}")
    return _as_number(start), _as_number(end), operator.index(steps)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None, layout=None,
             pin_memory=False):
    """`steps` evenly spaced values from `start` to `end`, both included."""
    start, end, steps = _space_args("linspace", start, end, steps, requires_grad)
    _check_dtype(dtype, "linspace")
    if out is not None:
        check_out("linspace", out, dtype)
        return linspace_out_op(start, end, steps, out=out)
    return _finish(linspace_op(start, end, steps, dtype=dtype, device=check_device(device)), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False):
    """`base ** linspace(start, end, steps)`."""
    start, end, steps = _space_args("logspace", start, end, steps, requires_grad)
    _check_dtype(dtype, "logspace")
    if out is not None:
        check_out("logspace", out, dtype)
        return logspace_out_op(start, end, steps, float(base), out=out)
    return _finish(logspace_op(start, end, steps, float(base), dtype=dtype, device=check_device(device)),
                   requires_grad)


_EYE_SIGNATURES = (
    " * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n")


def eye(n, m=_MISSING, *, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    """The (n, m) identity matrix (m defaults to n)."""
    check_requires_grad(requires_grad, "eye", signatures=_EYE_SIGNATURES,
                        given=[_type_name(n)] + ([] if m is _MISSING else [_type_name(m)]))
    if m is _MISSING:
        if not _is_index(n):
            raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {_type_name(n)}")
        m = None
    elif not (_is_index(n) and _is_index(m)):
        raise TypeError(f"eye() received an invalid combination of arguments - got ({_type_name(n)}, "
                        f"{_type_name(m)}), but expected one of:\n" + _EYE_SIGNATURES)
    n, m = operator.index(n), None if m is None else operator.index(m)
    _check_dtype(dtype, "eye")
    if out is not None:
        check_out("eye", out, dtype)
        return eye_out_op(n, m, out=out)
    return _finish(eye_op(n, m, dtype=dtype, device=check_device(device)), requires_grad)


__all__ = ['arange', 'eye', 'linspace', 'logspace']
