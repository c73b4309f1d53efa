"""teachtorch.save / teachtorch.load: round trips next to torch.save / torch.load, atomic writes, and every way
a file can be broken (empty, truncated, a flipped byte, a foreign file, a crafted header)."""

import collections
import io
import json
import math
import os
import pathlib
import struct
import zlib

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import teachtorch as tt
from parity import P, assert_same, inputs
from teachtorch import serialization
from teachtorch.serialization import CheckpointError, load, save

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def round_trip(obj, lib):
    buf = io.BytesIO()
    if lib is torch:
        torch.save(obj, buf)
        buf.seek(0)
        return torch.load(buf)
    save(obj, buf)
    buf.seek(0)
    return load(buf)


def same_loaded(a, b, path="obj"):
    """Our loaded object `a` is torch's loaded object `b`: types, structure, tensors (with strides, offsets)."""
    if isinstance(b, torch.Tensor):
        assert_same(a, b, path=path)
        assert a.storage_offset() == b.storage_offset(), f"{path}: storage offset"
        assert a.untyped_storage().nbytes() == b.untyped_storage().nbytes(), f"{path}: storage size"
        assert a.is_leaf, f"{path}: a loaded tensor is a leaf"
    elif isinstance(b, dict):
        assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
        assert list(a) == list(b), f"{path}: keys"
        for k in b:
            same_loaded(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
        assert len(a) == len(b)
        for i, (x, y) in enumerate(zip(a, b)):
            same_loaded(x, y, f"{path}[{i}]")
    elif isinstance(b, float) and math.isnan(b):
        assert isinstance(a, float) and math.isnan(a), path
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"


def check_round_trip(make):
    """`make(lib)` builds the same object in both libraries; both round trips must agree."""
    same_loaded(round_trip(make(tt), tt), round_trip(make(torch), torch))


# ---- round trips -------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_round_trip_any_dtype_shape_layout(data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    p = data.draw(inputs(dtype=dtype))
    requires_grad = dtype.startswith("float") and data.draw(st.booleans())
    def make(lib):
        t = p.build(lib)
        return t.requires_grad_(True) if requires_grad else t
    check_round_trip(make)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset", "expanded"])
def test_round_trip_every_dtype_and_layout(dtype, layout):
    values = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    check_round_trip(lambda lib: P(values, layout).build(lib))


def test_round_trip_0d_and_empty():
    check_round_trip(lambda lib: lib.tensor(2.5))
    check_round_trip(lambda lib: lib.tensor(True))
    check_round_trip(lambda lib: lib.zeros(0))
    check_round_trip(lambda lib: lib.zeros(3, 0, 2, dtype=lib.int8))
    check_round_trip(lambda lib: lib.arange(10.)[10:])              # empty, at the end of a storage
    check_round_trip(lambda lib: lib.tensor([-1.5, 65504.0, float("inf")], dtype=lib.float16))
    check_round_trip(lambda lib: lib.tensor([0, 255, 7], dtype=lib.uint8))
    check_round_trip(lambda lib: lib.tensor([-128, 127], dtype=lib.int8))
    check_round_trip(lambda lib: lib.tensor([float("nan"), -0.0, 1e-300], dtype=lib.float64))


def test_views_stay_views_of_one_storage():
    def make(lib):
        base = lib.arange(24.).reshape(4, 6)
        return {"base": base, "t": base.t(), "row": base[1], "cols": base[:, 1::2], "flat": base.view(-1)[5:]}
    ours = round_trip(make(tt), tt)
    same_loaded(ours, round_trip(make(torch), torch))
    storage = ours["base"].untyped_storage()
    assert all(v.untyped_storage() is storage for v in ours.values())
    ours["base"][1, 1] = 100.0                    # a write through one is seen by the others, as before saving
    assert ours["row"][1].item() == 100.0 and ours["t"][1, 1].item() == 100.0 and ours["flat"][2].item() == 100.0


def test_a_slice_saves_its_whole_storage_like_torch():
    def make(lib):
        return lib.arange(1000.)[10:12]
    ours, theirs = round_trip(make(tt), tt), round_trip(make(torch), torch)
    same_loaded(ours, theirs)
    assert ours.untyped_storage().nbytes() == 4000


def test_nested_python_values():
    def make(lib):
        return {
            "none": None, "bools": [True, False], "int": 3, "big": 2**70, "neg": -5, "float": 0.1, "exp": 1e-8,
            "special": [float("inf"), float("-inf"), float("nan")], "str": "héllo\n\"quoted\"",
            "tuple": (1, (2.0, "x"), []), "int_keys": {0: "a", 1: "b"}, "tuple_key": {(1, 2): 3},
            "ordered": collections.OrderedDict([("z", 1), ("a", lib.ones(2))]), "empty": {}, "one_key": {"float": 1},
        }
    check_round_trip(make)


def test_state_dict_of_a_model_like_torch():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    sd = model.state_dict()
    assert isinstance(sd, collections.OrderedDict)

    def make(lib):
        if lib is torch:
            return sd
        return collections.OrderedDict((k, tt.tensor(v.numpy())) for k, v in sd.items())
    check_round_trip(make)


def test_optimizer_state_dict_like_torch():
    w = torch.nn.Parameter(torch.randn(3, 2))
    b = torch.nn.Parameter(torch.randn(2))
    opt = torch.optim.Adam([w, b], lr=1e-3, betas=(0.8, 0.99), weight_decay=0.01, amsgrad=True)
    (w.sum() + b.sum()).backward()
    opt.step()
    sd = opt.state_dict()

    def to_tt(x):
        if isinstance(x, torch.Tensor):
            return tt.tensor(x.numpy())
        if isinstance(x, dict):
            return {k: to_tt(v) for k, v in x.items()}
        if isinstance(x, list):
            return [to_tt(v) for v in x]
        if isinstance(x, tuple):
            return tuple(to_tt(v) for v in x)
        return x
    check_round_trip(lambda lib: sd if lib is torch else to_tt(sd))


def test_requires_grad_kept_and_loaded_as_leaves_like_torch():
    def make(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return {"leaf": a, "nonleaf": a * 2, "view": a[1:], "plain": a.detach()}
    check_round_trip(make)


def test_parameter_round_trip_like_torch():
    def make(lib):
        w = lib.arange(6.).reshape(2, 3)
        return {"w": lib.nn.Parameter(w), "frozen": lib.nn.Parameter(w.t(), requires_grad=False), "plain": w}
    ours, theirs = round_trip(make(tt), tt), round_trip(make(torch), torch)
    same_loaded(ours, theirs)
    for k in theirs:
        assert type(ours[k]).__name__ == type(theirs[k]).__name__, k
    assert ours["frozen"].untyped_storage() is ours["w"].untyped_storage() is ours["plain"].untyped_storage()


def test_paths_pathlike_and_file_objects(tmp_path):
    x = tt.arange(6).reshape(2, 3).t()
    for target in (str(tmp_path / "a.tt"), tmp_path / "b.tt"):
        save(x, target)
        assert_same(load(target), torch.arange(6).reshape(2, 3).t())
    with open(tmp_path / "c.tt", "wb") as f:
        save({"x": x}, f)
    with open(tmp_path / "c.tt", "rb") as f:
        assert load(f)["x"].stride() == (1, 3)
    assert load(tmp_path / "c.tt", map_location="cpu")["x"].tolist() == x.tolist()
    assert load(tmp_path / "c.tt", map_location=tt.device("cpu"), weights_only=True)["x"].shape == (3, 2)
    assert load(tmp_path / "c.tt", weights_only=False)["x"].shape == (3, 2)
    with open(tmp_path / "c.tt", "r", encoding="latin-1") as f, pytest.raises(TypeError, match="binary mode"):
        load(f)
    if not tt.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA device but torch.cuda.is_available"):
            load(tmp_path / "c.tt", map_location="cuda")
    with pytest.raises(RuntimeError, match="callable map_location"):
        load(tmp_path / "c.tt", map_location=lambda storage, location: storage)


def test_file_is_little_endian_with_magic(tmp_path):
    save(tt.tensor([1.5, -2.25, 3.0]), tmp_path / "x.tt")
    raw = (tmp_path / "x.tt").read_bytes()
    assert raw.startswith(serialization.MAGIC)
    assert raw.endswith(np.array([1.5, -2.25, 3.0], dtype="<f4").tobytes())
    version, header_size, header_crc = struct.unpack_from("<IQI", raw, len(serialization.MAGIC))
    assert version == 1 and zlib.crc32(raw[len(serialization.MAGIC) + 16:][:header_size]) == header_crc


def test_unsupported_objects_raise_type_error(tmp_path):
    target = tmp_path / "x.tt"
    save({"ok": 1}, target)
    before = target.read_bytes()
    for bad in [lambda: 1, object(), {1, 2}, b"bytes", tt.nn.Module() if hasattr(tt.nn, "Module") else object()]:
        with pytest.raises(TypeError, match="teachtorch.save cannot save an object of type"):
            save({"x": [tt.ones(1), bad]}, target)
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["x.tt"]
    with pytest.raises(RuntimeError, match="meta"):
        save(tt.empty(2, device="meta"), tmp_path / "meta.tt")


# ---- atomic writes -------------------------------------------------------------------------------------------


class _DiskFull:
    """A file that accepts `limit` bytes, then fails as a full disk would."""

    def __init__(self, file, limit):
        self.file, self.left = file, limit

    def write(self, b):
        if len(b) > self.left:
            self.file.write(b[:self.left])
            raise OSError(28, "No space left on device")
        self.left -= len(b)
        return self.file.write(b)


@pytest.mark.parametrize("limit", [0, 10, 40, 300])
def test_crash_mid_save_leaves_old_file_and_no_temp_file(tmp_path, monkeypatch, limit):
    target = tmp_path / "model.tt"
    save({"w": tt.arange(4.)}, target)
    before = target.read_bytes()
    real_write = serialization._write_file
    monkeypatch.setattr(serialization, "_write_file", lambda f, h, b: real_write(_DiskFull(f, limit), h, b))
    with pytest.raises(OSError, match="No space left"):
        save({"w": tt.zeros(100), "b": tt.ones(100)}, target)
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["model.tt"]
    monkeypatch.undo()
    assert load(target)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_interrupt_mid_save_leaves_no_temp_file(tmp_path, monkeypatch):
    def interrupted(storage, dtype):
        raise KeyboardInterrupt
    monkeypatch.setattr(serialization, "_storage_bytes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save(tt.ones(3), tmp_path / "new.tt")
    assert os.listdir(tmp_path) == []


def test_save_replaces_and_keeps_mode(tmp_path):
    target = tmp_path / "x.tt"
    save(tt.ones(2), target)
    os.chmod(target, 0o640)
    save(tt.zeros(3), target)
    assert load(target).tolist() == [0.0, 0.0, 0.0]
    assert os.stat(target).st_mode & 0o777 == 0o640


# ---- broken files ------------------------------------------------------------------------------------------


def _checkpoint_bytes():
    buf = io.BytesIO()
    save(collections.OrderedDict(w=tt.arange(6.).reshape(2, 3), b=tt.tensor([1, 2], dtype=tt.int8), step=3), buf)
    return buf.getvalue()


def _load_bytes(tmp_path, raw, name="broken.tt"):
    path = tmp_path / name
    path.write_bytes(raw)
    return load(path)


def test_empty_file(tmp_path):
    with pytest.raises(CheckpointError, match=r"broken\.tt.*the file is empty"):
        _load_bytes(tmp_path, b"")
    assert issubclass(CheckpointError, RuntimeError)


def test_truncated_everywhere(tmp_path):
    raw = _checkpoint_bytes()
    for n in range(1, len(raw)):
        with pytest.raises(CheckpointError, match=r"broken\.tt.*(truncated|corrupted)"):
            _load_bytes(tmp_path, raw[:n])


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_flipped_byte_anywhere_is_detected(tmp_path_factory, data):
    raw = bytearray(_checkpoint_bytes())
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] ^= data.draw(st.integers(1, 255))
    with pytest.raises(CheckpointError, match="broken.tt"):
        _load_bytes(tmp_path_factory.mktemp("flip"), bytes(raw))


def test_corruption_messages(tmp_path):
    raw = _checkpoint_bytes()
    data_flip = bytearray(raw)
    data_flip[-1] ^= 1
    with pytest.raises(CheckpointError, match="storage 1 .* fails its CRC-32 check"):
        _load_bytes(tmp_path, bytes(data_flip))
    header_flip = bytearray(raw)
    header_flip[len(serialization.MAGIC) + 20] ^= 1
    with pytest.raises(CheckpointError, match="header fails its CRC-32 check"):
        _load_bytes(tmp_path, bytes(header_flip))
    with pytest.raises(CheckpointError, match="3 unexpected bytes after its data"):
        _load_bytes(tmp_path, raw + b"abc")
    newer = bytearray(raw)
    newer[len(serialization.MAGIC)] = 2
    with pytest.raises(CheckpointError, match="format version 2"):
        _load_bytes(tmp_path, bytes(newer))


def test_foreign_files(tmp_path):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf)
    with pytest.raises(CheckpointError, match=r"torch\.save.*never loads"):
        _load_bytes(tmp_path, buf.getvalue(), "model.pt")
    import pickle
    with pytest.raises(CheckpointError, match="pickle"):
        _load_bytes(tmp_path, pickle.dumps({"w": [1.0]}), "x.pkl")
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
    with pytest.raises(CheckpointError, match=r"image\.png.*not a teachtorch checkpoint"):
        _load_bytes(tmp_path, png, "image.png")
    with pytest.raises(CheckpointError, match="not a teachtorch checkpoint"):
        _load_bytes(tmp_path, b"hello world\n", "notes.txt")
    with pytest.raises(CheckpointError, match="<_io.BytesIO|BytesIO"):
        load(io.BytesIO(b"junk"))


def _crafted(header):
    """A file with a valid CRC around a hand-written header: what an attacker could send."""
    body = json.dumps(header).encode()
    return serialization.MAGIC + struct.pack("<IQI", 1, len(body), zlib.crc32(body)) + body


@pytest.mark.parametrize("obj", [
    {"tensor": {"storage": 0, "dtype": "float32", "offset": 0, "size": [100], "stride": [1], "requires_grad": False}},
    {"tensor": {"storage": 0, "dtype": "float32", "offset": -1, "size": [1], "stride": [1], "requires_grad": False}},
    {"tensor": {"storage": 3, "dtype": "float32", "offset": 0, "size": [1], "stride": [1], "requires_grad": False}},
    {"tensor": {"storage": 0, "dtype": "complex64", "offset": 0, "size": [1], "stride": [1], "requires_grad": False}},
    {"function": "os.system"}, {"tuple": [1], "dict": []}, {"dict": [[[1], 2]]},
])
def test_crafted_headers_are_refused(tmp_path, obj):
    blob = np.zeros(2, np.float32).tobytes()
    raw = _crafted({"storages": [{"nbytes": len(blob), "dtype": "float32", "crc32": zlib.crc32(blob)}],
                    "object": obj}) + blob
    with pytest.raises(CheckpointError, match="malformed"):
        _load_bytes(tmp_path, raw)


def test_load_never_unpickles(tmp_path):
    """A torch.save file holding a function that would run on unpickling is refused before any code runs."""
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (pathlib.Path.touch, (marker,))
    buf = io.BytesIO()
    torch.save({"x": Evil()}, buf)
    with pytest.raises(CheckpointError):
        _load_bytes(tmp_path, buf.getvalue(), "evil.pt")
    assert not marker.exists()
