"""teachtorch.save / teachtorch.load: round trips next to torch.save / torch.load, atomic writes, and every way
a file can be broken (empty, truncated, a flipped byte, a foreign file, a crafted header)."""

import collections
import io
import json
import math
import os
import pathlib
import pickle
import struct
import threading
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
    for bad in [(i for i in range(2)), np.array([{}], dtype=object), threading.Lock(), collections.defaultdict(list)]:
        with pytest.raises(TypeError, match="teachtorch.save cannot save (an object of type|a NumPy array of dtype)"):
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


# ---- hostile inputs (issue 13) -------------------------------------------------------------------------------
#
# Each test below fails on the loader before issue 13: it read a path "to EOF" whatever it was, trusted a
# header that passed its CRC a little too much, held the file three times in memory, left the temporary files of
# killed saves behind, replaced symlinks, and could not save a list that contains itself.

import signal  # noqa: E402
import stat  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

from teachtorch import _checkpoint_file  # noqa: E402

posix_only = pytest.mark.skipif(os.name != "posix", reason="devices, FIFOs and signals are POSIX")


@pytest.fixture
def alarm():
    """Fail (instead of hanging forever) if the test blocks, e.g. opening a FIFO that nobody writes."""
    def ring(signum, frame):
        raise TimeoutError("blocked for 10 s")
    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _run_python(code, timeout=120):
    """Run `code` in a fresh interpreter (for what may exhaust memory or must die mid-way)."""
    tests = os.path.dirname(__file__)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          cwd=os.path.dirname(tests))


@posix_only
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_load_refuses_dev_zero_and_symlinks_to_it(tmp_path):
    # in a child limited to 2 GiB of address space: before the fix, reading /dev/zero "to EOF" ate all memory
    link = tmp_path / "model.tt"
    link.symlink_to("/dev/zero")
    result = _run_python(f"""
import resource
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import teachtorch as tt
for path in ["/dev/zero", {str(link)!r}]:
    try:
        tt.load(path)
    except BaseException as e:
        print(type(e).__name__, e)
""")
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout + result.stderr
    assert lines[0] == ("CheckpointError teachtorch.load: cannot load '/dev/zero': it is a character device, not a "
                        "regular file (a checkpoint is a regular file; reading a device or a pipe may never end)")
    assert lines[1].startswith(f"CheckpointError teachtorch.load: cannot load '{link}' (which resolves to "
                               f"'/dev/zero'): it is a character device, not a regular file")


@posix_only
def test_load_refuses_a_fifo_without_waiting_for_a_writer(tmp_path, alarm):
    fifo = tmp_path / "model.tt"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match=r"model\.tt': it is a FIFO \(named pipe\), not a regular file"):
        load(fifo)
    with pytest.raises(IsADirectoryError, match="Is a directory"):       # as torch.load (open) raises
        load(tmp_path)


class _Stream(io.RawIOBase):
    """A pipe-like stream (not seekable): `data`, then `then` forever. It refuses to be read "to EOF", or more
    than 64 MiB past `data` (so a loader that reads too far fails here instead of eating the machine's memory)."""

    def __init__(self, data, then=b""):
        self.data, self.then, self.position = data, then, 0

    def readable(self):
        return True

    def readinto(self, b):
        assert self.position + len(b) <= len(self.data) + (64 << 20), "read far past the data"
        n = 0
        while n < len(b):
            if self.position < len(self.data):
                chunk = memoryview(self.data)[self.position:self.position + len(b) - n]   # no copy
            elif self.then:
                chunk = (self.then * (len(b) - n))[:len(b) - n]
            else:
                break
            b[n:n + len(chunk)] = chunk
            n += len(chunk)
            self.position += len(chunk)
        return n

    def read(self, size=-1):
        assert size is not None and size >= 0, "read to EOF"
        return super().read(size)

    def readall(self):
        raise AssertionError("read to EOF")


def test_load_reads_a_stream_no_further_than_declared():
    raw = _checkpoint_bytes()
    ok = load(_Stream(raw))
    assert ok["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and ok["step"] == 3
    endless = _Stream(raw, then=b"\0")                        # a checkpoint, then /dev/zero
    with pytest.raises(CheckpointError, match="unexpected bytes after its data"):
        load(endless)
    assert endless.position == len(raw) + 1                   # one byte past the end, to see that it goes on
    lying = bytearray(raw)                                    # a header size of 2**40 (a flipped bit, or a lie)
    lying[len(serialization.MAGIC) + 4:len(serialization.MAGIC) + 12] = struct.pack("<Q", 1 << 40)
    for stream in (_Stream(bytes(lying)), _Stream(bytes(lying), then=b"\0")):
        with pytest.raises(CheckpointError, match=r"header size \(1099511627776 bytes\) is over the 1073741824"):
            load(stream)
        assert stream.position == len(serialization.MAGIC) + 16
    lying[len(serialization.MAGIC) + 4:len(serialization.MAGIC) + 12] = struct.pack("<Q", 100_000)
    with pytest.raises(CheckpointError, match="its header ends at byte 100031, but the file has"):
        load(_Stream(bytes(lying)))                           # a stream that ends: truncated
    huge = _rewritten(raw, lambda h: h["storages"][0].update(nbytes=1 << 62))
    with pytest.raises(CheckpointError, match="storage 0 declares 4611686018427387904 bytes"):
        load(_Stream(huge))


def test_load_peak_memory_is_about_the_file_size(tmp_path):
    """PyTorch's loader holds about one copy of the data; the old one held three (file bytes, slice, astype)."""
    target = tmp_path / "big.tt"
    obj = {"a": tt.arange(4_000_000, dtype=tt.float32), "b": tt.ones(2_000_000, dtype=tt.float64) * 2}
    payload = 4_000_000 * 4 + 2_000_000 * 8                  # 32 MB
    tracemalloc.start()
    try:
        save(obj, target)
        saved_peak = tracemalloc.get_traced_memory()[1]
        raw = target.read_bytes()
        for source in (target, io.BytesIO(raw), _Stream(raw)):
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            loaded = load(source)
            peak = tracemalloc.get_traced_memory()[1] - base
            assert peak < 1.5 * payload, f"{type(source).__name__}: peak {peak / payload:.2f}x the payload"
            assert loaded["a"][-1].item() == 3_999_999 and loaded["b"].sum().item() == 4_000_000
            del loaded
    finally:
        tracemalloc.stop()
    if sys.byteorder == "little":                             # on little-endian cpus save writes storages as they are
        assert saved_peak < 0.5 * payload, f"save: peak {saved_peak / payload:.2f}x the payload"


# -- crafted headers: a valid checkpoint's header re-written, its CRC recomputed


def _rewritten(raw, edit, data=None):
    """`raw` (a checkpoint) with its header changed by `edit(header)` and a valid CRC: a crafted file."""
    start = len(serialization.MAGIC) + 16
    _, size, _ = struct.unpack_from("<IQI", raw, len(serialization.MAGIC))
    header = json.loads(raw[start:start + size])
    edit(header)
    body = json.dumps(header).encode()
    rest = raw[start + size:] if data is None else data
    return serialization.MAGIC + struct.pack("<IQI", 1, len(body), zlib.crc32(body)) + body + rest


def _w(h):      # in _checkpoint_bytes(): w, a 2x3 float32 tensor over storage 0 (24 bytes)
    return h["object"]["OrderedDict"][0][1]["tensor"]


def _b(h):      # b, an int8 tensor of 2 over storage 1 (2 bytes)
    return h["object"]["OrderedDict"][1][1]["tensor"]


def _set(where, **fields):
    return lambda h: where(h).update(fields)


NUMEL = "numel: integer multiplication overflow"
STORAGE_SIZE = r"Storage size calculation overflowed with sizes=\[.*\] and strides=\[.*\]"


@pytest.mark.parametrize("edit, message", [
    (_set(_w, size=[2**40, 2**40], stride=[0, 0]), NUMEL),           # an expanded tensor of 2**80 elements
    (_set(_w, size=[2**62, 4], stride=[0, 0]), NUMEL),
    (_set(_w, size=[-1, 3]), NUMEL),                                  # torch says the same for a negative size
    (_set(_w, size=[0, 2**64], stride=[3, 1]), NUMEL),                # empty, but the size is no int64
    (_set(_w, stride=[-3, 1]), STORAGE_SIZE),
    (_set(_w, size=[1, 3], stride=[2**64, 1]), STORAGE_SIZE),
    (_set(_w, offset=2**61), STORAGE_SIZE),
    (_set(_w, offset=-1), "Tensor: invalid storage offset -1"),
    (_set(_w, size=[0, 3], offset=2**64), "Tensor: invalid storage offset"),
    (_set(_b, storage=-1), "storage index -1 is not one of the file's 2 storages"),   # not the last storage
    (_set(_b, storage=2), "storage index 2 is not one of the file's 2 storages"),
    (_set(_b, storage=True), "storage index True"),
    (_set(_w, size=[3, 3]), r"needs 36 bytes of storage, but its storage has 24"),
    (_set(_w, stride=[4, 1]), r"needs 28 bytes of storage, but its storage has 24"),
    (_set(_w, offset=1), r"needs 28 bytes of storage, but its storage has 24"),
    (_set(_w, size=[2, 3.0]), "bad tensor geometry"),
    (_set(_b, requires_grad="yes"), "requires_grad is 'yes', not true or false"),
    (lambda h: h["storages"][0].update(nbytes=-24), "storage 0 has size -24"),
    (lambda h: h["storages"][1].update(nbytes=True), "storage 1 has size True"),
    (lambda h: h["storages"][1].update(crc32="0"), "storage 1 has CRC-32 '0'"),
    (lambda h: h["storages"].append({"nbytes": 0, "dtype": "float32", "crc32": 0, "device": 0}),
     "storage 2: don't know how to restore data location"),
    (lambda h: h["object"]["OrderedDict"][2].__setitem__(1, {"float": "1e308"}), "not nan, inf or -inf"),
    (lambda h: h["object"]["OrderedDict"][2].__setitem__(1, {"ref": 99}), "reference 99 to an object"),
    (lambda h: h["object"]["OrderedDict"][2].__setitem__(1, {"ref": -1}), "reference -1 to an object"),
    (lambda h: h.update(object={"ref": 0}), "reference 0 to an object"),      # the root is not built yet
    (lambda h: h.update(object={"dict": "ab"}), "a dict's items are str"),
    (lambda h: h.update(storages={}), "'storages' is dict, not a list"),
])
def test_crafted_header_with_valid_crc_is_refused(tmp_path, edit, message):
    raw = _rewritten(_checkpoint_bytes(), edit)
    with pytest.raises(CheckpointError, match=r"broken\.tt': the header is malformed \(.*" + message):
        _load_bytes(tmp_path, raw)


def test_negative_storage_size_cannot_make_storages_overlap(tmp_path):
    """Storages lie one after another; a size of -8 moved the next one back over the header's last 8 bytes. Here
    every CRC is valid, so the old loader built a storage out of header bytes."""
    data = np.arange(2, dtype=np.float32).tobytes()
    obj = {"tensor": {"storage": 1, "dtype": "uint8", "offset": 0, "size": [16], "stride": [1],
                      "requires_grad": False}}

    def body(crc):
        return json.dumps({"storages": [{"nbytes": -8, "dtype": "uint8", "crc32": 0},
                                        {"nbytes": 16, "dtype": "uint8", "crc32": crc}], "object": obj}).encode()
    tail = body(0)[-8:]
    assert body(zlib.crc32(tail + data))[-8:] == tail
    raw = _crafted(json.loads(body(zlib.crc32(tail + data)))) + data
    with pytest.raises(CheckpointError, match=r"broken\.tt': the header is malformed .*storage 0 has size -8"):
        _load_bytes(tmp_path, raw)
    too_big = _crafted(json.loads(body(0).replace(b'"nbytes": -8', b'"nbytes": 8'))) + data
    with pytest.raises(CheckpointError, match=r"broken\.tt': the file is truncated: it should have"):
        _load_bytes(tmp_path, too_big)                                           # ranges past the end of the file


@pytest.mark.parametrize("device", ["nonsense", "cpu:1", "cuda:x", "cuda:0:0"])
def test_bad_device_in_file_names_the_file(tmp_path, device):
    raw = _rewritten(_checkpoint_bytes(), lambda h: h["storages"][0].update(device=device))
    with pytest.raises(CheckpointError, match=r"broken\.tt'.*don't know how to restore data location of "
                                              rf"torch\.storage\.UntypedStorage \(tagged with '{device}'\)"):
        _load_bytes(tmp_path, raw)
    with pytest.raises(RuntimeError):                                         # torch's type for it
        torch.serialization.default_restore_location(torch.UntypedStorage(1), device)


@pytest.mark.parametrize("kind", ["tensor", "parameter"])
def test_requires_grad_on_an_integer_tensor_names_the_file(tmp_path, kind):
    def edit(h):
        entry = h["object"]["OrderedDict"][1]
        entry[1] = {kind: dict(entry[1]["tensor"], requires_grad=True)}
    raw = _rewritten(_checkpoint_bytes(), edit)
    with pytest.raises(CheckpointError, match=r"broken\.tt'.*int8 tensor with requires_grad=True: only Tensors of "
                                              r"floating point .*dtype can require gradients"):
        _load_bytes(tmp_path, raw)
    with pytest.raises(RuntimeError, match="only Tensors of floating point .*dtype can require gradients"):
        torch.tensor([1, 2], dtype=torch.int8).requires_grad_(True)


# -- temporary files of killed saves


def _temp_name(target, host=None, pid=None, token=None, rand="abcd_123"):
    host = _checkpoint_file._HOST if host is None else host
    pid = os.getpid() if pid is None else pid
    token = _checkpoint_file._TOKEN if token is None else token
    return f".{target}.{host}-{pid}-{token}.{rand}.tmp"


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@posix_only
def test_save_removes_temp_files_of_killed_saves_only(tmp_path):
    dead, day = _dead_pid(), _checkpoint_file.STALE_AFTER
    stale = {
        "dead pid": _temp_name("model.tt", pid=dead),
        "our pid, an earlier run": _temp_name("model.tt", token="0badf00d"),
        "another machine, untouched for a day": _temp_name("model.tt", host="12345678", pid=dead, rand="xxxxxxxx"),
        "a live pid, untouched for a day": _temp_name("model.tt", pid=os.getppid(), rand="yyyyyyyy"),
    }
    live = {
        "a live pid": _temp_name("model.tt", pid=os.getppid()),
        "our own live save (another thread)": _temp_name("model.tt"),
        "another machine, recent": _temp_name("model.tt", host="12345678", pid=dead),
        "another target": _temp_name("other.tt", pid=dead),
        "another target with our name as prefix": _temp_name("model.tt.bak", pid=dead),
        "not our pattern": ".model.tt.notes.tmp",
        "not our pattern either": f".model.tt.{dead}.abcd_123.tmp",
    }
    for name in [*stale.values(), *live.values()]:
        (tmp_path / name).write_bytes(b"\0" * 1000)
    for key in ("another machine, untouched for a day", "a live pid, untouched for a day"):
        old = time.time() - day - 60
        os.utime(tmp_path / stale[key], (old, old))
    save(tt.ones(2), tmp_path / "model.tt")
    left = set(os.listdir(tmp_path))
    for why, name in stale.items():
        assert name not in left, f"stale ({why}) but kept"
    for why, name in live.items():
        assert name in left, f"removed, but {why}"
    assert left == {"model.tt", *live.values()}


@posix_only
def test_a_save_killed_mid_write_is_cleaned_up_by_the_next(tmp_path):
    target = tmp_path / "model.tt"
    save({"w": tt.zeros(3)}, target)
    result = _run_python(f"""
import os, signal
import teachtorch as tt
from teachtorch import serialization
def write_then_die(file, header, blobs):
    file.write(serialization.MAGIC + b"half a checkpoint")
    file.flush()
    os.kill(os.getpid(), signal.SIGKILL)
serialization._write_file = write_then_die
tt.save({{"w": tt.ones(1000)}}, {str(target)!r})
""")
    assert result.returncode == -signal.SIGKILL, result.stderr
    (temp,) = set(os.listdir(tmp_path)) - {"model.tt"}           # what the killed save left
    assert temp.startswith(".model.tt.") and temp.endswith(".tmp")
    assert load(target)["w"].tolist() == [0.0, 0.0, 0.0]         # the old checkpoint is intact
    save({"w": tt.ones(2)}, target)
    assert os.listdir(tmp_path) == ["model.tt"]
    assert load(target)["w"].tolist() == [1.0, 1.0]


# -- symlinks and other targets


@posix_only
def test_save_through_a_symlink_writes_its_target_like_torch(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "links").mkdir()
    for lib, ext in ((torch, "pt"), (tt, "tt")):
        real = tmp_path / "runs" / f"real.{ext}"
        link = tmp_path / "links" / f"latest.{ext}"
        lib.save(lib.zeros(2), real)
        link.symlink_to(os.path.relpath(real, link.parent))
        os.chmod(real, 0o640)
        lib.save(lib.ones(3), link)
        assert link.is_symlink() and os.readlink(link) == os.path.relpath(real, link.parent), lib.__name__
        assert lib.load(real).tolist() == [1.0, 1.0, 1.0]
        assert os.stat(real).st_mode & 0o777 == 0o640
        dangling = tmp_path / "links" / f"next.{ext}"                 # a link to a file not there yet: created
        dangling.symlink_to(tmp_path / "runs" / f"next.{ext}")
        lib.save(lib.ones(1), dangling)
        assert dangling.is_symlink() and lib.load(tmp_path / "runs" / f"next.{ext}").tolist() == [1.0]
    assert sorted(os.listdir(tmp_path / "runs")) == ["next.pt", "next.tt", "real.pt", "real.tt"]   # no temp files
    assert sorted(os.listdir(tmp_path / "links")) == ["latest.pt", "latest.tt", "next.pt", "next.tt"]
    loop = tmp_path / "loop.tt"
    loop.symlink_to(loop)
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        save(tt.ones(1), loop)
    assert loop.is_symlink()
    with pytest.raises(IsADirectoryError, match="Is a directory"):
        save(tt.ones(1), tmp_path / "runs")


@posix_only
def test_save_to_a_fifo_writes_into_it(tmp_path, alarm):
    """A target that is not a regular file (a FIFO, /dev/null) is written in place, as torch.save does: renaming
    a file over it would replace the device node or the pipe."""
    fifo = tmp_path / "pipe.tt"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    save({"w": tt.arange(3.)}, fifo)
    reader.join()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["pipe.tt"]
    assert load(io.BytesIO(received[0]))["w"].tolist() == [0.0, 1.0, 2.0]


# -- shared and cyclic objects


def test_cyclic_and_shared_objects_load_like_torch():
    def make(lib):
        a = [1]
        a.append(a)                                      # a list that contains itself
        d = {"n": 2}
        d["self"] = d
        x = [3.0]
        t = lib.arange(4.)
        return {"cyclic": a, "dict": d, "shared": [x, x], "tensors": [t, t, t[1:]], "tuples": ((x,), (x,))}
    ours, theirs = round_trip(make(tt), tt), round_trip(make(torch), torch)
    for b in (ours, theirs):
        assert b["cyclic"][0] == 1 and b["cyclic"][1] is b["cyclic"]
        assert b["dict"]["n"] == 2 and b["dict"]["self"] is b["dict"]
        assert b["shared"][0] is b["shared"][1] and b["shared"][0] == [3.0]
        assert b["tensors"][0] is b["tensors"][1] and b["tensors"][2] is not b["tensors"][0]
        assert b["tensors"][2].untyped_storage().data_ptr() == b["tensors"][0].untyped_storage().data_ptr()
        assert b["tuples"][0][0] is b["tuples"][1][0] is b["shared"][0]
    same_loaded(ours["tensors"], theirs["tensors"])


def test_a_tuple_in_a_cycle_round_trips():
    """torch.load(weights_only=True) refuses this one (its unpickler lacks POP); the tree cuts the cycle at the list."""
    a = []
    t = (a, "x")
    a.append(t)
    b = round_trip(t, tt)
    assert type(b) is tuple and b[1] == "x" and type(b[0]) is list
    assert b[0][0][0] is b[0] and b[0][0][1] == "x"


def test_cyclic_object_with_something_unsaveable_leaves_the_file(tmp_path):
    target = tmp_path / "x.tt"
    save([1, 2], target)
    a = [tt.ones(2)]
    a.append(a)
    a.append(i for i in range(2))
    with pytest.raises(TypeError, match="cannot save an object of type generator"):
        save(a, target)
    assert load(target) == [1, 2] and os.listdir(tmp_path) == ["x.tt"]


def test_load_from_file_objects_that_are_not_plain_files(tmp_path):
    """A gzip file reports the compressed file's descriptor (whose size is not the stream's); a pipe has none."""
    import gzip
    raw = _checkpoint_bytes()
    with gzip.open(tmp_path / "model.tt.gz", "wb") as f:
        f.write(raw)
    with gzip.open(tmp_path / "model.tt.gz", "rb") as f:
        assert load(f)["w"].shape == (2, 3)
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write_end, raw), os.close(write_end)))
    writer.start()
    with os.fdopen(read_end, "rb") as f:
        assert load(f)["step"] == 3
    writer.join()
    with open(tmp_path / "two.tt", "wb") as f:                       # positioned after something else
        f.write(b"preamble")
        save(tt.ones(2), f)
    with open(tmp_path / "two.tt", "rb") as f:
        f.read(8)
        assert load(f).tolist() == [1.0, 1.0]


def test_views_of_one_storage_as_different_dtypes_are_refused_like_torch(tmp_path):
    """PyTorch writes each storage's bytes as one dtype, so it refuses two views of one storage as different
    dtypes (an empty storage is fine); nothing is written."""
    import torch
    x = tt.zeros(4)
    with pytest.raises(RuntimeError) as ours:
        tt.save([x, x.view(tt.int32)], tmp_path / "mixed.tt")
    y = torch.zeros(4)
    with pytest.raises(RuntimeError) as theirs:
        torch.save([y, y.view(torch.int32)], tmp_path / "mixed.pt")
    assert str(ours.value) == str(theirs.value)
    assert not (tmp_path / "mixed.tt").exists()
    e = tt.zeros(0)
    tt.save([e, e.view(tt.int32)], tmp_path / "empty.tt")
    a, b = tt.load(tmp_path / "empty.tt")
    assert a.dtype is tt.float32 and b.dtype is tt.int32 and a.numel() == b.numel() == 0


# ---- whole objects: torch.save(model) and the weights_only allow-list -------------------------------------------


class TTNet(tt.nn.Module):
    """A model saved whole, as the word_language_model example saves its RNNModel."""

    def __init__(self):
        super().__init__()
        self.encoder = tt.nn.Embedding(5, 4)
        self.rnn = tt.nn.LSTM(4, 3)
        self.decoder = tt.nn.Linear(3, 5)
        self.act = tt.nn.functional.relu
        self.shapes = {"hidden": tt.Size([1, 3]), "dtype": tt.float32, "where": tt.device("cpu")}
        self.register_buffer("steps", tt.zeros(2, dtype=tt.int64), persistent=False)

    def forward(self, x):
        out, _ = self.rnn(self.encoder(x))
        return self.decoder(self.act(out))


class TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Embedding(5, 4)
        self.rnn = torch.nn.LSTM(4, 3)
        self.decoder = torch.nn.Linear(3, 5)
        self.act = torch.nn.functional.relu
        self.shapes = {"hidden": torch.Size([1, 3]), "dtype": torch.float32, "where": torch.device("cpu")}
        self.register_buffer("steps", torch.zeros(2, dtype=torch.int64), persistent=False)

    def forward(self, x):
        out, _ = self.rnn(self.encoder(x))
        return self.decoder(self.act(out))


def _allowed(lib, net):
    nn = lib.nn
    return [net, nn.Embedding, nn.LSTM, nn.Linear, nn.functional.relu]


def _saved(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return buf


def test_whole_model_is_refused_by_default_like_torch():
    """weights_only=True (the default since PyTorch 2.6): a class in the file must be allow-listed first."""
    for lib, net in ((tt, TTNet), (torch, TorchNet)):
        with pytest.raises(pickle.UnpicklingError) as e:
            lib.load(_saved(lib, net()))
        name = f"{net.__module__}.{net.__qualname__}"
        assert f"Unsupported global: GLOBAL {name} was not an allowed global by default" in str(e.value)
        assert f"torch.serialization.add_safe_globals([{name}])" in str(e.value)
        with lib.serialization.safe_globals([net]):       # the model's class alone is not enough
            with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL .*(Embedding|LSTM)"):
                lib.load(_saved(lib, net()))


@pytest.mark.parametrize("how", ["safe_globals", "add_safe_globals", "weights_only=False"])
def test_whole_model_round_trip_like_torch(how):
    tt.manual_seed(0)
    ours = TTNet()
    theirs = TorchNet()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    loaded = {}
    for lib, model, net in ((tt, ours, TTNet), (torch, theirs, TorchNet)):
        buf = _saved(lib, model)
        if how == "weights_only=False":
            loaded[lib] = lib.load(buf, weights_only=False)
        elif how == "safe_globals":
            with lib.serialization.safe_globals(_allowed(lib, net)):
                loaded[lib] = lib.load(buf)
            with pytest.raises(pickle.UnpicklingError):       # the block's allow-list ends with the block
                lib.load(_saved(lib, model))
        else:
            before = lib.serialization.get_safe_globals()
            lib.serialization.add_safe_globals(_allowed(lib, net))
            try:
                loaded[lib] = lib.load(buf)
            finally:
                lib.serialization.clear_safe_globals()
                lib.serialization.add_safe_globals(before)
    a, b = loaded[tt], loaded[torch]
    assert type(a) is TTNet and type(b) is TorchNet
    assert list(a.state_dict()) == list(b.state_dict())
    same_loaded(dict(a.state_dict()), dict(b.state_dict()))
    assert a.act is tt.nn.functional.relu and b.act is torch.nn.functional.relu
    assert type(a.shapes["hidden"]) is tt.Size and a.shapes["hidden"] == (1, 3)
    assert a.shapes["dtype"] is tt.float32 and a.shapes["where"] == tt.device("cpu")
    assert "steps" in dict(a.named_buffers()) and "steps" not in a.state_dict()   # non-persistent stays so
    assert all(p.is_leaf and p.requires_grad for p in a.parameters())
    assert a.rnn.weight_ih_l0 is dict(a.named_parameters())["rnn.weight_ih_l0"]
    x = [[1, 2], [3, 4], [0, 1]]
    assert_same(a(tt.tensor(x)), b(torch.tensor(x)), atol=1e-6, rtol=1e-5)
    a(tt.tensor(x)).sum().backward()                       # the loaded model trains
    assert a.decoder.weight.grad is not None and ours.decoder.weight.grad is None


def test_whole_model_keeps_shared_and_cyclic_references():
    """An attribute that points back at the parent, and a parameter shared by two layers (tied weights)."""
    model = tt.nn.Sequential(tt.nn.Embedding(4, 3), tt.nn.Linear(3, 4, bias=False))
    model[1].weight = model[0].weight                   # tied weights, as in the language-model examples
    model.me = [model]
    loaded = load(_saved(tt, model), weights_only=False)
    assert loaded[1].weight is loaded[0].weight and loaded.me[0] is loaded
    assert len(list(loaded.parameters())) == 1


def test_whole_model_to_another_device_with_map_location():
    model = tt.nn.Linear(2, 3)
    loaded = load(_saved(tt, model), map_location="cpu", weights_only=False)
    assert loaded.weight.device == tt.device("cpu") and loaded.weight.equal(model.weight)
    assert loaded.weight.untyped_storage().data_ptr() != model.weight.untyped_storage().data_ptr()


def test_data_types_allowed_by_default_like_torch():
    """What torch's weights_only unpickler builds without an allow-list: sets, complex numbers, bytes,
    bytearrays, dtypes, devices, Sizes."""
    def make(lib):
        shared = bytearray(b"ab")
        return [{1, 2, "x"}, 1 + 2j, complex(math.inf, -0.0), b"\x00\xff", shared, shared,
                lib.float16, lib.int64, lib.bool, lib.device("cpu"), lib.Size([2, 3]), lib.Size([])]
    ours, theirs = round_trip(make(tt), tt), round_trip(make(torch), torch)
    assert ours[4] is ours[5] and theirs[4] is theirs[5]
    for a, b in zip(ours, theirs):
        if isinstance(b, torch.dtype):
            assert a is getattr(tt, str(b).removeprefix("torch."))
        elif isinstance(b, torch.device):
            assert type(a) is tt.device and str(a) == str(b)
        elif isinstance(b, torch.Size):
            assert type(a) is tt.Size and tuple(a) == tuple(b)
        else:
            assert type(a) is type(b) and a == b and repr(a) == repr(b)


def test_frozenset_needs_the_allow_list_like_torch():
    for lib in (tt, torch):
        with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL (builtins.)?frozenset"):
            lib.load(_saved(lib, [frozenset([1])]))
        with lib.serialization.safe_globals([frozenset]):
            assert lib.load(_saved(lib, [frozenset([1])])) == [frozenset([1])]


def test_unpicklable_functions_and_classes_are_refused_like_torch(tmp_path):
    """pickle saves a function or class by name, so a lambda or a local class cannot be saved; nothing is written."""
    class Local(tt.nn.Module):
        pass
    target = tmp_path / "x.tt"
    for bad in (lambda x: x, Local(), Local):
        with pytest.raises(pickle.PicklingError, match="Can't pickle .*: attribute lookup .* failed"):
            save({"f": bad}, target)
        with pytest.raises((pickle.PicklingError, AttributeError)):
            torch.save({"f": bad}, io.BytesIO())
    assert not target.exists()


def test_functions_and_classes_by_name_need_the_allow_list(tmp_path):
    saved = _saved(tt, {"f": tt.nn.functional.relu, "cls": tt.nn.Linear, "len": len}).getvalue()
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL teachtorch.nn.functional.activation.relu"):
        load(io.BytesIO(saved))
    with serialization.safe_globals([tt.nn.functional.relu, tt.nn.Linear, (len, "builtins.len")]):
        got = load(io.BytesIO(saved))
    assert got == {"f": tt.nn.functional.relu, "cls": tt.nn.Linear, "len": len}
    assert load(io.BytesIO(saved), weights_only=False) == got


def test_a_crafted_global_is_never_imported_under_weights_only(tmp_path):
    """A file naming a module that would run code on import: weights_only=True refuses it without importing."""
    (tmp_path / "evil_module_for_tt.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_suffix('.ran').touch()\ndef f(): pass\n")
    raw = _tree_file({"global": ["evil_module_for_tt", "f"]})
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL evil_module_for_tt.f"):
            load(io.BytesIO(raw))
        assert not (tmp_path / "evil_module_for_tt.ran").exists() and "evil_module_for_tt" not in sys.modules
        assert load(io.BytesIO(raw), weights_only=False).__module__ == "evil_module_for_tt"   # the user's call
        assert (tmp_path / "evil_module_for_tt.ran").exists()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("evil_module_for_tt", None)


def _tree_file(tree):
    body = json.dumps({"storages": [], "object": tree}).encode()
    return serialization.MAGIC + struct.pack("<IQI", 1, len(body), zlib.crc32(body)) + body


@pytest.mark.parametrize("tree, message", [
    ({"object": ["collections", "OrderedDict", None, 1]}, "malformed"),
    ({"object": ["builtins", "len", None]}, "is not a class"),
    ({"global": ["os; import", "x"]}, "not a module and a name"),
    ({"global": "os.system"}, "not a module and a name"),
    ({"complex": ["1", 2.0]}, "not two floats"),
    ({"bytes": "not base64!"}, "malformed"),
    ({"device": "gpu"}, "not a device"),
    ({"dtype": "float128"}, "malformed"),
    ({"Size": 3}, "not a list"),
])
def test_crafted_object_entries_are_refused(tree, message):
    with serialization.safe_globals([len, collections.OrderedDict]):
        with pytest.raises(CheckpointError, match=message):
            load(io.BytesIO(_tree_file(tree)), weights_only=False)


def test_weights_only_false_names_a_missing_class_like_pickle():
    raw = _tree_file({"object": ["test_serialization", "NoSuchClass", None]})
    with pytest.raises(AttributeError, match="Can't get attribute 'NoSuchClass' on <module 'test_serialization'"):
        load(io.BytesIO(raw), weights_only=False)
    with pytest.raises(ModuleNotFoundError):
        load(io.BytesIO(_tree_file({"global": ["no_such_module_xyz", "f"]})), weights_only=False)


def test_load_signature_like_torch():
    buf = _saved(tt, [1])
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        load(buf, None, pickle, weights_only=True)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        torch.load(_saved(torch, [1]), None, pickle, weights_only=True)
    assert load(_saved(tt, [1]), None, pickle) == [1]                    # pickle_module given: weights_only False
    assert load(_saved(tt, [1]), encoding="latin1") == [1]              # pickle_load_args accepted
    save([2], buf := io.BytesIO(), pickle, 2)
    buf.seek(0)
    assert load(buf) == [2]


# ---- NumPy arrays and scalars (pytorch/examples' time_sequence_prediction saves one) ----------------------------

_NUMPY_GLOBALS = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, np._core.multiarray.scalar] + [
    type(np.dtype(d)) for d in ("f8", "f4", "i2", "i4", "i8", "U2", "?", "c16")] + [bytes]   # torch's scalars


def test_numpy_arrays_need_the_allow_list_like_torch():
    """torch.save pickles a NumPy array; torch.load(weights_only=True) refuses its rebuild function."""
    for lib in (tt, torch):
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL numpy._core.multiarray._reconstruct was not"):
            lib.load(_saved(lib, np.arange(3.0)))
        with lib.serialization.safe_globals(_NUMPY_GLOBALS[:1]):
            with pytest.raises(pickle.UnpicklingError, match="GLOBAL numpy.ndarray was not"):
                lib.load(_saved(lib, np.arange(3.0)))
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL numpy._core.multiarray.scalar was not"):
            lib.load(_saved(lib, np.float32(2.5)))


@pytest.mark.parametrize("how", ["weights_only=False", "safe_globals"])
def test_numpy_arrays_and_scalars_round_trip_like_torch(how):
    def make():
        base = np.arange(24.0).reshape(2, 3, 4)
        shared = np.arange(3, dtype=np.int16)
        return [base, base.transpose(2, 0, 1)[:, ::2], np.array(7, dtype=">i4"), np.array(["ab", "c"]),
                np.array([True, False]), np.zeros((0, 3), np.float32), np.array([1 + 2j]), shared, shared,
                np.int64(3), np.float32(2.5), np.bool_(True)]
    loaded = {}
    for lib in (tt, torch):
        buf = _saved(lib, make())
        if how == "weights_only=False":
            loaded[lib] = lib.load(buf, weights_only=False)
        else:
            with lib.serialization.safe_globals(_NUMPY_GLOBALS):
                loaded[lib] = lib.load(buf)
    ours, theirs = loaded[tt], loaded[torch]
    assert ours[7] is ours[8] and theirs[7] is theirs[8]
    for a, b in zip(ours, theirs):
        assert type(a) is type(b) and a.dtype.newbyteorder("=") == b.dtype.newbyteorder("=") and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
        if isinstance(a, np.ndarray):
            assert a.flags.writeable and a.flags.c_contiguous == b.flags.c_contiguous


def test_numpy_arrays_stay_on_the_cpu_with_map_location():
    loaded = load(_saved(tt, {"a": np.ones(2), "t": tt.ones(2)}), map_location="meta", weights_only=False)
    assert type(loaded["a"]) is np.ndarray and loaded["t"].device == tt.device("meta")


def test_numpy_arrays_of_python_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot save a NumPy array of dtype object"):
        save([np.array([{}, 1], dtype=object)], tmp_path / "x.tt")
    assert not (tmp_path / "x.tt").exists()


@pytest.mark.parametrize("entry, message", [
    ({"ndarray": {"storage": 0, "dtype": "O", "shape": [1]}}, "not a NumPy dtype"),
    ({"ndarray": {"storage": 5, "dtype": "<f8", "shape": [1]}}, "not one of the file's"),
    ({"ndarray": {"storage": 0, "dtype": "<f8", "shape": [-1]}}, "bad array shape"),
    ({"ndarray": {"storage": 0, "dtype": "<f8", "shape": [3]}}, "does not fill its storage"),
])
def test_crafted_array_entries_are_refused(entry, message):
    blob = np.zeros(2).tobytes()
    body = json.dumps({"storages": [{"nbytes": len(blob), "dtype": "uint8", "crc32": zlib.crc32(blob),
                                     "device": "cpu", "ndarray": True}], "object": entry}).encode()
    raw = serialization.MAGIC + struct.pack("<IQI", 1, len(body), zlib.crc32(body)) + body + blob
    with pytest.raises(CheckpointError, match=message):
        load(io.BytesIO(raw), weights_only=False)
