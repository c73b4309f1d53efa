"""Plausible wrong answers to lesson 13's exercises: each check must reject every one (tests/test_exercises.py)."""

import math

import numpy as np

import teachtorch as tt
from teachtorch.backends import wrap

C = float(np.sqrt(2 / np.pi))


# ---- L13.fused_gelu -----------------------------------------------------------------------------------------

def _register(lib, kernel):
    lib.define("fused_gelu(Tensor x) -> Tensor")
    lib.impl("fused_gelu", kernel, "CPU")


def gelu_tt_ops_inside(lib):                 # one op outside, eight dispatched ops inside: the trace sees them
    _register(lib, lambda x: 0.5 * x * (1 + tt.tanh(C * (x + 0.044715 * x**3))))


def gelu_erf(lib):                           # the exact (erf) GELU, not the tanh one: values differ by ~1e-3
    erf = np.vectorize(math.erf)
    _register(lib, lambda x: wrap(0.5 * x._data() * (1 + erf(x._data() / math.sqrt(2))), x.dtype, x.device))


def gelu_forgets_half(lib):                  # x (1 + tanh(...)): twice the GELU
    _register(lib, lambda x: wrap(x._data() * (1 + np.tanh(C * (x._data() + 0.044715 * x._data()**3))),
                                  x.dtype, x.device))


def gelu_empty_then_fill(lib):               # allocates with a tt op, then writes: one more dispatched call
    def kernel(x):
        a = x._data()
        out = tt.empty_like(x)
        out._data()[...] = 0.5 * a * (1 + np.tanh(C * (a + 0.044715 * a**3)))
        return out
    _register(lib, kernel)


def gelu_cube_as_square(lib):                # 0.044715 x^2 instead of x^3
    def kernel(x):
        a = x._data()
        return wrap(0.5 * a * (1 + np.tanh(C * (a + 0.044715 * a**2))), x.dtype, x.device)
    _register(lib, kernel)


# ---- L13.regime ---------------------------------------------------------------------------------------------

OVERHEAD_S, BANDWIDTH, FLOP_RATE, BYTES = 10e-6, 20e9, 50e9, 4


def _flops_bytes(op, shapes, matmul_flops=lambda m, k, n: 2 * m * k * n):
    if op == "matmul":
        (m, k), (_, n) = shapes
        return matmul_flops(m, k, n), BYTES * (m * k + k * n + m * n)
    numel = math.prod(shapes[0])
    return numel, BYTES * numel * (len(shapes) + 1)


def _pick(times):
    return ["overhead", "bandwidth", "compute"][times.index(max(times))]


def regime_by_op_name(op, shapes):           # "a matmul is compute-bound": not a matrix times a vector
    flops, moved = _flops_bytes(op, shapes)
    if moved / BANDWIDTH < OVERHEAD_S and flops / FLOP_RATE < OVERHEAD_S:
        return "overhead"
    return "compute" if op == "matmul" else "bandwidth"


def regime_matmul_as_elementwise(op, shapes):   # counts a matmul's FLOPs as one per output element
    flops, moved = _flops_bytes(op, shapes, matmul_flops=lambda m, k, n: m * n)
    return _pick([OVERHEAD_S, moved / BANDWIDTH, flops / FLOP_RATE])


def regime_no_overhead(op, shapes):          # forgets the fixed cost per call: tiny ops look bandwidth-bound
    flops, moved = _flops_bytes(op, shapes)
    return _pick([0.0, moved / BANDWIDTH, flops / FLOP_RATE])


def regime_by_size(op, shapes):              # "small is overhead, big is compute", whatever the op
    flops, _ = _flops_bytes(op, shapes)
    return "overhead" if flops / FLOP_RATE < OVERHEAD_S else "compute"


WRONG = {
    "L13.fused_gelu": [gelu_tt_ops_inside, gelu_erf, gelu_forgets_half, gelu_empty_then_fill, gelu_cube_as_square],
    "L13.regime": [regime_by_op_name, regime_matmul_as_elementwise, regime_no_overhead, regime_by_size],
}
