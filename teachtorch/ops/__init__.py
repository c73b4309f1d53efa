"""The public op surface, one module per family; every function here dispatches (see _define.py).

Each module lists its public names in `__all__`; this file re-exports them all as `teachtorch.<name>`.
"""

from . import factories, range_factories, tensor_new, views, copy, indexing, pointwise, pointwise_more, reductions, linalg  # noqa: F401
from . import indexing_advanced, shape_ops, sorting, random, conversions  # noqa: F401
from . import ctc  # noqa: F401  (torch.ctc_loss, torch._ctc_loss)
from . import resize  # noqa: F401  (x.resize_(), x.resize_as_(): Tensor methods only)

_MODULES = (factories, range_factories, tensor_new, views, copy, indexing, pointwise, pointwise_more, reductions, linalg, indexing_advanced,
            shape_ops, sorting, random, conversions, ctc)

__all__ = []
for _m in _MODULES:
    for _name in getattr(_m, "__all__", ()):
        globals()[_name] = getattr(_m, _name)
        __all__.append(_name)
