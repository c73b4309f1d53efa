"""Set-up APIs that PyTorch scripts call (accelerator, bfloat16, backends flags, autocast, GradScaler, compile,
nn.parallel, distributed, legacy constructors, safe globals, out-of-scope modules), and the runner that makes
`import torch` give teachtorch (`python -m teachtorch.run`, `install_as_torch`).

Each is compared with torch: values, state, warnings, error types and messages. The runner tests write small
PyTorch scripts, run them with `python script.py` on torch and through teachtorch, and compare what they print.
"""

import math
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch

import teachtorch as tt

from parity import P, assert_same, check, rand

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NO_GPU = not tt.cuda.is_available()
needs_no_gpu = pytest.mark.skipif(not NO_GPU, reason="compares with torch CPU, which sees no GPU")


def same_outcome(fn, msg=True):
    """fn(torch) and fn(tt) return equal values, or raise the same error type with the same message."""
    return check(lambda lib: fn(lib), msg=msg)


def recorded_warnings(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(lib)
    return result, [(w.category.__name__, str(w.message)) for w in caught]


# ---- torch.accelerator, torch.cuda.is_bf16_supported -----------------------------------------------------------


@needs_no_gpu
def test_accelerator_on_a_cpu_only_machine():
    same_outcome(lambda lib: (lib.accelerator.is_available(), lib.accelerator.current_accelerator(),
                              lib.accelerator.device_count(), lib.cuda.is_bf16_supported()))


def test_accelerator_follows_cuda():
    assert tt.accelerator.is_available() == tt.cuda.is_available()
    assert tt.accelerator.device_count() == tt.cuda.device_count()
    expected = tt.device("cuda") if tt.cuda.is_available() else None
    assert tt.accelerator.current_accelerator() == expected
    assert tt.cuda.is_bf16_supported() is False      # no bfloat16 tensors, even on a GPU


# ---- bfloat16: a dtype without tensors -------------------------------------------------------------------------


def test_bfloat16_is_a_dtype_like_pytorchs():
    b = tt.bfloat16
    assert repr(b) == repr(torch.bfloat16) == "torch.bfloat16"
    assert str(b) == str(torch.bfloat16)
    assert b == tt.bfloat16 and b != tt.float32 and b != tt.float16
    assert {b: 1}[tt.bfloat16] == 1
    assert (b.is_floating_point, b.is_signed, b.is_complex) == (True, True, False)
    import pickle
    assert pickle.loads(pickle.dumps(b)) is b


@pytest.mark.parametrize("other", ["bool", "uint8", "int64", "float16", "float32", "float64", "bfloat16"])
def test_bfloat16_promotes_as_in_pytorch(other):
    same_outcome(lambda lib: (lib.promote_types(lib.bfloat16, getattr(lib, other)),
                              lib.promote_types(getattr(lib, other), lib.bfloat16)))


@pytest.mark.parametrize("make, op", [
    (lambda: tt.zeros(2, 3, dtype=tt.bfloat16), "zeros"),
    (lambda: tt.empty(4, dtype=tt.bfloat16), "empty"),
    (lambda: tt.empty_strided((2, 2), (1, 2), dtype=tt.bfloat16), "empty_strided"),
    (lambda: tt.tensor([1.0, 2.0], dtype=tt.bfloat16), "tensor"),
    (lambda: tt.full((2,), 1.5, dtype=tt.bfloat16), "full"),
    (lambda: tt.arange(3, dtype=tt.bfloat16), "arange"),
    (lambda: tt.randn(3, dtype=tt.bfloat16), "randn"),
    (lambda: rand(3, 4, layout="permuted").build(tt).to(tt.bfloat16), "to"),
    (lambda: rand(3, 4, layout="sliced").build(tt).to(dtype=tt.bfloat16), "to"),
    (lambda: tt.set_default_dtype(tt.bfloat16), "set_default_dtype"),
])
def test_bfloat16_deviation_no_tensor_can_be_made(make, op):
    # PyTorch makes these tensors; teachtorch refuses, naming the op (README, knowingly differs)
    with pytest.raises(TypeError, match=rf"^{op}\(\): teachtorch has no torch.bfloat16 tensors: NumPy has no "
                                        "bfloat16 type"):
        make()
    assert tt.get_default_dtype() is tt.float32


def test_bfloat16_deviation_nn_module_to_bfloat16_refuses_and_keeps_the_weights():
    layer = tt.nn.Linear(3, 2)
    before = layer.weight.detach().clone()
    assert torch.nn.Linear(3, 2).to(torch.bfloat16).weight.dtype == torch.bfloat16     # PyTorch's answer
    with pytest.raises(TypeError, match="teachtorch has no torch.bfloat16 tensors"):
        layer.to(tt.bfloat16)
    assert layer.weight.dtype is tt.float32 and bool((layer.weight == before).all())


# ---- torch.backends flags, float32 matmul precision ------------------------------------------------------------


@pytest.fixture
def restore_flags():
    yield
    for lib in (tt, torch):
        lib.set_float32_matmul_precision("highest")
        lib.backends.cudnn.benchmark = False
        lib.backends.cudnn.deterministic = False
        lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True


def test_backend_flags_defaults_match_pytorch():
    same_outcome(lambda lib: (
        lib.backends.cuda.matmul.allow_tf32, lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        lib.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
        lib.backends.cudnn.allow_tf32, lib.backends.cudnn.benchmark, lib.backends.cudnn.deterministic,
        lib.backends.cudnn.enabled, lib.backends.cudnn.is_available(), lib.backends.cudnn.version(),
        lib.backends.mps.is_available(), lib.backends.mps.is_built(), lib.get_float32_matmul_precision()))


def test_backend_flags_keep_what_is_set(restore_flags):
    def setting(lib):
        lib.backends.cudnn.benchmark = True
        lib.backends.cudnn.deterministic = True
        lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
        return (lib.backends.cudnn.benchmark, lib.backends.cudnn.deterministic,
                lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction)
    same_outcome(setting)


@pytest.mark.parametrize("precision", ["high", "medium", "highest"])
def test_float32_matmul_precision_drives_allow_tf32(restore_flags, precision):
    def setting(lib):
        lib.set_float32_matmul_precision(precision)
        return lib.get_float32_matmul_precision(), lib.backends.cuda.matmul.allow_tf32
    same_outcome(setting)


def test_float32_matmul_precision_errors_and_warnings(restore_flags):
    same_outcome(lambda lib: lib.set_float32_matmul_precision(3))
    _, ours = recorded_warnings(lambda lib: lib.set_float32_matmul_precision("bogus"), tt)
    _, theirs = recorded_warnings(lambda lib: lib.set_float32_matmul_precision("bogus"), torch)
    assert [m.split(" (Triggered internally")[0] for _, m in theirs] == [m for _, m in ours]
    assert tt.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"


def test_allow_tf32_writes_the_precision(restore_flags):
    tt.backends.cuda.matmul.allow_tf32 = True
    assert tt.get_float32_matmul_precision() == "high"
    tt.backends.cuda.matmul.allow_tf32 = False
    assert tt.get_float32_matmul_precision() == "highest"


def test_matmul_flags_refuse_unknown_names():
    same_outcome(lambda lib: lib.backends.cuda.matmul.no_such_flag)
    same_outcome(lambda lib: setattr(lib.backends.cuda.matmul, "no_such_flag", 1))


def test_backend_flags_leave_the_kernel_backends_in_place():
    import teachtorch.backends.cudnn as cudnn
    assert tt.backends.cudnn is cudnn
    assert tt.backends.cuda.device_count is not None and callable(tt.backends.write)


def test_matmul_results_do_not_depend_on_the_precision_flag(restore_flags):
    a, b = rand(5, 4, layout="permuted"), rand(4, 3, layout="sliced", seed=1)
    for precision in ("highest", "medium"):
        tt.set_float32_matmul_precision(precision)
        check(lambda lib, x, y: x @ y, a, b)


# ---- autocast --------------------------------------------------------------------------------------------------


def test_autocast_state_matches_pytorch():
    def states(lib):
        seen = [lib.is_autocast_enabled(), lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")]
        with lib.autocast("cpu") as region:
            seen += [type(region).__name__, region.fast_dtype, lib.is_autocast_enabled("cpu"),
                     lib.is_autocast_enabled(), lib.get_autocast_dtype("cpu")]
            with lib.amp.autocast(device_type="cpu", dtype=lib.float16):
                seen += [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")]
                with lib.autocast("cpu", enabled=False):
                    seen += [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")]
                seen += [lib.is_autocast_enabled("cpu")]
            seen += [lib.get_autocast_dtype("cpu")]
        seen += [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")]
        return seen
    same_outcome(states)


def test_autocast_as_a_decorator():
    def states(lib):
        @lib.autocast("cpu", dtype=lib.float16)
        def inside(x):
            return lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"), x.shape
        return inside(lib.ones(2, 3).t()), lib.is_autocast_enabled("cpu")
    same_outcome(states)


def test_autocast_cache_enabled():
    def states(lib):
        with lib.autocast("cpu", cache_enabled=False):
            inside = lib.is_autocast_cache_enabled()
        return inside, lib.is_autocast_cache_enabled()
    same_outcome(states)


def test_autocast_unsupported_cpu_dtype_warns_and_disables():
    def run(lib):
        with lib.autocast("cpu", dtype=lib.float64):
            return lib.is_autocast_enabled("cpu")
    ours, ours_w = recorded_warnings(run, tt)
    theirs, theirs_w = recorded_warnings(run, torch)
    assert ours is theirs is False
    assert ours_w == theirs_w


@needs_no_gpu
def test_autocast_cuda_without_a_gpu_warns_and_disables():
    def run(lib):
        with lib.autocast("cuda"):
            return lib.is_autocast_enabled("cuda"), lib.is_autocast_enabled()
    assert recorded_warnings(run, tt) == recorded_warnings(run, torch)
    assert recorded_warnings(lambda lib: repr(lib.cuda.amp.autocast().fast_dtype), tt) == \
        recorded_warnings(lambda lib: repr(lib.cuda.amp.autocast().fast_dtype), torch)


def test_autocast_bad_arguments():
    same_outcome(lambda lib: lib.autocast(0))
    # (teachtorch knows fewer device types than PyTorch, so the list in the message is shorter)
    same_outcome(lambda lib: lib.autocast("no_such_device"),
                 msg="device type at start of device string: no_such_device")
    assert recorded_warnings(lambda lib: lib.autocast("cpu", dtype="float16")._enabled, tt) == \
        recorded_warnings(lambda lib: lib.autocast("cpu", dtype="float16")._enabled, torch)


def test_autocast_deviation_ops_keep_their_dtype():
    # PyTorch's CPU autocast runs linear in bfloat16; teachtorch has no bfloat16 and computes in float32
    x = rand(4, 3, layout="permuted")
    with torch.autocast("cpu"):
        assert torch.nn.functional.linear(x.build(torch), torch.ones(2, 3)).dtype == torch.bfloat16
    with tt.autocast("cpu"):
        out = tt.nn.functional.linear(x.build(tt), tt.ones(2, 3))
    assert out.dtype is tt.float32
    np.testing.assert_allclose(out.numpy(), x.values @ np.ones((3, 2), np.float32), rtol=1e-6)


# ---- GradScaler ------------------------------------------------------------------------------------------------


W = np.array([[0.5, -1.0], [0.25, 2.0], [-0.75, 0.1]], np.float32)
X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def _train_with_scaler(lib, layout, inf_steps=(), clip=False, steps=7):
    w = lib.nn.Parameter(P(W, layout).build(lib))
    x = P(X, layout, seed=1).build(lib)
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 4, growth_interval=2)
    trace = []
    for step in range(steps):
        opt.zero_grad()
        loss = (x @ w).pow(2).mean()
        if step in inf_steps:
            loss = loss * math.inf
        scaled = scaler.scale(loss)
        scaled.backward()
        if clip:
            scaler.unscale_(opt)
            trace.append(w.grad.clone())
            lib.nn.utils.clip_grad_norm_([w], 1.0)
        result = scaler.step(opt)
        scaler.update()
        trace += [scaled.detach(), result, scaler.get_scale(), scaler.state_dict(), w.detach().clone()]
    return trace


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
@pytest.mark.parametrize("inf_steps", [(), (1,), (0, 3, 4)])
def test_grad_scaler_matches_pytorch(layout, inf_steps):
    ours = _train_with_scaler(tt, layout, inf_steps)
    theirs = _train_with_scaler(torch, layout, inf_steps)
    assert_same(ours, theirs, strides=False, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_grad_scaler_unscale_then_clip(layout):
    assert_same(_train_with_scaler(tt, layout, (2,), clip=True), _train_with_scaler(torch, layout, (2,), clip=True),
                strides=False, rtol=1e-5, atol=1e-6)


def test_grad_scaler_unscales_non_contiguous_grads_in_place():
    def run(lib):
        w = lib.nn.Parameter(lib.ones(3, 2))
        opt = lib.optim.SGD([w], lr=1.0)
        scaler = lib.amp.GradScaler("cpu", init_scale=4.0)
        scaler.scale(w.sum()).backward()
        grad = P(W.T.copy() * 4, "permuted").build(lib).t()     # a transposed grad, as a view
        w.grad = grad
        scaler.unscale_(opt)
        return w.grad is grad, w.grad, w.grad.stride()
    same_outcome(run)


def test_grad_scaler_state_dict_round_trip():
    def run(lib):
        source = lib.amp.GradScaler("cpu", init_scale=8.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=5)
        w = lib.nn.Parameter(lib.ones(2))
        source.scale(w.sum()).backward()
        source.step(lib.optim.SGD([w], lr=0.1))
        source.update()
        target = lib.amp.GradScaler("cpu")
        target.load_state_dict(source.state_dict())
        return (target.state_dict(), target.get_scale(), target.get_growth_factor(), target.get_backoff_factor(),
                target.get_growth_interval())
    same_outcome(run)


def _scaler_and_opt(lib):
    w = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([w], lr=0.1)
    scaler = lib.amp.GradScaler("cpu")
    return w, opt, scaler


def _unscale_twice(lib):
    w, opt, scaler = _scaler_and_opt(lib)
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    scaler.unscale_(opt)


def _unscale_after_step(lib):
    w, opt, scaler = _scaler_and_opt(lib)
    scaler.scale(w.sum()).backward()
    scaler.step(opt)
    scaler.unscale_(opt)


def _step_twice(lib):
    w, opt, scaler = _scaler_and_opt(lib)
    scaler.scale(w.sum()).backward()
    scaler.step(opt)
    scaler.step(opt)


def _update_before_scale(lib):
    _scaler_and_opt(lib)[2].update()


def _step_with_closure(lib):
    w, opt, scaler = _scaler_and_opt(lib)
    scaler.scale(w.sum()).backward()
    scaler.step(opt, closure=lambda: None)


def _load_empty(lib):
    _scaler_and_opt(lib)[2].load_state_dict({})


def _fp16_grads(lib):
    w = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
    scaler = lib.amp.GradScaler("cpu")
    scaler.scale(w.sum()).backward()
    scaler.unscale_(lib.optim.SGD([w], lr=0.1))


@pytest.mark.parametrize("misuse", [_unscale_twice, _unscale_after_step, _step_twice, _update_before_scale,
                                    _step_with_closure, _load_empty, _fp16_grads])
def test_grad_scaler_misuse_errors(misuse):
    same_outcome(misuse)


def test_grad_scaler_disabled_passes_through():
    def run(lib):
        w, opt, _ = _scaler_and_opt(lib)
        scaler = lib.amp.GradScaler("cpu", enabled=False)
        loss = w.sum()
        same = scaler.scale(loss) is loss
        loss.backward()
        scaler.step(opt)
        scaler.update()
        return same, scaler.is_enabled(), scaler.get_scale(), scaler.state_dict(), w.detach()
    same_outcome(run)


@needs_no_gpu
def test_grad_scaler_for_cuda_without_a_gpu_disables_itself_with_pytorchs_warning():
    def run(lib):
        return lib.amp.GradScaler().is_enabled(), lib.amp.GradScaler().state_dict()
    assert recorded_warnings(run, tt) == recorded_warnings(run, torch)

    def legacy(lib):
        s = lib.cuda.amp.GradScaler()
        x = lib.ones(2)
        return s.is_enabled(), s.get_scale(), s.scale(x) is x
    assert recorded_warnings(legacy, tt) == recorded_warnings(legacy, torch)


# ---- torch.compile ---------------------------------------------------------------------------------------------


def test_compile_a_function_runs_it_eagerly():
    def f(x, y):
        return (x * y).sum(0)
    x, y = rand(3, 4, layout="permuted").build(tt), rand(3, 4, layout="sliced", seed=2).build(tt)
    for compiled in (tt.compile(f), tt.compile(mode="reduce-overhead")(f), tt.compile(fullgraph=True, dynamic=True)(f),
                     tt.compile(f, backend="eager", options={"x": 1})):
        assert compiled.__name__ == "f"
        assert bool((compiled(x, y) == f(x, y)).all())

    @tt.compile
    def g(x):
        return x + 1

    @tt.compile(mode="max-autotune")
    def h(x):
        return x * 2
    assert g(tt.ones(2)).tolist() == [2.0, 2.0] and h(tt.ones(2)).tolist() == [2.0, 2.0]


def test_compile_a_module_wraps_it_as_pytorch_does():
    def run(lib):
        torch.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        compiled = lib.compile(model)
        return (type(compiled).__name__, list(compiled.state_dict()), compiled.weight is model.weight,
                compiled._orig_mod is model, isinstance(compiled, lib.nn.Module), compiled.in_features)
    same_outcome(run)
    model = tt.nn.Linear(3, 2)
    x = rand(4, 3, layout="permuted").build(tt)
    assert bool((tt.compile(model)(x) == model(x)).all())


def test_compile_argument_errors():
    same_outcome(lambda lib: lib.compile(3))
    same_outcome(lambda lib: lib.compile(lambda x: x, mode="fastest"))
    same_outcome(lambda lib: lib.compile(lambda x: x, mode="default", options={}))


# ---- nn.parallel, torch.distributed -----------------------------------------------------------------------------


@needs_no_gpu
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "expanded"])
def test_data_parallel_without_gpus_wraps_the_module(layout):
    def run(lib, x):
        torch.manual_seed(0)
        inner = torch.nn.Linear(3, 2)
        model = lib.nn.DataParallel(lib.nn.Linear(3, 2))
        with lib.no_grad():
            model.module.weight.copy_(lib.tensor(inner.weight.detach().numpy()))
            model.module.bias.copy_(lib.tensor(inner.bias.detach().numpy()))
        out = model(x)
        out.sum().backward()
        return (list(model.state_dict()), repr(model), model.device_ids, out, model.module.weight.grad,
                lib.nn.parallel.DataParallel is lib.nn.DataParallel)
    check(run, rand(4, 3, layout=layout), strides=False)


def test_distributed_data_parallel_needs_a_process_group():
    same_outcome(lambda lib: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2)))


def test_distributed_on_a_single_process():
    same_outcome(lambda lib: lib.distributed.is_initialized())
    same_outcome(lambda lib: lib.distributed.get_rank())
    same_outcome(lambda lib: lib.distributed.get_world_size())
    same_outcome(lambda lib: lib.distributed.is_available())     # True in PyTorch's Linux CPU wheel too
    with pytest.raises(RuntimeError, match="teachtorch runs in a single process and has no distributed backend"):
        tt.distributed.init_process_group("gloo")


# ---- legacy tensor types ---------------------------------------------------------------------------------------


LEGACY = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor",
          "ShortTensor", "CharTensor"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructor_from_sizes(name):
    same_outcome(lambda lib: (getattr(lib, name)(2, 3).shape, getattr(lib, name)(2, 3).dtype,
                              getattr(lib, name)().shape, getattr(lib, name)(lib.Size([4, 1])).shape,
                              getattr(lib, name)(0).shape))


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructor_from_data(name):
    same_outcome(lambda lib: (getattr(lib, name)([[1, 0], [3, 4]]), getattr(lib, name)((2, 3)),
                              getattr(lib, name)(np.array([1.0, 0.0]))))


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_types_in_isinstance(name):
    def run(lib):
        return ([isinstance(lib.ones(2, dtype=d), getattr(lib, name)) for d in
                 (lib.float32, lib.float64, lib.int64, lib.int32, lib.bool, lib.uint8, lib.float16, lib.int16,
                  lib.int8)], isinstance(3, getattr(lib, name)), isinstance(getattr(lib, name), type),
                issubclass(getattr(lib, name), lib.Tensor), repr(getattr(lib, name)), getattr(lib, name).dtype,
                lib.ones(2, dtype=getattr(lib, name).dtype).type() == "torch." + name)
    same_outcome(run)


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset", "expanded"])
def test_legacy_constructor_of_a_tensor_aliases_it(layout):
    check(lambda lib, x: lib.FloatTensor(x), rand(3, 4, layout=layout))

    def writes_through(lib, x):
        y = lib.FloatTensor(x)
        y.zero_() if layout != "expanded" else None
        return y is x, x
    check(writes_through, rand(3, 4, layout=layout))


def test_legacy_constructor_errors():
    same_outcome(lambda lib: lib.FloatTensor("abc"))
    same_outcome(lambda lib: lib.FloatTensor(2.5))
    same_outcome(lambda lib: lib.FloatTensor(2, -1))
    same_outcome(lambda lib: lib.FloatTensor(lib.ones(2, dtype=lib.int64)))
    same_outcome(lambda lib: lib.LongTensor(lib.ones(2)))


# ---- safe globals ---------------------------------------------------------------------------------------------


class Config:
    pass


def test_safe_globals_bookkeeping(tmp_path):
    def run(lib):
        s = lib.serialization
        before = s.get_safe_globals()
        with s.safe_globals([Config]):
            inside = Config in s.get_safe_globals()
        after = Config in s.get_safe_globals()
        s.add_safe_globals([Config, (len, "builtins.len")])
        added = Config in s.get_safe_globals() and (len, "builtins.len") in s.get_safe_globals()
        s.clear_safe_globals()
        cleared = Config in s.get_safe_globals()
        for g in before:
            s.add_safe_globals([g])
        return inside, after, added, cleared
    same_outcome(run)
    same_outcome(lambda lib: lib.serialization.add_safe_globals(3))
    # loading never needs the list: teachtorch's format names no classes
    state = {"w": tt.ones(2, 3).t(), "n": 3}
    tt.save(state, tmp_path / "c.pt")
    with tt.serialization.safe_globals([Config]):
        loaded = tt.load(tmp_path / "c.pt", weights_only=True)
    assert loaded["n"] == 3 and loaded["w"].stride() == (1, 3)


# ---- out of scope ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("module, name, feature", [
    ("sparse", "mm", "sparse tensors"), ("onnx", "export", "ONNX export"),
    ("quantization", "quantize_dynamic", "quantization"), ("ao", "quantization", "quantization and pruning"),
    ("ao.quantization", "get_default_qconfig", "quantization"),
])
def test_out_of_scope_modules_say_so(module, name, feature):
    import importlib
    mod = importlib.import_module("teachtorch." + module)
    with pytest.raises(NotImplementedError, match=rf"^{feature} \(torch.{module}.{name}\) is out of scope in "
                                                  "teachtorch"):
        getattr(mod, name)
    assert not hasattr(mod, name)
    assert hasattr(torch, module.split(".")[0]) and getattr(tt, module.split(".")[0]) is not None


# ---- the runner: unmodified PyTorch scripts ------------------------------------------------------------------


def _python(*args, cwd, env_extra=None):
    env = dict(os.environ, PYTHONPATH=REPO, PYTHONWARNINGS="ignore")
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=240)


TRAIN_SCRIPT = '''
    import argparse
    import sys

    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset

    from helper import describe          # a module next to the script, found as with `python script.py`


    class MLP(nn.Module):
        def __init__(self, hidden):
            super().__init__()
            self.fc1 = nn.Linear(3, hidden)
            self.fc2 = nn.Linear(hidden, 2)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=1)
        parser.add_argument("--hidden", type=int, default=4)
        args = parser.parse_args()
        print("argv", sys.argv[1:], __name__)
        device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
        device = torch.device("cpu")
        torch.backends.cudnn.benchmark = True
        torch.set_float32_matmul_precision("high")
        print("precision", torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)
        model = MLP(args.hidden).to(device)
        with torch.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(torch.linspace(-0.5, 0.5 + i / 10, p.numel()).reshape(p.shape))
        model = torch.compile(model)
        x = torch.linspace(-1, 1, 24).reshape(8, 3)
        y = (x.sum(1) > 0).long()
        loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
        opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
        scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
        for epoch in range(args.epochs):
            for xb, yb in loader:
                opt.zero_grad()
                with torch.autocast("cpu", enabled=False):
                    loss = F.cross_entropy(model(xb), yb)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
                print(f"epoch {epoch} loss {loss.item():.4f} scale {scaler.get_scale()}")
        print(sorted(model.state_dict()))
        print(describe(model(x[:2]).detach()))
        print(isinstance(x, torch.FloatTensor), torch.LongTensor([1, 2]).dtype, torch.distributed.is_initialized())
        sys.exit(3)


    if __name__ == "__main__":
        main()
    '''

HELPER = '''
    def describe(t):
        return f"{tuple(t.shape)} {t.dtype} " + " ".join(f"{v:.4f}" for v in t.flatten().tolist())
    '''


@pytest.fixture
def script_dir(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN_SCRIPT))
    (tmp_path / "helper.py").write_text(textwrap.dedent(HELPER))
    return tmp_path


def test_run_a_pytorch_script_unchanged(script_dir):
    args = ["train.py", "--epochs", "2", "--hidden", "5"]
    theirs = _python(*args, cwd=script_dir)
    ours = _python("-m", "teachtorch.run", *args, cwd=script_dir)
    assert theirs.returncode == 3, theirs.stderr
    assert ours.returncode == 3, ours.stderr
    assert "epoch 1 loss" in theirs.stdout and "_orig_mod.fc1.weight" in theirs.stdout
    assert ours.stdout == theirs.stdout


def test_run_a_module_with_dash_m(script_dir):
    (script_dir / "probe.py").write_text(textwrap.dedent('''
        import sys
        import torch
        import torch.nn.functional as F
        print(__name__, sys.argv[1:], F.relu(torch.tensor([-1.0, 2.0])).tolist())
        '''))
    theirs = _python("-m", "probe", "x", cwd=script_dir)
    ours = _python("-m", "teachtorch.run", "-m", "probe", "x", cwd=script_dir)
    assert theirs.returncode == ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout == "__main__ ['x'] [0.0, 2.0]\n"


def test_run_aliases_torch_to_teachtorch(script_dir):
    (script_dir / "which.py").write_text(textwrap.dedent('''
        import sys
        import torch, torch.nn, torch.utils.data
        import teachtorch
        print(torch is teachtorch, torch.nn is teachtorch.nn, sys.modules["torch.utils.data"] is teachtorch.utils.data,
              teachtorch.nn.__spec__.name, torch.__spec__.name)
        try:
            import torch._dynamo
        except ModuleNotFoundError as e:
            print(e)
        '''))
    ours = _python("-m", "teachtorch.run", "which.py", cwd=script_dir)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == "True True True teachtorch.nn teachtorch\nNo module named 'torch._dynamo'\n"


def test_run_usage_and_missing_script(tmp_path):
    usage = _python("-m", "teachtorch.run", cwd=tmp_path)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: python -m teachtorch.run script.py")
    missing = _python("-m", "teachtorch.run", "nope.py", cwd=tmp_path)
    assert missing.returncode == 2 and "can't open file" in missing.stderr


def test_run_reports_the_scripts_exception(tmp_path):
    (tmp_path / "bad.py").write_text("import torch\ntorch.ones(2) + torch.ones(3)\n")
    theirs, ours = _python("bad.py", cwd=tmp_path), _python("-m", "teachtorch.run", "bad.py", cwd=tmp_path)
    assert theirs.returncode == ours.returncode == 1
    assert theirs.stderr.strip().splitlines()[-1] == ours.stderr.strip().splitlines()[-1]


def test_install_as_torch_in_a_notebook_session(script_dir):
    cell = textwrap.dedent('''
        import teachtorch
        teachtorch.install_as_torch()
        import torch
        import torch.nn as nn
        print(torch is teachtorch, nn is teachtorch.nn)
        import runpy, sys
        sys.argv = ["train.py", "--hidden", "3"]
        sys.path.insert(0, ".")
        runpy.run_path("train.py", run_name="__main__")
        ''')
    ours = _python("-c", cell, cwd=script_dir)
    theirs = _python("train.py", "--hidden", "3", cwd=script_dir)
    assert ours.returncode == theirs.returncode == 3, ours.stderr
    assert ours.stdout == "True True\n" + theirs.stdout


def test_install_as_torch_refuses_after_the_real_torch():
    cell = textwrap.dedent('''
        import torch
        import teachtorch
        try:
            teachtorch.install_as_torch()
        except RuntimeError as e:
            print(str(e).split(" (")[0])
        import torch as again
        print(again.__name__)
        ''')
    out = _python("-c", cell, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "install_as_torch(): the real PyTorch is already imported in this process\ntorch\n"


@pytest.fixture
def restore_threads():
    before = tt.get_num_threads()
    yield
    tt.set_num_threads(before)


def test_set_num_threads_sets_the_blas_threads(restore_threads):
    from threadpoolctl import threadpool_info
    blas = lambda: {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}  # noqa: E731
    tt.set_num_threads(1)
    assert tt.get_num_threads() == 1 and blas() <= {1}
    tt.set_num_threads(2)
    assert blas() and blas() <= {1, 2} and tt.get_num_threads() == max(blas())
    a = tt.randn(64, 64)
    assert tt.allclose(a @ a, tt.from_numpy(a.numpy() @ a.numpy()))     # a matmul still works with any count


@pytest.mark.parametrize("bad", [0, -1, "a", 2.0, True])
def test_set_num_threads_refuses_what_torch_refuses(restore_threads, bad):
    with pytest.raises(RuntimeError) as expected:
        torch.set_num_threads(bad)
    with pytest.raises(RuntimeError) as got:
        tt.set_num_threads(bad)
    assert str(got.value) == str(expected.value)
