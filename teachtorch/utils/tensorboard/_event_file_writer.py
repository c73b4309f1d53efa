"""One event file: its name, its first record, and the records appended to it
(tensorboard/summary/writer/event_file_writer.py, which PyTorch's FileWriter uses).

The file is named `events.out.tfevents.<seconds since 1970, 10 digits>.<hostname>.<pid>.<n><filename_suffix>`,
`n` counting the event files this process has opened; TensorBoard finds a run's files by the
`tfevents` in their names and reads them in name order, so a later file (a writer reopened after `close()`)
sorts after an earlier one. The first record is an Event with `file_version: "brain.Event:2"`, the format's
version, and the `source_metadata` naming the program that wrote the file.

PyTorch hands each record to a background thread, which appends it to the file within moments (tensorboard's
file object opens the file, appends and closes it, for each record) and flushes every `flush_secs`;
`max_queue` bounds the records waiting for that thread. teachtorch has no thread: a record is appended to the
file (opened, written in one call, closed) when it is added, so it is on disk for TensorBoard to read at least
as soon as PyTorch's would be, and no file stays open between records. `max_queue` and `flush_secs` are
accepted and kept, with nothing to tune; `flush()` has nothing left to write.
"""

import itertools
import os
import socket
import time

from . import _proto
from ._record_writer import frame

__all__ = ["EventFileWriter"]

_file_numbers = itertools.count()       # `n` in the file name; next() on a count is atomic, so threads may share it


class EventFileWriter:
    def __init__(self, logdir, max_queue_size=10, flush_secs=120, filename_suffix=""):
        self._logdir = logdir
        os.makedirs(logdir, exist_ok=True)
        self._file_name = os.path.join(logdir, "events.out.tfevents.%010d.%s.%s.%s" % (
            time.time(), socket.gethostname(), os.getpid(), next(_file_numbers))) + filename_suffix
        self.max_queue_size = max_queue_size
        self.flush_secs = flush_secs
        self._closed = False
        open(self._file_name, "wb").close()        # a new, empty file, as PyTorch's "wb" (never a stale one's end)
        # Event { wall_time = 1, file_version = 3, source_metadata = 10 { writer = 1 } }
        self.add_event(_proto.double_field(1, time.time()) + _proto.bytes_field(3, "brain.Event:2")
                       + _proto.bytes_field(10, _proto.bytes_field(1, "teachtorch.utils.tensorboard")))

    def get_logdir(self):
        return self._logdir

    def add_event(self, event):
        """Append one serialized Event (bytes) to the file."""
        if self._closed:
            raise OSError("Writer is closed")
        record = frame(event)
        with open(self._file_name, "ab") as file:
            file.write(record)          # the whole record in one write call

    def flush(self):
        if self._closed:
            raise OSError("Writer is closed")

    def close(self):
        self._closed = True
