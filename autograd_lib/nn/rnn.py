"""Recurrent layers: ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` (a sequence at a time) and
``nn.RNNCell``, ``nn.LSTMCell``, ``nn.GRUCell`` (one step).

A layer ``RNN(input_size, hidden_size, num_layers=2, bidirectional=True)`` owns, for each
layer ``l`` and direction (``_reverse`` for the backward one), ``weight_ih_l{l}``
``(gates * hidden_size, layer_input_size)``, ``weight_hh_l{l}`` ``(gates * hidden_size,
hidden_size)`` and, with ``bias``, ``bias_ih_l{l}`` and ``bias_hh_l{l}``; ``gates`` is 1,
4 for an LSTM (input, forget, cell, output, in that order) and 3 for a GRU (reset, update,
new).  Every parameter starts uniform in ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``,
as in PyTorch.

``layer(input, h0)`` takes ``(T, B, input_size)`` (``(B, T, input_size)`` with
``batch_first``), an unbatched ``(T, input_size)``, or a ``PackedSequence``
(``nn.utils.rnn``), and returns ``(output, h_n)`` (``(output, (h_n, c_n))`` for an LSTM):
the last layer's hidden state at every step, both directions side by side, and every
layer's last state.  The computation is in ``recurrent.py``; this module checks the
arguments as PyTorch does, with PyTorch's messages.

The values, the gradients and the graphs are PyTorch's, with these differences:

* PyTorch's float32 LSTM (not its float64 one, nor the RNN and GRU) runs oneDNN's fused
  kernel, one MkldnnRnnLayerBackward0 node per layer and direction, where this library
  records the composition of its ops.  The final op of ``h_n``/``c_n`` and of a
  bidirectional or batch-first output is the same; a plain output's is StackBackward0 here.
  PyTorch also warns that a float32 LSTM with ``proj_size`` cannot use oneDNN; the library
  does not.
* A batch-first RNN or GRU output is a new tensor recorded as PyTorch's in-place
  ``transpose_`` of the stacked steps (TransposeBackward1, version 1).
* Dropout between layers draws the library's random numbers, not PyTorch's.
"""

import math
import numbers
import warnings

from ..creation import empty, zeros
from ..ops import index_select
from . import init
from . import recurrent
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _uniform_by_hidden_size(module):
    """PyTorch's default for recurrent weights: U(-1/sqrt(hidden), 1/sqrt(hidden)) for all."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


def _check_size_argument(name, value):
    if not isinstance(value, int):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")


def _reordered(state, indices):
    """The batch dim (1) of ``state`` (or of both parts of an LSTM's) put in the order
    ``indices`` (a packed sequence sorts its batch by length), IndexSelectBackward0."""
    if indices is None:
        return state
    if isinstance(state, tuple):
        return tuple(index_select(part, 1, indices) for part in state)
    return index_select(state, 1, indices)


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: the parameters, the checks, ``forward``,
    the repr.  ``mode`` is ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``; an LSTM
    differs in its state, a pair ``(h, c)``."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability "
                             "of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero "
                          "dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, value in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        _check_size_argument("input_size", input_size)
        _check_size_argument("hidden_size", hidden_size)
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in recurrent.MODES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = recurrent.MODES[mode].gates * hidden_size
        state_size = proj_size or hidden_size           # what h holds: projected, or not
        directions = 2 if bidirectional else 1
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else state_size * directions
            for direction in range(directions):
                shapes = [("weight_ih", (gate_size, layer_input_size)),
                          ("weight_hh", (gate_size, state_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{'_reverse' if direction else ''}"
                    setattr(self, name, Parameter(empty(shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in PyTorch's flat order (layer by layer, direction by direction)."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op: PyTorch packs the weights into one buffer for cuDNN; on the CPU there is
        nothing to do (nor is there in PyTorch)."""

    def reset_parameters(self):
        _uniform_by_hidden_size(self)

    # -------------------------------------------------------------- checks
    def _state_size(self):
        return self.proj_size if self.proj_size > 0 else self.hidden_size

    def _zeros(self, input, batch, size):
        return zeros(self.num_layers * (2 if self.bidirectional else 1), batch, size, dtype=input.dtype)

    def check_input(self, input, batch_sizes):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def _expected_size(self, input, batch_sizes, size):
        if batch_sizes is not None:
            batch = batch_sizes[0]
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def get_expected_hidden_size(self, input, batch_sizes):
        return self._expected_size(input, batch_sizes, self._state_size())

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(tuple(expected_hidden_size), list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return _reordered(hx, permutation)

    # ------------------------------------------------------------- forward
    def _zero_state(self, input, batch):
        """The initial state when none is given: zeros (a pair of them for an LSTM)."""
        return self._zeros(input, batch, self.hidden_size)

    def _with_batch_dim(self, hx, batched):
        """``hx`` given with a padded input, its dims checked, with a batch dim (dim 1)."""
        if batched and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if not batched and hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
        return hx if batched else hx.unsqueeze(1)

    def _input_dim_message(self, input):
        if self.mode in ("LSTM", "GRU"):
            return f"{self.mode}: Expected input to be 2D or 3D, got {input.dim()}D instead"
        return f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor instead"

    def _run(self, input, hx, batch_sizes):
        """``(output, hidden)``: ``hidden`` is ``h_n``, or ``(h_n, c_n)`` for an LSTM."""
        output, *hidden = recurrent.run(self.mode, input, hx, self._flat_weights, self.bias,
                                        self.num_layers, self.dropout, self.training, self.bidirectional,
                                        self.batch_first, batch_sizes, self.proj_size > 0)
        return output, (tuple(hidden) if len(hidden) > 1 else hidden[0])

    def forward(self, input, hx=None):
        """``(output, h_n)`` (``(output, (h_n, c_n))`` for an LSTM) for a padded input
        ``(T, B, features)`` (``(B, T, features)`` with ``batch_first``), an unbatched one
        ``(T, features)``, or a ``PackedSequence`` (then ``output`` is one too)."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            sizes = batch_sizes.tolist()
            hx = self._zero_state(data, sizes[0]) if hx is None else self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(data, hx, sizes)
            output, hidden = self._run(data, hx, sizes)
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if input.dim() not in (2, 3):
            raise ValueError(self._input_dim_message(input))
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            hx = self._zero_state(input, input.size(batch_dim))
        else:
            hx = self._with_batch_dim(hx, batched)
        self.check_forward_args(input, hx, None)
        output, hidden = self._run(input, hx, None)
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = tuple(h.squeeze(1) for h in hidden) if isinstance(hidden, tuple) else hidden.squeeze(1)
        return output, hidden

    def extra_repr(self):
        """The arguments that differ from their defaults, as PyTorch prints them."""
        shown = (("proj_size", self.proj_size != 0), ("num_layers", self.num_layers != 1),
                 ("bias", self.bias is not True), ("batch_first", self.batch_first is not False),
                 ("dropout", self.dropout != 0), ("bidirectional", self.bidirectional is not False))
        return f"{self.input_size}, {self.hidden_size}" + "".join(
            f", {name}={getattr(self, name)}" for name, differs in shown if differs)


def _no_projections(kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (``relu`` with
    ``nonlinearity="relu"``), layer after layer.  ``RNN(input_size, hidden_size,
    num_layers=1, nonlinearity="tanh", bias=True, batch_first=False, dropout=0.0,
    bidirectional=False)``; ``forward(input, hx=None)`` returns ``(output, h_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None, **kwargs):
        _no_projections(kwargs)
        if kwargs:
            raise TypeError(f"RNNBase.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[nonlinearity], input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity


class GRU(RNNBase):
    """Gated recurrent unit: reset gate ``r``, update gate ``z``, candidate ``n``::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr),  z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),  h' = (1 - z) * n + z * h

    ``forward(input, hx=None)`` returns ``(output, h_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None, **kwargs):
        _no_projections(kwargs)
        if kwargs:
            raise TypeError(f"RNNBase.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)


class LSTM(RNNBase):
    """Long short-term memory: gates ``i, f, g, o`` (in that order in the weights)::

        c' = sigmoid(f) * c + sigmoid(i) * tanh(g),  h' = sigmoid(o) * tanh(c')

    With ``proj_size > 0``, ``h'`` is projected to ``proj_size`` features by ``weight_hr_l{l}``.
    ``forward(input, (h0, c0)=None)`` returns ``(output, (h_n, c_n))``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)

    def get_expected_cell_size(self, input, batch_sizes):
        return self._expected_size(input, batch_sizes, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def _zero_state(self, input, batch):
        return self._zeros(input, batch, self._state_size()), self._zeros(input, batch, self.hidden_size)

    def _with_batch_dim(self, hx, batched):
        dims = (hx[0].dim(), hx[1].dim())
        wanted = 3 if batched else 2
        if dims != (wanted, wanted):
            kind = "batched 3-D" if batched else "unbatched 2-D"
            raise RuntimeError(f"For {kind} input, hx and cx should also be {wanted}-D but got "
                               f"({dims[0]}-D, {dims[1]}-D) tensors")
        return (hx[0], hx[1]) if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))


# ======================================================================== cells

class RNNCellBase(Module):
    """What the cells share: ``weight_ih`` ``(chunks * hidden_size, input_size)``,
    ``weight_hh`` ``(chunks * hidden_size, hidden_size)``, ``bias_ih`` and ``bias_hh``
    ``(chunks * hidden_size)`` (None with ``bias=False``), uniform in
    ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``."""

    _state_label = "hidden"           # how the errors name a state (``hx[{index}]`` for an LSTM)

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        for name in ("bias_ih", "bias_hh"):
            self.register_parameter(name, Parameter(empty(num_chunks * hidden_size, dtype=dtype))
                                    if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        _uniform_by_hidden_size(self)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _batched(self, input, states):
        """``(input, states, batched)``, checked: a 1-D input (and its states) gets a batch
        dim of 1; a missing state is zeros."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for index, state in enumerate(states or ()):
            if state.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {self._state_label.format(index=index)} to be 1D or 2D, "
                                 f"got {state.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if states is None:
            zero = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            return input, [zero, zero], batched
        return input, [state if batched else state.unsqueeze(0) for state in states], batched

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (``relu``
    with ``nonlinearity="relu"``).  ``forward(input, hx=None)`` returns ``h'``."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, states, batched = self._batched(input, None if hx is None else [hx])
        cells = {"tanh": recurrent.rnn_tanh_cell, "relu": recurrent.rnn_relu_cell}
        if self.nonlinearity not in cells:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        output = cells[self.nonlinearity](input, states[0], *self._weights())
        return output if batched else output.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``forward(input, (h, c)=None)`` returns ``(h', c')``."""

    _state_label = "hx[{index}]"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, batched = self._batched(input, hx)
        h, c = recurrent.lstm_cell(input, states, *self._weights())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: ``forward(input, hx=None)`` returns ``h'``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, batched = self._batched(input, None if hx is None else [hx])
        output = recurrent.gru_cell(input, states[0], *self._weights())
        return output if batched else output.squeeze(0)
