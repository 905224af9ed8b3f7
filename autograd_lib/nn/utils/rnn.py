"""``nn.utils.rnn``: sequences of different lengths, padded into one tensor or packed.

A batch of sequences of lengths 3, 2 and 1 can be *padded* into one ``(3, 3, features)``
tensor (``pad_sequence``; the missing steps hold ``padding_value``), or *packed*: only
the real steps, time step by time step, longest sequence first::

    data = [a0, b0, c0, a1, b1, a2],   batch_sizes = [3, 2, 1]

A recurrent layer given a :class:`PackedSequence` runs each step on the sequences that
have not ended, so padding never enters its states, and its ``h_n`` holds each
sequence's own last state.  ``pack_padded_sequence(padded, lengths)`` packs a padded
batch (sorting it by length unless ``enforce_sorted``, the order kept in
``sorted_indices``/``unsorted_indices``); ``pad_packed_sequence`` pads it back and gives
the lengths.  The graphs are PyTorch's: PackPaddedSequenceBackward0, and the copies of
padding (CopySlices).
"""

from collections import namedtuple

import numpy as np

from ...broadcasting import broadcast_shape
from ...creation import arange, as_tensor, full
from ...dtypes import float16, float32, float64
from ...ops import index_select
from ...ops.nn_layers import pack_padded_sequence_data
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None for None)."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation._data)
    inverse[permutation._data] = np.arange(permutation.numel())
    return Tensor._make(inverse)


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices",
                                                   "unsorted_indices"])):
    """A packed batch of sequences: ``data`` (the steps, ``(sum of lengths, *)``),
    ``batch_sizes`` (how many sequences each time step has, int64), and the order the batch
    was sorted in (``sorted_indices``, None when it came sorted) and its inverse.  Made by
    ``pack_padded_sequence``/``pack_sequence``, not by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if batch_sizes is None:
            raise NotImplementedError("autograd_lib: PackedSequence(data) from a (data, batch_sizes) "
                                      "pair is not implemented; pass PackedSequence(data, batch_sizes)")
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequence with ``data`` converted (``to(float64)``, ``to("cpu")``, ...)."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes, self.sorted_indices,
                                                         self.unsorted_indices)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(float64)

    def float(self):
        return self.to(float32)

    def half(self):
        return self.to(float16)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack the padded batch ``input`` (``(T, B, *)``, ``(B, T, *)`` with ``batch_first``)
    of sequences of ``lengths`` (a list or a 1-D int64 tensor).  With ``enforce_sorted``
    the lengths must decrease; otherwise the batch is sorted first (IndexSelectBackward0)."""
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.dim()}D cpu Long tensor")
        lengths = lengths._data.astype(np.int64)
    else:
        lengths = np.asarray(lengths).astype(np.int64)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lengths, kind="stable")
        lengths, sorted_indices = lengths[order], Tensor._make(order.astype(np.int64))
        input = index_select(input, 0 if batch_first else 1, sorted_indices)
    data, batch_sizes = pack_padded_sequence_data(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch of a :class:`PackedSequence` (``(T, B, *)``, or ``(B, T, *)``;
    ``T`` is the longest length or ``total_length``) and the lengths (int64), both in the
    batch's original order."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence "
                             f"in input, but got total_length={total_length} and max sequence length "
                             f"being {steps}")
        steps = total_length
    batch = batch_sizes[0]
    padded = full((steps, batch, *data.shape[1:]), padding_value, dtype=data.dtype)
    lengths = np.zeros(batch, dtype=np.int64)
    # Copy each run of steps with the same batch size as one block, as PyTorch does.
    offset, start = 0, 0
    for t in range(1, len(batch_sizes) + 1):
        size = batch_sizes[t] if t < len(batch_sizes) else 0
        previous = batch_sizes[start]
        if size != previous:
            count = (t - start) * previous
            padded[start:t, :previous] = data[offset:offset + count].view(t - start, previous,
                                                                          *data.shape[1:])
            lengths[size:previous] = t
            offset, start = offset + count, t
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = Tensor._make(lengths)
    if sequence.unsorted_indices is not None:
        padded = index_select(padded, 0 if batch_first else 1, sequence.unsorted_indices)
        lengths = Tensor._make(lengths._data[sequence.unsorted_indices._data])
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """The tensors ``sequences`` (each ``(length, *)``) padded with ``padding_value`` to
    the longest length and stacked: ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``;
    ``padding_side="left"`` pads before the sequences (CopySlices)."""
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(seq.size(0) for seq in sequences)
    first = sequences[0]
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    padded = full((*shape, *first.shape[1:]), padding_value, dtype=first.dtype)
    for i, seq in enumerate(sequences):
        n = seq.size(0)
        steps = slice(0, n) if padding_side == "right" else slice(longest - n, longest)
        broadcast_shape((n, *first.shape[1:]), seq.shape)   # PyTorch copies: its error
        if batch_first:
            padded[i, steps] = seq
        else:
            padded[steps, i] = seq
    return padded


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    steps = arange(padded_sequences.size(1))
    return [seq[steps < length] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors of decreasing lengths (any order, without ``enforce_sorted``)."""
    lengths = as_tensor([seq.size(0) for seq in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors of a :class:`PackedSequence`, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
