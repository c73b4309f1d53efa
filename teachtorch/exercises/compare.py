"""Comparing a student's answer with the expected one, the way Karpathy's `cmp()` does in "backprop ninja":
exact, approximately equal, and the largest difference, plus what the exercise is about for tensors (shape,
strides, dtype, whether the answer shares the input's storage).

    compare(expected, got)      -> Comparison(ok, exact, close, maxdiff, where, lines)

Numbers, tuples and lists are compared element by element (a tuple of strides is not "close" to another:
only exact counts for integers); tensors and NumPy arrays by value with a tolerance (`rtol`, `atol`), and also
by shape and dtype. PyTorch's own helper for this is `torch.testing.assert_close`, which tests call; a
student's check needs the same verdict said in words, not an AssertionError.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .._tensor import Tensor


@dataclass
class Comparison:
    ok: bool                          # the answer is accepted
    exact: bool                       # equal to the last bit (and same shape and dtype)
    close: bool                       # equal within the tolerance
    maxdiff: float = 0.0              # the largest absolute difference (numbers, tensors)
    where: str = ""                   # where the first difference is ("[1, 2]", "item 0", "shape")
    lines: list = field(default_factory=list)   # what to tell the student, a line each


def _as_array(v):
    if isinstance(v, Tensor):
        return v.detach().numpy() if v.device.type == "cpu" else v.detach().cpu().numpy()
    return np.asarray(v)


def _describe(v):
    if isinstance(v, Tensor):
        return f"tensor of shape {tuple(v.shape)}, strides {v.stride()}, {v.dtype}"
    if isinstance(v, np.ndarray):
        return f"array of shape {v.shape}, {v.dtype}"
    text = repr(v)
    return text if len(text) <= 120 else text[:117] + "..."


def compare(expected, got, rtol=1e-5, atol=1e-8):
    """How `got` compares with `expected` (see the module docstring)."""
    if isinstance(expected, (Tensor, np.ndarray)):
        return _compare_arrays(expected, got, rtol, atol)
    if isinstance(expected, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        diff = abs(expected - got)
        close = math.isclose(expected, got, rel_tol=rtol, abs_tol=atol) or (math.isnan(expected) and math.isnan(got))
        return Comparison(close, expected == got, close, diff, "",
                          [] if close else [f"expected {expected!r}, got {got!r} (difference {diff:.3g})"])
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)):
            return Comparison(False, False, False, math.inf, "type",
                              [f"expected a {type(expected).__name__} like {expected!r}, got {_describe(got)}"])
        if len(got) != len(expected):
            return Comparison(False, False, False, math.inf, "length",
                              [f"expected {len(expected)} items {tuple(expected)!r}, got {len(got)}: {tuple(got)!r}"])
        for i, (e, g) in enumerate(zip(expected, got)):
            c = compare(e, g, rtol, atol)
            if not c.ok:
                return Comparison(False, False, False, c.maxdiff, f"item {i}",
                                  [f"expected {tuple(expected)!r}, got {tuple(got)!r}: item {i} differs"] + c.lines[1:])
        return Comparison(True, True, True)
    same = type(got) is type(expected) or (isinstance(expected, int) and isinstance(got, (int, np.integer))
                                           and not isinstance(got, bool))
    ok = same and got == expected
    return Comparison(bool(ok), bool(ok), bool(ok), 0.0 if ok else math.inf, "",
                      [] if ok else [f"expected {expected!r}, got {_describe(got)}"])


def _compare_arrays(expected, got, rtol, atol):
    if not isinstance(got, (Tensor, np.ndarray)):
        return Comparison(False, False, False, math.inf, "type",
                          [f"expected a {_describe(expected)}, got {_describe(got)}"])
    e, g = _as_array(expected), _as_array(got)
    if e.shape != g.shape:
        return Comparison(False, False, False, math.inf, "shape",
                          [f"expected shape {e.shape}, got shape {g.shape}"])
    lines = []
    if isinstance(expected, Tensor) and isinstance(got, Tensor) and expected.dtype != got.dtype:
        lines.append(f"expected dtype {expected.dtype}, got {got.dtype}")
    if e.size == 0:
        return Comparison(not lines, not lines, not lines, 0.0, "dtype" if lines else "", lines)
    ef, gf = e.astype(np.float64), g.astype(np.float64)
    both_nan = np.isnan(ef) & np.isnan(gf)
    diff = np.where(both_nan, 0.0, np.abs(ef - gf))
    diff = np.where(np.isnan(diff), np.inf, diff)         # a NaN on one side only is as wrong as it gets
    maxdiff = float(diff.max())
    close_mask = both_nan | np.isclose(ef, gf, rtol=rtol, atol=atol)
    close = bool(close_mask.all()) and not lines
    exact = close and bool(np.array_equal(e, g, equal_nan=True))
    where = ""
    if not close_mask.all():
        index = tuple(int(i) for i in np.argwhere(~close_mask)[0])
        where = f"[{', '.join(map(str, index))}]"
        lines.append(f"at {where}: expected {e[index]!r}, got {g[index]!r}; "
                     f"{int((~close_mask).sum())} of {e.size} elements differ, max difference {maxdiff:.3g}")
    return Comparison(close, exact, close, maxdiff, where, lines)
