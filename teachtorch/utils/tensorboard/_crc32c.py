"""CRC-32C, the checksum that guards every record of a TensorBoard event file.

CRC-32C (Castagnoli) is a 32-bit cyclic redundancy check: the data, read as one long polynomial over GF(2), is
divided by the polynomial 0x1EDC6F41 and the remainder is the checksum. A single flipped bit, or any burst of
flipped bits up to 32 long, always changes it. Python's `zlib.crc32` computes the other CRC-32 (polynomial
0x04C11DB7), so TensorFlow's CRC-32C is written out here. TensorBoard's pure-Python fallback
(`tensorboard/compat/tensorflow_stub/pywrap_tensorflow.py`) is the same byte-at-a-time table algorithm.

The *masked* CRC is what goes into the file: TFRecord rotates the CRC and adds a constant, because a CRC of
data that itself contains CRCs is prone to collisions (`tensorflow/core/lib/hash/crc32c.h`, `Mask`).
"""

import functools

__all__ = ["crc32c", "masked_crc32c"]

_POLY_REVERSED = 0x82F63B78     # 0x1EDC6F41 with its bits in reverse order: this CRC is computed LSB-first
_MASK_DELTA = 0xA282EAD8


@functools.cache
def _table():
    """The CRC of each possible byte value: one lookup replaces eight shift-and-xor steps per byte.
    Built on the first use, then kept (functools.cache)."""
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REVERSED if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


def crc32c(data):
    """The CRC-32C of `data` (bytes)."""
    table = _table()
    crc = 0xFFFFFFFF                        # start from all ones, so that leading zero bytes count
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """The CRC-32C of `data` as TFRecord stores it: rotated right by 15 bits, plus a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF
