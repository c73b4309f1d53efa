"""The registered kernels of the random ops: the in-place fills (`uniform_`, `normal_`, ...), the random
factories (`rand`, `randint`, ...), `*_like`, `normal`, `bernoulli` and `multinomial`, one `def` per overload.

Each kernel runs its distribution's checks (random.py), then asks the generator for its NumPy stream
(`rng_of`, generator.py: the checks come first because PyTorch's do: a bad argument is reported before a bad
`generator=`), then fills the tensor with one of the `fill_*` functions of random.py. ops/random.py defines
the ops and registers these kernels.

How PyTorch does it: the random factories are made of the in-place fills (TensorFactories.cpp):
`torch.rand(size)` is `torch.empty(size).uniform_(0, 1)`, `torch.randint(low, high, size)` is
`torch.empty(size, dtype=int64).random_(low, high)`, and so they are here. `normal(mean, std)` with tensors
is `out.normal_(0, 1).mul_(std).add_(mean)` (normal_out_impl in DistributionTemplates.h).
"""

from .. import _dtype
from .._strides import broadcast_shapes
from ..backends import empty as _empty_tensor
from . import random as K
from .factories import empty_like, factory_out
from .generator import rng_of
from .pointwise import write_out

# ---- in-place fills -------------------------------------------------------------------------------------


def uniform__kernel(ks, self, from_, to, generator):
    """Uniform on [from, to)."""
    K.check_uniform(self, from_, to)
    return K.fill_uniform(self, rng_of(generator, "uniform_", self.device), from_, to)


def normal__kernel(ks, self, mean, std, generator):
    """Normal with the given mean and standard deviation."""
    if not K.check_normal(self, std):
        return self
    return K.fill_normal(self, rng_of(generator, "normal_", self.device), mean, std)


def random__kernel(ks, self, from_, to, generator):
    """`random_(from, to)`: integers in [from, to). `to=None`: up to the dtype's largest value (inclusive)."""
    low, high = K.random_range(self, from_, to)
    return K.fill_integers(self, rng_of(generator, "random_", self.device), low, high)


def random_to_kernel(ks, self, to, generator):
    """`random_(to)`: integers in [0, to)."""
    return random__kernel(ks, self, 0, to, generator)


def random_default_kernel(ks, self, generator):
    """`random_()`: integers in [0, largest]: the dtype's max for integers, 2**digits for floats, {0, 1} for bool."""
    high = K.random_default_high(self)
    return K.fill_integers(self, rng_of(generator, "random_", self.device), 0, high)


def bernoulli_float_kernel(ks, self, p, generator):
    """Each element 1 with probability p, else 0 (any dtype)."""
    K.check_bernoulli_p(p)
    return K.fill_bernoulli(self, rng_of(generator, "bernoulli_", self.device), p)


def bernoulli_tensor_kernel(ks, self, p, generator):
    """Element i is 1 with probability p[i]; `p` broadcasts to self's shape."""
    probs = K.bernoulli_probabilities(self, p)
    if probs is None:
        return self
    return K.fill_bernoulli(self, rng_of(generator, "bernoulli_", self.device), probs)


def exponential__kernel(ks, self, lambd, generator):
    """Exponential with rate `lambd` (mean 1 / lambd)."""
    if not K.check_exponential(self, lambd):
        return self
    return K.fill_exponential(self, rng_of(generator, "exponential_", self.device), lambd)


def geometric__kernel(ks, self, p, generator):
    """Number of Bernoulli(p) trials up to the first success: 1, 2, 3, ..."""
    if not K.check_geometric(self, p):
        return self
    return K.fill_geometric(self, rng_of(generator, "geometric_", self.device), p)


def log_normal__kernel(ks, self, mean, std, generator):
    """exp(X) for X normal with the given mean and std."""
    if not K.check_log_normal(self, std):
        return self
    return K.fill_log_normal(self, rng_of(generator, "log_normal_", self.device), mean, std)


def cauchy__kernel(ks, self, median, sigma, generator):
    """Cauchy: median + sigma * tan(pi * (U - 1/2))."""
    K.check_cauchy(self, sigma)
    return K.fill_cauchy(self, rng_of(generator, "cauchy_", self.device), median, sigma)


# ---- random factories: empty, then an in-place fill ----------------------------------------------------------


def rand_kernel(ks, size, generator, dtype, device):
    t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
    return uniform__kernel(ks, t, 0.0, 1.0, generator)   # torch: empty(size).uniform_(0, 1)


def randn_kernel(ks, size, generator, dtype, device):
    t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
    return normal__kernel(ks, t, 0.0, 1.0, generator)


def randint_kernel(ks, low, high, size, generator, dtype, device):
    t = _empty_tensor(size, dtype or _dtype.int64, device)
    return random__kernel(ks, t, low, high, generator)   # torch: empty(size, dtype).random_(low, high)


def randperm_kernel(ks, n, generator, dtype, device):
    dtype = dtype or _dtype.int64
    t = _empty_tensor((n,), dtype, device)   # PyTorch: empty(n), then randperm_out's checks
    K.check_randperm(n, dtype)
    return K.fill_permutation(t, rng_of(generator, "randperm", t.device), n)


def normal_float_float_kernel(ks, mean, std, size, generator, dtype, device):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {K.cpp_double(std)}")
    t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
    return normal__kernel(ks, t, mean, std, generator)


# their `.out` overloads: the functional kernel with out's dtype and device, then write_out (factory_out)


def rand_out_kernel(ks, size, generator, out):
    return factory_out(rand_kernel, ks, (size, generator), out)


def randn_out_kernel(ks, size, generator, out):
    return factory_out(randn_kernel, ks, (size, generator), out)


def randint_out_kernel(ks, low, high, size, generator, out):
    return factory_out(randint_kernel, ks, (low, high, size, generator), out)


def randperm_out_kernel(ks, n, generator, out):
    return factory_out(randperm_kernel, ks, (n, generator), out)


def normal_float_float_out_kernel(ks, mean, std, size, generator, out):
    return factory_out(normal_float_float_kernel, ks, (mean, std, size, generator), out)


# ---- *_like: empty_like, then an in-place fill ----------------------------------------------------------------


def rand_like_kernel(ks, self, generator, dtype, device, memory_format):
    return uniform__kernel(ks, empty_like(self, dtype, device, memory_format), 0.0, 1.0, generator)


def randn_like_kernel(ks, self, generator, dtype, device, memory_format):
    return normal__kernel(ks, empty_like(self, dtype, device, memory_format), 0.0, 1.0, generator)


def randint_like_kernel(ks, self, low, high, generator, dtype, device, memory_format):
    return random__kernel(ks, empty_like(self, dtype, device, memory_format), low, high, generator)


# ---- normal with tensor arguments, bernoulli, multinomial -----------------------------------------------------


def functional_out(kernel, ks, args, out):
    """An `out=` overload: compute with the functional `kernel`, then write_out (checks, resize, the write path)."""
    result = kernel(ks, *args)
    data = None if result._storage._data is None else result._data()
    return write_out(out, data, out.dtype, result._sizes)


def normal_from(out, mean, std, generator):
    """`out.normal_(0, 1).mul_(std).add_(mean)` (normal_out_impl in DistributionTemplates.h), in one write."""
    normal__kernel(None, out, 0.0, 1.0, generator)
    if out._storage._data is None or out.numel() == 0:
        return out
    K.scale_and_shift(out, std, mean)
    return out


def normal_tensor_tensor_kernel(ks, mean, std, generator):
    K.check_std_tensor(std)
    shape = broadcast_shapes(mean._sizes, std._sizes)
    out = _empty_tensor(shape, mean.dtype, mean.device)   # the result has mean's dtype, contiguous
    return normal_from(out, mean, std, generator)


def normal_tensor_float_kernel(ks, mean, std, generator):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {K.cpp_double(std)}")
    return normal_from(_empty_tensor(mean._sizes, mean.dtype, mean.device), mean, std, generator)


def normal_float_tensor_kernel(ks, mean, std, generator):
    K.check_std_tensor(std)
    return normal_from(_empty_tensor(std._sizes, std.dtype, std.device), mean, std, generator)


def check_float_out(out):
    if not out.dtype.is_floating_point:
        raise K.not_implemented("normal_kernel_cpu", out)


def normal_tensor_tensor_out_kernel(ks, mean, std, generator, out):
    check_float_out(out)
    return functional_out(normal_tensor_tensor_kernel, ks, (mean, std, generator), out)


def normal_tensor_float_out_kernel(ks, mean, std, generator, out):
    check_float_out(out)
    return functional_out(normal_tensor_float_kernel, ks, (mean, std, generator), out)


def normal_float_tensor_out_kernel(ks, mean, std, generator, out):
    check_float_out(out)
    return functional_out(normal_float_tensor_kernel, ks, (mean, std, generator), out)


def bernoulli_kernel(ks, self, generator):
    out = _empty_tensor(self._sizes, self.dtype, self.device)   # contiguous, like empty_like(self, contiguous)
    return bernoulli_tensor_kernel(ks, out, self, generator)


def bernoulli_p_kernel(ks, self, p, generator):
    out = _empty_tensor(self._sizes, self.dtype, self.device)
    return bernoulli_float_kernel(ks, out, p, generator)


def bernoulli_out_kernel(ks, self, generator, out):
    return functional_out(bernoulli_kernel, ks, (self, generator), out)


def multinomial_kernel(ks, self, num_samples, replacement, generator):
    shape = K.check_multinomial(self, num_samples, replacement)
    out = _empty_tensor(shape, _dtype.int64, self.device)
    if out.numel() == 0 or out._storage._data is None:
        return out
    probs = K.multinomial_probabilities(self, num_samples)
    return K.fill_multinomial(out, probs, num_samples, replacement, rng_of(generator, "multinomial", self.device))


def multinomial_out_kernel(ks, self, num_samples, replacement, generator, out):
    if out.dtype is not _dtype.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out.dtype._ptname}")
    return functional_out(multinomial_kernel, ks, (self, num_samples, replacement, generator), out)
