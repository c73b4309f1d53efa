"""TFRecord framing: how an event file strings serialized Events together (tensorboard/summary/writer/record_writer.py).

An event file is a sequence of records, each one serialized `Event` framed as

    uint64  length                  little-endian, the number of data bytes
    uint32  masked CRC-32C of the 8 length bytes
    byte    data[length]            the serialized Event
    uint32  masked CRC-32C of the data

The length's own checksum lets a reader tell a torn or corrupted length from a real one before it tries to read
`length` bytes; the data's checksum catches any other damaged byte. TensorBoard's reader checks both and stops
at a record that fails (a file still being written ends in a partial record, which it retries later).
"""

import struct

from ._crc32c import masked_crc32c

__all__ = ["RecordWriter", "frame"]


def frame(data):
    """The bytes of one record holding `data`."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


class RecordWriter:
    """Writes framed records into a binary file-like object (with `write`, `flush`, `close`), as tensorboard's
    RecordWriter, which PyTorch re-exports."""

    def __init__(self, writer):
        self._writer = writer

    def write(self, data):
        self._writer.write(frame(data))     # one write: a record is never split by another thread's record

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()

    @property
    def closed(self):
        return self._writer.closed
