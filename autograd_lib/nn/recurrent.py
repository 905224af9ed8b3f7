"""The recurrent computations behind ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells.

A recurrent layer applies one *cell* per time step, each step's hidden state feeding the
next.  The cells, for an input ``x``, a hidden state ``h`` (and an LSTM's cell state ``c``)::

    rnn (tanh / relu):  h' = tanh(W_hh h + b_hh + W_ih x + b_ih)
    lstm:               i, f, g, o = split4(W_hh h + b_hh + W_ih x + b_ih)
                        c' = sigmoid(f) * c + sigmoid(i) * tanh(g)
                        h' = sigmoid(o) * tanh(c')      (then W_hr h' with a projection)
    gru:                r, z, n from W_ih x + b_ih and W_hh h + b_hh, each split in three
                        h' = (h - n) * z + n,   n = tanh(x_n + r * h_n)

Everything is composed of the library's differentiable ops, in the order PyTorch's CPU
kernels compose them (ATen's ``RNN.cpp``), so the recorded graph is PyTorch's, node for
node: the input's projection ``W_ih x + b_ih`` is computed once for the whole sequence
(``F.linear``: ViewBackward0 over AddmmBackward0) and cut into steps (UnbindBackward0, or
SliceBackward0 for a packed sequence); the gates are cut with ``unsafe_chunk``
(UnsafeSplitBackward0); the step outputs are stacked (StackBackward0, CatBackward0 when
packed), the two directions joined (CatBackward0), dropout between layers is ``x * mask``
(MulBackward0), and the final states stacked (StackBackward0).  The one exception is
PyTorch's float32 LSTM, which runs oneDNN's fused kernel (MkldnnRnnLayerBackward0, one
node per layer and direction); its float64 LSTM composes, as here.

:func:`run` is the whole stack of layers (PyTorch's ``_VF.rnn_tanh``/``lstm``/``gru``);
the modules in ``rnn.py`` check their arguments and call it.
"""

from collections import namedtuple

from ..ops import cat, relu, sigmoid, stack, tanh, unbind
from ..ops.pieces import unsafe_chunk
from . import functional as F
from ..op_table import op

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "run", "MODES"]

# One layer and direction's weights: W_ih, W_hh, b_ih, b_hh (None without biases), and an
# LSTM's projection W_hr (None without one).
LayerWeights = namedtuple("LayerWeights", ["w_ih", "w_hh", "b_ih", "b_hh", "w_hr"])


# ------------------------------------------------------------------ the cells
# ``x`` is the step's input or, with ``projected``, its projection W_ih x + b_ih computed
# beforehand for the whole sequence.

def _input_part(x, weights, projected):
    return x if projected else F.linear(x, weights.w_ih, weights.b_ih)


def _summed_gates(x, h, weights, projected):
    """``W_hh h + b_hh + (W_ih x + b_ih)``, in PyTorch's order (the hidden part first)."""
    return F.linear(h, weights.w_hh, weights.b_hh) + _input_part(x, weights, projected)


def _tanh_step(x, h, weights, projected=False):
    return tanh(_summed_gates(x, h, weights, projected))


def _relu_step(x, h, weights, projected=False):
    return relu(_summed_gates(x, h, weights, projected))


def _lstm_step(x, state, weights, projected=False):
    h, c = state
    i, f, g, o = unsafe_chunk(_summed_gates(x, h, weights, projected), 4, 1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    if weights.w_hr is not None:
        h = F.linear(h, weights.w_hr)
    return h, c


def _gru_step(x, h, weights, projected=False):
    x_r, x_z, x_n = unsafe_chunk(_input_part(x, weights, projected), 3, 1)
    h_r, h_z, h_n = unsafe_chunk(F.linear(h, weights.w_hh, weights.b_hh), 3, 1)
    reset = sigmoid(h_r + x_r)
    update = sigmoid(h_z + x_z)
    new = tanh(x_n + h_n * reset)
    return (h - new) * update + new


class _Mode(namedtuple("_Mode", ["step", "gates", "has_cell_state"])):
    """How one kind of recurrent layer computes a step: its cell, the number of gates
    stacked in its weights, whether its state is a pair ``(h, c)`` (LSTM)."""


MODES = {"RNN_TANH": _Mode(_tanh_step, 1, False), "RNN_RELU": _Mode(_relu_step, 1, False),
         "LSTM": _Mode(_lstm_step, 4, True), "GRU": _Mode(_gru_step, 3, False)}


def _check_cell_arguments(input, hiddens, w_ih, w_hh, gates):
    """PyTorch's checks of a cell's weights, input and hidden states (ATen's RNN.cpp)."""
    size = gates * w_hh.size(1)
    for name, weight in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if weight.size(0) != size:
            raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = {size}, but got "
                               f"{weight.size(0)}")
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{w_ih.size(1)}")
    for label, hidden in enumerate(hiddens):
        if input.size(0) != hidden.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch "
                               f"size {hidden.size(0)}")
        if hidden.size(1) != w_hh.size(1):
            raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hidden.size(1)}, "
                               f"expected {w_hh.size(1)}")


@op(public=True)
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN: ``tanh(h W_hh^T + b_hh + x W_ih^T + b_ih)`` (TanhBackward0)."""
    _check_cell_arguments(input, [hx], w_ih, w_hh, 1)
    return _tanh_step(input, hx, LayerWeights(w_ih, w_hh, b_ih, b_hh, None))


@op(public=True)
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN with ReLU (ReluBackward0)."""
    _check_cell_arguments(input, [hx], w_ih, w_hh, 1)
    return _relu_step(input, hx, LayerWeights(w_ih, w_hh, b_ih, b_hh, None))


@op(public=True)
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step from ``hx = (h, c)``: returns ``(h', c')`` (MulBackward0, AddBackward0)."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell_arguments(input, hx, w_ih, w_hh, 4)
    return _lstm_step(input, tuple(hx), LayerWeights(w_ih, w_hh, b_ih, b_hh, None))


@op(public=True)
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: returns ``h'`` (AddBackward0)."""
    _check_cell_arguments(input, [hx], w_ih, w_hh, 3)
    return _gru_step(input, hx, LayerWeights(w_ih, w_hh, b_ih, b_hh, None))


# ------------------------------------------------------------------ the layers
# A state is a tensor, or a pair (h, c) for an LSTM: these apply to either.

def _output_of(state):
    return state[0] if isinstance(state, tuple) else state


def _map_state(fn, *states):
    if isinstance(states[0], tuple):
        return tuple(fn(*parts) for parts in zip(*states))
    return fn(*states)


def _rows(state, start, stop):
    return _map_state(lambda t: t.narrow(0, start, stop - start), state)


def _padded_layer(step, input, state, weights, reverse):
    """One direction of one layer over a padded ``(T, B, features)`` input: the outputs
    stacked ``(T, B, hidden)``, and the last state."""
    steps = unbind(F.linear(input, weights.w_ih, weights.b_ih), 0)
    outputs = []
    for x in (reversed(steps) if reverse else steps):
        state = step(x, state, weights, projected=True)
        outputs.append(_output_of(state))
    if reverse:
        outputs.reverse()
    return stack(outputs, 0), state


def _packed_layer(step, data, batch_sizes, state, weights, reverse):
    """One direction of one layer over a packed sequence: ``data`` holds step ``t``'s
    ``batch_sizes[t]`` rows after step ``t - 1``'s (longest sequences first).  Forward,
    the state loses the rows of the sequences that have ended (each keeps its last state);
    backward, it starts with the rows of the longest ones and gains rows as shorter
    sequences begin.  Returns the outputs, packed as ``data``, and the last states."""
    projected = F.linear(data, weights.w_ih, weights.b_ih)
    outputs, finished = [], []
    if not reverse:
        offset, previous = 0, batch_sizes[0]
        for size in batch_sizes:
            if size < previous:
                finished.append(_rows(state, size, previous))
                state = _rows(state, 0, size)
            state = step(projected.narrow(0, offset, size), state, weights, projected=True)
            outputs.append(_output_of(state))
            offset, previous = offset + size, size
        finished.append(state)
        finished.reverse()
        return cat(outputs, 0), _map_state(lambda *parts: cat(list(parts), 0), *finished)
    initial, offset, previous = state, data.size(0), batch_sizes[-1]
    state = _rows(initial, 0, previous)
    for size in reversed(batch_sizes):
        if size > previous:
            state = _map_state(lambda *parts: cat(list(parts), 0), state, _rows(initial, previous, size))
        offset -= size
        state = step(projected.narrow(0, offset, size), state, weights, projected=True)
        outputs.append(_output_of(state))
        previous = size
    outputs.reverse()
    return cat(outputs, 0), state


def _weights_by_layer(flat_weights, has_biases, has_projections):
    """The flat list ``[W_ih, W_hh, (b_ih, b_hh), (W_hr)]`` of every layer and direction,
    grouped as :class:`LayerWeights`."""
    per_layer = 2 + 2 * has_biases + has_projections
    grouped = []
    for start in range(0, len(flat_weights), per_layer):
        w = list(flat_weights[start:start + per_layer])
        biases = (w[2], w[3]) if has_biases else (None, None)
        grouped.append(LayerWeights(w[0], w[1], *biases, w[-1] if has_projections else None))
    return grouped


def run(mode, input, hx, flat_weights, has_biases, num_layers, dropout, train, bidirectional,
        batch_first=False, batch_sizes=None, has_projections=False):
    """The stack of ``num_layers`` recurrent layers of ``mode`` (a key of :data:`MODES`)
    over ``input``: ``(T, B, features)`` (``(B, T, features)`` with ``batch_first``), or a
    packed sequence's data with its ``batch_sizes`` (a list of ints).

    ``hx`` is the initial hidden state ``(layers * directions, B, hidden)``, a pair
    ``(h0, c0)`` for an LSTM.  Layer ``l + 1`` reads layer ``l``'s outputs (both directions
    side by side), through dropout with probability ``dropout`` when ``train``.  Returns
    ``(output, h_n)``, ``(output, h_n, c_n)`` for an LSTM."""
    step, _, has_cell_state = MODES[mode]
    packed = batch_sizes is not None
    if batch_first and not packed:
        input = input.transpose(0, 1)
    if not packed and input.size(0) == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    states = list(zip(unbind(hx[0], 0), unbind(hx[1], 0))) if has_cell_state else list(unbind(hx, 0))
    weights = _weights_by_layer(flat_weights, has_biases, has_projections)
    directions = 2 if bidirectional else 1
    finals, layer_input = [], input
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            if packed:
                output, final = _packed_layer(step, layer_input, batch_sizes, states[index],
                                              weights[index], direction == 1)
            else:
                output, final = _padded_layer(step, layer_input, states[index], weights[index],
                                              direction == 1)
            outputs.append(output)
            finals.append(final)
        layer_input = cat(outputs, -1) if bidirectional else outputs[0]
        if dropout != 0 and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    output = layer_input
    if batch_first and not packed:
        # PyTorch's LSTM transposes its result (TransposeBackward0), RNN and GRU theirs in place.
        output = output.transpose(0, 1) if has_cell_state else output.transpose_(0, 1)
    if has_cell_state:
        return output, stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0)
    return output, stack(finals, 0)
