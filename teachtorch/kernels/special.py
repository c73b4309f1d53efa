"""The error function erf and its complement erfc, vectorised over NumPy (or CuPy) arrays.

    erf(x)  = 2/sqrt(pi) * integral from 0 to x of exp(-t*t) dt        (odd: erf(-x) = -erf(x))
    erfc(x) = 1 - erf(x)                                                 (erfc(-x) = 2 - erfc(x))

erf is the integral of the bell curve: the normal distribution's CDF is Phi(x) = (1 + erf(x / sqrt(2))) / 2,
which is why `nn.GELU` (x * Phi(x)) calls it. The integral has no closed form in elementary functions, so a
math library approximates it, and a different approximation suits each range of x: near 0 erf is a power
series in x, around 1 a series in x - 1, and for large x erfc(x) behaves like exp(-x*x) / (x * sqrt(pi)) times
a series in 1/x**2. erfc gets its own code and is not computed as `1 - erf(x)`: for x = 5, erf(x) is
1 - 1.5e-12 and the subtraction would keep only 4 of erfc's 16 digits.

The coefficients and the ranges below are fdlibm's (Sun Microsystems, 1993, freely redistributable):
https://www.netlib.org/fdlibm/s_erf.c (also in FreeBSD's msun and openlibm). glibc's `erf` (what Python's
`math.erf` calls on Linux) and Java's `StrictMath.erf` are this same code, and it is accurate to within one
unit in the last place (ulp) of float64. Each range is a rational function P/Q (a ratio of polynomials
evaluated with Horner's rule), written out below range by range:

    |x| < 0.84375          erf  = x + x * P(x*x)/Q(x*x)
    0.84375 <= |x| < 1.25  erf  = c + P(s)/Q(s), s = |x| - 1, c = erf(1) rounded to float32 (0.84506291151)
    1.25 <= |x| < 1/0.35   erfc = exp(-x*x - 0.5625 + R(1/x**2)/S(1/x**2)) / x      (one set of R, S)
    1/0.35 <= |x| < 28     erfc = the same form, another set of R, S
    |x| >= 6               erf  = +-1 (1 - erf(6) = 2e-17 is below half an ulp of 1)
    x >= 28                erfc = 0 (erfc(x) is already below float64's smallest subnormal from x = 27.3)

fdlibm is written for one number at a time (`if` per range); here each range is computed at once for all the
elements that fall in it (gathered by their positions) and the results are scattered into one array, a block
of elements at a time. float32 and float16 inputs
are computed in float64 and rounded once to their dtype, which gives the correctly rounded result except in
rare near-ties.

PyTorch: `torch.erf` on cpu (aten/src/ATen/native/cpu/UnaryOpsKernel.cpp) hands float32 and float64 tensors
to Intel MKL's vectorised `vsErf` / `vdErf` (aten/src/ATen/cpu/vml.h) when it is built with MKL, as the
pip wheels are. Otherwise, and for float16, it runs `Vectorized<T>::erf()` (aten/src/ATen/cpu/vec/): SLEEF's
`Sleef_erfd8_u10` (under 1 ulp) for float64, and for float32, into which float16 is widened, a five-term
formula from Abramowitz & Stegun (7.1.26: 1 - t*P(t)*exp(-x*x), t = 1/(1 + 0.3275911|x|)) whose absolute
error of 1.5e-7 is several float16 ulps near 0. Elements past the last full SIMD vector get the C library's
`std::erf`. CUDA calls libdevice's `erf` / `erff`. All of them are range-by-range approximations like this one.
"""

import numpy as np

from ..backends.differences import float32_to_float64, float64_to_float32

# ---- fdlibm's coefficients, named as in s_erf.c ---------------------------------------------------------------

# erf(1) rounded to 24 bits: the mid range approximates erf(x) - ERX, which is small (|P/Q| < 0.078)
ERX = 8.45062911510467529297e-01
# 2/sqrt(pi) - 1: erf(x) ~ x * 2/sqrt(pi) = x + EFX * x for tiny x; EFX8 = 8 * EFX
EFX = 1.28379167095512586316e-01
EFX8 = 1.02703333676410069053e+00

# |x| < 0.84375: erf(x) = x + x * PP(z)/QQ(z), z = x*x                   (|error of PP/QQ| < 2**-57.90)
PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
      -5.77027029648944159157e-03, -2.37630166566501626084e-05)
QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
      1.32494738004321644526e-04, -3.96022827877536812320e-06)

# 0.84375 <= |x| < 1.25: erf(|x|) = ERX + PA(s)/QA(s), s = |x| - 1      (|error| < 2**-59.06)
PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
      3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
      -2.16637559486879084300e-03)
QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
      1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)

# 1.25 <= |x| < 1/0.35: erfc(|x|) = exp(-x*x - 0.5625 + RA(s)/SA(s)) / |x|, s = 1/x**2   (|error| < 2**-62.57)
RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
      -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
      -8.12874355063065934246e+01, -9.81432934416914548592e+00)
SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
      6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
      6.57024977031928170135e+00, -6.04244152148580987438e-02)

# 1/0.35 <= |x| < 28: the same form with RB/SB                            (|error| < 2**-61.52)
RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
      -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
      -4.83519191608651397019e+02)
SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
      3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
      -2.24409524465858183362e+01)


def _from_high_word(hi):
    """The float64 whose upper 32 bits are `hi` and lower 32 bits 0: fdlibm compares x's upper word to these."""
    return float(np.array(hi << 32, dtype=np.uint64).view(np.float64))


# The range boundaries. fdlibm splits the last two ranges at a slightly different point in erf (upper word
# 0x4006DB6E) and in erfc (0x4006DB6D), both just above 1/0.35 = 2.857142857...; either set of coefficients
# is accurate there, and keeping both boundaries makes the results identical to glibc's bit for bit.
SMALL = 0.84375                               # 0x3FEB0000
MID = 1.25                                    # 0x3FF40000
ERF_TAIL_SPLIT = _from_high_word(0x4006DB6E)  # 2.857142925262451
ERFC_TAIL_SPLIT = _from_high_word(0x4006DB6D)  # 2.8571414947509766
ERF_ONE = 6.0                                 # 0x40180000: from here on erf(x) rounds to +-1
ERFC_ZERO = 28.0                              # 0x403C0000: from here on erfc(x) rounds to 0
TINY = 2.0 ** -28                             # below this erf(x) = x + EFX * x (the x**3 term is lost)
SUBNORMAL_SAFE = 2.0 ** -1015                 # below this EFX * x would lose bits: scale by 8 first
ERFC_TINY = 2.0 ** -56                        # below this erfc(x) = 1 - x


def _positions(xp, mask):
    """Where `mask` is true, as an array of indices. Gathering `x[i]` and scattering `out[i] = v` through
    indices in increasing order is several times faster than through the boolean mask itself."""
    return xp.flatnonzero(mask)


def _horner(s, coefficients):
    """c0 + s*(c1 + s*(c2 + ...)): the polynomial with these coefficients, evaluated as fdlibm does."""
    result = s * coefficients[-1]      # a new array, then updated in place: no temporary array per step
    result += coefficients[-2]
    for c in reversed(coefficients[:-2]):
        result *= s
        result += c
    return result


def _small_ratio(x):
    """|x| < 0.84375: y with erf(x) = x + x*y. erf's Taylor series is x * 2/sqrt(pi) * (1 - x**2/3 + ...),
    a function of x*x times x; 2/sqrt(pi) = 1 + 0.128..., so x + x*y keeps the leading x exact."""
    z = x * x
    return _horner(z, PP) / _horner(z, QQ)


def _mid_ratio(ax):
    """0.84375 <= |x| < 1.25: P/Q with erf(|x|) = ERX + P/Q, a series around x = 1 in s = |x| - 1."""
    s = ax - 1.0
    return _horner(s, PA) / _horner(s, QA)


def _erfc_tail(xp, ax, split):
    """erfc(|x|) for 1.25 <= |x| < 28, from the asymptotic form exp(-x*x) / (x sqrt(pi)) * (1 + series in 1/x**2).

    R/S approximates log(erfc(x) * x) + x*x + 0.5625, so erfc(x) = exp(-x*x - 0.5625 + R/S) / x.
    -x*x must not be rounded: at x = 20 it is -400, whose rounding error (up to 2.8e-14) would become a
    relative error of 2.8e-14 in erfc, over 100 ulps. So x is split as x = z + (x - z), z being x with its
    low 32 bits cleared: z has 21 significant bits, so z*z (42 bits) is exact, and
        -x*x = -z*z + (z - x)*(z + x)
    where the second term is small and its rounding error is far below an ulp of the result.
    """
    s = 1.0 / (ax * ax)
    ratio = xp.empty_like(s)
    for i, (r, q) in ((_positions(xp, ax < split), (RA, SA)), (_positions(xp, ax >= split), (RB, SB))):
        ratio[i] = _horner(s[i], r) / _horner(s[i], q)
    z = (ax.view(xp.uint64) & xp.uint64(0xFFFFFFFF00000000)).view(xp.float64)
    return xp.exp(-z * z - 0.5625) * xp.exp((z - ax) * (z + ax) + ratio) / ax


# Elements are processed BLOCK at a time: a block's float64 temporaries (512 KiB each) stay in the cpu's cache,
# where NumPy's passes over them run about twice as fast as over arrays the size of a whole activation.
BLOCK = 65536


def _blockwise(xp, fill, a):
    """Run `fill(xp, x, out)` on consecutive blocks of a flat float64 copy `x` of `a`, filling `out`, which
    starts as a copy of x (so that nan, which falls in no range, stays nan); return out in a's shape and dtype."""
    if a.dtype == np.float32:     # (exactly, subnormals included: a GPU would flush them, differences.py)
        x = xp.ravel(float32_to_float64(xp, xp.asarray(a)))
    else:
        x = xp.ravel(xp.asarray(a, dtype=xp.float64))
    out = xp.array(x, copy=True)
    for start in range(0, x.size, BLOCK):
        fill(xp, x[start:start + BLOCK], out[start:start + BLOCK])   # out's slice is a view: filled in place
    out = out.reshape(a.shape)
    return float64_to_float32(xp, out) if a.dtype == np.float32 else out.astype(a.dtype, copy=False)


def erf(xp, a):
    """erf of every element of the float array `a`, in a's dtype (float32 and float16 computed in float64)."""
    return _blockwise(xp, _erf_fill, a)


def erfc(xp, a):
    """erfc of every element of the float array `a`, in a's dtype (float32 and float16 computed in float64)."""
    return _blockwise(xp, _erfc_fill, a)


def _erf_fill(xp, x, out):
    """out = erf(x) for a 1-d float64 block x; out holds x to begin with."""
    ax = xp.abs(x)

    # |x| < 0.84375: x + x*y (the sign comes with x)
    i = _positions(xp, ax < SMALL)
    xs = x[i]
    out[i] = xs + xs * _small_ratio(xs)

    # |x| < 2**-28: x + EFX*x (y would be EFX up to terms in x*x that no longer count), and where EFX*x would
    # be subnormal, (8x + 8EFX*x) / 8. Both keep the sign of zero: erf(-0.0) = -0.0.
    i = _positions(xp, ax < TINY)
    xs = x[i]
    out[i] = xp.where(ax[i] < SUBNORMAL_SAFE, 0.125 * (8.0 * xs + EFX8 * xs), xs + EFX * xs)

    # 0.84375 <= |x| < 1.25: +-(ERX + P/Q)
    i = _positions(xp, (ax >= SMALL) & (ax < MID))
    out[i] = xp.copysign(ERX + _mid_ratio(ax[i]), x[i])

    # 1.25 <= |x| < 6: +-(1 - erfc(|x|))
    i = _positions(xp, (ax >= MID) & (ax < ERF_ONE))
    out[i] = xp.copysign(1.0 - _erfc_tail(xp, ax[i], ERF_TAIL_SPLIT), x[i])

    # |x| >= 6, infinities included: +-1. nan fails every comparison above and stays nan.
    i = _positions(xp, ax >= ERF_ONE)
    out[i] = xp.copysign(1.0, x[i])


def _erfc_fill(xp, x, out):
    """out = erfc(x) for a 1-d float64 block x; out holds x to begin with."""
    ax = xp.abs(x)

    # |x| < 0.84375: 1 - erf(x). For x < 1/4, erf(x) < 0.28, so 1 - erf(x) > 0.72 loses nothing; for
    # 1/4 <= x < 0.84375, where erfc(x) falls to 0.23, it is 0.5 - ((x - 0.5) + x*y), x - 0.5 being exact.
    i = _positions(xp, ax < SMALL)
    xs = x[i]
    xy = xs * _small_ratio(xs)
    out[i] = xp.where(xs < 0.25, 1.0 - (xs + xy), 0.5 - (xy + (xs - 0.5)))

    # |x| < 2**-56: erfc(x) rounds to 1 - x
    i = _positions(xp, ax < ERFC_TINY)
    out[i] = 1.0 - x[i]

    # 0.84375 <= |x| < 1.25: (1 - ERX) - P/Q for x > 0 (1 - ERX is exact), 1 + (ERX + P/Q) for x < 0
    i = _positions(xp, (ax >= SMALL) & (ax < MID))
    ratio = _mid_ratio(ax[i])
    out[i] = xp.where(x[i] > 0, (1.0 - ERX) - ratio, 1.0 + (ERX + ratio))

    # 1.25 <= |x| < 28, except x <= -6: the tail for x > 0, 2 - tail for x < 0
    i = _positions(xp, (ax >= MID) & (ax < ERFC_ZERO) & (x > -ERF_ONE))
    tail = _erfc_tail(xp, ax[i], ERFC_TAIL_SPLIT)
    out[i] = xp.where(x[i] > 0, tail, 2.0 - tail)

    # x >= 28 (+inf included): 0; x <= -6 (-inf included): 2, as 2 - erfc(6) rounds to 2. nan stays nan.
    out[_positions(xp, x >= ERFC_ZERO)] = 0.0
    out[_positions(xp, x <= -ERF_ONE)] = 2.0
