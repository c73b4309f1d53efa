"""nn.Module, nn.Parameter and the containers, checked against PyTorch.

Most tests build the same module tree with `teachtorch.nn` and with `torch.nn` (the `lib` argument) and
compare what the two report: names and order of parameters, buffers and modules, state_dict keys, reprs,
hook call orders, error types and messages.
"""

import copy
import warnings
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

import teachtorch as tt
from parity import as_on_cpu

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

LIBS = (tt, torch)


def same_error(fn, match_message=True):
    """`fn(lib)` raises in both libraries: same error type, same message."""
    errors = []
    for lib in (torch, tt):
        with pytest.raises(Exception) as info:
            fn(lib)
        errors.append(info.value)
    theirs, ours = errors
    assert type(ours).__name__ == type(theirs).__name__, \
        f"{type(ours).__name__}({ours}) != {type(theirs).__name__}({theirs})"
    if match_message:
        # (our classes live in teachtorch.nn where PyTorch's live in torch.nn)
        assert as_on_cpu(str(ours).replace("teachtorch.", "torch.")) == str(theirs), (
            f"\n  got      {ours}\n  expected {theirs}")


def same(fn):
    """`fn(lib)` gives equal plain-Python results in both libraries."""
    ours, theirs = fn(tt), fn(torch)
    assert ours == theirs, f"\n  got      {ours}\n  expected {theirs}"
    return ours


def make_net(lib):
    """A small tree: own parameter, persistent and non-persistent buffers, nested Sequentials, a None slot."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("scratch", lib.ones(3), persistent=False)
            self.register_parameter("unused", None)

        def forward(self, x):
            return self.fc(x) + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(lib.ones(1))
            self.body = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Sequential(Block(), nn.Tanh()))
            self.head = nn.Linear(3, 2, bias=False)
            self.register_buffer("steps", lib.tensor(0))

        def forward(self, x):
            return self.head(self.body(x) * self.scale)

    return Net()


# ---- Parameter ----------------------------------------------------------------------------------------------


def test_parameter_is_a_leaf_tensor_over_the_same_storage():
    data = tt.arange(6.0).view(2, 3)
    p = tt.nn.Parameter(data)
    assert isinstance(p, tt.Tensor) and isinstance(p, tt.nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p.untyped_storage() is data.untyped_storage()
    assert not tt.nn.Parameter(data, requires_grad=False).requires_grad
    assert tuple(tt.nn.Parameter().shape) == (0,)
    # ops on a Parameter give plain tensors, as in PyTorch
    assert type(p * 2) is tt.Tensor and type(p.data) is tt.Tensor and type(p.detach()) is tt.Tensor


def test_parameter_repr_matches_torch():
    values = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    assert as_on_cpu(repr(tt.nn.Parameter(tt.tensor(values)))) == repr(torch.nn.Parameter(torch.tensor(values)))
    assert as_on_cpu(repr(tt.nn.Parameter(tt.tensor(values), requires_grad=False))) == repr(
        torch.nn.Parameter(torch.tensor(values), requires_grad=False))


def test_parameter_of_integer_tensor_refuses_grad():
    same_error(lambda lib: lib.nn.Parameter(lib.tensor([1, 2])), match_message=False)


def test_deepcopy_and_pickle_keep_parameters():
    net = tt.nn.Sequential(tt.nn.Linear(3, 2), tt.nn.ReLU(), tt.nn.Embedding(4, 2))
    for clone in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert [n for n, _ in clone.named_parameters()] == [n for n, _ in net.named_parameters()]
        for (_, a), (_, b) in zip(clone.named_parameters(), net.named_parameters()):
            assert type(a) is tt.nn.Parameter and a.requires_grad
            assert a.untyped_storage() is not b.untyped_storage()
            np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())


# ---- registration by attribute ---------------------------------------------------------------------------


def test_registration_dicts():
    def registered(lib):
        net = make_net(lib)
        block = net.body[2][0]
        return (list(net._parameters), list(net._buffers), list(net._modules), list(block._parameters),
                list(block._buffers), sorted(block._non_persistent_buffers_set))
    same(registered)


def test_assigning_none_and_deleting():
    def run(lib):
        m = lib.nn.Linear(2, 3)
        m.bias = None                           # a parameter slot may be emptied
        m.extra = lib.nn.ReLU()
        m.extra = None                          # and a module slot
        m.register_buffer("buf", lib.zeros(1))
        m.buf = None
        log = [list(m._parameters.items())[1], m.extra, m.buf, [n for n, _ in m.named_parameters()],
               list(m.state_dict())]
        del m.weight
        del m.buf
        m.plain = 3
        del m.plain
        log += [list(m._parameters), list(m._buffers), hasattr(m, "plain"), hasattr(m, "weight")]
        return log
    same(run)


def test_reassigning_a_name_moves_it_between_kinds():
    def run(lib):
        m = lib.nn.Module()
        m.x = lib.nn.Linear(1, 1)
        m.x = lib.nn.Parameter(lib.ones(1))     # now a parameter: no longer a module
        kinds = [list(m._parameters), list(m._modules)]
        m.register_buffer("b", lib.ones(1))
        m.b = lib.nn.Linear(1, 1)               # a buffer name taken over by a module
        kinds += [list(m._buffers), list(m._modules)]
        m.y = 5
        m.y = lib.nn.Parameter(lib.ones(1))     # a plain attribute becomes a parameter
        kinds += [list(m._parameters), "y" in m.__dict__]
        return kinds
    same(run)


@pytest.mark.parametrize("case", range(9))
def test_registration_errors_match_torch(case):
    def run(lib):
        nn = lib.nn
        m = nn.Linear(2, 3)
        if case == 0:
            m.weight = lib.zeros(3, 2)          # a plain tensor over a parameter
        elif case == 1:
            m.weight = 3
        elif case == 2:
            m.register_buffer("a.b", lib.zeros(1))
        elif case == 3:
            m.register_buffer("weight", lib.zeros(1))
        elif case == 4:
            m.register_buffer("x", 3)
        elif case == 5:
            m.register_parameter("", nn.Parameter(lib.ones(1)))
        elif case == 6:
            m.register_parameter("x", nn.Parameter(lib.ones(1)) * 2)
        elif case == 7:
            m.add_module("x", 3)
        elif case == 8:
            s = nn.Sequential(nn.ReLU())
            s[0] = 3
    same_error(run)


def test_assigning_before_init_fails_like_torch():
    def run(lib):
        class Bad(lib.nn.Module):
            def __init__(self):
                self.w = lib.nn.Parameter(lib.ones(1))
                super().__init__()
        Bad()
    same_error(run)


def test_getattr_error_and_missing_forward():
    same_error(lambda lib: lib.nn.Linear(2, 3).foo)
    same_error(lambda lib: lib.nn.Module()(lib.ones(1)))


def test_dir_lists_parameters_buffers_and_children():
    net = make_net(tt)
    names = dir(net)
    for name in ("scale", "body", "head", "steps", "state_dict", "training"):
        assert name in names
    assert "0" not in dir(net.body)


def test_get_submodule_parameter_buffer():
    def run(lib):
        net = make_net(lib)
        return [type(net.get_submodule("body.2.0.fc")).__name__, tuple(net.get_parameter("body.0.weight").shape),
                tuple(net.get_buffer("body.2.0.running").shape), net.get_submodule("") is net]
    same(run)
    same_error(lambda lib: make_net(lib).get_submodule("body.7"))
    same_error(lambda lib: make_net(lib).get_submodule("scale"))
    same_error(lambda lib: make_net(lib).get_parameter("body.2.0.running"))
    same_error(lambda lib: make_net(lib).get_buffer("head.weight"))


# ---- walking the tree -----------------------------------------------------------------------------------


def test_named_members_match_torch():
    def run(lib):
        net = make_net(lib)
        return [
            [n for n, _ in net.named_parameters()],
            [n for n, _ in net.named_parameters(prefix="model")],
            [n for n, _ in net.named_parameters(recurse=False)],
            [n for n, _ in net.named_buffers()],
            [n for n, _ in net.named_buffers(recurse=False)],
            [n for n, _ in net.named_modules()],
            [n for n, _ in net.named_modules(prefix="root")],
            [n for n, _ in net.named_children()],
            [type(m).__name__ for m in net.modules()],
            [type(m).__name__ for m in net.children()],
            len(list(net.parameters())), len(list(net.buffers())),
        ]
    same(run)


def test_shared_modules_and_tied_weights_deduplicate():
    def run(lib):
        nn = lib.nn
        shared = nn.Linear(2, 2)
        net = nn.Sequential(shared, nn.ReLU(), shared)
        tied = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3))
        tied[1].weight = tied[0].weight
        return [
            [n for n, _ in net.named_modules()],
            [n for n, _ in net.named_modules(remove_duplicate=False)],
            [n for n, _ in net.named_parameters()],
            [n for n, _ in net.named_parameters(remove_duplicate=False)],
            [n for n, _ in net.named_children()],
            [n for n, _ in tied.named_parameters()],
            list(tied.state_dict()),
        ]
    same(run)


def test_apply_visits_children_first():
    def run(lib):
        seen = []
        make_net(lib).apply(lambda m: seen.append(type(m).__name__))
        return seen
    same(run)


def test_train_eval_propagate():
    def run(lib):
        net = make_net(lib)
        log = [[m.training for m in net.modules()]]
        assert net.eval() is net
        log.append([m.training for m in net.modules()])
        net.body.train()
        log.append([m.training for m in net.modules()])
        return log
    same(run)
    same_error(lambda lib: make_net(lib).train("yes"))


def test_zero_grad_and_requires_grad():
    net = make_net(tt)
    net(tt.randn(5, 4)).sum().backward()
    grads = [p.grad for p in net.parameters()]
    assert all(g is not None for g in grads)
    net.zero_grad(set_to_none=False)
    assert all(p.grad is g and not g.any() for p, g in zip(net.parameters(), grads))
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())


def test_to_float64_keeps_parameter_identity():
    net = make_net(tt)
    net(tt.randn(5, 4)).sum().backward()
    params = list(net.parameters())
    assert net.to(tt.float64) is net
    assert all(a is b for a, b in zip(net.parameters(), params))   # the same Parameter objects
    for p in net.parameters():
        assert type(p) is tt.nn.Parameter and p.dtype is tt.float64 and p.requires_grad
        assert p.grad.dtype is tt.float64
    assert net.body[2][0].running.dtype is tt.float64
    assert net.steps.dtype is tt.int64            # integer buffers keep their dtype
    out = net(tt.randn(5, 4, dtype=tt.float64))
    assert out.dtype is tt.float64
    net.float()
    assert all(p.dtype is tt.float32 for p in net.parameters())
    net.double()
    assert all(p.dtype is tt.float64 for p in net.parameters())
    net.half()
    assert all(p.dtype is tt.float16 for p in net.parameters())
    assert net.cpu() is net and net.to("cpu") is net
    net.to(tt.zeros(1, dtype=tt.float32))              # to(tensor): that tensor's dtype and device
    assert all(p.dtype is tt.float32 for p in net.parameters())
    same_error(lambda lib: lib.nn.Linear(2, 2).to(lib.int64))


def test_to_float64_values_match_torch():
    theirs = torch.nn.Linear(3, 2)
    ours = tt.nn.Linear(3, 2)
    ours.load_state_dict({k: tt.tensor(v.cpu().numpy()) for k, v in theirs.state_dict().items()})
    theirs.double()
    ours.to(dtype=tt.float64)
    x = np.random.default_rng(0).standard_normal((4, 3))
    np.testing.assert_allclose(ours(tt.tensor(x)).detach().cpu().numpy(), theirs(torch.tensor(x)).detach().cpu().numpy(),
                               rtol=1e-12)


# ---- state_dict -------------------------------------------------------------------------------------------


def test_state_dict_keys_order_and_values():
    ours, theirs = make_net(tt), make_net(torch)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.state_dict()._metadata) == list(theirs.state_dict()._metadata)
    assert ours.state_dict()._metadata == theirs.state_dict()._metadata
    assert list(ours.state_dict(prefix="m.")) == list(theirs.state_dict(prefix="m."))
    sd = ours.state_dict()
    # detached aliases of the live tensors, or the tensors themselves with keep_vars
    assert not sd["body.0.weight"].requires_grad
    assert sd["body.0.weight"].untyped_storage() is ours.body[0].weight.untyped_storage()
    assert ours.state_dict(keep_vars=True)["body.0.weight"] is ours.body[0].weight


def test_load_state_dict_round_trip_from_torch():
    theirs, ours = make_net(torch), make_net(tt)
    weight_before = ours.body[0].weight
    result = ours.load_state_dict({k: tt.tensor(v.cpu().numpy()) for k, v in theirs.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    assert ours.body[0].weight is weight_before      # copied in place
    for (k, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy(), err_msg=k)
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(ours(tt.tensor(x)).detach().cpu().numpy(), theirs(torch.tensor(x)).detach().cpu().numpy(),
                               rtol=1e-5, atol=1e-6)


def _broken_state_dict(lib):
    sd = make_net(lib).state_dict()
    del sd["body.0.bias"]
    del sd["steps"]
    sd["body.2.0.extra"] = lib.zeros(1)
    sd["nothing.here"] = lib.zeros(1)
    return sd


def test_load_state_dict_strict_report_matches_torch():
    same_error(lambda lib: make_net(lib).load_state_dict(_broken_state_dict(lib)))

    def non_strict(lib):
        result = make_net(lib).load_state_dict(_broken_state_dict(lib), strict=False)
        return [result.missing_keys, result.unexpected_keys, repr(result), type(result).__name__, tuple(result)]
    same(non_strict)


def test_load_state_dict_shape_mismatch_and_bad_values():
    def wrong_shape(lib):
        sd = make_net(lib).state_dict()
        sd["head.weight"] = lib.zeros(3, 3)
        make_net(lib).load_state_dict(sd)
    same_error(wrong_shape)

    def not_a_tensor(lib):
        sd = make_net(lib).state_dict()
        sd["head.weight"] = [1.0]
        make_net(lib).load_state_dict(sd, strict=False)
    same_error(not_a_tensor)
    same_error(lambda lib: lib.nn.Linear(2, 2).load_state_dict([1, 2]), match_message=False)


def test_load_state_dict_assign():
    m = tt.nn.Linear(2, 3)
    new = {"weight": tt.ones(3, 2), "bias": tt.zeros(3)}
    m.load_state_dict(new, assign=True)
    assert type(m.weight) is tt.nn.Parameter and m.weight.requires_grad
    assert m.weight.untyped_storage() is new["weight"].untyped_storage()


def test_non_persistent_buffer_is_not_saved_or_loaded():
    net = make_net(tt)
    block = net.body[2][0]
    assert "body.2.0.scratch" not in net.state_dict()
    assert [n for n, _ in net.named_buffers()].count("body.2.0.scratch") == 1
    block.scratch = tt.full((3,), 5.0)                   # re-assigning keeps it non-persistent
    assert "body.2.0.scratch" not in net.state_dict()
    block.keep = tt.nn.Buffer(tt.zeros(2))
    block.temp = tt.nn.Buffer(tt.zeros(2), persistent=False)
    assert "body.2.0.keep" in net.state_dict() and "body.2.0.temp" not in net.state_dict()


# ---- hooks and calling ------------------------------------------------------------------------------------


def test_forward_hooks_order_and_removal():
    def run(lib):
        log = []
        m = lib.nn.Linear(2, 2)
        h1 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre1", len(args))))
        m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
        m.register_forward_hook(lambda mod, args, out: log.append(("post1", tuple(out.shape))))
        h2 = m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("post2", sorted(kwargs))),
                                     with_kwargs=True)
        m(lib.ones(3, 2))
        h1.remove()
        h2.remove()
        h2.remove()                                  # removing twice is harmless
        m(lib.ones(1, 2))
        return log
    same(run)


def test_hooks_can_replace_inputs_and_outputs():
    def run(lib):
        m = lib.nn.Identity()
        m.register_forward_pre_hook(lambda mod, args: args[0] * 2)          # one value: wrapped in a tuple
        m.register_forward_hook(lambda mod, args, out: out + 1)
        first = m(lib.ones(2)).tolist()
        m2 = lib.nn.Identity()
        m2.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 3,), kwargs), with_kwargs=True)
        with m2.register_forward_hook(lambda mod, args, out: out * 0):
            inside = m2(lib.ones(2)).tolist()
        return [first, inside, m2(lib.ones(2)).tolist()]
    same(run)

    def bad_pre_hook(lib):
        m = lib.nn.Identity()
        m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
        m(lib.ones(1))
    same_error(bad_pre_hook)


# ---- repr -------------------------------------------------------------------------------------------------


def test_repr_matches_torch():
    def build(lib):
        nn = lib.nn
        return [
            make_net(lib),
            nn.Sequential(OrderedDict([("embed", nn.Embedding(10, 4, padding_idx=0)), ("flat", nn.Flatten()),
                                       ("fc", nn.Linear(8, 3, bias=False)), ("act", nn.LeakyReLU(0.2, True))])),
            nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU(), nn.Tanh()]),
            nn.ModuleList(),
            nn.ModuleDict({"a": nn.GELU(approximate="tanh"), "b": nn.Sequential(nn.SiLU(), nn.Dropout(0.1))}),
            nn.Sequential(),
            nn.Unflatten(1, (2, 3)), nn.Softmax(), nn.LogSoftmax(dim=-1), nn.Softmax(1), nn.ReLU(inplace=True),
            nn.Embedding(3, 4, max_norm=2.0, norm_type=1.0), nn.Identity(), nn.Sigmoid(), nn.Dropout(p=0.3),
        ]
    for ours, theirs in zip(build(tt), build(torch)):
        assert repr(ours) == repr(theirs)


def test_extra_repr_multiline():
    def run(lib):
        class Multi(lib.nn.Module):
            def extra_repr(self):
                return "a=1\nb=2"
        outer = lib.nn.Sequential(Multi(), lib.nn.Linear(1, 1))
        return [repr(Multi()), repr(outer)]
    same(run)


# ---- containers -------------------------------------------------------------------------------------------


def test_sequential_behaviour():
    def run(lib):
        nn = lib.nn
        s = nn.Sequential(nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 3), nn.Tanh())
        log = [len(s), type(s[0]).__name__, type(s[-1]).__name__, type(s[1:3]).__name__,
               [type(m).__name__ for m in s[1:3]], list(s[::2]._modules), s[1:3][0] is s[1]]
        s.append(nn.Sigmoid())
        s.insert(1, nn.Identity())
        s.insert(-1, nn.GELU())
        s.extend([nn.SiLU()])
        log.append([type(m).__name__ for m in s])
        popped = s.pop(0)
        del s[1]
        del s[::3]
        log += [type(popped).__name__, list(s._modules), [type(m).__name__ for m in s]]
        t = s + nn.Sequential(nn.ReLU())
        s += nn.Sequential(nn.Tanh())
        log += [[type(m).__name__ for m in t], list(s._modules)]
        named = nn.Sequential(OrderedDict([("first", nn.Linear(1, 2)), ("second", nn.ReLU())]))
        log += [list(named._modules), list(named[1:]._modules), type(named[-1]).__name__,
                list(named.state_dict())]
        return log
    same(run)
    same_error(lambda lib: lib.nn.Sequential(lib.nn.ReLU())[3])
    same_error(lambda lib: lib.nn.Sequential(lib.nn.ReLU()) + lib.nn.ModuleList())
    same_error(lambda lib: lib.nn.Sequential().insert(2, lib.nn.ReLU()))


def test_sequential_forward_chains():
    s = tt.nn.Sequential(tt.nn.Linear(3, 4), tt.nn.ReLU(), tt.nn.Linear(4, 2))
    x = tt.randn(5, 3)
    expected = s[2](s[1](s[0](x)))
    np.testing.assert_array_equal(s(x).detach().cpu().numpy(), expected.detach().cpu().numpy())


def test_module_list_behaviour():
    def run(lib):
        nn = lib.nn
        ml = nn.ModuleList([nn.Linear(1, 1), nn.ReLU()])
        ml.append(nn.Tanh())
        ml.extend([nn.Sigmoid(), nn.GELU()])
        ml.insert(1, nn.Identity())
        ml += [nn.SiLU()]
        log = [len(ml), [type(m).__name__ for m in ml], type(ml[1:3]).__name__, type(ml[-2]).__name__,
               [type(m).__name__ for m in ml + nn.ModuleList([nn.ReLU()])]]
        ml[0] = nn.Linear(2, 2)
        popped = ml.pop(1)
        del ml[::2]
        log += [type(popped).__name__, list(ml._modules), [type(m).__name__ for m in ml],
                [n for n, _ in nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1)]).named_parameters()]]
        return log
    same(run)
    same_error(lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])[-2])
    same_error(lambda lib: lib.nn.ModuleList().extend(3))


def test_module_dict_behaviour():
    def run(lib):
        nn = lib.nn
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 1)})
        md.update([("c", nn.Tanh())])
        md.update(OrderedDict([("d", nn.Sigmoid())]))
        md["e"] = nn.GELU()
        log = [list(md.keys()), [type(v).__name__ for v in md.values()], [k for k, _ in md.items()],
               "a" in md, "z" in md, len(md), list(md)]
        popped = md.pop("b")
        del md["c"]
        log += [type(popped).__name__, list(md), [n for n, _ in md.named_parameters()]]
        md.clear()
        log.append(len(md))
        return log
    same(run)
    same_error(lambda lib: lib.nn.ModuleDict().update([("a", lib.nn.ReLU(), 3)]))
    same_error(lambda lib: lib.nn.ModuleDict().update(5))


def test_deepcopy_of_a_model_gives_an_independent_model_with_parameters():
    import copy
    model = tt.nn.Sequential(tt.nn.Linear(3, 4), tt.nn.BatchNorm1d(4))
    clone = copy.deepcopy(model)
    for (name, p), (name2, q) in zip(model.named_parameters(), clone.named_parameters()):
        assert name == name2 and type(q) is tt.nn.Parameter and q.requires_grad
        assert q.data_ptr() != p.data_ptr() and q.tolist() == p.tolist() and q.stride() == p.stride()
    with tt.no_grad():
        clone[0].weight.add_(1.0)
    assert not tt.equal(clone[0].weight, model[0].weight)
    assert [b.dtype for b in clone.buffers()] == [b.dtype for b in model.buffers()]


# ---- nn.Buffer, always_call and full backward hooks (issue 14) ---------------------------------------------

from parity import rand  # noqa: E402


class _Values:
    """A tensor's dtype, shape and values in a hook log; equal to another's within float32 rounding."""

    def __init__(self, t):
        self.dtype = str(t.dtype).replace("teachtorch.", "torch.")
        self.shape = tuple(t.shape)
        self.values = np.array(t.detach().reshape(-1).tolist(), dtype=np.float64)

    def __eq__(self, other):
        return (isinstance(other, _Values) and (self.dtype, self.shape) == (other.dtype, other.shape)
                and np.allclose(self.values, other.values, rtol=1e-5, atol=1e-5))

    def __repr__(self):
        return f"<{self.dtype} {self.shape} {np.round(self.values, 4).tolist()}>"


def _plain(x):
    """Tensors (nested in tuples and lists) as `_Values`, for comparing hook logs across libraries."""
    if isinstance(x, (tuple, list)):
        return type(x)(_plain(e) for e in x)
    if isinstance(x, (tt.Tensor, torch.Tensor)):
        return _Values(x)
    return x


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_buffer_reads_back_as_a_plain_tensor(layout):
    data = rand(2, 3, layout=layout)

    def run(lib):
        x = data.build(lib).requires_grad_()
        b = lib.nn.Buffer(x, persistent=False)
        m = lib.nn.Module()
        m.b = b
        m.c = lib.nn.Buffer(lib.ones(1))
        m.d = lib.nn.Buffer()
        seen = [type(b).__name__, type(m.b).__name__, m.b is b, b is x, b.requires_grad, b.grad_fn is None,
                b.stride(), b.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
                isinstance(b, lib.nn.Buffer), isinstance(x, lib.nn.Buffer), isinstance(b * 2, lib.nn.Buffer),
                issubclass(lib.nn.Buffer, lib.Tensor), b.persistent, m.c.persistent, tuple(m.d.shape),
                list(m.state_dict()), [n for n, _ in m.named_buffers()], sorted(m._non_persistent_buffers_set)]
        m.b = lib.zeros(2)                         # a plain tensor into a buffer slot: stays non-persistent
        m.c = lib.nn.Buffer(lib.ones(1), persistent=False)   # a Buffer brings its own flag
        seen += [list(m.state_dict()), type(m.b).__name__]
        return seen
    same(run)


def test_buffer_into_a_parameter_or_module_slot_is_refused():
    def parameter_slot(lib):
        lib.nn.Linear(1, 1).weight = lib.nn.Buffer(lib.ones(1, 1))

    def module_slot(lib):
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))
        m.lin = lib.nn.Linear(1, 1)
        m.lin = lib.nn.Buffer(lib.ones(1))
    same_error(parameter_slot)
    same_error(module_slot)


def _always_call_log(lib, failing):
    class Net(lib.nn.Module):
        def forward(self, x, scale=1.0):
            if failing == "forward":
                raise ValueError("boom in forward")
            return x * scale

    m, log = Net(), []
    m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("pre", sorted(kwargs))), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("always1", _plain(out))), always_call=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("normal", _plain(out))))

    def failing_hook(mod, args, out):
        log.append("failing_hook")
        if failing == "hook":
            raise ValueError("boom in hook")
    m.register_forward_hook(failing_hook)
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("always_kw", sorted(kwargs), _plain(out))),
                            always_call=True, with_kwargs=True)

    def bad_always(mod, args, out):
        log.append("bad_always")
        if failing != "nothing":                 # (on success its error would simply propagate)
            raise KeyError("the always hook fails too")
    h = m.register_forward_hook(bad_always, always_call=True)
    h2 = m.register_forward_hook(lambda mod, args, out: log.append("removed"), always_call=True)
    h2.remove()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            log.append(("result", _plain(m(lib.ones(2), scale=2.0))))
        except Exception as e:                   # noqa: BLE001  (the same error must come out of both)
            log.append(("raised", type(e).__name__, str(e)))
    log.append([str(w.message) for w in caught])
    h.remove()
    log.append((len(m._forward_hooks), len(m._forward_hooks_always_called), len(m._forward_hooks_with_kwargs)))
    return log


@pytest.mark.parametrize("failing", ["nothing", "forward", "hook"])
def test_forward_hook_always_call_like_torch(failing):
    """always_call hooks still run when forward or a hook raised (once each), their own errors become warnings."""
    same(lambda lib: _always_call_log(lib, failing))


def _hooked(lib, make, x_layout, setup, backward=lambda lib, y, x: y.pow(2).sum().backward()):
    lib.manual_seed(0)
    m = make(lib)
    with lib.no_grad():                           # the same weights in both libraries
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
    log = []
    setup(m, log)
    x = x_layout.build(lib).requires_grad_()
    y = m(x)
    backward(lib, y, x)
    return log, _plain(x.grad), [_plain(p.grad) for p in m.parameters()]


_HOOK_MODULES = {
    "linear": (lambda lib: lib.nn.Linear(4, 3), (2, 4)),
    "conv2d": (lambda lib: lib.nn.Conv2d(2, 3, 2), (1, 2, 4, 4)),
    "layer_norm": (lambda lib: lib.nn.LayerNorm(4), (3, 4)),
    "sequential": (lambda lib: lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2)), (2, 4)),
    "batch_norm": (lambda lib: lib.nn.BatchNorm1d(4), (3, 4)),
}


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
@pytest.mark.parametrize("name", list(_HOOK_MODULES))
def test_full_backward_hooks_see_and_replace_gradients_like_torch(name, layout):
    make, shape = _HOOK_MODULES[name]
    xp = rand(*shape, layout=layout, seed=5)

    def setup(m, log):
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _plain(go))))
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))           # doubles grad_output
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", _plain(gi), _plain(go))))
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))           # shifts grad_input
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("after", _plain(gi))))
        for i, child in enumerate(m.children()):                                 # (Sequential: each layer too)
            child.register_full_backward_hook(lambda mod, gi, go, i=i: log.append(("child", i, _plain(gi))))
            child.register_full_backward_pre_hook(lambda mod, go, i=i: log.append(("child_pre", i)))
    same(lambda lib: _hooked(lib, make, xp, setup))


def test_full_backward_hook_order_prepend_and_removal_like_torch():
    def setup(m, log):
        h1 = m.register_full_backward_hook(lambda mod, gi, go: log.append("a"))
        m.register_full_backward_hook(lambda mod, gi, go: log.append("b"), prepend=True)
        m.register_full_backward_pre_hook(lambda mod, go: log.append("p1"))
        h4 = m.register_full_backward_pre_hook(lambda mod, go: log.append("p0"), True)
        m.register_forward_hook(lambda *a: log.append("f"))
        m.register_forward_pre_hook(lambda *a: log.append("fp"))
        m._handles = (h1, h4)

    def backward(lib, y, x):
        y.sum().backward(retain_graph=True)
        m = _hooked.current
        for h in m._handles:
            h.remove()
        m(x).sum().backward()

    def run(lib):
        make = _HOOK_MODULES["linear"][0]

        def make_and_remember(lib):
            _hooked.current = make(lib)
            return _hooked.current
        log, xg, pg = _hooked(lib, make_and_remember, rand(2, 4, layout="permuted"), setup, backward)
        m = _hooked.current
        return log, xg, pg, len(m._backward_hooks), len(m._backward_pre_hooks)
    same(run)


class _MultiIO:
    @staticmethod
    def make(lib):
        class Multi(lib.nn.Module):
            def forward(self, a, k, b):
                return a * k, b.sum() * 2, "label"
        return Multi()


@pytest.mark.parametrize("case", ["non_tensors_are_none", "no_input_requires_grad", "no_input_returns_grads",
                                  "bad_count", "bad_pre_count", "no_grad_mode", "dict_output", "autograd_grad",
                                  "graph_nodes"])
def test_full_backward_hook_corners_like_torch(case):
    """Non-tensor arguments are None, a module whose inputs need no gradient still fires (with a warning),
    wrong tuple lengths are refused, nothing is hooked without grad mode."""
    def run(lib):
        log = []
        lin = lib.nn.Linear(3, 2)
        with lib.no_grad():                           # the same weights in both libraries
            lin.weight.copy_(lib.linspace(-1, 1, 6).reshape(2, 3))
            lin.bias.fill_(0.5)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if case == "non_tensors_are_none":
                    m = _MultiIO.make(lib)
                    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _plain(go))))
                    m.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", _plain(gi), _plain(go))))
                    a = rand(2, 3, layout="permuted").build(lib).requires_grad_()
                    out = m(a, 3, lib.ones(3))
                    out[0].sum().backward()
                    log.append((type(out).__name__, out[2], _plain(a.grad)))
                elif case in ("no_input_requires_grad", "no_input_returns_grads"):
                    result = None if case == "no_input_requires_grad" else (lib.ones(2, 3),)
                    lin.register_full_backward_hook(lambda mod, gi, go: log.append(_plain((gi, go))) or result)
                    lin(lib.ones(2, 3)).sum().backward()
                    log.append(_plain(lin.bias.grad))
                elif case == "bad_count":
                    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
                    lin(lib.ones(2, 3, requires_grad=True)).sum().backward()
                elif case == "bad_pre_count":
                    lin.register_full_backward_pre_hook(lambda mod, go: ())
                    lin(lib.ones(2, 3, requires_grad=True)).sum().backward()
                elif case == "no_grad_mode":
                    lin.register_full_backward_hook(lambda mod, gi, go: log.append("fired"))
                    with lib.no_grad():
                        y = lin(lib.ones(2, 3, requires_grad=True))
                    log.append((y.requires_grad, y.grad_fn is None))
                elif case == "dict_output":
                    class D(lib.nn.Module):
                        def forward(self, a):
                            return {"y": a * 2}
                    d = D()
                    d.register_full_backward_hook(lambda mod, gi, go: log.append("fired"))
                    out = d(lib.ones(2, requires_grad=True))
                    out["y"].sum().backward()
                    log.append(type(out).__name__)
                elif case == "autograd_grad":
                    lin.register_full_backward_hook(lambda mod, gi, go: log.append(_plain(gi)))
                    x = lib.ones(2, 3, requires_grad=True)
                    (g,) = lib.autograd.grad(lin(x).sum(), x, create_graph=True)
                    log.append((_plain(g), g.requires_grad))
                else:
                    lin.register_full_backward_hook(lambda mod, gi, go: None)
                    y = lin(lib.ones(2, 3, requires_grad=True))
                    log.append((y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions if n]))
            except RuntimeError as e:
                log.append(("raised", str(e)))
        log.append([str(w.message).split(" See ")[0] for w in caught])
        return log
    same(run)


@pytest.mark.parametrize("where", ["input", "output"])
def test_full_backward_hook_refuses_inplace_on_the_wrapped_tensors_like_torch(where):
    """The module's inputs and outputs are views made by the hook's identity Function: an in-place op on
    one would bypass it, so PyTorch refuses it, naming the Function."""
    def run(lib):
        if where == "input":
            m = lib.nn.ReLU(inplace=True)
            m.register_full_backward_hook(lambda *a: None)
            return m(lib.ones(2, requires_grad=True) * 1)
        m = lib.nn.Linear(3, 2)
        m.register_full_backward_hook(lambda *a: None)
        return m(lib.ones(1, 3, requires_grad=True)).add_(1)
    same_error(run)


def test_module_without_backward_hooks_calls_forward_directly():
    m = tt.nn.Linear(3, 2)
    y = m(tt.ones(1, 3, requires_grad=True))
    assert y.grad_fn.name() == "AddmmBackward0"
    h = m.register_full_backward_pre_hook(lambda mod, go: None)
    assert m(tt.ones(1, 3, requires_grad=True)).grad_fn.name() == "BackwardHookFunctionBackward"
    h.remove()
    assert m(tt.ones(1, 3, requires_grad=True)).grad_fn.name() == "AddmmBackward0"
