"""Backward formulas of copies, conversions, fills and random fills."""

from ...ops.factories import zeros_like
from ..derivative import derivative, no_formula, not_differentiable

derivative("clone", self=lambda grad: grad)
derivative("_to_copy", self=lambda grad, self_options: grad.to(dtype=self_options[0], device=self_options[1]))
# copy_ writes `src` (broadcast, converted) over self: self's old values get no gradient; src gets it all,
# summed back to its shape by the engine and converted to its dtype/device here.
_copy = derivative("copy_", name="CopyBackwards",
                   self=lambda grad: zeros_like(grad),
                   src=lambda grad, src_options: grad.to(dtype=src_options[0], device=src_options[1]))
_copy.node_class._cpp_node = True      # hand-written in PyTorch: named "torch::autograd::CopyBackwards"
derivative("fill_.Scalar", name="FillBackward2", self=lambda grad: zeros_like(grad))
derivative("fill_.Tensor", name="FillBackward3", self=lambda grad: zeros_like(grad),
           value=lambda grad: grad.sum())
derivative("zero_", name="ZeroBackward0", self=lambda grad: zeros_like(grad))
# Random fills: the old values are gone, so no gradient flows back through them.
for _op, _name in [("uniform_", "UniformBackward0"), ("normal_", "NormalBackward0"),
                   ("random_.from", "RandomBackward0"), ("random_.to", "RandomBackward1"),
                   ("random_", "RandomBackward2"), ("bernoulli_.float", "BernoulliBackward2"),
                   ("exponential_", "ExponentialBackward0"), ("geometric_", "GeometricBackward0"),
                   ("log_normal_", "LogNormalBackward0"), ("cauchy_", "CauchyBackward0")]:
    derivative(_op, name=_name, self=lambda grad: zeros_like(grad))

# In-place logical ops on a float tensor are not differentiable: PyTorch leaves its history as it was.
not_differentiable("logical_and_", "logical_or_", "logical_xor_", "logical_not_")
not_differentiable(
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like.low_dtype",
    "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full",
)

no_formula("multinomial", why="integer results")
no_formula("bernoulli.p", why="no derivative in PyTorch either")
