"""How a tensor turns into the text you see at the prompt: ``repr(tensor)``.

What this module does
---------------------
``format_tensor`` takes the elements of a tensor (as a NumPy array) plus a
little metadata (dtype, device, autograd state) and produces *exactly* the
string PyTorch would print, for example::

    tensor([[ 0.5000, -1.2500],
            [ 3.0000,  4.0000]], dtype=torch.float64, requires_grad=True)

``set_printoptions`` / ``get_printoptions`` / ``printoptions`` control
precision, summarization and line width, just like their ``torch`` namesakes.

How PyTorch does it
-------------------
PyTorch's printing lives in pure Python, in ``torch/_tensor_str.py``;
``Tensor.__repr__`` calls ``torch._tensor_str._str``.  This file is a port of
that logic onto NumPy, keeping PyTorch's function names so you can read the
two side by side.  The pipeline is:

1. ``_str_intern`` picks a prefix (``"tensor("``) and collects *suffixes*
   such as ``device='cuda:0'``, ``dtype=torch.float16``,
   ``grad_fn=<AddBackward0>``.

2. ``_tensor_str`` decides whether to *summarize* (more than ``threshold``
   elements means only ``edgeitems`` items are shown at each end of every
   dimension, with ``...`` in between) and builds one ``_Formatter`` for the
   whole tensor.  The formatter looks at the values once (only the ones
   that will actually be shown) and chooses a single style for every element:

   * integer and bool tensors: ``str(value)``;
   * float tensors whose finite values are all whole numbers ("int mode"):
     ``1.``, ``-3.`` -- the trailing dot tells you it's still a float;
   * otherwise fixed point with ``precision`` digits: ``0.1235``;
   * scientific notation (``1.0000e+10``) when the finite non-zero magnitudes
     span more than a factor of 1000, or the largest exceeds 1e8, or the
     smallest is below 1e-4 (unless ``sci_mode`` forces it on or off).

   It also remembers the width of the widest element, so every element is
   right-aligned to that width and the columns line up.

3. ``_tensor_str_with_formatter`` walks the dimensions recursively.  A 1-D
   row (``_vector_str``) is wrapped so it fits in ``linewidth`` characters;
   higher dimensions join their sub-tensors with ``,`` followed by one
   newline per remaining dimension (so 3-D blocks get a blank line between
   them) and indentation lining them up under the opening bracket.

4. ``_add_suffixes`` glues the suffixes on after ``, `` -- or after ``,``
   plus a newline and the 7-space ``tensor(`` indent when the suffix would
   push the last line past ``linewidth``.

A few quirks are reproduced on purpose because PyTorch has them:

* Widths are measured on the *finite non-zero* values only, so ``nan``,
  ``inf`` and ``-0.`` can end up wider than their neighbours and break the
  alignment (``tensor([1., nan])``).
* The line-length estimate in ``_add_suffixes`` is off by a few characters.
* ``edgeitems=0`` prints ``[...]`` plus an explicit ``size=`` suffix.

PyTorch's version also handles complex, sparse, quantized, nested and meta
tensors; teachtorch has none of those, so they are left out here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Iterator

import numpy as np

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]


# ---------------------------------------------------------------------------
# Print options (torch.set_printoptions / torch.get_printoptions)
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4  # digits after the decimal point
    threshold: float = 1000  # more elements than this => summarize
    edgeitems: int = 3  # items kept at each end of a summarized dimension
    linewidth: int = 80  # soft limit on characters per line
    sci_mode: bool | None = None  # None = let the formatter decide


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set options for printing tensors (same semantics as ``torch.set_printoptions``).

    ``profile`` is one of ``"default"``, ``"short"`` or ``"full"`` and is applied
    first; the other arguments then override individual settings.  Like PyTorch,
    ``sci_mode`` is *always* assigned, so leaving it out resets it to ``None``
    (automatic).
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Current print options, as a dict that can be passed back to ``set_printoptions``.

    Keys: ``precision``, ``threshold``, ``edgeitems``, ``linewidth``, ``sci_mode``.
    """
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change print options: ``with printoptions(precision=2): ...``."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------------
# The formatter: one printing style for every element of a tensor
# ---------------------------------------------------------------------------


def _is_floating(dtype_name: str) -> bool:
    return dtype_name.startswith(("float", "bfloat"))


class _Formatter:
    """Chooses how to print the elements of one tensor and how wide to pad them.

    ``values`` is what will actually be shown (already summarized).  The
    decisions made here -- int mode, sci mode, max width -- apply to every
    element, which is what makes the columns line up.
    """

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating_dtype = floating
        self.int_mode = True  # floats only: every finite value is a whole number
        self.sci_mode = False  # floats only: use 1.2345e+06 notation
        self.max_width = 1

        if not self.floating_dtype:
            # Integers and bools print with str(); the width is the longest one.
            for value in values.reshape(-1).tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return

        # Floats: only the finite, non-zero values take part in the decisions.
        # (PyTorch converts to double for this "for easy calculation"; float16
        # would overflow at 1e8.)
        flat = values.reshape(-1).astype(np.float64)
        nonzero_finite_vals = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite_vals.size == 0:
            # All zeros / nan / inf: keep int mode, width 1.
            return

        nonzero_finite_abs = np.abs(nonzero_finite_vals)
        nonzero_finite_min = nonzero_finite_abs.min()
        nonzero_finite_max = nonzero_finite_abs.max()

        self.int_mode = bool(np.all(nonzero_finite_vals == np.ceil(nonzero_finite_vals)))

        if PRINT_OPTS.sci_mode is None:
            # Python floats: 1e300 / 1e-300 is inf without NumPy's overflow warning
            ratio = float(nonzero_finite_max) / float(nonzero_finite_min)
            self.sci_mode = bool(
                ratio > 1000.0 or nonzero_finite_max > 1.0e8 or nonzero_finite_min < 1.0e-4
            )
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        precision = PRINT_OPTS.precision
        for value in nonzero_finite_vals.tolist():
            if self.sci_mode:
                value_str = f"{value:.{precision}e}"
            elif self.int_mode:
                # Count the trailing "." that format() will append.
                value_str = f"{value:.0f}" + "."
            else:
                value_str = f"{value:.{precision}f}"
            self.max_width = max(self.max_width, len(value_str))

    def width(self) -> int:
        return self.max_width

    def format(self, value: float | int | bool) -> str:
        """Format one Python scalar, right-aligned to the common width."""
        precision = PRINT_OPTS.precision
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."  # 1. rather than 1, so you can tell it's a float
            else:
                ret = f"{value:.{precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


# ---------------------------------------------------------------------------
# Laying out the elements: rows, nested brackets, summarization
# ---------------------------------------------------------------------------


def _vector_str(values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    """A 1-D row: ``[a, b, c]``, wrapped to fit in ``linewidth``."""
    # Each element takes its padded width plus ", ".
    element_length = formatter.width() + 2
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    edgeitems = PRINT_OPTS.edgeitems
    if summarize and not edgeitems:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edgeitems:
        data = (
            [formatter.format(v) for v in values[:edgeitems].tolist()]
            + [" ..."]
            + [formatter.format(v) for v in values[-edgeitems:].tolist()]
        )
    else:
        data = [formatter.format(v) for v in values.tolist()]

    data_lines = [data[i : i + elements_per_line] for i in range(0, len(data), elements_per_line)]
    lines = [", ".join(line) for line in data_lines]
    # Continuation lines start one column to the right of the "[".
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(
    values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter
) -> str:
    """Recursively print ``values``; ``indent`` is the column of its opening ``[``."""
    dim = values.ndim

    if dim == 0:
        return formatter.format(values.item())

    if dim == 1:
        return _vector_str(values, indent, summarize, formatter)

    def sub(i: int) -> str:
        # Sub-tensors sit one column further right, inside our "[".
        return _tensor_str_with_formatter(values[i], indent + 1, summarize, formatter)

    n = values.shape[0]
    edgeitems = PRINT_OPTS.edgeitems
    if summarize and n > 2 * edgeitems:
        slices = (
            [sub(i) for i in range(edgeitems)]
            + ["..."]
            + [sub(i) for i in range(n - edgeitems, n)]
        )
    else:
        slices = [sub(i) for i in range(n)]

    # A 2-D tensor puts its rows on consecutive lines; each extra dimension
    # adds one more blank line between blocks.
    tensor_str = ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices)
    return "[" + tensor_str + "]"


def _get_summarized_data(values: np.ndarray) -> np.ndarray:
    """Only the elements that a summarized print will show (for the formatter).

    Note the PyTorch quirk kept here: with ``edgeitems == 0`` a 1-D slice
    ``values[-0:]`` is the *whole* row.
    """
    dim = values.ndim
    edgeitems = PRINT_OPTS.edgeitems
    if dim == 0:
        return values
    if dim == 1:
        if values.shape[0] > 2 * edgeitems:
            return np.concatenate((values[:edgeitems], values[-edgeitems:]))
        return values
    if not edgeitems:
        return np.empty((0,) * dim, dtype=values.dtype)
    if values.shape[0] > 2 * edgeitems:
        n = values.shape[0]
        rows = [values[i] for i in range(edgeitems)] + [values[i] for i in range(n - edgeitems, n)]
    else:
        rows = [values[i] for i in range(values.shape[0])]
    return np.stack([_get_summarized_data(row) for row in rows])


def _tensor_str(values: np.ndarray, indent: int, floating: bool) -> str:
    """The bracketed contents of a tensor, e.g. ``[[1, 2],\\n        [3, 4]]``."""
    if values.size == 0:
        return "[]"

    summarize = values.size > PRINT_OPTS.threshold
    formatter = _Formatter(_get_summarized_data(values) if summarize else values, floating)
    return _tensor_str_with_formatter(values, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` items, moving one to a new line if it would not fit."""
    tensor_strs = [tensor_str]
    # Length of the last line (PyTorch's estimate: "+ 1" rather than "- 1",
    # so it is 2 too big; kept so the output matches).
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


# ---------------------------------------------------------------------------
# Public entry point (torch/_tensor_str.py: _str_intern)
# ---------------------------------------------------------------------------


def format_tensor(
    values: Any,
    *,
    dtype_name: str,
    is_default_dtype: bool,
    device: str | None = None,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
) -> str:
    """Return ``repr`` of a tensor, character for character as PyTorch prints it.

    Args:
        values: NumPy array (any memory layout) with the tensor's elements and shape.
        dtype_name: ``"float32"``, ``"int64"``, ``"bool"``, ... (``torch.`` is added).
        is_default_dtype: True if the dtype needs no ``dtype=`` suffix -- in
            PyTorch that is the default float dtype, ``int64`` and ``bool``.
            Empty tensors are the exception: there are no elements to show the
            type, so PyTorch prints ``dtype=`` unless it is the default *float*
            dtype; this function applies that rule itself.
        device: e.g. ``"cuda:0"``; shown as ``device='cuda:0'`` when not None.
        requires_grad: adds ``requires_grad=True`` (only for leaves, i.e. when
            ``grad_fn_name`` is None).
        grad_fn_name: e.g. ``"AddBackward0"``; shown as ``grad_fn=<AddBackward0>``.
    """
    values = np.asarray(values)
    floating = _is_floating(dtype_name)

    prefix = "tensor("
    indent = len(prefix)
    suffixes = []

    if device is not None:
        suffixes.append(f"device='{device}'")

    dtype_suffix = f"dtype=torch.{dtype_name}"
    if values.size == 0:
        # Print the shape unless it is (0,), to match NumPy.
        if values.ndim != 1:
            suffixes.append("size=" + str(tuple(values.shape)))
        # int64/bool cannot be told apart from "[]" alone, so only the
        # default float dtype goes without a dtype= here.
        if not (is_default_dtype and floating):
            suffixes.append(dtype_suffix)
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            # Nothing of the contents will be shown, so say how big it is.
            suffixes.append("size=" + str(tuple(values.shape)))
        if not is_default_dtype:
            suffixes.append(dtype_suffix)
        tensor_str = _tensor_str(values, indent, floating)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _add_suffixes(prefix + tensor_str, suffixes, indent)
