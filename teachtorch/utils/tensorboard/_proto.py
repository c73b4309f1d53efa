"""Protocol buffers' wire format, the few pieces an event file needs, written by hand.

A serialized protobuf message is a sequence of fields, each one a *key* then a *value*. The key is the varint
`field_number << 3 | wire_type`; the wire type says how the value is laid out, so that a reader can skip a field
it does not know:

    wire type 0  varint     int64, enums, bools: 7 bits per byte, low bits first, high bit = "more bytes follow"
    wire type 1  64-bit     double, 8 bytes little-endian
    wire type 2  length     string, bytes, a nested message, a packed repeated number: varint length, then bytes
    wire type 5  32-bit     float, 4 bytes little-endian

PyTorch builds these messages with the `protobuf` package and the classes `tensorboard` generates from its
`.proto` files (`Event`, `Summary`, `HistogramProto`, ...). teachtorch writes the bytes itself with the functions
below; `summary.py` says which field numbers each message uses. The messages are proto3: a number field at its
default (0, 0.0) or an empty string is left out, and the reader reads it back as the default. A field inside a
`oneof` (Summary.Value's simple_value) is written even when it is zero. Fields are written in increasing field
number order, as protobuf's own serializer does, so that the bytes match PyTorch's.
"""

import math
import struct

__all__ = ["varint_field", "double_field", "float_field", "bytes_field", "packed_doubles", "packed_floats",
           "float32_bytes"]

_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5


def _varint(n):
    """A non-negative integer as a varint. A negative int64 is first taken modulo 2**64 (ten bytes on the wire)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _key(field, wire_type):
    return _varint(field << 3 | wire_type)


def float32_bytes(x):
    """x rounded to a float32, as 4 bytes. Out of float32's range it becomes +-inf, as a C cast (and protobuf's
    float field) makes it; `struct` alone would raise OverflowError."""
    try:
        return struct.pack("<f", x)
    except OverflowError:
        return struct.pack("<f", math.copysign(math.inf, x))


def varint_field(field, n, *, always=False):
    """An int64 / enum field. 0 is the default and is left out unless `always`."""
    if n == 0 and not always:
        return b""
    return _key(field, _VARINT) + _varint(int(n))


def double_field(field, x, *, always=False):
    """A double field. 0.0 is left out; -0.0 is not the default (its sign bit is set), so it is written."""
    x = float(x)
    if x == 0.0 and math.copysign(1.0, x) > 0 and not always:
        return b""
    return _key(field, _FIXED64) + struct.pack("<d", x)


def float_field(field, x, *, always=False):
    """A float field: x is stored as a float32."""
    x = float(x)
    if x == 0.0 and math.copysign(1.0, x) > 0 and not always:
        return b""
    return _key(field, _FIXED32) + float32_bytes(x)


def bytes_field(field, data, *, always=False):
    """A string (given as str, written as UTF-8), bytes, or an already serialized nested message."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data and not always:
        return b""
    return _key(field, _LENGTH) + _varint(len(data)) + data


def packed_doubles(field, values):
    """A repeated double field, packed (proto3's default): one length-delimited run of 8-byte doubles."""
    values = [float(v) for v in values]
    if not values:
        return b""
    return bytes_field(field, struct.pack(f"<{len(values)}d", *values))


def packed_floats(field, values):
    """A repeated float field, packed: one length-delimited run of 4-byte floats."""
    if not values:
        return b""
    return bytes_field(field, b"".join(float32_bytes(float(v)) for v in values))
