"""The cuda backend: storages in GPU memory (CuPy), and the moment CuPy is first needed.

A second backend is just a second set of kernels under the same dispatcher. teachtorch's kernels are written
once against an array module `xp`, so "the CUDA kernels" are the very same functions, registered a second time
under the `CUDA` dispatch key (ops/_define.py), and given CuPy arrays instead of NumPy arrays. What this file
adds is the part that really is different on a GPU: where the bytes live.

How PyTorch does it: a CUDA tensor's `StorageImpl` holds a pointer from the CUDA caching allocator
(c10/cuda/CUDACachingAllocator.cpp) and the device it lives on; a kernel launched on the current stream
reads it through (sizes, strides, offset). Here a `CudaStorage` holds a CuPy `uint8` array (its memory comes
from CuPy's memory pool, which caches blocks the same way), and `typed_array` builds the strided CuPy view
of a tensor over it with `cupy.ndarray(shape, dtype, memptr=..., strides=...)`: a real view, so a write
through it lands in the storage, exactly as on the cpu.

CuPy is optional (`pip install teachtorch[cuda12]` or `[cuda13]`). Nothing here imports it until a cuda
tensor is asked for; `import teachtorch` works without it.
"""

from .. import _dtype
from .._device import as_device, device
from . import ARRAY_MODULES, STORAGE_TYPES

INSTALL_HINT = ("teachtorch's cuda backend runs on CuPy, which is not installed. Install the wheel for your "
                "CUDA version: pip install 'teachtorch[cuda12]' (CUDA 12.x) or 'teachtorch[cuda13]' (CUDA 13.x)")

_state = {"cupy": None, "cupyx": None, "error": None, "peak": {}, "synchronized": 0}
current_device = [0]   # the GPU kernels run on unless told otherwise (teachtorch.cuda.set_device)


def device_guard(index):
    """Make GPU `index` current for a block (PyTorch's `DeviceGuard`; CuPy's `Device` context)."""
    return ARRAY_MODULES["cuda"].cuda.Device(index)


def _import_cupy():
    """CuPy, imported on first use (None and the reason when it is missing)."""
    if _state["cupy"] is None and _state["error"] is None:
        try:
            import cupy
            import cupyx
            _state["cupy"], _state["cupyx"] = cupy, cupyx
        except ImportError as e:  # not installed, or installed without its CUDA libraries
            _state["error"] = e
    return _state["cupy"]


def device_count():
    """Number of GPUs CuPy can see; 0 without CuPy or without a driver (never raises, as in PyTorch)."""
    cp = _import_cupy()
    if cp is None:
        return 0
    try:
        return int(cp.cuda.runtime.getDeviceCount())
    except Exception:   # CUDARuntimeError: no driver, no device
        return 0


def lazy_init():
    """Make the cuda backend ready (PyTorch's `torch.cuda._lazy_init`); raise a clear error if it cannot be."""
    if "cuda" in ARRAY_MODULES:
        return
    cp = _import_cupy()
    if cp is None:
        # PyTorch built without CUDA raises AssertionError("Torch not compiled with CUDA enabled")
        raise AssertionError(f"Torch not compiled with CUDA enabled: {INSTALL_HINT}. ({_state['error']})")
    if device_count() == 0:
        raise RuntimeError("Found no NVIDIA driver or no CUDA GPU on your system: CuPy is installed but "
                           "cupy.cuda.runtime.getDeviceCount() finds no device.")
    ARRAY_MODULES["cuda"] = cp
    STORAGE_TYPES["cuda"] = CudaStorage


def use_array_module(module, extras):
    """Run the cuda backend on `module` (and `extras` for cupyx) instead of CuPy. For the test suite only: its
    NumPy-backed stand-in (tests/fake_cupy.py) exercises every cuda code path on a machine without a GPU."""
    _state["cupy"], _state["cupyx"], _state["error"] = module, extras, None
    ARRAY_MODULES.pop("cuda", None)
    STORAGE_TYPES.pop("cuda", None)
    _state["peak"].clear()
    if module is not None:    # None: back to "not started", CuPy imported again when next asked for
        lazy_init()


def cupy():
    lazy_init()
    return ARRAY_MODULES["cuda"]


def cupyx():
    """CuPy's extras (`cupyx.scatter_add` and friends), used by backends/differences.py."""
    lazy_init()
    return _state["cupyx"]


def check_index(device):
    n = device_count()
    if device.index >= n:
        # PyTorch: torch.zeros(1, device="cuda:7") on a one-GPU machine
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {device.index} of {n})")


class CudaStorage:
    """A flat byte buffer in one GPU's memory (a CuPy uint8 array from CuPy's memory pool)."""

    __slots__ = ("_data", "device", "_nbytes", "_ptr", "__weakref__")

    def __init__(self, nbytes=0, *, device=None, _data=None):
        cp = ARRAY_MODULES["cuda"]
        self.device = as_device(device or "cuda")
        self._ptr = None
        if _data is None:
            check_index(self.device)
            with cp.cuda.Device(self.device.index):
                _data = cp.zeros(nbytes, dtype=cp.uint8)
        self._data = _data
        self._nbytes = _data.nbytes
        _note_peak(self.device.index)

    @classmethod
    def _wrap(cls, array):
        """A storage over a kernel's fresh C-contiguous CuPy array (no copy); its device is the array's."""
        s = object.__new__(cls)
        s._data = array
        s._ptr = None
        s._nbytes = array.nbytes
        s.device = device("cuda", int(array.device.id))
        _note_peak(s.device.index)
        return s

    def nbytes(self):
        return self._nbytes

    size = nbytes
    __len__ = nbytes

    def element_size(self):
        return 1

    def data_ptr(self):
        """The GPU address of the first byte (CuPy's `MemoryPointer.ptr`)."""
        if self._ptr is None:
            self._ptr = int(self._data.data.ptr)
        return self._ptr

    def typed_array(self, dtype, offset, sizes, strides):
        """The CuPy view of a tensor: `(offset, sizes, strides)` in elements of `dtype`, over these bytes."""
        cp = ARRAY_MODULES["cuda"]
        itemsize = dtype.itemsize
        if 0 in sizes:
            return cp.empty(sizes, dtype.numpy)
        return cp.ndarray(sizes, dtype.numpy, memptr=self._data.data + offset * itemsize,
                          strides=[s * itemsize for s in strides])

    def to_host(self, array):
        """Copy a (view of this storage's) CuPy array to a NumPy array: a device-to-host copy, which waits
        for the kernels that write it."""
        return ARRAY_MODULES["cuda"].asnumpy(array)

    def bytes(self):
        return self._data.reshape(-1).view(_dtype.uint8.numpy)

    def tolist(self):
        return self.to_host(self.bytes()).tolist()

    def __getitem__(self, i):
        return int(self.to_host(self.bytes()[i]))

    def __repr__(self):
        head = self.to_host(self.bytes()[:16])
        more = " ..." if self._nbytes > 16 else ""
        return (f"[teachtorch.storage.UntypedStorage(device={self.device}) of size {self._nbytes}]\n "
                f"{' '.join(str(int(b)) for b in head)}{more}")


# ---- memory statistics: read from CuPy's memory pool ---------------------------------------------------------


def _pool():
    return ARRAY_MODULES["cuda"].get_default_memory_pool()


def _note_peak(index):
    """Remember the highest pool usage seen (CuPy's pool keeps no peak; PyTorch's allocator does). It is read
    when a storage is made, so temporaries that die inside one kernel are not counted."""
    used = _pool().used_bytes()
    peak = _state["peak"]
    if used > peak.get(index, 0):
        peak[index] = used


def memory_allocated(index=0):
    """Bytes of GPU memory held by live arrays (CuPy's `MemoryPool.used_bytes`)."""
    if "cuda" not in ARRAY_MODULES:
        return 0
    return int(_pool().used_bytes())


def max_memory_allocated(index=0):
    if "cuda" not in ARRAY_MODULES:
        return 0
    _note_peak(index)
    return int(_state["peak"].get(index, 0))


def reset_peak_memory_stats(index=0):
    if "cuda" in ARRAY_MODULES:
        _state["peak"][index] = int(_pool().used_bytes())


def memory_reserved(index=0):
    """Bytes the pool holds from the driver, in use or cached (CuPy's `MemoryPool.total_bytes`)."""
    if "cuda" not in ARRAY_MODULES:
        return 0
    return int(_pool().total_bytes())


def empty_cache():
    """Give the pool's cached, unused blocks back to the driver."""
    if "cuda" in ARRAY_MODULES:
        _pool().free_all_blocks()


def synchronize(index=None):
    """Wait until every kernel queued on the device has finished. GPU work is asynchronous: without this,
    a timer stops when the kernels were *launched*, not when they were done."""
    cp = cupy()
    _state["synchronized"] += 1
    if index is None:
        cp.cuda.runtime.deviceSynchronize()
    else:
        with cp.cuda.Device(index):
            cp.cuda.runtime.deviceSynchronize()
