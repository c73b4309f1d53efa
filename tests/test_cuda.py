"""The cuda backend itself: devices, storages, transfers, device checks, memory figures, seeds, checkpoints.

These run everywhere: on a GPU with CuPy when there is one, otherwise on tests/fake_cupy.py (NumPy dressed up as
CuPy, see conftest.py `cuda_backend`). The parity of every op on cuda with PyTorch is tested by the
device-generic files (their `[cuda]` tests); this file tests what only a second device has.
"""

import io

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
import teachtorch.nn as nn
import teachtorch.nn.functional as F
from teachtorch.backends import cuda as backend
from teachtorch.dispatch.dispatcher import lookup
from parity import LAYOUTS, P, check_inplace, rand

pytestmark = pytest.mark.usefixtures("cuda_backend")


def test_is_available_and_device_count():
    assert tt.cuda.is_available()
    assert tt.cuda.device_count() >= 1
    assert tt.cuda.current_device() == 0
    assert isinstance(tt.cuda.get_device_name(), str)


@pytest.mark.parametrize("spec", ["cuda", "cuda:0", 0, tt.device("cuda"), tt.device("cuda", 0)])
def test_device_spellings(spec):
    x = tt.zeros(2, 3, device=spec)
    assert x.device == tt.device("cuda", 0) and str(x.device) == "cuda:0"
    assert x.is_cuda and x.untyped_storage().device == tt.device("cuda:0")
    assert type(x._data()) is backend.cupy().ndarray


def test_cuda_cpu_to_round_trip_keeps_values_dtype_and_layout():
    x = tt.arange(12, dtype=tt.float64).reshape(3, 4).t()        # non-contiguous on purpose
    c = x.cuda()
    assert c.device.type == "cuda" and c.dtype is tt.float64
    assert c.stride() == x.stride()                             # .to keeps the layout (preserve_format)
    back = c.cpu()
    assert back.device.type == "cpu" and back.tolist() == x.tolist()
    assert x.to("cuda").to("cpu").tolist() == x.tolist()
    assert x.to(tt.device("cuda"), tt.float32).dtype is tt.float32
    assert c.to("cuda") is c and c.cuda() is c and x.cpu() is x     # no copy when nothing changes
    assert c.to("cpu", copy=True).device.type == "cpu"
    y = tt.ones(2, device="cuda")
    assert x.to(y).device.type == "cuda" and x.to(y).dtype is tt.float32


def test_factories_on_cuda():
    for t in (tt.zeros(2, device="cuda"), tt.ones(2, device="cuda"), tt.full((2,), 3.0, device="cuda"),
              tt.arange(4, device="cuda"), tt.linspace(0, 1, 5, device="cuda"), tt.eye(3, device="cuda"),
              tt.empty(2, device="cuda"), tt.tensor([1, 2], device="cuda"), tt.rand(3, device="cuda"),
              tt.randn(3, device="cuda"), tt.randint(0, 5, (3,), device="cuda"), tt.randperm(4, device="cuda"),
              tt.zeros_like(tt.ones(2), device="cuda"), tt.ones(2).new_zeros(3, device="cuda")):
        assert t.device.type == "cuda", t
    x = tt.ones(2, 2, device="cuda")
    for t in (tt.zeros_like(x), tt.empty_like(x), tt.rand_like(x), x.new_ones(3), x.new_tensor([1.0]), x.clone()):
        assert t.device.type == "cuda"


def test_default_device_and_device_context():
    assert tt.get_default_device() == tt.device("cpu")
    with tt.device("cuda"):
        assert tt.get_default_device() == tt.device("cuda", 0)
        assert tt.zeros(1).device.type == "cuda" and tt.tensor([1.0]).device.type == "cuda"
        assert tt.from_numpy(np.ones(2)).device.type == "cpu"     # from_numpy shares host memory: always cpu
        assert tt.zeros(1, device="cpu").device.type == "cpu"
    assert tt.zeros(1).device.type == "cpu"
    tt.set_default_device("cuda")
    try:
        assert tt.arange(3).device.type == "cuda"
    finally:
        tt.set_default_device(None)
    assert tt.get_default_device() == tt.device("cpu")


def test_results_and_gradients_stay_on_the_device():
    a = tt.randn(3, 4, device="cuda", requires_grad=True)
    w = tt.randn(4, 2, device="cuda", requires_grad=True)
    loss = (a @ w).relu().sum()
    assert loss.device.type == "cuda"
    loss.backward()
    assert a.grad.device.type == "cuda" and w.grad.device.type == "cuda"
    ref_a, ref_w = a.detach().cpu().requires_grad_(), w.detach().cpu().requires_grad_()
    (ref_a @ ref_w).relu().sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), ref_a.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.grad.cpu().numpy(), ref_w.grad.numpy(), rtol=1e-5, atol=1e-6)


# ---- tensors on different devices ---------------------------------------------------------------------------

MIXED = "Expected all tensors to be on the same device, but found at least two devices"


def test_mixing_devices_raises_pytorchs_error():
    c, h = tt.ones(2, 2, device="cuda"), tt.ones(2, 2)
    with pytest.raises(RuntimeError, match=f"^{MIXED}, cuda:0 and cpu!$"):
        c + h                                                   # a TensorIterator op: the short message
    with pytest.raises(RuntimeError, match=f"^{MIXED}, cpu and cuda:0!$"):
        h * c
    with pytest.raises(RuntimeError, match=f"^{MIXED}, cuda:0 and cpu! \\(when checking argument for argument "
                                           f"mat2 in method wrapper_CUDA__mm\\)$"):
        c.mm(h)                                                 # the generated wrapper's message
    with pytest.raises(RuntimeError, match=f"^{MIXED}, cuda:0 and cpu! \\(when checking argument for argument "
                                           f"tensors in method wrapper_CUDA__cat\\)$"):
        tt.cat([c, h])
    with pytest.raises(RuntimeError, match=MIXED):
        F.linear(h, c)
    with pytest.raises(RuntimeError, match=MIXED):
        c.index_select(0, tt.tensor([0]))
    with pytest.raises(RuntimeError, match=MIXED):
        tt.add(c, c, out=tt.empty(2, 2))                        # the out= tensor counts too


def test_a_0dim_cpu_tensor_may_join_a_cuda_op():
    c = tt.ones(3, device="cuda")
    s = tt.tensor(2.0)
    for r in (c + s, s * c, tt.where(c > 0, c, s), c.lerp(c, s)):
        assert r.device.type == "cuda"
    assert (c + s).tolist() == [3.0, 3.0, 3.0]
    assert (tt.tensor(1.0) + tt.tensor(2.0, device="cuda")).device.type == "cuda"
    c.fill_(tt.tensor(5.0))
    assert c.tolist() == [5.0, 5.0, 5.0]


def test_copy_between_devices_in_both_directions():
    h = tt.zeros(3, 4).t()                                      # a transposed cpu target
    src = tt.arange(12.0, device="cuda").reshape(4, 3)
    h.copy_(src)
    assert h.tolist() == src.cpu().tolist()
    c = tt.zeros(4, 3, device="cuda")[::2]
    c.copy_(tt.ones(2, 3))
    assert c.cpu().tolist() == [[1.0] * 3] * 2


def test_numpy_of_a_cuda_tensor_says_to_copy_first():
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu\(\)"):
        tt.ones(2, device="cuda").numpy()
    assert tt.ones(2, device="cuda").numpy(force=True).tolist() == [1.0, 1.0]
    assert np.asarray(tt.ones(2, device="cuda")).tolist() == [1.0, 1.0]
    assert tt.tensor([1.5], device="cuda").item() == 1.5


def test_device_index_out_of_range():
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        tt.zeros(1, device=f"cuda:{tt.cuda.device_count()}")


def test_cuda_without_cupy_says_what_to_install(monkeypatch):
    saved = dict(backend._state), backend.ARRAY_MODULES.pop("cuda"), backend.STORAGE_TYPES.pop("cuda")
    try:
        monkeypatch.setattr(backend, "_import_cupy", lambda: None)
        backend._state["error"] = ImportError("No module named 'cupy'")
        with pytest.raises(AssertionError, match=r"Torch not compiled with CUDA enabled: .*pip install "
                                                 r"'teachtorch\[cuda12\]'.*'teachtorch\[cuda13\]'"):
            tt.zeros(1, device="cuda")
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            tt.ones(2).cuda()
        assert not tt.cuda.is_available() and tt.cuda.device_count() == 0
        assert tt.cuda.memory_allocated() == 0
    finally:
        backend._state.update(saved[0])
        backend.ARRAY_MODULES["cuda"], backend.STORAGE_TYPES["cuda"] = saved[1], saved[2]


# ---- the dispatcher's view of it ---------------------------------------------------------------------------


def test_cuda_tensors_dispatch_to_the_cuda_keys():
    x = tt.ones(2, device="cuda", requires_grad=True)
    assert tt.dispatch.keyset_names(x._keys) == ["AutogradCUDA", "ADInplaceOrView", "CUDA"]
    with tt.dispatch.trace() as t:
        (x * 2).sum()
    keys = [e.key for e in t.events]
    assert "AutogradCUDA" in keys and "CUDA" in keys and "CPU" not in keys
    table = lookup("mm").dump_table()
    assert "CUDA: DeviceCheck(mm_kernel) [kernel]" in table and "CPU: mm_kernel [kernel]" in table
    # TensorIterator ops check devices themselves (device_check: NoCheck), so they are registered as they are
    assert "CUDA: PointwiseKernel(pointwise_math.add).functional [kernel]" in lookup("add.Tensor").dump_table()


# ---- memory, synchronize, seeds --------------------------------------------------------------------------


def test_memory_allocated_follows_tensors():
    tt.cuda.synchronize()
    before = tt.cuda.memory_allocated()
    x = tt.empty(1 << 20, device="cuda")                       # 4 MiB
    after = tt.cuda.memory_allocated()
    assert after - before >= 4 << 20
    assert tt.cuda.max_memory_allocated() >= after
    assert tt.cuda.memory_reserved() >= after
    del x
    assert tt.cuda.memory_allocated() <= after - (4 << 20)
    peak = tt.cuda.max_memory_allocated()
    assert peak >= after
    tt.cuda.reset_peak_memory_stats()
    assert tt.cuda.max_memory_allocated() < peak
    tt.cuda.empty_cache()


def test_synchronize_waits_on_the_device(cuda_backend):
    calls = backend._state["synchronized"]
    tt.cuda.synchronize()
    tt.cuda.synchronize(0)
    tt.cuda.synchronize("cuda:0")
    assert backend._state["synchronized"] == calls + 3
    if cuda_backend == "fake":
        import fake_cupy
        assert fake_cupy.runtime.synchronized >= 3


def test_manual_seed_reproduces_cuda_random_numbers():
    tt.manual_seed(7)
    a = tt.randn(5, device="cuda")
    tt.manual_seed(7)
    b = tt.randn(5, device="cuda")
    assert a.tolist() == b.tolist()
    tt.cuda.manual_seed(3)
    c = tt.rand(4, device="cuda")
    tt.cuda.manual_seed_all(3)
    d = tt.rand(4, device="cuda")
    assert c.tolist() == d.tolist()
    state = tt.cuda.get_rng_state()
    e = tt.rand(4, device="cuda")
    tt.cuda.set_rng_state(state)
    assert tt.rand(4, device="cuda").tolist() == e.tolist()
    # one random-number implementation for both devices (backends/differences.py): same seed, same numbers
    tt.manual_seed(11)
    on_cpu = tt.randn(6).tolist()
    tt.manual_seed(11)
    assert tt.randn(6, device="cuda").tolist() == on_cpu


def test_generators_per_device():
    g = tt.Generator("cuda").manual_seed(5)
    x = tt.empty(3, device="cuda").normal_(generator=g)
    g.manual_seed(5)
    assert tt.empty(3, device="cuda").normal_(generator=g).tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
        tt.empty(3, device="cuda").normal_(generator=tt.Generator())
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"):
        tt.empty(3).uniform_(generator=g)


# ---- in-place writes into non-contiguous cuda tensors land (the MPS bug class) ----------------------------


@pytest.mark.parametrize("layout", LAYOUTS[:4])
@pytest.mark.parametrize("op", ["add_", "mul_", "addcmul_", "addcdiv_", "lerp_", "copy_", "clamp_", "sqrt_",
                                "normal_", "uniform_", "bernoulli_", "exponential_", "fill_", "zero_",
                                "masked_fill_", "index_fill_", "scatter_", "index_put_"])
def test_inplace_into_noncontiguous_cuda_targets_lands(op, layout):
    """Every element of the view changes as on the cpu, and nothing outside it (sentinels around it)."""
    tt.set_default_device("cuda")
    try:
        x = rand(3, 4, low=0.5, high=2.0, layout=layout)
        b = rand(3, 4, seed=1, low=0.5, high=2.0)
        c = rand(3, 4, seed=2, low=0.5, high=2.0)
        cases = {
            "add_": lambda lib, x: x.add_(lib.tensor(b.values), alpha=2),
            "mul_": lambda lib, x: x.mul_(lib.tensor(b.values)),
            "addcmul_": lambda lib, x: x.addcmul_(lib.tensor(b.values), lib.tensor(c.values), value=0.5),
            "addcdiv_": lambda lib, x: x.addcdiv_(lib.tensor(b.values), lib.tensor(c.values), value=-0.5),
            "lerp_": lambda lib, x: x.lerp_(lib.tensor(b.values), 0.3),
            "copy_": lambda lib, x: x.copy_(lib.tensor(b.values)),
            "clamp_": lambda lib, x: x.clamp_(0.8, 1.5),
            "sqrt_": lambda lib, x: x.sqrt_(),
            "fill_": lambda lib, x: x.fill_(2.5),
            "zero_": lambda lib, x: x.zero_(),
            "masked_fill_": lambda lib, x: x.masked_fill_(lib.tensor(b.values > 1), -1.0),
            "index_fill_": lambda lib, x: x.index_fill_(1, lib.tensor([0, 2]), 9.0),
            "scatter_": lambda lib, x: x.scatter_(1, lib.tensor([[0], [1], [3]]), lib.tensor([[7.0], [8.0], [9.0]])),
            "index_put_": lambda lib, x: x.index_put_((lib.tensor([0, 2]), lib.tensor([1, 3])), lib.tensor(4.0),
                                                      accumulate=True),
        }
        if op in cases:
            check_inplace(cases[op], x)
        else:   # random fills: compare with the same fill on the cpu (same seed, same numbers), and every
            # element of the view must change while the storage around it keeps its sentinels
            fill = {"normal_": lambda t: t.normal_(), "uniform_": lambda t: t.uniform_(5, 6),
                    "bernoulli_": lambda t: t.bernoulli_(0.5), "exponential_": lambda t: t.exponential_()}[op]
            big = tt.full((9, 10), -7.0)
            view = {"contiguous": big[:3, :4], "permuted": big[:4, :3].t(), "sliced": big[1::3, 2::2],
                    "offset": big.view(-1)[5:17].view(3, 4)}[layout]
            host = big.cpu().clone()
            host_view = host.as_strided(view.shape, view.stride(), view.storage_offset())
            tt.manual_seed(3)
            fill(view)
            tt.manual_seed(3)
            fill(host_view)
            assert big.cpu().tolist() == host.tolist()
            if op != "bernoulli_":
                assert (view.cpu() != -7.0).all()
            assert int((big.cpu() == -7.0).sum()) == 90 - 12 + int((view.cpu() == -7.0).sum())
    finally:
        tt.set_default_device(None)


def test_adam_updates_transposed_parameters_on_cuda():
    """The MPS Adam freeze (shared/reference §5.1): tied weights `enc.weight = dec.weight.T.clone()` make the
    optimizer state transposed; every parameter must still move, as on the cpu."""
    tt.manual_seed(0)
    dec = nn.Linear(6, 4)
    enc = nn.Linear(4, 6)
    enc.weight = nn.Parameter(dec.weight.detach().t().clone())
    assert not enc.weight.is_contiguous()
    results = {}
    for device in ("cpu", "cuda"):
        e, d = nn.Linear(4, 6), nn.Linear(6, 4)
        e.load_state_dict(enc.state_dict())
        d.load_state_dict(dec.state_dict())
        e.weight = nn.Parameter(enc.weight.detach().clone())     # keeps the transposed strides
        e, d = e.to(device), d.to(device)
        assert e.weight.stride() == enc.weight.stride()
        opt = tt.optim.Adam(list(e.parameters()) + list(d.parameters()), lr=0.01)
        x = tt.arange(24.0).reshape(6, 4).div(24).to(device)
        before = e.weight.detach().cpu().clone()
        for _ in range(3):
            opt.zero_grad()
            loss = ((d(e(x).tanh()) - x) ** 2).mean()
            loss.backward()
            opt.step()
        assert (e.weight.detach().cpu() != before).all(), device
        assert (opt.state[e.weight]["exp_avg_sq"].cpu() > 0).all(), device
        results[device] = [p.detach().cpu() for p in list(e.parameters()) + list(d.parameters())]
    for a, b in zip(results["cpu"], results["cuda"]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@given(st.sampled_from(LAYOUTS), st.integers(1, 4), st.integers(1, 4))
def test_hypothesis_layouts_cuda_matches_cpu(layout, n, m):
    """A few composite computations over every layout: cuda equals cpu exactly in values and strides."""
    values = np.arange(n * m, dtype=np.float32).reshape(n, m) / 7 - 1
    for build in (lambda t: t.exp() * t, lambda t: t.sum(0), lambda t: t.t() @ t, lambda t: t[t > 0],
                  lambda t: t.softmax(-1), lambda t: t.cumsum(1), lambda t: t.sort(0).values):
        h = P(values, layout).build(tt)
        with tt.device("cuda"):
            c = P(values, layout).build(tt)          # the same layout, in GPU memory
        assert c.device.type == "cuda" and c.stride() == h.stride()
        assert c.storage_offset() == h.storage_offset()
        rh, rc = build(h), build(c)
        assert rc.device.type == "cuda" and rc.stride() == rh.stride()
        np.testing.assert_allclose(rc.cpu().numpy(), rh.numpy(), rtol=1e-6, atol=1e-6)


# ---- modules, optimizers and checkpoints ---------------------------------------------------------------


def test_module_to_cuda_and_back():
    m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Flatten(), nn.Linear(2 * 4 * 4, 3))
    m.to("cuda")
    for name, t in list(m.named_parameters()) + list(m.named_buffers()):
        assert t.device.type == "cuda", name
    out = m(tt.randn(2, 1, 6, 6, device="cuda"))
    assert out.device.type == "cuda"
    m.cpu()
    assert all(p.device.type == "cpu" for p in m.parameters())
    m.cuda()
    assert all(p.device.type == "cuda" for p in m.parameters())
    assert isinstance(m[0].weight, nn.Parameter)


def test_save_and_load_cuda_tensors(tmp_path):
    x = tt.arange(6.0, device="cuda").reshape(2, 3).t()
    state = {"x": x, "view": x[1:], "cpu": tt.ones(2)}
    tt.save(state, tmp_path / "c.tt")
    back = tt.load(tmp_path / "c.tt")
    assert back["x"].device.type == "cuda" and back["cpu"].device.type == "cpu"
    assert back["x"].stride() == x.stride() and back["x"].cpu().tolist() == x.cpu().tolist()
    assert back["view"].untyped_storage() is back["x"].untyped_storage()
    host = tt.load(tmp_path / "c.tt", map_location="cpu")
    assert host["x"].device.type == "cpu" and host["x"].tolist() == x.cpu().tolist()
    mapped = tt.load(tmp_path / "c.tt", map_location={"cuda:0": "cpu"})
    assert mapped["x"].device.type == "cpu"
    assert tt.load(tmp_path / "c.tt", map_location="cuda")["cpu"].device.type == "cuda"
    buf = io.BytesIO()
    tt.save(nn.Linear(2, 2).cuda().state_dict(), buf)
    buf.seek(0)
    assert all(v.device.type == "cuda" for v in tt.load(buf).values())


def test_training_the_digits_mlp_matches_the_cpu():
    """A few SGD steps of the class MLP on cuda and on cpu: the same losses within float32 rounding."""
    x = tt.randn(64, 64, generator=tt.Generator().manual_seed(0))
    y = tt.randint(0, 10, (64,), generator=tt.Generator().manual_seed(1))
    losses = {}
    for device in ("cpu", "cuda"):
        tt.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 10)).to(device)
        tt.manual_seed(1)     # the dropout masks: drawn from the cpu generator or the GPU's, both seeded 1
        opt = tt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        xs, ys = x.to(device), y.to(device)
        losses[device] = []
        for _ in range(5):
            opt.zero_grad()
            loss = F.cross_entropy(model(xs), ys)
            loss.backward()
            opt.step()
            losses[device].append(loss.item())
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-5)


def test_torch_oracle_agrees_with_cuda_results():
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(2, 3, 4)
    got = tt.tensor(x, device="cuda").permute(2, 0, 1).tanh().sum(dim=(1, 2))
    want = torch.tensor(x).permute(2, 0, 1).tanh().sum(dim=(1, 2))
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def test_repr_and_type_names_of_cuda_tensors():
    """PyTorch prints the device of a non-cpu tensor and names cuda tensor types torch.cuda.*Tensor."""
    x = tt.ones(2, device="cuda")
    assert repr(x) == "tensor([1., 1.], device='cuda:0')"
    assert repr(tt.zeros(2, device="cuda", dtype=tt.float64)) == "tensor([0., 0.], device='cuda:0', dtype=torch.float64)"
    assert repr(tt.ones(2, device="cuda", requires_grad=True) * 2) == (
        "tensor([2., 2.], device='cuda:0', grad_fn=<MulBackward0>)")
    assert x.type() == "torch.cuda.FloatTensor" and x.long().type() == "torch.cuda.LongTensor"
    assert x.type("torch.cuda.DoubleTensor").device.type == "cuda"
    assert x.type("torch.DoubleTensor").device.type == "cpu"       # a cpu type name moves it, as in PyTorch
    assert tt.ones(2).type("torch.cuda.HalfTensor").device.type == "cuda"
