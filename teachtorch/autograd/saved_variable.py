"""SavedVariable: a tensor a backward node keeps for later, with the checks that make that safe.

PyTorch: torch/csrc/autograd/saved_variable.cpp. Three things happen here.

1. **Version check.** Saving records the tensor's version. If the tensor is changed in place afterwards
   (its version counter moves on), using it in backward would silently give a wrong gradient, so unpacking
   raises "one of the variables needed for gradient computation has been modified by an inplace operation".
2. **No reference cycle.** A node that saves its own output (`exp` saves `result`) must not hold that
   output tensor itself: the output holds the node as its `grad_fn`, so node -> tensor -> node would be a
   cycle. It keeps a detached alias (same storage and version counter) and, when unpacked, makes a fresh
   tensor whose `grad_fn` is the node (given by the caller), so double backward still sees the history.
3. **Freeing.** After backward (without `retain_graph=True`) the node releases its saved tensors; unpacking
   one after that raises "Trying to backward through the graph a second time ...".

`saved_tensors_hooks(pack, unpack)` (in graph.py) lets the user replace how tensors are stored.
"""

import re

from .._tensor import Tensor
from . import anomaly_mode

# The (pack, unpack) pairs of active `saved_tensors_hooks` contexts (graph.py); the innermost one is used.
saved_tensors_hooks_stack = []
_TENSOR_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)


def _short_name(name):
    """How PyTorch names a node in its messages: "ExpBackward0" -> "Exp", "SumBackward1" -> "Sum1", a custom
    Function's "FBackward" -> "F" (hand-written nodes keep their name: "torch::autograd::CopyBackwards")."""
    m = re.fullmatch(r"(.*)Backward(\d*)", name)
    if m is None:
        return name
    return m.group(1) + ("" if m.group(2) in ("", "0") else m.group(2))


def _alias(t):
    """`t.detach()` without a trip through the dispatcher: same storage, same version counter, no history."""
    a = Tensor._make(t._storage, t._offset, t._sizes, t._strides, t.dtype, t._array)
    a._vc = t._vc
    return a


class SavedVariable:
    __slots__ = ("data", "is_output", "saved_version", "was_default", "output_nr", "requires_grad",
                 "is_leaf", "grad_fn_name", "_packed", "_unpack_hook", "_freed", "weak_grad_fn_owner")

    def __init__(self, tensor, is_output=False):
        self._freed = False
        self._packed = None
        self._unpack_hook = None
        if not isinstance(tensor, Tensor):
            # None, or a Python number given where the schema says Tensor (`x * 0.5`): PyTorch wraps the
            # number in a tensor and saves that, so it too is freed after backward.
            self.data = tensor
            self.is_output = False
            return
        self.saved_version = tensor._vc.value
        self.is_output = is_output
        self.output_nr = tensor._output_nr
        # (the private fields, not the properties: this runs for every saved tensor of every recorded op)
        grad_fn = tensor._grad_fn if tensor._base is None else tensor.grad_fn
        self.requires_grad = tensor._requires_grad or grad_fn is not None
        self.is_leaf = grad_fn is None
        self.grad_fn_name = None if grad_fn is None else _short_name(grad_fn.name())
        if saved_tensors_hooks_stack:
            pack, self._unpack_hook = saved_tensors_hooks_stack[-1]
            hooks = saved_tensors_hooks_stack[:]
            saved_tensors_hooks_stack[:] = ()      # ops inside the pack hook save without hooks
            try:                                   # (slice stores, no calls: Ctrl-C-safe, see _grad_mode.py)
                self._packed = pack(tensor)
            finally:
                saved_tensors_hooks_stack[:] = hooks
            self.data = None
            return
        if is_output and grad_fn is not None:
            self.data = _alias(tensor)   # no history: no node -> tensor -> node cycle
        else:
            self.data = tensor

    def unpack(self, grad_fn=None):
        """The saved tensor, checked. `grad_fn` is the node unpacking it (used for a saved output)."""
        if self._freed:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        if self._unpack_hook is not None:
            return self._unpack_hook(self._packed)   # PyTorch does no version check with hooks either
        t = self.data
        if not isinstance(t, Tensor):
            return t
        if t._vc.value != self.saved_version:
            raise RuntimeError(self._version_error(t))
        if self.is_output and self.requires_grad and grad_fn is not None and t.grad_fn is None:
            # Rebuild the output as the node's result, so a graph built on it (create_graph) links back here.
            out = _alias(t)
            out._requires_grad = True
            out._grad_fn = grad_fn
            out._output_nr = self.output_nr
            return out
        return t

    def _version_error(self, t):
        kind = f"torch.{_TENSOR_TYPE_NAMES[t.dtype.name]}Tensor"
        shape = ", ".join(map(str, t._sizes))
        name = self.grad_fn_name
        if not self.is_output and t.grad_fn is not None:
            name = _short_name(t.grad_fn.name())       # a view's history may have been rebuilt since
        whose = "" if name is None else f", which is output {self.output_nr} of {name},"
        hint = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                "The variable in question was changed in there or anywhere later. Good luck!"
                if anomaly_mode.is_anomaly_enabled() else
                "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
        return ("one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{kind} [{shape}]]{whose} is at version {t._vc.value}; expected "
                f"version {self.saved_version} instead. {hint}")

    def release(self):
        self.data = None
        self._packed = None
        self._freed = True

    # What the explorer shows for a saved tensor.
    def info(self):
        t = self.data
        if not isinstance(t, Tensor):
            return {"freed": self._freed, "shape": None, "dtype": None, "saved_version": None, "version": None,
                    "value": t}
        return {"freed": False, "shape": tuple(t._sizes), "dtype": str(t.dtype),
                "saved_version": self.saved_version, "version": t._vc.value, "is_output": self.is_output}
