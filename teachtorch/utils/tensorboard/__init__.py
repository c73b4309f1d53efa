"""teachtorch.utils.tensorboard: SummaryWriter, writing TensorBoard event files without TensorBoard
(torch/utils/tensorboard/).

PyTorch's `torch.utils.tensorboard` needs the `tensorboard` package (its message classes and file writer) and
`protobuf`. teachtorch writes the same files by hand, readable in one sitting, bottom up:

    _crc32c.py            CRC-32C, the checksum of every record
    _record_writer.py     TFRecord framing: length, checksums, data
    _proto.py             protobuf's wire format: varints, fixed-width numbers, length-delimited fields
    summary.py            the Summary messages: scalar, histogram, text
    _event_file_writer.py one event file: its name and first record
    writer.py             FileWriter (Summary -> Event) and SummaryWriter, the API

TensorBoard (`tensorboard --logdir runs`) reads the files as it reads PyTorch's.
"""

from ._record_writer import RecordWriter
from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
