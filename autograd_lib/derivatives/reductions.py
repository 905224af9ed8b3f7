"""The rules of ``ops/reductions.py``: ``sum`` (exercise 05) and ``mean`` (exercise 03),
``max``/``min``, ``amax``/``amin``, ``logsumexp``, ``cumsum``.
"""

import math

from .. import ops as F
from ..ops import backward_helpers as H
from .table import NODES, rule  # noqa: F401  (NODES: an edition's sealed rule(...) finds its node here)


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

rule("logsumexp", "LogsumexpBackward0",
     self=("self result dim keepdim", lambda grad, self, result, dim, keepdim: F.logsumexp_backward(
         grad, self, result, dim, keepdim)))
rule("cumsum", "CumsumBackward0", self=("dim", lambda grad, dim: F.cumsum_backward(grad, dim)))

