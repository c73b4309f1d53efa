"""Matrix-multiplication kernels: mm, bmm, mv (addmv), dot, addmm, baddbmm, trace.

Every product here ends in one call to the array module's `matmul` (or `dot`), which for float32 and float64
hands the work to BLAS (`sgemm`/`dgemm`), the same library PyTorch's CPU kernels call. The Python around that
call only checks arguments and wraps the result, so a large matmul costs what NumPy's costs.

How PyTorch does it (aten/src/ATen/native/LinearAlgebra.cpp, Blas.cpp, CPUBlas.cpp):

* A **meta** function checks shapes and picks the result's size and dtype (`TORCH_META_FUNC(mm)`,
  `TORCH_META_FUNC(addmv)`, `common_checks_baddbmm_bmm`). The result is always a fresh contiguous tensor.
* The **impl** (`addmm_impl_cpu_`, `addmv_out_cpu`, `bmm_out_or_baddbmm_`) looks at each operand's strides.
  BLAS reads a matrix stored row by row or column by column (a transposed matrix is just the other order),
  so contiguous and transposed operands are passed as they are; anything else (sliced with a step,
  expanded) is first copied into a contiguous temporary (`blas_operand` below does the same).
* **No type promotion.** Unlike `add`, a matrix product wants both operands of one dtype. The check, and
  its message, live in whichever kernel reads the data, so `mm` and `bmm` word it differently.
* **Scalars.** `addmm(self, m1, m2, beta=b, alpha=a)` is `b * self + a * (m1 @ m2)`, BLAS's `gemm`.
  `beta == 0` means *ignore* `self`, NaN and inf included. For integer tensors `alpha` and `beta` are
  converted to the integer type first (0.5 becomes 0), as `Scalar::to<int64_t>()` does.
* float16 is multiplied and summed in float32 and rounded once at the end ("opmath").

Kernels take tensors and return tensors. They never write into an existing tensor except through
`backends.write`, after every check has passed, so a failed op leaves its `out=` or `self` unchanged.
"""


import math

import numpy as np

from .._dtype import bool_, can_cast, checked_convert, float16, float32, int64, result_type
from .._strides import contiguous_strides, is_contiguous
from ..backends import ARRAY_MODULES, check_writable, empty, quietly, wrap, write
from .pointwise import check_same_device, resize_out
from .views import expand_kernel

# How PyTorch's structured-kernel checks print a dtype: the C++ type name (caffe2::TypeMeta), as in
# "Expected out tensor to have dtype float, but got double instead". Most other messages use the
# ScalarType name ("Float", "Double"), which is `dtype._ptname`.
CPP_NAME = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
            "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
            "float64": "double"}


def cpp_name(dtype):
    return CPP_NAME[dtype.name]


def not_implemented(kernel_name, dtype):
    """The error of AT_DISPATCH when a kernel has no code for a dtype (bool, for the products)."""
    return NotImplementedError(f'"{kernel_name}" not implemented for \'{dtype._ptname}\'')


# ---- arithmetic on arrays ----------------------------------------------------------------------------------


def blas_operand(xp, a):
    """`a` itself when BLAS can read its last two dims as they are, else a contiguous copy of it.

    BLAS reads a matrix whose rows (or columns) are each contiguous and evenly spaced: a contiguous or a
    transposed matrix. NumPy checks the same thing (`is_blasable2d`) and otherwise falls back to a slow
    loop, so a matrix sliced with a step or expanded (stride 0) is copied first, as PyTorch's
    `addmm_impl_cpu_` copies it (`m1.clone(at::MemoryFormat::Contiguous)`).
    """
    if a.ndim < 2 or a.dtype.kind != "f":   # vectors are read with any stride; integers never use BLAS
        return a
    rows, cols = a.shape[-2:]
    s_row, s_col = a.strides[-2:]
    size = a.itemsize
    row_major = s_col == size and s_row % size == 0 and s_row // size >= cols
    col_major = s_row == size and s_col % size == 0 and s_col // size >= rows
    return a if (row_major or col_major) else xp.ascontiguousarray(a)


def matmul_arrays(xp, a, b, dtype):
    """`a @ b` for 2-D or batched arrays of one dtype (or a matrix and a vector).

    Overflow gives inf silently, as in PyTorch: NumPy's "overflow encountered" warnings are off."""
    return quietly(_matmul_arrays, xp, a, b, dtype)


def _matmul_arrays(xp, a, b, dtype):
    if dtype is float16:
        # opmath: multiply and accumulate in float32, round to float16 once
        return xp.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    return xp.matmul(blas_operand(xp, a), blas_operand(xp, b))


def scalar_to(value, dtype):
    """PyTorch's `Scalar::to<T>()`: a Python number as a (NumPy) number of `dtype`, refusing what it cannot hold
    (`_dtype.checked_convert`: floats truncate into integers, a negative integer wraps into an unsigned type as
    long as its magnitude fits, anything else out of range raises)."""
    return np.asarray(checked_convert(value, dtype)).astype(dtype.numpy)[()]


def fused_values(xp, self, sizes, product, k, beta, alpha, dtype, scalar_dtype):
    """`beta * self + alpha * product()`: what BLAS's gemm computes for addmm and baddbmm (and gemv for addmv).

    `self` is the caller's tensor, already checked to expand to the result's `sizes` (`expand_size`): NumPy's
    broadcasting then reads its values as the expanded tensor would, with no view made. `product()` computes
    the matrix product (it is only called when there is something to compute); `k` is the length of the sums.
    `alpha` and `beta` are first converted to `scalar_dtype` (`scalar_to`; a 1 needs no converting).
    `beta == 0` skips `self` entirely, so NaN or inf in it does not leak in. Returns the result's array, or
    None on the meta device (`xp` is None).
    """
    if math.prod(sizes) == 0:
        return None if xp is None else xp.empty(sizes, dtype.numpy)
    if k == 0:
        return _empty_sum(xp, self, sizes, beta, dtype)
    a = None if alpha == 1 else scalar_to(alpha, scalar_dtype)
    b = None if beta == 0 or beta == 1 else scalar_to(beta, scalar_dtype)
    if xp is None:
        return None
    compute = (float32 if dtype is float16 else dtype).numpy
    result = product().astype(compute, copy=False)     # a fresh array of our own: updated in place below
    if a is not None:
        result *= a.astype(compute)
    if beta != 0:
        self_values = self._data()
        result += self_values if b is None else self_values.astype(compute) * b.astype(compute)
    return result


def expand_size(self, sizes):
    """PyTorch's `expand_size(self, sizes)` (ExpandUtils.h), which the fused kernels call first so that its
    broadcasting errors come first: `self` viewed with the result's sizes. Called as the view kernel, not
    dispatched: down here, below autograd, the view needs no graph or version-counter bookkeeping."""
    return expand_kernel(self, sizes)


def _empty_sum(xp, self, sizes, beta, dtype):
    """A product that sums over nothing (k == 0) is all zeros: the result is zeros, or `self.mul_(beta)`,
    so `beta` follows in-place `mul_`'s casting rules (an integer tensor refuses beta=0.5)."""
    if beta == 0:
        return None if xp is None else xp.zeros(sizes, dtype.numpy)
    promoted = result_type(self, beta)
    if not can_cast(promoted, dtype):
        raise RuntimeError(f"result type {promoted._ptname} can't be cast to the desired output type {dtype._ptname}")
    if xp is None:
        return None
    compute = (float32 if promoted is float16 else promoted).numpy
    return xp.broadcast_to(self._data(), sizes).astype(compute) * np.asarray(beta).astype(compute)[()]


# ---- checks shared by the kernels ------------------------------------------------------------------------


def check_mm_shapes(mat1, mat2, fn):
    """PyTorch's `check_mm_shapes` (LinearAlgebraUtils.h): two matrices whose inner sizes agree."""
    if fn == "mm":
        if mat1.dim() != 2:
            raise RuntimeError("self must be a matrix")
        if mat2.dim() != 2:
            raise RuntimeError("mat2 must be a matrix")
    else:
        if mat1.dim() != 2:
            raise RuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
        if mat2.dim() != 2:
            raise RuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    (n, k1), (k2, p) = mat1._sizes, mat2._sizes
    if k1 != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k1} and {k2}x{p})")


def check_addmm_impl(m1, m2, result_numel):
    """What `addmm_impl_cpu_` checks before calling gemm: one dtype, and a dtype it has code for."""
    if m1.dtype is not m2.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {cpp_name(m1.dtype)} != {cpp_name(m2.dtype)}")
    # an empty result, or an empty sum (k == 0), returns before the dtype dispatch
    if result_numel and m1._sizes[1] and m1.dtype is bool_:
        raise not_implemented("addmm_impl_cpu_", bool_)


def _contiguous_or_transposed(sizes, strides):
    """Can MKL's batched gemm read each matrix of this batch as it is? (`batch_items_contiguous_or_transposed`)"""
    return ((strides[2] == 1 and (sizes[1] == 1 or strides[1] >= sizes[2]))
            or (strides[1] == 1 and (sizes[2] == 1 or strides[2] >= sizes[1])))


def check_bmm_dtypes(batch1, batch2, result_dtype, result_sizes, result_strides, is_bmm):
    """The dtype errors of `bmm`/`baddbmm`, which depend on the kernel that ends up reading the data.

    PyTorch's `bmm_out_or_baddbmm_` has no up-front dtype check. Small products run a plain loop dispatched
    on batch1's dtype; large float ones go to MKL's batched gemm, dispatched on the result's dtype (batch2's);
    the rest run one `addmm` per batch. Whichever runs reports a dtype it did not expect, in its own words.
    """
    bs, n, k = batch1._sizes
    p = batch2._sizes[2]
    if math.prod(result_sizes) == 0 or k == 0:
        return                                    # nothing is read: no dtype is checked
    name = "bmm" if is_bmm else "baddbmm"
    if k * n * p < 400:
        if batch1.dtype is bool_:
            raise not_implemented(name, bool_)
        for other in (result_dtype, batch2.dtype):
            if other is not batch1.dtype:
                raise RuntimeError(f"expected scalar type {batch1.dtype._ptname} but found {other._ptname}")
    elif (result_dtype.is_floating_point and result_dtype is not float16
          and _contiguous_or_transposed(batch1._sizes, batch1._strides)
          and _contiguous_or_transposed(batch2._sizes, batch2._strides)
          and is_contiguous(result_sizes, result_strides)):
        for other in (batch2.dtype, batch1.dtype):
            if other is not result_dtype:
                raise RuntimeError(f"expected scalar type {result_dtype._ptname} but found {other._ptname}")
    elif is_bmm:
        # one `addmm_impl_cpu_(result[b], batch1[b], batch2[b])` per batch entry
        if batch1.dtype is not batch2.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_name(batch1.dtype)} != "
                               f"{cpp_name(batch2.dtype)}")
        if batch1.dtype is bool_:
            raise not_implemented("addmm_impl_cpu_", bool_)
    else:
        # one `result[b].addmm_(batch1[b], batch2[b])` per batch entry, whose meta checks come first
        if result_dtype is not batch2.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {result_dtype._ptname} and "
                               f"{batch2.dtype._ptname}")
        if batch1.dtype is not batch2.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {batch1.dtype._ptname} and "
                               f"{batch2.dtype._ptname}")
        if batch1.dtype is bool_:
            raise not_implemented("addmm_impl_cpu_", bool_)


def check_out_dtype(out, dtype):
    """The check every structured kernel makes of its `out=` tensor (codegen's `resize_out`)."""
    if out.dtype is not dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {cpp_name(dtype)}, but got {cpp_name(out.dtype)} instead")


def check_inplace_result(self, sizes, dtype):
    """The check every structured kernel makes of its in-place `self` (codegen's `check_inplace`)."""
    if self.dtype is not dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {cpp_name(self.dtype)} and output tensor "
                           f"dtype {cpp_name(dtype)} should match")
    if self._sizes != tuple(sizes):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self._sizes)} and output tensor size "
                           f"{list(sizes)} should match")


def finish(result, out, sizes, dtype, device):
    """Return the computed `result` array as a fresh tensor, or write it into `out` (resized if needed).

    `result` is None on the meta device. Every check has passed by now.
    """
    if out is None:
        if result is None:
            return empty(sizes, dtype, device)
        return wrap(result, dtype, device)
    if out._sizes == tuple(sizes):
        check_writable(out)   # an expanded `out` is refused before it is resized or written
    resize_out(out, sizes)
    if result is not None:
        write(out, result)
    return out


# ---- mm and addmm --------------------------------------------------------------------------------------------


def mm_kernel(ks, self, mat2, out=None):
    """`mm(self, mat2)` and `mm.out`: (n, k) @ (k, p) -> a fresh (n, p) tensor of self's dtype."""
    check_mm_shapes(self, mat2, "mm")
    sizes = (self._sizes[0], mat2._sizes[1])
    if out is not None:
        check_out_dtype(out, self.dtype)
    check_addmm_impl(self, mat2, sizes[0] * sizes[1])
    device = check_same_device([self, mat2])
    result = None
    if device.type != "meta":
        result = matmul_arrays(ARRAY_MODULES[device.type], self._data(), mat2._data(), self.dtype)
    return finish(result, out, sizes, self.dtype, device)


def mm_out_kernel(ks, self, mat2, out):
    return mm_kernel(ks, self, mat2, out)


def _addmm_meta(self, mat1, mat2):
    """ADDMM_META: one dtype for all three, two multipliable matrices; returns the result's sizes."""
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {self.dtype._ptname} and "
                           f"{mat2.dtype._ptname}")
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {mat1.dtype._ptname} and "
                           f"{mat2.dtype._ptname}")
    check_mm_shapes(mat1, mat2, "addmm")
    return (mat1._sizes[0], mat2._sizes[1])


def _addmm_values(self, mat1, mat2, beta, alpha, sizes):
    """`beta * self + alpha * (mat1 @ mat2)` (addmm_impl_cpu_); None on meta."""
    device = check_same_device([self, mat1, mat2])
    expand_size(self, sizes)
    check_addmm_impl(mat1, mat2, sizes[0] * sizes[1])
    xp = ARRAY_MODULES.get(device.type)
    # gemm takes alpha and beta in the "opmath" type: float32 for float16, the dtype itself otherwise
    opmath = float32 if mat1.dtype is float16 else mat1.dtype
    return fused_values(xp, self, sizes, lambda: matmul_arrays(xp, mat1._data(), mat2._data(), mat1.dtype),
                        mat1._sizes[1], beta, alpha, mat1.dtype, opmath), device


def addmm_kernel(ks, self, mat1, mat2, beta=1, alpha=1, out=None):
    sizes = _addmm_meta(self, mat1, mat2)
    if out is not None:
        check_out_dtype(out, mat1.dtype)
    result, device = _addmm_values(self, mat1, mat2, beta, alpha, sizes)
    return finish(result, out, sizes, mat1.dtype, device)


def addmm_out_kernel(ks, self, mat1, mat2, beta, alpha, out):
    return addmm_kernel(ks, self, mat1, mat2, beta, alpha, out)


def addmm__kernel(ks, self, mat1, mat2, beta=1, alpha=1):
    sizes = _addmm_meta(self, mat1, mat2)
    check_inplace_result(self, sizes, mat1.dtype)
    result, _ = _addmm_values(self, mat1, mat2, beta, alpha, sizes)
    if result is not None:
        write(self, result)
    return self


# ---- bmm and baddbmm ------------------------------------------------------------------------------------------


def _bmm_meta(batch1, batch2):
    """`common_checks_baddbmm_bmm`: two batches of multipliable matrices; returns the result's sizes."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    bs, n, k = batch1._sizes
    if batch2._sizes[0] != bs or batch2._sizes[1] != k:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but got: "
                           f"[{batch2._sizes[0]}, {batch2._sizes[1]}].")
    return (bs, n, batch2._sizes[2])


def bmm_kernel(ks, self, mat2, out=None):
    """`bmm(self, mat2)`: (b, n, k) @ (b, k, p) -> (b, n, p), one matrix product per batch entry."""
    sizes = _bmm_meta(self, mat2)
    dtype = mat2.dtype                     # the meta function allocates with batch2's options
    if out is None:
        strides = contiguous_strides(sizes)
    else:
        check_out_dtype(out, dtype)
        strides = out._strides if out._sizes == sizes else contiguous_strides(sizes)
    check_bmm_dtypes(self, mat2, dtype, sizes, strides, is_bmm=True)
    device = check_same_device([self, mat2])
    result = None
    if device.type != "meta":
        result = matmul_arrays(ARRAY_MODULES[device.type], self._data(), mat2._data(), dtype)
    return finish(result, out, sizes, dtype, device)


def bmm_out_kernel(ks, self, mat2, out):
    return bmm_kernel(ks, self, mat2, out)


def _baddbmm_meta(self, batch1, batch2):
    """TORCH_META_FUNC(baddbmm): broadcast self first (so its errors come first), then bmm's checks."""
    expand_size(self, (batch1.size(0), batch1.size(1), batch2.size(2)))
    if self.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_name(self.dtype)}, batch1: "
                           f"{cpp_name(batch1.dtype)}, batch2: {cpp_name(batch2.dtype)}")
    return _bmm_meta(batch1, batch2)


def _baddbmm_values(self, sizes, batch1, batch2, beta, alpha, dtype):
    """`beta * self + alpha * bmm(batch1, batch2)` (bmm_out_or_baddbmm_); None on meta."""
    device = check_same_device([self, batch1, batch2])
    xp = ARRAY_MODULES.get(device.type)
    opmath = float32 if dtype is float16 else dtype
    return fused_values(xp, self, sizes, lambda: matmul_arrays(xp, batch1._data(), batch2._data(), batch1.dtype),
                        batch1._sizes[2], beta, alpha, dtype, opmath), device


def baddbmm_kernel(ks, self, batch1, batch2, beta=1, alpha=1, out=None):
    sizes = _baddbmm_meta(self, batch1, batch2)
    dtype = batch2.dtype
    if out is None:
        strides = contiguous_strides(sizes)
    else:
        check_out_dtype(out, dtype)
        strides = out._strides if out._sizes == sizes else contiguous_strides(sizes)
    check_bmm_dtypes(batch1, batch2, dtype, sizes, strides, is_bmm=False)
    result, device = _baddbmm_values(self, sizes, batch1, batch2, beta, alpha, dtype)
    return finish(result, out, sizes, dtype, device)


def baddbmm_out_kernel(ks, self, batch1, batch2, beta, alpha, out):
    return baddbmm_kernel(ks, self, batch1, batch2, beta, alpha, out)


def baddbmm__kernel(ks, self, batch1, batch2, beta=1, alpha=1):
    sizes = _baddbmm_meta(self, batch1, batch2)
    check_inplace_result(self, sizes, batch2.dtype)
    check_bmm_dtypes(batch1, batch2, self.dtype, sizes, self._strides, is_bmm=False)
    result, _ = _baddbmm_values(self, sizes, batch1, batch2, beta, alpha, self.dtype)
    if result is not None:
        write(self, result)
    return self


# ---- mv and addmv --------------------------------------------------------------------------------------------


def _addmv_meta(self, mat, vec):
    """TORCH_META_FUNC(addmv): a vector (or one number) plus a matrix times a vector, all of one dtype."""
    if not (mat.dim() == 2 and vec.dim() == 1 and self.dim() <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, {vec.dim()}")
    if not (mat._sizes[1] == vec._sizes[0] and (mat._sizes[0] == self.numel() or self.numel() == 1)):
        raise RuntimeError(f"size mismatch, got input ({self.size(0)}), mat ({mat._sizes[0]}x{mat._sizes[1]}), "
                           f"vec ({vec._sizes[0]})")
    if not (self.dtype is mat.dtype and mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {self.dtype._ptname}, "
                           f"{mat.dtype._ptname}, and {vec.dtype._ptname}")
    return (mat._sizes[0],)


def _addmv_values(self, mat, vec, beta, alpha):
    """`beta * self + alpha * (mat @ vec)` (addmv_out_cpu); None on meta."""
    device = check_same_device([self, mat, vec])
    sizes = (mat._sizes[0],)
    b_self = expand_size(self, sizes)
    xp = ARRAY_MODULES.get(device.type)
    if mat.numel() == 0:
        # an empty matrix: zeros, or `self * beta` with beta made a number of self's dtype
        if beta == 0:
            return (None if xp is None else xp.zeros(sizes, vec.dtype.numpy)), device
        b = scalar_to(beta, self.dtype)
        return (None if xp is None else b_self._data() * b), device
    if mat.dtype is bool_:
        raise not_implemented("addmv_impl_cpu", bool_)
    # gemv takes alpha and beta in the tensors' own dtype (float16 too, unlike gemm)
    return fused_values(xp, self, sizes, lambda: matmul_arrays(xp, mat._data(), vec._data(), mat.dtype),
                        mat._sizes[1], beta, alpha, mat.dtype, mat.dtype), device


def addmv_kernel(ks, self, mat, vec, beta=1, alpha=1, out=None):
    sizes = _addmv_meta(self, mat, vec)
    if out is not None:
        check_out_dtype(out, vec.dtype)
    result, device = _addmv_values(self, mat, vec, beta, alpha)
    return finish(result, out, sizes, vec.dtype, device)


def addmv_out_kernel(ks, self, mat, vec, beta, alpha, out):
    return addmv_kernel(ks, self, mat, vec, beta, alpha, out)


def addmv__kernel(ks, self, mat, vec, beta=1, alpha=1):
    sizes = _addmv_meta(self, mat, vec)
    check_inplace_result(self, sizes, vec.dtype)
    result, _ = _addmv_values(self, mat, vec, beta, alpha)
    if result is not None:
        write(self, result)
    return self


def mv_kernel(ks, self, vec):
    """`mv(self, vec)`: PyTorch allocates a result of vec's dtype and runs `addmv_(result, self, vec, 0, 1)`,
    so a dtype mismatch is reported by addmv, naming the result first."""
    result = empty((self.size(0),), vec.dtype, self.device)
    sizes = _addmv_meta(result, self, vec)
    values, device = _addmv_values(result, self, vec, 0, 1)
    return finish(values, None, sizes, vec.dtype, device)


def mv_out_kernel(ks, self, vec, out):
    # mv_out (Blas.cpp): `out` itself is addmv's `self` when its size fits; beta = 0 ignores its values
    if out.dim() > 1 or (out.numel() != self.size(0) and out.numel() != 1):
        self_addmv = empty((self.size(0),), vec.dtype, self.device)
    else:
        self_addmv = out
    return addmv_kernel(ks, self_addmv, self, vec, 0, 1, out)


# ---- dot -------------------------------------------------------------------------------------------------------


def dot_check(self, other):
    """`dot_check` (Blas.cpp): two 1-D tensors of one dtype and one length."""
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    if self.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {self.dtype._ptname} and "
                           f"{other.dtype._ptname}")
    if self.numel() != other.numel():
        n, m = self.numel(), other.numel()
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number "
                           f"of elements, but got {n} and {m} elements respectively")


def dot_kernel(ks, self, tensor, out=None):
    """`dot(self, tensor)`: the sum of the products of two vectors, a 0-d tensor."""
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError(f"result dtype {out.dtype._ptname} does not match input dtype {self.dtype._ptname}")
    dot_check(self, tensor)
    if self.dtype is bool_:
        raise not_implemented("dot", bool_)
    device = check_same_device([self, tensor])
    result = None
    if device.type != "meta":
        xp = ARRAY_MODULES[device.type]
        a, b = self._data(), tensor._data()
        if self.dtype is float16:
            a, b = a.astype(np.float32), b.astype(np.float32)
        result = quietly(lambda: xp.asarray(xp.dot(a, b)).astype(self.dtype.numpy))   # overflow: inf, silently
    return finish(result, out, (), self.dtype, device)


def dot_out_kernel(ks, self, tensor, out):
    return dot_kernel(ks, self, tensor, out)


# ---- trace ------------------------------------------------------------------------------------------------------


def trace_kernel(ks, self):
    """`trace(self)`: the sum of a matrix's diagonal. Integers sum into int64, as `sum` does."""
    if self.dtype is bool_:
        raise not_implemented("trace", bool_)   # the dtype dispatch runs before the shape check
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    dtype = self.dtype if self.dtype.is_floating_point else int64
    device = self.device
    if device.type == "meta":
        return empty((), dtype, device)
    xp = ARRAY_MODULES[device.type]
    # PyTorch accumulates floats in double (acc_type on cpu) and integers in int64
    acc = np.float64 if dtype.is_floating_point else np.int64
    return wrap(xp.asarray(xp.trace(self._data(), dtype=acc)).astype(dtype.numpy), dtype, device)


__all__ = ["CPP_NAME", "cpp_name", "not_implemented", "blas_operand", "matmul_arrays", "scalar_to", "fused_values",
           "check_mm_shapes", "check_addmm_impl", "check_bmm_dtypes", "check_out_dtype", "check_inplace_result",
           "finish", "mm_kernel", "mm_out_kernel", "addmm_kernel", "addmm_out_kernel", "addmm__kernel",
           "bmm_kernel", "bmm_out_kernel", "baddbmm_kernel", "baddbmm_out_kernel", "baddbmm__kernel",
           "addmv_kernel", "addmv_out_kernel", "addmv__kernel", "mv_kernel", "mv_out_kernel", "dot_check",
           "dot_kernel", "dot_out_kernel", "trace_kernel"]
