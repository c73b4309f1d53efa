"""The public op surface, one module per family; every function here dispatches (see _define.py).

Each module lists its public names in `__all__`; this file imports every module of the folder (a new family
file needs no line here) and re-exports those names as `teachtorch.<name>`. Files whose name starts with
`_` are helpers, not families.
"""

import importlib
import pkgutil

__all__ = []
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
    if _info.name.startswith("_"):
        continue
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_module, "__all__", ()):
        globals()[_name] = getattr(_module, _name)
        if _name not in __all__:
            __all__.append(_name)
