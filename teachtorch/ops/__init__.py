"""The public op surface: every function here dispatches (see _define.py)."""

from .factories import (  # noqa: F401
    arange, as_tensor, empty, empty_like, empty_strided, from_numpy, full, full_like, ones, ones_like, tensor,
    zeros, zeros_like,
)
from .views import (  # noqa: F401
    as_strided, broadcast_shapes, broadcast_tensors, broadcast_to, chunk, detach, diagonal, expand_as, flatten,
    movedim, moveaxis, narrow, permute, reshape, select, split, squeeze, swapaxes, swapdims, t, transpose, unbind,
    unflatten, unfold, unsqueeze, view_as,
)
from .copy import clone  # noqa: F401
from . import indexing as _indexing  # noqa: F401
from .pointwise import add, mul, multiply, neg, negative, rsub, sub, subtract  # noqa: F401

__all__ = [n for n in dir() if not n.startswith("_") and n not in ("factories", "pointwise", "views", "copy")]
