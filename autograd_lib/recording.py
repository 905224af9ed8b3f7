"""How an operation is recorded.

Every differentiable operation computes its result with NumPy and then hands
it to :func:`record`, saying which op it is and what its inputs were::

    def exp(input):
        input = to_tensor(input)
        return record("exp", np.exp(input._data), (input,))

``record`` wraps the array in a Tensor and, when the result must be
differentiated, attaches its ``grad_fn``:

1. **Whether** (assignment 01): the result requires grad when grad mode is on
   and some input requires grad (:func:`result_requires_grad`).
2. **Where the gradients go** (assignment 02): one edge per input, in input
   order (:func:`collect_next_functions`); an input's edge is its
   :func:`gradient_edge` (``Tensor._gradient_edge``).
3. **The node, hooked onto the result** (assignment 02): :func:`record_node` asks
   1 and 2, makes the node, notes each input's shape and dtype, and makes the node
   the ``grad_fn`` of each output, at that output's number.
4. **Saving what** (assignment 06): ``derivatives/`` declares, for each forward
   op, the backward node class and what each input's formula needs.  The node
   keeps only what the formulas of its grad-requiring inputs need (:func:`plan_saves`).

Ops never import ``derivatives/``: it fills :data:`RULES` when the library
is imported, and ``record`` looks the op up there when it runs.
"""

import weakref

import numpy as np

from . import grad_mode as _grad_mode
from .grad_mode import _state as _grad_state
from .graph import AccumulateGrad, SavedTensor, SavedValue, expose_saved
from .tensor import Tensor
from .views import make_view
from .op_table import methods

__all__ = ["RULES", "record", "record_outputs", "result_requires_grad", "collect_next_functions", "gradient_edge",
           "record_node", "plan_saves", "forget_save_plans", "RESULT", "PARAM", "SAVED_PARAM", "PARAM_IF_GIVEN"]

RULES = {}          # forward op ("mul.Tensor") -> its backward node class (filled by derivatives/)


def result_requires_grad(*inputs):
    """The propagation rule: an op's result requires grad exactly when grad mode
    is on and at least one input (a tensor, or None for an absent one) requires grad.

    (Exercise 01.result_requires_grad: every op asks this function.)"""
    if not _grad_state.enabled:
        return False
    for t in inputs:
        if t is not None and t.requires_grad:
            return True
    return False


def gradient_edge(tensor):
    """Where a gradient for ``tensor`` enters the graph: ``(node, output_nr)``.

    A non-leaf's edge is its ``grad_fn``; a leaf that requires grad gets an
    ``AccumulateGrad`` node, made once and reused while the graph holds it.
    Installed as the method ``Tensor._gradient_edge``.  (Exercise 02.gradient_edge.)"""
    node = tensor.grad_fn
    if node is not None:
        return (node, tensor._output_nr)
    if not tensor._requires_grad:
        return (None, 0)
    node = tensor._accumulator() if tensor._accumulator is not None else None
    if node is None:
        node = AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(node)
    return (node, 0)


methods(_gradient_edge=gradient_edge)


def collect_next_functions(*inputs):
    """A new node's ``next_functions``: for each input, in order, the edge where its
    gradient goes, or ``(None, 0)`` when it needs none.

    (Exercise 02.collect_next_functions.)"""
    edges = []
    for t in inputs:
        if t is not None and t.requires_grad:
            edges.append(t._gradient_edge())
        else:
            edges.append((None, 0))
    return tuple(edges)


def record_node(node_cls, inputs, outputs):
    """Make the backward node of a finished forward computation and hook it onto its
    outputs.  Returns the node, or None when nothing is recorded.

    Nothing is recorded, and the outputs stay as they are, when the result needs no
    gradient (:func:`result_requires_grad` of the inputs) or when no output is
    floating point (an integer or bool tensor cannot require grad).  Otherwise a new
    ``node_cls()`` gets one edge per input (:func:`collect_next_functions`) and, in
    ``_input_meta``, each input's ``(shape, NumPy dtype)``, None for an absent one: the
    engine fits each input's gradient to it.  It has ``len(outputs)`` outputs, and
    output ``i``, when floating point, gets it as its ``grad_fn``, at output number ``i``
    (as PyTorch's ``set_history``; an integer output keeps its position, as in a custom
    ``Function``).

    (Exercise 02.record_node: ``record`` and ``record_outputs`` call it for every op with a
    floating result.)"""
    if not result_requires_grad(*inputs):
        return None
    for out in outputs:
        if out._data.dtype.kind == "f":
            break
    else:
        return None                                   # nothing can carry a gradient
    node = node_cls()
    node.next_functions = collect_next_functions(*inputs)
    # A tuple of atomic values: the garbage collector stops tracking it (one object fewer
    # to scan per node, see benchmarks/README.md).
    node._input_meta = tuple([None if t is None else (t._data.shape, t._data.dtype) for t in inputs])
    if len(outputs) != 1:                             # else the class default: one output
        node.num_outputs = len(outputs)
    for i, out in enumerate(outputs):
        if out._data.dtype.kind == "f":
            out._grad_fn = node
            if i:                                     # else the class default, 0
                out._output_nr = i
    return node


def record(op, array, inputs, params=None, view_of=None, replay=None):
    """Wrap ``array`` as the result of forward op ``op`` and, when it must be
    differentiated, attach the backward node that ``derivatives/`` declares for ``op``.

    Args:
        op: the forward op, with PyTorch's name for the overload (``"mul.Tensor"``).
        array: the result, computed with NumPy.
        inputs: the op's tensor inputs, in the order of its rule's inputs (the order
            of ``next_functions``); None for an optional input left out.
        params: the plain values the rule's formulas may need (dims, shapes, numbers).
        view_of: the result is a view of this tensor: it shares its storage and version
            counter (``views.make_view``).
        replay: for a view, how it is made from ``view_of``'s NumPy array (a function of
            the array: ``lambda a: a.T``), to find its elements in the base later.

    Returns:
        The result tensor, with its ``grad_fn`` when recorded.
    """
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    out = Tensor._make(array) if view_of is None else make_view(array, view_of, replay)
    if array.dtype.kind != "f":
        return out              # integer and bool results never require grad, as in PyTorch
    _attach(op, (out,), inputs, params)
    return out


def record_outputs(op, outputs, inputs, params=None):
    """Record tensors already made as the outputs of one node of ``op``, as PyTorch's
    multi-output ops (unbind and split, aminmax, var_mean, slogdet, a convolution's
    backward): output ``i`` gets the node at output number ``i``.  None stands for an
    output not computed, which keeps its number.  The first output is the op's result
    for the formulas that save it.

    Returns:
        ``outputs``, as a tuple.
    """
    present = [o for o in outputs if o is not None]
    if not present or all(o._data.dtype.kind != "f" for o in present):
        return tuple(outputs)   # integer and bool results never require grad, as in PyTorch
    node = _attach(op, present, inputs, params)
    if node is not None and len(present) < len(outputs):
        node.num_outputs = len(outputs)
        for i, out in enumerate(outputs):
            if out is not None and out._grad_fn is node:
                out._output_nr = i
    return tuple(outputs)


def _attach(op, outputs, inputs, params):
    """Give ``outputs`` their node of ``op`` (02's :func:`record_node`) and save what its
    formulas need; returns the node, or None when nothing was recorded."""
    if _grad_mode.inference_used and _grad_state.inference:   # inference_mode records nothing, even
        return None                     # inside enable_grad: PyTorch leaves autograd out of its dispatch there
    out = outputs[0]
    # A type-promoted copy stands for its original (ops.operands.cast_operand).  Most ops
    # have none: then the inputs are used as they are, without building a new list.
    tensors = inputs
    for t in inputs:
        if t is not None and t._promoted_from is not None:
            tensors = [t if t is None or t._promoted_from is None else t._promoted_from for t in inputs]
            break
    node_cls = RULES[op]
    if node_cls.variadic:                             # cat, stack: one input per tensor
        node_cls = node_cls.for_inputs(len(tensors))
    node = record_node(node_cls, tensors, outputs)
    if node is None:
        return None                                   # nothing to differentiate
    edges = node.next_functions
    # Save what the formulas of the inputs that need a gradient say they need: the plan
    # for this pattern of inputs needing one, planned once (the common case: found here).
    plan = _PLANS.get(node_cls, _NO_PLANS).get(tuple([next_node is not None for next_node, _ in edges]))
    if plan is None:
        plan = _save_plan(node_cls, edges)
    saved, kept = {}, {}
    for value_name, source in plan:
        if source.__class__ is int:                   # input number `source`
            if tensors[source] is None:               # an optional input left out (clamp's max)
                kept[value_name] = None
            else:
                saved[value_name] = SavedTensor(tensors[source])
        elif source == RESULT:
            saved[value_name] = SavedTensor(Tensor._make(out._data, out._version_counter), is_output=True,
                                            output=out)
        elif source == PARAM:
            kept[value_name] = params[value_name]
        elif source == PARAM_IF_GIVEN:                # kept for grad_fn._saved_*, when given
            if params is not None and value_name in params:
                kept[value_name] = params[value_name]
        elif source == SAVED_PARAM:                   # freed with the saved tensors (indices)
            saved[value_name] = SavedValue(params[value_name])
        else:
            raise ValueError(f"plan_saves gave {node_cls.__name__}'s value {value_name!r} the source "
                             f"{source!r}: expected an input's position, {RESULT!r}, {PARAM!r}, "
                             f"{SAVED_PARAM!r} or {PARAM_IF_GIVEN!r}")
    if saved:                                         # else the node shares Node's empty default
        node._saved = saved
    if kept:
        node._params = kept
    return node


# Where a saved value comes from (besides an input's position, an int).
RESULT = "result"                   # the op's result, saved as a tensor
PARAM = "param"                     # a plain value of the op (a dim, a number), kept
SAVED_PARAM = "saved param"         # a plain value kept with the saved tensors, freed with them
PARAM_IF_GIVEN = "param if given"   # a plain value only a no-gradient input's formula names

_PLANS = {}                         # node class -> {which inputs need a gradient: its plan}
_NO_PLANS = {}                      # (a class with none yet; never written)


def plan_saves(node_cls, needs_grad):
    """What a new node of class ``node_cls`` keeps, when input ``i`` needs a gradient
    exactly if ``needs_grad[i]``: a tuple of ``(value_name, source)``, each name once.

    The values are those the formulas of the inputs that need a gradient name
    (``node_cls.formulas[input_name][1]``); the source of each is the input's position
    when it is an input (``node_cls.input_names``), ``RESULT`` for ``"result"``,
    ``SAVED_PARAM`` for a name in ``node_cls.saves``, ``PARAM`` otherwise.  A plain
    value that only the formula of an input needing no gradient names is kept too,
    as ``PARAM_IF_GIVEN`` (PyTorch keeps ``grad_fn._saved_alpha`` whichever input needs
    a gradient); that input's tensors are not.

    (Exercise 06.plan_saves: ``record`` asks it once per node class and pattern of
    inputs needing a gradient.)"""
    names = node_cls.input_names
    plan, seen = [], set()
    for name, needed in sorted(zip(names, needs_grad), key=lambda pair: not pair[1]):
        for value_name in node_cls.formulas[name][1]:
            if value_name in seen:
                continue
            if value_name == "result":
                source = RESULT
            elif value_name in names:
                source = names.index(value_name)
            elif value_name in node_cls.saves:
                source = SAVED_PARAM
            else:
                source = PARAM if needed else PARAM_IF_GIVEN
            if needed or source == PARAM_IF_GIVEN:
                seen.add(value_name)
                plan.append((value_name, source))
    return tuple(plan)


def forget_save_plans():
    """Drop every cached plan (called when ``plan_saves`` or a formula is replaced)."""
    _PLANS.clear()


def _save_plan(node_cls, edges):
    """``plan_saves`` for the inputs that need a gradient (those with an edge), cached per
    node class and pattern of them."""
    mask = tuple([next_node is not None for next_node, _ in edges])
    try:                                   # the common case: planned before
        return _PLANS[node_cls][mask]
    except KeyError:
        pass
    if len(node_cls.input_names) != len(mask):
        raise TypeError(f"{node_cls.__name__} has inputs {node_cls.input_names}, but the op recorded "
                        f"{len(mask)} input(s)")
    plan = tuple(plan_saves(node_cls, mask))
    expose_saved(value_name for value_name, _ in plan)   # grad_fn._saved_<name> for each
    _PLANS.setdefault(node_cls, {})[mask] = plan
    return plan
