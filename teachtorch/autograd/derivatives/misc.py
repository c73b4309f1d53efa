"""Backward formulas of copies, conversions, fills and random fills."""

from ..derivative import derivative, not_differentiable

derivative("clone", self=lambda grad: grad)
derivative("_to_copy", self=lambda grad, self_options: grad.to(dtype=self_options[0], device=self_options[1]))
# copy_ writes `src` (broadcast, converted) over self: self's old values get no gradient; src gets it all,
# summed back to its shape by the engine and converted to its dtype/device here.
derivative("copy_", name="CopyBackwards",
           self=lambda grad: grad.new_zeros(()).expand(grad.shape),
           src=lambda grad, src_options: grad.to(dtype=src_options[0], device=src_options[1]))
derivative("fill_.Scalar", name="FillBackward0", self=lambda grad: grad.new_zeros(()).expand(grad.shape))
derivative("zero_", name="ZeroBackward0", self=lambda grad: grad.new_zeros(()).expand(grad.shape))
for _op in ("uniform_", "normal_", "random_.from", "random_.to", "random_", "bernoulli_.float", "exponential_",
            "geometric_", "log_normal_", "cauchy_"):
    derivative(_op, self=lambda grad: grad.new_zeros(()).expand(grad.shape))

not_differentiable(
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like.low_dtype",
)
