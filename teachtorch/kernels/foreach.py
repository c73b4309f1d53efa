"""The `_foreach_*` kernels: one op call that updates a whole list of tensors.

An optimizer step does the same few elementwise ops on every parameter: Adam's `exp_avg.lerp_(grad, 0.1)` runs
once per weight matrix and once per bias. Called one tensor at a time, each of those calls pays the whole trip
through the dispatcher (binding, autograd, ADInplaceOrView, backend selection) for a few microseconds of
arithmetic. PyTorch's answer is the *multi-tensor* ops (`native_functions.yaml`: `_foreach_add_.List`,
`_foreach_lerp_.Scalar`, ...): their first argument is a `Tensor[]`, and one dispatch covers the whole list.

PyTorch has two kernels for each (aten/src/ATen/native/ForeachOpsKernels.cpp, cuda/ForeachBinaryOpList.cu):

* the *fast* one (CUDA) packs many tensors into each launch of one GPU kernel (`multi_tensor_apply`), when
  the tensors allow it (`can_use_fast_route`: same device, same dtype, dense, no type promotion);
* the *slow* one, `foreach_tensor_add_list_kernel_slow_` and its siblings, which is what runs on the CPU:
  a loop that calls the per-tensor op on each tensor in turn.

`ForeachKernel` below has both. Its slow path is PyTorch's, with one difference that is the whole point
here: the loop calls the per-tensor op's *kernel* (`PointwiseKernel(pointwise_math.add).inplace`, ...), not
the op, so the dispatcher is crossed once per list instead of once per tensor. Each tensor still gets exactly
what the per-tensor op computes (type promotion, broadcasting, the in-place checks, the single write path
`backends.write`), so `_foreach_add_(xs, ys)` gives the same numbers as `x.add_(y)` for every pair.

Its fast path is taken under PyTorch's conditions (`can_use_fast_route` below): every tensor of one float
dtype and one device, the tensors at each position of the same sizes and strides, all dense. Then the work
TensorIterator does per tensor (promotion, broadcast shapes, output strides) has one answer known in advance,
and each tensor goes straight to the arithmetic (`pointwise.run`) and the write path: the same numbers, for
less Python per tensor.
"""

from itertools import repeat

from .._dtype import float16, float32
from .._strides import is_non_overlapping_and_dense
from .._tensor import Tensor
from ..backends import check_writable, empty, wrap, wrap_strided, write
from .pointwise import ALWAYS_BOOL, PointwiseKernel, check_no_partial_overlap, run
from .reduction_kernels import linalg_vector_norm_kernel

# What each argument after `self` is, read from the schema (ops/foreach.py `_kinds`):
TENSORS = "Tensor[]"     # one tensor per element of `self`          (_foreach_add.List's `other`)
SCALARS = "Scalar[]"     # one number per element of `self`          (_foreach_add.ScalarList's `scalars`)
PACKED = "packed"        # a 1-d cpu tensor of one number per element (_foreach_addcdiv_.Tensor's `scalars`)
SCALAR_TENSOR = "Tensor"  # a 0-dim tensor used for every element    (_foreach_mul.Tensor's `other`)
SAME = "same"            # one value used for every element          (_foreach_add.Scalar's `scalar`, `alpha`)


def check_foreach_api_restrictions(self, args, kinds):
    """PyTorch's `check_foreach_api_restrictions` (aten/src/ATen/native/ForeachUtils.h): a non-empty list, and
    every other list as long as it."""
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for a, kind in zip(args, kinds):
        if kind is TENSORS and len(a) != len(self):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(self)} and {len(a)}")
        if kind is SCALARS and len(a) != len(self):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        if kind is SCALAR_TENSOR and (a.dim() != 0 or a.numel() != 1):     # ForeachOpsKernels.cpp, .Tensor slow path
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {a.dim()} dimensions and "
                               f"{a.numel()} elements.")


def convert_tensor_to_scalar_list(scalars, expect_length):
    """A 1-d cpu tensor of numbers as a list of numbers (ForeachUtils.h `convert_tensor_to_scalar_list`)."""
    if scalars._storage.device.type != "cpu":
        raise RuntimeError(f"Expected scalars to be on CPU, got {scalars.device} instead.")
    if scalars.dim() != 1:
        raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got {scalars.dim()} instead.")
    if scalars.numel() != expect_length:
        raise RuntimeError(f"Expected length of scalars to match input of length {expect_length} but got "
                           f"{scalars.numel()} instead.")
    return scalars.tolist()


class ForeachKernel:
    """The functional and in-place kernels of one `_foreach_*` overload: PyTorch's slow path, a loop calling
    `per_tensor(ks, self[i], <argument i>..., *extra)` for each `i`.

    `kinds` says, for each argument after `self`, how to pick its value for element `i` (TENSORS, SCALARS and
    PACKED: the i-th element; SAME and SCALAR_TENSOR: the argument itself). `extra` are the per-tensor op's
    arguments that the foreach overload does not have (`alpha=1` for `_foreach_add.Scalar`, which calls
    `add(self[i], scalar)`).
    A trace shows `ForeachKernel(PointwiseKernel(pointwise_math.add).inplace).inplace`.
    """

    def __init__(self, per_tensor, kinds, extra=()):
        self.per_tensor, self.kinds, self.extra = per_tensor, tuple(kinds), tuple(extra)
        # the elementwise op behind it, whose arithmetic the fast path calls directly (None: slow path only)
        owner = getattr(per_tensor, "__self__", None)
        self.pointwise = owner if isinstance(owner, PointwiseKernel) and owner.promotion is not ALWAYS_BOOL else None

    def __repr__(self):
        fn = self.per_tensor
        owner = getattr(fn, "__self__", None)
        return f"ForeachKernel({owner!r}.{fn.__name__})" if owner is not None else f"ForeachKernel({fn.__name__})"

    def rows(self, args):
        """The arguments of each per-tensor call (`extra` included), after PyTorch's checks on the lists."""
        self_list, rest = args[0], args[1:]
        check_foreach_api_restrictions(self_list, rest, self.kinds)
        columns = [self_list]
        for a, kind in zip(rest, self.kinds):
            if kind is PACKED:
                a = convert_tensor_to_scalar_list(a, len(self_list))
            columns.append(repeat(a) if kind is SAME or kind is SCALAR_TENSOR else a)
        columns += [repeat(e) for e in self.extra]
        return list(zip(*columns))

    def functional(self, ks, *args):
        """`_foreach_sqrt(xs)`: a new list, `[sqrt(x) for x in xs]`."""
        rows = self.rows(args)
        if self.pointwise is not None and can_use_fast_route(rows, self.pointwise.n):
            return [fast_functional(self.pointwise, row) for row in rows]
        per_tensor = self.per_tensor
        return [per_tensor(ks, *row) for row in rows]

    def inplace(self, ks, *args):
        """`_foreach_sqrt_(xs)`: each `x.sqrt_()` in turn; returns nothing (the schema's `-> ()`)."""
        rows = self.rows(args)
        if self.pointwise is not None and can_use_fast_route(rows, self.pointwise.n):
            for row in rows:
                fast_inplace(self.pointwise, row)
            return
        per_tensor = self.per_tensor
        for row in rows:
            per_tensor(ks, *row)

    # PyTorch's foreach ops are `device_check: NoCheck`: each per-tensor kernel checks its own devices
    functional.device_check = inplace.device_check = False


class ScalarSelfForeachKernel:
    """The kernel of an overload whose list comes second, after one number: `_foreach_pow.ScalarAndTensor(Scalar
    self, Tensor[] exponent)`, `[pow(self, t) for t in exponent]` (ForeachOpsKernels.cpp
    `foreach_scalar_pow_list_kernel_slow`; what PyTorch's capturable optimizers call for `beta1 ** step`).
    A trace shows `ScalarSelfForeachKernel(PointwiseKernel(pointwise_math.pow).functional).functional`."""

    def __init__(self, per_tensor):
        self.per_tensor = per_tensor

    def __repr__(self):
        fn = self.per_tensor
        owner = getattr(fn, "__self__", None)
        name = f"{owner!r}.{fn.__name__}" if owner is not None else fn.__name__
        return f"ScalarSelfForeachKernel({name})"

    def functional(self, ks, scalar, tensors):
        check_foreach_api_restrictions(tensors, (), ())
        per_tensor = self.per_tensor
        return [per_tensor(ks, scalar, t) for t in tensors]

    functional.device_check = False


# ---- the fast path ---------------------------------------------------------------------------------------------


def can_use_fast_route(rows, n):
    """PyTorch's `can_use_fast_route` (ForeachUtils.h `check_fast_path_restrictions`), for the `n` operands of
    each row: every tensor of the first one's dtype and device, the tensors of a row of the same sizes and
    strides, all non-overlapping and dense; numbers that cannot change the dtype. teachtorch asks for a float
    dtype (PyTorch also takes integers where no number or op promotes them), so that a Python int or float
    operand leaves the dtype as it is."""
    first = rows[0][0]
    dtype, device = first.dtype, first._storage.device
    if not dtype.is_floating_point:
        return False
    for row in rows:
        target = row[0]
        sizes, strides = target._sizes, target._strides
        for a in row[:n]:
            if isinstance(a, Tensor):
                if a is target:
                    continue
                if (a.dtype is not dtype or (a._storage.device is not device and a._storage.device != device)
                        or a._sizes != sizes or a._strides != strides):
                    return False
            elif type(a) is not int and type(a) is not float:
                return False
        if not is_non_overlapping_and_dense(sizes, strides):
            return False
    return True


def _fast_dtypes(kernel, operands):
    """(result dtype, compute dtype) under the fast route: the tensors' dtype, computed in float32 when it is
    float16 (PyTorch's opmath), unless the op has a promotion rule of its own (lerp's)."""
    if callable(kernel.promotion):
        return kernel.promotion(operands)
    dtype = operands[0].dtype
    return dtype, float32 if dtype is float16 else dtype


def fast_inplace(kernel, row):
    """One tensor of an in-place foreach op on the fast route: `kernel.inplace` without the work whose answer
    the route already fixed (promotion, broadcasting). PyTorch's errors for the values still come first."""
    n, checks = kernel.n, kernel.checks
    target, operands, params = row[0], row[:n], row[n:]
    if checks.operands is not None:
        checks.operands(operands)
    dtype, compute = _fast_dtypes(kernel, operands)
    check_writable(target)
    check_no_partial_overlap(target, [a for a in operands if isinstance(a, Tensor)])
    if checks.late is not None:
        checks.late(row, dtype, compute)
    result = run(kernel.compute, operands, params, compute, target._storage.device, target.dtype,
                 kernel.number_in_opmath)
    if result is not None:
        write(target, result, check_overlap=False)


def fast_functional(kernel, row):
    """One tensor of a functional foreach op on the fast route: `kernel.functional`, as `fast_inplace`."""
    n, checks = kernel.n, kernel.checks
    operands, params = row[:n], row[n:]
    if checks.operands is not None:
        checks.operands(operands)
    dtype, compute = _fast_dtypes(kernel, operands)
    if checks.late is not None:
        checks.late(row, dtype, compute)
    first = operands[0]
    device = first._storage.device
    strides = kernel.output_strides(first._sizes, [a for a in operands if isinstance(a, Tensor)], operands, compute)
    result = run(kernel.compute, operands, params, compute, device, dtype, kernel.number_in_opmath)
    if result is None:
        return empty(first._sizes, dtype, device, strides)
    return wrap(result, dtype, device) if strides is None else wrap_strided(result, dtype, device, strides)


def vector_norm_of_one(ks, self, ord, dtype):
    """`_foreach_norm`'s per-tensor call (ForeachOpsKernels.cpp `foreach_tensor_norm_slow`):
    `linalg_vector_norm(self, ord, dim=None, keepdim=False, dtype=dtype)`."""
    return linalg_vector_norm_kernel(ks, self, ord, None, False, dtype)
