"""Backward formulas of reductions, scans and sorts (sum, mean, prod, max, var, norm, softmax, cumsum, sort, ...).

A reduction squeezes many input elements into one output element, so its backward must hand the output's
gradient back to each of them. How much each gets is the partial derivative of the output with respect
to that element. The whole family comes down to a handful of ideas:

    put the reduced dims back   the gradient has the output's shape; unsqueeze the dims the reduction
                                removed (keepdim=False) so that it broadcasts against the input again
    sum, mean                   every element counts once: the gradient, broadcast (divided by N for mean)
    prod                        d(x1*...*xn)/dxk is the product of all the others: result / xk while no x
                                is 0, else products of everything before and everything after k
    max, min, median (whole)    only the winners moved the output: the gradient is split evenly among all
                                elements equal to the result (ties share)
    max.dim, sort, topk, ...    these return *indices* too: the gradient goes exactly where the index says
                                (a scatter into zeros), ties or not
    var, std                    d var / dx = 2 (x - mean) / (N - correction); std = sqrt(var) adds 1/(2 std)
    logsumexp, softmax          d logsumexp / dx = softmax(x) = exp(x - result)
    norm                        d |x| / dx = x / |x| (and its p-norm cousins); at 0 the subgradient 0
    cumsum, cumprod             output j depends on inputs 0..j, so input k collects the gradients of outputs
                                k..n: a *reversed* cumulative sum

Each formula follows PyTorch's (tools/autograd/derivatives.yaml, torch/csrc/autograd/FunctionsManual.cpp,
aten/src/ATen/native/ReduceOps.cpp), and is written with teachtorch ops, so it can be differentiated again.
"""

import math

from ... import ops
from ..._strides import normalize_dim
from ...dispatch.dispatcher import lookup
from ..derivative import derivative, no_formula
from ..functions_manual import restore_reduced_dims, unsqueeze_multiple
from ..grad_mode import is_grad_enabled

div_scalar = lookup("div.Scalar")   # `grad / n` with a number n, as C++ writes it (div.Tensor from Python)


# ---- shared helpers ------------------------------------------------------------------------------------------


def _restore(t, dims, keepdim):
    """Put back the dims a reduction over `dims` removed (PyTorch's `restore_reduced_dims`): [2] -> [2, 1]."""
    if keepdim:
        return t
    return unsqueeze_multiple(t, dims, t.dim() + len(dims))


def _dims(dim):
    """An `int[1]` argument may arrive as a plain int: make it a list (None stays None)."""
    return [dim] if isinstance(dim, int) else (None if dim is None else list(dim))


def _dims_or_all(dim):
    """An `int[1]? dim` as a list: None and [] both mean every dim, which `sum(dims, keepdim)` also reads so."""
    return _dims(dim) or []


def _sum_backward(grad, sizes, dim, keepdim):
    """Broadcast the gradient of a sum back to the input's shape (PyTorch's `sum_backward`)."""
    return restore_reduced_dims(grad, dim, keepdim, sizes)


def _reduced_count(sizes, dim):
    """How many elements fed each output element (PyTorch's `_safe_size`): 1 for a 0-d input."""
    if not sizes:
        return 1
    return math.prod(sizes[normalize_dim(d, len(sizes))] for d in dim)


def _mean_backward(grad, sizes, dim, numel, keepdim):
    dim = _dims(dim)
    n = numel if dim is None or len(dim) == 0 else _reduced_count(sizes, dim)
    return div_scalar(_sum_backward(grad, sizes, dim, keepdim), n)


def _scale_grad_by_count(grad, mask, dims):
    """Split the gradient evenly among the elements `mask` marks, per reduced slice (amax's ties)."""
    return (grad / mask.sum(dims, True)) * mask


def _evenly_distribute_backward(grad, input, value):
    """max()/min()/median(): every element equal to the result gets an equal share (NaN matches NaN)."""
    mask = (input == value).logical_or(input.isnan().logical_and(value.isnan()))
    return mask * (grad / mask.sum())


def _value_selecting_backward(grad, dim, indices, sizes, keepdim):
    """The gradient of a value picked by an index goes to that index: scatter it into zeros."""
    grad_in = grad.new_zeros(sizes)
    if not keepdim and len(sizes):
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    return grad_in.scatter(dim, indices, grad)


# ---- sum, nansum, mean ---------------------------------------------------------------------------------------


derivative("sum", self=lambda grad, self_sym_sizes: grad.expand(self_sym_sizes))
derivative("sum.dim_IntList", name="SumBackward1",
           self=lambda grad, self_sym_sizes, dim, keepdim: _sum_backward(grad, self_sym_sizes, dim, keepdim))
# NaNs were skipped, so they get no gradient
derivative("nansum", self=lambda grad, self, dim, keepdim:
           _sum_backward(grad.to(self.dtype), self.shape, dim, keepdim) * self.isnan().logical_not())
# `grad.expand(sizes) / numel` divides by a number in C++: div.Scalar
derivative("mean", self=lambda grad, self_sym_sizes, self_sym_numel: div_scalar(grad.expand(self_sym_sizes),
                                                                                   self_sym_numel))
derivative("mean.dim", name="MeanBackward1",
           self=lambda grad, self_sym_sizes, dim, self_sym_numel, keepdim:
           _mean_backward(grad, self_sym_sizes, dim, self_sym_numel, keepdim))


# ---- prod --------------------------------------------------------------------------------------------------


def _prod_safe_zeros_backward(grad, inp, dim):
    """The product of all the *other* elements along `dim`, without dividing (so zeros are fine).

    input:                        [    a,     b,     c]
    cumprod(exclusive, normal):   [1    ,     a, a * b]
    cumprod(exclusive, reverse):  [b * c,     c,     1]
    product:                      [b * c, a * c, a * b]
    """
    if inp.numel() == 0:
        return grad.expand(inp.shape)
    n = inp.shape[dim]
    if n == 1:
        return grad
    ones_size = list(inp.shape)
    ones_size[dim] = 1
    ones = grad.new_ones(ones_size)
    exclusive_normal = ops.cat([ones, inp.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    exclusive_reverse = ops.cat([ones, inp.narrow(dim, 1, n - 1).flip(dim)], dim).cumprod(dim).flip(dim)
    return grad * (exclusive_normal * exclusive_reverse)


def prod_backward(grad, input, result):
    """prod(): result / x while no x is 0. With one zero only that element gets a gradient (the product of the
    others); with two or more every first derivative is 0, but the second derivatives are not, so with
    create_graph the safe product-of-others path runs anyway."""
    if input.dim() == 0:
        return grad
    zeros = (input == 0).sum().item()
    if zeros == 0:
        return grad * (result / input)
    if not is_grad_enabled() and zeros > 1:
        return ops.zeros_like(input)
    return _prod_safe_zeros_backward(grad, input.contiguous().view(-1), 0).view(input.shape)


def prod_dim_backward(grad, input, result, dim, keepdim):
    if input.dim() == 0:
        return grad
    dim = normalize_dim(dim, input.dim())
    if not keepdim:
        grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
    if (input == 0).sum().item() == 0:
        return grad * (result / input)
    return _prod_safe_zeros_backward(grad, input, dim)


derivative("prod", self=lambda grad, self, result: prod_backward(grad, self.to(grad.dtype), result))
derivative("prod.dim_int", name="ProdBackward1",
           self=lambda grad, self, result, dim, keepdim: prod_dim_backward(grad, self.to(grad.dtype), result, dim,
                                                                           keepdim))


# ---- max, min, amax, amin, aminmax, median, nanmedian ---------------------------------------------------------

# The whole-tensor forms are listed after the .dim forms in derivatives.yaml, hence MaxBackward1 / MaxBackward0.
for _kind in ("max", "min"):
    derivative(_kind, name=f"{_kind.capitalize()}Backward1",
               self=lambda grad, self, result: _evenly_distribute_backward(grad, self, result))
    derivative(f"{_kind}.dim", name=f"{_kind.capitalize()}Backward0",
               self=lambda grad, dim, indices, self_sym_sizes, keepdim:
               _value_selecting_backward(grad, dim, indices, self_sym_sizes, keepdim))
for _kind in ("median", "nanmedian"):
    derivative(_kind, name=f"{_kind.capitalize()}Backward0",
               self=lambda grad, self, result: _evenly_distribute_backward(grad, self, result))
    derivative(f"{_kind}.dim", name=f"{_kind.capitalize()}Backward1",
               self=lambda grad, dim, indices, self_sym_sizes, keepdim:
               _value_selecting_backward(grad, dim, indices, self_sym_sizes, keepdim))


def amax_backward(grad, self, result, dim, keepdim):
    """amax/amin: like max(), ties share the gradient, but per slice of the reduced dims."""
    dim = _dims(dim)
    return _scale_grad_by_count(_restore(grad, dim, keepdim), _restore(result, dim, keepdim) == self, dim)


derivative("amax", self=lambda grad, self, result, dim, keepdim: amax_backward(grad, self, result, dim, keepdim))
derivative("amin", self=lambda grad, self, result, dim, keepdim: amax_backward(grad, self, result, dim, keepdim))


def aminmax_backward(self, dim, keepdim, grad_min, grad_max, min, max):
    """Both halves at once: the min's gradient to the minima, the max's to the maxima."""
    dims = [] if dim is None else [dim]
    return amax_backward(grad_min, self, min, dims, keepdim) + amax_backward(grad_max, self, max, dims, keepdim)


derivative("aminmax", self=lambda grads, self, dim, keepdim, min, max:
           aminmax_backward(self, dim, keepdim, grads[0], grads[1], min, max))


# ---- var, std, var_mean, std_mean ---------------------------------------------------------------------------


def var_backward(grad, self, dim, correction, keepdim):
    """d var / dx = 2 (x - mean) / (N - correction).

    With N <= correction the factor is infinite: the gradient is inf, or NaN where x equals the mean
    (inf * 0), as in PyTorch.
    """
    correction = 1 if correction is None else correction
    dim = _dims(dim)
    if self.dim() == 0 or dim is None:
        dof = self.numel() - correction
        if dof <= 0:
            return grad * ops.where(self == self.mean(), math.nan, math.inf)
        return (2.0 / dof) * grad * (self - self.mean())
    if not keepdim and self.dim() > 1:
        grad = unsqueeze_multiple(grad, dim, self.dim())
    # an empty `dim` list counts 1 element here (PyTorch's _safe_size), while the forward reduced everything
    dof = _reduced_count(tuple(self.shape), dim) - correction
    factor = 2.0 / dof if dof != 0 else math.inf       # C++'s 2.0 / 0.0
    return factor * grad * (self - self.mean(dim, keepdim=True))


def std_backward(result, grad, self, dim, correction, keepdim):
    """std = sqrt(var): chain rule through 1 / (2 std); where std is 0 (a constant slice) the gradient is 0."""
    grad_var = (grad / (result * 2)).masked_fill(result == 0, 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


derivative("var.correction", name="VarBackward0",
           self=lambda grad, self, dim, correction, keepdim: var_backward(grad, self, dim, correction, keepdim))
derivative("std.correction", name="StdBackward0",
           self=lambda grad, self, dim, correction, keepdim, result:
           std_backward(result, grad, self, dim, correction, keepdim))


def _mean_part(grad, self, dim, keepdim):
    return _mean_backward(grad, tuple(self.shape), _dims_or_all(dim), self.numel(), keepdim)


# The two outputs' gradients add up. A missing one arrives as zeros (see derivative.py), which adds nothing,
# except where N <= correction: there 0 * inf is NaN, where PyTorch (which skips an undefined gradient) has none.
derivative("var_mean.correction", name="VarMeanBackward0",
           self=lambda grads, self, dim, correction, keepdim:
           var_backward(grads[0], self, dim, correction, keepdim) + _mean_part(grads[1], self, dim, keepdim))
derivative("std_mean.correction", name="StdMeanBackward0",
           self=lambda grads, self, dim, correction, keepdim, result0:
           std_backward(result0, grads[0], self, dim, correction, keepdim) + _mean_part(grads[1], self, dim, keepdim))


# ---- logsumexp, norms -----------------------------------------------------------------------------------------


def logsumexp_backward(grad, self, result, dim, keepdim):
    """d logsumexp / dx = exp(x) / sum(exp(x)) = exp(x - result): the softmax over the reduced dims."""
    dim = _dims(dim)
    if not keepdim and self.dim() != 0:
        grad = unsqueeze_multiple(grad, dim, self.dim())
        result = unsqueeze_multiple(result, dim, self.dim())
    return grad * (self - result).exp()


derivative("logsumexp", self=lambda grad, self, result, dim, keepdim:
           logsumexp_backward(grad, self, result, dim, keepdim))


def norm_backward(grad, self, ord, norm, dim, keepdim):
    """The p-norm ||x||_p = (sum |x|^p)^(1/p) has d/dx = sgn(x) |x|^(p-1) / ||x||^(p-1).

    Special cases, as in PyTorch: p = 0 counts non-zeros (no gradient), p = 1 gives sgn(x), p = 2 gives
    x / ||x||, p = +-inf acts like amax(|x|) (ties share). Where the norm is 0 the gradient is 0 (a valid
    subgradient) instead of 0/0.
    """
    p = float(ord)
    dim = _dims_or_all(dim)
    if not keepdim and self.dim() != 0:
        grad = unsqueeze_multiple(grad, dim, self.dim())
        norm = unsqueeze_multiple(norm, dim, self.dim())
    if p == 0.0:
        return None
    if p == 1.0:
        return self.sgn() * grad
    if p == 2.0:
        return grad * (self / norm).masked_fill(norm == 0, 0)
    if math.isinf(p):
        self_abs = self.abs()
        mask = self_abs.eq(norm).logical_or(self_abs.isnan())
        return self.sgn() * ((grad / mask.sum(dim, True)) * mask)
    if p < 1.0:
        self_scaled = self.sgn() * self.abs().pow(p - 1).masked_fill(self == 0, 0)
        return self_scaled * grad * norm.pow(1 - p)
    if p < 2.0:
        self_scaled = self.sgn() * self.abs().pow(p - 1)
    else:
        self_scaled = self * self.abs().pow(p - 2)
    scale_v = (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)
    return self_scaled * scale_v


# the dtype= argument needs nothing: the gradient comes back in the result's dtype, the engine converts it
derivative("linalg_vector_norm", self=lambda grad, self, ord, result, dim, keepdim:
           norm_backward(grad, self, ord, result, dim, keepdim))


# ---- softmax, log_softmax -------------------------------------------------------------------------------------


def softmax_double_backward(grad, grad_output, dim, output):
    """d/d(output) of `output * (grad_output - sum(grad_output * output))` along `grad` (FunctionsManual.cpp)."""
    return (grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
            - grad_output * (output * grad).sum(dim, keepdim=True))


# The forward's backward is one op, `_softmax_backward_data` (its kernel: kernels/reduction.py
# `softmax_backward`), whose own derivative makes double backward work, as in derivatives.yaml.
derivative("_softmax", self=lambda grad, result, dim, self_scalar_type:
           ops._softmax_backward_data(grad, result, dim, self_scalar_type))
derivative("_log_softmax", self=lambda grad, result, dim, self_scalar_type:
           ops._log_softmax_backward_data(grad, result, dim, self_scalar_type))
derivative("_softmax_backward_data", name="SoftmaxBackwardDataBackward0",
           grad_output=lambda grad, output, dim, input_dtype:
           ops._softmax_backward_data(grad.to(output.dtype), output, dim, input_dtype),
           output=lambda grad, grad_output, output, dim:
           softmax_double_backward(grad.to(output.dtype), grad_output, dim, output).to(output.dtype))
derivative("_log_softmax_backward_data", name="LogSoftmaxBackwardDataBackward0",
           grad_output=lambda grad, output, dim:
           grad.to(output.dtype) - (grad.to(output.dtype) * output.exp()).sum(dim, keepdim=True),
           output=lambda grad, grad_output, output, dim:
           (-grad_output.sum(dim, keepdim=True) * output.exp() * grad.to(output.dtype)).to(output.dtype))


# ---- cumsum, cumprod ------------------------------------------------------------------------------------------


def _reversed_cumsum(w, dim):
    """out[k] = w[k] + w[k+1] + ... + w[n-1]: what input k collects from the outputs that include it."""
    return w.flip(dim).cumsum(dim).flip(dim)


def cumsum_backward(grad, dim):
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    return _reversed_cumsum(grad, dim)


derivative("cumsum", self=lambda grad, self_scalar_type, dim: cumsum_backward(grad.to(self_scalar_type), dim))


def cumprod_backward(grad, input, dim, output):
    """y_j = x_0 * ... * x_j, so dF/dx_k = sum_{j >= k} grad_j * y_j / x_k while x_k is not 0.

    With zeros (PyTorch's ReduceOps.cpp explains the cases): inputs after the first zero z1 get 0; inputs
    before z1 use the formula above on the outputs before z1; x_z1 itself gets
    prod(x[:z1]) * (grad[z1] + sum_{z1 < j < z2} grad[j] * prod(x[z1+1..j])), z2 being the second zero.
    That O(n) path is not differentiable in the right way, so under create_graph the gradient is built
    instead from the products of all the other elements, O(n^2), as in PyTorch.
    """
    if input.numel() <= 1:
        return grad
    dim = normalize_dim(dim, input.dim())
    n = input.shape[dim]
    if n == 1:
        return grad
    w = output * grad
    is_zero = input == 0
    if not is_zero.any().item():
        return _reversed_cumsum(w, dim) / input
    if not is_grad_enabled():
        cumsum = is_zero.cumsum(dim)
        # k < z1: everything before the first zero
        before = cumsum == 0
        grad_input = ops.where(before, _reversed_cumsum(w.masked_fill(~before, 0), dim) / input, 0)
        # k = z1: the first zero. max of a bool mask finds the first True (index 0 if there is none,
        # hence the `& mask`)
        mask = cumsum == 1
        first_zero_index = mask.max(dim, keepdim=True).indices
        first_zero_mask = ops.zeros_like(mask).scatter(dim, first_zero_index, True).logical_and(mask)
        between = mask.logical_and(first_zero_mask.logical_not())     # (z1, z2)
        at_z1 = (input.masked_fill(~between, 1).cumprod(dim) * grad.masked_fill(cumsum != 1, 0)).sum(dim, True)
        before_z1 = output.gather(dim, (first_zero_index - 1).clamp(min=0)).masked_fill(first_zero_index == 0, 1)
        return ops.where(first_zero_mask, at_z1 * before_z1, grad_input)
    # create_graph: dy_j/dx_k = prod(x[:k]) * prod(x[k+1..j]) for j >= k, one slice k at a time
    ones_size = list(input.shape)
    ones_size[dim] = 1
    ones = grad.new_ones((1,)).expand(ones_size)
    slices = []
    for k in range(n):
        if k == 0:
            omitted = ops.cat([ones, input.narrow(dim, 1, n - 1).cumprod(dim)], dim)
        elif k == n - 1:
            omitted = input.narrow(dim, 0, k).prod(dim, keepdim=True)
        else:
            until_k = input.narrow(dim, 0, k).prod(dim, keepdim=True)
            from_k_plus_1 = input.narrow(dim, k + 1, n - k - 1).cumprod(dim)
            omitted = ops.cat([until_k, until_k.expand(from_k_plus_1.shape) * from_k_plus_1], dim)
        slices.append((grad.narrow(dim, k, n - k) * omitted).sum(dim))
    return ops.stack(slices, dim)


derivative("cumprod", self=lambda grad, self, dim, result:
           cumprod_backward(grad.to(self.dtype), self, dim, result))


# ---- sort, topk, kthvalue, unique -------------------------------------------------------------------------------

# sort and topk keep the sorted dim (keepdim=True); kthvalue removes it unless keepdim
derivative("sort.stable", name="SortBackward0",
           self=lambda grad, dim, indices, self_sym_sizes:
           _value_selecting_backward(grad, dim, indices, self_sym_sizes, True))
derivative("topk", self=lambda grad, dim, indices, self_sym_sizes:
           _value_selecting_backward(grad, dim, indices, self_sym_sizes, True))
derivative("kthvalue", self=lambda grad, dim, indices, self_sym_sizes, keepdim:
           _value_selecting_backward(grad, dim, indices, self_sym_sizes, keepdim))


def _not_implemented(name):
    def formula(grad):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return formula


# unique's values require grad in PyTorch (they are copies of input values), but no formula was ever written:
# backward through them fails, from a node with the usual name
for _name in ("_unique2", "unique_dim", "unique_consecutive"):
    derivative(_name, self=_not_implemented(_name))

no_formula("argmax", "argmin", "all", "all.dims", "any", "any.dims", "count_nonzero.dim_IntList",
           why="integer or bool results")
