"""Backward formulas of pointwise ops (being extended)."""

from ..derivative import derivative

derivative("add.Tensor", self=lambda grad: grad, other=lambda grad, alpha: grad * alpha if alpha != 1 else grad)
derivative("sub.Tensor", self=lambda grad: grad, other=lambda grad, alpha: -grad * alpha if alpha != 1 else -grad)
derivative("mul.Tensor", self=lambda grad, other: grad * other, other=lambda grad, self: grad * self)
derivative("div.Tensor", self=lambda grad, other: grad / other,
           other=lambda grad, self, other: -grad * self / (other * other))
derivative("neg", self=lambda grad: -grad)
derivative("exp", self=lambda grad, result: grad * result)
derivative("sin", self=lambda grad, self: grad * self.cos())
derivative("cos", self=lambda grad, self: grad * -self.sin())
derivative("sqrt", self=lambda grad, result: grad / (2 * result))
