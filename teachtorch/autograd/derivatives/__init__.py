"""The derivatives table (PyTorch's tools/autograd/derivatives.yaml), one file per op family.

Each file calls `derivative(op, input=formula, ...)` (see ../derivative.py for how a formula's parameter
names say what is saved). An op with no formula says why, with `no_formula(op, why=...)`: its results are
integers or bools, or PyTorch has no derivative either. Ops whose results are new tensors unrelated to their
inputs' values (`zeros_like`, `rand_like`) are listed as `not_differentiable`.

Every file of this folder is loaded (a new family file needs no line here).
"""

import importlib
import pkgutil

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
    importlib.import_module(f"{__name__}.{_info.name}")
