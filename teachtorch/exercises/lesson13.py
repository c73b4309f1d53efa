"""Lesson 13, performance from first principles: the exercises.

    L13.regime       regime(op, shapes) -> "overhead", "bandwidth" or "compute": which of the three costs of
                     the lesson's model is the largest for this op on these float32 shapes
    L13.fused_gelu   register_fused_gelu(lib): define `fused_gelu(Tensor x) -> Tensor` in `lib`, the tanh GELU
                     computed by ONE kernel (NumPy on the tensor's array), not by nine dispatched tt ops

`register_fused_gelu` is run on a fresh `teachtorch.library.Library` each case (destroyed after it). The check
calls the new op on seeded random float32 tensors under `teachtorch.dispatch.trace()` and compares
`(value, calls, new_tensors)`: the values against `tt.nn.functional.gelu(x, approximate="tanh")`, the number
of op calls the dispatcher made (at any depth: a kernel that calls tt ops inside makes more calls, and the
trace sees them) and the number of tensors those calls allocated. A fused op makes 1 call and 1 tensor; the
unfused formula makes 9 of each. The counts come from the trace, never from a clock, so the verdict is the same
on every machine. PyTorch's counterpart: a custom op from `torch.library.custom_op` / `torch.library.
Library` with a fused C++ or Triton kernel, or what `torch.compile` (Inductor) generates by itself.

`regime` is checked against `_regime` below, the lesson's model with fixed round numbers (OVERHEAD_S,
BANDWIDTH, FLOP_RATE, near what the lesson measures on its machine): the time of an op is about the largest
of a fixed overhead per call, bytes moved / bandwidth and FLOPs / FLOP rate. The random cases are ops whose
largest cost is at least twice the next one, so the answer never hangs on a rounding. PyTorch has no such
function: it is the reasoning of Horace He's "Making Deep Learning Go Brrrr From First Principles", and of
the roofline model that `torch.profiler` numbers are read with.
"""

from collections import namedtuple

import numpy as np

from ..dispatch import dispatcher
from ..dispatch.trace import trace
from ..library import Library
from .core import Exercise

# ---- L13.fused_gelu -----------------------------------------------------------------------------------------

Fused = namedtuple("Fused", "value calls new_tensors")
_CHECK_NS = "l13check"
GELU_C = float(np.sqrt(2 / np.pi))       # the tanh GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))


def _infos(items):
    for i in items:
        if isinstance(i, list):
            yield from _infos(i)
        elif hasattr(i, "storage_id"):
            yield i


def trace_counts(fn, *args):
    """Run fn(*args) under a trace: (its result, the op calls the dispatcher made at any depth, the tensors
    those calls allocated). A call is an event whose parent is another op (or none): the hops that pass one
    call on to lower keys are not counted again. A call allocates an output that is none of its inputs and
    shares none of their storages (a view or an in-place op allocates nothing)."""
    with trace(max_events=None) as t:
        out = fn(*args)
    calls = [e for e in t.events if e.parent is None or t.event(e.parent).op != e.op]
    made = set()
    for e in calls:
        ins = list(_infos(e.inputs))
        names, storages = {i.name for i in ins}, {i.storage_id for i in ins}
        made |= {o.name for o in _infos(e.outputs) if o.name not in names and o.storage_id not in storages}
    return out, len(calls), len(made)


def _x(shape, seed):
    rng = np.random.default_rng(seed)
    return (3 * rng.standard_normal(shape)).astype(np.float32)


def _gelu_expected(shape, seed):
    from .. import tensor
    from ..nn import functional as F
    return Fused(F.gelu(tensor(_x(shape, seed)), approximate="tanh"), 1, 1)


def _error(e):
    return f"{type(e).__name__}: {str(e)[:150]}"


def _clean():
    for name in [n for n in dispatcher.OPERATORS if n.startswith(_CHECK_NS + "::")]:
        dispatcher.OPERATORS.pop(name)
    from ..dispatch.ops_namespace import ops
    ops.__dict__.pop(_CHECK_NS, None)


def _call_register(answer, args):
    """Give the answer a fresh library, call its op under a trace, destroy the library."""
    from .. import tensor
    _clean()
    lib = Library(_CHECK_NS, "DEF")
    try:
        answer(lib)                  # the stub's NotImplementedError goes up: "not solved yet"
        op = dispatcher.lookup(f"{_CHECK_NS}::fused_gelu")
        try:
            out, calls, made = trace_counts(op, tensor(_x(*args)))
        except Exception as e:   # a failing kernel: a value to compare, not a crash
            return Fused(_error(e), None, None)
        return Fused(out, calls, made)
    finally:
        lib._destroy()
        _clean()


def _random_gelu_case(rng):
    shape = tuple(int(s) for s in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    return shape, int(rng.integers(0, 2**31))


# ---- L13.regime ---------------------------------------------------------------------------------------------

OVERHEAD_S = 10e-6       # seconds per op call (Python, dispatcher, allocation): lesson 13 section 2
BANDWIDTH = 20e9         # bytes per second that an elementwise op moves: section 4
FLOP_RATE = 50e9         # float32 FLOPs per second of a big matmul: section 5
BYTES = 4                # float32
OPS = ("relu", "add", "mul", "matmul")


def _costs(op, shapes):
    """(overhead, memory, compute) seconds of one op call in the lesson's model."""
    if op == "matmul":
        (m, k), (_, n) = shapes
        flops, elements = 2 * m * k * n, m * k + k * n + m * n
    else:
        numel = int(np.prod(shapes[0]))
        flops, elements = numel, numel * (len(shapes) + 1)     # read every input, write the output
    return OVERHEAD_S, elements * BYTES / BANDWIDTH, flops / FLOP_RATE


def _regime(op, shapes):
    costs = _costs(op, shapes)
    return ("overhead", "bandwidth", "compute")[int(np.argmax(costs))]


def _random_regime_case(rng):
    while True:
        op = str(rng.choice(OPS))
        if op == "matmul":
            m, k, n = (int(2 ** rng.uniform(0, 12)) for _ in range(3))
            shapes = ((m, k), (k, n))
        else:
            shape = tuple(int(2 ** rng.uniform(0, 12)) for _ in range(int(rng.integers(1, 3))))
            shapes = (shape,) * (1 if op == "relu" else 2)
        costs = sorted(_costs(op, shapes))
        if costs[2] >= 2 * costs[1]:            # a clear winner: no answer hangs on a rounding
            return op, shapes


_REGIME_KNOWN = [
    (("add", ((8, 8), (8, 8))), "overhead"),                 # 768 bytes: 38 ns of memory, 10 us of overhead
    (("relu", ((1000,),)), "overhead"),
    (("add", ((4096, 4096), (4096, 4096))), "bandwidth"),    # 201 MB: 10 ms; 16.8 MFLOP: 0.3 ms
    (("matmul", ((1024, 1024), (1024, 1024))), "compute"),   # 2.1 GFLOP: 43 ms; 12.6 MB: 0.6 ms
    (("matmul", ((1, 4096), (4096, 4096))), "bandwidth"),    # a matrix times a vector reads 67 MB for 34 MFLOP
    (("matmul", ((4, 4), (4, 4))), "overhead"),
]

EXERCISES = [
    Exercise(
        name="L13.regime",
        title='regime(op, shapes): "overhead", "bandwidth" or "compute", the largest cost in the model',
        reference=_regime,
        known=_REGIME_KNOWN,
        random_args=_random_regime_case,
        hints=["Compute three times in seconds: OVERHEAD_S; bytes moved / BANDWIDTH; FLOPs / FLOP_RATE. The "
               "largest names the regime.",
               "An elementwise op on n elements does n FLOPs and moves BYTES * n for each input and for the output. "
               "A matmul (m, k) @ (k, n) does 2 m k n FLOPs and moves BYTES * (m k + k n + m n).",
               "times = [OVERHEAD_S, bytes / BANDWIDTH, flops / FLOP_RATE]; "
               "return ['overhead', 'bandwidth', 'compute'][times.index(max(times))]"],
        solution='''def regime(op, shapes):
    import math
    OVERHEAD_S, BANDWIDTH, FLOP_RATE, BYTES = 10e-6, 20e9, 50e9, 4
    if op == "matmul":
        (m, k), (_, n) = shapes
        flops, elements = 2 * m * k * n, m * k + k * n + m * n
    else:
        numel = math.prod(shapes[0])
        flops, elements = numel, numel * (len(shapes) + 1)
    times = [OVERHEAD_S, elements * BYTES / BANDWIDTH, flops / FLOP_RATE]
    return ["overhead", "bandwidth", "compute"][times.index(max(times))]''',
    ),
    Exercise(
        name="L13.fused_gelu",
        title="register_fused_gelu(lib): the tanh GELU as one op with one NumPy kernel",
        reference=_gelu_expected,
        known=[(((5,), 0), _gelu_expected((5,), 0)), (((2, 3), 1), _gelu_expected((2, 3), 1))],
        random_args=_random_gelu_case,
        call=_call_register,
        rtol=1e-5, atol=1e-6,
        hints=["The result compares (value, calls, new_tensors). A fused op is ONE call that allocates ONE tensor: "
               "define it with lib.define, then lib.impl a kernel for 'CPU' (section 6 shows the unfused formula).",
               "Inside the kernel use NumPy only: a = x._data(); every tt op you call there (tt.tanh, x * x, even "
               "tt.empty_like) is one more dispatched call, and the trace counts it.",
               "return wrap(0.5 * a * (1 + np.tanh(GELU_C * (a + 0.044715 * (a * a * a)))), x.dtype, x.device)"],
        solution='''def register_fused_gelu(lib):
    import numpy as np
    from teachtorch.backends import wrap
    GELU_C = float(np.sqrt(2 / np.pi))
    lib.define("fused_gelu(Tensor x) -> Tensor")

    def gelu_kernel(x):
        a = x._data()
        return wrap(0.5 * a * (1 + np.tanh(GELU_C * (a + 0.044715 * (a * a * a)))), x.dtype, x.device)

    lib.impl("fused_gelu", gelu_kernel, "CPU")
    lib.impl("fused_gelu", gelu_kernel, "CUDA")''',
    ),
]
