"""Random numbers, the array side: turning a NumPy random stream into the values of each distribution.

generator.py owns the generators (`torch.Generator`, the default generator of each device) and
random_kernels.py the registered kernels: each kernel runs its distribution's checks from here, then asks
its generator for the NumPy stream `rng`, then fills the tensor with one of the `fill_*` functions here.
(The checks come first because PyTorch's do: a bad argument is reported before a bad `generator=`.)

How PyTorch does it: the fills turn raw random bits into values (aten/src/ATen/core/DistributionsHelper.h,
TransformationHelper.h, aten/src/ATen/native/DistributionTemplates.h) and check their arguments with the
messages below. The numbers are drawn on the host for both devices and copied to the tensor's device
(backends/differences.py says why); every fill writes through `backends.write`, the one write path, so it
lands in the storage whatever the target's strides.
"""

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, quietly, write

# ---- what PyTorch's messages call each dtype ------------------------------------------------------------------

# the C++ type names in `check_from_to_in_range` and Cauchy's message (caffe2::TypeMeta names)
CPP_NAME = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
            "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double"}
DIGITS = {"float16": 11, "float32": 24, "float64": 53}   # std::numeric_limits<T>::digits


def cpp_double(x):
    return f"{x:g}"   # a double as C++'s operator<< prints it


def not_implemented(kernel_name, t):
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{t.dtype._ptname}'")


# ---- drawing numbers (NumPy, on the host) ---------------------------------------------------------------------


def uniform01(rng, shape, dtype):
    """k / 2**digits for a random integer k < 2**digits: exactly representable in `dtype`, and never 1.0.
    This is PyTorch's `uniform_real` (TransformationHelper.h), which masks the random bits the same way."""
    digits = DIGITS[dtype.name]
    return rng.integers(0, 2**digits, size=shape, dtype=np.int64) * 2.0**-digits


def fill_random(self, draw):
    """Write `draw(shape)` (a host array of self's logical shape) into every element of self's view.

    The values go through backends.write, the one write path: a transposed, sliced or offset target gets
    every element of its view changed and nothing outside it.
    """
    if self._storage._data is None or self.numel() == 0:   # meta tensors have no bytes; empty ones no elements
        return self
    values = draw(self._sizes)
    write(self, ARRAY_MODULES[self.device.type].asarray(values))
    return self


# ---- uniform_, normal_ and the continuous distributions --------------------------------------------------------


def check_uniform(self, from_, to):
    if not self.dtype.is_floating_point:
        raise not_implemented("check_uniform_bounds", self)
    hi = float(np.finfo(self.dtype.numpy).max)
    cpp = CPP_NAME[self.dtype.name]
    if not -hi <= from_ <= hi:
        raise RuntimeError(f"from is out of bounds for {cpp}")
    if not -hi <= to <= hi:
        raise RuntimeError(f"to is out of bounds for {cpp}")
    if not from_ <= to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={cpp_double(from_)} > "
                           f"to={cpp_double(to)}")
    if not to - from_ <= hi:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{self.dtype._ptname}>::max(), but found "
                           f"to={cpp_double(to)} and from={cpp_double(from_)} which result in to-from to exceed the "
                           "limit")


def fill_uniform(self, rng, from_, to):
    return fill_random(self, lambda shape: uniform01(rng, shape, self.dtype) * (to - from_) + from_)


def check_normal(self, std):
    """normal_'s checks; False when there is nothing to fill (an empty tensor, whatever its dtype)."""
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {cpp_double(std)}")
    if self.numel() == 0:
        return False
    if not self.dtype.is_floating_point:
        raise not_implemented("normal_kernel_cpu", self)
    return True


def fill_normal(self, rng, mean, std):
    return fill_random(self, lambda shape: rng.standard_normal(shape) * std + mean)


def check_exponential(self, lambd):
    """exponential_'s checks; False when there is nothing to fill."""
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={cpp_double(lambd)}")
    if self.numel() == 0:
        return False
    if not self.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype._ptname}")
    return True


def fill_exponential(self, rng, lambd):
    return fill_random(self, lambda shape: rng.standard_exponential(shape) / lambd)


def check_geometric(self, p):
    """geometric_'s checks; False when there is nothing to fill."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={cpp_double(p)}")
    if self.numel() == 0:
        return False
    if self.dtype is _dtype.bool_:
        raise not_implemented("geometric_cpu", self)
    return True


def fill_geometric(self, rng, p):
    return fill_random(self, lambda shape: rng.geometric(p, shape))


def check_log_normal(self, std):
    """log_normal_'s checks; False when there is nothing to fill."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={cpp_double(std)}")
    if self.numel() == 0:
        return False
    if not self.dtype.is_floating_point:
        raise not_implemented("log_normal_cpu", self)
    return True


def fill_log_normal(self, rng, mean, std):
    return fill_random(self, lambda shape: np.exp(rng.standard_normal(shape) * std + mean))


def check_cauchy(self, sigma):
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={cpp_double(sigma)}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {CPP_NAME[self.dtype.name]}")


def fill_cauchy(self, rng, median, sigma):
    return fill_random(self, lambda shape: median + sigma * np.tan(np.pi * (rng.random(shape) - 0.5)))


def check_std_tensor(std):
    if std.numel() > 0 and std._storage._data is not None and not (std._host_array() >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")


def scale_and_shift(out, std, mean):
    """`out.mul_(std).add_(mean)` in one write; `std` and `mean` are tensors or numbers."""
    m = mean._data() if isinstance(mean, Tensor) else mean
    s = std._data() if isinstance(std, Tensor) else std
    write(out, out._data() * s + m)


# ---- random_: integers in a range -------------------------------------------------------------------------------


def _c_int64(x):
    """static_cast<int64_t>(x) of a float as x86 does it: out of range (or inf) gives INT64_MIN."""
    x = float(x)
    return int(x) if math.isfinite(x) and -2.0**63 <= x < 2.0**63 else -2**63


def _update_from(start, dtype):
    """`from`, moved up to the next value `dtype` represents (update_from in DistributionTemplates.h)."""
    from_plus_1 = _c_int64(quietly(dtype.numpy.type, start + 1))
    if from_plus_1 < start:
        n = abs(start + 1).bit_length() - 1
        start = from_plus_1 + (1 << (n - DIGITS[dtype.name] + 1))
    return start


def _update_to(to, dtype):
    to_minus_1 = _c_int64(quietly(dtype.numpy.type, to - 1))
    if to_minus_1 >= to:
        n = abs(to - 1).bit_length() - 1
        to = to_minus_1 - (1 << (n - DIGITS[dtype.name] + 1))
    return to


def _check_from_to_in_range(start, to_inc, dtype):
    """Both ends of an integer range must be values of `dtype` (check_from_to_in_range)."""
    if dtype.is_floating_point:
        lo, hi = -float(np.finfo(dtype.numpy).max), float(np.finfo(dtype.numpy).max)
    elif dtype is _dtype.bool_:
        lo, hi = 0, 1
    else:
        lo, hi = int(np.iinfo(dtype.numpy).min), int(np.iinfo(dtype.numpy).max)
    if not lo <= start <= hi:
        raise RuntimeError(f"from is out of bounds for {CPP_NAME[dtype.name]}")
    if not lo <= to_inc <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {CPP_NAME[dtype.name]}")


def random_range(self, start, to):
    """The inclusive range [low, high] that random_(from, to) draws from, after PyTorch's checks."""
    dtype = self.dtype
    if to is not None:
        if not start < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={start} >= to={to}")
        if dtype.is_floating_point:
            start, to = _update_from(start, dtype), _update_to(to, dtype)
            if not start < to:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={start} >= to={to}")
        _check_from_to_in_range(start, to - 1, dtype)
        return start, to - 1
    if start == -2**63:
        return start, 2**63 - 1   # the whole int64 range
    if dtype.is_floating_point:
        to_inc = min(1 << DIGITS[dtype.name], 2**63 - 1)
        start = _update_from(start, dtype)
        if not start < to_inc:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                               f"to dtype, but got from={start} > to_inc={to_inc}")
    else:
        to_inc = 1 if dtype is _dtype.bool_ else int(np.iinfo(dtype.numpy).max)
    _check_from_to_in_range(start, to_inc, dtype)
    return start, to_inc


def random_default_high(self):
    """`random_()` draws from [0, high]: the dtype's max for integers, 2**digits for floats, 1 for bool."""
    if self.dtype.is_floating_point:
        return 1 << DIGITS[self.dtype.name]
    return 1 if self.dtype is _dtype.bool_ else int(np.iinfo(self.dtype.numpy).max)


def fill_integers(self, rng, low, high):
    """Integers uniform on [low, high], both ends included."""
    return fill_random(self, lambda shape: rng.integers(low, high, size=shape, dtype=np.int64, endpoint=True))


def check_randperm(n, dtype):
    # check_supported_max_int_with_precision (TensorFactories.cpp): n - 1 must fit, exactly
    _dtype.checked_convert(n - 1 if n > 0 else n, dtype)
    limits = {"float16": (2049, "2049 for Half"), "float32": (2**24 + 1, "2^24+1 for Float"),
              "float64": (2**53 + 1, "2^53+1 for Double")}
    if dtype.name in limits and n > limits[dtype.name][0]:
        raise RuntimeError(f"n cannot be greater than {limits[dtype.name][1]} type.")
    if dtype is _dtype.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")


def fill_permutation(self, rng, n):
    return fill_random(self, lambda shape: rng.permutation(n))


# ---- bernoulli ----------------------------------------------------------------------------------------------------


def check_bernoulli_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={cpp_double(p)}")


def bernoulli_probabilities(self, p):
    """The probability of each element of self (a host array, `p` broadcast to self's shape), after PyTorch's
    checks; None when there is nothing to fill (an empty or meta tensor)."""
    if self.numel() == 0:
        return None
    if not p.dtype.is_floating_point:
        raise not_implemented("bernoulli_tensor_cpu_p_", p)
    probs = p.expand(self._sizes)   # PyTorch's expand error when p does not broadcast
    if probs._storage._data is None:
        return None
    values = probs._host_array()
    if not ((values >= 0) & (values <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    return values


def fill_bernoulli(self, rng, p):
    """Element i is 1 with probability p (a number, or a host array of self's shape), else 0."""
    return fill_random(self, lambda shape: rng.random(shape) < p)


# ---- multinomial --------------------------------------------------------------------------------------------------


def check_multinomial(self, num_samples, replacement):
    """multinomial's checks of its arguments, in PyTorch's order (Multinomial.cpp); returns the result's shape."""
    if not 1 <= self.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {self.dtype._ptname}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = self._sizes[-1]
    if not replacement and num_samples > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_categories > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    return (num_samples,) if self.dim() == 1 else (self._sizes[0], num_samples)


def multinomial_probabilities(self, num_samples):
    """The probabilities as a float64 host array of rows, once there is something to draw."""
    n_categories = self._sizes[-1]
    if n_categories == 0:
        # no category to draw (with replacement: without, the check above refused already); PyTorch's checks
        # say so in their own words: aminmax of the probabilities when drawing one, the sum otherwise
        if num_samples == 1:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                               "no identity.")
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return self._host_array().astype(np.float64).reshape(-1, n_categories)


def fill_multinomial(out, probs, num_samples, replacement, rng):
    """`num_samples` category indices per row of `probs`, written into `out`."""
    n_categories = probs.shape[1]
    if not replacement or num_samples == 1:
        if not (probs.max() < np.inf and probs.min() >= 0):   # NaN fails both comparisons
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (probs.sum(axis=1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        # PyTorch's trick (Multinomial.cpp): the k largest p / q, q ~ Exponential(1), are k samples without
        # replacement (the Gumbel-top-k trick, with exp applied)
        keys = probs / rng.standard_exponential(probs.shape)
        samples = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    else:
        if not (probs >= 0).all():   # NaN fails this test too, and PyTorch reports it as "< 0"
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.isfinite(probs).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
        sums = probs.sum(axis=1)
        if (sums <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        # inverse transform sampling: where a uniform number falls in the cumulative distribution
        cdf = np.cumsum(probs / sums[:, None], axis=1)
        u = rng.random((probs.shape[0], num_samples))
        samples = np.stack([np.minimum(np.searchsorted(c, row, side="right"), n_categories - 1)
                            for c, row in zip(cdf, u)])
    write(out, ARRAY_MODULES[out.device.type].asarray(samples.reshape(out._sizes)))
    return out
