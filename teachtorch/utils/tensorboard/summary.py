"""The Summary messages: a scalar, a histogram, a text or hyperparameters, as TensorBoard reads them
(torch/utils/tensorboard/summary.py).

A `Summary` is a list of `Value`s, each a tag plus one kind of data; the writer wraps a Summary in an `Event`
(writer.py) that adds the time and the step. The messages and the field numbers used here, from tensorboard's
`summary.proto` and `tensor.proto`:

    Summary         value = 1 (repeated Value)
    Value           tag = 1, simple_value = 2 (float), histo = 5, tensor = 8, metadata = 9
    HistogramProto  min = 1, max = 2, num = 3, sum = 4, sum_squares = 5 (doubles),
                    bucket_limit = 6, bucket = 7 (repeated doubles, packed)
    SummaryMetadata plugin_data = 1 (PluginData: plugin_name = 1, content = 2)
    TensorProto     dtype = 1 (DT_FLOAT 1, DT_DOUBLE 2, DT_STRING 7), tensor_shape = 2,
                    float_val = 5, double_val = 6, string_val = 8
    TensorShapeProto dim = 2 (Dim: size = 1)

PyTorch fills these message classes from the `tensorboard` package and serializes them with `protobuf`; here each
function returns the serialized Summary (bytes) directly, built with `_proto.py`. The values are the ones
PyTorch computes: a scalar is `float(value)` (stored as a float32 `simple_value`, so it loses the digits a
float32 cannot hold, as in PyTorch); a histogram counts the values with `np.histogram` into the bins given, then
keeps only the buckets from the first to the last non-empty one.
"""

import numpy as np

from ..._tensor import Tensor
from . import _proto
from ._convert_np import make_np

__all__ = ["scalar", "histogram", "histogram_raw", "make_histogram", "text", "hparams"]

_DT_FLOAT, _DT_DOUBLE, _DT_STRING = 1, 2, 7


def _summary(tag, *fields):
    """A Summary with one Value: `tag` and the Value's other fields, already encoded (in field number order)."""
    value = _proto.bytes_field(1, tag) + b"".join(fields)
    return _proto.bytes_field(1, value, always=True)


def _plugin_metadata(plugin_name, content=b""):
    """SummaryMetadata naming the TensorBoard plugin (dashboard) that shows the value, and the plugin's own data."""
    plugin_data = _proto.bytes_field(1, plugin_name) + _proto.bytes_field(2, content)
    return _proto.bytes_field(9, _proto.bytes_field(1, plugin_data, always=True), always=True)


def scalar(name, tensor, collections=None, new_style=False, double_precision=False):
    """A Summary holding one number. Old style (the default): a float32 `simple_value`. New style: a one-element
    TensorProto (float32, or float64 with `double_precision`) tagged for the scalars plugin."""
    tensor = make_np(tensor).squeeze()
    if tensor.ndim != 0:
        # PyTorch's message, with the spaces its source's line continuation puts inside the f-string
        raise AssertionError("Tensor should contain one element (0 dimensions).             "
                             f"Was given size: {tensor.size} and {tensor.ndim} dimensions.")
    value = float(tensor)             # a Python float: double precision until it is written
    if not new_style:
        return _summary(name, _proto.float_field(2, value, always=True))
    if double_precision:
        proto = _proto.varint_field(1, _DT_DOUBLE) + _proto.packed_doubles(6, [value])
    else:
        proto = _proto.varint_field(1, _DT_FLOAT) + _proto.packed_floats(5, [value])
    return _summary(name, _proto.bytes_field(8, proto, always=True), _plugin_metadata("scalars"))


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A Summary holding a histogram given by its statistics and buckets (bucket_limits[i] is the right edge of
    bucket i)."""
    histo = (_proto.double_field(1, min) + _proto.double_field(2, max) + _proto.double_field(3, num)
             + _proto.double_field(4, sum) + _proto.double_field(5, sum_squares)
             + _proto.packed_doubles(6, bucket_limits) + _proto.packed_doubles(7, bucket_counts))
    return _summary(name, _proto.bytes_field(5, histo, always=True))


def histogram(name, values, bins, max_bins=None):
    """A Summary holding the histogram of `values` (any shape) over `bins` (edges, a count, or a NumPy rule)."""
    values = make_np(values)
    return histogram_raw(name, *make_histogram(values.astype(float), bins, max_bins))


def make_histogram(values, bins, max_bins=None):
    """(min, max, num, sum, sum_squares, bucket_limits, bucket_counts) of `values`, as PyTorch's make_histogram
    (from TensorFlow's histogram.cc) computes them."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    num_bins = len(counts)
    if max_bins is not None and num_bins > max_bins:
        # merge each run of `subsampling` neighbouring buckets into one (padding the last run with empty ones)
        subsampling = num_bins // max_bins
        subsampling_remainder = num_bins % subsampling
        if subsampling_remainder != 0:
            counts = np.pad(counts, pad_width=[[0, subsampling - subsampling_remainder]],
                            mode="constant", constant_values=0)
        counts = counts.reshape(-1, subsampling).sum(axis=-1)
        new_limits = np.empty((counts.size + 1,), limits.dtype)
        new_limits[:-1] = limits[:-1:subsampling]
        new_limits[-1] = limits[-1]
        limits = new_limits

    # The support of the histogram: from the first to the last bucket with a count (searchsorted on the running
    # count of non-empty buckets finds both).
    cum_counts = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(cum_counts, [0, cum_counts[-1] - 1], side="right")
    start = int(start)
    end = int(end) + 1

    # TensorBoard stores only right edges; an empty bucket on the left keeps the leftmost edge: the bucket
    # before the first non-empty one, or a zero-count bucket when the support starts at bucket 0.
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")

    return (values.min(), values.max(), len(values), values.sum(), values.dot(values),
            limits.tolist(), counts.tolist())


def text(tag, text):
    """A Summary holding a string for the text plugin: a one-element DT_STRING TensorProto, tagged
    `<tag>/text_summary` as PyTorch tags it. The plugin's content, TextPluginData(version=0), serializes to
    nothing, so the metadata is only the plugin's name."""
    shape = _proto.bytes_field(2, _proto.varint_field(1, 1), always=True)       # dim { size: 1 }
    proto = (_proto.varint_field(1, _DT_STRING) + _proto.bytes_field(2, shape, always=True)
             + _proto.bytes_field(8, text.encode("utf_8"), always=True))
    return _summary(tag + "/text_summary", _proto.bytes_field(8, proto, always=True), _plugin_metadata("text"))


# ---- hparams: three Summaries for the HParams plugin -----------------------------------------------------------
#
# Their data is in the plugin's own messages (tensorboard/plugins/hparams/*.proto), serialized into the
# metadata's `content`:
#
#     HParamsPluginData  version = 1, experiment = 2, session_start_info = 3, session_end_info = 4
#     Experiment         hparam_infos = 4 (HParamInfo: name = 1, type = 4, domain_discrete = 5),
#                        metric_infos = 5 (MetricInfo: name = 1, a MetricName: tag = 2)
#     SessionStartInfo   hparams = 1, a map<string, Value>: each entry a message { key = 1, value = 2 }
#     SessionEndInfo     status = 1
#     google.protobuf.Value      number_value = 2, string_value = 3 (a oneof: written even when 0 or "")
#     google.protobuf.ListValue  values = 1 (repeated Value)

_DATA_TYPE_STRING, _DATA_TYPE_FLOAT64 = 1, 3
_STATUS_SUCCESS = 1


def _hparams_summary(tag, plugin_data):
    """A Summary whose one Value is only a tag and metadata: the HParams plugin reads the metadata alone."""
    return _summary(tag, _plugin_metadata("hparams", plugin_data))


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The Summaries (experiment, session_start_info, session_end_info) that put one run in TensorBoard's HParams
    table: the hyperparameters' names, types and values, and the names of the metrics (logged as scalars)."""
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in hparam_domain_discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as hparam_dict[{k}].")

    hparam_infos = []       # serialized HParamInfo messages
    values = []             # serialized map entries of SessionStartInfo.hparams
    for k, v in hparam_dict.items():
        if v is None:
            continue
        # As in PyTorch, a bool is an int here, so it is logged as the number 0 or 1. A Value is
        # `number_value = 2` or `string_value = 3`; a tensor's first element is a number, with no domain.
        discrete = hparam_domain_discrete.get(k)
        if isinstance(v, (int, float)):
            value, data_type = _proto.double_field(2, v, always=True), _DATA_TYPE_FLOAT64
            domain = None if discrete is None else [_proto.double_field(2, d, always=True) for d in discrete]
        elif isinstance(v, str):
            value, data_type = _proto.bytes_field(3, v, always=True), _DATA_TYPE_STRING
            domain = None if discrete is None else [_proto.bytes_field(3, d, always=True) for d in discrete]
        elif isinstance(v, Tensor):
            value, data_type, domain = _proto.double_field(2, make_np(v)[0], always=True), _DATA_TYPE_FLOAT64, None
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        entry = _proto.bytes_field(1, k, always=True) + _proto.bytes_field(2, value, always=True)
        values.append(_proto.bytes_field(1, entry, always=True))
        info = _proto.bytes_field(1, k) + _proto.varint_field(4, data_type)
        if domain is not None:          # a ListValue: values = 1
            info += _proto.bytes_field(5, b"".join(_proto.bytes_field(1, d, always=True) for d in domain), always=True)
        hparam_infos.append(_proto.bytes_field(4, info, always=True))

    metric_infos = [_proto.bytes_field(5, _proto.bytes_field(1, _proto.bytes_field(2, k), always=True), always=True)
                    for k in metric_dict]
    experiment = _proto.bytes_field(2, b"".join(hparam_infos + metric_infos), always=True)
    session_start = _proto.bytes_field(3, b"".join(values), always=True)
    session_end = _proto.bytes_field(4, _proto.varint_field(1, _STATUS_SUCCESS), always=True)
    return (_hparams_summary("_hparams_/experiment", experiment),
            _hparams_summary("_hparams_/session_start_info", session_start),
            _hparams_summary("_hparams_/session_end_info", session_end))
