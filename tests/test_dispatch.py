"""The dispatcher: key sets, tables, the trace, registering ops from outside, fallthroughs, modes, meta."""

import numpy as np
import pathlib
import re

import pytest
import torch

import teachtorch as tt
from teachtorch.dispatch import dispatcher
from teachtorch.dispatch.schema import parse_schema
from parity import check, rand


def test_tensor_key_sets_match_pytorch():
    # PyTorch: a plain cpu tensor carries {CPU, ADInplaceOrView, AutogradCPU} whether or not it requires grad
    assert tt.dispatch.keys_of(tt.zeros(2)) == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    assert tt.dispatch.keys_of(tt.zeros(2, requires_grad=True)) == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    assert tt.dispatch.keys_of(tt.zeros(2, device="meta")) == ["AutogradMeta", "ADInplaceOrView", "Meta"]
    with tt.no_grad():   # no_grad flips a flag; it does not change keys
        assert tt.dispatch.keys_of(tt.zeros(2)) == ["AutogradCPU", "ADInplaceOrView", "CPU"]


def test_trace_prints_like_logging_tensor_and_records_every_hop():
    a, b = tt.ones(3, 4), tt.ones(3, 4)
    with tt.dispatch.trace() as t:
        c = a + b
    assert str(t) == "$2: f32[3, 4] = aten.add.Tensor($0, $1)"
    assert [(e.depth, e.key) for e in t.events] == [(0, "AutogradCPU"), (1, "CPU")]
    top, cpu = t.events
    assert top.op == cpu.op == "aten::add.Tensor" and cpu.parent == top.index
    assert top.keyset == ["AutogradCPU", "CPU"]      # ADInplaceOrView and BackendSelect fall through for add
    assert cpu.kernel == "PointwiseKernel(pointwise_math.add).functional"
    (x, y) = top.inputs[:2]
    assert (x.sizes, x.strides, x.dtype, x.device, x.storage_offset) == ((3, 4), (4, 1), "float32", "cpu", 0)
    out = top.outputs[0]
    assert out.name == "$2" and out.storage_id == id(c.untyped_storage())
    assert top.duration_ns >= cpu.duration_ns > 0
    assert dispatcher._active_trace is None      # no trace active: the dispatcher's only cost is one check


def test_trace_shows_inplace_and_view_layers():
    x = tt.zeros(3, 4)
    with tt.dispatch.trace() as t:
        x.t().add_(1)
    keys = [(e.op, e.key) for e in t.events]
    assert ("aten::t", "ADInplaceOrView") in keys
    assert ("aten::add_.Tensor", "ADInplaceOrView") in keys
    assert keys[-1] == ("aten::add_.Tensor", "CPU")
    lines = str(t).splitlines()
    assert lines[0] == "$1: f32[4, 3] = aten.t.default($0)"
    assert lines[1] == "$1: f32[4, 3] = aten.add_.Tensor($1, 1)"
    # the view and its base show the same storage
    t_out = t.events[0].outputs[0]
    assert t_out.storage_id == t.events[0].inputs[0].storage_id
    assert x._version == 1


def test_trace_of_composite_op_shows_the_ops_it_is_made_of():
    x = tt.arange(12.0).reshape(3, 4).t()
    with tt.dispatch.trace() as t:
        x.reshape(12)
    ops = [e.op for e in t.events if e.depth == 1 or e.depth == 0]
    assert ops[0] == "aten::reshape"
    names = {e.op for e in t.events}
    assert {"aten::clone", "aten::_unsafe_view"} <= names
    text = t.format(hops=True)
    assert "-> AutogradCPU: reshape_kernel" in text and "-> CPU: clone_kernel" in text
    assert "-> CPU: clone_kernel  teachtorch/" in text


def test_trace_streams_events_and_nests():
    seen = []
    with tt.dispatch.trace(on_event=seen.append) as outer:
        with tt.dispatch.trace() as inner:
            tt.ones(2) * 3
        tt.ones(2) - 1
    assert len(inner.ops()) == 2 and len(outer.ops()) == 2      # the inner trace took its ops
    assert [e.op for e in seen if e.depth == 0] == ["aten::ones", "aten::sub.Tensor"]
    assert dispatcher._active_trace is None


def test_trace_records_errors():
    with tt.dispatch.trace() as t:
        with pytest.raises(RuntimeError):
            tt.ones(3) + tt.ones(4)
    assert "The size of tensor a (3) must match" in t.events[-1].error
    assert "!!" in str(t)


def test_dump_table_resolution():
    add = tt.dispatch.dump_table("add.Tensor").splitlines()
    assert "CPU: PointwiseKernel(pointwise_math.add).functional [kernel]" in add
    assert "ADInplaceOrView: fallthrough [backend fallback]" in add
    assert "AutogradCPU: autograd_kernel [autograd kernel: Autograd]" in add
    add_ = tt.dispatch.dump_table("aten::add_.Tensor")
    assert "ADInplaceOrView: ADInplaceOrView_inplace [kernel]" in add_
    tr = tt.dispatch.dump_table("transpose.int")
    for key in ("CPU", "CUDA", "Meta"):
        assert f"{key}: transpose_kernel [default backend kernel: CompositeExplicitAutograd]" in tr
    assert "ADInplaceOrView: ADInplaceOrView_view [kernel]" in tr
    reshape = tt.dispatch.dump_table("reshape")
    assert "AutogradCPU: reshape_kernel [math kernel: CompositeImplicitAutograd]" in reshape
    zeros = tt.dispatch.dump_table("zeros")
    assert "BackendSelect: BackendSelect_factory [kernel]" in zeros


@pytest.fixture
def lib():
    library = tt.library.Library("teachtest", "DEF")
    yield library
    library._destroy()


def test_register_an_op_from_outside(lib):
    lib.define("mysin(Tensor x) -> Tensor")
    lib.impl("mysin", lambda x: tt.from_numpy(np.sin(x.numpy())), "CPU")
    lib.impl("mysin", lambda x: tt.empty_like(x), "Meta")
    x = tt.arange(5.0) * 0.25
    with tt.dispatch.trace() as t:
        y = tt.ops.teachtest.mysin(x)
    assert np.allclose(y.numpy(), np.sin(x.numpy()))
    assert str(t).startswith("$1: f32[5] = teachtest.mysin.default($0)")
    m = tt.ops.teachtest.mysin.default(tt.empty(2, 3, device="meta"))
    assert m.device.type == "meta" and m.shape == (2, 3)
    assert "CPU: test_register_an_op_from_outside.<locals>.<lambda> [kernel]" in tt.dispatch.dump_table("teachtest::mysin")


def test_missing_kernel_error(lib):
    lib.define("only_cpu(Tensor x) -> Tensor")
    lib.impl("only_cpu", lambda x: x.clone(), "CPU")
    with pytest.raises(NotImplementedError, match="Could not run 'teachtest::only_cpu' with arguments from the "
                                                   "'Meta' backend.*only available for these backends: "
                                                   r"\[CPU, Python, AutogradCPU"):
        tt.ops.teachtest.only_cpu(tt.zeros(2, device="meta"))


def test_composite_implicit_op_decomposes(lib):
    lib.define("square_plus_one(Tensor x) -> Tensor")
    lib.impl("square_plus_one", lambda x: x * x + 1, "CompositeImplicitAutograd")
    x = tt.arange(3.0)
    with tt.dispatch.trace() as t:
        y = tt.ops.teachtest.square_plus_one(x)
    assert y.tolist() == [1.0, 2.0, 5.0]
    inner = [e.op for e in t.events if e.depth == 1]
    assert inner == ["aten::mul.Tensor", "aten::add.Tensor"]
    # the same kernel serves the meta backend: shapes only
    assert tt.ops.teachtest.square_plus_one(tt.empty(4, device="meta")).shape == (4,)


def test_autograd_layer_kernel_redispatches_with_keyset(lib):
    calls = []
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")

    def autograd_kernel(ks, x):
        calls.append(tt.dispatch.keyset_names(ks))
        return dispatcher.redispatch(tt.ops.teachtest.twice.default, ks & tt._dispatch_key.AFTER_AUTOGRAD, (x,))
    lib.impl("twice", autograd_kernel, "AutogradCPU", with_keyset=True)
    assert tt.ops.teachtest.twice(tt.ones(2)).tolist() == [2.0, 2.0]
    assert calls == [["AutogradCPU", "CPU"]]    # BackendSelect falls through for this op: masked out


def test_fallthrough_skips_a_key(lib):
    lib.define("plain(Tensor x) -> Tensor")
    lib.impl("plain", lambda x: x + 0, "CPU")
    lib.impl("plain", tt.library.fallthrough_kernel, "AutogradCPU")
    with tt.dispatch.trace() as t:
        tt.ops.teachtest.plain(tt.ones(2))
    assert [e.key for e in t.events if e.op == "teachtest::plain"] == ["CPU"]
    assert "AutogradCPU: fallthrough" in tt.dispatch.dump_table("teachtest::plain")


def test_define_twice_is_refused(lib):
    lib.define("once(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="multiple times"):
        lib.define("once(Tensor x) -> Tensor")


def test_backend_select_for_factories():
    with tt.dispatch.trace() as t:
        m = tt.zeros(2, 3, device="meta")
    assert [e.key for e in t.events] == ["BackendSelect", "Meta"]
    assert m.device == tt.device("meta") and m.stride() == (3, 1)
    check(lambda lib: lib.zeros(2, device="meta").tolist())
    check(lambda lib: lib.zeros((), device="meta").item())
    check(lambda lib: lib.zeros(2, device="meta").numpy())
    check(lambda lib: repr(lib.zeros(2, 3, device="meta", dtype=lib.int32)))


def test_meta_backend_computes_shapes_strides_and_dtypes():
    def case(lib):
        a = lib.empty(3, 4, device="meta").t()
        b = lib.empty(4, 1, device="meta", dtype=lib.float64)
        return a + b, (a * 2).stride(), (a + b).dtype, a[1:].unsqueeze(0).stride()
    got, want = case(tt), case(torch)
    assert got[0].shape == want[0].shape and got[0].stride() == want[0].stride()
    assert got[1:3] == (want[1], tt.float64) and got[3] == want[3]
    with pytest.raises(NotImplementedError, match="meta"):
        tt.empty(2, device="meta").tolist()


def test_torch_dispatch_mode_sees_ops_below_autograd():
    seen = []

    class Recorder(tt.dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = tt.ones(2, 3)
    with Recorder():
        (x.t() + 1).sum()
    assert seen == ["aten.t.default", "aten.add.Tensor", "aten.sum.default"]
    assert "Python" not in tt.dispatch.keyset_names(dispatcher.tls.include)


def test_schema_parsing_and_binding():
    s = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    assert s.mutable_positions == [0] and not s.is_view and s.full_name == "add_.Tensor"
    assert str(s) == "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
    v = parse_schema("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]")
    assert v.is_view and v.returns[0].type == "Tensor[]"
    m = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert [r.name for r in m.returns] == ["values", "indices"]
    op = tt.dispatch.lookup("add.Tensor")
    assert op.schema.bind((1, 2), {"alpha": 3}) == (1, 2, 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        op.schema.bind((1, 2), {"beta": 3})
    with pytest.raises(TypeError, match="missing required argument 'other'"):
        op.schema.bind((1,), {})


# Python ints that do not fit an `int` argument's int64, refused as PyTorch's argument parser refuses them:
# ValueError for a lone int, TypeError naming the argument and the position for an element of a list.
BIG = 10**20
INT64_OVERFLOWS = {
    "tril": lambda lib, x: x.tril(BIG), "triu": lambda lib, x: lib.triu(x, -BIG),
    "tril_2**63": lambda lib, x: x.tril(2**63), "triu_-2**63-1": lambda lib, x: x.triu(-2**63 - 1),
    "tril_": lambda lib, x: x.clone().tril_(BIG), "tril_out": lambda lib, x: lib.tril(x, BIG, out=lib.empty(3, 4)),
    "tril_keyword": lambda lib, x: x.tril(diagonal=BIG),
    "sum_dim": lambda lib, x: x.sum(BIG), "sum_dims": lambda lib, x: x.sum((0, BIG)),
    "transpose": lambda lib, x: x.transpose(BIG, 0), "narrow_start": lambda lib, x: x.narrow(0, BIG, 1),
    "narrow_length": lambda lib, x: x.narrow(0, 0, -BIG), "roll": lambda lib, x: x.roll(BIG),
    "roll_list": lambda lib, x: x.roll([BIG], [0]), "roll_dims": lambda lib, x: x.roll(1, BIG),
    "repeat": lambda lib, x: x.repeat(BIG, 1), "repeat_tuple": lambda lib, x: x.repeat((1, BIG)),
    "view": lambda lib, x: x.view(BIG), "reshape": lambda lib, x: x.reshape(-1, BIG),
    "expand": lambda lib, x: x.expand(BIG, 3, 4), "unsqueeze": lambda lib, x: x.unsqueeze(BIG),
    "select": lambda lib, x: x.select(0, BIG), "flatten": lambda lib, x: x.flatten(BIG),
    "diagonal": lambda lib, x: x.diagonal(BIG), "topk": lambda lib, x: x.topk(BIG),
    "chunk": lambda lib, x: x.chunk(BIG), "split": lambda lib, x: x.split(BIG),
    "split_list": lambda lib, x: x.split([BIG, 1]),
    "unfold": lambda lib, x: x.unfold(0, BIG, 1), "movedim": lambda lib, x: x.movedim(BIG, 0),
    "movedim_list": lambda lib, x: x.movedim([BIG], [0]), "permute": lambda lib, x: x.permute(BIG, 0),
    "cumsum": lambda lib, x: x.cumsum(BIG), "flip": lambda lib, x: x.flip(BIG), "rot90": lambda lib, x: x.rot90(BIG),
    "cat": lambda lib, x: lib.cat([x, x], BIG), "gather": lambda lib, x: x.gather(BIG, lib.zeros(3, 4, dtype=lib.long)),
    "as_strided_size": lambda lib, x: x.as_strided((2**63,), (0,)),
    "as_strided_offset": lambda lib, x: lib.as_strided(x, size=(1,), stride=(1,), storage_offset=2**64),
    "zeros": lambda lib, x: lib.zeros(BIG), "zeros_tuple": lambda lib, x: lib.zeros((2, BIG)),
    "empty": lambda lib, x: lib.empty(BIG), "full": lambda lib, x: lib.full((BIG,), 1.0),
    "randn": lambda lib, x: lib.randn(2, BIG), "new_zeros": lambda lib, x: x.new_zeros(BIG),
    "new_full": lambda lib, x: x.new_full((BIG,), 1.0),
}


@pytest.mark.parametrize("case", INT64_OVERFLOWS)
def test_int_arguments_must_fit_int64(case):
    fn = INT64_OVERFLOWS[case]
    with pytest.raises((TypeError, ValueError)) as expected:
        fn(torch, torch.zeros(3, 4))
    with pytest.raises(type(expected.value)) as got:
        fn(tt, tt.zeros(3, 4))
    # PyTorch's TypeError carries a C++ traceback inside its quotes; teachtorch's closes the quote at once
    want = str(expected.value).split("\nException raised from")[0]
    assert str(got.value) == (want + '"' if want.count('"') % 2 else want)


def test_int_arguments_at_the_int64_limits_are_accepted():
    for fn in (lambda lib, x: x.tril(2**63 - 1), lambda lib, x: x.triu(-2**63), lambda lib, x: x.roll(2**63 - 1),
               lambda lib, x: x.narrow(0, 0, 3), lambda lib, x: x.as_strided((2**62,), (0,)).shape,
               lambda lib, x: x[10**20:], lambda lib, x: x[2**63 - 1:], lambda lib, x: x[:-2**62]):
        check(fn, rand(3, 4))
    # slice bounds are clamped, not refused (PyTorch warns when it truncates one below -2**62)
    for fn in (lambda lib, x: x[-10**20:10**20], lambda lib, x: x[:, :-2**62 - 1]):
        with pytest.warns(UserWarning, match="Truncating the start/stop/step of slice"):
            check(fn, rand(3, 4))


def test_ops_namespace():
    assert tt.ops.aten.add.Tensor is tt.dispatch.lookup("aten::add.Tensor")
    assert "Tensor" in tt.ops.aten.add.overloads() and "out" in tt.ops.aten.add.overloads()
    assert tt.ops.aten.mul(tt.ones(2), 3).tolist() == [3.0, 3.0]
    with pytest.raises(AttributeError):
        tt.ops.aten.not_an_op


def test_ops_packets_are_kept_and_follow_the_registry():
    # a packet is looked up once and kept (as PyTorch's are); its call follows operators defined later, and
    # destroying the library that defined an op removes its packet
    assert tt.ops.aten.threshold_backward is tt.ops.aten.threshold_backward
    library = tt.library.Library("teachpacket", "DEF")
    try:
        library.define("twice.Tensor(Tensor x) -> Tensor")
        library.impl("twice.Tensor", lambda x: x * 2, "CPU")
        packet = tt.ops.teachpacket.twice
        assert packet(tt.ones(2)).tolist() == [2.0, 2.0]
        library.define("twice(Tensor x) -> Tensor")           # a default overload, defined after the first call
        library.impl("twice", lambda x: x * 3, "CPU")
        assert packet(tt.ones(2)).tolist() == [3.0, 3.0]
    finally:
        library._destroy()
    with pytest.raises(AttributeError):
        tt.ops.teachpacket.twice


def test_mixed_device_error():
    check(lambda lib: lib.zeros(3) + lib.zeros(3, device="meta"), msg=False)


def test_ops_called_below_ad_inplace_or_view_do_not_bump_again(lib):
    # A mutating op whose backend kernel calls other mutating ops: still one version bump per call,
    # because the layers below ADInplaceOrView run with autograd and ADInplaceOrView excluded.
    lib.define("add_twice_(Tensor(a!) self, Tensor other) -> Tensor(a!)")
    lib.impl("add_twice_", lambda self, other: self.add_(other).add_(other), "CPU")
    x = tt.zeros(3)
    tt.ops.teachtest.add_twice_(x, tt.ones(3))
    assert x.tolist() == [2.0, 2.0, 2.0] and x._version == 1
    assert dispatcher.tls.exclude == 0


# ---- a trace left on around a long loop --------------------------------------------------------------------


def _train_steps(n, w):
    for _ in range(n):
        loss = (w * w).exp().sum()
        loss.backward()
        w.grad = None


def test_trace_is_bounded_by_default_and_says_what_it_dropped():
    w = tt.randn(8, requires_grad=True)
    from teachtorch.dispatch.trace import DEFAULT_MAX_EVENTS as limit
    with tt.dispatch.trace() as t:
        _train_steps(2500, w)          # ~20 hops a step: well past the default bound
    assert t.max_events == limit and t.dropped > 0
    assert len(t.events) <= 2 * limit and len(t.backward_events) <= limit
    assert t.backward_seen > len(t.backward_events) and t.backward_dropped == t.backward_seen - len(t.backward_events)
    text = t.format()
    assert text.startswith(f"... {t.dropped} earlier hops dropped (max_events={limit}; trace(max_events=None) keeps all)")
    assert t.events[0].depth == 0                  # whole calls are dropped, never part of one
    with tt.dispatch.trace(max_events=None) as everything:
        _train_steps(3, w)
    assert everything.dropped == 0 and not everything.format().startswith("...")


@pytest.mark.parametrize("bad", [0, -1, 2.5, "many"])
def test_trace_max_events_must_be_a_positive_int_or_none(bad):
    with pytest.raises(ValueError, match="max_events must be a positive int or None"):
        tt.dispatch.trace(max_events=bad)


def test_trace_memory_stays_flat_over_a_long_loop():
    """A bounded trace keeps no gradients, nodes or tensors beyond its window (backward_events included)."""
    import tracemalloc
    w = tt.randn(256, requires_grad=True)
    with tt.dispatch.trace(max_events=400):
        _train_steps(300, w)                       # fill the window
        tracemalloc.start()
        _train_steps(50, w)
        warm, _ = tracemalloc.get_traced_memory()
        _train_steps(1500, w)
        after, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert after - warm < 1_000_000, f"the trace grew by {after - warm} bytes over 1500 steps"


def test_a_failing_backward_inside_a_trace_leaves_later_ops_in_forward():
    class Boom(tt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            raise RuntimeError("boom")

    x = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        with pytest.raises(RuntimeError, match="boom"):
            (Boom.apply(x) * x).sum().backward()
        assert t.backward_node is None
        count = t._count
        tt.ones(2) + 1
    later = [e for e in t.events if e.index >= count]
    assert later and all(e.backward_node is None and e.backward_node_id is None for e in later)
    assert tt.is_grad_enabled()


def _def_at(root, source):
    path, line = source.rsplit(":", 1)
    assert path.startswith("teachtorch/"), source
    text = (root / path).read_text().splitlines()[int(line) - 1].strip()
    m = re.match(r"(?:async )?def (\w+)\(", text)
    assert m, (source, text)     # a def, never a lambda
    return path, m.group(1)


def _check_hop_names(t):
    """Each hop's kernel is shown by the name of the def at its file:line (the issue-15 map rule): `name`,
    `Class(module.compute).name` (a kernel object, its compute function in kernels/module.py) or
    `name('kind')` (a shared kernel bound with functools.partial). No lambda, no renamed function."""
    root = pathlib.Path(__file__).resolve().parents[1]
    seen = set()
    for e in t.events:
        if (e.kernel, e.source) in seen:
            continue
        seen.add((e.kernel, e.source))
        path, def_name = _def_at(root, e.source)
        assert "<" not in e.kernel and "::" not in e.kernel, e.kernel
        m = re.fullmatch(r"(\w+)\((?:(\w+)\.(\w+)|'[\w.]+')\)\.(\w+)", e.kernel)
        if m:     # a kernel object: its class and method are in `path`, its compute function in kernels/
            cls, module, compute, method = m.groups()
            assert method == def_name and re.search(rf"^class {cls}\b", (root / path).read_text(), re.M), e
            if module is not None:
                text = (root / f"teachtorch/kernels/{module}.py").read_text()
                assert re.search(rf"^def {compute}\(", text, re.M), e
            continue
        name = re.sub(r"\(.*\)$", "", e.kernel)     # max_min_dim_kernel('max') -> max_min_dim_kernel
        assert name.rsplit(".", 1)[-1] == def_name, (e.kernel, e.source, def_name)
    return seen


def test_every_hop_says_where_its_kernel_is_written():
    """A trace's hops carry the file:line of the kernel's `def`, so each one can be opened in the source,
    and the name they show is the name of that def, so it can be grepped."""
    a = tt.ones(3, 4, requires_grad=True)
    with tt.dispatch.trace() as t:
        b = (a * 2).t().sum(0)
        b.backward(tt.ones(3))
        c = a.detach()[1:]
        c.add_(1)
        tt.zeros(2).index_add_(0, tt.tensor([0]), tt.ones(1))
    assert t.events
    _check_hop_names(t)
    assert f"  {t.events[0].source} (" in t.format(hops=True)
    assert " us)" not in t.format(hops=True, durations=False)


def test_every_hop_of_a_training_step_is_named_as_its_def():
    """The same rule over a whole training step and a spread of op families: a model forward and backward,
    an optimizer step, reductions with their shared kernels, views, factories, random, indexing, copies."""
    tt.manual_seed(0)
    model = tt.nn.Sequential(tt.nn.Conv2d(1, 2, 3), tt.nn.ReLU(), tt.nn.Flatten(), tt.nn.Linear(8, 3))
    opt = tt.optim.Adam(model.parameters(), lr=0.01)
    x, y = tt.randn(4, 1, 4, 4), tt.tensor([0, 1, 2, 0])
    with tt.dispatch.trace() as t:
        loss = tt.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        z = tt.arange(12.0).reshape(3, 4)
        z.max(1), z.min(), z.argmax(0), z.var(1), tt.std_mean(z, 0), z.cumsum(1), z.softmax(0), z.all(), z.median(1)
        z[:, 1:].clone().exp_().clamp(0, 1).where(z[:, 1:] > 2, 0.5), 2 ** z, z.to(tt.int64) // 3
        tt.rand(2), tt.full((2,), 3.0), tt.linspace(0, 1, 5), z.t().contiguous(), z.unsqueeze(0).expand(2, 3, 4)
        z.tril(), z.clone().triu_(1), z.scatter(1, tt.tensor([[0], [1], [2]]), 5.0), z.index_add(0, tt.tensor([0]), z[:1])
    seen = _check_hop_names(t)
    assert len(seen) > 60, len(seen)     # a spread of kernels, not one family
    kernels = {k for k, _ in seen}
    assert {"PointwiseKernel(unary_math.exp).inplace", "max_min_dim_kernel('max')", "TriangleKernel('tril').functional",
            "ScatterKernel('scatter.value').functional", "index_add_kernel"} <= kernels, sorted(kernels)


# ---- register_fake and register_autograd: the same program in PyTorch and here ------------------------------

def _axpby_program(lib_module, ns, backward_returns=4):
    """Define ns::axpby with a CPU kernel, a fake kernel and an autograd formula, through lib_module.library."""
    lib = lib_module.library.Library(ns, "DEF")
    lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
    lib.impl("axpby", lambda x, y, a, b: a * x + b * y, "CPU")

    @lib_module.library.register_fake(f"{ns}::axpby")
    def _(x, y, a, b):
        return lib_module.empty_like(x)

    def setup_context(ctx, inputs, output):
        ctx.a, ctx.b = inputs[2], inputs[3]
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        assert tuple(x.shape) == tuple(grad.shape)
        return (ctx.a * grad, ctx.b * grad, None, None)[:backward_returns]

    lib_module.library.register_autograd(f"{ns}::axpby", backward, setup_context=setup_context)
    return lib, getattr(lib_module.ops, ns).axpby


@pytest.mark.parametrize("returns", [4, 2])
def test_register_fake_and_register_autograd_like_torch(returns):
    import torch
    seen = []
    for lib_module, ns in ((torch, "ttregtorch"), (tt, "ttregtt")):
        lib, axpby = _axpby_program(lib_module, ns, returns)
        try:
            x = lib_module.tensor([1.0, 2.0, 3.0], requires_grad=True)
            y = lib_module.tensor([0.5, -1.0, 4.0], requires_grad=True)
            out = axpby(x, y, 2.0, -3.0)
            meta = axpby(lib_module.empty(2, 5, device="meta"), lib_module.empty(2, 5, device="meta"), 1.0, 1.0)
            try:
                (out * lib_module.tensor([1.0, 10.0, 100.0])).sum().backward()
                grads = (x.grad.tolist(), y.grad.tolist())
            except RuntimeError as e:
                grads = str(e).replace(ns, "NS")
            seen.append((out.tolist(), type(out.grad_fn).__name__.replace(ns, "NS"), tuple(meta.shape),
                         meta.device.type, grads))
        finally:
            lib._destroy()
    assert seen[1] == seen[0]
    assert seen[0][1] == "GeneratedBackwardFor_NS_axpby_defaultBackward"
    assert (seen[0][4] == ([2.0, 20.0, 200.0], [-3.0, -30.0, -300.0]) if returns == 4
            else "returned an incorrect number of gradients (expected 5, got 3)" in seen[0][4])


def test_register_autograd_redispatches_below_autograd(lib):
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    tt.library.register_autograd(tt.ops.teachtest.twice, lambda ctx, g: g * 2)
    x = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        out = tt.ops.teachtest.twice(x)
    assert [(e.op, e.key) for e in t.events][:2] == [("teachtest::twice", "AutogradCPU"),
                                                       ("teachtest::twice", "CPU")]
    out.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
