"""Tensor and storage: metadata, aliasing, version counters, the write path, and in-place semantics."""

import numpy as np
import pytest
import torch

import teachtorch as tt
from parity import LAYOUTS, P, check, check_inplace, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)


def test_storage_is_one_flat_buffer():
    x = tt.arange(12.0).reshape(3, 4)
    s = x.untyped_storage()
    assert s.nbytes() == s.size() == 48 and s.element_size() == 1
    assert s.device == tt.get_default_device()
    v = x[1, 1:]
    assert v.untyped_storage() is s and v.storage_offset() == 5
    assert v.data_ptr() == s.data_ptr() + 5 * 4          # address = storage + offset * itemsize
    ref = torch.arange(12.0).reshape(3, 4)
    assert v.data_ptr() - x.data_ptr() == ref[1, 1:].data_ptr() - ref.data_ptr()
    assert tt.zeros(3, dtype=tt.int16).untyped_storage().nbytes() == 6


@pytest.mark.parametrize("layout", LAYOUTS)
def test_metadata_matches_torch(layout):
    check(lambda lib, x: (x.shape, x.size(), x.size(-1), x.stride(), x.stride(0), x.dim(), x.ndim, x.numel(),
                          x.is_contiguous(), x.element_size(), len(x), x.dtype, x.is_floating_point()),
          rand(3, 4, layout=layout))


def test_size_repr_and_errors():
    assert repr(tt.zeros(3, 4).shape) == repr(torch.zeros(3, 4).shape) == "torch.Size([3, 4])"
    assert tt.zeros(3, 4).shape[1:] == (4,) and repr(tt.zeros(3, 4).shape[1:]) == "torch.Size([4])"
    check(lambda lib: lib.zeros(3).size(1))
    check(lambda lib: len(lib.tensor(1.0)))
    check(lambda lib: list(lib.tensor(1.0)))
    check(lambda lib: bool(lib.ones(2)))
    check(lambda lib: (bool(lib.ones(1)), float(lib.tensor([2.5])), int(lib.tensor(3)), lib.tensor(7).__index__()))
    check(lambda lib: lib.ones(2).item())
    check(lambda lib: [1, 2, 3][lib.tensor(1.0)])


def test_version_counter_is_bumped_once_per_write_and_shared():
    x = tt.zeros(4)
    view = x[1:]
    x.add_(1)
    view.mul_(2)
    view[0] = 5.0
    x.copy_(tt.ones(4))
    assert x._version == view._version == 4
    y = x + 1                     # an out-of-place op writes nothing
    assert x._version == 4 and y._version == 0


def test_inplace_returns_self_and_writes_through_every_layout():
    for layout in ("contiguous", "permuted", "sliced", "offset"):
        check_inplace(lambda lib, x, y: x.add_(y, alpha=2), rand(3, 4, layout=layout), rand(4, seed=2))
        check_inplace(lambda lib, x, y: x.sub_(y), rand(2, 3, 4, layout=layout), rand(2, 3, 4, seed=2, layout="sliced"))
        check_inplace(lambda lib, x: x.mul_(3), rand(5, layout=layout))


def test_lost_write_back_is_impossible():
    """The MPS Adam bug (reference §5.1): an in-place op into a transposed tensor must land in its storage."""
    for lib in (tt, torch):
        w = lib.zeros(6, 4).t().clone()       # clone keeps the transposed strides, as Adam's state does
        assert w.stride() == (1, 4)
        ptr = w.untyped_storage().data_ptr()
        w.add_(lib.ones(4, 6))
        w.mul_(lib.full((4, 6), 3.0))
        assert w.untyped_storage().data_ptr() == ptr and w.stride() == (1, 4)
        assert float(w.sum().item() if hasattr(w, "sum") else w.tolist()[0][0] * 24) == 72.0


def test_inplace_into_overlapping_tensor_is_refused():
    check(lambda lib: lib.zeros(3).expand(2, 3).add_(1))
    check(lambda lib: lib.zeros(1, 3).expand(4, 3).mul_(lib.ones(4, 3)))
    # Overlap PyTorch cannot prove (no stride 0) is not refused; what such a write computes is undefined.
    tt.zeros(3).as_strided((2, 2), (1, 1)).add_(1)


def test_failed_inplace_op_leaves_target_unchanged():
    for layout in ("contiguous", "permuted", "sliced", "offset"):
        check_inplace(lambda lib, x, y: x.add_(y), rand(3, 4, dtype="int64", layout=layout), rand(3, 4, seed=1))
        check_inplace(lambda lib, x, y: x.add_(y), rand(3, 4, layout=layout), rand(2, 3, 4, seed=1))
        check_inplace(lambda lib, x, y: x.mul_(y), rand(3, 4, dtype="bool", layout=layout), rand(3, 4, dtype="int32"))


def test_detach_shares_storage_and_version_but_is_not_a_view():
    x = tt.ones(3, requires_grad=True)
    d = x.detach()
    assert d.untyped_storage() is x.untyped_storage() and d._base is None and not d.requires_grad
    d.zero_()
    assert x._version == 1 and x.tolist() == [0.0, 0.0, 0.0]


def test_requires_grad_rules():
    check(lambda lib: lib.zeros(2, dtype=lib.int64).requires_grad_())
    check(lambda lib: lib.ones(2, requires_grad=True).requires_grad)
    check(lambda lib: lib.ones(2, requires_grad=True).cpu().numpy())


@pytest.mark.parametrize("value", ["yes", 1, 0, None, np.bool_(True), 1.0], ids=repr)
def test_requires_grad_takes_only_a_bool(value):
    check(lambda lib: lib.zeros(2).requires_grad_(value))
    check(lambda lib: lib.zeros(2, dtype=lib.int64).requires_grad_(value))   # the type is checked first
    check(lambda lib: setattr(lib.zeros(2), "requires_grad", value))


@pytest.mark.parametrize("force", ["x", 1, None, np.bool_(True)], ids=repr)
def test_numpy_force_takes_only_a_bool(force):
    check(lambda lib: lib.zeros(2).numpy(force=force))
    check(lambda lib: lib.zeros(2, requires_grad=True).numpy(force=force))


@pytest.mark.cpu_only("numpy() views cpu memory")
def test_numpy_shares_memory():
    x = tt.zeros(2, 3).t()
    a = x.cpu().numpy()
    a[0, 1] = 5.0
    assert x[0, 1].item() == 5.0 and a.strides == (4, 12)
    n = np.arange(6.0)
    t = tt.from_numpy(n)
    t.add_(1)
    assert n.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_lessons_run():
    """Every lesson (a jupytext percent file is plain Python) runs from top to bottom."""
    import pathlib
    import runpy
    pytest.importorskip("anywidget", reason="the lessons draw widgets: pip install 'teachtorch[lab]'")
    lessons = sorted(pathlib.Path(__file__).resolve().parent.parent.joinpath("lessons").glob("*.py"))
    assert lessons
    for path in lessons:
        runpy.run_path(str(path), run_name="__lesson__")


# ---- copy.deepcopy ------------------------------------------------------------------------------------------


def test_deepcopy_keeps_geometry_sharing_requires_grad_and_grad_like_torch():
    import copy
    import torch
    for lib in (tt, torch):
        base = lib.arange(12.).reshape(3, 4)
        leaf = lib.ones(2, 3).t().clone().requires_grad_()
        leaf.grad = lib.full((3, 2), 2.0)
        views = [base, base.t()[1:], base[:, ::2], leaf]
        copies = copy.deepcopy(views)
        got = [(tuple(c.shape), c.stride(), c.storage_offset(), c.requires_grad) for c in copies]
        if lib is tt:
            ours = got
            assert copies[0]._storage is copies[1]._storage is copies[2]._storage      # one copied storage
            assert copies[0]._storage is not base._storage
            assert copies[3].grad is not leaf.grad and copies[3].grad.tolist() == leaf.grad.tolist()
        else:
            assert ours == got
            assert copies[0].untyped_storage().data_ptr() == copies[1].untyped_storage().data_ptr()
    copies[0][0, 0] = 100.0                      # the copy is independent of the original
    assert base[0, 0].item() == 0.0


def test_deepcopy_of_a_non_leaf_raises_like_torch():
    import copy
    import torch
    for lib in (tt, torch):
        with pytest.raises(RuntimeError, match="graph leaves"):
            copy.deepcopy(lib.ones(2, requires_grad=True) * 2)


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset", "expanded"])
@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format", "preserve_format"])
def test_memory_formats_of_contiguous_clone_and_is_contiguous(layout, fmt):
    from parity import P, check
    x = P(np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5), layout)
    cl = P(np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5), "contiguous")
    check(lambda lib, x: x.clone(memory_format=getattr(lib, fmt)), x)
    if fmt != "preserve_format":
        check(lambda lib, x: x.contiguous(memory_format=getattr(lib, fmt)), x)
        check(lambda lib, x: x.is_contiguous(memory_format=getattr(lib, fmt)), x)
    # a channels-last tensor: contiguous() in that format returns it, and the plain one makes NCHW again
    check(lambda lib, x: x.contiguous(memory_format=lib.channels_last).contiguous(), cl)
    check(lambda lib, x: x.contiguous(memory_format=lib.channels_last).is_contiguous(memory_format=lib.channels_last), cl)


def test_channels_last_needs_rank_4_like_torch():
    from parity import P, check
    for shape in [(2, 3), (2, 3, 4), (1, 2, 3, 4, 5)]:
        x = P(np.zeros(shape, np.float32))
        check(lambda lib, x: x.contiguous(memory_format=lib.channels_last), x)
        check(lambda lib, x: x.clone(memory_format=lib.channels_last), x)
        check(lambda lib, x: x.is_contiguous(memory_format=lib.channels_last), x)
