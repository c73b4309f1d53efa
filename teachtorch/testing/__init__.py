"""`teachtorch.testing`: tools for checking a backend (PyTorch's `torch.testing` holds its checkers too).

`compare_backends(fn, *inputs)` runs a function (a model's forward and backward, say) on two backends and
points at the first op where they disagree; see _compare_backends.py.
"""

from ._compare_backends import Backend, BackendComparison, OpComparison, ResultComparison, compare_backends

__all__ = ["Backend", "BackendComparison", "OpComparison", "ResultComparison", "compare_backends"]
