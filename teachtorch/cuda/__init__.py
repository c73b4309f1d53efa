"""`teachtorch.cuda`: is there a GPU, which one is current, how much memory is in use, and its random seed.

As in PyTorch (torch/cuda/__init__.py), nothing here starts the GPU until it is needed: `is_available()` and
`device_count()` only ask whether CuPy finds a device, and the backend starts (`_lazy_init`) on the first cuda
tensor. Memory figures are read from CuPy's memory pool, which plays the part of PyTorch's caching allocator:
`memory_allocated` is what live tensors hold, `memory_reserved` what the pool keeps from the driver.

    if teachtorch.cuda.is_available():
        model.to("cuda"); x = x.cuda()
        ...
        teachtorch.cuda.synchronize()        # GPU work is asynchronous: wait before reading a clock
"""

from .._device import device as _device
from ..backends import cuda as _backend
from ..ops import random as _random


def is_available():
    """True when CuPy is installed and sees at least one GPU."""
    return _backend.device_count() > 0


def device_count():
    return _backend.device_count()


def is_initialized():
    return "cuda" in _backend.ARRAY_MODULES


def init():
    _backend.lazy_init()


def _index(device):
    """A GPU index from None (the current one), an int, "cuda:1" or a device."""
    if device is None:
        return _backend.current_device[0]
    if isinstance(device, int):
        return device
    d = _device(device) if isinstance(device, str) else device
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return _backend.current_device[0] if d.index is None else d.index


def current_device():
    _backend.lazy_init()
    return _backend.current_device[0]


def set_device(device):
    """Make GPU `device` the one kernels run on by default."""
    index = _index(device)
    _backend.lazy_init()
    _backend.check_index(_device("cuda", index))
    _backend.current_device[0] = index
    _backend.cupy().cuda.Device(index).use()


class device:
    """`with teachtorch.cuda.device(1):` runs the block with GPU 1 current."""

    def __init__(self, device):
        self.index = _index(device)

    def __enter__(self):
        self.prev = _backend.current_device[0]
        set_device(self.index)

    def __exit__(self, *exc):
        set_device(self.prev)
        return False


def get_device_name(device=None):
    cp = _backend.cupy()
    props = cp.cuda.runtime.getDeviceProperties(_index(device))
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(device=None):
    """Wait for every kernel queued on the GPU (the current one, or `device`) to finish."""
    _backend.synchronize(None if device is None else _index(device))


# ---- memory (CuPy's pool) -------------------------------------------------------------------------------------


def memory_allocated(device=None):
    """Bytes held by live tensors (and anything else alive in CuPy's pool)."""
    return _backend.memory_allocated(_index(device))


def max_memory_allocated(device=None):
    """The most `memory_allocated` has been since the start or `reset_peak_memory_stats`."""
    return _backend.max_memory_allocated(_index(device))


def reset_peak_memory_stats(device=None):
    _backend.reset_peak_memory_stats(_index(device))


def memory_reserved(device=None):
    return _backend.memory_reserved(_index(device))


def empty_cache():
    _backend.empty_cache()


# ---- random numbers ---------------------------------------------------------------------------------------------


def manual_seed(seed):
    """Seed the current GPU's default generator (silently nothing to do without a GPU, as in PyTorch)."""
    seed = int(seed)
    if not is_available():
        _random._cuda_seed[0] = seed
        return
    _random.default_generator_of(_device("cuda", _index(None))).manual_seed(seed)


def manual_seed_all(seed):
    _random.seed_cuda_generators(int(seed))


def seed():
    return _random.default_generator_of(_device("cuda", current_device())).seed()


def initial_seed():
    return _random.default_generator_of(_device("cuda", current_device())).initial_seed()


def get_rng_state(device="cuda"):
    return _random.default_generator_of(_device("cuda", _index(device))).get_state()


def set_rng_state(new_state, device="cuda"):
    _random.default_generator_of(_device("cuda", _index(device))).set_state(new_state)


def is_bf16_supported(including_emulation=True):
    """False: a GPU could compute in bfloat16, but teachtorch has no bfloat16 tensors (see `_dtype.bfloat16`), so
    code that picks `torch.bfloat16` only when this says yes takes its float16/float32 path."""
    return False


def default_generators():
    return tuple(_random.default_generator_of(_device("cuda", i)) for i in range(device_count()))


__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device", "set_device", "device",
           "get_device_name", "synchronize", "memory_allocated", "max_memory_allocated",
           "reset_peak_memory_stats", "memory_reserved", "empty_cache", "manual_seed", "manual_seed_all", "seed",
           "initial_seed", "get_rng_state", "set_rng_state", "is_bf16_supported", "amp"]


from . import amp  # noqa: E402  (torch.cuda.amp.GradScaler / autocast, the deprecated spellings of torch.amp's)
