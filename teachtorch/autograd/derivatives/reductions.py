"""Backward formulas of reductions (being extended)."""

from ..derivative import derivative
from ..functions_manual import restore_reduced_dims

derivative("sum", self=lambda grad, self_sym_sizes: grad.expand(self_sym_sizes))
derivative("sum.dim_IntList", name="SumBackward1",
           self=lambda grad, self_sym_sizes, dim, keepdim: restore_reduced_dims(grad, dim, keepdim, self_sym_sizes))
