"""The derivatives table (PyTorch's tools/autograd/derivatives.yaml), one file per op family.

Each file calls `derivative(op, input=formula, ...)` (see ../derivative.py for how a formula's parameter
names say what is saved). Ops with integer or bool results need no entry; ops whose results are new
tensors unrelated to their inputs' values (`zeros_like`, `rand_like`) are listed as `not_differentiable`.
"""

from . import views, pointwise, reductions, linalg, shape, indexing, misc  # noqa: F401
from . import loss  # noqa: F401
