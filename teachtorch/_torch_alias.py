"""`import torch` that gives teachtorch: the import hook behind `python -m teachtorch.run` and `install_as_torch()`.

Python's `import torch.nn as nn` asks each *finder* on `sys.meta_path`, in order, for a spec of the module
"torch", then of "torch.nn" (importlib's `_find_and_load`). The finder here answers for "torch" and every
"torch.<x>" with the module "teachtorch.<x>": its loader's `create_module` imports the teachtorch module (or finds
it already imported) and returns that very object, so `sys.modules["torch.nn"] is sys.modules["teachtorch.nn"]`.
One module object under two names means one state: `torch.manual_seed` and `teachtorch.manual_seed` seed the same
generator, and an `isinstance(x, torch.Tensor)` check in the script sees teachtorch's Tensor. A name teachtorch
lacks (`torch._dynamo`) is not found, and the script fails with Python's own "No module named" error.

importlib writes the alias's spec into the module it loads (`module.__spec__`); `exec_module` puts the real
spec back, so teachtorch's modules keep saying who they are (`teachtorch.nn.__spec__.name == "teachtorch.nn"`).
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

__all__ = ["install_as_torch"]


class TorchAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds "torch" / "torch.x" as "teachtorch" / "teachtorch.x"."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real_name = "teachtorch" + fullname[len("torch"):]
        try:
            real_spec = importlib.util.find_spec(real_name)
        except ModuleNotFoundError:      # a parent package teachtorch lacks ("torch._dynamo.config")
            return None
        if real_spec is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, self, origin=real_spec.origin,
                                              is_package=real_spec.submodule_search_locations is not None)
        spec.loader_state = real_name
        return spec

    def create_module(self, spec):
        module = importlib.import_module(spec.loader_state)
        spec.loader_state = module.__spec__       # importlib is about to overwrite it with `spec`
        return module

    def exec_module(self, module):
        # the module ran when create_module imported it; only give it its own spec back
        module.__spec__ = module.__spec__.loader_state


def _install_finder():
    if not any(isinstance(f, TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchAliasFinder())


def install_as_torch():
    """Make `import torch` (and `import torch.nn as nn`, `from torch.utils.data import DataLoader`, ...) import
    teachtorch from now on in this process, e.g. at the top of a notebook, before the cells that `import torch`.

    Refuses if the real PyTorch is already imported: its modules are in `sys.modules` and objects made with it
    (tensors, modules) are already in use, so aliasing now would mix two libraries."""
    existing = sys.modules.get("torch")
    if existing is not None and getattr(existing, "__name__", None) != "teachtorch":
        raise RuntimeError("install_as_torch(): the real PyTorch is already imported in this process "
                           f"({getattr(existing, '__file__', existing)}); restart the kernel (or the interpreter) "
                           "and call teachtorch.install_as_torch() before anything imports torch")
    _install_finder()
    import teachtorch
    return teachtorch
