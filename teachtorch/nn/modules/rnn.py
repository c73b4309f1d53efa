"""Recurrent layers: RNN, LSTM, GRU (a whole sequence) and RNNCell, LSTMCell, GRUCell (one time step).

A recurrent layer reads a sequence one step at a time and carries a hidden state h from each step to the
next. Each kind of layer has its own update (W_i* and b_i* act on the input x_t, W_h* and b_h* on h):

    RNN   h' = tanh(W_ih x + b_ih + W_hh h + b_hh)              (or relu)
    LSTM  i, f, g, o = chunks of (W_ih x + b_ih + W_hh h + b_hh), in that order
          c' = sigmoid(f) * c + sigmoid(i) * tanh(g)            a second state, the cell c
          h' = sigmoid(o) * tanh(c')                            (times W_hr^T with proj_size > 0)
    GRU   r, z, n chunks:  r = sigmoid(W_ir x + b_ir + W_hr h + b_hr),  z likewise,
          n = tanh(W_in x + b_in + r * (W_hn h + b_hn))         r gates the hidden part only (PyTorch's form)
          h' = (1 - z) * n + z * h

A layer stacks `num_layers` of these (the output sequence of one is the input of the next, with dropout in
between in training), each optionally `bidirectional` (a second pass reads the sequence backwards; the two
outputs are concatenated). The parameters are named weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k},
bias_hh_l{k} (and weight_hr_l{k} for a projected LSTM), with a `_reverse` suffix for the backward direction,
as in torch/nn/modules/rnn.py, so state_dicts load either way. PyTorch hands the loop to a fused C++ or
cuDNN kernel (`_VF.lstm` ...); here it is a Python loop over time steps written with core ops, so autograd
needs no new formulas. One speed-up is kept because it is also clearer: the input part W_ih x + b_ih does
not depend on h, so it is computed for all time steps at once, before the loop.

A PackedSequence (nn/utils/rnn.py) is a batch of sequences of different lengths, sorted longest first and
stored step by step: at step t only the first batch_sizes[t] sequences are still running. The loop then
simply works on fewer rows as sequences end, and each sequence's final state is the one at its own last step.
"""

import math
import numbers
import warnings

from ...ops import cat, empty, stack, zeros
from .. import init
from ..functional.activation import relu, sigmoid, tanh
from ..functional.dropout import dropout as _dropout
from ..functional.linear import linear
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]


# ---- one time step ----------------------------------------------------------------------------------------


def _step(mode, gi, state, w_hh, b_hh, w_hr=None):
    """One step of the recurrence. `gi` = W_ih x_t + b_ih (already computed); `state` is (h,) or (h, c)."""
    if mode == "LSTM":
        h, c = state
        i, f, g, o = (gi + linear(h, w_hh, b_hh)).chunk(4, 1)
        c = sigmoid(f) * c + sigmoid(i) * tanh(g)
        h = sigmoid(o) * tanh(c)
        if w_hr is not None:
            h = linear(h, w_hr)            # the projection makes h smaller than c
        return h, c
    (h,) = state
    if mode == "GRU":
        i_r, i_z, i_n = gi.chunk(3, 1)
        h_r, h_z, h_n = linear(h, w_hh, b_hh).chunk(3, 1)   # b_hn must stay inside r * (...)
        r = sigmoid(i_r + h_r)
        z = sigmoid(i_z + h_z)
        n = tanh(i_n + r * h_n)
        return (n + z * (h - n),)          # = (1 - z) * n + z * h, one op fewer
    pre = gi + linear(h, w_hh, b_hh)
    return (tanh(pre) if mode == "RNN_TANH" else relu(pre),)


def _run_direction(mode, gis, initial, w_hh, b_hh, w_hr, batch_sizes, reverse):
    """Run one layer in one direction over the per-step inputs `gis` (step t has batch_sizes[t] rows).
    Returns the per-step outputs (in time order) and the final state of every sequence."""
    steps = range(len(gis) - 1, -1, -1) if reverse else range(len(gis))
    outputs = [None] * len(gis)
    finished = []                          # forward: the states of sequences that have ended, latest last
    rows = batch_sizes[steps[0]]
    state = tuple(s[:rows] for s in initial)
    for t in steps:
        b = batch_sizes[t]
        if b < rows:                       # forward, some sequences just ended: set their final state aside
            finished.append(tuple(s[b:rows] for s in state))
            state = tuple(s[:b] for s in state)
        elif b > rows:                     # backward, longer sequences start here, from their initial state
            state = tuple(cat([s, s0[rows:b]]) for s, s0 in zip(state, initial))
        rows = b
        state = _step(mode, gis[t], state, w_hh, b_hh, w_hr)
        outputs[t] = state[0]
    if finished:                           # rows are sorted longest first: the running ones come first
        state = tuple(cat([s, *parts[::-1]]) for s, *parts in zip(state, *finished))
    return outputs, state


# ---- the layers -------------------------------------------------------------------------------------------


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, the checks, and the loop over layers and directions."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        # Over 60 lines: PyTorch's RNNBase.__init__: checks, then the parameters of each layer and direction in its
        # order (their names are the state_dict).
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
        if mode not in gates:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gates[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        options = dict(device=device, dtype=dtype)

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input_size)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden_size))]
                if bias:
                    # two bias vectors where one would do, as in cuDNN: the state_dict keys follow them
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for pattern, shape in shapes:
                    name = pattern.format(layer, suffix)
                    setattr(self, name, Parameter(empty(shape, **options)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters grouped per layer and direction: [[weight_ih_l0, weight_hh_l0, ...], ...]."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """PyTorch packs the weights into one buffer for cuDNN here; the Python loop needs nothing."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # ---- the checks, with PyTorch's messages ----

    def check_input(self, input, batch_sizes):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                             f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ---- the loop over layers and directions ----

    def _run(self, input, hx, batch_sizes):
        """`input` (T, N, input_size) or packed data (sum of lengths, input_size); `hx` a tuple of initial
        states, each (num_layers * num_directions, N, *). Returns the output and the tuple of final states."""
        num_directions = 2 if self.bidirectional else 1
        packed = batch_sizes is not None
        # plain Python ints: the loop slices rows by them
        sizes = batch_sizes.tolist() if packed else [input.size(1)] * input.size(0)
        finals = [[] for _ in hx]
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                names = self._all_weights[index]
                w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
                b_ih, b_hh = (getattr(self, names[2]), getattr(self, names[3])) if self.bias else (None, None)
                w_hr = getattr(self, names[-1]) if self.proj_size > 0 else None
                gi = linear(layer_input, w_ih, b_ih)       # the input part, all steps at once
                gis = gi.split(sizes) if packed else gi.unbind(0)
                initial = tuple(s[index] for s in hx)
                steps, state = _run_direction(self.mode, gis, initial, w_hh, b_hh, w_hr, sizes, direction == 1)
                outputs.append(cat(steps) if packed else stack(steps))
                for final, s in zip(finals, state):
                    final.append(s)
            layer_input = outputs[0] if num_directions == 1 else cat(outputs, -1)
            if self.dropout and layer < self.num_layers - 1:
                layer_input = _dropout(layer_input, self.dropout, self.training)
        return layer_input, tuple(stack(f) for f in finals)

    def _zeros(self, input, max_batch_size, size):
        num_directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * num_directions, max_batch_size, size, dtype=input.dtype,
                         device=input.device)


class _SingleStateRNN(RNNBase):
    """RNN and GRU: one hidden state h."""

    _name = "RNN"

    def forward(self, input, hx=None):
        orig_input = input
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zeros(input, int(batch_sizes[0]), self.hidden_size)
            else:
                # the caller's hx follows the caller's batch order; the packed rows are sorted
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                tail = "tensor instead" if self._name == "RNN" else "instead"
                raise ValueError(f"{self._name}: Expected input to be 2D or 3D, got {input.dim()}D {tail}")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)      # an unbatched sequence is a batch of one
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                                           "tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = self._zeros(input, input.size(0) if self.batch_first else input.size(1), self.hidden_size)
        self.check_forward_args(input, hx, batch_sizes)

        if batch_sizes is None and self.batch_first:
            input = input.transpose(0, 1)               # the loop runs over dim 0: time
        output, (hidden,) = self._run(input, (hx,), batch_sizes)
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if self.batch_first:
            output = output.transpose(0, 1)             # a view, as PyTorch returns it
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(_SingleStateRNN):
    """An Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh), or relu with nonlinearity="relu".

    `RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)`; `forward(input, hx=None)` returns (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:                  # nonlinearity is the 4th positional argument of RNN only
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity


class GRU(_SingleStateRNN):
    """A gated recurrent unit layer (gates r, z, n). Same arguments as RNN, without nonlinearity."""

    _name = "GRU"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """A long short-term memory layer (gates i, f, g, o; states h and c). `proj_size > 0` projects h to that
    size with weight_hr. `forward(input, (h_0, c_0)=None)` returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        orig_input = input
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                n = int(batch_sizes[0])
                hx = (self._zeros(input, n, real_hidden_size), self._zeros(input, n, self.hidden_size))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            # PyTorch skips this check for packed input, and its kernel then fails with a RuntimeError about
            # tensor sizes or "an incorrect number of RNN parameters"; the same error type, with a clear message
            self.check_forward_args(input, hx, batch_sizes)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            sorted_indices = unsorted_indices = None
            if hx is None:
                n = input.size(0) if self.batch_first else input.size(1)
                hx = (self._zeros(input, n, real_hidden_size), self._zeros(input, n, self.hidden_size))
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            self.check_forward_args(input, hx, batch_sizes)

        if batch_sizes is None and self.batch_first:
            input = input.transpose(0, 1)
        output, hidden = self._run(input, tuple(hx), batch_sizes)
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, hidden


# ---- the cells --------------------------------------------------------------------------------------------


def _check_cell_input(input, input_size):
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {input_size}")


def _check_cell_hidden(input, hx, hidden_size, label):
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected {hidden_size}")


class RNNCellBase(Module):
    """One time step of a recurrent layer: weight_ih, weight_hh, bias_ih, bias_hh (no layer suffix)."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        options = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **options))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **options))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **options))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **options))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, count):
        """Checks, unbatched (1-D) input as a batch of one, and zero initial states: the shared prologue."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = None if hx is None else ((hx,) if count == 1 else tuple(hx))
        if states is not None:
            for idx, value in enumerate(states):
                if value.dim() not in (1, 2):
                    what = "hidden" if count == 1 else f"hx[{idx}]"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if states is None:
            h0 = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            states = (h0,) * count
        elif not is_batched:
            states = tuple(s.unsqueeze(0) for s in states)
        _check_cell_input(input, self.weight_ih.size(1))
        for label, s in enumerate(states):
            _check_cell_hidden(input, s, self.weight_hh.size(1), label)
        return input, states, is_batched

    def _cell(self, mode, input, hx, count):
        input, states, is_batched = self._prepare(input, hx, count)
        out = _step(mode, linear(input, self.weight_ih, self.bias_ih), states, self.weight_hh, self.bias_hh)
        if not is_batched:
            out = tuple(o.squeeze(0) for o in out)
        return out


class RNNCell(RNNCellBase):
    """h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu). `forward(input, hx=None)` returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            self._prepare(input, hx, 1)    # PyTorch checks the shapes first
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._cell(modes[self.nonlinearity], input, hx, 1)[0]


class LSTMCell(RNNCellBase):
    """One LSTM step. `forward(input, (h, c)=None)` returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell("LSTM", input, hx, 2)


class GRUCell(RNNCellBase):
    """One GRU step. `forward(input, hx=None)` returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell("GRU", input, hx, 1)[0]
