"""`torch.Generator`: the state of a random number stream, and the default generator of each device.

How PyTorch does it. A `torch.Generator` owns the state of a pseudo-random number generator: on the cpu a
Mersenne Twister (aten/src/ATen/CPUGeneratorImpl.cpp), on cuda Philox (aten/src/ATen/cuda/CUDAGeneratorImpl.cpp).
`torch.manual_seed(s)` reseeds the *default* generator of every device; every random op takes `generator=`
to use another one, and its kernel asks the generator for random bits.

teachtorch uses NumPy's PCG64 `numpy.random.Generator` instead of the Mersenne Twister, so its numbers are
*not* PyTorch's, bit for bit, even with the same seed. What carries over: the seeding API (same seed, same
numbers), `get_state`/`set_state`, and the argument checks with their messages.

The generators live with the kernels because the kernels draw from them (`rng_of`); ops/random.py
re-exports them as `teachtorch.Generator`, `teachtorch.manual_seed`, `teachtorch.default_generator`, ...
"""

import operator
import secrets

import numpy as np

from .. import _dtype
from .._device import as_device, default_device
from .._tensor import Tensor
from .._tensor import typename as _type_name   # the parser's name for a type: float, Tensor, numpy.ndarray
from ..backends import ARRAY_MODULES, write
from ..backends import cuda as cuda_backend
from ..backends import empty as _empty_tensor
from .factories import is_index

_DEFAULT_SEED = 67280421310721   # c10::detail::default_rng_seed_val: the seed of a new torch.Generator()
_STATE_SIZE = 8 + 16 + 16 + 1 + 4  # seed, PCG64 state and increment, buffered 32-bit draw (see get_state)


class Generator:
    """`torch.Generator`: the state of one random number stream (here a NumPy PCG64 bit generator).

    A cuda generator (`Generator("cuda")`) keeps the same kind of state and draws on the host; the numbers
    are then copied to the GPU (backends/differences.py says why). PyTorch's cuda generators are Philox,
    drawn on the GPU."""

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        if self.device.type == "cuda":
            cuda_backend.lazy_init()           # starts the cuda backend, or says what to install
            if self.device.index:
                cuda_backend.check_index(self.device)
        elif self.device.type != "cpu":
            raise RuntimeError(f"{self.device.type.upper()} device type not an accelerator.")
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Restart the stream from `seed` (an int; negative seeds wrap around to unsigned 64 bits)."""
        if not is_index(seed):
            raise RuntimeError(f"manual_seed expected a long, but got {_type_name(seed)}")
        seed = operator.index(seed)
        if not -2**63 <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        self._bit_generator = np.random.PCG64(self._seed)
        self._rng = np.random.Generator(self._bit_generator)
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the seed chosen."""
        s = secrets.randbits(64)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The whole state as a uint8 tensor (PyTorch's is 5056 bytes of Mersenne Twister; PCG64's is 45)."""
        st = self._bit_generator.state
        raw = (self._seed.to_bytes(8, "little") + st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little") + bytes([st["has_uint32"]])
               + st["uinteger"].to_bytes(4, "little"))
        device = default_device(None)   # like torch.tensor(list(raw), dtype=torch.uint8)
        t = _empty_tensor((len(raw),), _dtype.uint8, device)
        write(t, ARRAY_MODULES[device.type].asarray(np.frombuffer(raw, dtype=np.uint8)))
        return t

    def set_state(self, new_state):
        """Restore a state from `get_state()`; the stream continues exactly from there."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {_type_name(new_state)}")
        if new_state.dtype is not _dtype.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(f"Expected a PCG64 generator state of size {_STATE_SIZE} but found the input RNG "
                               f"state size to be {new_state.numel()}")
        raw = bytes(new_state.tolist())
        self._seed = int.from_bytes(raw[0:8], "little")
        self._bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[8:24], "little"), "inc": int.from_bytes(raw[24:40], "little")},
            "has_uint32": raw[40], "uinteger": int.from_bytes(raw[41:45], "little"),
        }
        return self

    def __repr__(self):
        return f"<teachtorch.Generator object (PCG64, initial_seed={self._seed})>"


default_generator = Generator()
default_generator.seed()   # like PyTorch's default cpu generator, seeded differently in every process


def manual_seed(seed):
    """Seed the default generators, cpu and every GPU's (PyTorch's `torch.manual_seed` converts with
    `int(seed)` first and also seeds all cuda devices)."""
    seed_cuda_generators(int(seed))
    return default_generator.manual_seed(int(seed))


_cuda_seed = [None]   # the seed a cuda generator made later starts from (torch.cuda.manual_seed before init)


def seed_cuda_generators(seed):
    """`torch.cuda.manual_seed_all`: every GPU's default generator, and those not made yet."""
    _cuda_seed[0] = seed
    for g in cuda_default_generators.values():
        g.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


cuda_default_generators = {}    # GPU index -> its default generator (torch.cuda.default_generators)


def default_generator_of(device):
    """The default generator of a device: one for the cpu, one per GPU."""
    if device is None or device.type != "cuda":
        return default_generator
    g = cuda_default_generators.get(device.index)
    if g is None:
        g = cuda_default_generators[device.index] = Generator(device)
        if _cuda_seed[0] is not None:
            g.manual_seed(_cuda_seed[0])
    return g


def rng_of(generator, fn="random", device=None):
    """The NumPy random stream to draw from: `generator`'s, or the default generator of `device`."""
    if generator is None:
        return default_generator_of(device)._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {_type_name(generator)}")
    if device is not None and device.type != "meta" and generator.device.type != device.type:
        raise RuntimeError(f"Expected a '{device.type}' device type for generator but found "
                           f"'{generator.device.type}'")
    return generator._rng
