"""teachtorch: a readable PyTorch, for learning how a deep-learning framework works inside.

The layers, each importing only those below it:
    _dtype, _device, _storage        storage and dtypes
    _strides, _tensor                tensor metadata and stride arithmetic
    dispatch/                        the dispatcher, its keys, its trace
    backends/, kernels/              backend kernels (cpu on NumPy, cuda on CuPy)
    autograd/                        the autograd layer
    ops/                             the public functions and Tensor methods, one file per family
    explorer/                        the visual explorer (pictures and Jupyter widgets), on top of it all
"""

from . import _dtype
from ._device import device, get_default_device, set_default_device
from ._dtype import (
    bfloat16, bool_ as bool, can_cast, float16, float32, float64, get_default_dtype, int8, int16, int32, int64,
    promote_types, set_default_dtype, uint8,
)
from ._storage import UntypedStorage
from ._tensor import Size, Tensor, is_tensor
from . import dispatch
from .dispatch import inplace_or_view as _inplace_or_view  # noqa: F401  (registers the ADInplaceOrView layer)
from .dispatch import backend_select as _backend_select  # noqa: F401
from . import autograd
from .autograd.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops_all
from .ops import random  # noqa: F401  (teachtorch.random.manual_seed, like torch.random)
from ._repr import set_printoptions, get_printoptions, printoptions
from . import library, linalg
from . import cuda  # noqa: E402  (is_available, synchronize, memory statistics; CuPy is imported lazily)
from .autograd import derivatives as _derivatives  # noqa: F401  (backward formulas; they use the ops above)
from .dispatch import ops

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
uint8 = uint8
dtype = _dtype.dtype
result_type = _dtype.result_type

__version__ = "0.1.0"


def explore(model=None, **options):
    """`with teachtorch.explore(model) as ex:` draws storage, autograd graph and dispatch trace live, with the
    model's parameters named by their path (teachtorch.explorer.widgets.explore says more).

    The explorer is the layer above everything here; it is imported only when asked for, so the core never
    needs Jupyter."""
    from .explorer.widgets import explore as open_explorer
    return open_explorer(model, **options)


# The layers above autograd: layers and losses, optimizers, data loading. They import the core, never the reverse.
from . import nn, optim, utils  # noqa: E402,F401
from . import datasets  # noqa: E402,F401  (offline data for class; uses utils.data)
from .serialization import save, load  # noqa: E402,F401  (checkpoints, no pickle)

# Set-up APIs that PyTorch scripts call at the top, so that they run unchanged (python -m teachtorch.run).
from . import accelerator, amp, distributed  # noqa: E402,F401
from .amp.autocast_mode import (autocast, get_autocast_dtype, is_autocast_cache_enabled,  # noqa: E402,F401
                                 is_autocast_enabled)
from .backends import flags as _backend_flags  # noqa: E402  (torch.backends.cudnn, .mps, .cuda.matmul)
from .backends.flags import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: E402,F401
from .backends.threads import get_num_threads, set_num_threads  # noqa: E402,F401  (the BLAS library's threads)
from ._compile import compile  # noqa: E402,F401  (runs eagerly)
from ._legacy_tensor_types import *  # noqa: E402,F401,F403  (torch.FloatTensor(2, 3), isinstance(x, torch.LongTensor))
from . import ao, onnx, quantization, sparse  # noqa: E402,F401  (out of scope: they raise OutOfScopeError)
from ._torch_alias import install_as_torch  # noqa: E402,F401  (`import torch` gives teachtorch, in a notebook)


def __getattr__(name):
    """`teachtorch.explorer` is imported the first time you use it (`tt.explorer.storage_svg(x)` needs no
    `import teachtorch.explorer` first), so `import teachtorch` itself never loads the explorer or Jupyter."""
    if name == "explorer":
        import importlib
        return importlib.import_module(".explorer", __name__)
    raise AttributeError(f"module 'teachtorch' has no attribute '{name}'")
