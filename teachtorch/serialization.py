"""Checkpoints: `teachtorch.save(obj, f)` and `teachtorch.load(f)`, in a format that loading cannot run code from.

How PyTorch does it (torch/serialization.py). `torch.save` writes a zip archive: `data.pkl`, a *pickle* of the
object in which every tensor is replaced by a reference to its storage, and `data/0`, `data/1`, ..., the raw
bytes of each storage, saved once however many tensors view it. A tensor is saved as (storage, offset, sizes,
strides, dtype, requires_grad), so views of one storage are still views of one storage after loading, and a
small slice of a big tensor saves the whole big storage. Unpickling can call any Python function named in the
file, so a checkpoint from a stranger could run code on your machine; since PyTorch 2.6 `torch.load` defaults
to `weights_only=True`, an unpickler that only builds an allow-list of types.

teachtorch never pickles. The object tree is written as JSON, which can only describe data. By default
(`weights_only=True`, as in PyTorch) loading builds nothing but None, bools, ints, floats, complex numbers,
strings, bytes, lists, tuples, sets, dicts, OrderedDicts, dtypes, devices, `Size`s, tensors and (if
teachtorch.nn is there) nn.Parameters. A whole model, `save(model, f)`, is saved as pickle saves it: the
instance's class by name ("__main__.Net") and its attributes (`__dict__`: the submodules, parameters and buffers
in their OrderedDicts). Loading it builds that class, so PyTorch's rule applies: the class must be allow-listed
first (`serialization.add_safe_globals([Net, nn.Linear, ...])` or the `safe_globals` context manager), or loaded
with `weights_only=False`, which imports the modules the file names and so can run code: do that only for files
you trust, exactly as with `torch.load`. The file, version 1:

    magic          15 bytes  b"\\x89teachtorch\\r\\n\\x1a\\n" (PNG's trick: a non-ASCII byte, then a CR LF and a
                             ^Z that text-mode copies and transfers would mangle)
    version         4 bytes  little-endian uint32
    header size     8 bytes  little-endian uint64
    header CRC-32   4 bytes  little-endian uint32
    header                   UTF-8 JSON: {"storages": [{"nbytes", "dtype", "crc32", "device"}, ...], "object": tree}
    storage data             each storage's bytes, one after another, little-endian

The object tree in the header, and what loading may build of it, is _checkpoint_tree.py's.

Every part can be checked: a truncated file is shorter than its header says, a flipped byte fails a CRC-32 (of
the header or of one storage), a foreign file lacks the magic number. Each of these raises `CheckpointError`
(a RuntimeError, the type torch.load raises for a broken archive) naming the file and what is wrong. A header
with a valid CRC can still be crafted, so everything in it is checked before it is used, as PyTorch checks a
tensor's geometry in `set_`: sizes, strides and offsets are integers that fit in an int64, every tensor lies
inside its storage, storage indices and references point at something that exists.

Loading reads only what the header declares: the 31-byte prefix, the header, then each storage's bytes straight
into the buffer that becomes that storage, checking its CRC-32 there, so the peak memory is about the size of the
file, as in PyTorch. A path must name a regular file: /dev/zero or a FIFO is refused before anything is read.
`save` to a path is atomic: it writes a temporary file and renames it over the target. (_checkpoint_file.py
does all of this file handling: bounded reads, atomic replacement, symlinks, and removing the temporary files
of saves that were killed.) A file object is read and written in place.
"""

import json
import os
import struct
import sys
import zlib

import numpy as np

from . import _dtype
from ._checkpoint_file import (CheckpointError, bytes_left, open_regular_file, read_into, read_up_to,
                               write_atomically)
from ._device import as_device, device
from ._storage import UntypedStorage
from ._checkpoint_tree import (_DEVICE_TAG, _ArrayBytes, _Decoder, _Encoder, _import_global, _is_int, _NotFound,
                               _safe_global_finder, add_safe_globals, clear_safe_globals, get_safe_globals,
                               safe_globals)
from ._strides import INT64_MAX
from .backends import cuda as _cuda_backend
from ._tensor import Tensor

MAGIC = b"\x89teachtorch\r\n\x1a\n"
VERSION = 1
_PREFIX = struct.Struct("<IQI")   # version, header size, header CRC-32
# A header describes tensors (~200 bytes each), not data: 1 GiB is millions of tensors. The cap matters for a
# stream of unknown length, where a crafted header size would otherwise be read from a stream that never ends.
_MAX_HEADER = 1 << 30
# what a crafted header that passed its CRC raises while it is checked or decoded
_MALFORMED = (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError, RecursionError)


# ---- save ---------------------------------------------------------------------------------------------------


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save `obj` (tensors, numbers, strings, None, and lists/tuples/dicts of them, e.g. a state_dict; or a whole
    model) to `f`, a path or a binary file object. Everything is encoded before the first byte is written, so an
    object that cannot be saved leaves `f` untouched. The other arguments are PyTorch's, accepted and unused:
    this format does not pickle."""
    header, blobs = _serialize(obj)
    if isinstance(f, (str, os.PathLike)):
        write_atomically(os.fspath(f), lambda file: _write_file(file, header, blobs))
    else:
        _write_file(f, header, blobs)


def _serialize(obj):
    """The JSON header (bytes) and the bytes of each storage, in the order the header lists them."""
    encoder = _Encoder()
    tree = encoder.encode(obj)
    blobs = [_storage_bytes(storage, dtype) for storage, dtype in encoder.storages]
    table = [{"nbytes": len(blob), "dtype": dtype.name, "crc32": zlib.crc32(blob), "device": str(storage.device)}
             for (storage, dtype), blob in zip(encoder.storages, blobs)]
    for entry, (storage, _) in zip(table, encoder.storages):
        if isinstance(storage, _ArrayBytes):
            entry["ndarray"] = True              # a NumPy array's bytes: they stay on the cpu, whatever map_location
    header = json.dumps({"storages": table, "object": tree}, allow_nan=False, separators=(",", ":")).encode("utf-8")
    if len(header) > _MAX_HEADER:
        raise RuntimeError(f"teachtorch.save: the object's description takes {len(header)} bytes, more than the "
                           f"{_MAX_HEADER} bytes a checkpoint's header may have; save it in parts")
    return header, blobs


def _storage_bytes(storage, dtype):
    """All bytes of `storage` as a flat uint8 array, little-endian: on a little-endian cpu the storage's own
    bytes (no copy), swapped into a copy only on a big-endian machine (as `dtype`)."""
    raw = storage.bytes()
    if isinstance(storage, _ArrayBytes):
        return raw
    if storage.device.type != "cpu":      # a GPU storage is copied to the host first (PyTorch does the same)
        raw = storage.to_host(raw)
    if sys.byteorder == "little" or dtype.itemsize == 1 or raw.size % dtype.itemsize:
        return raw
    return raw.view(dtype.numpy).astype(dtype.numpy.newbyteorder("<")).view(np.uint8)


def _write_file(file, header, blobs):
    file.write(MAGIC)
    file.write(_PREFIX.pack(VERSION, len(header), zlib.crc32(header)))
    file.write(header)
    for blob in blobs:
        file.write(blob)


# ---- load ---------------------------------------------------------------------------------------------------


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load what `save` wrote to `f` (a path or a binary file object).

    Each tensor goes back to the device it was saved from, unless `map_location` says otherwise: a device
    (`"cpu"`, `"cuda:0"`, `teachtorch.device(...)`) for all of them, or a dict from saved device to device
    (`{"cuda:0": "cpu"}`), as in PyTorch. `weights_only` (None means True, as since PyTorch 2.6) builds only data
    and allow-listed classes; `weights_only=False` also imports the classes and functions the file names, which
    can run code. `mmap` and `pickle_load_args` are accepted and ignored: the storages are read into memory."""
    if weights_only is None:
        weights_only = pickle_module is None
    elif weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if callable(map_location) and not isinstance(map_location, device):
        raise RuntimeError("teachtorch.load: a callable map_location is not supported; pass a device or a dict "
                           "from saved device to device")
    if map_location is not None and not isinstance(map_location, dict):
        map_location = as_device(map_location)
    if isinstance(f, (str, os.PathLike)):
        name = os.fspath(f)
        with open_regular_file(name) as file:
            return _read(file, name, os.fstat(file.fileno()).st_size, map_location, weights_only)
    return _read(f, getattr(f, "name", None) or repr(f), bytes_left(f), map_location, weights_only)


def _read(file, name, size, map_location, weights_only):
    """Read a checkpoint from `file`, which has `size` bytes left (None: unknown), never reading past what the
    header declares (one byte more, for a stream, to see that it ends there)."""
    # Over 60 lines: reads a checkpoint in file order, one pass, each check next to the bytes it checks.
    def fail(what):
        return CheckpointError(f"teachtorch.load: cannot load '{name}': {what}")

    # the prefix: magic number, version, header size and CRC
    if size == 0:
        raise fail("the file is empty")
    start = read_up_to(file, len(MAGIC) + _PREFIX.size, name)
    if len(start) == 0:
        raise fail("the file is empty")
    if not start.startswith(MAGIC):
        if MAGIC.startswith(start):
            raise fail(f"the file is truncated: it has only {len(start)} bytes")
        raise fail(_describe_foreign(start))
    if len(start) < len(MAGIC) + _PREFIX.size:
        raise fail(f"the file is truncated: it has only {len(start)} bytes")
    version, header_size, header_crc = _PREFIX.unpack_from(start, len(MAGIC))
    if version != VERSION:
        raise fail(f"format version {version} is not one this teachtorch reads ({VERSION}): the file comes from a "
                   f"newer teachtorch, or it is corrupted")
    # the header: its size is checked against the file before anything is read, its CRC before it is parsed
    header_end = len(start) + header_size
    if size is not None and size < header_end:
        raise fail(f"the file is truncated or corrupted: its header ends at byte {header_end}, but the file has "
                   f"{size} bytes")
    if header_size > _MAX_HEADER:
        raise fail(f"its header size ({header_size} bytes) is over the {_MAX_HEADER} bytes a header may have: the "
                   f"file is corrupted")
    header = read_up_to(file, header_size, name)
    if len(header) < header_size:
        raise fail(f"the file is truncated or corrupted: its header ends at byte {header_end}, but the file has "
                   f"{len(start) + len(header)} bytes")
    if zlib.crc32(header) != header_crc:
        raise fail("the header fails its CRC-32 check: the file is corrupted")
    try:
        header = json.loads(header.decode("utf-8"))
        table = _check_storage_table(header["storages"], map_location)
        tree = header["object"]
    except _MALFORMED as e:
        # the header passed its CRC, so only a crafted file (or a bug) gets here
        raise fail(f"the header is malformed ({type(e).__name__}: {e})") from None

    # the storages: their sizes are checked against the file before anything is allocated
    expected = header_end + sum(nbytes for nbytes, _, _, _ in table)
    if size is not None and size < expected:
        raise fail(f"the file is truncated: it should have {expected} bytes, but has {size}")
    if size is not None and size > expected:
        raise fail(f"the file has {size - expected} unexpected bytes after its data (it should have {expected} "
                   f"bytes): it is corrupted")
    storages = []
    position = header_end
    for i, (nbytes, dtype, crc, target) in enumerate(table):
        try:
            buffer = np.empty(nbytes, dtype=np.uint8)     # the storage's own bytes: read once, never copied
        except MemoryError:
            if size is not None:                          # the file really is this big
                raise
            raise fail(f"storage {i} declares {nbytes} bytes, more than can be allocated: the file is "
                       f"corrupted") from None
        got = read_into(file, buffer)
        if got < nbytes:
            raise fail(f"the file is truncated: it should have {expected} bytes, but has {position + got}")
        position += nbytes
        if zlib.crc32(buffer) != crc:
            raise fail(f"storage {i} ({nbytes} bytes) fails its CRC-32 check: the file is corrupted")
        storages.append(_to_device(_storage_from_buffer(buffer, dtype), target))
    if size is None and read_up_to(file, 1, name):
        raise fail(f"the file has unexpected bytes after its data (it should have {expected} bytes): it is "
                   f"corrupted")
    # the object over them
    try:
        return _Decoder(storages, _safe_global_finder() if weights_only else _import_global).decode(tree)
    except _NotFound as e:                           # weights_only=False: a class that is not there (any more)
        raise e.error from None
    except _MALFORMED as e:
        raise fail(f"the header is malformed ({type(e).__name__}: {e})") from None


def _check_storage_table(table, map_location):
    """(nbytes, dtype, crc32, target device) of each storage, every field checked before any data is read."""
    if not isinstance(table, list):
        raise TypeError(f"'storages' is {type(table).__name__}, not a list")
    checked = []
    for i, entry in enumerate(table):
        nbytes, crc = entry["nbytes"], entry["crc32"]
        if not _is_int(nbytes) or not 0 <= nbytes <= INT64_MAX:
            # the storages lie one after another, so a negative size would overlap the storage before it
            raise ValueError(f"storage {i} has size {nbytes!r}: a storage's size is a non-negative integer")
        if not _is_int(crc) or not 0 <= crc < 2**32:
            raise ValueError(f"storage {i} has CRC-32 {crc!r}: a CRC-32 is an integer in [0, 2**32)")
        dtype = _dtype._lookup(entry["dtype"])
        saved = entry.get("device", "cpu")
        if not isinstance(saved, str) or not _DEVICE_TAG.fullmatch(saved):
            raise ValueError(f"storage {i}: don't know how to restore data location of torch.storage.UntypedStorage "
                             f"(tagged with {saved!r})")
        array = entry.get("ndarray", False) is True
        checked.append((nbytes, dtype, crc, device("cpu") if array else _target_device(saved, map_location)))
    return checked


def _target_device(saved, map_location):
    """Where a storage saved from device `saved` goes (PyTorch's `default_restore_location`)."""
    if isinstance(map_location, dict):
        target = as_device(map_location.get(saved, saved))
    else:
        target = as_device(saved) if map_location is None else map_location
    if target.type == "cuda":
        count = _cuda_backend.device_count()
        if count == 0:
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        if target.index >= count:
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {target.index} but "
                               f"torch.cuda.device_count() is {count}. Please use torch.load with map_location to "
                               f"map your storages to an existing device.")
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


def _storage_from_buffer(buffer, dtype):
    """A cpu storage over `buffer` (little-endian bytes); swapped in place only on a big-endian machine."""
    if sys.byteorder == "big" and dtype.itemsize > 1 and buffer.size % dtype.itemsize == 0:
        buffer.view(dtype.numpy).byteswap(inplace=True)
    return UntypedStorage(_data=buffer)


__all__ = ["CheckpointError", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals",
           "save"]
