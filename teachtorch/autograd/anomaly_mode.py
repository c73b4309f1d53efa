"""Anomaly mode: find the forward op behind a failing backward.

PyTorch: torch/autograd/anomaly_mode.py and csrc/autograd/anomaly_mode.cpp. While it is on,

* every node made records the Python stack of the forward call that made it (`metadata["traceback_"]`);
* when a node's backward raises, or (with `check_nan=True`) returns NaN, the error names the node and the
  forward traceback is printed, so you see *which line of your model* produced the bad gradient.

It costs a stack capture per op, so it is for debugging only.
"""

import traceback
import warnings


class _AnomalyMode:
    enabled = False
    check_nan = True


def is_anomaly_enabled():
    return _AnomalyMode.enabled


def is_anomaly_check_nan_enabled():
    return _AnomalyMode.check_nan


def store_forward_trace(node):
    """Keep the stack of the forward call (without the teachtorch frames below the user's code)."""
    stack = traceback.extract_stack()[:-1]
    while len(stack) > 1 and "/teachtorch/" in (stack[-1].filename or ""):
        stack.pop()
    node.metadata["traceback_"] = traceback.format_list(stack)


def forward_trace_of(node):
    return "".join(node.metadata.get("traceback_", [])) if "_metadata" in node.__dict__ else ""


def warn_with_forward_trace(node):
    """What the engine prints when `node` failed in backward under anomaly mode."""
    trace = forward_trace_of(node)
    if trace:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
                      f"{trace}", RuntimeWarning, stacklevel=2)


class set_detect_anomaly:
    """`with set_detect_anomaly(True):` (or call it) turns anomaly mode on or off."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_AnomalyMode.enabled, _AnomalyMode.check_nan)
        _AnomalyMode.enabled = bool(mode)
        _AnomalyMode.check_nan = bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _AnomalyMode.enabled, _AnomalyMode.check_nan = self.prev
        return False


class detect_anomaly:
    """Context manager and decorator: anomaly mode on inside (`torch.autograd.detect_anomaly`)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", UserWarning, stacklevel=2)
        self.prev = (_AnomalyMode.enabled, _AnomalyMode.check_nan)
        _AnomalyMode.enabled, _AnomalyMode.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc):
        _AnomalyMode.enabled, _AnomalyMode.check_nan = self.prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper
