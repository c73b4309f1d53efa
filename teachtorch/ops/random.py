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

This file holds the schemas, the registration and the public functions. Below it, in kernels/: the
generators (kernels/generator.py, re-exported here: `teachtorch.Generator`, `teachtorch.manual_seed`), the
registered kernels (kernels/random_kernels.py), and the array code, each distribution's checks and the fills
that draw the numbers (kernels/random.py).
"""

import operator

from .. import _dtype
from .._tensor import Tensor
from ..dispatch.schema import unpack_int64
from ..kernels import random_kernels as RK
from ..kernels.generator import (  # noqa: F401  (re-exported: teachtorch.Generator, teachtorch.manual_seed, ...)
    Generator, _cuda_seed, cuda_default_generators, default_generator, default_generator_of, get_rng_state,
    initial_seed, manual_seed, rng_of, seed, seed_cuda_generators, set_rng_state,
)
from ._define import bind_method, define, kernel_op, method, register_kernel
from .factories import (
    _factory, _finish, _format_name, _is_index, _size_arg, _type_name, check_device, check_like_input, check_out,
    check_requires_grad,
)

# ---- in-place fills -------------------------------------------------------------------------------------


uniform__op = kernel_op("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> "
                        "Tensor(a!)", RK.uniform__kernel)
normal__op = kernel_op("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> "
                       "Tensor(a!)", RK.normal__kernel)
random_from_op = kernel_op("random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> "
                           "Tensor(a!)", RK.random__kernel)
random_to_op = kernel_op("random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)",
                         RK.random_to_kernel)
random__op = kernel_op("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)",
                       RK.random_default_kernel)
bernoulli_float_op = kernel_op("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> "
                               "Tensor(a!)", RK.bernoulli_float_kernel)
bernoulli_tensor_op = kernel_op("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> "
                                "Tensor(a!)", RK.bernoulli_tensor_kernel)
exponential__op = kernel_op("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> "
                            "Tensor(a!)", RK.exponential__kernel)
geometric__op = kernel_op("geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!)",
                          RK.geometric__kernel)
log_normal__op = kernel_op("log_normal_(Tensor(a!) self, float mean=1, float std=2, *, Generator? generator=None) "
                           "-> Tensor(a!)", RK.log_normal__kernel)
cauchy__op = kernel_op("cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, Generator? generator=None) -> "
                       "Tensor(a!)", RK.cauchy__kernel)

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

rand_op = _factory(f"rand(SymInt[] size, {_RANDOM_TAIL}) -> Tensor", RK.rand_kernel)
randn_op = _factory(f"randn(SymInt[] size, {_RANDOM_TAIL}) -> Tensor", RK.randn_kernel)
randint_op = _factory(f"randint.low(SymInt low, SymInt high, SymInt[] size, {_RANDOM_TAIL}) -> Tensor",
                      RK.randint_kernel)
randperm_op = _factory(f"randperm(SymInt n, {_RANDOM_TAIL}) -> Tensor", RK.randperm_kernel)
normal_float_float_op = _factory(f"normal.float_float(float mean, float std, SymInt[] size, {_RANDOM_TAIL}) -> "
                                 "Tensor", RK.normal_float_float_kernel)
rand_out_op = kernel_op("rand.out(SymInt[] size, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                        RK.rand_out_kernel)
randn_out_op = kernel_op("randn.out(SymInt[] size, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                         RK.randn_out_kernel)
randint_out_op = kernel_op("randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Generator? generator=None, "
                           "Tensor(a!) out) -> Tensor(a!)", RK.randint_out_kernel)
randperm_out_op = kernel_op("randperm.out(SymInt n, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                            RK.randperm_out_kernel)
normal_float_float_out_op = kernel_op("normal.float_float_out(float mean, float std, SymInt[] size, *, "
                                      "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                                      RK.normal_float_float_out_kernel)



def _random_factory(op, out_op, fn, args, generator, dtype, device, requires_grad, out):
    rng_of(generator, fn)   # a wrong generator= is refused first
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




rand_like_op = define(f"rand_like(Tensor self, {_LIKE_TAIL}) -> Tensor")
register_kernel(rand_like_op, RK.rand_like_kernel)
randn_like_op = define(f"randn_like(Tensor self, {_LIKE_TAIL}) -> Tensor")
register_kernel(randn_like_op, RK.randn_like_kernel)
randint_like_op = define(f"randint_like.low_dtype(Tensor self, SymInt low, SymInt high, {_LIKE_TAIL}) -> Tensor")
register_kernel(randint_like_op, RK.randint_like_kernel)



def _random_like(op, fn, input, *args, generator, dtype, device, requires_grad, memory_format):
    check_like_input(fn, input)
    rng_of(generator, fn)
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


normal_tensor_tensor_op = kernel_op("normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> "
                                    "Tensor", RK.normal_tensor_tensor_kernel)
normal_tensor_float_op = kernel_op("normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> "
                                   "Tensor", RK.normal_tensor_float_kernel)
normal_float_tensor_op = kernel_op("normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> "
                                   "Tensor", RK.normal_float_tensor_kernel)
normal_tensor_tensor_out_op = kernel_op("normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator="
                                        "None, Tensor(a!) out) -> Tensor(a!)", RK.normal_tensor_tensor_out_kernel)
normal_tensor_float_out_op = kernel_op("normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? generator="
                                       "None, Tensor(a!) out) -> Tensor(a!)", RK.normal_tensor_float_out_kernel)
normal_float_tensor_out_op = kernel_op("normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator="
                                       "None, Tensor(a!) out) -> Tensor(a!)", RK.normal_float_tensor_out_kernel)

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
    rng_of(generator, "normal")
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


bernoulli_op = kernel_op("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor", RK.bernoulli_kernel)
bernoulli_p_op = kernel_op("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
                           RK.bernoulli_p_kernel)
bernoulli_out_op = kernel_op("bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                             RK.bernoulli_out_kernel)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: element i is 1 with probability input[i] (or with probability p for every element)."""
    if p is not None:
        return bernoulli_p_op(input, float(p), generator=generator)
    if out is not None:
        check_out("bernoulli", out, None)
        return bernoulli_out_op(input, generator=generator, out=out)
    return bernoulli_op(input, generator=generator)


multinomial_op = kernel_op("multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? "
                           "generator=None) -> Tensor", RK.multinomial_kernel)
multinomial_out_op = kernel_op("multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? "
                               "generator=None, Tensor(a!) out) -> Tensor(a!)", RK.multinomial_out_kernel)


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
