# Over 600 lines: gradcheck and gradgradcheck share the Jacobian builders and the failure reports, as
# torch/autograd/gradcheck.py (2300 lines) does.
"""`gradcheck` and `gradgradcheck`: test backward formulas against finite differences.

PyTorch: torch/autograd/gradcheck.py (this file follows its structure, without the sparse, MKLDNN and
complex-number branches, forward-mode AD and vmap, which teachtorch does not have).

**The Jacobian.** A function `f` from inputs with N numbers in all to outputs with M numbers has, at a
point, a Jacobian: the M x N matrix J with J[m, n] = d out[m] / d in[n]. Backward never builds J; it computes
vector-Jacobian products `v^T J` (a whole row of the chain rule at once, with `v` the incoming gradient).
gradcheck builds J twice and compares:

* **numerically**, column by column: nudge one input element by +-eps and watch every output move,
  `J[:, n] ~ (f(x + eps e_n) - f(x - eps e_n)) / (2 eps)`;
* **analytically**, row by row: one `autograd.grad` per output element with a one-hot grad_output e_m gives
  `e_m^T J = J[m, :]`, i.e. what the backward formulas claim.

Both are stored as PyTorch stores them, one (input numel, output numel) matrix per (input, output) pair,
i.e. J transposed, so that row n is "what perturbing input element n does". They must agree in the sense
of `allclose(analytical, numerical, rtol, atol)`.

**Why central differences.** The one-sided `(f(x + eps) - f(x)) / eps` is off by about `eps * f''/2`; the
central difference's error terms of even order cancel, leaving about `eps^2 * f'''/6`. With eps = 1e-6
that is ~1e-12 instead of ~1e-6, far below the default atol of 1e-5.

**Why float64.** Rounding error in f(x +- eps) is about `|f| * machine_epsilon`, and dividing by 2 eps
magnifies it: `1e-16 / 1e-6 = 1e-10` in float64, but `1e-7 / 1e-6 = 0.1` in float32, so a float32 check
fails on correct formulas. Hence the warning for inputs that are not double.

**Why inputs with a stride-0 dimension are refused.** The perturbation is done *in place*, through the
input's own memory (element by element in logical order, the same order in which `reshape(-1)` lays out
the analytical gradient). In an expanded tensor several logical elements share one memory slot: nudging
"one" element nudges all of them, and the numerical column is then a sum of several true columns.

**Fast mode** (PyTorch issue 53876). The full check costs N forward pairs plus M backward calls. Fast mode
draws a random unit vector u over the input elements and a random unit vector v over the output elements
and compares one number, `v^T J u`: numerically, one central difference *along u* gives `J u`, dotted
with v; analytically, one backward with grad_output v gives `v^T J`, dotted with u. That is two forwards
and one backward per input/output instead of N and M. A wrong J is very unlikely to give the right
`v^T J u` for random u, v. The tolerance is scaled: `atol * sum(u) * sum(v)` is what elementwise errors of
size atol add up to. When fast mode fails, the slow Jacobians are computed too, for the report.

**More checks**, as PyTorch makes them: backward run twice gives the same result within `nondet_tol`
("reentrant"); gradients have their input's shape (and dtype with check_grad_dtypes); a zero grad_output
gives zero gradients ("backward is multiplied by grad_output"); an *undefined* (None) grad_output is
handled and gives zero or None gradients (check_undefined_grad).

`gradgradcheck` checks second derivatives by gradchecking the function
`(inputs, grad_outputs) -> autograd.grad(func(inputs), inputs, grad_outputs, create_graph=True)`:
the backward of a backward.

Failures raise `GradcheckError` (a RuntimeError) naming the output and the input (counted among the
inputs that require grad, as PyTorch counts them) with both Jacobians; `raise_exception=False` returns False.
"""

import importlib
import itertools
import math
import warnings

from .. import _dtype
from .._tensor import Tensor
from .api import grad as _autograd_grad
from .grad_mode import no_grad
from .node import Node
from .variable import gradient_edge, set_history

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Error raised by `gradcheck` and `gradgradcheck`."""


# ---- small helpers ----------------------------------------------------------------------------------------


def _ops():
    # teachtorch.ops does not exist yet when this module is imported (autograd comes first); and once it does,
    # `teachtorch.ops` the attribute is the dispatcher's op namespace (torch.ops), so ask for the module by name
    return importlib.import_module("teachtorch.ops")


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float_tensor(x):
    return isinstance(x, Tensor) and (x.dtype.is_floating_point or x.dtype.is_complex)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _diff_inputs(inputs):
    """(positions, tensors) of the inputs that require grad: the ones gradcheck differentiates."""
    pairs = [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    return [i for i, _ in pairs], [t for _, t in pairs]


def _allclose(a, b, rtol, atol):
    ops = _ops()
    dtype = _dtype.promote_types(a.dtype, b.dtype)
    return ops.allclose(a.to(dtype), b.to(dtype), rtol, atol)


def _max_abs_diff(a, b):
    dtype = _dtype.promote_types(a.dtype, b.dtype)
    return (a.to(dtype) - b.to(dtype)).abs().max()


def _check_inputs(inputs):
    """Warn about non-double inputs; refuse overlapping ones; insist that one input requires grad."""
    any_requires_grad = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype.name not in ("float64", "complex128"):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are not of double precision floating point "
                    "or complex. ", stacklevel=4)
            # (PyTorch too only detects stride 0, not every kind of overlap)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                    "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck.")
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")


# ---- the numerical Jacobian -------------------------------------------------------------------------------


def _float_outputs_fn(fn, inputs):
    """fn() -> its float outputs, detached and copied (an output may share memory with the input we nudge)."""
    def wrapped():
        return tuple(o.detach().clone() for o in _as_tuple(fn(*inputs)) if _is_float_tensor(o))
    return wrapped


def _compute_numerical_gradient(fn, entry, v, norm_v, where=""):
    """The central difference `(fn(x + v) - fn(x - v)) / (2 |v|)`, with `x + v` written into `entry`.

    `entry` is (part of) an input's memory: one element for slow mode, the whole input for fast mode.
    The ops are run on `.data`-style tensors under no_grad, so the nudges are invisible to autograd,
    and `fn` runs with grad mode as the caller has it (gradgradcheck's function calls autograd.grad).
    """
    with no_grad():
        orig = entry.clone()
        entry.copy_(orig - v)
    try:
        outa = fn()
        with no_grad():
            entry.copy_(orig + v)
        outb = fn()
    finally:
        with no_grad():
            entry.copy_(orig)
    result = []
    for a, b in zip(outa, outb):
        if a.shape != b.shape:
            raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are "
                                 f"perturbed {where}by {norm_v}, but got: shapes {a.shape} and {b.shape}.")
        if a.dtype is not b.dtype:
            raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are "
                                 f"perturbed {where}by {norm_v}, but got: dtypes {a.dtype} and {b.dtype}.")
        with no_grad():
            result.append(((b - a) / (2 * norm_v)).reshape(-1))
    return result


def _get_numerical_jacobian(fn, inputs, outputs=None, eps=1e-3):
    """jacobians[i][k]: (numel of input i, numel of float output k), for each input i that requires grad.

    Column by column: element n of input i (in logical order, through the input's own strides) is
    nudged by +-eps in place, and the outputs' change fills row n.
    """
    ops = _ops()
    if outputs is None:
        outputs = fn(*inputs)
    outputs = [o for o in _as_tuple(outputs) if _is_float_tensor(o)]
    wrapped = _float_outputs_fn(fn, inputs)
    jacobians = []
    for inp in inputs:
        if not (isinstance(inp, Tensor) and inp.requires_grad):
            continue
        x = inp.data           # same memory, no history, a version counter of its own
        jac = [ops.zeros((inp.numel(), o.numel()), dtype=o.dtype) for o in outputs]
        for n, idx in enumerate(itertools.product(*[range(s) for s in x.shape])):
            cols = _compute_numerical_gradient(wrapped, x[idx], eps, eps, f"on index {idx} ")
            with no_grad():
                for j, col in zip(jac, cols):
                    j[n].copy_(col)
        jacobians.append(jac)
    return jacobians


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """PyTorch's public form: `fn` takes the inputs as one tuple; the Jacobians of its *first* output,
    one per input (or per tensor of `target`) that requires grad."""
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    if target is not None:
        raise NotImplementedError("teachtorch's get_numerical_jacobian differentiates with respect to the "
                                  "inputs themselves (target=None)")
    jacobians = _get_numerical_jacobian(lambda *xs: fn(xs), _as_tuple(inputs), None, eps)
    return tuple(per_output[0] for per_output in jacobians)


# ---- the analytical Jacobian ------------------------------------------------------------------------------

FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _vjp_rows(output, diff_inputs, grad_outputs):
    """For each grad_output v: `v^T J`, one gradient (or None) per input. `grad_outputs` may be a generator
    that reuses one tensor (the one-hot vectors), so each result is copied at once."""
    rows = []
    for v in grad_outputs:
        grads = _autograd_grad(output, diff_inputs, v, retain_graph=True, allow_unused=True)
        rows.append([None if g is None else g.clone() for g in grads])
    return rows


def _one_hot_grad_outputs(output):
    """e_0, e_1, ... shaped like `output`: one tensor, refilled for each row (PyTorch does the same)."""
    base = _ops().zeros(output.shape, dtype=output.dtype)
    flat = base.view(-1)
    for m in range(flat.numel()):
        with no_grad():
            flat.zero_()
            flat[m] = 1.0
        yield base


def _stack_rows(rows, diff_inputs):
    """rows[m][i] (a gradient for input i) -> per input an (input numel, len(rows)) matrix; + shape/dtype ok."""
    ops = _ops()
    sizes_ok, types_ok = True, True
    jacobians = [ops.zeros((t.numel(), len(rows)), dtype=t.dtype) for t in diff_inputs]
    for m, row in enumerate(rows):
        for jac, inp, g in zip(jacobians, diff_inputs, row):
            if g is None:
                continue          # an unused input: that column stays zero
            if g.shape != inp.shape:
                sizes_ok = False
                continue
            if g.dtype is not inp.dtype:
                types_ok = False
            with no_grad():
                jac[:, m].copy_(g.reshape(-1))
    return jacobians, sizes_ok, types_ok


def _analytical_jacobian_twice(inputs, output, nondet_tol, v=None):
    """The analytical Jacobian of `output` for each input requiring grad (slow mode), or the single row
    `v^T J` when `v` is given (fast mode), computed twice: (jacobians, reentrant, sizes_ok, types_ok)."""
    _, diff_inputs = _diff_inputs(inputs)

    def rows():
        if v is None:
            return _vjp_rows(output, diff_inputs, _one_hot_grad_outputs(output))
        return _vjp_rows(output, diff_inputs, [v.reshape(output.shape)])

    jacobians1, sizes_ok, types_ok = _stack_rows(rows(), diff_inputs)
    jacobians2, _, _ = _stack_rows(rows(), diff_inputs)
    reentrant = all(j1.numel() == 0 or _max_abs_diff(j1, j2).item() <= nondet_tol
                    for j1, j2 in zip(jacobians1, jacobians2))
    return jacobians1, reentrant, sizes_ok, types_ok


def _check_analytical_jacobian_attributes(inputs, output, nondet_tol, check_grad_dtypes, v=None):
    """The analytical Jacobians (see above), once they pass the shape, dtype and determinism checks."""
    jacobians, reentrant, sizes_ok, types_ok = _analytical_jacobian_twice(inputs, output, nondet_tol, v)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
            "gives different values, although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return jacobians


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """PyTorch's public form: (jacobians, reentrant, sizes_ok, types_ok) of one output, without raising."""
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    jacobians, reentrant, sizes_ok, types_ok = _analytical_jacobian_twice(_as_tuple(inputs), output, nondet_tol)
    return tuple(jacobians), reentrant, sizes_ok, types_ok


# ---- slow mode: whole Jacobians ---------------------------------------------------------------------------


def _get_notallclose_msg(analytical, numerical, output_idx, input_idx):
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _numerical_per_output(func, inputs, func_out, eps):
    """numerical[k][i]: the numerical Jacobian of the k-th *differentiable* output for input i."""
    float_outs = [o for o in _as_tuple(func_out) if _is_float_tensor(o)]
    per_output = zip(*_get_numerical_jacobian(func, inputs, func_out, eps))    # [input][output] -> [output][input]
    return [nj for o, nj in zip(float_outs, per_output) if o.requires_grad]


def _check_no_differentiable_outputs(func, inputs, func_out, eps):
    # No output requires grad: then the function must really be constant in its inputs.
    for per_output in _get_numerical_jacobian(func, inputs, func_out, eps):
        for jac in per_output:
            if jac.ne(0).sum().item() > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol):
    if not outputs:
        return _check_no_differentiable_outputs(func, inputs, func_out, eps)
    numerical = _numerical_per_output(func, inputs, func_out, eps)
    for i, o in enumerate(outputs):
        analytical = _check_analytical_jacobian_attributes(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_get_notallclose_msg(a, n, i, j))
    return True


# ---- fast mode: one random projection v^T J u -------------------------------------------------------------

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _vec_from_tensor(x, generator):
    """A random unit vector with one entry per element of `x` (uniform draws in float32, as PyTorch)."""
    ops = _ops()
    # drawn on the cpu with the cpu generator, then moved to x's device, as PyTorch does
    vec = ops.rand(x.numel(), generator=generator, device="cpu").to(x.dtype).to(x.device)
    with no_grad():
        return vec / (vec * vec).sum().sqrt()


def _make_vectors(inp_tensors, outputs):
    # a generator of our own, with its default seed: the user's random state is left alone
    g = importlib.import_module("teachtorch.ops.random").Generator()
    all_u = [_vec_from_tensor(inp, g) for inp in inp_tensors]
    all_v = [_vec_from_tensor(out, g) for out in outputs]
    return all_v, all_u


def _get_numerical_jvps(func, inputs, inp_idx, u, eps):
    """`J u` for every float output, by one central difference along u (the whole input nudged at once)."""
    x = inputs[inp_idx].data
    delta = u.reshape(x.shape) * eps
    return _compute_numerical_gradient(_float_outputs_fn(func, inputs), x, delta, eps)


def _get_numerical_vJu(func, inputs, inp_indices, func_out, all_u, all_v, eps):
    """vJu[i][k] = v_k . (J_ki u_i), for input i and differentiable output k."""
    float_outs = [o for o in _as_tuple(func_out) if _is_float_tensor(o)]
    result = []
    for inp_idx, u in zip(inp_indices, all_u):
        jvps = [Ju for o, Ju in zip(float_outs, _get_numerical_jvps(func, inputs, inp_idx, u, eps))
                if o.requires_grad]
        with no_grad():
            result.append([(v * Ju).sum() for v, Ju in zip(all_v, jvps)])
    return result


def _check_no_differentiable_outputs_fast(func, inputs, inp_indices, all_u, eps, nondet_tol):
    for inp_idx, u in zip(inp_indices, all_u):
        for jvp in _get_numerical_jvps(func, inputs, inp_idx, u, eps):
            if jvp.numel() != 0 and jvp.abs().max().item() > nondet_tol:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _adjusted_atol(atol, u, v):
    # Elementwise |a - n| <= atol for every entry adds up, through v^T (.) u, to atol * sum(u) * sum(v).
    return atol * float(u.sum()) * float(v.sum())


def _run_slow_mode_and_get_error(func, inputs, func_out, outputs, input_idx, output_idx, rtol, atol, eps):
    """The report of a fast-mode failure: the whole Jacobians of that (input, output) pair."""
    slow_numerical = _numerical_per_output(func, inputs, func_out, eps)[output_idx][input_idx]
    slow_analytical = _check_analytical_jacobian_attributes(
        inputs, outputs[output_idx], nondet_tol=math.inf, check_grad_dtypes=False)[input_idx]
    slow_max_diff = (_max_abs_diff(slow_numerical, slow_analytical) if slow_numerical.numel()
                     else slow_numerical.new_zeros(()))
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed \n"
           "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
           "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
           f"Numerical:\n {slow_numerical}\n"
           f"Analytical:\n{slow_analytical}\n\n"
           f"The max per-element difference (slow mode) is: {slow_max_diff}.\n")
    if _allclose(slow_analytical, slow_numerical, rtol, atol):
        msg += FAST_FAIL_SLOW_OK_MSG      # slow gradcheck would have passed
    return msg


def _fast_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol):
    inp_indices, inp_tensors = _diff_inputs(inputs)
    all_v, all_u = _make_vectors(inp_tensors, outputs)
    numerical_vJu = _get_numerical_vJu(func, inputs, inp_indices, func_out, all_u, all_v, eps)
    if not outputs:
        _check_no_differentiable_outputs_fast(func, inputs, inp_indices, all_u, eps, nondet_tol)
    # analytical: one backward per output with grad_output v gives v^T J; dot it with each u
    analytical_vJu = []
    for output, v in zip(outputs, all_v):
        vJs = _check_analytical_jacobian_attributes(inputs, output, nondet_tol, check_grad_dtypes, v=v)
        with no_grad():
            analytical_vJu.append([(vJ.reshape(-1) * u).sum() for vJ, u in zip(vJs, all_u)])
    for i, numerical_for_input in enumerate(numerical_vJu):
        for j, n in enumerate(numerical_for_input):
            a = analytical_vJu[j][i]
            if not _allclose(a, n, rtol, _adjusted_atol(atol, all_u[i], all_v[j])):
                report = _run_slow_mode_and_get_error(func, inputs, func_out, outputs, i, j, rtol, atol, eps)
                raise GradcheckError(_get_notallclose_msg(a, n, j, i) + report)
    return True


# ---- the other checks -------------------------------------------------------------------------------------


def _test_backward_mul_by_grad_output(outputs, inputs, masked):
    """A zero grad_output must give zero gradients, of the input's dtype and size."""
    ops = _ops()
    _, diff_inputs = _diff_inputs(inputs)
    grads = _autograd_grad(outputs, diff_inputs, [ops.zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if masked:
            if not ops.allclose(gi, ops.zeros_like(gi)):
                raise GradcheckError("backward not multiplied by grad_output")
        elif not gi.eq(0).all().item():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype is not di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.shape != di.shape:
            raise GradcheckError("grad is incorrect size")
    return True


class UndefinedGradBackward(Node):
    """Sends an *undefined* (None) gradient on, whatever it receives (PyTorch's C++ `UndefinedGradBackward`)."""

    _cpp_node = True      # its name() is "torch::autograd::UndefinedGradBackward", as in PyTorch

    def apply(self, grads):
        return [None]


def _undefined_grad(t):
    """Identity forward whose backward makes the incoming gradient of `t`'s node undefined
    (PyTorch's torch._C._functions.UndefinedGrad()(t)): nodes below it must cope with a missing gradient."""
    node = UndefinedGradBackward([gradient_edge(t)])
    with no_grad():
        out = t.clone()
    set_history([out], node)
    return out


def _test_undefined_backward_mode(func, outputs, inputs):
    _, diff_inputs = _diff_inputs(inputs)
    ops = _ops()

    def warn_bc_breaking():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by "
                      "default, but it may break existing callers of this function. If this is true for you, "
                      'you can call this function with "check_undefined_grad=False" to disable the feature',
                      stacklevel=2)

    def check_undefined_grad_support(output_to_check):
        grads_output = [ops.zeros_like(o) for o in output_to_check]
        try:
            grads_input = _autograd_grad(output_to_check, diff_inputs, grads_output, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError('Expected backward function to handle undefined output grads. Please look at '
                                 '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
                                 ) from e
        for gi in grads_input:
            if gi is not None and not gi.eq(0).all().item():
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are undefined or "
                    'zero. Please look at "Notes about undefined output gradients" in '
                    '"tools/autograd/derivatives.yaml"')
        return True

    # every output's gradient undefined at once, then (with several outputs) one at a time
    outputs_to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]]
    if len(outputs_to_check[0]) > 1:
        for undef_idx in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            outputs_to_check.append([_undefined_grad(o) if k == undef_idx else o for k, o in enumerate(outs)])
    return all(check_undefined_grad_support(o) for o in outputs_to_check)


def _not_available(option, why):
    raise NotImplementedError(f"{option}=True is not supported: {why}, which teachtorch does not have")


# ---- entry points -----------------------------------------------------------------------------------------


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Check the gradients of `func` at `inputs` (a tensor or a tuple; non-tensors are passed through)
    against finite differences, for every input that requires grad. Returns True, or raises
    GradcheckError (returns False with raise_exception=False)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_forward_ad:
        _not_available("check_forward_ad", "it needs forward-mode AD")
    if check_batched_grad:
        _not_available("check_batched_grad", "it needs vmap (batched gradients)")
    if check_batched_forward_grad:
        _not_available("check_batched_forward_grad", "it needs vmap and forward-mode AD")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes, fast_mode, masked)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                      fast_mode, masked):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    check = _fast_gradcheck if fast_mode else _slow_gradcheck
    check(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    _test_backward_mul_by_grad_output(outputs, tupled_inputs, masked)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def _make_grad_output(x, noncontiguous):
    """torch.testing.make_tensor(x.shape, low=-1, high=1, requires_grad=True): uniform in [-1, 1), drawn
    from the default generator (so `manual_seed` makes it reproducible)."""
    ops = _ops()
    dtype = x.dtype if _is_float_tensor(x) else _dtype.float64
    shape = tuple(x.shape)
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:     # twice as wide in the last dim, then every other element from index 1
        shape = shape[:-1] + (2 * shape[-1],)
    t = ops.empty(shape, dtype=dtype).uniform_(-1, 1)
    if noncontiguous:
        t = t[..., 1::2]
    return t.requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """Check second derivatives: gradcheck of `(inputs, grad_outputs) -> autograd.grad(func(inputs), inputs,
    grad_outputs, create_graph=True)`. Random grad_outputs (uniform in [-1, 1)) are made when none are given."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    if check_fwd_over_rev:
        _not_available("check_fwd_over_rev", "it needs forward-mode AD")
    if check_batched_grad:
        _not_available("check_batched_grad", "it needs vmap (batched gradients)")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_make_grad_output(x, gen_non_contig_grad_outputs) for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_indices = {i for i, x in enumerate(tupled_inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        # inputs first, grad_outputs last: gradcheck differentiates with respect to both
        input_args = tuple(x.requires_grad_() if i in diff_input_indices else x
                           for i, x in enumerate(args[:len(args) - num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                          for i, x in enumerate(args[len(args) - num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_indices)
        grad_inputs = _autograd_grad(outputs, diff_input_args, grad_outs, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     fast_mode=fast_mode, masked=masked)
