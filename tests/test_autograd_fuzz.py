"""A differential fuzzer of the autograd engine and of views + in-place ops, against PyTorch.

The per-op formulas are tested family by family elsewhere; this file tests how ops *combine*. Hypothesis
draws a small program: a list of steps over a pool of named tensors, e.g.

    ("leaf", (3, 4), "sliced", 7, True)      -> t0   a float64 leaf that requires grad, in a random layout
    ("clone", "t0")                          -> t1
    ("select", "t1", 0, 2)                   -> t2   a view of t1
    ("mul_", "t2", "t0", None)                       in place through the view: t1 now comes out of CopySlices
    ("exp", "t2")                            -> t4   t2 is stale: its grad_fn is rebuilt as AsStridedBackward0

A tiny interpreter runs the same program with lib=torch and lib=teachtorch. After every step both pools
must agree: values, shape, strides, offset, version counter, requires_grad, which tensor is whose base, and
for the step's own result also is_leaf and the grad_fn name. When torch raises (an in-place write into a
leaf, into a multi-output view, into an expanded tensor...), teachtorch must raise the same error at the same
step, and the program ends there for both.

At the end the program's tensors are combined into a scalar loss, and the engine is exercised on it:
autograd.grad with respect to intermediates, create_graph + a second derivative, backward with
retain_graph and then a second backward that accumulates, tensor hooks that scale gradients, retain_grad.
The same checks run on explicit programs at the bottom: regressions found by the fuzzer.
"""

import numpy as np
import pytest
import torch
from hypothesis import Phase, event, given, note, settings
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, assert_same
from teachtorch.autograd.derivative import FORMULAS

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

TOL = dict(rtol=1e-7, atol=1e-9)


# ---- the interpreter -------------------------------------------------------------------------------------


def make_index(lib, spec):
    """An index spec (a tuple of small tuples, printable in a repro) as a real index for `lib`."""
    out = []
    for item in spec:
        kind = item[0]
        if kind == "int":
            out.append(item[1])
        elif kind == "slice":
            out.append(slice(*item[1:]))
        elif kind == "none":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        elif kind == "idx":
            out.append(lib.tensor(item[1], dtype=lib.int64))
        elif kind == "mask":
            out.append(lib.tensor(item[1], dtype=lib.bool))
        else:
            raise ValueError(item)
    return tuple(out)


def _const(lib, shape, seed):
    values = np.random.default_rng(seed).uniform(-2, 2, shape)
    return lib.tensor(values, dtype=lib.float64)


def _slice(x, dim, start, stop, step):
    """x[:, :, start:stop:step], the slice on `dim` (the whole-dim `:` before it record nothing)."""
    return x[(slice(None),) * dim + (slice(start, stop, step),)]


def _hook(log, name, scale):
    """A tensor hook that scales the gradient and logs its call (with None for an output of a multi-output
    node that got no gradient: test_regression_hook_called_with_none)."""
    def hook(g):
        log.append((name, None if g is None else tuple(g.shape)))
        return None if g is None else g * scale
    return hook


# Ops that make new tensors: name -> fn(lib, *args). Tensor arguments are pool names in the program.
FUNCTIONAL = {
    "neg": lambda lib, x: x.neg(),
    "exp": lambda lib, x: x.exp(),
    "sin": lambda lib, x: x.sin(),
    "cos": lambda lib, x: x.cos(),
    "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: x.sigmoid(),
    "relu": lambda lib, x: x.relu(),
    "abs": lambda lib, x: x.abs(),
    "pow2": lambda lib, x: x.pow(2),
    "clamp": lambda lib, x, lo, hi: x.clamp(lo, hi),
    "clone": lambda lib, x: x.clone(),
    "detach": lambda lib, x: x.detach(),
    "contiguous": lambda lib, x: x.contiguous(),
    "sum": lambda lib, x: x.sum(),
    "sum_dim": lambda lib, x, dim, keepdim: x.sum(dim, keepdim=keepdim),
    "mean": lambda lib, x: x.mean(),
    "mean_dim": lambda lib, x, dim, keepdim: x.mean(dim, keepdim=keepdim),
    "add": lambda lib, x, y, alpha: lib.add(x, y, alpha=alpha) if alpha is not None else x + y,
    "sub": lambda lib, x, y, alpha: lib.sub(x, y, alpha=alpha) if alpha is not None else x - y,
    "mul": lambda lib, x, y: x * y,
    "div": lambda lib, x, y: x / y,
    "mm": lambda lib, x, y: x.mm(y),
    "t": lambda lib, x: x.t(),
    "transpose": lambda lib, x, d0, d1: x.transpose(d0, d1),
    "permute": lambda lib, x, dims: x.permute(*dims),
    "view": lambda lib, x, shape: x.view(*shape),
    "reshape": lambda lib, x, shape: x.reshape(*shape),
    "select": lambda lib, x, dim, i: x.select(dim, i),
    "slice": lambda lib, x, dim, start, stop, step: _slice(x, dim, start, stop, step),
    "narrow": lambda lib, x, dim, start, length: x.narrow(dim, start, length),
    "expand": lambda lib, x, shape: x.expand(*shape),
    "unsqueeze": lambda lib, x, dim: x.unsqueeze(dim),
    "squeeze": lambda lib, x, dim: x.squeeze(dim),
    "getitem": lambda lib, x, index: x[make_index(lib, index)],
    "cat": lambda lib, xs, dim: lib.cat(xs, dim),
    "stack": lambda lib, xs, dim: lib.stack(xs, dim),
    "split": lambda lib, x, size, dim: x.split(size, dim),           # several outputs: t5_0, t5_1, ...
    "unbind": lambda lib, x, dim: x.unbind(dim),
    "const": lambda lib, shape, seed: _const(lib, shape, seed),
}

# In-place ops: fn(lib, target, *args) returns what the op returned (must be the target itself).
INPLACE = {
    "add_": lambda lib, x, y, alpha: x.add_(y, alpha=alpha) if alpha is not None else x.add_(y),
    "mul_": lambda lib, x, y: x.mul_(y),
    "copy_": lambda lib, x, y: x.copy_(y),
    "zero_": lambda lib, x: x.zero_(),
    "fill_": lambda lib, x, v: x.fill_(v),
    "clamp_": lambda lib, x, lo, hi: x.clamp_(lo, hi),
}


def _resolve(pool, arg):
    if isinstance(arg, str):
        return pool[arg]
    if isinstance(arg, list) and arg and all(isinstance(a, str) for a in arg):
        return [pool[a] for a in arg]
    return arg


def execute(lib, pool, step, name, log=None):
    """Run one step with `lib`. Returns the new pool entries {name: tensor}; an in-place step returns {}.

    Steps: ("leaf", shape, layout, seed, requires_grad), an op of FUNCTIONAL or INPLACE with its arguments,
    ("setitem", target, index, value), ("hook", t, scale), ("retain_grad", t), ("no_grad", step).
    """
    kind, args = step[0], step[1:]
    if kind == "no_grad":
        with lib.no_grad():
            return execute(lib, pool, args[0], name, log)
    if kind == "leaf":
        shape, layout, seed, requires_grad = args
        values = np.random.default_rng(seed).uniform(-2, 2, shape)
        t = P(values, layout, seed=seed).build(lib)
        return {name: t.requires_grad_(requires_grad)}
    if kind == "hook":
        t = pool[args[0]]
        t.grad_fn  # noqa: B018  (torch 2.13 crashes registering a hook on a stale view: rebuild its grad_fn first)
        t.register_hook(_hook(log if log is not None else [], args[0], args[1]))
        return {}
    if kind == "retain_grad":
        pool[args[0]].retain_grad()
        return {}
    if kind == "setitem":
        target, index, value = pool[args[0]], make_index(lib, args[1]), _resolve(pool, args[2])
        target[index] = value
        return {}
    if kind in INPLACE:
        target = pool[args[0]]
        out = INPLACE[kind](lib, target, *[_resolve(pool, a) for a in args[1:]])
        assert out is target, f"{name}: {kind} did not return its target"
        return {}
    out = FUNCTIONAL[kind](lib, *[_resolve(pool, a) for a in args])
    if isinstance(out, (tuple, list)):
        return {f"{name}_{k}": t for k, t in enumerate(out)}
    return {name: out}


# ---- running both libraries and comparing ------------------------------------------------------------------


VERSION_ERROR = "one of the variables needed for gradient computation has been modified by an inplace operation"


def both(where, fn, fuzz=False):
    """`fn(lib)` on torch, then on teachtorch. If torch raises, teachtorch must raise the same error (type and
    message) and None is returned; else (teachtorch result, torch result). With `fuzz`, a version-counter
    error may name another of the node's saved tensors (test_regression_saved_tensors_unpacked_in_sorted_order)."""
    try:
        expected = fn(torch)
    except Exception as e:
        try:
            got = fn(tt)
        except Exception as f:
            both.last_error = str(e)
            same = str(f) == str(e) or fuzz and str(e).startswith(VERSION_ERROR) and str(f).startswith(VERSION_ERROR)
            assert type(f).__name__ == type(e).__name__ and same, (
                f"{where}: error differs\n  teachtorch: {type(f).__name__}: {f}\n  torch:      {type(e).__name__}: {e}")
            return None
        raise AssertionError(f"{where}: torch raised {type(e).__name__}: {e}\n  teachtorch returned {got!r}")
    try:
        got = fn(tt)
    except Exception as f:
        if fuzz and str(f).startswith(VERSION_ERROR):
            both.last_error = "(teachtorch only) " + str(f)     # test_regression_saved_only_for_inputs_..
            return None
        raise AssertionError(f"{where}: teachtorch raised {type(f).__name__}: {f}; torch did not") from f
    return got, expected


def grad_fn_name(t):
    fn = t.grad_fn
    return None if fn is None else fn.name()


def graph_of(t, pool, limit=200):
    """The backward graph below `t.grad_fn`, breadth first: [(node name, [(index of next node, input_nr)])];
    an AccumulateGrad node is named with its leaf's pool name."""
    fn = t.grad_fn
    if fn is None:
        return []
    leaf_names = {id(u): n for n, u in pool.items()}
    index, order, out = {id(fn): 0}, [fn], []
    while len(out) < len(order) and len(out) < limit:
        node = order[len(out)]
        edges = []
        for nxt, nr in node.next_functions:
            if nxt is None:
                edges.append(None)
                continue
            if id(nxt) not in index:
                index[id(nxt)] = len(order)
                order.append(nxt)
            edges.append((index[id(nxt)], nr))
        name = node.name()
        if hasattr(node, "variable"):
            name += f"({leaf_names.get(id(node.variable), '?')})"
        out.append((name, edges))
    return out


def _base_name(t, pool):
    if t._base is None:
        return None
    for name, u in pool.items():
        if u is t._base:
            return name
    return "<not in the pool>"


class Run:
    """One program run on both libraries, step by step, comparing as it goes."""

    def __init__(self, fuzz=False):
        self.fuzz = fuzz            # the hypothesis test leaves out what the regression tests show
        self.pools = {torch: {}, tt: {}}
        self.logs = {torch: [], tt: []}     # hook calls, in order
        self.program = []
        self.retained = []
        self.alive = True           # False once torch raised: the rest of the program is skipped
        self.outcome = "finished"   # or where it stopped (shown by --hypothesis-show-statistics)
        # how each view was made, as torch's CreationMeta: "no_grad", "multi" (split, unbind) or "default"
        # (a view of a view inherits a non-default one); the strategy writes mostly into "default" ones
        self.meta = {}

    @property
    def th(self):
        return self.pools[torch]

    def step(self, step, inspect=False):
        """Run `step` on both; compare its outputs deeply and the whole pool's values. Returns False if torch
        raised (teachtorch raised the same) and the program is over."""
        assert self.alive
        name = f"t{len(self.program)}"
        self.program.append(step)
        where = f"step {len(self.program) - 1} {step!r}"
        r = self.both(where, lambda lib: execute(lib, self.pools[lib], step, name, self.logs[lib]))
        if r is None:
            self.alive = False
            self.outcome = f"{step[1][0] if step[0] == 'no_grad' else step[0]} raised {both.last_error[:50]}"
            return False
        new_tt, new_th = r
        assert list(new_tt) == list(new_th), f"{where}: outputs {list(new_tt)} != {list(new_th)}"
        for lib, new in ((tt, new_tt), (torch, new_th)):
            self.pools[lib].update(new)
        if step[0] == "retain_grad":
            self.retained.append(step[1])
        touched = list(new_th)
        inner = step[1] if step[0] == "no_grad" else step
        for n, t in new_th.items():
            if t._base is not None:
                self.meta[n] = ("no_grad" if step[0] == "no_grad" else "multi" if inner[0] in ("split", "unbind")
                                else self.meta.get(inner[1], "default"))
        if inner[0] in INPLACE or inner[0] == "setitem":
            touched.append(inner[1])
        if (inner[0] == "setitem" and tt.get_default_device().type != "cpu" and isinstance(inner[3], str)
                and self.th[inner[3]].dim() == 0):
            # x[i] = v with a 0-dim v: PyTorch's copy_to fills from a *cpu* 0-dim v (fill_), and copies from
            # any other (expand + copy_), so on cuda the graph is not the one torch's cpu run records; the
            # values, versions and gradients are still compared, the graphs from here on by their roots only
            self.roots_only = True
        for n in self.th:
            self.compare(n, where, deep=inspect or n in touched)
        return True

    def compare(self, n, where, deep):
        a, b = self.pools[tt][n], self.th[n]
        path = f"{where}: {n}"
        assert_same(a, b, path=path, **TOL)
        if b.numel() > 0:
            assert a.storage_offset() == b.storage_offset(), f"{path}: storage_offset {a.storage_offset()} != {b.storage_offset()}"
        assert a._version == b._version, f"{path}: version {a._version} != {b._version}"
        ba, bb = _base_name(a, self.pools[tt]), _base_name(b, self.th)
        assert ba == bb, f"{path}: _base {ba} != {bb}"
        if deep:
            # reading grad_fn rebuilds a stale view's node, or raises for a view that may not be rebuilt
            r = self.both(f"{path}.grad_fn", lambda lib: (graph_of(self.pools[lib][n], self.pools[lib]),
                                                     self.pools[lib][n].is_leaf))
            if r is not None:
                (graph_a, leaf_a), (graph_b, leaf_b) = r
                assert leaf_a == leaf_b, f"{path}: is_leaf {leaf_a} != {leaf_b}"
                if getattr(self, "roots_only", False):
                    graph_a, graph_b = graph_a[:1], graph_b[:1]
                if self.fuzz and any(name == "StackBackward0" for name, _ in graph_b):
                    # stack is composite in teachtorch (cat of unsqueezes): test_regression_node_names
                    if graph_b[0][0] == "StackBackward0":
                        return
                    graph_a, graph_b = graph_a[:1], graph_b[:1]
                assert [g[0] for g in graph_a[:1]] == [g[0] for g in graph_b[:1]], (
                    f"{path}: grad_fn {graph_a[0][0] if graph_a else None} != {graph_b[0][0] if graph_b else None}")
                assert graph_a == graph_b, f"{path}: backward graph\n  teachtorch: {graph_a}\n  torch:      {graph_b}"

    def both(self, where, fn):
        for log in self.logs.values():
            log.clear()
        r = both(where, fn, self.fuzz)
        if r is None:
            self.outcome = f"{where[:20]} raised {both.last_error[:50]}"
            return r
        got, expected = self.logs[tt], self.logs[torch]
        assert got == expected, f"{where}: hook calls (in order) {got} != {expected}"
        return r

    # ---- the end: a loss, and the engine on it --------------------------------------------------------------

    def finish(self, terms, seed, intermediates=(), double=False, twice=True):
        """loss = sum((pool[t] * w_t).sum()); then autograd.grad w.r.t. `intermediates`, a create_graph
        second derivative w.r.t. the leaves (`double`), and backward(retain_graph) twice (`twice`)."""
        if not self.alive:
            return
        rng = np.random.default_rng(seed)
        weights = {n: rng.standard_normal(tuple(self.th[n].shape)) for n in terms}
        leaves = [n for n, t in self.th.items() if self.program[int(n[1:].split("_")[0])][0] == "leaf"
                  and t.requires_grad]

        def loss(lib):
            pool = self.pools[lib]
            total = None
            for n in terms:
                s = (pool[n] * lib.tensor(weights[n], dtype=lib.float64)).sum()
                total = s if total is None else total + s
            return total

        r = self.both("building the loss", loss)
        if r is None:
            return
        losses = {tt: r[0], torch: r[1]}
        assert_same(r[0], r[1], path="loss", **TOL)
        if not r[1].requires_grad:
            self.outcome = "loss needs no grad"
            return

        if intermediates:
            where = f"autograd.grad(loss, {list(intermediates)})"
            r = self.both(where, lambda lib: lib.autograd.grad(
                losses[lib], [self.pools[lib][n] for n in intermediates], retain_graph=True, allow_unused=True))
            if r is None:
                return
            self.compare_grads(where, *r)

        if double and leaves:
            w2 = {n: rng.standard_normal(tuple(self.th[n].shape)) for n in leaves}

            def second(lib):
                xs = [self.pools[lib][n] for n in leaves]
                gs = lib.autograd.grad(losses[lib], xs, create_graph=True, allow_unused=True)
                flags = [None if g is None else g.requires_grad for g in gs]
                s = None
                for n, g in zip(leaves, gs):
                    if g is not None and g.requires_grad:
                        term = (g * lib.tensor(w2[n], dtype=lib.float64)).sum()
                        s = term if s is None else s + term
                if s is None:
                    return gs, flags, None
                # (retain_graph: the backward calls below go through the same graph again)
                return gs, flags, lib.autograd.grad(s, xs, allow_unused=True, retain_graph=True)

            where = "create_graph=True, then the gradient of <grads, w>"
            r = self.both(where, second)
            if r is None:
                return
            (g_tt, f_tt, gg_tt), (g_th, f_th, gg_th) = r
            self.compare_grads(where + " (first)", g_tt, g_th)
            assert f_tt == f_th, f"{where}: requires_grad of the first gradients {f_tt} != {f_th}"
            if gg_th is not None:
                self.compare_grads(where + " (second)", gg_tt, gg_th)

        for k in range(2 if twice else 1):
            where = f"backward #{k + 1}"
            r = self.both(where, lambda lib: losses[lib].backward(retain_graph=twice and k == 0))
            if r is None:
                return
            for n in leaves + self.retained:
                a, b = self.pools[tt][n].grad, self.th[n].grad
                assert (a is None) == (b is None), f"{where}: {n}.grad {a} != {b}"
                if b is not None:
                    # (the fuzzer: the strides of a leaf's .grad where the layout contract lets more than
                    # one layout through, test_regression_gradients_summed_in_place)
                    step = self.program[int(n[1:].split("_")[0])]
                    loose = self.fuzz and step[0] == "leaf" and (1 in step[1] or step[2] in ("sliced", "expanded"))
                    assert_same(a, b, path=f"{where}: {n}.grad", strides=not loose, **TOL)

    @staticmethod
    def compare_grads(where, got, expected):
        assert len(got) == len(expected)
        for i, (a, b) in enumerate(zip(got, expected)):
            assert (a is None) == (b is None), f"{where}: grad[{i}] {a} != {b}"
            if b is not None:
                if b._is_zerotensor():      # torch's ZeroTensor (a gradient known to be zero) has no data
                    b = torch.zeros(b.shape, dtype=b.dtype, requires_grad=b.requires_grad)
                assert_same(a, b, path=f"{where}: grad[{i}]", strides=False, **TOL)


def run_program(steps, terms=None, seed=0, intermediates=(), double=True, twice=True):
    """Run an explicit program (a regression test) with every check; `terms` default to every tensor."""
    run = Run()
    for s in steps:
        if not run.step(s, inspect=True):
            return run
    run.finish(list(run.th) if terms is None else terms, seed, intermediates, double, twice)
    return run


# ---- the strategy: draw a program step by step, looking at torch's pool -----------------------------------

SHAPES = [(3, 4), (2, 3, 4), (4,), (3, 1)]
MAX_NUMEL = 48


def _maxabs(t):
    return float(t.detach().abs().max()) if t.numel() else 0.0


def _kink_safe(t, *kinks):
    """No element sits *near* a kink (relu/abs at 0, clamp's bounds) without being exactly on it: a value
    1e-17 in one library and -1e-17 in the other would send the gradient different ways."""
    v = t.detach().cpu().numpy()
    return all(np.all((np.abs(v - k) > 1e-6) | (v == k)) for k in kinks if k is not None)


def _broadcast(*shapes):
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        return None


def _view_shapes(shape):
    """Shapes a tensor of `shape` can be viewed as: every split of its numel into one to three factors."""
    n = int(np.prod(shape))
    out = [(n,), (-1,)]
    for a in range(1, n + 1):
        if n % a == 0:
            out.append((a, n // a))
            for b in range(1, n // a + 1):
                if (n // a) % b == 0:
                    out.append((a, b, n // a // b))
    return out


def _shares_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _is_dense(t):
    """Non-overlapping and dense: the elements fill a block of memory exactly, in some order of dims."""
    if t.numel() == 0:
        return True
    expected = 1
    for stride, size in sorted((st, n) for n, st in zip(t.shape, t.stride()) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _is_leafish(t):
    """Would torch refuse an in-place write because of a leaf? (without reading a view's grad_fn: that
    would rebuild it in torch only). A view is refused when it requires grad and its base is a leaf."""
    if t._base is not None:
        return t.requires_grad and t._base.grad_fn is None
    return t.requires_grad and t.grad_fn is None


def draw_index(draw, shape, for_setitem):
    """An index spec for a tensor of `shape`: basic (int, slice with a step, None, ...) or advanced (an
    index list on a dim, a bool mask)."""
    kinds = ["int", "slice", "int_slice", "ellipsis_int"]
    if len(shape) and shape[0] > 0:
        kinds += ["idx", "mask", "mask_all", "slice_idx"]
    kind = draw(st.sampled_from(kinds)) if shape else "none"
    if kind == "none":
        return (("none",),)
    if kind in ("int", "int_slice", "ellipsis_int") and shape[0 if kind != "ellipsis_int" else -1] == 0:
        kind = "slice"

    def a_slice(n):
        step = draw(st.sampled_from([1, 2, 3]))
        start = draw(st.integers(-n, max(n - 1, 0)) | st.none())
        stop = draw(st.integers(-n, n) | st.none())
        if start == -n and step == 1 and (stop is None or stop >= n):
            start = 0       # test_regression_whole_slices_in_an_index (a negative start)
        return ("slice", start, stop, step)

    def an_idx(n):
        if for_setitem:    # repeated indices in a write keep an unspecified value: no duplicates
            k = draw(st.integers(1, n))
            return ("idx", [int(i) for i in np.random.default_rng(draw(st.integers(0, 99))).permutation(n)[:k]])
        return ("idx", draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)))

    if kind == "int":
        return (("int", draw(st.integers(-shape[0], shape[0] - 1))),)
    if kind == "slice":
        return (a_slice(shape[0]),) if shape[0] else (("slice", None, None, 2),)
    if kind == "int_slice":
        idx = (("int", draw(st.integers(-shape[0], shape[0] - 1))),)
        return idx + ((a_slice(shape[1]),) if len(shape) > 1 else ())
    if kind == "ellipsis_int":
        return (("ellipsis",), ("int", draw(st.integers(-shape[-1], shape[-1] - 1))))
    if kind == "idx":
        return (an_idx(shape[0]),)
    if kind == "slice_idx" and len(shape) > 1 and shape[1] > 0:
        return (a_slice(shape[0]), an_idx(shape[1]))
    if kind == "mask":
        return (("mask", draw(st.lists(st.booleans(), min_size=shape[0], max_size=shape[0]))),)
    mask = np.random.default_rng(draw(st.integers(0, 99))).random(shape) > 0.5
    return (("mask", mask.tolist()),)


def draw_step(draw, run, grad_mode=True):
    """One step, drawn so that it mostly makes sense for the tensors in torch's pool (shapes that
    broadcast, values away from kinks); in-place targets are mostly tensors that may be written to.
    `grad_mode` is False for a step that will run under no_grad."""
    pool = run.th
    names = list(pool)
    pick = lambda cands: draw(st.sampled_from(cands))
    x_name = pick(names)
    x = pool[x_name]
    shape, nd = tuple(x.shape), x.dim()
    category = pick(["unary"] * 4 + ["binary"] * 4 + ["reduce", "mm", "const"] + ["view"] * 6 +
                    ["multi", "cat", "getitem"] + ["inplace"] * 5 + ["setitem"] * 3 +
                    ["hook", "retain_grad"])

    def operand(target_shape=None):
        """Another tensor from the pool that broadcasts with x (or *to* target_shape), or a number."""
        cands = []
        for n, t in pool.items():
            s = tuple(t.shape)
            b = _broadcast(shape if target_shape is None else target_shape, s)
            if b is not None and (target_shape is None or b == target_shape) and int(np.prod(b)) <= MAX_NUMEL:
                cands.append(n)
        if cands and draw(st.integers(0, 4)) != 3:
            return pick(cands)
        return pick([0.5, -1.5, 2.0])

    if category == "unary":
        op = pick(["neg", "exp", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "pow2", "clamp", "clone",
                   "detach", "contiguous"])
        m = _maxabs(x)
        if op == "exp" and m > 4 or op == "pow2" and m > 50:
            op = "tanh"
        if op in ("pow2", "clamp") and 1 in shape and x.numel() > 1:
            op = "tanh"     # test_regression_number_argument_output_strides
        if op in ("relu", "abs") and not _kink_safe(x, 0.0):
            op = "sin"
        if op == "clamp":
            lo, hi = pick([(-0.5, 0.5), (None, 0.3), (-0.3, None), (-1.0, 1.0)])
            if not _kink_safe(x, lo, hi):
                return ("cos", x_name)
            return ("clamp", x_name, lo, hi)
        return (op, x_name)

    if category == "binary":
        op = pick(["add", "sub", "mul", "div"])
        y = operand()
        yt = pool[y] if isinstance(y, str) else torch.tensor(float(y))
        if op == "div" and (yt.numel() == 0 or yt.detach().abs().min() < 0.2):
            op = "mul"
        if op == "mul" and (_maxabs(x) > 100 or _maxabs(yt) > 100):
            op = "add"
        if op in ("add", "sub"):
            alpha = pick([None, 2.5]) if isinstance(y, str) else None
            return (op, x_name, y, alpha)
        return (op, x_name, y)

    if category == "reduce":
        if nd == 0 or draw(st.booleans()):
            return (pick(["sum", "mean"]), x_name)
        return (pick(["sum_dim", "mean_dim"]), x_name, draw(st.integers(-nd, nd - 1)), draw(st.booleans()))

    if category == "mm":
        mats = [n for n, t in pool.items() if t.dim() == 2]
        if not mats:
            return ("neg", x_name)
        a = pick(mats)
        k = pool[a].shape[1]
        partners = [n for n, t in pool.items() if t.dim() == 2 and t.shape[0] == k and _maxabs(t) < 100]
        if partners and draw(st.booleans()) and _maxabs(pool[a]) < 100:
            return ("mm", a, pick(partners))
        return ("const", (k, 2), draw(st.integers(0, 99)))      # a partner for a later mm

    if category == "const":
        return ("const", pick(SHAPES + [shape]), draw(st.integers(0, 99)))

    if category == "view":
        ops = ["view", "reshape", "unsqueeze", "expand"]
        if nd >= 1:
            ops += ["select", "slice", "narrow", "squeeze", "permute"]
        if nd <= 2:
            ops += ["t"]
        if nd >= 2:
            ops += ["transpose"]
        op = pick(ops)
        dim = draw(st.integers(-nd, nd - 1)) if nd else 0
        if op in ("view", "reshape"):
            return (op, x_name, pick(_view_shapes(shape)))
        if op == "unsqueeze":
            return (op, x_name, draw(st.integers(-nd - 1, nd))) if nd < 4 else ("clone", x_name)
        if op == "expand":
            if nd >= 4 or x.numel() * 2 > MAX_NUMEL:
                return ("t", x_name) if nd <= 2 else ("clone", x_name)
            # a new leading dim, and every size-1 dim stretched to 2
            return (op, x_name, (2,) + tuple(2 if s == 1 else s for s in shape))
        if op == "select":
            n = shape[dim]
            return (op, x_name, dim, draw(st.integers(-n, n - 1))) if n else ("clone", x_name)
        if op == "slice":
            dim %= nd
            n = shape[dim]
            start, stop = draw(st.integers(0, max(n - 1, 0))) if n else 0, draw(st.integers(0, n) | st.none())
            return (op, x_name, dim, start, stop, pick([1, 2, 3]))
        if op == "narrow":
            n = shape[dim]
            start = draw(st.integers(0, n))
            return (op, x_name, dim, start, draw(st.integers(0, n - start)))
        if op == "squeeze":
            ones = [d for d, s in enumerate(shape) if s == 1]
            return (op, x_name, pick(ones) if ones and draw(st.integers(0, 3)) else dim)
        if op == "permute":
            return (op, x_name, tuple(int(i) for i in np.random.default_rng(draw(st.integers(0, 99))).permutation(nd)))
        if op == "t":
            return (op, x_name)
        return (op, x_name, dim, draw(st.integers(-nd, nd - 1)))

    if category == "multi":
        if nd == 0 or grad_mode and run.meta.get(x_name) == "no_grad":
            return ("clone", x_name)    # (the second: test_regression_multi_output_view_of_no_grad_view)
        dim = draw(st.integers(-nd, nd - 1))
        if draw(st.booleans()):
            return ("split", x_name, draw(st.integers(1, 3)), dim)
        return ("unbind", x_name, dim)

    if category == "cat":
        same = [n for n, t in pool.items() if tuple(t.shape) == shape]
        xs = draw(st.lists(st.sampled_from(same), min_size=1, max_size=3))   # repeats: shared subexpressions
        if x.numel() * len(xs) > MAX_NUMEL:
            xs = xs[:1]
        if nd and draw(st.booleans()):
            return ("cat", xs, draw(st.integers(-nd, nd - 1)))
        return ("stack", xs, draw(st.integers(-nd - 1, nd)))

    if category == "getitem":
        return ("getitem", x_name, draw_index(draw, shape, for_setitem=False))

    if category == "hook":
        return ("hook", x_name, pick([2.0, -0.5]))

    if category == "retain_grad":
        if run.program[int(x_name[1:].split("_")[0])][0] == "no_grad":
            return ("clone", x_name)    # test_regression_retain_grad_on_stale_no_grad_view
        return ("retain_grad", x_name)

    # in-place steps: the target is mostly one that may be written to
    writable = [n for n, t in pool.items() if not _is_leafish(t)
                and (not grad_mode or run.meta.get(n, "default") == "default")]
    if draw(st.integers(0, 9)) != 7:       # (hypothesis draws 0 and 9 often: 7 is rare)
        if not writable:
            return ("clone", x_name)       # something to write into later
        x_name = pick(writable)
        x = pool[x_name]
        shape = tuple(x.shape)
    if x.numel() == 0:
        return ("clone", x_name)        # test_regression_write_into_empty_view
    if category == "setitem":
        index = draw_index(draw, shape, for_setitem=True)
        with torch.no_grad():
            try:
                sub_shape = tuple(x[make_index(torch, index)].shape)
            except (IndexError, RuntimeError):
                sub_shape = None
        value = operand(sub_shape) if sub_shape is not None else 1.5
        if isinstance(value, str) and _shares_storage(pool[value], x):
            # torch's index_put_ reads a value that overlaps its target while writing it (undefined order)
            value = 1.5
        return ("setitem", x_name, index, value)
    op = pick(["add_", "mul_", "copy_", "zero_", "fill_", "clamp_"])
    if op == "zero_":
        return (op, x_name)
    if op == "fill_":
        return (op, x_name, pick([0.5, -2.0]))
    if op == "clamp_":
        lo, hi = pick([(-0.5, 0.5), (None, 0.3), (-0.3, None)])
        if not _kink_safe(x, lo, hi):
            return ("zero_", x_name)
        return (op, x_name, lo, hi)
    y = operand(shape)
    if isinstance(y, str) and y != x_name and _shares_storage(pool[y], x) and not (
            _is_dense(x) and _is_dense(pool[y])):
        # the operand overlaps the target and torch cannot tell how (not both dense): it reads while it
        # writes, element by element, and the result depends on the order; teachtorch reads first.
        # (Between two dense tensors both refuse: "some elements of the input tensor and the written-to
        # tensor refer to a single memory location".)
        y = 0.5
    if op == "mul_" and (_maxabs(x) > 100 or (isinstance(y, str) and _maxabs(pool[y]) > 100)):
        op = "add_"
    if op == "copy_" and not isinstance(y, str):
        return ("fill_", x_name, y)
    if op == "add_":
        return (op, x_name, y, pick([None, -1.5]) if isinstance(y, str) else None)
    return (op, x_name, y)


@pytest.mark.filterwarnings("ignore:Use of index_put_ on expanded tensors", "ignore:Use of masked_fill_ on expanded")
@settings(max_examples=150, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
@given(st.data())
def test_fuzz_programs(data):
    draw = data.draw
    run = Run(fuzz=True)
    for i in range(draw(st.integers(1, 3))):
        shape = draw(st.sampled_from(SHAPES))
        step = ("leaf", shape, draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 999)), True)
        note(f"step {len(run.program)}: {step!r}")
        run.step(step)
    for i in range(draw(st.integers(2, 20))):
        no_grad = draw(st.integers(0, 9)) == 7
        step = draw_step(draw, run, grad_mode=not no_grad)
        if no_grad and (step[0] in FUNCTIONAL or step[0] in INPLACE or step[0] == "setitem"):
            step = ("no_grad", step)
        note(f"step {len(run.program)}: {step!r}")
        if not run.step(step, inspect=draw(st.integers(0, 3)) == 0):
            break
    if not run.alive:
        event(run.outcome)
        return
    event(f"{len(run.program)} steps")
    names = list(run.th)
    terms = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
    grad_names = [n for n in names if run.th[n].requires_grad]
    inter = draw(st.lists(st.sampled_from(grad_names), max_size=2, unique=True)) if grad_names else []
    final = dict(terms=terms, seed=draw(st.integers(0, 99)), intermediates=inter, double=draw(st.booleans()),
                 twice=draw(st.booleans()))
    note(f"run_program({run.program!r}, **{final!r})")
    run.finish(**final)
    event(run.outcome)


# ---- regressions: explicit programs for what the fuzzer found ---------------------------------------------
# Each comment says where teachtorch differed from torch when the fuzzer found it; all of these are fixed now.
# (Two findings are left open and not tested here, see the closing note: torch's `stack` is an op of
# its own (StackBackward0), and pow/clamp with Python numbers pick output strides as unary ops do.)


def test_regression_no_grad_view_gets_no_accumulator():
    # A view made under no_grad of a leaf that requires grad has requires_grad=True (through its base) but
    # no grad_fn and no requires_grad flag of its own: torch gives it no gradient edge at all (its
    # grad_accumulator() is null), so nothing flows to it. teachtorch's gradient_edge makes an
    # AccumulateGrad for it, and `v.grad` / autograd.grad(loss, v) get a gradient.
    run_program([("leaf", (3, 4), "contiguous", 0, True),
                 ("no_grad", ("expand", "t0", (2, 3, 4)))],
                terms=["t1"], intermediates=["t1"], double=False, twice=False)


@pytest.mark.parametrize("step", [("getitem", "t1", (("slice", 0, None, 1),)),
                                  ("getitem", "t1", (("slice", None, None, 1), ("slice", None, None, 1))),
                                  ("getitem", "t1", (("slice", None, None, 1), ("slice", 1, None, 2))),
                                  ("getitem", "t1", (("slice", -3, None, 1),)),
                                  ("setitem", "t1", (("slice", -3, 3, 1),), "t0")])
def test_regression_whole_slices_in_an_index(step):
    # torch's applySlicing skips a `:` that takes a whole dim (start 0, stop >= size, step 1): x[(0:,)] and
    # x[:, :] are alias(x) (AliasBackward0), x[:, 1::2] is one SliceBackward0. teachtorch records a slice
    # for each: SliceBackward0 instead of AliasBackward0, and SliceBackward0 -> SliceBackward0 (ops/indexing.py).
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("clone", "t0"), step])


@pytest.mark.parametrize("value", ["t0", 0.5])
def test_regression_setitem_fills_with_a_0_dim_tensor(value):
    # x[0] = v with a 0-dim v that requires grad: PyTorch's copy_to fills with `fill_.Tensor` (FillBackward3,
    # value: grad.sum()). teachtorch's fill_ has only the Scalar overload, and its kernel takes v.item():
    # the write is not recorded, x does not require grad, and v gets no gradient.
    # x[0] = 0.5 into an x that requires grad: torch's CopySlices(fn=FillBackward3) has two next edges
    # (the base, and None for the number made a tensor); teachtorch's CopySlices(fn=FillBackward0) has one.
    run_program([("leaf", (), "contiguous", 0, True), ("const", (3, 2), 1), ("mul", "t1", "t0"),
                 ("setitem", "t1" if value == "t0" else "t2", (("int", 0),), value)])


def test_regression_number_operand_is_freed_after_backward():
    # torch wraps the 0.5 of `x * 0.5` in a tensor and saves it in MulBackward0; backward frees it, so a
    # second backward raises "Trying to backward through the graph a second time". teachtorch keeps the
    # number as a plain value that is never freed, and the second backward runs.
    run = run_program([("leaf", (3,), "contiguous", 0, True), ("mul", "t0", 0.5)], terms=["t1"], double=False,
                      twice=False)
    both("second backward", lambda lib: run.pools[lib]["t1"].sum().backward())


def test_regression_setitem_number_into_expanded_target():
    # x[..., 0] = 0.5 with x expanded: torch's setitem fills through fill_.Tensor, which checks for internal
    # overlap ("unsupported operation: more than one element of the written-to tensor refers to a single
    # memory location"); teachtorch has only fill_.Scalar (no check, as torch's fill_.Scalar) and writes.
    run_program([("const", (3, 4), 0), ("expand", "t0", (2, 3, 4)),
                 ("setitem", "t1", (("ellipsis",), ("int", 0)), 0.5)])


@pytest.mark.parametrize("inner", [("no_grad", ("select", "t0", 0, 0)), ("split", "t0", 1, 0)])
def test_regression_view_of_no_grad_view_inherits_its_creation_meta(inner):
    # v = b[0] under no_grad (or a split output), then w = v.unsqueeze(0) in grad mode: torch's
    # propagate_creation_meta gives w v's NO_GRAD_MODE (MULTI_OUTPUT_NODE) meta, so `w.mul_(x)` raises
    # "Output 0 of Unsqueeze is a view of a view which was created in no_grad mode ...". teachtorch marks
    # only views made while grad mode is off (variable_type._view_creation_meta), w gets the default meta,
    # and the in-place op is recorded (CopySlices on b).
    v = "t2" if inner[0] == "no_grad" else "t2_0"
    run_program([("const", (3, 2), 0), ("leaf", (2,), "contiguous", 0, True), inner,
                 ("unsqueeze", v, 0), ("mul_", "t3", "t1")])


@pytest.mark.parametrize("layout, shape, op", [("sliced", (3, 1), ("permute", "t0", (1, 0))),
                                               ("expanded", (3, 4), ("sum_dim", "t0", 1, False))])
def test_regression_grad_layout_of_non_dense_leaf(layout, shape, op):
    # torch's obeys_layout_contract asks only grad.is_contiguous() for a leaf that is not
    # non-overlapping-and-dense; teachtorch's (accumulate.py) differs twice:
    # * x (3, 1) with strides (6, 2), gradient from permute's backward with strides (1, 3): contiguous (a
    #   size-1 dim does not count), torch keeps it; teachtorch wants exactly (1, 1) and copies it.
    # * x expanded (3, 4) with strides (1, 0), gradient from sum's backward expanded the same way: teachtorch
    #   takes it because its strides equal x's (its first test), so x.grad has strides (1, 0); torch copies
    #   it to a contiguous (4, 1) one.
    run_program([("leaf", shape, layout, 0, True), op], terms=["t1"])


def test_regression_copy_of_expanded_tensor_into_itself():
    # x.copy_(x) with x expanded: torch's copy_ returns early when source and target are the same data,
    # before its internal-overlap check; teachtorch checks first and raises "unsupported operation: more
    # than one element of the written-to tensor refers to a single memory location" (ops/copy.py).
    run_program([("leaf", (4,), "expanded", 0, True), ("no_grad", ("copy_", "t0", "t0"))])


@pytest.mark.parametrize("step", [("squeeze", "t1", 0), ("copy_", "t1", "t0"), ("fill_", "t1", 0.5),
                                  ("reshape", "t2", (2,))])
def test_regression_node_names(step):
    # torch: squeeze.dim is SqueezeBackward1 (teachtorch SqueezeBackward0, from squeeze.dims); copy_'s node
    # is named "torch::autograd::CopyBackwards" (teachtorch "CopyBackwards"); fill_.Scalar is FillBackward2
    # (teachtorch FillBackward0; fill_.Tensor would be FillBackward3); stack is its own op, StackBackward0
    # (teachtorch: cat of unsqueezes, UnsafeViewBackward0 -> CatBackward0); reshape of a tensor that is
    # not contiguous but can be viewed is _reshape_alias, ReshapeAliasBackward0 (teachtorch ViewBackward0).
    steps = [("leaf", (1, 4), "contiguous", 0, True), ("clone", "t0")]
    if step[0] == "reshape":        # t2 = t1[..., ::2], strides (4, 2): not contiguous, but viewable as (2,)
        steps.append(("slice", "t1", 1, 0, None, 2))
    run_program(steps + [step])


def test_regression_version_error_names_copy_node():
    # The "modified by an inplace operation" message names the saved tensor's node: torch says "output 0 of
    # torch::autograd::CopyBackwards"; teachtorch's saved_variable._short_name strips "Backward" from
    # "CopyBackwards" and says "output 0 of Copys".
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("neg", "t0"), ("sin", "t1"), ("copy_", "t1", "t0")],
                terms=["t2"])


def test_regression_retain_grad_moves_to_copy_slices():
    # y.retain_grad(), then y[0] = 0.5 (in place through a view of y: y's grad_fn becomes CopySlices). torch's
    # rebase_history moves the retains_grad hook to the CopySlices node (update_tensor_hooks_on_new_gradfn),
    # so y.grad is the gradient of the final y. teachtorch's rebase_history (variable.py) moves it only when
    # y itself is written, not when y is the base of a written view: y.grad is taken at the old NegBackward0,
    # after CopySlices zeroed the written row.
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("neg", "t0"), ("retain_grad", "t1"),
                 ("setitem", "t1", (("int", 0),), 0.5)], terms=["t1"])


@pytest.mark.parametrize("value, index", [("t1", (("int", 0),)), ("t2", (("slice", 0, 2, 1),)),
                                          ("t3", (("int", 0),))])
def test_regression_setitem_broadcast_value_graph(value, index):
    # x[0] = v with v of another shape than x[0]: torch's copy_to views v without leading size-1 dims
    # (slicePrefix1sSize: ViewBackward0, even when there are none) and expands it (ExpandBackward0) before
    # copy_; teachtorch squeezes the leading 1s (SqueezeBackward0) and lets copy_ broadcast: the CopySlices
    # node's next node differs (ops/indexing.py setitem). The gradients are the same.
    run_program([("const", (3, 4), 0), ("leaf", (1,), "contiguous", 1, True), ("leaf", (4,), "contiguous", 2, True),
                 ("leaf", (1, 4), "contiguous", 3, True), ("setitem", "t0", index, value)])


def test_regression_grad_with_the_same_input_twice():
    # autograd.grad(loss, [x, x]) gives the gradient at both places in torch. teachtorch's engine keys its
    # captures by (node, input_nr) in a dict (engine.init_to_execute), so the second entry replaces the
    # first: the result is (None, grad).
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("mul", "t0", "t0")],
                intermediates=["t1", "t1"], double=False, twice=False)
    run_program([("leaf", (3, 4), "contiguous", 0, True)], intermediates=["t0", "t0"], double=False, twice=False)


def test_regression_copy_from_overlapping_source():
    # x.copy_(x[0]): the source and the target share some elements. torch refuses ("unsupported operation:
    # some elements of the input tensor and the written-to tensor refer to a single memory location");
    # teachtorch's copy_ (ops/copy.py) writes. add_ etc. do check, as torch.
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("neg", "t0"), ("select", "t1", 0, 0),
                 ("copy_", "t1", "t2")])


def test_regression_hook_called_with_none():
    # y0, y1, y2 = x.unbind(0) and a hook on y1; the loss uses only y0. torch still runs y1's hook, with
    # None (UnbindBackward0's input 1 got no gradient: PyFunctionTensorPreHook wraps the undefined tensor).
    # teachtorch's engine (call_tensor_pre_hooks) skips hooks whose gradient is None.
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("unbind", "t0", 0), ("hook", "t1_1", 2.0)],
                terms=["t1_0"])


def test_regression_grad_of_hooked_intermediate_that_must_also_run():
    # y = -x with a hook on y (g * 2), loss = (x + y) * w; autograd.grad(loss, [x, y]). torch's engine
    # captures y's gradient *before* y's tensor hooks when y's node must run anyway (to reach x): the hook
    # only runs later, in call_function. (With inputs=[y] alone the hook runs first and is captured.)
    # teachtorch always runs the hooks first (engine.evaluate_function): grad[1] is twice torch's.
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("neg", "t0"), ("hook", "t1", 2.0)],
                terms=["t0", "t1"], intermediates=["t0", "t1"], double=False, twice=False)


def test_regression_retained_grad_is_contiguous():
    # y = -x with x permuted (strides (1, 3)), y.retain_grad(): torch's retain_grad hook stores
    # grad.clone(at::MemoryFormat::Contiguous), strides (4, 1); teachtorch's (tensor_methods.retain_grad)
    # stores grad.clone(), which keeps the incoming gradient's (1, 3).
    run_program([("leaf", (3, 4), "permuted", 3, True), ("neg", "t0"), ("retain_grad", "t1"),
                 ("clamp", "t1", -0.5, 0.5)], terms=["t3"])


def test_regression_formula_entries_run_in_sorted_order():
    # torch's codegen (load_derivatives.py) emits a node's formulas sorted by input name: MulBackward0
    # computes `other`'s gradient before `self`'s (also DivBackward0...). With create_graph=True that
    # decides which gradient's node is made first, so which runs first in the second backward: here the
    # hooks on b and a run in the order b, a in torch, a, b in teachtorch (FormulaNode.apply runs the
    # entries in the order they are written, derivative.py).
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("leaf", (3, 4), "contiguous", 1, True),
                 ("hook", "t0", 2.0), ("hook", "t1", 2.0), ("mul", "t0", "t1")], terms=["t4"], twice=False)


def test_regression_zero_gradient_of_overwritten_tensor():
    # x (3, 1); y = x.permute(1, 0); z = x.clone(); z.zero_(); loss uses y and z. x's two gradients meet in
    # the engine's input buffer: torch's ZeroBackward0 gives zeros_like(grad) (dense, (1, 1)), the buffer
    # adds the permuted one into it in place (InputBuffer::accumulate), and x.grad has strides (1, 1).
    # teachtorch's zero_ formula gives an expanded 0 (strides (0, 0)) and the engine adds out of place:
    # expanded + permuted has strides (1, 3), which the layout contract accepts for a (3, 1) leaf.
    # (fill_ and copy_ also give expanded zeros in teachtorch, zeros_like in torch.)
    run_program([("leaf", (3, 1), "contiguous", 0, True), ("permute", "t0", (1, 0)), ("clone", "t0"),
                 ("zero_", "t2")], terms=["t1", "t2"])


def test_regression_retain_grad_on_stale_no_grad_view():
    # v = y.view(12) under no_grad, then y += x in grad mode: v is stale, and reading v.grad_fn raises "A view
    # was created in no_grad mode and its base ... has been modified inplace". torch's retain_grad asks
    # is_leaf() from the grad_fn field (null for v: a no-op), without rebuilding it; teachtorch's
    # (tensor_methods.retain_grad) reads v.grad_fn and raises.
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("neg", "t0"), ("no_grad", ("view", "t1", (12,))),
                 ("add_", "t1", "t0", None), ("retain_grad", "t2")], terms=["t1"])


def test_regression_saved_tensors_unpacked_in_sorted_order():
    # c = a * b, then both a and b are changed in place: which one does the version error name? torch's
    # generated MulBackward0::apply unpacks every saved tensor first, sorted by name (other_, then self_:
    # gen_autograd_functions sorts all_saved_inputs, then the saved outputs), so it names b ([3, 4], output
    # of Fill2). teachtorch's FormulaNode unpacks each tensor when a formula needs it, and `other`'s formula
    # reads `self` first: it names a ([1], output of CopySlices).
    run_program([("leaf", (4,), "contiguous", 0, True), ("leaf", (3, 4), "contiguous", 1, True),
                 ("getitem", "t0", (("idx", [1]),)), ("mul", "t1", "t1"), ("mul", "t2", "t3"),
                 ("setitem", "t2", (("int", 0),), 0.5), ("fill_", "t3", 0.5)], terms=["t4"])


def test_regression_saved_only_for_inputs_that_need_grad():
    # c (no grad) .mul_(y) with y = cos(x) requiring grad; then y.clamp_() changes y. MulBackward0 needs
    # only `other`'s gradient (y's): torch saves `self` (c's old value) and not `other` (y) -- codegen saves
    # a tensor only when a formula that reads it is for an input that requires grad -- so y's change is
    # harmless and backward works. teachtorch saves both and (now that apply unpacks every saved value
    # first) raises "modified by an inplace operation" for y.
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("no_grad", ("clone", "t0")), ("cos", "t0"),
                 ("mul_", "t1", "t2"), ("clamp_", "t2", -0.5, 0.5), ("mul", "t0", "t1")], terms=["t5"])


def test_regression_write_into_empty_view():
    # (found by the program fuzzer, left open in d602844) y = x.clone() with x of shape (0, 4), y[:, 2] = v:
    # CopySlices takes the view's part of the base's gradient with as_strided((0,), (4,), 2) on an empty
    # storage. A view with no elements needs no storage (computeStorageNbytes is 0), so PyTorch allows it;
    # teachtorch's as_strided raised "setStorage: sizes [0], strides [4], storage offset 2, and itemsize 8
    # requiring a storage size of 16 are out of bounds for storage of size 0".
    run_program([("leaf", (3, 4), "contiguous", 0, True), ("narrow", "t0", 0, 3, 0), ("clone", "t1"),
                 ("const", (1,), 0), ("setitem", "t2", (("ellipsis",), ("int", 2)), "t3")], terms=["t2"])


def _multi_output_of_no_grad_view(lib, multi, leaf_requires_grad):
    x = lib.ones(3, 3, requires_grad=leaf_requires_grad)
    with lib.no_grad():
        v = x[0:2]
    outputs = {"unbind": lambda: v.unbind(0), "split": lambda: v.split(1), "chunk": lambda: v.chunk(2)}[multi]()
    outputs[0].add_(lib.ones(3, requires_grad=True))


@pytest.mark.parametrize("multi", ["unbind", "split", "chunk"])
@pytest.mark.parametrize("leaf_requires_grad", [True, False])
def test_regression_multi_output_view_of_a_no_grad_view(multi, leaf_requires_grad):
    # propagate_creation_meta: the new view's own reason (MULTI_OUTPUT_NODE) wins over the inherited
    # NO_GRAD_MODE, so torch says "... is the output of a function that returns multiple views"
    with pytest.raises(RuntimeError) as theirs:
        _multi_output_of_no_grad_view(torch, multi, leaf_requires_grad)
    with pytest.raises(RuntimeError) as ours:
        _multi_output_of_no_grad_view(tt, multi, leaf_requires_grad)
    assert str(ours.value) == str(theirs.value)
