"""teachtorch.utils.tensorboard.SummaryWriter against PyTorch's, read back by the real TensorBoard.

The oracle is the `tensorboard` package (a test dependency only): its record reader checks every CRC, its
EventAccumulator is what the TensorBoard server reads runs with. Each case makes the same calls on
`torch.utils.tensorboard.SummaryWriter` and on teachtorch's, with fixed wall times, and compares the two
directories: the same sub-directories and event files, and, after each file's first record (which holds the
current time and names the writer), the *same bytes* record by record. Equal bytes mean equal tags, steps,
values, histogram buckets and text, and the same protobuf encoding.
"""

import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.tensorboard import SummaryWriter as TorchWriter

from parity import P, inputs

import teachtorch as tt
from teachtorch.utils.tensorboard import SummaryWriter
from teachtorch.utils.tensorboard._crc32c import crc32c, masked_crc32c

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader  # noqa: E402
from tensorboard.compat.proto import event_pb2  # noqa: E402
from tensorboard.compat.tensorflow_stub import errors as tb_errors  # noqa: E402
from tensorboard.compat.tensorflow_stub import pywrap_tensorflow  # noqa: E402
from tensorboard.plugins.hparams import plugin_data_pb2  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parent.parent
LIBS = {"torch": (torch, TorchWriter), "teachtorch": (tt, SummaryWriter)}
FILE_NAME = re.compile(r"events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)(.*)$")


# ---- reading event files with TensorBoard's own reader ---------------------------------------------------------

def is_now(seconds):
    """A time stamp written into a file (a date, not a duration) is this run's: within a day of the clock."""
    return abs(seconds - time.time()) < 86400


def read_records(path):
    """Every record of an event file, read by TensorBoard's pure-Python record reader, which checks the masked
    CRC-32C of each length and each record (a mismatch raises DataLossError)."""
    reader = pywrap_tensorflow.PyRecordReader_New(str(path))
    records = []
    while True:
        try:
            reader.GetNext()
        except tb_errors.OutOfRangeError:
            return records
        records.append(reader.record())


def event_files(root):
    """{sub-directory relative to root: [event file paths in the order the process made them]}."""
    found = {}
    for dirpath, _, names in os.walk(root):
        files = [n for n in names if "tfevents" in n]
        if files:
            files.sort(key=lambda n: int(FILE_NAME.match(n).group(4)))      # the process-wide file counter
            found[os.path.relpath(dirpath, root)] = [os.path.join(dirpath, n) for n in files]
    return found


def snapshot(root):
    """{sub-directory: [[records after the first] per event file]}, checking every file's first record."""
    out = {}
    for rel, paths in event_files(root).items():
        out[rel] = []
        for path in paths:
            records = read_records(path)
            first = event_pb2.Event.FromString(records[0])
            assert first.file_version == "brain.Event:2"
            assert is_now(first.wall_time)
            out[rel].append(records[1:])
    return out


def run_both(tmp_path, fn):
    """fn(lib, writer) with torch's writer in tmp_path/torch and teachtorch's in tmp_path/teachtorch; the
    writers are closed afterwards. Returns the two snapshots."""
    snaps = {}
    for name, (lib, Writer) in LIBS.items():
        writer = Writer(str(tmp_path / name))
        fn(lib, writer)
        writer.close()
        snaps[name] = snapshot(tmp_path / name)
    return snaps["torch"], snaps["teachtorch"]


def check_same(tmp_path, fn):
    expected, got = run_both(tmp_path, fn)
    assert list(got) == list(expected)                  # the same directories, from the writer's log_dir down
    for rel in expected:
        assert len(got[rel]) == len(expected[rel]), rel  # the same number of event files in each
        for got_file, expected_file in zip(got[rel], expected[rel]):
            assert len(got_file) == len(expected_file), rel
            for i, (g, e) in enumerate(zip(got_file, expected_file)):
                assert g == e, f"{rel} record {i + 1}:\n{event_pb2.Event.FromString(g)}\n!=\n" \
                               f"{event_pb2.Event.FromString(e)}"
    return got


def check_error(tmp_path, fn):
    """fn(lib, writer) raises the same error type and message in both libraries, and writes nothing."""
    errors = {}
    for name, (lib, Writer) in LIBS.items():
        with Writer(str(tmp_path / name)) as writer:
            with pytest.raises(Exception) as info:
                fn(lib, writer)
            errors[name] = (type(info.value), str(info.value))
        [path] = event_files(tmp_path / name)["."]
        assert len(read_records(path)) == 1, "a failed call wrote an event"
    assert errors["teachtorch"] == errors["torch"]


# ---- the checksum ----------------------------------------------------------------------------------------------

def test_crc32c_known_answer_and_tensorboards_mask():
    assert crc32c(b"") == 0
    assert crc32c(b"123456789") == 0xE3069283          # the CRC-32C check value (RFC 3720, iSCSI)
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 8, 100, 4097):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert masked_crc32c(data) == pywrap_tensorflow.masked_crc32c(data)


def test_record_writer_frames_records_tensorboard_reads(tmp_path):
    from teachtorch.utils.tensorboard import RecordWriter
    path = tmp_path / "events.out.tfevents.records"
    with open(path, "wb") as f:
        writer = RecordWriter(f)
        for data in (b"", b"abc", bytes(range(256)) * 40):
            writer.write(data)
        writer.flush()
    assert read_records(path) == [b"", b"abc", bytes(range(256)) * 40]


# ---- scalars ---------------------------------------------------------------------------------------------------

SCALARS = [1.25, 3, -7, 0.0, -0.0, 0.1, 1e40, -1e40, 1e-50, float("nan"), float("inf"), True, np.float64(2.5),
           np.float32(0.3), np.int64(9), np.array(4.5), np.array([[6.5]])]


@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_add_scalar_numbers(tmp_path, value):
    check_same(tmp_path, lambda lib, w: w.add_scalar("loss", value, 3, walltime=10.5))


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset", "expanded"])
def test_add_scalar_one_element_tensors(tmp_path, layout):
    def fn(lib, w):
        w.add_scalar("a", P(np.array([[2.75]]), layout).build(lib), 1, walltime=1.0)
        w.add_scalar("b", P(np.array([1.5], dtype=np.float64), layout, requires_grad=True).build(lib), 2,
                     walltime=2.0)
        w.add_scalar("c", lib.tensor(5), 3, walltime=3.0)                              # an int64 0-d tensor
        w.add_scalar("d", P(np.arange(12.0).reshape(3, 4), layout).build(lib)[1:2, 2:3], 4, walltime=4.0)
    check_same(tmp_path, fn)


@pytest.mark.parametrize("kwargs", [dict(new_style=True), dict(new_style=True, double_precision=True),
                                    dict(double_precision=True)], ids=str)
def test_add_scalar_new_style_and_double_precision(tmp_path, kwargs):
    def fn(lib, w):
        for step, value in enumerate([0.1, 1e300, 0.0, lib.tensor(2.5)]):
            w.add_scalar("s", value, step, walltime=5.0 + step, **kwargs)
    check_same(tmp_path, fn)


def test_add_scalar_steps_and_walltimes(tmp_path):
    def fn(lib, w):
        w.add_scalar("no_step", 1.0, walltime=3.0)
        w.add_scalar("step0", 1.0, 0, walltime=3.0)
        w.add_scalar("negative", 1.0, -5, walltime=3.0)
        w.add_scalar("big", 1.0, 2**40, walltime=3.0)
        w.add_scalar("numpy_step", 1.0, np.int64(17), walltime=1e9 + 0.123456789)
        w.add_scalar("tensor_step", 1.0, lib.tensor(18), walltime=0.0)
        w.add_scalar("tag/with/slashes and spaces é", 2.0, 1, walltime=4.0)
    check_same(tmp_path, fn)


@pytest.mark.parametrize("case", [
    lambda lib, w: w.add_scalar("x", lib.ones(2)),
    lambda lib, w: w.add_scalar("x", lib.ones(2, 3).t()[0]),
    lambda lib, w: w.add_scalar("x", np.zeros((0,))),
    lambda lib, w: w.add_scalar("x", [1.0]),
    lambda lib, w: w.add_scalar("x", None),
    lambda lib, w: w.add_scalar("x", "abc"),
    lambda lib, w: w.add_scalar("x", 1.0, "three"),
], ids=["two_elements", "strided_row", "empty", "list", "none", "string", "bad_step"])
def test_add_scalar_errors(tmp_path, case):
    check_error(tmp_path, case)


def test_add_scalar_default_walltime_is_now(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        before = time.time()
        w.add_scalar("x", 1.0, 1)
        after = time.time()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    [event] = acc.Scalars("x")
    assert before <= event.wall_time <= after


# ---- add_scalars: one sub-directory writer per curve -----------------------------------------------------------

def test_add_scalars_layout_and_values(tmp_path):
    def fn(lib, w):
        for step in range(3):
            w.add_scalars("run/14h", {"xsinx": step * 0.5, "xcosx": lib.tensor(float(step)), "tanx": np.float32(step)},
                          step, walltime=100.0 + step)
        w.add_scalars("other", {"a": 1}, 7, walltime=200.0)
        w.add_scalar("plain", 2.0, 1, walltime=300.0)
    got = check_same(tmp_path, fn)
    assert sorted(got) == [".", "other_a", "run_14h_tanx", "run_14h_xcosx", "run_14h_xsinx"]
    acc = EventAccumulator(str(tmp_path / "teachtorch" / "run_14h_xcosx"))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("run/14h")] == [(0, 0.0), (1, 1.0), (2, 2.0)]


def test_add_scalars_one_walltime_for_all_curves(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalars("m", {"a": 1.0, "b": 2.0}, 1)
    times = []
    for sub in ("m_a", "m_b"):
        acc = EventAccumulator(str(tmp_path / sub))
        acc.Reload()
        times.append(acc.Scalars("m")[0].wall_time)
    assert times[0] == times[1]


# ---- histograms ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset", "expanded"])
def test_add_histogram_tensor_layouts(tmp_path, layout):
    values = np.random.default_rng(1).normal(size=(4, 5)) * 3

    def fn(lib, w):
        w.add_histogram("weights", P(values, layout).build(lib), 1, walltime=1.0)
        w.add_histogram("grads", P(values, layout, requires_grad=True).build(lib), 2, walltime=2.0)
    check_same(tmp_path, fn)


@pytest.mark.parametrize("bins", ["tensorflow", 10, "auto", "fd", [-3.0, -1.0, 0.0, 0.5, 4.0]], ids=str)
def test_add_histogram_bins(tmp_path, bins):
    values = np.random.default_rng(2).normal(size=200)
    check_same(tmp_path, lambda lib, w: w.add_histogram("h", values, 5, bins=bins, walltime=3.0))


@pytest.mark.parametrize("values", [np.array([0.0]), np.array([0.0, 0.0, -0.0]), np.arange(12).reshape(3, 4),
                                    np.array([1.0, np.nan, 2.0]), np.array([np.inf, 1.0, -np.inf]),
                                    np.array([1e-13, -1e-13, 5e19]), np.array([True, False, True]), 7, 2.5],
                         ids=["zero", "zeros", "ints", "nan", "infs", "edges", "bools", "int", "float"])
@pytest.mark.filterwarnings("ignore:invalid value encountered")     # inf - inf in the sum, in both libraries
def test_add_histogram_corner_values(tmp_path, values):
    check_same(tmp_path, lambda lib, w: w.add_histogram("h", values, 1, walltime=1.0))


def test_add_histogram_int_and_float64_tensors_and_max_bins(tmp_path):
    def fn(lib, w):
        w.add_histogram("ints", lib.arange(-50, 50).reshape(10, 10).t()[::2], 1, walltime=1.0)
        w.add_histogram("f64", lib.linspace(-2, 3, 101, dtype=lib.float64), 2, walltime=2.0)
        w.add_histogram("merged", lib.linspace(-2, 3, 101), 3, bins=50, max_bins=7, walltime=3.0)
        w.add_histogram("merged_even", lib.linspace(-2, 3, 101), 4, bins=50, max_bins=5, walltime=4.0)
        w.add_histogram("few_bins", lib.linspace(-2, 3, 101), 5, max_bins=10000, walltime=5.0)
    check_same(tmp_path, fn)


def test_add_histogram_raw(tmp_path):
    values = np.array([0.5] * 3 + [1.5] * 5 + [2.5])
    counts, limits = np.histogram(values, bins=[0, 1, 2, 3])

    def fn(lib, w):
        w.add_histogram_raw("raw", values.min(), values.max(), len(values), values.sum(), values.dot(values),
                            limits[1:].tolist(), counts.tolist(), global_step=4, walltime=4.0)
        w.add_histogram_raw("zeros", 0, 0, 0, 0, 0, [], [], global_step=5, walltime=5.0)
        w.add_histogram_raw("tensors", lib.tensor(0.5), 2.5, 9, 14.5, 13.75, lib.tensor([1.0, 2.0, 3.0]),
                            lib.tensor([3, 5, 1]), global_step=6, walltime=6.0)
    check_same(tmp_path, fn)


@pytest.mark.parametrize("case", [
    lambda lib, w: w.add_histogram("h", np.zeros((0,))),
    lambda lib, w: w.add_histogram("h", lib.ones(0, 3)),
    lambda lib, w: w.add_histogram("h", [1.0, 2.0]),
    lambda lib, w: w.add_histogram("h", np.array([1e30])),
    lambda lib, w: w.add_histogram("h", np.array([1.0, np.nan]), bins="auto"),
    lambda lib, w: w.add_histogram_raw("h", 0, 1, 1, 1, 1, [1.0, 2.0], [1.0]),
], ids=["empty_array", "empty_tensor", "list", "outside_the_bins", "nan_auto", "raw_lengths"])
def test_add_histogram_errors(tmp_path, case):
    check_error(tmp_path, case)


@given(x=inputs(dtype="float64"), scale=st.sampled_from([1e-14, 1e-3, 1.0, 1e6]),
       bins=st.sampled_from(["tensorflow", 1, 7, "auto", "sturges"]), max_bins=st.sampled_from([None, 1, 3]))
def test_add_histogram_and_scalar_fuzz(x, scale, bins, max_bins):
    """Random shapes (empty ones too), layouts and scales: the same records, or the same error, as PyTorch."""
    with tempfile.TemporaryDirectory() as root:
        root = pathlib.Path(root)
        outcome, snaps = {}, {}
        for name, (lib, Writer) in LIBS.items():
            with Writer(str(root / name)) as w:
                t = x.build(lib) * scale
                try:
                    w.add_scalar("first", t.reshape(-1)[:1], 0, walltime=1.0)
                    w.add_histogram("h", t, 1, bins=bins, max_bins=max_bins, walltime=2.0)
                    outcome[name] = None
                except Exception as e:       # noqa: BLE001 - compared with PyTorch's below
                    outcome[name] = (type(e), str(e))
            snaps[name] = snapshot(root / name)
        assert outcome["teachtorch"] == outcome["torch"]
        assert snaps["teachtorch"] == snaps["torch"]


def test_histograms_as_tensorboard_reads_them(tmp_path):
    values = np.random.default_rng(3).normal(size=(30, 3))

    def fn(lib, w):
        for step in range(3):
            w.add_histogram("layer/weight", lib.tensor(values * (step + 1)), step, walltime=float(step))
    run_both(tmp_path, fn)
    histograms = {}
    for name in LIBS:
        acc = EventAccumulator(str(tmp_path / name), size_guidance={"histograms": 0})
        acc.Reload()
        histograms[name] = [(e.step, e.histogram_value) for e in acc.Histograms("layer/weight")]
    assert histograms["teachtorch"] == histograms["torch"]
    step, h = histograms["teachtorch"][0]
    assert (step, h.num, h.min, h.max) == (0, 90, values.min(), values.max())
    assert sum(h.bucket) == 90 and len(h.bucket) == len(h.bucket_limit)


def test_cuda_tensors(tmp_path, cuda_backend):
    """Values on the GPU (or on the NumPy stand-in for CuPy) are copied to the host, as PyTorch's make_np does."""
    values = np.random.default_rng(4).normal(size=(6, 7))

    def fn(lib, w):
        device = "cuda" if lib is tt else "cpu"
        x = P(values, "permuted").build(lib).to(device)
        w.add_histogram("h", x, 1, walltime=1.0)
        w.add_histogram("h_grad", x.clone().requires_grad_(), 2, walltime=2.0)
        w.add_scalar("s", x[2, 3], 3, walltime=3.0)
        w.add_scalars("m", {"a": x[0, 0], "b": x.sum()}, 4, walltime=4.0)
        w.add_histogram_raw("r", x.min(), x.max(), 42, x[1, 2], x[3, 4] * x[3, 4], x[0], x[5] > 0, 5, walltime=5.0)
    check_same(tmp_path, fn)


# ---- text ------------------------------------------------------------------------------------------------------

def test_add_text(tmp_path):
    def fn(lib, w):
        w.add_text("notes", "This is an lstm", 0, walltime=1.0)
        w.add_text("notes", "**markdown** é ✓\nsecond line", 10, walltime=2.0)
        w.add_text("empty", "", 1, walltime=3.0)
    check_same(tmp_path, fn)
    acc = EventAccumulator(str(tmp_path / "teachtorch"), size_guidance={"tensors": 0})
    acc.Reload()
    events = acc.Tensors("notes/text_summary")
    assert [(e.step, e.tensor_proto.string_val) for e in events] == [
        (0, [b"This is an lstm"]), (10, ["**markdown** é ✓\nsecond line".encode()])]
    assert acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


def test_add_text_error(tmp_path):
    check_error(tmp_path, lambda lib, w: w.add_text("t", 5))


# ---- hparams ---------------------------------------------------------------------------------------------------

def hparams_run(root):
    """{sub-directory: [(Event with wall_time 0 and the plugin content taken out, HParamsPluginData or None)]}.
    The plugin data is compared as a message: protobuf writes a map's entries in hash order, teachtorch in the
    dict's order, and both read back the same."""
    out = {}
    for rel, paths in event_files(root).items():
        out[rel] = []
        for path in paths:
            for record in read_records(path)[1:]:
                event = event_pb2.Event.FromString(record)
                assert is_now(event.wall_time)
                event.wall_time = 0
                data = None
                for value in event.summary.value:
                    if value.metadata.plugin_data.plugin_name == "hparams":
                        data = plugin_data_pb2.HParamsPluginData.FromString(value.metadata.plugin_data.content)
                        value.metadata.plugin_data.content = b""
                out[rel].append((event, data))
    return out


def test_add_hparams(tmp_path):
    runs = {}
    for name, (lib, Writer) in LIBS.items():
        with Writer(str(tmp_path / name)) as w:
            w.add_scalar("loss", 1.0, 1)
            w.add_hparams({"lr": 0.1, "bsize": 16, "opt": "adam", "flag": True, "none": None, "t": lib.tensor([0.5]),
                           "big": 2**70, "empty": ""},
                          {"hparam/accuracy": 0.9, "hparam/loss": lib.tensor(0.25)},
                          hparam_domain_discrete={"opt": ["adam", "sgd"], "bsize": [16, 32], "flag": [True, False],
                                                  "lr": []},
                          run_name="run1", global_step=3)
            w.add_hparams({"lr": 0.2}, {}, run_name="run2")
        runs[name] = hparams_run(tmp_path / name)
    assert sorted(runs["teachtorch"]) == [".", "run1", "run2"]
    assert runs["teachtorch"] == runs["torch"]
    start = runs["teachtorch"]["run1"][1][1].session_start_info.hparams
    assert (start["opt"].string_value, start["flag"].number_value, start["t"].number_value) == ("adam", 1.0, 0.5)
    acc = EventAccumulator(str(tmp_path / "teachtorch" / "run1"))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("hparam/loss")] == [(3, 0.25)]
    assert acc.SummaryMetadata("_hparams_/experiment").plugin_data.plugin_name == "hparams"


def test_add_hparams_default_run_name(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        before = time.time()
        w.add_hparams({"lr": 0.1}, {"acc": 1.0})
    after = time.time()
    [run] = [rel for rel in event_files(tmp_path) if rel != "."]
    assert before <= float(run) <= after


@pytest.mark.parametrize("case", [
    lambda lib, w: w.add_hparams([("lr", 0.1)], {}),
    lambda lib, w: w.add_hparams({"lr": 0.1}, None),
    lambda lib, w: w.add_hparams({"lr": [0.1]}, {}),
    lambda lib, w: w.add_hparams({"lr": lib.tensor(0.1)}, {}),
    lambda lib, w: w.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete=[("lr", [0.1])]),
    lambda lib, w: w.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete={"lr": [1]}),
    lambda lib, w: w.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete={"momentum": [0.9]}),
    lambda lib, w: w.add_hparams({"opt": "adam"}, {}, hparam_domain_discrete={"opt": "adam"}),
], ids=["hparams_not_dict", "metrics_not_dict", "list_value", "zero_dim_tensor", "domain_not_dict",
        "domain_other_type", "domain_unknown_key", "domain_not_list"])
def test_add_hparams_errors(tmp_path, case):
    check_error(tmp_path, case)


# ---- the writer's life: flush, close, reopen, purge_step, names -----------------------------------------------

def test_flush_makes_data_visible_before_close(tmp_path):
    w = SummaryWriter(str(tmp_path))
    w.add_scalar("loss", 0.5, 1)
    w.add_scalars("pair", {"a": 1.0}, 1)
    w.flush()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(1, 0.5)]
    acc = EventAccumulator(str(tmp_path / "pair_a"))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("pair")] == [(1, 1.0)]
    w.add_scalar("loss", 0.25, 2)
    w.flush()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(1, 0.5), (2, 0.25)]
    w.close()


def test_writing_after_close_opens_a_new_file(tmp_path):
    def fn(lib, w):
        w.add_scalar("x", 1.0, 1, walltime=1.0)
        w.add_scalars("m", {"a": 1.0}, 1, walltime=1.0)
        w.close()
        w.close()                               # closing twice does nothing
        w.flush()                               # nor does flushing a closed writer
        w.add_scalar("x", 2.0, 2, walltime=2.0)  # a new event file in the same directory
        w.add_scalars("m", {"a": 2.0}, 2, walltime=2.0)
        w.close()
        w.add_histogram("h", np.ones(3), 3, walltime=3.0)
    got = check_same(tmp_path, fn)
    assert [len(got["."]), len(got["m_a"])] == [3, 2]
    acc = EventAccumulator(str(tmp_path / "teachtorch"))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("x")] == [(1, 1.0), (2, 2.0)]


def test_context_manager_closes(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        assert w.get_logdir() == str(tmp_path)
        w.add_scalar("x", 1.0, 1)
    assert w.all_writers is None and w.file_writer is None
    with pytest.raises(ZeroDivisionError):
        with SummaryWriter(str(tmp_path / "err")) as w2:
            w2.add_scalar("x", 1.0, 1)
            1 / 0
    assert w2.all_writers is None
    acc = EventAccumulator(str(tmp_path / "err"))
    acc.Reload()
    assert [e.value for e in acc.Scalars("x")] == [1.0]


def test_purge_step(tmp_path):
    snaps = {}
    for name, (lib, Writer) in LIBS.items():
        with Writer(str(tmp_path / name), purge_step=5) as w:
            w.add_scalar("x", 1.0, 5, walltime=1.0)
        records = read_records(event_files(tmp_path / name)["."][0])
        events = [event_pb2.Event.FromString(r) for r in records[1:]]
        for e in events[:2]:            # the purge events carry the time they were written
            assert is_now(e.wall_time)
            e.wall_time = 0
        snaps[name] = [e.SerializeToString() for e in events]
    assert snaps["teachtorch"] == snaps["torch"]
    assert len(snaps["torch"]) == 3


def test_file_names_and_suffix(tmp_path):
    names = {}
    for name, (lib, Writer) in LIBS.items():
        with Writer(tmp_path / name, filename_suffix=".v2") as w:        # a pathlib.Path log_dir
            w.add_scalar("x", 1.0, 1)
        [path] = event_files(tmp_path / name)["."]
        m = FILE_NAME.match(os.path.basename(path))
        assert m, path
        assert is_now(int(m.group(1)))
        names[name] = (m.group(2), m.group(3), m.group(5))
    assert names["teachtorch"] == names["torch"] == (socket.gethostname(), str(os.getpid()), ".v2")


def test_default_log_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dirs = {}
    for name, (lib, Writer) in LIBS.items():
        with Writer(comment="_lr0.1") as w:
            dirs[name] = w.get_logdir()
        assert event_files(tmp_path / dirs[name])
    pattern = re.compile(r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + re.escape(socket.gethostname()) + "_lr0.1$")
    assert pattern.match(dirs["torch"]), dirs["torch"]
    assert pattern.match(dirs["teachtorch"]), dirs["teachtorch"]


def test_attributes_as_pytorch(tmp_path):
    theirs = TorchWriter(str(tmp_path / "torch"), max_queue=3, flush_secs=7)
    ours = SummaryWriter(str(tmp_path / "teachtorch"), max_queue=3, flush_secs=7)
    for attr in ("purge_step", "max_queue", "flush_secs", "filename_suffix", "default_bins"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert list(ours.all_writers) == [str(tmp_path / "teachtorch")]
    theirs.close()
    ours.close()


# ---- checksums: a damaged byte is caught -----------------------------------------------------------------------

def test_reader_detects_a_corrupted_byte(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(3):
            w.add_scalar("x", float(step), step, walltime=1.0)
    [path] = event_files(tmp_path)["."]
    good = pathlib.Path(path).read_bytes()
    records = read_records(path)
    assert len(records) == 4
    # record 2 (step 1) starts after the first two records, each 8 + 4 + len + 4 bytes
    start = sum(16 + len(r) for r in records[:2])

    def damaged(offset):
        data = bytearray(good)
        data[offset] ^= 0x01
        bad = tmp_path / f"events.out.tfevents.bad{offset}"
        bad.write_bytes(bytes(data))
        return bad

    with pytest.raises(tb_errors.DataLossError, match="failed event crc32 check"):
        read_records(damaged(start + 12 + 3))                       # a byte of the data
    with pytest.raises(tb_errors.DataLossError, match="failed header crc32 check"):
        read_records(damaged(start))                                # a byte of the length
    with pytest.raises(tb_errors.DataLossError, match="failed event crc32 check"):
        read_records(damaged(start + 12 + len(records[2])))         # a byte of the data's checksum
    # TensorBoard's loader stops at the damaged record: it keeps the records before it, never a wrong value
    assert list(RawEventFileLoader(str(damaged(start + 12 + 3))).Load()) == records[:2]


# ---- what is not supported says so -----------------------------------------------------------------------------

SUPPORTED = {"add_scalar", "add_scalars", "add_histogram", "add_histogram_raw", "add_text", "add_hparams"}


def test_every_pytorch_add_method_exists():
    theirs = {n for n in dir(TorchWriter) if n.startswith("add_")}
    ours = {n for n in dir(SummaryWriter) if n.startswith("add_")}
    assert ours == theirs


@pytest.mark.parametrize("name", sorted({n for n in dir(TorchWriter) if n.startswith("add_")} - SUPPORTED))
def test_unsupported_methods_raise_and_write_nothing(tmp_path, name):
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(NotImplementedError) as info:
            getattr(w, name)("tag", tt.zeros(3, 8, 8), 0)
    message = str(info.value)
    assert message.startswith(f"SummaryWriter.{name} is not supported in teachtorch")
    for supported in SUPPORTED:
        assert supported in message
    [path] = event_files(tmp_path)["."]
    assert len(read_records(path)) == 1


# ---- real programs ---------------------------------------------------------------------------------------------

MAKEMORE_LOOP = r'''
import json, sys
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(0)
work_dir = sys.argv[1]
writer = SummaryWriter(log_dir=work_dir)
model = nn.Sequential(nn.Embedding(27, 8), nn.Flatten(), nn.Linear(8 * 3, 27))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
X = torch.randint(0, 27, (64, 3))
Y = torch.randint(0, 27, (64,))
losses = []
for step in range(12):
    logits = model(X)
    loss = nn.functional.cross_entropy(logits, Y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    writer.add_scalar("Loss/train", loss.item(), step)
    losses.append(loss.item())
    if step % 5 == 0:
        writer.add_scalar("Loss/test", loss.item() + 0.5, step)
        writer.flush()
writer.flush()
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorboard", "google", "tensorflow"))
print(json.dumps({"losses": losses, "loaded": loaded, "torch_is": torch.__name__}))
'''


def test_makemore_style_loop_under_teachtorch_run(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(MAKEMORE_LOOP)
    out = subprocess.run([sys.executable, "-m", "teachtorch.run", str(script), str(tmp_path / "out")],
                         capture_output=True, text=True, cwd=str(REPO), timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["torch_is"] == "teachtorch"
    assert result["loaded"] == []               # neither tensorboard nor protobuf was imported to write the files
    acc = EventAccumulator(str(tmp_path / "out"))
    acc.Reload()
    assert sorted(acc.Tags()["scalars"]) == ["Loss/test", "Loss/train"]
    train = acc.Scalars("Loss/train")
    assert [e.step for e in train] == list(range(12))
    np.testing.assert_array_equal([e.value for e in train], np.float32(result["losses"]))
    assert [e.step for e in acc.Scalars("Loss/test")] == [0, 5, 10]


def test_nothing_imports_tensorboard_or_protobuf(tmp_path):
    code = f"""
import sys, numpy as np, teachtorch as tt
from teachtorch.utils.tensorboard import SummaryWriter
with SummaryWriter({str(tmp_path)!r}) as w:
    w.add_scalar("a", tt.tensor(1.5), 1, new_style=True, double_precision=True)
    w.add_scalars("b", {{"c": 2}}, 1)
    w.add_histogram("h", tt.randn(100), 1)
    w.add_histogram_raw("r", 0, 1, 1, 1, 1, [1.0], [1.0])
    w.add_text("t", "hi", 1)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("tensorboard", "google", "tensorflow", "torch")))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO), timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    assert len(read_records(event_files(tmp_path)["."][0])) == 5      # the first record, then a, h, r, t
