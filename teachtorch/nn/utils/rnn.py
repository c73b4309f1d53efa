"""Batches of sequences of different lengths: padding them to one length, or packing them step by step.

    pad_sequence([a, b, c])          one (T, B, *) tensor, the short sequences filled with padding_value
    pack_padded_sequence(x, lengths) a PackedSequence: the padded batch with the padding left out
    pad_packed_sequence(packed)      back to (padded tensor, lengths)
    pack_sequence([a, b, c])         pad, then pack

A PackedSequence stores a batch time step by time step: first the step-0 elements of every sequence, then the
step-1 elements of those that are still running, and so on, with the sequences sorted longest first. So
for lengths 3 and 1 (sequences "abc" and "x") `data` holds a x b c and `batch_sizes` is [2, 1, 1]: at step t
only the first batch_sizes[t] sequences run. An RNN fed a PackedSequence (nn/modules/rnn.py) does no work
on padding, and each sequence's final hidden state is the one at its own last step. `sorted_indices` records
how the caller's batch was reordered (None when it was already sorted), `unsorted_indices` undoes that.

PyTorch does the packing and padding in C++ (aten/src/ATen/native/PackedSequence.cpp); here they are
slices, `cat` and `stack` of core ops, so gradients flow back through them with no new formulas. As in
PyTorch, `batch_sizes` is always an int64 tensor on the cpu.
"""

from collections import namedtuple

from ..._dtype import int64
from ..._strides import _broadcast_pair
from ...ops import arange, as_tensor, cat, empty_like, full, sort, stack, tensor


__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "pack_sequence", "unpack_sequence", "unpad_sequence"]


def invert_permutation(permutation):
    """The inverse of a permutation of 0..n-1: result[permutation[i]] = i."""
    if permutation is None:
        return None
    output = empty_like(permutation)
    output.scatter_(0, permutation, arange(0, permutation.numel(), device=permutation.device))
    return output


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A packed batch: (data, batch_sizes, sorted_indices, unsorted_indices), a named tuple as in PyTorch.
    Made by pack_padded_sequence / pack_sequence, never by hand."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                    "manually. They should be instantiated by functions like pack_sequence and "
                    "pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        else:                              # PackedSequence((data, batch_sizes), sorted_indices)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """`data.to(...)`; the indices follow data's device; batch_sizes stays on the cpu."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: None if t is None else t.to(device=data.device))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self.to("cuda" if not args else args[0], **kwargs)

    def double(self):
        return type(self)(self.data.double(), self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def float(self):
        return type(self)(self.data.float(), self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _lengths_list(lengths):
    """lengths as plain ints: a list, or a tensor (cast to int64 first, as PyTorch does)."""
    if hasattr(lengths, "tolist"):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (or (B, T, *) with batch_first) of sequences with the given lengths.

    With enforce_sorted=True the lengths must already decrease; otherwise the batch is sorted here and the
    order is remembered in sorted_indices."""
    lengths = as_tensor(_lengths_list(lengths), dtype=int64, device="cpu")
    batch_dim = 0 if batch_first else 1
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = sort(lengths, descending=True, stable=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(batch_dim, sorted_indices)

    if batch_first:
        input = input.transpose(0, 1)      # time first: the packed data is step after step
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    lens = lengths.tolist()
    batch_size = input.size(1)
    if len(lens) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch_size})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    # batch_sizes[t]: how many sequences are longer than t
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    data = cat([input[t, :b] for t, b in enumerate(sizes)])
    batch_sizes = tensor(sizes, dtype=int64, device="cpu")
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo pack_padded_sequence: returns (padded (T, B, *) or (B, T, *), lengths), in the caller's order."""
    sizes = sequence.batch_sizes.tolist()
    max_seq_length = len(sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    max_batch = sizes[0]
    rest = tuple(data.shape[1:])
    steps = []
    start = 0
    for b in sizes:                        # step t: its b rows, then padding up to the whole batch
        rows = data[start:start + b]
        start += b
        if b < max_batch:
            pad = full((max_batch - b,) + rest, padding_value, dtype=data.dtype, device=data.device)
            rows = cat([rows, pad])
        steps.append(rows)
    for _ in range(max_seq_length - len(sizes)):
        steps.append(full((max_batch,) + rest, padding_value, dtype=data.dtype, device=data.device))
    padded = stack(steps)
    lengths = tensor([sum(1 for s in sizes if s > i) for i in range(max_batch)], dtype=int64,
                         device="cpu")
    if batch_first:
        padded = padded.transpose(0, 1)    # a view, as PyTorch returns it
    if sequence.unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded.index_select(batch_dim, sequence.unsorted_indices), lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes (L_i, *) into (T, B, *) (or (B, T, *)), T the longest L_i, filling the rest
    with padding_value after each sequence ("right") or before it ("left")."""
    if not hasattr(sequences, "__iter__"):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(s.size(0) for s in sequences)
    first = sequences[0]
    trailing = tuple(first.shape[1:])      # PyTorch sizes the result from the first sequence
    rows = []
    for s in sequences:
        slot = (s.size(0),) + trailing
        if tuple(s.shape) != slot:         # PyTorch copies each sequence into its slot: copy_'s broadcasting
            shape = _broadcast_pair(slot, tuple(s.shape))
            if shape != slot:
                raise RuntimeError(f"output with shape {list(slot)} doesn't match the broadcast shape {list(shape)}")
            s = s.expand(slot)
        s = s.to(first.dtype)
        if s.size(0) < max_len:
            pad = full((max_len - s.size(0),) + trailing, padding_value, dtype=first.dtype, device=first.device)
            s = cat([s, pad] if padding_side == "right" else [pad, s])
        rows.append(s)
    return stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences inside a padded batch: sequence i is its first lengths[i] steps (a tensor).

    Each is picked with a boolean mask, so it is a fresh copy, as in PyTorch. (PyTorch transposes a
    time-first batch in place, changing the caller's tensor; here the transpose is a view.)"""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    idx = arange(padded_sequences.shape[1], device=lengths.device)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *): pad_sequence, then pack_padded_sequence."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences inside a PackedSequence, in the caller's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
