"""Checkpoints: `teachtorch.save(obj, f)` and `teachtorch.load(f)`, in a format that loading cannot run code from.

How PyTorch does it (torch/serialization.py). `torch.save` writes a zip archive: `data.pkl`, a *pickle* of the
object in which every tensor is replaced by a reference to its storage, and `data/0`, `data/1`, ..., the raw
bytes of each storage, saved once however many tensors view it. A tensor is saved as (storage, offset, sizes,
strides, dtype, requires_grad), so views of one storage are still views of one storage after loading, and a
small slice of a big tensor saves the whole big storage. Unpickling can call any Python function named in the
file, so a checkpoint from a stranger could run code on your machine; since PyTorch 2.6 `torch.load` defaults
to `weights_only=True`, an unpickler that only builds an allow-list of types.

teachtorch never pickles. The object tree is written as JSON, which can only describe data, and loading builds
nothing but None, bools, ints, floats, strings, lists, tuples, dicts, OrderedDicts, tensors and (if
teachtorch.nn is there) nn.Parameters. The file, version 1:

    magic          15 bytes  b"\\x89teachtorch\\r\\n\\x1a\\n" (PNG's trick: a non-ASCII byte, then a CR LF and a
                             ^Z that text-mode copies and transfers would mangle)
    version         4 bytes  little-endian uint32
    header size     8 bytes  little-endian uint64
    header CRC-32   4 bytes  little-endian uint32
    header                   UTF-8 JSON: {"storages": [{"nbytes", "dtype", "crc32", "device"}, ...], "object": tree}
    storage data             each storage's bytes, one after another, little-endian

In the tree a JSON null, true/false, number, string or list stands for itself; everything else is a JSON object
with one key that names its type: {"tuple": [...]}, {"dict": [[key, value], ...]}, {"OrderedDict": [...]},
{"float": "nan"} (JSON has no NaN or infinities), {"tensor": {"storage": i, "dtype", "offset", "size",
"stride", "requires_grad"}} and {"parameter": {...}}.

Every part can be checked: a truncated file is shorter than its header says, a flipped byte fails a CRC-32 (of
the header or of one storage), a foreign file lacks the magic number. Each of these raises `CheckpointError`
(a RuntimeError, the type torch.load raises for a broken archive) naming the file and what is wrong.

`save` to a path is atomic: it writes a temporary file in the same directory, flushes it to the disk (fsync)
and renames it over the target (`os.replace`, atomic on POSIX and Windows), so a crash or a full disk mid-save
leaves the old checkpoint as it was. A file object is written in place.
"""

import collections
import json
import math
import os
import struct
import tempfile
import zlib

import numpy as np

from . import _dtype
from ._device import as_device, device
from ._storage import UntypedStorage
from .backends import cuda as _cuda_backend
from ._tensor import Tensor

MAGIC = b"\x89teachtorch\r\n\x1a\n"
VERSION = 1
_PREFIX = struct.Struct("<IQI")   # version, header size, header CRC-32


class CheckpointError(RuntimeError):
    """A file that `teachtorch.load` cannot read: empty, truncated, corrupted, foreign or from a newer format."""


# ---- save ---------------------------------------------------------------------------------------------------


def save(obj, f):
    """Save `obj` (tensors, numbers, strings, None, and lists/tuples/dicts of them, e.g. a state_dict) to `f`,
    a path or a binary file object."""
    header, blobs = _serialize(obj)
    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), header, blobs)
    else:
        _write_file(f, header, blobs)


def _serialize(obj):
    """The JSON header (bytes) and the bytes of each storage, in the order the header lists them."""
    storages = []        # (storage, dtype) in order of first appearance
    index_of = {}        # id(storage) -> its index in `storages`
    tree = _encode(obj, storages, index_of)
    blobs = [_storage_bytes(storage, dtype) for storage, dtype in storages]
    table = [{"nbytes": len(blob), "dtype": dtype.name, "crc32": zlib.crc32(blob), "device": str(storage.device)}
             for (storage, dtype), blob in zip(storages, blobs)]
    header = json.dumps({"storages": table, "object": tree}, allow_nan=False, separators=(",", ":"))
    return header.encode("utf-8"), blobs


def _encode(obj, storages, index_of):
    """`obj` as a JSON-able tree (see the module docstring); tensors' storages are collected in `storages`."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        if math.isfinite(obj):
            return float(obj)
        return {"float": repr(float(obj))}          # 'nan', 'inf', '-inf'
    if isinstance(obj, Tensor):
        key = "parameter" if _is_parameter(obj) else "tensor"
        return {key: _encode_tensor(obj, storages, index_of)}
    if isinstance(obj, list):
        return [_encode(x, storages, index_of) for x in obj]
    if isinstance(obj, tuple):                      # namedtuples are saved as plain tuples
        return {"tuple": [_encode(x, storages, index_of) for x in obj]}
    if isinstance(obj, dict):
        kind = "OrderedDict" if isinstance(obj, collections.OrderedDict) else "dict"
        return {kind: [[_encode(k, storages, index_of), _encode(v, storages, index_of)] for k, v in obj.items()]}
    raise TypeError(
        f"teachtorch.save cannot save an object of type {type(obj).__name__}: it saves tensors, numbers, strings, "
        f"None, and lists, tuples and dicts of them (to save a model or an optimizer, save its state_dict())")


def _encode_tensor(t, storages, index_of):
    storage = t.untyped_storage()
    if storage.device.type == "meta":
        raise RuntimeError("teachtorch.save: cannot save a tensor on the 'meta' device: it has no data")
    if id(storage) not in index_of:                 # each storage is saved once, however many tensors view it
        index_of[id(storage)] = len(storages)
        storages.append((storage, t.dtype))
    return {"storage": index_of[id(storage)], "dtype": t.dtype.name, "offset": t.storage_offset(),
            "size": list(t.shape), "stride": list(t.stride()), "requires_grad": t.requires_grad}


def _storage_bytes(storage, dtype):
    """All bytes of `storage`, little-endian. Bytes are swapped only on a big-endian machine (as `dtype`)."""
    raw = storage.bytes()
    if storage.device.type != "cpu":      # a GPU storage is copied to the host first (PyTorch does the same)
        raw = storage.to_host(raw)
    if dtype.itemsize == 1 or raw.size % dtype.itemsize:
        return raw.tobytes()
    return np.asarray(raw.view(dtype.numpy), dtype=dtype.numpy.newbyteorder("<")).tobytes()


def _write_file(file, header, blobs):
    file.write(MAGIC)
    file.write(_PREFIX.pack(VERSION, len(header), zlib.crc32(header)))
    file.write(header)
    for blob in blobs:
        file.write(blob)


def _write_atomically(path, header, blobs):
    """Write to a temporary file next to `path`, fsync it, then rename it over `path` in one step."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as file:
            _write_file(file, header, blobs)
            file.flush()
            os.fsync(file.fileno())               # the bytes are on the disk before the name points at them
        # mkstemp makes the file private (0600); give it the old file's mode, or an ordinary file's
        os.chmod(tmp, os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644)
        os.replace(tmp, path)
    except BaseException:                          # also Ctrl-C: never leave the temporary file behind
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    # On POSIX a rename is durable only once the directory is flushed too; Windows cannot open directories.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _is_parameter(t):
    parameter = _parameter_class()
    return parameter is not None and isinstance(t, parameter)


def _parameter_class():
    """nn.Parameter if teachtorch.nn defines it (imported only when needed: this file is below nn)."""
    try:
        from .nn.parameter import Parameter
    except ImportError:
        return None
    return Parameter


# ---- load ---------------------------------------------------------------------------------------------------


def load(f, map_location=None, *, weights_only=True, mmap=None):
    """Load what `save` wrote to `f` (a path or a binary file object).

    Each tensor goes back to the device it was saved from, unless `map_location` says otherwise: a device
    (`"cpu"`, `"cuda:0"`, `teachtorch.device(...)`) for all of them, or a dict from saved device to device
    (`{"cuda:0": "cpu"}`), as in PyTorch. `weights_only` is accepted for PyTorch compatibility: loading here
    never runs code, whatever its value. `mmap` is accepted and ignored: the file is read whole."""
    if callable(map_location) and not isinstance(map_location, device):
        raise RuntimeError("teachtorch.load: a callable map_location is not supported; pass a device or a dict "
                           "from saved device to device")
    if map_location is not None and not isinstance(map_location, dict):
        map_location = as_device(map_location)
    if isinstance(f, (str, os.PathLike)):
        name = os.fspath(f)
        with open(name, "rb") as file:
            data = file.read()
    else:
        name = getattr(f, "name", None) or repr(f)
        data = f.read()
        if isinstance(data, str):
            raise TypeError(f"teachtorch.load: '{name}' is open in text mode; open it in binary mode ('rb')")
    return _deserialize(data, name, map_location)


def _deserialize(data, name, map_location=None):
    def fail(what):
        return CheckpointError(f"teachtorch.load: cannot load '{name}': {what}")

    if len(data) == 0:
        raise fail("the file is empty")
    if not data.startswith(MAGIC):
        if MAGIC.startswith(data):
            raise fail(f"the file is truncated: it has only {len(data)} bytes")
        raise fail(_describe_foreign(data))
    header_start = len(MAGIC) + _PREFIX.size
    if len(data) < header_start:
        raise fail(f"the file is truncated: it has only {len(data)} bytes")
    version, header_size, header_crc = _PREFIX.unpack_from(data, len(MAGIC))
    if version != VERSION:
        raise fail(f"format version {version} is not one this teachtorch reads ({VERSION}): the file comes from a "
                   f"newer teachtorch, or it is corrupted")
    header_end = header_start + header_size
    if len(data) < header_end:
        raise fail(f"the file is truncated or corrupted: its header ends at byte {header_end}, but the file has "
                   f"{len(data)} bytes")
    header = data[header_start:header_end]
    if zlib.crc32(header) != header_crc:
        raise fail("the header fails its CRC-32 check: the file is corrupted")
    try:
        header = json.loads(header.decode("utf-8"))
        return _rebuild(header, data, header_end, fail, map_location)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError) as e:
        # the header passed its CRC, so only a crafted file (or a bug) gets here
        raise fail(f"the header is malformed ({type(e).__name__}: {e})") from None


def _rebuild(header, data, data_start, fail, map_location=None):
    """Check the data's size and checksums, then build the storages and the object over them."""
    table = header["storages"]
    expected = data_start + sum(entry["nbytes"] for entry in table)
    if len(data) < expected:
        raise fail(f"the file is truncated: it should have {expected} bytes, but has {len(data)}")
    if len(data) > expected:
        raise fail(f"the file has {len(data) - expected} unexpected bytes after its data (it should have "
                   f"{expected} bytes): it is corrupted")
    storages = []
    start = data_start
    for i, entry in enumerate(table):
        blob = data[start:start + entry["nbytes"]]
        start += entry["nbytes"]
        if zlib.crc32(blob) != entry["crc32"]:
            raise fail(f"storage {i} ({entry['nbytes']} bytes) fails its CRC-32 check: the file is corrupted")
        storages.append(_to_device(_storage_from_bytes(blob, entry["dtype"]),
                                   _target_device(entry.get("device", "cpu"), map_location)))
    return _decode(header["object"], storages)


def _target_device(saved, map_location):
    """Where a storage saved from device `saved` goes (PyTorch's `default_restore_location`)."""
    if isinstance(map_location, dict):
        target = as_device(map_location.get(saved, saved))
    else:
        target = as_device(saved) if map_location is None else map_location
    if target.type == "cuda" and _cuda_backend.device_count() == 0:
        raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                           "False. If you are running on a CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")
    return target


def _to_device(storage, target):
    """The same bytes in a storage on `target` (a copy through a flat uint8 tensor over them)."""
    if target.type == "cpu":
        return storage
    flat = Tensor._make(storage, 0, (storage.nbytes(),), (1,), _dtype.uint8)
    return flat.to(target).untyped_storage()


def _describe_foreign(data):
    """What the file seems to be, for the error message, from its first bytes."""
    if data.startswith(b"PK\x03\x04"):
        return ("it is a zip archive, not a teachtorch checkpoint (a file written by torch.save is one: PyTorch's "
                "format pickles Python objects, which teachtorch never loads)")
    if data[:1] == b"\x80":
        return "it is a Python pickle, not a teachtorch checkpoint (teachtorch never unpickles)"
    return f"it is not a teachtorch checkpoint (it does not start with the magic number; first bytes {data[:8]!r})"


def _storage_from_bytes(blob, dtype_name):
    dtype = _dtype._lookup(dtype_name)
    np_dtype = dtype.numpy
    if dtype.itemsize == 1 or len(blob) % dtype.itemsize:
        array = np.frombuffer(blob, dtype=np.uint8).copy()
    else:
        # little-endian in the file; astype makes a writable copy in this machine's byte order
        array = np.frombuffer(blob, dtype=np_dtype.newbyteorder("<")).astype(np_dtype)
    return UntypedStorage(_data=array.view(np.uint8))


def _decode(node, storages):
    """Rebuild the object from its JSON tree. Only the types listed in the module docstring can come out."""
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [_decode(x, storages) for x in node]
    if not isinstance(node, dict) or len(node) != 1:
        raise ValueError(f"unexpected entry {node!r}")
    kind, value = next(iter(node.items()))
    if kind == "tuple":
        return tuple(_decode(x, storages) for x in value)
    if kind == "dict":
        return {_decode(k, storages): _decode(v, storages) for k, v in value}
    if kind == "OrderedDict":
        return collections.OrderedDict((_decode(k, storages), _decode(v, storages)) for k, v in value)
    if kind == "float":
        return float(value)
    if kind == "tensor":
        return _decode_tensor(value, storages)
    if kind == "parameter":
        t = _decode_tensor(value, storages)
        parameter = _parameter_class()
        return t if parameter is None else parameter(t, requires_grad=value["requires_grad"])
    raise ValueError(f"unknown entry type {kind!r}")


def _decode_tensor(entry, storages):
    """A tensor over one of the loaded storages (PyTorch: `torch.empty(0).set_(storage, offset, size, stride)`)."""
    storage = storages[entry["storage"]]
    dtype = _dtype._lookup(entry["dtype"])
    offset, size, stride = entry["offset"], tuple(entry["size"]), tuple(entry["stride"])
    if len(size) != len(stride) or any(not isinstance(x, int) or x < 0 for x in (offset, *size, *stride)):
        raise ValueError(f"bad tensor geometry: offset {offset}, size {size}, stride {stride}")
    # the last element must lie inside the storage: a crafted file must not make us read past its end
    if 0 not in size:
        last = offset + sum((n - 1) * s for n, s in zip(size, stride))
        if (last + 1) * dtype.itemsize > storage.nbytes():
            raise ValueError(f"tensor of size {size} and stride {stride} at offset {offset} reaches past the end of "
                             f"its storage ({storage.nbytes()} bytes)")
    t = Tensor._make(storage, offset, size, stride, dtype)
    if entry["requires_grad"]:
        t.requires_grad_(True)
    return t


__all__ = ["CheckpointError", "load", "save"]
