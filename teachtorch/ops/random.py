# Over 600 lines: torch.Generator and every random op's binding are one family (the array code: kernels/random.py)
"""Random numbers: generators, random factories (`rand`, `randint`, ...) and the in-place random fills.

How PyTorch does it. A `torch.Generator` owns the state of a pseudo-random number generator: on the cpu a
Mersenne Twister (aten/src/ATen/CPUGeneratorImpl.cpp), on cuda Philox. `torch.manual_seed(s)` reseeds the
*default* generator; every random op takes `generator=` to use another one. The random factories are
made of the in-place fills: `torch.rand(size)` is `torch.empty(size).uniform_(0, 1)` and
`torch.randint(low, high, size)` is `torch.empty(size, dtype=int64).random_(low, high)`
(TensorFactories.cpp). The fills turn raw random bits into values (aten/src/ATen/core/DistributionsHelper.h,
TransformationHelper.h): `uniform_` keeps as many random bits as the dtype has mantissa digits, so `rand`
never returns 1.0 and every value it returns is exactly representable.

teachtorch uses NumPy's PCG64 `numpy.random.Generator` instead of the Mersenne Twister, so its numbers are
*not* PyTorch's, bit for bit, even with the same seed. What carries over: the seeding API (same seed, same
numbers), the distributions and their ranges, the dtypes, shapes and strides of the results, and the
argument checks with their messages.

Every in-place fill writes through `backends.write`, so it lands in the storage whatever the target's
strides. This is the bug class of shared/reference §5.2: on MPS every random in-place op (`normal_`,
`uniform_`, ...) once silently did nothing on a transposed tensor, because the kernel filled a contiguous
temporary and never copied it back. Here the only way to write is the one write path.

This file holds the generators, the schemas, the registered kernels and the public functions; the array
code (each distribution's checks, and the fills that draw the numbers) is in kernels/random.py.
"""

import operator
import secrets

import numpy as np

from .. import _dtype
from .._device import as_device
from .._strides import broadcast_shapes
from .._tensor import Tensor
from ..backends import empty as _empty_tensor
from ..dispatch.schema import unpack_int64
from ..kernels import random as K
from ..kernels.pointwise import write_out
from ._define import bind_method, define, method, register_kernel
from .factories import (
    _factory, _factory_out, _finish, _format_name, _is_index, _size_arg, _type_name, check_device, check_like_input,
    check_out, check_requires_grad, strides_for,
)
from .tensor_new import tensor

# ---- generators ---------------------------------------------------------------------------------------------

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
            check_device(self.device)          # starts the cuda backend, or says what to install
        elif self.device.type != "cpu":
            raise RuntimeError(f"{self.device.type.upper()} device type not an accelerator.")
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Restart the stream from `seed` (an int; negative seeds wrap around to unsigned 64 bits)."""
        if not _is_index(seed):
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
        return tensor(list(raw), dtype=_dtype.uint8)

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


def _rng(generator, fn="random", device=None):
    """The NumPy random stream to draw from: `generator`'s, or the default generator of `device`."""
    if generator is None:
        return default_generator_of(device)._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {_type_name(generator)}")
    if device is not None and device.type != "meta" and generator.device.type != device.type:
        raise RuntimeError(f"Expected a '{device.type}' device type for generator but found "
                           f"'{generator.device.type}'")
    return generator._rng


# ---- in-place fills -------------------------------------------------------------------------------------


def uniform__kernel(ks, self, from_, to, generator):
    """Uniform on [from, to)."""
    K.check_uniform(self, from_, to)
    return K.fill_uniform(self, _rng(generator, "uniform_", self.device), from_, to)


def normal__kernel(ks, self, mean, std, generator):
    """Normal with the given mean and standard deviation."""
    if not K.check_normal(self, std):
        return self
    return K.fill_normal(self, _rng(generator, "normal_", self.device), mean, std)


def random__kernel(ks, self, from_, to, generator):
    """`random_(from, to)`: integers in [from, to). `to=None`: up to the dtype's largest value (inclusive)."""
    low, high = K.random_range(self, from_, to)
    return K.fill_integers(self, _rng(generator, "random_", self.device), low, high)


def random_default_kernel(ks, self, generator):
    """`random_()`: integers in [0, largest]: the dtype's max for integers, 2**digits for floats, {0, 1} for bool."""
    high = K.random_default_high(self)
    return K.fill_integers(self, _rng(generator, "random_", self.device), 0, high)


def bernoulli_float_kernel(ks, self, p, generator):
    """Each element 1 with probability p, else 0 (any dtype)."""
    K.check_bernoulli_p(p)
    return K.fill_bernoulli(self, _rng(generator, "bernoulli_", self.device), p)


def bernoulli_tensor_kernel(ks, self, p, generator):
    """Element i is 1 with probability p[i]; `p` broadcasts to self's shape."""
    probs = K.bernoulli_probabilities(self, p)
    if probs is None:
        return self
    return K.fill_bernoulli(self, _rng(generator, "bernoulli_", self.device), probs)


def exponential__kernel(ks, self, lambd, generator):
    """Exponential with rate `lambd` (mean 1 / lambd)."""
    if not K.check_exponential(self, lambd):
        return self
    return K.fill_exponential(self, _rng(generator, "exponential_", self.device), lambd)


def geometric__kernel(ks, self, p, generator):
    """Number of Bernoulli(p) trials up to the first success: 1, 2, 3, ..."""
    if not K.check_geometric(self, p):
        return self
    return K.fill_geometric(self, _rng(generator, "geometric_", self.device), p)


def log_normal__kernel(ks, self, mean, std, generator):
    """exp(X) for X normal with the given mean and std."""
    if not K.check_log_normal(self, std):
        return self
    return K.fill_log_normal(self, _rng(generator, "log_normal_", self.device), mean, std)


def cauchy__kernel(ks, self, median, sigma, generator):
    """Cauchy: median + sigma * tan(pi * (U - 1/2))."""
    K.check_cauchy(self, sigma)
    return K.fill_cauchy(self, _rng(generator, "cauchy_", self.device), median, sigma)


def _inplace(schema, kernel):
    op = define(schema)
    register_kernel(op, kernel)
    return op


uniform__op = _inplace("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> "
                       "Tensor(a!)", uniform__kernel)
normal__op = _inplace("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> "
                      "Tensor(a!)", normal__kernel)
random_from_op = _inplace("random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> "
                          "Tensor(a!)", random__kernel)
random_to_op = _inplace("random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)",
                        lambda ks, self, to, generator: random__kernel(ks, self, 0, to, generator))
random__op = _inplace("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)", random_default_kernel)
bernoulli_float_op = _inplace("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> "
                              "Tensor(a!)", bernoulli_float_kernel)
bernoulli_tensor_op = _inplace("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> "
                               "Tensor(a!)", bernoulli_tensor_kernel)
exponential__op = _inplace("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> "
                           "Tensor(a!)", exponential__kernel)
geometric__op = _inplace("geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!)",
                         geometric__kernel)
log_normal__op = _inplace("log_normal_(Tensor(a!) self, float mean=1, float std=2, *, Generator? generator=None) "
                          "-> Tensor(a!)", log_normal__kernel)
cauchy__op = _inplace("cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, Generator? generator=None) -> "
                      "Tensor(a!)", cauchy__kernel)

_RANDOM_SIGNATURES = (" * (*, torch.Generator generator = None)\n"
                      " * (int from, int to, *, torch.Generator generator = None)\n"
                      " * (int to, *, torch.Generator generator = None)\n")


def random_(self, *args, generator=None, **kwargs):
    """`random_()`, `random_(to)`, `random_(from, to)` (to may be None: up to the dtype's largest value)."""
    if set(kwargs) - {"from", "to"}:
        raise TypeError(f"random_() got an unexpected keyword argument '{sorted(set(kwargs) - {'from', 'to'})[0]}'")
    if "from" in kwargs:
        args = (kwargs["from"], kwargs.get("to"))
    elif "to" in kwargs:
        args = args + (kwargs["to"],)
    if len(args) > 2 or any(not (_is_index(a) or a is None and i == 1) for i, a in enumerate(args)):
        got = ", ".join(_type_name(a) for a in args)
        raise TypeError(f"random_() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n{_RANDOM_SIGNATURES}")
    args = [None if a is None else operator.index(a) for a in args]
    if len(args) == 2:
        return random_from_op(self, args[0], args[1], generator=generator)
    if len(args) == 1:
        return random_to_op(self, args[0], generator=generator)
    return random__op(self, generator=generator)


def bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        return bernoulli_tensor_op(self, p, generator=generator)
    return bernoulli_float_op(self, p, generator=generator)


# ---- random factories -------------------------------------------------------------------------------------

_RANDOM_TAIL = "*, Generator? generator=None, ScalarType? dtype=None, Device? device=None"


def _rand_kernel(ks, size, generator, dtype, device):
    t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
    return uniform__kernel(ks, t, 0.0, 1.0, generator)   # torch: empty(size).uniform_(0, 1)


def _randn_kernel(ks, size, generator, dtype, device):
    t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
    return normal__kernel(ks, t, 0.0, 1.0, generator)


def _randint_kernel(ks, low, high, size, generator, dtype, device):
    t = _empty_tensor(size, dtype or _dtype.int64, device)
    return random__kernel(ks, t, low, high, generator)   # torch: empty(size, dtype).random_(low, high)


def _randperm_kernel(ks, n, generator, dtype, device):
    dtype = dtype or _dtype.int64
    t = _empty_tensor((n,), dtype, device)   # PyTorch: empty(n), then randperm_out's checks
    K.check_randperm(n, dtype)
    return K.fill_permutation(t, _rng(generator, "randperm", t.device), n)


def _normal_float_float_kernel(ks, mean, std, size, generator, dtype, device):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {K.cpp_double(std)}")
    t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
    return normal__kernel(ks, t, mean, std, generator)


rand_op = _factory(f"rand(SymInt[] size, {_RANDOM_TAIL}) -> Tensor", _rand_kernel)
randn_op = _factory(f"randn(SymInt[] size, {_RANDOM_TAIL}) -> Tensor", _randn_kernel)
randint_op = _factory(f"randint.low(SymInt low, SymInt high, SymInt[] size, {_RANDOM_TAIL}) -> Tensor",
                      _randint_kernel)
randperm_op = _factory(f"randperm(SymInt n, {_RANDOM_TAIL}) -> Tensor", _randperm_kernel)
normal_float_float_op = _factory(f"normal.float_float(float mean, float std, SymInt[] size, {_RANDOM_TAIL}) -> "
                                 "Tensor", _normal_float_float_kernel)
rand_out_op = _factory_out("rand.out(SymInt[] size, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                           _rand_kernel)
randn_out_op = _factory_out("randn.out(SymInt[] size, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                            _randn_kernel)
randint_out_op = _factory_out("randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Generator? generator="
                              "None, Tensor(a!) out) -> Tensor(a!)", _randint_kernel)
randperm_out_op = _factory_out("randperm.out(SymInt n, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                               _randperm_kernel)
normal_float_float_out_op = _factory_out("normal.float_float_out(float mean, float std, SymInt[] size, *, "
                                         "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                                         _normal_float_float_kernel)


def _random_factory(op, out_op, fn, args, generator, dtype, device, requires_grad, out):
    _rng(generator, fn)   # a wrong generator= is refused first
    if out is not None:
        check_out(fn, out, dtype)
        return out_op(*args, generator=generator, out=out)
    if dtype is not None and not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {_type_name(dtype)}")
    return _finish(op(*args, generator=generator, dtype=dtype, device=check_device(device)), requires_grad)


# The signatures PyTorch's parser lists when a call fits none of them (the keyword arguments they all end with, then
# one line per signature).
_TAIL = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
         "bool requires_grad = False")
_RAND_SIGNATURES = (f" * (tuple of ints size, *, torch.Generator generator, Tensor out = None, {_TAIL})\n"
                    f" * (tuple of ints size, *, Tensor out = None, {_TAIL})\n")
_RANDINT_SIGNATURES = (f" * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, {_TAIL})\n"
                       f" * (int high, tuple of ints size, *, Tensor out = None, {_TAIL})\n"
                       f" * (int low, int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, "
                       f"{_TAIL})\n"
                       f" * (int low, int high, tuple of ints size, *, Tensor out = None, {_TAIL})\n")
_RANDPERM_SIGNATURES = (f" * (int n, *, torch.Generator generator, Tensor out = None, {_TAIL})\n"
                        f" * (int n, *, Tensor out = None, {_TAIL})\n")
_RAND_LIKE_SIGNATURES = (f" * (Tensor input, *, torch.Generator generator, torch.memory_format memory_format = None, "
                         f"{_TAIL})\n"
                         f" * (Tensor input, *, torch.memory_format memory_format = None, {_TAIL})\n")
_RANDINT_LIKE_SIGNATURES = "".join(
    f" * (Tensor input, {args}, *, {generator}torch.memory_format memory_format = None, {_TAIL})\n"
    for args in ("int low, int high", "Tensor high", "int high")
    for generator in ("torch.Generator generator, ", ""))


def _type_names(args):
    """What the parser's "invalid combination" error says it got: the type of each positional argument."""
    return [_type_name(a) for a in args]


def _rand_size(size, fn, size_keyword):
    if size_keyword:
        return _size_arg(size, fn, size_keyword)
    if not size:
        raise TypeError(f"{fn}() received an invalid combination of arguments - got (), but expected one of:\n"
                        + _RAND_SIGNATURES)
    return _size_arg(size, fn)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None,
         pin_memory=False, **size_keyword):
    """Uniform on [0, 1), of the default float dtype unless `dtype=` says otherwise."""
    check_requires_grad(requires_grad, "rand", signatures=_RAND_SIGNATURES, given=_type_names(size))
    size = _rand_size(size, "rand", size_keyword)
    return _random_factory(rand_op, rand_out_op, "rand", (size,), generator, dtype, device, requires_grad, out)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None,
          pin_memory=False, **size_keyword):
    """Standard normal (mean 0, std 1)."""
    check_requires_grad(requires_grad, "randn", signatures=_RAND_SIGNATURES, given=_type_names(size))
    size = _rand_size(size, "randn", size_keyword)
    return _random_factory(randn_op, randn_out_op, "randn", (size,), generator, dtype, device, requires_grad, out)


def _int_arg(v, fn, name, pos):
    if not _is_index(v):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be int, not {_type_name(v)}")
    return unpack_int64(operator.index(v))


def randint(*args, low=None, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            out=None, layout=None, pin_memory=False):
    """Integers uniform on [low, high): `randint(high, size)` or `randint(low, high, size)`; int64 by default."""
    check_requires_grad(requires_grad, "randint", signatures=_RANDINT_SIGNATURES, given=_type_names(args))
    args = list(args)
    if size is None and args:
        size = args.pop()   # the size comes last
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"randint(): argument 'size' (position {len(args) + 1}) must be tuple of ints, not "
                        f"{_type_name(size)}")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]   # randint(high, size)
        else:
            low = args[0]    # randint(low, high=..., size=...)
    low = 0 if low is None else low
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    low, high = _int_arg(low, "randint", "low", 1), _int_arg(high, "randint", "high", 2)
    size = _size_arg((size,), "randint")
    return _random_factory(randint_op, randint_out_op, "randint", (low, high, size), generator, dtype, device,
                           requires_grad, out)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None,
             pin_memory=False):
    """A random permutation of 0, 1, ..., n - 1 (int64 by default)."""
    check_requires_grad(requires_grad, "randperm", signatures=_RANDPERM_SIGNATURES, given=_type_names([n]))
    n = _int_arg(n, "randperm", "n", 1)
    if out is None and dtype is None:
        dtype = _dtype.int64
    return _random_factory(randperm_op, randperm_out_op, "randperm", (n,), generator, dtype, device, requires_grad,
                           out)


# ---- *_like -------------------------------------------------------------------------------------------------

_LIKE_TAIL = ("*, Generator? generator=None, ScalarType? dtype=None, Device? device=None, "
              "MemoryFormat? memory_format=None")


def _like_empty(self, dtype, device, memory_format):
    device = as_device(device) if device is not None else self.device
    return _empty_tensor(self._sizes, dtype or self.dtype, device, strides_for(self, memory_format))


def _rand_like_kernel(ks, self, generator, dtype, device, memory_format):
    return uniform__kernel(ks, _like_empty(self, dtype, device, memory_format), 0.0, 1.0, generator)


def _randn_like_kernel(ks, self, generator, dtype, device, memory_format):
    return normal__kernel(ks, _like_empty(self, dtype, device, memory_format), 0.0, 1.0, generator)


def _randint_like_kernel(ks, self, low, high, generator, dtype, device, memory_format):
    return random__kernel(ks, _like_empty(self, dtype, device, memory_format), low, high, generator)


rand_like_op = define(f"rand_like(Tensor self, {_LIKE_TAIL}) -> Tensor")
register_kernel(rand_like_op, _rand_like_kernel)
randn_like_op = define(f"randn_like(Tensor self, {_LIKE_TAIL}) -> Tensor")
register_kernel(randn_like_op, _randn_like_kernel)
randint_like_op = define(f"randint_like.low_dtype(Tensor self, SymInt low, SymInt high, {_LIKE_TAIL}) -> Tensor")
register_kernel(randint_like_op, _randint_like_kernel)


def _random_like(op, fn, input, *args, generator, dtype, device, requires_grad, memory_format):
    check_like_input(fn, input)
    _rng(generator, fn)
    device = None if device is None else check_device(device)
    return _finish(op(input, *args, generator=generator, dtype=dtype, device=device,
                      memory_format=_format_name(memory_format)), requires_grad)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False, memory_format=None,
              layout=None, pin_memory=False):
    check_requires_grad(requires_grad, "rand_like", signatures=_RAND_LIKE_SIGNATURES, given=_type_names([input]))
    return _random_like(rand_like_op, "rand_like", input, generator=generator, dtype=dtype, device=device,
                        requires_grad=requires_grad, memory_format=memory_format)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False, memory_format=None,
               layout=None, pin_memory=False):
    check_requires_grad(requires_grad, "randn_like", signatures=_RAND_LIKE_SIGNATURES, given=_type_names([input]))
    return _random_like(randn_like_op, "randn_like", input, generator=generator, dtype=dtype, device=device,
                        requires_grad=requires_grad, memory_format=memory_format)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None, requires_grad=False,
                 memory_format=None, layout=None, pin_memory=False):
    """Like `randint`, with input's shape, dtype (unless `dtype=`) and layout: `randint_like(x, high)` or
    `randint_like(x, low, high)`."""
    given = _type_names([input, low] if high is None else [input, low, high])
    check_requires_grad(requires_grad, "randint_like", signatures=_RANDINT_LIKE_SIGNATURES, given=given)
    if high is None:
        low, high = 0, low
    low, high = _int_arg(low, "randint_like", "low", 2), _int_arg(high, "randint_like", "high", 3)
    return _random_like(randint_like_op, "randint_like", input, low, high, generator=generator, dtype=dtype,
                        device=device, requires_grad=requires_grad, memory_format=memory_format)


# ---- normal, bernoulli, multinomial -------------------------------------------------------------------------


def _normal_from(out, mean, std, generator):
    """`out.normal_(0, 1).mul_(std).add_(mean)` (normal_out_impl in DistributionTemplates.h), in one write."""
    normal__kernel(None, out, 0.0, 1.0, generator)
    if out._storage._data is None or out.numel() == 0:
        return out
    K.scale_and_shift(out, std, mean)
    return out


def _normal_tensor_tensor_kernel(ks, mean, std, generator):
    K.check_std_tensor(std)
    shape = broadcast_shapes(mean._sizes, std._sizes)
    out = _empty_tensor(shape, mean.dtype, mean.device)   # the result has mean's dtype, contiguous
    return _normal_from(out, mean, std, generator)


def _normal_tensor_float_kernel(ks, mean, std, generator):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {K.cpp_double(std)}")
    return _normal_from(_empty_tensor(mean._sizes, mean.dtype, mean.device), mean, std, generator)


def _normal_float_tensor_kernel(ks, mean, std, generator):
    K.check_std_tensor(std)
    return _normal_from(_empty_tensor(std._sizes, std.dtype, std.device), mean, std, generator)


normal_tensor_tensor_op = define("normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> "
                                 "Tensor")
register_kernel(normal_tensor_tensor_op, _normal_tensor_tensor_kernel)
normal_tensor_float_op = define("normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> "
                                "Tensor")
register_kernel(normal_tensor_float_op, _normal_tensor_float_kernel)
normal_float_tensor_op = define("normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> "
                                "Tensor")
register_kernel(normal_float_tensor_op, _normal_float_tensor_kernel)


def _out_of(schema, kernel, check=None):
    """An `out=` overload: compute with the functional `kernel`, then write_out (checks, resize, the write path)."""
    op = define(schema)

    def out_kernel(ks, *args):
        *args, out = args
        if check is not None:
            check(out)
        result = kernel(ks, *args)
        data = None if result._storage._data is None else result._data()
        return write_out(out, data, out.dtype, result._sizes)

    register_kernel(op, out_kernel)
    return op


def _float_out(out):
    if not out.dtype.is_floating_point:
        raise K.not_implemented("normal_kernel_cpu", out)


normal_tensor_tensor_out_op = _out_of("normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator="
                                      "None, Tensor(a!) out) -> Tensor(a!)", _normal_tensor_tensor_kernel, _float_out)
normal_tensor_float_out_op = _out_of("normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? generator=None, "
                                     "Tensor(a!) out) -> Tensor(a!)", _normal_tensor_float_kernel, _float_out)
normal_float_tensor_out_op = _out_of("normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator=None, "
                                     "Tensor(a!) out) -> Tensor(a!)", _normal_float_tensor_kernel, _float_out)

_NORMAL_SIGNATURES = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n")


def _float_arg(v):
    return float(v.item() if isinstance(v, Tensor) else v)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None, requires_grad=False,
           layout=None, pin_memory=False):
    """Normal samples: `normal(mean, std)` with tensors (broadcast) or numbers, or `normal(m, s, size)`."""
    given = _type_names([mean, std] if size is None else [mean, std, size])
    check_requires_grad(requires_grad, "normal", signatures=_NORMAL_SIGNATURES, given=given)
    _rng(generator, "normal")
    if size is not None:
        args = (_float_arg(mean), _float_arg(std), _size_arg((size,), "normal"))
        return _random_factory(normal_float_float_op, normal_float_float_out_op, "normal", args, generator, dtype,
                               device, requires_grad, out)
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        op, out_op, args = normal_tensor_tensor_op, normal_tensor_tensor_out_op, (mean, std)
    elif isinstance(mean, Tensor):
        op, out_op, args = normal_tensor_float_op, normal_tensor_float_out_op, (mean, float(std))
    elif isinstance(std, Tensor):
        op, out_op, args = normal_float_tensor_op, normal_float_tensor_out_op, (float(mean), std)
    else:
        got = ", ".join(_type_name(v) for v in (mean, std))
        raise TypeError(f"normal() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n{_NORMAL_SIGNATURES}")
    if out is not None:
        check_out("normal", out, None)
        return out_op(*args, generator=generator, out=out)
    return op(*args, generator=generator)


def _bernoulli_kernel(ks, self, generator):
    out = _empty_tensor(self._sizes, self.dtype, self.device)   # contiguous, like empty_like(self, contiguous)
    return bernoulli_tensor_kernel(ks, out, self, generator)


def _bernoulli_p_kernel(ks, self, p, generator):
    out = _empty_tensor(self._sizes, self.dtype, self.device)
    return bernoulli_float_kernel(ks, out, p, generator)


bernoulli_op = define("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor")
register_kernel(bernoulli_op, _bernoulli_kernel)
bernoulli_p_op = define("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor")
register_kernel(bernoulli_p_op, _bernoulli_p_kernel)
bernoulli_out_op = _out_of("bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                           _bernoulli_kernel)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: element i is 1 with probability input[i] (or with probability p for every element)."""
    if p is not None:
        return bernoulli_p_op(input, float(p), generator=generator)
    if out is not None:
        check_out("bernoulli", out, None)
        return bernoulli_out_op(input, generator=generator, out=out)
    return bernoulli_op(input, generator=generator)


def _multinomial_kernel(ks, self, num_samples, replacement, generator):
    shape = K.check_multinomial(self, num_samples, replacement)
    out = _empty_tensor(shape, _dtype.int64, self.device)
    if out.numel() == 0 or out._storage._data is None:
        return out
    probs = K.multinomial_probabilities(self, num_samples)
    return K.fill_multinomial(out, probs, num_samples, replacement, _rng(generator, "multinomial", self.device))


multinomial_op = define("multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? "
                        "generator=None) -> Tensor")
register_kernel(multinomial_op, _multinomial_kernel)


def _long_out(out):
    if out.dtype is not _dtype.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out.dtype._ptname}")


multinomial_out_op = _out_of("multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? "
                             "generator=None, Tensor(a!) out) -> Tensor(a!)", _multinomial_kernel, _long_out)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """`num_samples` category indices per row of `input` (unnormalised probabilities), int64."""
    num_samples = _int_arg(num_samples, "multinomial", "num_samples", 2)
    if out is not None:
        check_out("multinomial", out, None)
        return multinomial_out_op(input, num_samples, replacement, generator=generator, out=out)
    return multinomial_op(input, num_samples, replacement, generator=generator)


# ---- Tensor methods -------------------------------------------------------------------------------------------

for _name, _fn in {
    "uniform_": method(uniform__op, "uniform_"), "normal_": method(normal__op, "normal_"), "random_": random_,
    "bernoulli_": bernoulli_, "exponential_": method(exponential__op, "exponential_"),
    "geometric_": method(geometric__op, "geometric_"), "log_normal_": method(log_normal__op, "log_normal_"),
    "cauchy_": method(cauchy__op, "cauchy_"), "bernoulli": bernoulli, "multinomial": multinomial,
}.items():
    bind_method(_name, _fn)


__all__ = ['Generator', 'bernoulli', 'default_generator', 'get_rng_state', 'initial_seed', 'manual_seed',
           'multinomial', 'normal', 'rand', 'rand_like', 'randint', 'randint_like', 'randn', 'randn_like',
           'randperm', 'seed', 'set_rng_state']
