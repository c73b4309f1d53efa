"""SummaryWriter: log scalars, histograms and text from a training loop into TensorBoard event files
(torch/utils/tensorboard/writer.py).

    from torch.utils.tensorboard import SummaryWriter      # under `python -m teachtorch.run`: this module
    writer = SummaryWriter(log_dir="runs/exp1")
    for step in range(100):
        writer.add_scalar("loss", loss.item(), step)
    writer.close()

Then `tensorboard --logdir runs` shows the curves. Three layers, as in PyTorch:

* `SummaryWriter` is the API. Each `add_*` builds a Summary message (summary.py) and hands it to its FileWriter.
  It owns one FileWriter for `log_dir`, plus one per curve that `add_scalars` draws (each in its own
  sub-directory, which TensorBoard shows as a run of its own). `close()` closes them all; a later `add_*`
  opens a fresh event file in the same directory, as PyTorch does.
* `FileWriter` wraps a Summary in an Event, the record with the time and the step:
  `Event { wall_time = 1 (double), step = 2 (int64), file_version = 3, summary = 5, session_log = 7 }`.
* `EventFileWriter` (_event_file_writer.py) owns the file and appends the framed records (_record_writer.py).

Everything is written by hand (protobuf's wire format in _proto.py, CRC-32C in _crc32c.py): teachtorch needs
neither `tensorboard` nor `protobuf` to write the files, only to look at them.

Supported: add_scalar, add_scalars, add_histogram, add_histogram_raw, add_text, add_hparams, flush, close,
get_logdir, and use as a context manager. The other `add_*` methods of PyTorch's writer (images, graphs,
embeddings, audio, video, meshes, PR curves, custom scalars) raise NotImplementedError saying so, rather than
drop data.
"""

import os
import time

from . import _proto
from ._event_file_writer import EventFileWriter
from .summary import histogram, histogram_raw, hparams, scalar, text

__all__ = ["FileWriter", "SummaryWriter"]

_SESSION_LOG_START = 1      # SessionLog.SessionStatus.START

SUPPORTED = ("add_scalar", "add_scalars", "add_histogram", "add_histogram_raw", "add_text", "add_hparams", "flush",
             "close", "get_logdir")


class FileWriter:
    """Writes Events into one event file in `log_dir`."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        log_dir = str(log_dir)          # a pathlib.Path is welcome too
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        """Write an Event: `event` is its serialized fields after wall_time and step (field numbers above 2),
        which this puts after the time (now, unless `walltime`) and the step."""
        wall_time = time.time() if walltime is None else walltime
        step_field = b"" if step is None else _proto.varint_field(2, int(step))
        self.event_writer.add_event(_proto.double_field(1, wall_time) + step_field + event)

    def add_summary(self, summary, global_step=None, walltime=None):
        """Write a serialized Summary (summary.py) as an Event's `summary` field."""
        self.add_event(_proto.bytes_field(5, summary, always=True), global_step, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()


def _tensorflow_bins():
    """add_histogram's default bin edges: 0, and +-1e-12 growing by 10% up to 1e20 (TensorFlow's default
    buckets, the same at every step, so that TensorBoard can stack a run's histograms)."""
    v = 1e-12
    buckets = []
    neg_buckets = []
    while v < 1e20:
        buckets.append(v)
        neg_buckets.append(-v)
        v *= 1.1
    return neg_buckets[::-1] + [0] + buckets


class SummaryWriter:
    """Writes scalars, histograms and text into event files in `log_dir`, for TensorBoard."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            # PyTorch's default: runs/<Mon><day>_<hh>-<mm>-<ss>_<hostname><comment>, a new one each run
            import socket
            from datetime import datetime
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        # the file writers: made now, dropped by close(), made again by the next add_*
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _tensorflow_bins()

    def _get_file_writer(self):
        """The FileWriter for log_dir, opening a new event file if the writer was closed."""
        if self.all_writers is None or self.file_writer is None:
            file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.file_writer, self.all_writers = file_writer, {file_writer.get_logdir(): file_writer}
            if self.purge_step is not None:
                # A restarted run: TensorBoard hides the events of earlier files from this step on.
                file_writer.add_event(_proto.bytes_field(3, "brain.Event:2"), self.purge_step)
                session_log = _proto.varint_field(1, _SESSION_LOG_START)
                file_writer.add_event(_proto.bytes_field(7, session_log, always=True), self.purge_step)
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """Add one run to TensorBoard's HParams table: the hyperparameters (bool, str, int, float, tensor) and the
        metrics' values. As in PyTorch, they go into a run of their own, `<log_dir>/<run_name>` (default: the
        current time), which also gets each metric as a scalar."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w_hp:
            w_hp.file_writer.add_summary(exp, global_step)
            w_hp.file_writer.add_summary(ssi, global_step)
            w_hp.file_writer.add_summary(sei, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number (a Python number, NumPy scalar or one-element tensor) under `tag` at `global_step`."""
        summary = scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers drawn in one chart `main_tag`. Each key gets its own FileWriter, in the
        sub-directory `<log_dir>/<main_tag with / as _>_<key>`, and is logged there under `main_tag`."""
        walltime = time.time() if walltime is None else walltime       # one time for all the curves
        fw_logdir = self._get_file_writer().get_logdir()
        for tag, scalar_value in tag_scalar_dict.items():
            fw_tag = fw_logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            if fw_tag in self.all_writers:
                fw = self.all_writers[fw_tag]
            else:
                fw = FileWriter(fw_tag, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[fw_tag] = fw
            fw.add_summary(scalar(main_tag, scalar_value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """Log the histogram of `values` (a tensor or NumPy array). `bins`: "tensorflow" (the default edges),
        or anything `np.histogram` takes (edges, a count, "auto", "fd", ...)."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None):
        """Log a histogram computed elsewhere: its statistics and its buckets' right edges and counts."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summary = histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log a string (Markdown, shown by TensorBoard's Text tab) under `<tag>/text_summary`."""
        self._get_file_writer().add_summary(text(tag, text_string), global_step, walltime)

    def flush(self):
        """Make everything logged so far readable on disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        """Close every event file; a later add_* opens a new one. Closing twice does nothing."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _not_supported(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(
            f"SummaryWriter.{name} is not supported in teachtorch: its SummaryWriter writes "
            f"{', '.join(SUPPORTED[:6])} (scalars, histograms, text and hyperparameters), and flush, close, "
            "get_logdir")
    method.__name__, method.__qualname__ = name, f"SummaryWriter.{name}"
    method.__doc__ = f"Not supported in teachtorch: raises NotImplementedError (PyTorch's {name} is not written)."
    return method


# PyTorch's other add_* methods exist, so that a script reaches the call, and refuse it with a clear error.
for _name in ("add_tensor", "add_image", "add_images", "add_image_with_boxes", "add_figure",
              "add_video", "add_audio", "add_onnx_graph", "add_graph", "add_embedding", "add_pr_curve",
              "add_pr_curve_raw", "add_custom_scalars_multilinechart", "add_custom_scalars_marginchart",
              "add_custom_scalars", "add_mesh"):
    setattr(SummaryWriter, _name, _not_supported(_name))
del _name
