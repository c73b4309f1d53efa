"""Autograd: record a graph of backward nodes as ops run, and walk it backwards to get gradients.

Read in this order:
    grad_mode.py          no_grad / enable_grad / inference_mode: the switch the autograd kernels check
    node.py               Node, AccumulateGrad: the graph's pieces
    python_hook.py        hooks on nodes and tensors, and the checks on what they return
    saved_variable.py     what a node keeps for backward, and the in-place version check
    derivative.py         the derivatives table and the node classes generated from it
    variable_type.py      the autograd kernel: records a node for each op call (the Autograd dispatch key)
    variable.py, views.py gradient edges, in-place ops, views, CopySlices
    engine.py             backward: dependency counting and a ready queue, no recursion
    api.py                backward() and grad()
    function.py           custom autograd.Function
    gradcheck.py          checking formulas against finite differences
    graph.py              walking the graph and watching backward (for the explorer)
    derivatives/          the formulas, one file per op family
"""

from . import anomaly_mode, grad_mode, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled
from .api import backward, grad
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from .node import Node
from . import tensor_methods as _tensor_methods  # noqa: F401  (Tensor.backward, .grad, hooks, ...)
from . import variable_type as _variable_type  # noqa: F401  (the Autograd-key fallback kernel)
from . import inplace_views as _inplace_views  # noqa: F401  (x.squeeze_(), x.t_(), ...: Tensor methods only)


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
           "detect_anomaly", "set_detect_anomaly", "gradcheck", "gradgradcheck", "graph", "Node"]
