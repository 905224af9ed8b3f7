"""Every gradient rule, in one table (the role of PyTorch's ``derivatives.yaml``).

A rule is keyed by the *forward op* it differentiates, with PyTorch's name for
it (``"mul.Tensor"``, ``"pow.Tensor_Scalar"``, ``"sum.dim_IntList"``: one key
per overload, as in ``derivatives.yaml``).  It names the backward node that the
op records (``MulBackward0``) and gives one small formula per input, in input
order.  An op only says which op it is (``record("mul.Tensor", ...)``); this
table decides the node and what it saves, so ops never name nodes and never
import this module: :func:`rule` fills ``recording.RULES``, which ``record``
reads when an op runs.

A formula states the values it needs, then computes the gradient of its input
from ``grad`` (the gradient of the op's output) and those values::

    rule("mul.Tensor", "MulBackward0",
         self=("other", lambda grad, other: grad * other),
         other=("self", lambda grad, self: grad * self))

A formula that needs nothing besides ``grad`` is written as the function alone.
The names a formula needs are

* an input's name (``self``, ``other``, ...) or ``result`` (the op's output):
  a *saved tensor*, kept until backward and checked against in-place changes;
* anything else (``dim``, ``self_shape``, ...): a plain value the op passes.

The op saves only what the formulas of its grad-requiring inputs need, as
PyTorch does: ``x * 2`` keeps ``other`` (the 2) because ``x``'s gradient needs
it, but not ``x``.

Formulas are written with tensor operations, so when backward runs with
``create_graph=True`` they are recorded too and can be differentiated again.
A formula may return a gradient of the output's (broadcast) shape; the engine
sums it back to the input's shape (``broadcasting.sum_to``).  The longer
formulas call helpers in ``ops/backward_helpers.py`` (PyTorch's FunctionsManual).
The engine knows nothing about any particular op: everything op-specific is here.
"""

import math
import sys

from . import broadcasting
from . import ops as F
from .creation import zeros, zeros_like
from .graph import Node
from .ops import backward_helpers as H
from .ops import activations as A
from .ops import elementwise_losses as EL
from .ops import losses, norms, pointwise
from .recording import RULES
from .views import AsStridedBackward0

__all__ = ["rule", "NODES", "RULES", "BY_INPUT_COUNT", "DECLARED_AT", "DuplicateRule"]

NODES = {}          # backward node name -> its first class (the exercises' rule slots name nodes)
BY_INPUT_COUNT = {}  # (variadic rule's node class, number of tensors) -> its class for them
DECLARED_AT = {}    # forward op -> "file:line" of the rule(...) that declared it


class DuplicateRule(ValueError):
    """A second gradient rule for a forward op that has one: the table keeps one rule per
    op, so a second would silently replace the first."""


def rule(op, node, /, *, all_grads=False, variadic=False, saves=(), **formulas):
    """Declare the backward of forward op ``op``: node ``node`` (PyTorch's name for
    it, or an existing Node class) with one formula per input, in input order.

    Each formula is ``(needs, fn)``, ``needs`` being the space-separated names of
    the values ``fn(grad, *values)`` is given after ``grad``, or just ``fn`` when it
    needs none.  ``all_grads``: the op has several outputs (unbind) and ``fn`` is given
    the list of their gradients instead of one ``grad``.  ``variadic``: the op takes a
    list of tensors (cat, stack); the single formula serves each of them and is given
    the tensor's position in the list after its values.  ``saves``: the plain values
    that PyTorch saves as tensors (the indices of ``x[[0, 2]]``): the node keeps them
    with its saved tensors, so they are freed after backward like them.
    """
    caller = sys._getframe(1)
    here = f"{_library_path(caller.f_code.co_filename)}:{caller.f_lineno}"
    if op in RULES:
        raise DuplicateRule(f"a second gradient rule for {op!r} ({node if isinstance(node, str) else node.__name__}) "
                            f"at {here}: {op!r} already has {RULES[op].__name__}, declared at "
                            f"{DECLARED_AT.get(op, 'an unknown place')}; an op has exactly one rule")
    compiled = {}
    for input_name, spec in formulas.items():
        needs, fn = ("", spec) if callable(spec) else spec
        compiled[input_name] = (fn, tuple(needs.split()))
    attributes = {"input_names": tuple(formulas), "formulas": compiled, "_all_grads": all_grads,
                  "saves": tuple(saves)}
    if isinstance(node, str):
        cls = type(node, (Node,), {**attributes, "__slots__": ()})
        cls.__module__ = __name__
        cls.__doc__ = f"The backward node of {op} (PyTorch's {node})."
    else:
        cls = node
        for key, value in attributes.items():
            setattr(cls, key, value)
    if variadic:
        _one_input_per_tensor(cls)
    RULES[op] = cls
    DECLARED_AT[op] = here
    NODES.setdefault(cls.__name__, cls)   # ops sharing a node name: the first declared keeps it
    return cls


def _library_path(filename):
    """``autograd_lib/...py`` for a file of the library (the full name of any other)."""
    parts = filename.replace("\\", "/").split("/")
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("autograd_lib"):]) if "autograd_lib" in parts \
        else filename


def _one_input_per_tensor(cls):
    """Give a variadic rule's node class ``for_inputs(n)``: a subclass with inputs
    ``tensors0 .. tensors{n-1}``, one per tensor of the list (made once per ``n``)."""
    (name, (fn, needs)), = cls.formulas.items()

    def for_inputs(n):
        sub = BY_INPUT_COUNT.get((cls, n))     # by class: several ops share a node name
        if sub is None:
            formulas = {f"{name}{i}": ((lambda i: lambda grad, *values: fn(grad, *values, i))(i),
                                       needs) for i in range(n)}
            sub = BY_INPUT_COUNT[cls, n] = type(cls.__name__, (cls,), {
                "input_names": tuple(formulas), "formulas": formulas, "variadic": False,
                "__slots__": ()})
            sub.__module__ = cls.__module__
        return sub
    cls.variadic = True
    cls.for_inputs = staticmethod(for_inputs)


# --------------------------------------------------------------- arithmetic
# Formulas multiply by numbers with F.mul_scalar (not ``*``): PyTorch's formulas
# do it with mul.Scalar, which shows up in a create_graph=True gradient's graph
# as MulBackward1 (``x * 2`` written in Python records MulBackward0).
rule("add.Tensor", "AddBackward0",
     self=lambda grad: grad,
     other=("alpha", lambda grad, alpha: grad if alpha == 1 else F.mul_scalar(grad, alpha)))
rule("add.Scalar", "AddBackward1", self=lambda grad: grad)          # tensor + number, in formulas
rule("sub.Scalar", "SubBackward1", self=lambda grad: grad)          # tensor - number, in formulas
rule("sub.Tensor", "SubBackward0",
     self=lambda grad: grad,
     other=("alpha", lambda grad, alpha: -grad if alpha == 1 else F.mul_scalar(-grad, alpha)))
rule("rsub.Scalar", "RsubBackward1",                                # number - self
     self=("alpha", lambda grad, alpha: -grad if alpha == 1 else F.mul_scalar(-grad, alpha)))
rule("mul.Tensor", "MulBackward0",
     self=("other", lambda grad, other: grad * other),
     other=("self", lambda grad, self: grad * self))
rule("mul.Scalar", "MulBackward1",                                  # tensor * number
     self=("other", lambda grad, other: F.mul_scalar(grad, other)))
rule("div.Tensor", "DivBackward0",
     self=("other", lambda grad, other: grad / other),
     other=("self other", lambda grad, self, other: -grad * ((self / other) / other)))
rule("div.Scalar", "DivBackward1",                                  # tensor / number
     self=("other", lambda grad, other: F.div_scalar(grad, other)))
rule("neg", "NegBackward0", self=lambda grad: -grad)
rule("reciprocal", "ReciprocalBackward0",
     self=("result", lambda grad, result: -grad * (result * result)))
rule("pow.Tensor_Scalar", "PowBackward0",                           # tensor ** number
     self=("self exponent", lambda grad, self, exponent: (
         zeros_like(self) if exponent == 0 else grad * F.mul_scalar(self ** (exponent - 1), exponent))))
rule("pow.Tensor_Tensor", "PowBackward1",                           # tensor ** tensor
     self=("self exponent", lambda grad, self, exponent: F.where(
         exponent == 0, 0.0, grad * (exponent * self ** F.sub_scalar(exponent, 1)))),
     exponent=("self exponent result", lambda grad, self, exponent, result: grad * F.where(
         (self == 0) & (exponent >= 0), 0.0, result * F.log(self))))
rule("pow.Scalar", "PowBackward2",                                  # number ** tensor
     exponent=("base exponent result", lambda grad, base, exponent, result: grad * (
         F.where(exponent >= 0, 0.0, F.mul_scalar(result, H.log_of_number(base))) if base == 0
         else F.mul_scalar(result, H.log_of_number(base)))))

# ------------------------------------------------------------ unary functions
rule("exp", "ExpBackward0", self=("result", lambda grad, result: grad * result))
rule("log", "LogBackward0", self=("self", lambda grad, self: grad / self))
rule("sqrt", "SqrtBackward0", self=("result", lambda grad, result: grad / F.mul_scalar(result, 2)))
# tanh, sigmoid and relu have backward ops of their own (as in PyTorch), with rules.
# sigmoid_backward is an exercise slot: reached through its module when the rule runs.
rule("tanh", "TanhBackward0", self=("result", lambda grad, result: F.tanh_backward(grad, result)))
rule("tanh_backward", "TanhBackwardBackward0",
     grad_output=("output", lambda grad, output: F.tanh_backward(grad, output)),
     output=("grad_output output", lambda grad, grad_output, output: grad * (
         F.mul_scalar(output, -2) * grad_output)))
rule("sigmoid", "SigmoidBackward0",
     self=("result", lambda grad, result: pointwise.sigmoid_backward(grad, result)))
rule("sigmoid_backward", "SigmoidBackwardBackward0",
     grad_output=("output", lambda grad, output: pointwise.sigmoid_backward(grad, output)),
     output=("grad_output output", lambda grad, grad_output, output: grad * grad_output * F.add_scalar(
         F.mul_scalar(output, -2), 1)))
rule("relu", "ReluBackward0",
     self=("result", lambda grad, result: F.threshold_backward(grad, result, 0)))
rule("threshold_backward", "ThresholdBackwardBackward0",
     grad_output=("self threshold", lambda grad, self, threshold: F.threshold_backward(
         grad, self, threshold)),
     self=lambda grad: zeros_like(grad))
# The activations of ops/activations.py: as relu, their gradients are ops of their own
# (differentiated again through the *_curvature helpers), but silu's, written with plain
# ops as PyTorch writes it.
rule("leaky_relu", "LeakyReluBackward0",
     self=("self negative_slope", lambda grad, self, negative_slope: A.leaky_relu_backward(
         grad, self, negative_slope)))
rule("leaky_relu_backward", "LeakyReluBackwardBackward0",
     grad_output=("self negative_slope", lambda grad, self, negative_slope: A.leaky_relu_backward(
         grad, self, negative_slope)),
     self=lambda grad: zeros_like(grad))
rule("elu", "EluBackward0", self=("self alpha", lambda grad, self, alpha: A.elu_backward(grad, self, alpha)))
rule("elu_backward", "EluBackwardBackward0",
     grad_output=("self alpha", lambda grad, self, alpha: A.elu_backward(grad, self, alpha)),
     self=("grad_output self alpha", lambda grad, grad_output, self, alpha: grad * grad_output
           * A.elu_curvature(self, alpha)))
rule("gelu", "GeluBackward0",
     self=("self approximate", lambda grad, self, approximate: A.gelu_backward(grad, self, approximate)))
rule("gelu_backward", "GeluBackwardBackward0",
     grad_output=("self approximate", lambda grad, self, approximate: A.gelu_backward(grad, self, approximate)),
     self=("grad_output self approximate", lambda grad, grad_output, self, approximate: grad * grad_output
           * A.gelu_curvature(self, approximate)))
rule("silu", "SiluBackward0",
     self=("self", lambda grad, self: (lambda s: grad * s * F.add_scalar(self * (1 - s), 1))(F.sigmoid(self))))
rule("softplus", "SoftplusBackward0",
     self=("self beta threshold", lambda grad, self, beta, threshold: A.softplus_backward(
         grad, self, beta, threshold)))
rule("softplus_backward", "SoftplusBackwardBackward0",
     grad_output=("self beta threshold", lambda grad, self, beta, threshold: A.softplus_backward(
         grad, self, beta, threshold)),
     self=("grad_output self beta threshold", lambda grad, grad_output, self, beta, threshold:
           A.softplus_double_backward(grad * grad_output, self, beta, threshold)))
rule("abs", "AbsBackward0", self=("self", lambda grad, self: grad * F.sgn(self)))
rule("sign", "SignBackward0", self=lambda grad: zeros_like(grad))
rule("sgn", "SgnBackward0", self=lambda grad: zeros_like(grad))
rule("masked_fill.Scalar", "MaskedFillBackward0",
     self=("mask", lambda grad, mask: F.masked_fill(grad, mask, 0)))
rule("masked_fill.Tensor", "MaskedFillBackward1",
     self=("mask", lambda grad, mask: F.masked_fill(grad, mask, 0)),
     value=("mask", lambda grad, mask: grad[mask].sum()))
rule("sin", "SinBackward0", self=("self", lambda grad, self: grad * F.cos(self)))
rule("cos", "CosBackward0", self=("self", lambda grad, self: grad * -F.sin(self)))
rule("clamp", "ClampBackward1",                         # clamp(self, number, number)
     self=("self min max", lambda grad, self, min, max: F.where(
         H.clamp_mask(self, min, max), grad, 0.0)))
rule("clamp.Tensor", "ClampBackward0",                  # clamp(self, tensor, tensor): a bound
     self=("self min max", lambda grad, self, min, max: F.where(   # that wins gets the gradient
         H.clamp_bounds_mask(self, min, max), grad, 0.0)),         # (max wins ties)
     min=("self min max", lambda grad, self, min, max: F.where(
         (self < min) & (min < max) if max is not None else self < min, grad, 0.0)),
     max=("self min max", lambda grad, self, min, max: F.where(
         (self > max) | (max < min) if min is not None else self > max, grad, 0.0)))
rule("maximum", "MaximumBackward0",                     # ties share the gradient
     self=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self < other, 0)),
     other=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self > other, 0)))
rule("minimum", "MinimumBackward0",
     self=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self > other, 0)),
     other=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self < other, 0)))
rule("where.self", "WhereBackward0",
     self=("condition", lambda grad, condition: F.where(condition, grad, 0.0)),
     other=("condition", lambda grad, condition: F.where(condition, 0.0, grad)))

# Copies and casts: the engine casts the gradient back to the input's dtype.
rule("clone", "CloneBackward0", self=lambda grad: grad)
rule("_to_copy", "ToCopyBackward0", self=lambda grad: grad)
rule("alias", "AliasBackward0", self=lambda grad: grad)
rule("copy_", "CopyBackwards",                          # dst.copy_(src): dst's old values are gone
     self=lambda grad: zeros_like(grad),
     src=lambda grad: grad)
rule("zero_", "ZeroBackward0", self=lambda grad: zeros_like(grad))
rule("fill_.Scalar", "FillBackward2", self=lambda grad: zeros_like(grad))
rule("fill_.Tensor", "FillBackward3",                   # t.fill_(0-dim tensor), t[...] = value
     self=lambda grad: zeros_like(grad),
     value=lambda grad: grad.sum())

rule("floor_divide", "NotImplemented", variadic=True,  # x // y: no derivative in PyTorch, and
     tensors=lambda grad, i: H.derivative_not_implemented("floor_divide"))   # an edge per input needing one

# -------------------------------------------------------------- reductions
rule("sum", "SumBackward0", self=("self_shape", lambda grad, self_shape: grad.expand(self_shape)))
rule("sum.dim_IntList", "SumBackward1",
     self=("self_shape dim keepdim", lambda grad, self_shape, dim, keepdim: H.restore_reduced_dims(
         grad, dim, keepdim).expand(self_shape)))
rule("mean", "MeanBackward0",
     self=("self_shape", lambda grad, self_shape: F.div_scalar(
         grad.expand(self_shape), math.prod(self_shape))))
rule("mean.dim", "MeanBackward1",
     self=("self_shape dim keepdim", lambda grad, self_shape, dim, keepdim: F.div_scalar(
         H.restore_reduced_dims(grad, dim, keepdim).expand(self_shape),
         math.prod(self_shape[d] for d in dim))))
for _op, _node in (("max", "MaxBackward1"), ("min", "MinBackward1")):   # all: ties share equally
    rule(_op, _node, self=("self result", lambda grad, self, result: H.evenly_distribute(
        grad, self, result)))
for _op, _node in (("max.dim", "MaxBackward0"), ("min.dim", "MinBackward0")):  # the chosen index
    rule(_op, _node, saves=("indices",), self=("self_shape dim keepdim indices",
                           lambda grad, self_shape, dim, keepdim, indices: H.scatter_into_zeros(
                               grad, self_shape, dim, keepdim, indices)))
for _op, _node in (("amax", "AmaxBackward0"), ("amin", "AminBackward0")):     # ties share equally
    rule(_op, _node, self=("self result dim keepdim",
                           lambda grad, self, result, dim, keepdim: H.share_among_ties(
                               grad, self, result, dim, keepdim)))

# Norms and spreads (ops/norms.py).
rule("linalg_vector_norm", "LinalgVectorNormBackward0",
     self=("self result ord dim keepdim", lambda grad, self, result, ord, dim, keepdim:
           norms.vector_norm_backward(grad, self, result, ord, dim, keepdim)))
rule("var.correction", "VarBackward0",
     self=("self dim correction keepdim", lambda grad, self, dim, correction, keepdim:
           norms.var_node_backward(grad, self, dim, correction, keepdim)))
rule("std.correction", "StdBackward0",
     self=("self result dim correction keepdim", lambda grad, self, result, dim, correction, keepdim:
           norms.std_backward(grad, self, result, dim, correction, keepdim)))
rule("logsumexp", "LogsumexpBackward0",
     self=("self result dim keepdim", lambda grad, self, result, dim, keepdim: F.logsumexp_backward(
         grad, self, result, dim, keepdim)))
rule("cumsum", "CumsumBackward0", self=("dim", lambda grad, dim: F.cumsum_backward(grad, dim)))
# Sorting moves each gradient back to where its value came from (ops/sorting.py).
rule("sort", "SortBackward0",
     self=("self_shape dim indices", lambda grad, self_shape, dim, indices: H.scatter_into_zeros(
         grad, self_shape, dim, True, indices)))
rule("topk", "TopkBackward0",
     self=("self_shape dim indices", lambda grad, self_shape, dim, indices: H.scatter_into_zeros(
         grad, self_shape, dim, True, indices)))
rule("gather", "GatherBackward0",                     # ops/index_ops.py
     self=("self_shape dim index", lambda grad, self_shape, dim, index: F.gather_backward(
         grad, self_shape, dim, index)))
rule("index_select", "IndexSelectBackward0",          # ops/index_ops.py
     self=("self_shape dim index", lambda grad, self_shape, dim, index: F.index_select_backward(
         grad, self_shape, dim, index)))
rule("index_add", "IndexAddBackward0",
     self=lambda grad: grad,
     source=("dim index alpha", lambda grad, dim, index, alpha: (
         F.index_select(grad, dim, index) if alpha == 1 else
         F.mul_scalar(F.index_select(grad, dim, index), alpha))))
# Rounding is piecewise constant (ops/rounding.py).
for _op, _node in (("round", "RoundBackward0"), ("round.decimals", "RoundBackward1"),
                   ("floor", "FloorBackward0"), ("ceil", "CeilBackward0"), ("trunc", "TruncBackward0")):
    rule(_op, _node, self=lambda grad: zeros_like(grad))
# Random fills forget the old values (ops/inplace_unary.py).
rule("uniform_", "UniformBackward0", self=lambda grad: zeros_like(grad))
rule("normal_", "NormalBackward0", self=lambda grad: zeros_like(grad))

# ---------------------------------------------------------- shape and views
for _op, _node in (("view", "ViewBackward0"), ("_unsafe_view", "UnsafeViewBackward0"),
                   ("_reshape_alias", "ReshapeAliasBackward0")):
    rule(_op, _node, self=("self_shape", lambda grad, self_shape: grad.reshape(self_shape)))
for _op, _node in (("squeeze", "SqueezeBackward0"), ("squeeze.dim", "SqueezeBackward1"),
                   ("squeeze.dims", "SqueezeBackward2"), ("squeeze_", "SqueezeBackward3"),
                   ("squeeze_.dim", "SqueezeBackward4"), ("squeeze_.dims", "SqueezeBackward5")):
    rule(_op, _node, self=("dims", lambda grad, dims: H.unsqueeze_dims(grad, dims)))
rule("unsqueeze", "UnsqueezeBackward0", self=("dim", lambda grad, dim: grad.squeeze(dim)))
rule("unsqueeze_", "UnsqueezeBackward1", self=("dim", lambda grad, dim: grad.squeeze(dim)))  # ops/inplace_views.py
rule("as_strided", AsStridedBackward0,                 # a view regenerated from its base (views.py),
     self=("self_shape key accumulate", lambda grad, self_shape, key, accumulate: F.embed_in_zeros(
         grad, self_shape, key, accumulate=accumulate)))                             # or as_strided
rule("unfold", "UnfoldBackward0",                      # ops/strided.py
     self=("self_sym_sizes dimension size step", lambda grad, self_sym_sizes, dimension, size, step:
           F.unfold_backward(grad, self_sym_sizes, dimension, size, step)))
rule("unfold_backward", "UnfoldBackwardBackward0",
     grad_in=("dim size step", lambda grad, dim, size, step: grad.unfold(dim, size, step)))
rule("expand", "ExpandBackward0",
     self=("self_shape", lambda grad, self_shape: broadcasting.sum_to(grad, self_shape)))
for _op, _node in (("split.Tensor", "SplitBackward0"), ("split_with_sizes", "SplitWithSizesBackward0"),
                   ("unsafe_split.Tensor", "UnsafeSplitBackward0"),
                   ("unsafe_split_with_sizes", "UnsafeSplitWithSizesBackward0")):
    rule(_op, _node, all_grads=True,                  # ops/pieces.py
         self=("self_shape dim sizes", lambda grads, self_shape, dim, sizes: F.split_backward(
             grads, self_shape, dim, sizes)))
rule("repeat", "RepeatBackward0",
     self=("self_shape repeats", lambda grad, self_shape, repeats: F.repeat_backward(grad, self_shape, repeats)))
rule("unbind.int", "UnbindBackward0", all_grads=True,
     self=("self_shape dim", lambda grads, self_shape, dim: H.unbind_backward(grads, self_shape, dim)))
rule("transpose.int", "TransposeBackward0",
     self=("dim0 dim1", lambda grad, dim0, dim1: grad.transpose(dim0, dim1)))
rule("transpose_", "TransposeBackward1",              # ops/inplace_views.py
     self=("dim0 dim1", lambda grad, dim0, dim1: grad.transpose(dim0, dim1)))
rule("t", "TBackward0", self=lambda grad: grad.t())
rule("t_", "TBackward1", self=lambda grad: grad.t())
rule("permute", "PermuteBackward0",
     self=("dims", lambda grad, dims: grad.permute(H.inverse_permutation(dims))))
for _op, _node in (("cat", "CatBackward0"), ("stack", "StackBackward0")):
    rule(_op, _node, variadic=True,                     # tensor i gets its part of grad back
         tensors=("dim keys", lambda grad, dim, keys, i: grad[F.dim_key(dim, keys[i])]))
rule("select.int", "SelectBackward0",
     self=("self_shape dim index", lambda grad, self_shape, dim, index: F.embed_in_zeros(
         grad, self_shape, F.dim_key(dim, index), op="select_backward")))
rule("slice.Tensor", "SliceBackward0",
     self=("self_shape dim start end step", lambda grad, self_shape, dim, start, end, step:
           F.embed_in_zeros(grad, self_shape, F.dim_key(dim, slice(start, end, step)))))
rule("index.Tensor", "IndexBackward0", saves=("indices",),
     self=("self_shape indices", lambda grad, self_shape, indices: F.embed_in_zeros(
         grad, self_shape, indices, accumulate=True)))
# The backward of select/slice/index/max(dim) writes the gradient into zeros; its
# own gradient (for double backward) reads the same place back.
for _op, _node in (("select_backward", "SelectBackwardBackward0"),
                   ("slice_backward", "SliceBackwardBackward0")):
    rule(_op, _node, self=("key", lambda grad, key: grad[key]))
# t[key] = values with an advanced key, x.index_put(indices, values) (and zeros.index_put_(key,
# grad) above): the overwritten places of self get no gradient (zeros written over them, by the
# same op, as PyTorch), values get what was written.
rule("index_put_", "IndexPutBackward0", saves=("key",),
     self=("key accumulate", lambda grad, key, accumulate: (
         grad if accumulate else F.index_put_at(grad, key, zeros((), dtype=grad.dtype)))),
     values=("key", lambda grad, key: grad[key]))
for _op, _node in (("_index_put_impl_", "IndexPutImplBackward0"), ("scatter.src", "ScatterBackward0")):
    rule(_op, _node, saves=("key",),
         self=("key accumulate", lambda grad, key, accumulate: (
             grad if accumulate else H.index_fill_zero(grad, key))),
         values=("key", lambda grad, key: grad[key]))

# ------------------------------------------------------------ linear algebra
rule("mm", "MmBackward0",
     self=("mat2 self_col_major", lambda grad, mat2, self_col_major: H.mm_mat1_backward(
         grad, mat2, self_col_major)),
     mat2=("self mat2_col_major", lambda grad, self, mat2_col_major: H.mm_mat2_backward(
         grad, self, mat2_col_major)))
rule("mv", "MvBackward0",
     self=("vec", lambda grad, vec: grad.unsqueeze(1) * vec),
     vec=("self", lambda grad, self: self.t().mv(grad)))
rule("dot", "DotBackward0",
     self=("tensor", lambda grad, tensor: grad * tensor),
     tensor=("self", lambda grad, self: grad * self))
rule("bmm", "BmmBackward0",
     self=("mat2", lambda grad, mat2: grad.bmm(mat2.transpose(1, 2))),
     mat2=("self", lambda grad, self: self.transpose(1, 2).bmm(grad)))
rule("addmm", "AddmmBackward0",
     self=("beta", lambda grad, beta: grad if beta == 1 else F.mul_scalar(grad, beta)),
     mat1=("mat2 alpha mat1_col_major", lambda grad, mat2, alpha, mat1_col_major: H.mm_mat1_backward(
         grad, mat2, mat1_col_major, alpha)),
     mat2=("mat1 alpha mat2_col_major", lambda grad, mat1, alpha, mat2_col_major: H.mm_mat2_backward(
         grad, mat1, mat2_col_major, alpha)))

# ------------------------------------------------------ softmax and losses
# log_softmax_backward_data is an exercise slot: reached through its module when the rule runs.
rule("_softmax", "SoftmaxBackward0",
     self=("result dim", lambda grad, result, dim: F.softmax_backward_data(grad, result, dim)))
rule("_softmax_backward_data", "SoftmaxBackwardDataBackward0",
     grad_output=("output dim", lambda grad, output, dim: F.softmax_backward_data(grad, output, dim)),
     output=("grad_output output dim", lambda grad, grad_output, output, dim: (
         grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
         - grad_output * (output * grad).sum(dim, keepdim=True))))
rule("_log_softmax", "LogSoftmaxBackward0",
     self=("result dim", lambda grad, result, dim: losses.log_softmax_backward_data(grad, result, dim)))
rule("_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0",
     grad_output=("output dim", lambda grad, output, dim: (
         grad - (grad * output.exp()).sum(dim, keepdim=True))),
     output=("grad_output output dim", lambda grad, grad_output, output, dim: (
         -grad_output.sum(dim, keepdim=True) * output.exp() * grad)))
rule("nll_loss", "NllLossBackward0",
     self=("self target weight reduction ignore_index total_weight",
           lambda grad, self, target, weight, reduction, ignore_index, total_weight:
           F.nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight)))
rule("nll_loss_backward", "NllLossBackwardBackward0",   # (its output does not depend on self)
     grad_output=("target weight reduction ignore_index",
                  lambda grad, target, weight, reduction, ignore_index:
                  F.nll_loss(grad, target, weight, ignore_index, reduction)),
     self=lambda grad: zeros_like(grad))
rule("mse_loss", "MseLossBackward0",
     self=("self target reduction", lambda grad, self, target, reduction: F.mse_loss_backward(
         grad, self, target, reduction)),
     target=("self target reduction", lambda grad, self, target, reduction: F.mse_loss_backward(
         grad, target, self, reduction)))
rule("mse_loss_backward", "MseLossBackwardBackward0",
     grad_output=("self target reduction", lambda grad, self, target, reduction: (
         F.mse_loss_backward(grad, self, target, reduction) if reduction == "none"
         else F.mse_loss_backward(grad, self, target, reduction).sum())),
     self=("grad_output reduction count", lambda grad, grad_output, reduction, count:
           H.mse_double_backward(grad * grad_output, reduction, count)),
     target=("grad_output reduction count", lambda grad, grad_output, reduction, count:
             -H.mse_double_backward(grad * grad_output, reduction, count)))

# Element-by-element losses (ops/elementwise_losses.py): weights are plain values, not inputs.
rule("binary_cross_entropy", "BinaryCrossEntropyBackward0",
     self=("self target weight reduction", EL.binary_cross_entropy_backward),
     target=("self target weight reduction", EL.binary_cross_entropy_target_backward))
rule("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
     self=("self target weight pos_weight reduction", EL.binary_cross_entropy_with_logits_backward),
     target=("self target weight pos_weight reduction",
             EL.binary_cross_entropy_with_logits_target_backward))
rule("smooth_l1_loss", "SmoothL1LossBackward0",
     self=("self target beta reduction", EL.smooth_l1_loss_backward),
     target=("self target beta reduction", lambda grad, self, target, beta, reduction:
             -EL.smooth_l1_loss_backward(grad, self, target, beta, reduction)))
rule("huber_loss", "HuberLossBackward0",
     self=("self target delta reduction", EL.huber_loss_backward),
     target=("self target delta reduction", lambda grad, self, target, delta, reduction:
             -EL.huber_loss_backward(grad, self, target, delta, reduction)))

# ------------------------------------------------------------ the rest of the table
# The families added later keep their rules in modules of their own (nn layers,
# elementwise math, structure and reductions, compositions), so this file stays readable.  Each
# declares its rules with this module's ``rule``, passed in, so none imports this one.
from . import derivatives_compositions, derivatives_nn, derivatives_special, derivatives_structure  # noqa: E402,E501
from . import derivatives_conv, derivatives_linalg  # noqa: E402

derivatives_nn.declare(rule)
derivatives_special.declare(rule)
derivatives_structure.declare(rule)
derivatives_compositions.declare(rule)
derivatives_linalg.declare(rule)
derivatives_conv.declare(rule)
