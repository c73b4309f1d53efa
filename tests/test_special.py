"""erf and erfc (teachtorch/kernels/special.py): accuracy against the C library and against the exact value,
parity with torch in float32 and float16, special values, shapes."""

import math

import numpy as np
import pytest
import torch

import teachtorch as tt
from teachtorch.kernels import special

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

BOUNDARIES = [0.25, 0.84375, 1.25, 1 / 0.35, special.ERF_TAIL_SPLIT, special.ERFC_TAIL_SPLIT, 6.0, 27.3, 28.0,
              2.0 ** -28, 2.0 ** -56, 2.0 ** -1015, 2.0 ** -1022, 1.0]


def _around(values, steps):
    """Each value and its `steps` float64 neighbours on either side, both signs."""
    out = []
    for v in values:
        up = down = np.float64(v)
        out += [up]
        for _ in range(steps):
            up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
            out += [up, down]
    out = np.array(out)
    return np.concatenate([out, -out])


def _points():
    """About a million float64 points covering every range of the approximation, both signs."""
    rng = np.random.default_rng(0)
    parts = [
        rng.uniform(0, 0.84375, 100_000),           # x + x*P/Q
        rng.uniform(0.84375, 1.25, 100_000),        # ERX + P/Q around 1
        rng.uniform(1.25, 1 / 0.35, 100_000),       # the tail with RA/SA
        rng.uniform(1 / 0.35, 6, 100_000),          # the tail with RB/SB (erf still below 1)
        rng.uniform(6, 28, 50_000),                 # erf = 1; erfc down to subnormals and 0
        rng.uniform(28, 1e3, 10_000),
        np.geomspace(5e-324, 0.84375, 50_000),      # subnormals, 2**-1015, 2**-56, 2**-28
        _around(BOUNDARIES, 200),
        [0.0, 5e-324, np.finfo(np.float64).max, np.finfo(np.float64).tiny],
    ]
    x = np.concatenate(parts)
    return np.concatenate([x, -x])


def _ordered(a):
    """Floats mapped to integers in the same order, neighbours one apart (+0.0 and -0.0 both to 0)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    i = a.view(bits).astype(np.int64)
    sign = np.int64(-1) << (8 * a.dtype.itemsize - 1)
    return np.where(i < 0, sign - i, i)


def _ulps(got, want):
    """Distance in ulps (units in the last place), element by element; both nan counts as 0."""
    assert got.dtype == want.dtype
    both_nan = np.isnan(got) & np.isnan(want)
    assert not (np.isnan(got) ^ np.isnan(want)).any()
    return np.where(both_nan, 0, np.abs(_ordered(got) - _ordered(want)))


def _libm(name, x):
    f = np.frompyfunc(getattr(math, name), 1, 1)
    with np.errstate(invalid="ignore"):         # nan in, nan out
        return f(x.astype(np.float64)).astype(np.float64)


# ---- float64: the C library (glibc's erf, fdlibm's code) and the exact value ------------------------------------


def test_erf_float64_within_one_ulp_of_libm():
    x = _points()
    got = special.erf(np, x)
    assert _ulps(got, _libm("erf", x)).max() <= 1
    # the sign of zero and of the smallest subnormals is kept
    assert np.array_equal(np.signbit(got[x == 0]), np.signbit(x[x == 0]))


def test_erfc_float64_within_four_ulps_of_libm():
    # erfc is fdlibm's too, but fdlibm's erfc is only good to about 2 ulps, not 1: it is made of more
    # roundings (1 - x*y with erfc as small as 0.15, two exps, a division). glibc computes those exps with its
    # own exp and lets the compiler fuse a*b + c in the polynomials; NumPy's exp rounds differently (both under
    # an ulp). Each side is within about 2 ulps of the exact value (next test), so they can be 4 apart.
    x = _points()
    assert _ulps(special.erfc(np, x), _libm("erfc", x)).max() <= 4


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_float64_against_exact_values(name):
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 100
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-8, 8, 4000), rng.uniform(6, 27, 1000), _around(BOUNDARIES[:9], 20)])
    got = special.erf(np, x) if name == "erf" else special.erfc(np, x)
    exact = [getattr(mpmath, name)(mpmath.mpf(float(v))) for v in x]
    # ulp of the exact value: 2**(e - 52) for exact values in [2**e, 2**(e+1)), 2**-1074 for subnormals
    err = [abs(mpmath.mpf(float(g)) - e) / mpmath.mpf(math.ulp(max(abs(float(e)), 2.0 ** -1022)))
           for g, e in zip(got, exact)]
    # erf is within an ulp everywhere, erfc within 2.5 (glibc's erfc measures 3 on the same points)
    assert max(err) <= (1.0 if name == "erf" else 2.5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_special_values(dtype):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6.0, -6.0, 28.0, -28.0, 1e300 if dtype == np.float64 else 1e4],
                 dtype=dtype)
    erf = special.erf(np, x)
    erfc = special.erfc(np, x)
    assert erf.dtype == dtype and erfc.dtype == dtype
    np.testing.assert_array_equal(erf, np.array([0, -0.0, 1, -1, np.nan, 1, -1, 1, -1, 1], dtype=dtype))
    np.testing.assert_array_equal(erfc, np.array([1, 1, 0, 2, np.nan, erfc[5], 2, 0, 2, 0], dtype=dtype))
    assert list(np.signbit(erf[:2])) == [False, True]      # erf(-0.0) = -0.0
    assert erfc[5] == dtype(math.erfc(6.0))                # 2.15e-17 (0 in float16)


def test_shapes_and_layouts():
    x = np.linspace(-4, 4, 24).reshape(2, 3, 4)
    for a in (x, x.transpose(2, 0, 1), x[:, ::2, 1:], np.float64(0.5), np.empty((0, 3))):
        a = np.asarray(a)
        for f, ref in ((special.erf, "erf"), (special.erfc, "erfc")):
            got = f(np, a)
            assert got.shape == a.shape and got.dtype == a.dtype
            assert _ulps(got.ravel(), _libm(ref, a.ravel())).max(initial=0) <= 4


# ---- parity with torch, through the teachtorch ops ----------------------------------------------------------------


def _float32_points():
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.standard_normal(500_000) * 3, rng.uniform(-30, 30, 200_000),
                        np.geomspace(1e-45, 1, 100_000), _around(BOUNDARIES, 5)])
    x = x.astype(np.float32)
    return np.concatenate([x, -x, np.array([np.inf, -np.inf, np.nan], np.float32)])


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_float32_matches_torch(name):
    # teachtorch computes in float64 and rounds once; torch calls MKL's vsErf / vsErfc (within an ulp)
    x = _float32_points()
    ours = getattr(tt, name)(tt.tensor(x)).cpu().numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).cpu().numpy()
    assert ours.dtype == np.float32
    assert _ulps(ours, theirs).max() <= 1
    zeros = x == 0
    assert np.array_equal(np.signbit(ours[zeros]), np.signbit(theirs[zeros]))


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_float16_every_value(name):
    x = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)      # every float16, inf and nan included
    ours = getattr(tt, name)(tt.tensor(x)).cpu().numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).cpu().numpy()
    assert ours.dtype == np.float16
    # against the correctly rounded value: at most an ulp, from rounding twice (to float32, the op's compute
    # dtype for float16, then to float16)
    assert _ulps(ours, _libm(name, x).astype(np.float16)).max() <= 1
    d = _ulps(ours, theirs)
    if name == "erfc":
        assert d.max() <= 1
    else:
        # torch's float16 erf widens to float32 and uses Vectorized<float>::erf, a formula with an absolute
        # error of about 5e-7 (Abramowitz & Stegun 7.1.26): several float16 ulps where erf(x) is tiny
        small = np.abs(x) < 5e-4
        assert d[~small].max() <= 1
        assert np.abs(ours[small].astype(np.float64) - theirs[small].astype(np.float64)).max() <= 1e-6
