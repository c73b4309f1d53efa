"""Backward formulas of matrix products (being extended)."""

from ..derivative import derivative

derivative("mm", self=lambda grad, mat2: grad.mm(mat2.t()), mat2=lambda grad, self: self.t().mm(grad))
