"""teachtorch.testing.compare_backends: does it find the op that is wrong, and only that one?

Checked CPU against CPU with a deliberately broken kernel on one side (no GPU needed), and cpu against cuda
(on the GPU, or on the NumPy stand-in for CuPy: conftest.py `cuda_backend`).
"""

import numpy as np
import pytest

import teachtorch as tt
import teachtorch.nn as nn
import teachtorch.nn.functional as F
from teachtorch.testing import Backend, compare_backends
from teachtorch.testing._compare_backends import _Replicator


def _mlp():
    tt.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def _loss(model, x, y):
    return F.cross_entropy(model(x), y)


X = tt.arange(20.0).reshape(5, 4).div(10).sub(1)
Y = tt.tensor([0, 1, 2, 0, 1])


def test_identical_backends_agree_on_every_op():
    r = compare_backends(_loss, _mlp(), X, Y, reference="cpu", candidate="cpu")
    assert r.ok and r.first_mismatch is None
    names = [o.op for o in r.ops]
    assert "aten.addmm.default" in names and "aten._log_softmax.default" in names
    assert {o.section for o in r.ops} == {"fn", "backward"}
    assert [o.index for o in r.ops] == list(range(len(r.ops)))
    assert all(o.max_abs == 0 for o in r.ops)
    grads = [x.name for x in r.results if x.name.startswith("grad of")]
    assert grads == [f"grad of input 0 (Sequential) parameter {n}" for n in ("0.weight", "0.bias", "2.weight",
                                                                               "2.bias")]
    assert "agrees with cpu on all" in str(r)
    r.assert_ok()


def _off_by_one_mm(a, b):
    out = np.matmul(a.detach().numpy(), b.detach().numpy())
    out[0, 0] += 1.0
    return tt.from_numpy(out)


def test_a_broken_kernel_is_pointed_at():
    r = compare_backends(_loss, _mlp(), X, Y, reference="cpu", candidate=Backend("cpu", kernels={"mm": _off_by_one_mm}))
    assert not r.ok
    bad = r.first_mismatch
    assert bad.op == "aten.mm.default" and bad.section == "backward"
    assert bad.max_abs == pytest.approx(1.0, rel=1e-6)
    # every op before it agrees, and only mm ops disagree at all (each op is replayed on the candidate's inputs)
    assert all(o.ok for o in r.ops[:bad.index])
    assert {o.op for o in r.ops if not o.ok} == {"aten.mm.default"}
    assert not next(x for x in r.results if x.name.endswith("2.weight")).ok
    with pytest.raises(AssertionError, match=r"disagrees with cpu first at op #\d+ \(backward\) aten.mm.default"):
        r.assert_ok()
    assert "<-- first disagreement" in str(r)
    # the broken kernel was only in force on its side, and is gone afterwards
    assert tt.mm(tt.ones(1, 1), tt.ones(1, 1)).item() == 1.0


def _lost_writeback_addcmul_(self, tensor1, tensor2, value=1):
    """The MPS bug (shared/reference §5.1): compute into a contiguous copy of a non-contiguous output and
    never copy it back. For a contiguous `self` ascontiguousarray returns the array itself, so it works."""
    buf = np.ascontiguousarray(self.detach().numpy())
    buf += value * tensor1.detach().numpy() * tensor2.detach().numpy()
    return self


def _adam_steps(enc, dec, x):
    opt = tt.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        loss = ((dec(enc(x).tanh()) - x) ** 2).mean()
        loss.backward()
        opt.step()
    return loss.detach()


def _tied_autoencoder(transposed):
    tt.manual_seed(0)
    enc, dec = nn.Linear(4, 6), nn.Linear(6, 4)
    if transposed:
        enc.weight = nn.Parameter(dec.weight.detach().t().clone())   # clone keeps the transposed strides
    return enc, dec


def test_the_lost_writeback_bug_class_is_found_at_addcmul_():
    broken = Backend("cpu", kernels={"addcmul_": _lost_writeback_addcmul_})
    enc, dec = _tied_autoencoder(transposed=True)
    assert not enc.weight.is_contiguous()
    r = compare_backends(_adam_steps, enc, dec, X, reference="cpu", candidate=broken, backward=False)
    assert not r.ok
    assert r.first_mismatch.op == "aten.addcmul_.default"
    assert "(1, 6)" not in r.first_mismatch.note
    assert not next(x for x in r.results if x.name == "input 0 (Linear) weight after fn").ok
    # with contiguous parameters the same broken kernel happens to work: the bug hides
    enc, dec = _tied_autoencoder(transposed=False)
    compare_backends(_adam_steps, enc, dec, X, reference="cpu", candidate=broken, backward=False).assert_ok()


def test_random_ops_are_replayed_with_the_same_draws():
    def fn(model, x, y):
        return F.cross_entropy(F.dropout(model(x), 0.5), y)
    r = compare_backends(fn, _mlp(), X, Y, reference="cpu", candidate="cpu")
    assert r.ok
    assert any(o.op.startswith("aten.bernoulli") or "dropout" in o.op for o in r.ops)


def test_integer_results_must_be_equal():
    def argmax_plus_one(x, dim=None, keepdim=False):
        return tt.from_numpy(np.asarray(np.argmax(x.detach().numpy(), axis=dim) + 1))
    r = compare_backends(lambda x: x.argmax(1), X, candidate=Backend("cpu", kernels={"argmax": argmax_plus_one}),
                         backward=False)
    assert r.first_mismatch.op == "aten.argmax.default" and r.first_mismatch.max_abs == 1


def _untransposed(self):
    return self.detach().clone()          # forgets to transpose: the wrong shape


def _any_mm(a, b):
    return tt.zeros(a.shape[0], b.shape[1])


def test_failures_on_one_side_are_reported_where_they_happen():
    # the candidate's t() is wrong, and its mm raises on what t() gave it: the report ends there
    r = compare_backends(lambda x, w: x @ w.t(), X, tt.ones(3, 4), candidate=Backend("cpu", kernels={"t": _untransposed}),
                         backward=False)
    assert not r.ok and isinstance(r.error, RuntimeError)
    assert r.first_mismatch.op == "aten.t.default" and "shape [3, 4] vs [4, 3]" in r.first_mismatch.note
    assert "the candidate raised RuntimeError" in r.ops[-1].note and r.ops[-1].op == "aten.mm.default"
    # the candidate's mm accepts what the reference's refuses
    r = compare_backends(lambda x, w: x @ w.t(), X, tt.ones(3, 4),
                         candidate=Backend("cpu", kernels={"t": _untransposed, "mm": _any_mm}), backward=False)
    assert "the reference raised RuntimeError" in r.ops[-1].note
    assert "the reference raised" in str(r)


def test_inputs_are_replicated_with_layout_and_aliasing():
    base = tt.arange(24.0).reshape(4, 6)
    a, b = base.t()[1:, ::2], base[1:]           # permuted, sliced, offset, and sharing base's storage
    e = tt.arange(3.0).expand(4, 3)
    rep = _Replicator(tt.device("cpu"))
    ra, rb, re_ = rep(a), rep(b), rep(e)
    for x, y in ((a, ra), (b, rb), (e, re_)):
        assert y.stride() == x.stride() and y.storage_offset() == x.storage_offset() and y.tolist() == x.tolist()
    assert ra.untyped_storage() is rb.untyped_storage() and ra.untyped_storage() is not a.untyped_storage()
    r = compare_backends(lambda a, b: (a.mul_(2), b.sum()), a, b, backward=False, candidate="cpu")
    assert r.ok and r.results[1].name == "output 1"


def test_requires_grad_inputs_get_their_gradients_compared():
    w = tt.ones(4, 3, requires_grad=True)
    broken = Backend("cpu", kernels={"mm": _off_by_one_mm})
    r = compare_backends(lambda x, w: (x @ w).sum(), X, w, candidate=broken)
    names = [x.name for x in r.results]
    assert "grad of input 1" in names and not r.results[names.index("grad of input 1")].ok


@pytest.mark.usefixtures("cuda_backend")
def test_cuda_against_cpu_on_the_class_models():
    r = compare_backends(_loss, _mlp(), X, Y, reference="cpu", candidate="cuda")
    r.assert_ok()
    assert r.candidate == "cuda:0"
    tt.manual_seed(0)
    cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(4 * 4 * 4, 10))
    images = tt.randn(6, 1, 8, 8, generator=tt.Generator().manual_seed(2))
    labels = tt.tensor([0, 1, 2, 3, 4, 5])
    r = compare_backends(_loss, cnn, images, labels, reference="cpu", candidate="cuda")
    r.assert_ok()
    assert "aten.convolution.default" in {o.op for o in r.ops}      # conv2d is the op `convolution`


@pytest.mark.usefixtures("cuda_backend")
def test_a_broken_cuda_kernel_is_found_against_the_cpu():
    def wrong_relu(x):
        return x.abs()
    r = compare_backends(_loss, _mlp(), X, Y, reference="cpu",
                         candidate=Backend("cuda", kernels={"relu": wrong_relu}))
    assert r.first_mismatch.op == "aten.relu.default" and r.first_mismatch.section == "fn"


def _conv_bn():
    tt.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                         nn.Linear(4 * 8 * 8, 10))


def _conv_backward_with(change):
    from teachtorch.kernels.conv import convolution_backward_kernel

    def kernel(*args):
        grads = list(convolution_backward_kernel(None, *args))
        change(grads)
        return tuple(grads)
    return Backend("cpu", kernels={"convolution_backward": kernel})


IMAGES = tt.randn(6, 1, 8, 8, generator=tt.Generator().manual_seed(2))
LABELS = tt.tensor([0, 1, 2, 3, 4, 5])


def test_a_gradient_that_is_zero_up_to_rounding_may_round_differently():
    # found on an H200: CuPy gave the conv's bias gradient (0 up to rounding: the BatchNorm after it
    # subtracts the mean) as 6.7e-8 off the cpu's, which a scale of the bias gradient alone called wrong
    ref = compare_backends(_loss, _conv_bn(), IMAGES, LABELS, reference="cpu", candidate="cpu")
    bias = next(x for x in ref.ops if x.op == "aten.convolution_backward.default")
    assert bias.ok

    def zero_bias(grads):                    # the exact answer, where the cpu's rounding left ~1e-8
        assert 0 < grads[2].abs().max().item() < 1e-6
        grads[2] = tt.zeros_like(grads[2])
    r = compare_backends(_loss, _conv_bn(), IMAGES, LABELS, reference="cpu", candidate=_conv_backward_with(zero_bias))
    r.assert_ok()


def test_a_wrong_weight_gradient_is_still_found_beside_a_noisy_bias():
    def halve_weight(grads):
        grads[1] = grads[1] * 0.5
    r = compare_backends(_loss, _conv_bn(), IMAGES, LABELS, reference="cpu",
                         candidate=_conv_backward_with(halve_weight))
    assert not r.ok and r.first_mismatch.op == "aten.convolution_backward.default"
    assert not next(x for x in r.results if x.name.endswith("0.weight")).ok


def test_a_wrong_small_gradient_is_found_against_the_largest_one():
    def tiny_bias(grads):                    # a bias gradient of 1e-3 of the weights' scale, set to 0
        grads[2] = tt.zeros_like(grads[2])
    model = _conv_bn()
    model[1] = nn.Identity()                 # no BatchNorm: the bias gradient is a real sum now
    r = compare_backends(_loss, model, IMAGES, LABELS, reference="cpu", candidate=_conv_backward_with(tiny_bias))
    assert not r.ok
    assert not next(x for x in r.results if x.name.endswith("0.bias")).ok
