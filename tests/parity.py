"""The parity harness: run the same case on teachtorch and on PyTorch CPU, and compare everything.

    check(lambda lib, x, y: lib.add(x, y, alpha=2), P(a), P(b, "permuted"))

`fn(lib, *args)` is called twice, with `lib` = teachtorch then torch, and each `P(...)` argument turned into
that library's tensor with the *same memory layout* (contiguous, permuted, sliced with steps, offset,
expanded). Results are compared on values, dtype, shape, strides, storage offset, contiguity, and whether
they share storage with an input; if torch raises, teachtorch must raise the same error type, and the same
message unless `msg=False`.

`check_inplace(fn, P(...), ...)` puts the first argument inside a larger storage filled with sentinels, runs
the in-place `fn` on both, and compares the *whole* storage: values inside the view, and the untouched
sentinels outside it. It also checks that `fn` returned the target itself, kept its storage and strides,
and bumped its version exactly once.

Hypothesis strategies: `layouts()` draws a layout name, `shapes()` a shape, `inputs(...)` a whole `P`.
`Draws(...)` stands for `st.data()` in an `@example(...)` that pins a failure a random search once found.
"""

import math
import re

import numpy as np
import torch
from hypothesis import strategies as st

import teachtorch as tt

LAYOUTS = ("contiguous", "permuted", "sliced", "offset", "expanded")

TORCH_DTYPE = {d.name: getattr(torch, d.name) for d in tt._dtype.ALL_DTYPES}
TT_DTYPE = {v: tt._dtype._lookup(k) for k, v in TORCH_DTYPE.items()}


def device_name(t):
    """A tensor's device type as PyTorch's cpu run sees it: a teachtorch tensor on the default device (cuda
    in the `[cuda]` run of a device-generic test) reads "cpu", like torch's result; others keep theirs."""
    if isinstance(t, tt.Tensor) and t.device.type == tt.get_default_device().type:
        return "cpu"
    return t.device.type


def as_on_cpu(message):
    """A teachtorch message as torch's cpu run words it: in the `[cuda]` run of a device-generic test, tensor
    types are named torch.cuda.FloatTensor and tensors print `device='cuda:0'`; torch's cpu run has neither."""
    if tt.get_default_device().type != "cuda":
        return message
    message = re.sub(r"device='cuda:0',\s*", "", message.replace("torch.cuda.", "torch."))   # more follows
    return re.sub(r",\s*device='cuda:0'", "", message)                                        # the last one


def dtype_name(d):
    return str(d).replace("torch.", "")


class P:
    """An input given as NumPy values plus a layout; `build(lib)` makes it in either library.

    The values the tensor shows are `self.values` in every layout (for "expanded" they are first made
    constant along the expanded dim, so that an expanded view can show them).
    """

    def __init__(self, values, layout="contiguous", dtype=None, requires_grad=False, seed=0):
        values = np.asarray(values)
        if dtype is not None:
            values = values.astype(np.dtype(dtype_name(dtype)) if not isinstance(dtype, str) else dtype)
        self.layout = layout
        self.requires_grad = requires_grad
        self.seed = seed
        rng = np.random.default_rng(seed)
        self.perm = tuple(rng.permutation(values.ndim)) if values.ndim else ()
        self.expand_dim = None
        if layout == "expanded" and values.ndim:
            d = int(np.argmax(values.shape))   # expand along the largest dim
            self.expand_dim = d
            if values.shape[d] == 0:           # all dims empty: expand a size-1 dim to size 0
                self.expand_src = np.zeros(values.shape[:d] + (1,) + values.shape[d + 1:], values.dtype)
            else:
                self.expand_src = np.take(values, [0], axis=d)
            values = np.broadcast_to(self.expand_src, values.shape).copy()
        self.values = values

    def build(self, lib):
        v = self.values
        dt = TORCH_DTYPE[v.dtype.name] if lib is torch else tt._dtype.from_numpy_dtype(v.dtype)
        # np.array(..., order="C") lays strides out afresh (ascontiguousarray may keep odd strides on size-1 dims)
        mk = lambda a: lib.tensor(np.array(a, order="C", copy=True), dtype=dt)
        if self.layout == "contiguous" or v.ndim == 0:
            t = mk(v)
        elif self.layout == "permuted":
            # store the data with dims in another order, then permute back: same values, permuted strides
            inv = np.argsort(self.perm)
            t = mk(v.transpose(self.perm)).permute(*[int(i) for i in inv])
        elif self.layout == "sliced":
            # every dim stepped by 2 inside a bigger buffer, starting at index 1
            big = np.zeros(tuple(2 * s + 1 for s in v.shape), dtype=v.dtype)
            big[tuple(slice(1, None, 2) for _ in v.shape)] = v
            t = mk(big)[tuple(slice(1, None, 2) for _ in v.shape)]
        elif self.layout == "offset":
            flat = np.concatenate([np.zeros(3, dtype=v.dtype), v.ravel()])
            t = mk(flat)[3:].view(*v.shape) if v.size else mk(flat)[3:3].view(*v.shape)
        elif self.layout == "expanded":
            t = mk(self.expand_src).expand(*v.shape)
        else:
            raise ValueError(self.layout)
        if self.requires_grad:
            t.requires_grad_(True)
        return t

    def __repr__(self):
        return f"P(shape={self.values.shape}, dtype={self.values.dtype}, layout={self.layout})"


def _build(arg, lib):
    if isinstance(arg, P):
        return arg.build(lib)
    if isinstance(arg, (list, tuple)) and any(isinstance(a, P) for a in arg):
        return type(arg)(_build(a, lib) for a in arg)
    if isinstance(arg, tt.dtype) and lib is torch:
        return TORCH_DTYPE[arg.name]
    return arg


# ---- comparing results ----------------------------------------------------------------------------------


def assert_same(a, b, *, rtol=None, atol=None, strides=True, path="result", equal_nan=True, same_device=True):
    """Compare a teachtorch result `a` with a torch result `b`, recursively for tuples and lists.

    `same_device`: the result is on the device the test runs on (the default device); False for cases that
    move data to the cpu on purpose (`x.cpu()`)."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, tt.Tensor), f"{path}: expected a Tensor, got {type(a).__name__}"
        assert dtype_name(a.dtype) == dtype_name(b.dtype), f"{path}: dtype {a.dtype} != {b.dtype}"
        assert tuple(a.shape) == tuple(b.shape), f"{path}: shape {tuple(a.shape)} != {tuple(b.shape)}"
        # a device-generic test on cuda (conftest.py): results stay on the GPU, as torch's stay on its cpu
        assert not same_device or device_name(a) == b.device.type, (
            f"{path}: on device {a.device}, expected {tt.get_default_device()}")
        if strides and b.numel() > 1:
            assert a.stride() == b.stride(), f"{path}: strides {a.stride()} != {b.stride()} (shape {tuple(b.shape)})"
            assert a.is_contiguous() == b.is_contiguous(), f"{path}: is_contiguous differs"
        av = a.detach().numpy() if a.device.type == "cpu" else a.detach().cpu().numpy()
        # (torch may return an efficient "ZeroTensor" for a gradient that is known to be zero)
        bv = np.zeros(tuple(b.shape), dtype_name(b.dtype)) if b._is_zerotensor() else b.detach().numpy()
        if b.dtype.is_floating_point:
            r = rtol if rtol is not None else {torch.float16: 1e-3, torch.float32: 1.3e-6, torch.float64: 1e-7}[b.dtype]
            at = atol if atol is not None else {torch.float16: 1e-3, torch.float32: 1e-5, torch.float64: 1e-7}[b.dtype]
            np.testing.assert_allclose(av.astype(np.float64), bv.astype(np.float64), rtol=r, atol=at,
                                       equal_nan=equal_nan, err_msg=path)
        else:
            np.testing.assert_array_equal(av, bv, err_msg=path)
        assert a.requires_grad == b.requires_grad, f"{path}: requires_grad {a.requires_grad} != {b.requires_grad}"
        return
    if isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)), f"{path}: expected a sequence, got {type(a).__name__}"
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, rtol=rtol, atol=atol, strides=strides, path=f"{path}[{i}]", equal_nan=equal_nan,
                        same_device=same_device)
        return
    if isinstance(b, torch.Size):
        assert tuple(a) == tuple(b), f"{path}: {a} != {b}"
        return
    if isinstance(b, torch.dtype):
        assert dtype_name(a) == dtype_name(b), f"{path}: {a} != {b}"
        return
    if isinstance(b, float) and math.isnan(b):
        assert isinstance(a, float) and math.isnan(a), f"{path}: {a} != nan"
        return
    if isinstance(b, float):
        assert a == b or abs(a - b) <= 1e-6 * max(1.0, abs(b)), f"{path}: {a} != {b}"
        return
    assert a == b, f"{path}: {a!r} != {b!r}"


def _shares(result, inputs, lib):
    """For each input tensor: does the result (or its first tensor) share its storage?"""
    r = result[0] if isinstance(result, (tuple, list)) and result else result
    if not isinstance(r, (tt.Tensor, torch.Tensor)):
        return None
    out = []
    for x in inputs:
        if isinstance(x, (tt.Tensor, torch.Tensor)):
            if lib is torch:
                out.append(r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() and r.numel() > 0)
            else:
                out.append(r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() and r.numel() > 0)
    return out


def check(fn, *args, msg=True, rtol=None, atol=None, strides=True, offset=True, share=True, same_device=True,
          **kwargs):
    """Run `fn(lib, *args, **kwargs)` on both libraries and compare results or errors."""
    tt_args = [_build(a, tt) for a in args]
    th_args = [_build(a, torch) for a in args]
    tt_kwargs = {k: _build(v, tt) for k, v in kwargs.items()}
    th_kwargs = {k: _build(v, torch) for k, v in kwargs.items()}
    try:
        expected = fn(torch, *th_args, **th_kwargs)
    except Exception as e:  # torch refused: teachtorch must refuse the same way
        try:
            got = fn(tt, *tt_args, **tt_kwargs)
        except Exception as f:
            assert isinstance(f, type(e)) or type(f).__name__ == type(e).__name__, (
                f"error type {type(f).__name__}({f}) != {type(e).__name__}({e})")
            if msg is True:
                assert as_on_cpu(str(f)) == str(e), f"error message:\n  got      {f}\n  expected {e}"
            elif isinstance(msg, str):
                assert msg in str(f), f"error message {f!r} lacks {msg!r}"
            return e
        raise AssertionError(f"torch raised {type(e).__name__}({e}) but teachtorch returned {got!r}")
    got = fn(tt, *tt_args, **tt_kwargs)
    assert_same(got, expected, rtol=rtol, atol=atol, strides=strides, same_device=same_device)
    if offset and isinstance(expected, torch.Tensor) and expected.numel() > 0:
        # the offset only matters for a view; a fresh result starts at 0 in both
        assert got.storage_offset() == expected.storage_offset(), (
            f"storage_offset {got.storage_offset()} != {expected.storage_offset()}")
    if share:
        assert _shares(got, tt_args, tt) == _shares(expected, th_args, torch), "aliasing (shared storage) differs"
    return got


# ---- in-place writes into every layout -------------------------------------------------------------------


def _sentinel(dtype):
    return np.nan if np.dtype(dtype).kind == "f" else (7 if np.dtype(dtype).kind in "iu" else True)


def build_in_sentinel_storage(p, lib):
    """The input `p` as a view inside a bigger storage whose other elements hold a sentinel.

    Returns (view, base), base being a contiguous 1-D tensor over the whole storage.
    """
    v = p.values
    n_pad = 5
    numel = max(v.size, 1)
    span = 2 * numel + 2 * n_pad + 1
    dt = TORCH_DTYPE[v.dtype.name] if lib is torch else tt._dtype.from_numpy_dtype(v.dtype)
    base = lib.full((span,), _sentinel(v.dtype).item() if isinstance(_sentinel(v.dtype), np.generic) else
                    _sentinel(v.dtype), dtype=dt)
    shape = v.shape
    contiguous = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        contiguous[d] = contiguous[d + 1] * max(shape[d + 1], 1)
    if p.layout == "permuted" and v.ndim > 1:
        inv = np.argsort(p.perm)
        pshape = [shape[i] for i in p.perm]
        pstr = [1] * len(shape)
        for d in range(len(shape) - 2, -1, -1):
            pstr[d] = pstr[d + 1] * max(pshape[d + 1], 1)
        strides = [pstr[int(i)] for i in inv]
        off = n_pad
    elif p.layout == "sliced":
        strides = [2 * s for s in contiguous]
        off = n_pad
    else:  # contiguous and offset (expanded targets are tested separately: writing into them must fail)
        strides = contiguous
        off = n_pad if p.layout == "offset" else 0
    view = lib.as_strided(base, shape, strides, off)
    view.copy_(lib.tensor(np.array(v, order="C", copy=True), dtype=dt))
    return view, base


def check_inplace(fn, target, *args, msg=True, rtol=None, atol=None, **kwargs):
    """Run in-place `fn(lib, target, *args)` with `target` inside a sentinel-filled storage; compare all."""
    assert isinstance(target, P)
    results = {}
    for lib in (torch, tt):
        view, base = build_in_sentinel_storage(target, lib)
        before = (view.untyped_storage().data_ptr(), view.stride(), view.storage_offset(), view._version)
        a = [_build(x, lib) for x in args]
        k = {key: _build(v, lib) for key, v in kwargs.items()}
        try:
            out = fn(lib, view, *a, **k)
        except Exception as e:
            results[lib] = ("error", e, base.clone())
            continue
        results[lib] = ("ok", (out, view, before), base)
    kind_t, res_t, base_t = results[torch]
    kind_m, res_m, base_m = results[tt]
    if kind_t == "error":
        assert kind_m == "error", f"torch raised {res_t!r}; teachtorch did not"
        assert type(res_m).__name__ == type(res_t).__name__, f"{type(res_m).__name__}({res_m}) != {type(res_t).__name__}({res_t})"
        if msg is True:
            assert as_on_cpu(str(res_m)) == str(res_t), f"error message:\n  got      {res_m}\n  expected {res_t}"
        # a failed in-place op leaves its target unchanged
        assert_same(base_m, base_t, rtol=rtol, atol=atol, path="storage after a failed in-place op")
        return
    assert kind_m == "ok", f"teachtorch raised {res_m!r}"
    out, view, before = res_m
    assert out is view, "an in-place op must return its target itself"
    assert (view.untyped_storage().data_ptr(), view.stride(), view.storage_offset()) == before[:3], \
        "the target's storage, strides or offset changed"
    assert view._version == before[3] + 1, f"version bumped {view._version - before[3]} times, not once"
    # the whole storage: the values inside the view, and the sentinels outside it
    assert_same(base_m, base_t, rtol=rtol, atol=atol, path="whole storage")


# ---- hypothesis strategies -------------------------------------------------------------------------------


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=5):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


def layouts(allow_expanded=True):
    return st.sampled_from(LAYOUTS if allow_expanded else LAYOUTS[:-1])


@st.composite
def inputs(draw, shape=None, dtype="float32", allow_expanded=True, low=-3, high=3, layout=None):
    """A `P` with random values of `dtype`, random layout, and `shape` (drawn when None)."""
    shape = draw(shapes()) if shape is None else shape
    layout = draw(layouts(allow_expanded)) if layout is None else layout
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        values = rng.random(shape) > 0.5
    elif np.dtype(dtype).kind in "iu":
        lo = max(low, np.iinfo(dtype).min)
        values = rng.integers(lo, high + 1, size=shape).astype(dtype)
    else:
        values = (rng.random(shape) * (high - low) + low).astype(dtype)
    return P(values, layout, seed=seed)


def rand(*shape, dtype="float32", layout="contiguous", seed=0, low=-3, high=3):
    """A `P` with reproducible random values."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        values = rng.random(shape) > 0.5
    elif np.dtype(dtype).kind in "iu":
        values = rng.integers(max(low, np.iinfo(dtype).min), high + 1, size=shape).astype(dtype)
    else:
        values = (rng.random(shape) * (high - low) + low).astype(dtype)
    return P(values, layout, seed=seed)


# ---- gradients ---------------------------------------------------------------------------------------------


def _float_outputs(out):
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o for o in outs if o is not None and o.dtype.is_floating_point and o.requires_grad]


def _grad_outputs(outs, lib, seed):
    rng = np.random.default_rng(seed + 1000)
    vals = [rng.standard_normal(tuple(o.shape)).astype(dtype_name(o.dtype)) for o in outs]
    return [lib.tensor(v, dtype=o.dtype) for v, o in zip(vals, outs)]


def check_grad(fn, *args, name=True, gradcheck=True, gradgradcheck=True, double=True, rtol=None, atol=None,
               seed=0, nondiff=(), check_grad_strides=True, gc_kwargs=None):
    """Gradient parity: run `fn(lib, *args)` with every float `P` argument requiring grad, on both libraries.

    Checks, in order:
    * the forward result (values, dtype, shape; strides too) and the output's grad_fn name (`name=True`);
    * first derivatives: `autograd.grad` with the same random grad_outputs gives the same gradient for every
      input (values, shape, dtype), and `.backward()` fills `.grad` with the same values and strides;
    * second derivatives (`double=True`): the gradient of <grads, random weights> with respect to the inputs,
      computed with create_graph=True, matches torch's (this is what higher-order gradients rest on);
    * `gradcheck` and `gradgradcheck` of teachtorch itself in float64 (numerical vs analytical Jacobians),
      on the same layouts.
    `nondiff` lists argument positions that must not be marked requires_grad (e.g. a mask given as a P).
    """
    def build(lib, dtype_override=None):
        out = []
        for i, a in enumerate(args):
            if isinstance(a, P) and a.values.dtype.kind == "f" and i not in nondiff:
                q = P(a.values if dtype_override is None else a.values.astype(dtype_override), a.layout, seed=a.seed)
                t = q.build(lib)
                t.requires_grad_(True)
                out.append(t)
            else:
                out.append(_build(a, lib))
        return out

    th_args = build(torch)
    tt_args = build(tt)
    th_inputs = [t for t in th_args if isinstance(t, torch.Tensor) and t.requires_grad]
    tt_inputs = [t for t in tt_args if isinstance(t, tt.Tensor) and t.requires_grad]
    try:
        expected = fn(torch, *th_args)
    except Exception as e:
        try:
            fn(tt, *tt_args)
        except Exception as f:
            assert type(f).__name__ == type(e).__name__, f"error type {type(f).__name__}({f}) != {type(e).__name__}({e})"
            return
        raise AssertionError(f"torch raised {type(e).__name__}({e}) but teachtorch did not")
    got = fn(tt, *tt_args)
    # (check_grad_strides=False also skips the forward result's strides: the tests that pass it do so because
    # a dim of size 1 makes the layout arbitrary, and the forward result is compared in full by `check`)
    assert_same(got, expected, rtol=rtol, atol=atol, strides=check_grad_strides)
    th_outs, tt_outs = _float_outputs(expected), _float_outputs(got)
    assert len(th_outs) == len(tt_outs), "a different number of outputs require grad"
    if not th_outs:
        return
    if name:
        assert tt_outs[0].grad_fn.name() == th_outs[0].grad_fn.name(), (
            f"grad_fn {tt_outs[0].grad_fn.name()} != {th_outs[0].grad_fn.name()}")

    # first derivatives
    th_v, tt_v = _grad_outputs(th_outs, torch, seed), _grad_outputs(tt_outs, tt, seed)
    th_g = torch.autograd.grad(th_outs, th_inputs, th_v, allow_unused=True, retain_graph=True, create_graph=double)
    tt_g = tt.autograd.grad(tt_outs, tt_inputs, tt_v, allow_unused=True, retain_graph=True, create_graph=double)
    for i, (a, b) in enumerate(zip(tt_g, th_g)):
        if b is None:
            assert a is None or not a.detach().numpy().any(), f"grad[{i}]: torch has none, teachtorch {a}"
            continue
        assert a is not None, f"grad[{i}]: teachtorch has none"
        assert_same(a.detach(), b.detach(), rtol=rtol, atol=atol, strides=False, path=f"grad[{i}]")

    # .backward() accumulates the same values into .grad, laid out like torch's
    for t in th_inputs:
        t.grad = None
    torch.autograd.backward(th_outs, th_v, retain_graph=True)
    tt.autograd.backward(tt_outs, tt_v, retain_graph=True)
    for i, (a, b) in enumerate(zip(tt_inputs, th_inputs)):
        if b.grad is None:
            continue
        assert a.grad is not None, f".grad of input {i} not set"
        assert_same(a.grad, b.grad, rtol=rtol, atol=atol, strides=check_grad_strides, path=f"input[{i}].grad")

    # second derivatives: d/dx <grad, w>
    if double:
        pairs = [(a, b) for a, b in zip(tt_g, th_g) if b is not None and b.requires_grad]
        if pairs:
            rng = np.random.default_rng(seed + 2000)
            ws = [rng.standard_normal(tuple(b.shape)).astype(dtype_name(b.dtype)) for _, b in pairs]
            th_s = sum((b * torch.tensor(w)).sum() for (_, b), w in zip(pairs, ws))
            tt_s = sum((a * tt.tensor(w)).sum() for (a, _), w in zip(pairs, ws))
            th_gg = torch.autograd.grad(th_s, th_inputs, allow_unused=True)
            assert tt_s.requires_grad, "the gradient was not recorded with create_graph=True"
            tt_gg = tt.autograd.grad(tt_s, tt_inputs, allow_unused=True)
            for i, (a, b) in enumerate(zip(tt_gg, th_gg)):
                if b is None:
                    assert a is None or not a.detach().numpy().any(), f"grad-grad[{i}] should be zero"
                    continue
                assert a is not None, f"grad-grad[{i}]: teachtorch has none"
                assert_same(a.detach(), b.detach(), rtol=rtol if rtol is not None else 1e-4,
                            atol=atol if atol is not None else 1e-4, strides=False, path=f"grad-grad[{i}]")

    # gradcheck / gradgradcheck in float64, same layouts
    if gradcheck or gradgradcheck:
        args64 = build(tt, "float64")
        ins64 = [t for t in args64 if isinstance(t, tt.Tensor) and t.requires_grad]
        if any(0 in t.stride() for t in ins64):
            # gradcheck refuses stride-0 inputs (as torch's); check on a contiguous copy instead
            # (clone with contiguous_format: `.contiguous()` keeps the (0, 0) strides of an empty tensor)
            args64 = [t.detach().clone(memory_format=tt.contiguous_format).requires_grad_(True)
                      if isinstance(t, tt.Tensor) and t.requires_grad else t for t in args64]
        positions = [i for i, t in enumerate(args64) if isinstance(t, tt.Tensor) and t.requires_grad]

        def f(*xs):
            full = list(args64)
            for p, x in zip(positions, xs):
                full[p] = x
            out = fn(tt, *full)
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            return tuple(o for o in outs if o.dtype.is_floating_point)

        ins = tuple(args64[p] for p in positions)
        kw = dict(gc_kwargs or {})
        if gradcheck:
            assert tt.autograd.gradcheck(f, ins, **kw)
        if gradgradcheck:
            assert tt.autograd.gradgradcheck(f, ins, **kw)


# ---- pinned examples ---------------------------------------------------------------------------------------


class Draws:
    """What a test that draws with `st.data()` gets in an `@example(...)`: the values it would have drawn.

    Hypothesis cannot replay `data.draw(...)` calls in an explicit example, so a failure found on such a test
    is pinned as `@example(data=Draws(v1, v2, ...), ...)`: the test's `data.draw(strategy)` calls get v1, v2,
    ... in the order they are made, whatever the strategy. After the last value it starts again from the
    first, so the same example can run once per device ([cpu], then [cuda]).
    """

    def __init__(self, *values):
        self.values = values
        self._next = 0

    def draw(self, strategy, label=None):
        value = self.values[self._next]
        self._next = (self._next + 1) % len(self.values)
        return value

    def __repr__(self):
        return f"Draws{self.values!r}"
