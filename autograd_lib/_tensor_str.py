"""Printing of tensors, matching ``repr(torch.Tensor)`` character for character.

This module turns the NumPy array behind a tensor into the text PyTorch 2.13
shows for ``repr(tensor)``.  It is a re-implementation of the logic in
``torch/_tensor_str.py`` with PyTorch's default print options (4 digits of
precision, summarize above 1000 elements showing 3 edge items per dimension,
lines of at most 80 characters).  It only needs NumPy.

How a tensor is printed
-----------------------
1. **Pick one number style for the whole tensor** (:class:`_Formatter`).
   Integer and bool tensors print ``str(value)``.  Floating tensors look only
   at their finite, non-zero elements and choose between

   * *scientific* (``1.2346e+08``) when the largest magnitude is more than
     1000 times the smallest, above ``1e8``, or the smallest is below
     ``1e-4``;
   * *integer-valued* (``3.``, ``-0.``) when every such element is a whole
     number -- the trailing dot shows the tensor is still floating point;
   * *fixed-point* with 4 decimals (``0.5000``) otherwise.

   Every element is right-aligned to the widest element, so columns line up.
2. **Lay the elements out** as nested brackets.  Rows of a matrix are
   separated by a newline, blocks of a 3-d tensor by a blank line, and so on;
   continuation lines are indented to sit under the opening bracket.  A 1-d row
   that would pass column 80 wraps onto the next line.
3. **Summarize big tensors.**  With more than 1000 elements, every dimension
   longer than 6 shows only its first 3 and last 3 entries, joined by ``...``.
   The number style is then chosen from the shown elements alone.
4. **Add suffixes**: ``size=...`` for empty tensors, ``dtype=...`` when the
   dtype cannot be guessed from the contents, then ``grad_fn=<...>`` or
   ``requires_grad=True``.  A suffix that does not fit on the last line goes
   on a new one; "fits" is judged on PyTorch's spelling ``dtype=torch.X``, so
   the output is PyTorch's repr with ``torch.`` replaced by ``autograd_lib.``.
"""

from __future__ import annotations

import math

import numpy as np

PRECISION = 4  # digits after the decimal point (fixed and scientific styles)
THRESHOLD = 1000  # tensors with more elements than this are summarized
EDGEITEMS = 3  # entries kept at each end of a summarized dimension
LINEWIDTH = 80  # target maximum line length

# A non-empty tensor of one of these dtypes prints without ``dtype=``: floats
# look like floats (``1.``, ``0.5000``), ints like ints, bools like True/False.
# An empty tensor shows nothing to guess from, so there only the default
# dtype, float32, goes without saying.
_DEFAULT_DTYPE = "float32"
_DTYPES_LEFT_UNSAID = {"float32", "int64", "bool"}


class _Formatter:
    """Chooses the number style and the common width for a set of elements."""

    def __init__(self, values: np.ndarray):
        self.is_float = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1

        flat = values.reshape(-1)
        if not self.is_float:
            for value in flat.tolist():
                self.width = max(self.width, len(str(value)))
            return

        # Zeros, nan and inf say nothing about the scale, so they are ignored.
        informative = flat[np.isfinite(flat) & (flat != 0)]
        if informative.size == 0:
            return

        magnitudes = np.abs(informative).astype(np.float64)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(informative == np.ceil(informative)))
        self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4

        for value in informative.tolist():
            if self.sci_mode:
                text = f"{value:.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}."
            else:
                text = f"{value:.{PRECISION}f}"
            self.width = max(self.width, len(text))

    def format(self, value: float | int | bool) -> str:
        """Format one Python scalar, right-aligned to the common width."""
        if not self.is_float:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{PRECISION}f}"
        return text.rjust(self.width)


def _edge_indices(length: int) -> list[int]:
    """Indices a summarized dimension of this length keeps."""
    if length > 2 * EDGEITEMS:
        return [*range(EDGEITEMS), *range(length - EDGEITEMS, length)]
    return list(range(length))


def _summarized(array: np.ndarray) -> np.ndarray:
    """The sub-array of elements that a summarized print actually shows."""
    for axis, length in enumerate(array.shape):
        array = np.take(array, _edge_indices(length), axis=axis)
    return array


def _format_vector(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    if summarize and len(array) > 2 * EDGEITEMS:
        head = [formatter.format(v) for v in array[:EDGEITEMS].tolist()]
        tail = [formatter.format(v) for v in array[-EDGEITEMS:].tolist()]
        items = head + [" ..."] + tail
    else:
        items = [formatter.format(v) for v in array.tolist()]

    # Each element takes its width plus ", "; wrapped lines start under the "[".
    per_line = max(1, (LINEWIDTH - indent) // (formatter.width + 2))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_nested(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    """Bracketed text for ``array``, whose "[" sits in column ``indent``."""
    if array.ndim == 0:
        return formatter.format(array.item())
    if array.ndim == 1:
        return _format_vector(array, indent, summarize, formatter)

    def sub(i: int) -> str:
        return _format_nested(array[i], indent + 1, summarize, formatter)

    length = len(array)
    if summarize and length > 2 * EDGEITEMS:
        parts = [sub(i) for i in range(EDGEITEMS)] + ["..."]
        parts += [sub(i) for i in range(length - EDGEITEMS, length)]
    else:
        parts = [sub(i) for i in range(length)]

    # One newline between rows, two between matrices, three between 3-d blocks...
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _append_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Close the bracket, adding suffixes written as PyTorch spells them.

    Where a suffix wraps depends on its length, so the layout is decided on
    PyTorch's own spelling ``dtype=torch.float64`` and only then is it written
    as ``dtype=autograd_lib.float64``.  That way the output equals PyTorch's
    repr with "torch." replaced, even when the longer name runs past column 80.
    """
    # PyTorch over-counts the current line by 2 here (an off-by-two in its
    # ``len - rfind("\n") + 1``), which also decides where suffixes wrap.
    line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        shown = suffix.replace("torch.", "autograd_lib.")
        if line_len + len(suffix) + 2 > LINEWIDTH:
            text += ",\n" + " " * indent + shown
            line_len = indent + len(suffix)
        else:
            text += ", " + shown
            line_len += len(suffix) + 2
    return text + ")"


def tensor_repr(
    array: np.ndarray,
    *,
    dtype_name: str,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
) -> str:
    """Return the text PyTorch prints for a tensor holding ``array``.

    ``dtype_name`` is the library dtype's short name ("float32", "int64", ...);
    it appears as ``dtype=autograd_lib.<name>`` when PyTorch would show it.
    ``grad_fn_name`` (e.g. "MulBackward0") takes precedence over
    ``requires_grad``, as in PyTorch.  ``prefix`` may span several lines, e.g.
    ``"Parameter containing:\\ntensor("``; continuation lines are indented to
    line up with the end of its last line.
    """
    indent = len(prefix.rsplit("\n", 1)[-1])
    suffixes = []

    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype_name != _DEFAULT_DTYPE:
            suffixes.append(f"dtype=torch.{dtype_name}")
    else:
        summarize = array.size > THRESHOLD
        formatter = _Formatter(_summarized(array) if summarize else array)
        body = _format_nested(array, indent, summarize, formatter)
        if dtype_name not in _DTYPES_LEFT_UNSAID:
            suffixes.append(f"dtype=torch.{dtype_name}")

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _append_suffixes(prefix + body, suffixes, indent)
