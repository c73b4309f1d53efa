"""compare_backends: run the same code on two backends and find the first op where they disagree.

The bugs that real backends ship (a gradient wrong on one device, a non-contiguous output never written
back: shared/reference §5) are found the same way every time: run the same thing on a backend you trust and
on the one you test, and compare. Doing that by hand at the end of a model only says *that* something is off;
this tool says *where*:

    report = compare_backends(lambda model, x, y: F.cross_entropy(model(x), y), model, x, y,
                              reference="cpu", candidate="cuda")
    print(report)                 # one row per op, forward then backward, the first disagreement marked
    report.first_mismatch         # that op, or None
    report.assert_ok()            # AssertionError naming the op, for tests

How it works, in three steps:

1. The inputs are replicated on each backend with the same memory layout (strides, offset, aliasing between
   inputs); a `Module` among them is deep-copied and moved. The random seed is set the same for both runs.
2. The reference backend runs `fn`, and backward from its output, as usual: the end-to-end results.
3. The candidate backend runs `fn` and backward under a `TorchDispatchMode` (dispatch/python_mode.py), which
   sees every op that reaches a backend kernel, backward ops included. For each one it copies the op's
   inputs to the reference backend *before* the candidate runs it, runs the candidate, then replays the same
   op on the reference with those copies, and compares the outputs (and any argument the op writes, `(a!)`
   in its schema). Because each op is replayed on the candidate's own inputs, rounding differences do not
   pile up from op to op: the first op beyond tolerance is the one that is wrong, not just the first one to
   feel it. Random ops are replayed from the same generator state.

A "backend" is a device, optionally with kernels of your own registered for some ops on that side only
(`Backend("cpu", kernels={"addcmul_": broken})`): CPU against CPU with one deliberately broken kernel is
how the tests check this tool on a machine without a GPU, and how lesson 6 (lessons/06_devices.py) shows the MPS bug class.

PyTorch has the pieces (CrossRefMode in its test suite, `torch.testing._internal.common_device_type`'s
`test_compare_cpu`, which compares each OpInfo sample on cpu and on the device under test); this puts them
in one tool you can point at a training step.
"""

import copy
import math
from dataclasses import dataclass, field

import numpy as np

from .._device import as_device
from .._dispatch_key import DispatchKey
from .._tensor import Tensor
from ..autograd import backward as _autograd_backward
from ..autograd.grad_mode import no_grad
from ..dispatch import dispatcher
from ..dispatch.python_mode import TorchDispatchMode
from ..ops import random as _random


class Backend:
    """One side of a comparison: a device, and kernels to use on that side instead of the registered ones.

    `kernels` maps op names (`"addcmul_"`, `"aten::mm"`, `"add.Tensor"`) to functions called with the op's
    arguments, like `teachtorch.library.impl` kernels; they are in force only while this side runs an op.
    """

    def __init__(self, device="cpu", kernels=None, name=None):
        self.device = as_device(device)
        self.kernels = {}
        for op_name, fn in (kernels or {}).items():
            self.kernels[dispatcher.lookup(op_name)] = fn
        self.name = name or (f"{self.device} with your kernels for {', '.join(op.__name__ for op in self.kernels)}"
                             if self.kernels else str(self.device))

    def _enter(self):
        """Install this side's kernels (at its device's backend key); returns what to restore."""
        key = _BACKEND_KEY[self.device.type]
        saved = []
        for op, fn in self.kernels.items():
            saved.append((op, key, op.kernels.get(key)))
            dispatcher.impl(op, key, dispatcher.without_keyset(fn))
        return saved

    @staticmethod
    def _exit(saved):
        for op, key, previous in reversed(saved):
            if previous is None:
                op.kernels.pop(key, None)
                op._compute_table()
            else:
                dispatcher.impl(op, key, previous)

    def __repr__(self):
        return f"Backend({self.name!r})"


_BACKEND_KEY = {"cpu": DispatchKey.CPU, "cuda": DispatchKey.CUDA}


def _as_backend(b):
    return b if isinstance(b, Backend) else Backend(b)


# ---- the report ---------------------------------------------------------------------------------------------


@dataclass
class OpComparison:
    """One op as the candidate ran it, against the reference running the same op on the same inputs."""

    index: int
    section: str            # "fn" (while fn runs) or "backward" (the backward compare_backends runs)
    op: str                 # "aten.mm.default"
    shapes: str             # the inputs, e.g. "f32[8, 64], f32[64, 128]"
    max_abs: float          # largest |candidate - reference| over every output element
    max_rel: float          # largest |candidate - reference| / |reference|
    ok: bool
    note: str = ""          # what differs when it is not a number (shape, dtype, an error on one side)


@dataclass
class ResultComparison:
    """One end result: an output of `fn`, or a gradient of an input or a parameter."""

    name: str
    max_abs: float
    max_rel: float
    ok: bool
    note: str = ""


@dataclass
class BackendComparison:
    reference: str
    candidate: str
    rtol: float
    atol: float
    ops: list = field(default_factory=list)
    results: list = field(default_factory=list)
    error: Exception = None   # what the candidate raised, if it failed where the reference ran through

    @property
    def first_mismatch(self):
        """The first op, in the order the candidate ran them, whose results are beyond tolerance."""
        return next((o for o in self.ops if not o.ok), None)

    @property
    def ok(self):
        return self.error is None and all(o.ok for o in self.ops) and all(r.ok for r in self.results)

    def assert_ok(self):
        if not self.ok:
            raise AssertionError(self._summary())

    def _summary(self):
        bad = self.first_mismatch
        if bad is not None:
            return (f"{self.candidate} disagrees with {self.reference} first at op #{bad.index} ({bad.section}) "
                    f"{bad.op}({bad.shapes}): max abs diff {bad.max_abs:.3g}, max rel diff {bad.max_rel:.3g} "
                    f"(rtol={self.rtol:g}, atol={self.atol:g}){' ' + bad.note if bad.note else ''}")
        if self.error is not None:
            return f"the candidate raised {type(self.error).__name__}: {self.error}"
        worst = [r for r in self.results if not r.ok]
        if worst:
            r = worst[0]
            return (f"every op agrees, but {r.name} differs: max abs diff {r.max_abs:.3g}, max rel diff "
                    f"{r.max_rel:.3g} {r.note}")
        return f"{self.candidate} agrees with {self.reference} on all {len(self.ops)} ops"

    def __str__(self):
        lines = [f"compare_backends: reference {self.reference}, candidate {self.candidate} "
                 f"(rtol={self.rtol:g}, atol={self.atol:g})",
                 f"{'#':>4}  {'section':8}  {'op':34}  {'inputs':34}  {'max abs':>9}  {'max rel':>9}"]
        first = self.first_mismatch
        for o in self.ops:
            mark = "  <-- first disagreement" if o is first else ("  (differs)" if not o.ok else "")
            shapes = o.shapes if len(o.shapes) <= 34 else o.shapes[:31] + "..."
            lines.append(f"{o.index:>4}  {o.section:8}  {o.op:34}  {shapes:34}  {o.max_abs:9.3g}  "
                         f"{o.max_rel:9.3g}{mark}{' ' + o.note if o.note else ''}")
        lines.append("end results:")
        for r in self.results:
            lines.append(f"      {r.name:78}  {r.max_abs:9.3g}  {r.max_rel:9.3g}{'' if r.ok else '  (differs)'}"
                         f"{' ' + r.note if r.note else ''}")
        lines.append(self._summary())
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


# ---- comparing values ---------------------------------------------------------------------------------------


def _host(t):
    return np.asarray(t.detach()._host_array())


def _scale(b):
    """The largest finite |value| in a result (a tensor, or a tuple or list of them)."""
    if isinstance(b, Tensor):
        if not b.dtype.is_floating_point or b.numel() == 0:
            return 0.0
        y = np.abs(_host(b).astype(np.float64))
        y = y[np.isfinite(y)]
        return float(y.max()) if y.size else 0.0
    if isinstance(b, (tuple, list)):
        return max((_scale(x) for x in b), default=0.0)
    return 0.0


def _diff(a, b, rtol, atol, scale=None):
    """(max_abs, max_rel, ok, note) for two results of the same op or function. `atol` counts in units of
    `scale`: by default the largest |value| of the reference result, shared by the tensors of a tuple."""
    if isinstance(b, Tensor) or isinstance(a, Tensor):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
            return math.inf, math.inf, False, f"{type(a).__name__} vs {type(b).__name__}"
        if tuple(a.shape) != tuple(b.shape):
            return math.inf, math.inf, False, f"shape {list(a.shape)} vs {list(b.shape)}"
        if a.dtype is not b.dtype:
            return math.inf, math.inf, False, f"dtype {a.dtype} vs {b.dtype}"
        if a.numel() == 0:
            return 0.0, 0.0, True, ""
        x, y = _host(a), _host(b)
        if not a.dtype.is_floating_point:
            bad = x != y
            n = float(np.abs(x.astype(np.float64) - y.astype(np.float64)).max()) if bad.any() else 0.0
            return n, (math.inf if bad.any() else 0.0), not bad.any(), ""
        x, y = x.astype(np.float64), y.astype(np.float64)
        same_nan = np.isnan(x) & np.isnan(y)
        same_inf = (x == y) & np.isinf(x)
        d = np.where(same_nan | same_inf, 0.0, np.abs(x - y))
        d = np.where(np.isnan(d), np.inf, d)       # nan on one side only
        rel = d / np.maximum(np.abs(y), np.finfo(np.float64).tiny)
        finite = np.abs(np.where(np.isfinite(y), y, 0.0))
        # atol is relative to the result's scale: Adam's exp_avg_sq is ~1e-6 everywhere, and a fixed
        # atol of 1e-5 would let a kernel that never writes it pass
        scale = float(finite.max()) if scale is None else scale
        ok = bool((d <= atol * max(scale, 1e-30) + rtol * finite).all())
        return float(d.max()), float(np.where(d == 0, 0.0, rel).max()), ok, ""
    if isinstance(b, (tuple, list)) and isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return math.inf, math.inf, False, f"{len(a)} vs {len(b)} results"
        # one scale for the whole tuple: a conv's bias gradient before a BatchNorm is 0 up to rounding,
        # and its rounding is measured against the gradients beside it, not against itself
        worst, scale = (0.0, 0.0, True, ""), _scale(b) if scale is None else scale
        for x, y in zip(a, b):
            m, r, ok, note = _diff(x, y, rtol, atol, scale)
            worst = (max(worst[0], m), max(worst[1], r), worst[2] and ok, worst[3] or note)
        return worst
    same = a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    return (0.0, 0.0, True, "") if same else (math.inf, math.inf, False, f"{a!r} vs {b!r}")


def _shapes(args):
    from ..dispatch.trace import DTYPE_ABBRS
    parts = []
    for a in args:
        items = a if isinstance(a, (list, tuple)) else [a]
        for t in items:
            if isinstance(t, Tensor):
                parts.append(f"{DTYPE_ABBRS.get(t.dtype.name, t.dtype.name)}[{', '.join(map(str, t.shape))}]")
    return ", ".join(parts)


# ---- moving things to a backend, layout and aliasing kept ------------------------------------------------------


class _Replicator:
    """Copies tensors to a device with the same (sizes, strides, offset), and the same sharing: two tensors
    over one storage become two tensors over one (new) storage."""

    def __init__(self, device):
        self.device = device
        self.storages = {}     # id(source storage) -> flat tensor on the device

    def __call__(self, x):
        if isinstance(x, Tensor):
            return self.tensor(x)
        if isinstance(x, (list, tuple)):
            return type(x)(self(v) for v in x)
        return x

    def tensor(self, t):
        key = (id(t._storage), t.dtype)
        flat = self.storages.get(key)
        if flat is None:
            n = t._storage.nbytes() // t.dtype.itemsize
            source = Tensor._make(t._storage, 0, (n,), (1,), t.dtype)
            with no_grad():
                flat = self.storages[key] = source.detach().to(self.device, copy=True)
        with no_grad():
            return flat.as_strided(tuple(t.shape), t.stride(), t.storage_offset())

    def leaf(self, t):
        """A leaf on the device, with t's layout and requires_grad."""
        out = self.tensor(t).detach()
        return out.requires_grad_(t.requires_grad)


def _module_type():
    from ..nn.modules.module import Module
    return Module


def _prepare(inputs, side):
    """The inputs for one run on `side`: tensors replicated (leaves keep requires_grad), modules copied."""
    rep = _Replicator(side.device)
    Module = _module_type()
    out = []
    for x in inputs:
        if isinstance(x, Module):
            out.append(copy.deepcopy(x).to(side.device))
        elif isinstance(x, Tensor):
            out.append(rep.leaf(x) if x.requires_grad else rep.tensor(x))
        else:
            out.append(copy.deepcopy(x))
    return out


def _grads(inputs):
    """(name, gradient) of every input tensor that requires grad and of every module parameter."""
    Module = _module_type()
    found = []
    for i, x in enumerate(inputs):
        if isinstance(x, Module):
            for name, p in x.named_parameters():
                found.append((f"grad of input {i} ({type(x).__name__}) parameter {name}", p.grad))
        elif isinstance(x, Tensor) and x.requires_grad:
            found.append((f"grad of input {i}", x.grad))
    return found


def _backward_from(out):
    """Backward from every output of `fn` that requires grad, each seeded with ones."""
    roots = [t for t in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(t, Tensor) and t.requires_grad]
    if roots:
        _autograd_backward(roots, [r.new_ones(r.shape) for r in roots])


def _run(fn, args, backward):
    out = fn(*args)
    if backward:
        _backward_from(out)
    return out


# ---- the mode that replays each op on the reference ------------------------------------------------------------


class _CrossRef(TorchDispatchMode):
    def __init__(self, reference, candidate, rtol, atol, report):
        self.reference, self.candidate = reference, candidate
        self.rtol, self.atol, self.report = rtol, atol, report
        self.section = "fn"

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        rep = _Replicator(self.reference.device)
        ref_args = rep(list(args))                 # copies taken before the candidate may write its inputs
        random_op = any(a.type.startswith("Generator") for a in func.schema.arguments)
        cand_gen = _random.default_generator_of(self.candidate.device)
        ref_gen = _random.default_generator_of(self.reference.device)
        state = cand_gen.get_state() if random_op else None

        saved = self.candidate._enter()
        try:
            out = func(*args, **kwargs)
        except Exception as e:
            self.report.ops.append(OpComparison(len(self.report.ops), self.section, dispatcher.python_name(func.name),
                                                _shapes(args), math.inf, math.inf, False,
                                                f"the candidate raised {type(e).__name__}: {e}"))
            raise
        finally:
            Backend._exit(saved)

        after = cand_gen.get_state() if random_op else None
        own = ref_gen.get_state() if random_op and ref_gen is not cand_gen else None
        if random_op:
            ref_gen.set_state(state)              # replay the same draws
        saved = self.reference._enter()
        try:
            ref_out = func(*ref_args, **kwargs)
            ref_error = None
        except Exception as e:                   # the reference refuses what the candidate accepted
            ref_out, ref_error = None, e
        finally:
            Backend._exit(saved)
            if random_op:
                (cand_gen if ref_gen is cand_gen else ref_gen).set_state(after if ref_gen is cand_gen else own)

        name = dispatcher.python_name(func.name)
        if ref_error is not None:
            row = OpComparison(len(self.report.ops), self.section, name, _shapes(args), math.inf, math.inf, False,
                               f"the reference raised {type(ref_error).__name__}: {ref_error}")
        else:
            written = [(args[i], ref_args[i]) for i, a in enumerate(func.schema.arguments)
                       if a.is_mutable and isinstance(args[i], Tensor)]
            # the result and each argument written in place, each against its own scale
            diffs = [_diff(out, ref_out, self.rtol, self.atol)] + [
                _diff(g, w, self.rtol, self.atol) for g, w in written]
            m, r = max(d[0] for d in diffs), max(d[1] for d in diffs)
            ok, note = all(d[2] for d in diffs), next((d[3] for d in diffs if d[3]), "")
            row = OpComparison(len(self.report.ops), self.section, name, _shapes(args), m, r, ok, note)
        self.report.ops.append(row)
        return out


def compare_backends(fn, *inputs, reference="cpu", candidate="cuda", rtol=1e-4, atol=1e-5, backward=True,
                     seed=0):
    """Run `fn(*inputs)` (and backward from its outputs) on two backends and compare them op by op.

    `reference` and `candidate` are devices ("cpu", "cuda") or `Backend`s (a device plus kernels of your
    own for some ops). `inputs` may hold tensors (replicated with their layout; those that require grad stay
    leaves, and their gradients are compared), modules (copied to each device; parameter gradients are
    compared) and anything else (passed as it is). An element agrees when |candidate - reference| <=
    rtol * |reference| + atol * scale: float32 rounding for code that may add up in a different order,
    measured against the result's own scale. The scale is the largest |reference| of that result (of all its
    tensors, for an op that returns several, and of every gradient, for the gradients), so a value that is 0
    up to rounding, such as a conv's bias gradient before a BatchNorm, is not called a mismatch. If the
    candidate raises where the reference did not, the report keeps the ops up to there and `.error`.

    Returns a `BackendComparison`: `.ops` (every op the candidate ran, forward then backward, each against
    the reference replaying it on the same inputs), `.results` (fn's outputs and the gradients, end to end),
    `.first_mismatch`, `.ok`, `.assert_ok()`, and a printable table.
    """
    reference, candidate = _as_backend(reference), _as_backend(candidate)
    report = BackendComparison(reference.name, candidate.name, rtol, atol)

    _random.manual_seed(seed)
    ref_inputs = _prepare(inputs, reference)
    saved = reference._enter()
    try:
        ref_out = _run(fn, ref_inputs, backward)
    finally:
        Backend._exit(saved)

    _random.manual_seed(seed)
    cand_inputs = _prepare(inputs, candidate)
    mode = _CrossRef(reference, candidate, rtol, atol, report)
    try:
        with mode:
            out = fn(*cand_inputs)
            if backward:
                mode.section = "backward"
                _backward_from(out)
    except Exception as e:    # the candidate failed where the reference did not: the report says where
        report.error = e
        return report

    outs = out if isinstance(out, (tuple, list)) else [out]
    ref_outs = ref_out if isinstance(ref_out, (tuple, list)) else [ref_out]
    for i, (a, b) in enumerate(zip(outs, ref_outs)):
        report.results.append(ResultComparison(f"output {i}", *_diff(a, b, rtol, atol)))
    # gradients are measured against the largest gradient: one that is 0 up to rounding (a bias before a
    # BatchNorm) may round differently on each backend
    grads = [(name, g, h) for (name, g), (_, h) in zip(_grads(cand_inputs), _grads(ref_inputs))
             if g is not None or h is not None]
    scale = _scale([h for _, _, h in grads if isinstance(h, Tensor)])
    for name, g, h in grads:
        report.results.append(ResultComparison(name, *_diff(g, h, rtol, atol, scale)))
    for (name, a), (_, b) in zip(_states(cand_inputs), _states(ref_inputs)):
        report.results.append(ResultComparison(name, *_diff(a, b, rtol, atol)))
    return report


def _states(inputs):
    """What `fn` may have changed in place: every input tensor, every parameter and buffer of a module (an
    optimizer step inside `fn` shows up here)."""
    Module = _module_type()
    found = []
    for i, x in enumerate(inputs):
        if isinstance(x, Module):
            for name, t in x.state_dict().items():
                found.append((f"input {i} ({type(x).__name__}) {name} after fn", t))
        elif isinstance(x, Tensor):
            found.append((f"input {i} after fn", x))
    return found
