"""Where the course's exercises plug into the library.

Each assignment asks students to write a piece of autograd_lib: a rule, a
node's wiring, a step of the engine.  Every such piece is a *slot*: a
module-level function, a class attribute, or a gradient formula that the
library always reaches through its slot.  So a student's function,
plugged into the slot, runs inside the real engine exactly where the
reference ran::

    from autograd_lib import exercises

    def gradient_edge(tensor):          # the student's version
        ...

    exercises.plug("02.gradient_edge", gradient_edge)   # the engine now uses it

:func:`reference` returns the library's own implementation of an exercise:
the slots' originals are remembered the first time :func:`plug` or
:func:`reference` is used, so it stays the library's version whatever was
plugged since.  :func:`unplug` puts it back; :func:`plugged` swaps a function
in for one ``with`` block.

A function plugged in notes when it runs (:func:`recent_calls`) and marks an
error it raises with its exercise id, so a notebook can say which exercise an
error came from ("exercise 03.execute is not written yet") instead of showing a
traceback through the library.

That is all the library knows about the course.  Grading (one exercise at a
time, tripwires against delegation, the integrity snapshot) lives in the
package ``autograd_course``, which uses these slots.
"""

import contextlib
import dataclasses
import functools
import importlib
import inspect
import sys
import types

__all__ = ["Slot", "SLOTS", "plug", "unplug", "unplug_all", "plugged", "reference", "exercises_of",
           "recent_calls", "forget_calls"]


@dataclasses.dataclass
class Slot:
    """One exercise: where it lives in the library and which assignment teaches it.

    ``kind`` says how the student's function is installed:

    * ``"function"``: a module-level function (``owner`` is the module);
    * ``"method"``: a method of a class (``owner`` is ``"module:Class"``);
    * ``"property"``: a property, whose getter the student writes (a setter stays);
    * ``"rule"``: the gradient formulas of backward node ``attribute``; the student
      writes one vector-Jacobian product ``vjp(grad, *values)`` returning a gradient per
      input, and ``values`` names what it is given after ``grad`` (what the node saves).
    """
    exercise_id: str          # "02.gradient_edge": assignment number, then the name
    owner: str                # "module" or "module:Class"
    attribute: str            # attribute name on the owner (the node name for rules)
    summary: str              # one line: what the student writes
    kind: str = "function"
    guards: tuple = ()        # "module:function" helpers that hold the whole answer: armed too
    values: tuple = ()        # rules: the values the student's VJP is given after grad, in order
    resets: tuple = ()        # "module:function"s to call when the slot changes (caches of its results)

    @property
    def assignment(self):
        return self.exercise_id.split(".", 1)[0]

    def _owner(self):
        module_name, _, class_name = self.owner.partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, class_name) if class_name else module

    def get(self):
        owner = self._owner()
        if self.kind == "rule":
            return owner.NODES[self.attribute].formulas
        if self.kind == "property":
            return owner.__dict__[self.attribute].fget
        return owner.__dict__[self.attribute] if isinstance(owner, type) else getattr(owner, self.attribute)

    def set(self, fn):
        owner = self._owner()
        if self.kind == "rule":
            node_cls = owner.NODES[self.attribute]
            node_cls.formulas = (fn if isinstance(fn, dict) else
                                 _formulas_from_vjp(fn, node_cls.input_names, self.values))
        elif self.kind == "property":
            setter = owner.__dict__[self.attribute].fset      # a settable property stays settable
            setattr(owner, self.attribute, property(fn, setter))
        else:
            setattr(owner, self.attribute, fn)
        for path in self.resets:
            _resolve(path)()

    def functions(self, value):
        """The plain functions behind a slot value (to arm tripwires)."""
        if self.kind == "rule":
            return [fn for fn, _ in value.values()]
        return [value]

    def guarded(self):
        """Library helpers that would answer the exercise in one call."""
        return [_resolve(path) for path in self.guards]


def _formulas_from_vjp(vjp, input_names, values):
    """Turn ``vjp(grad, *values) -> (grad_input0, grad_input1, ...)`` into per-input formulas.

    ``values`` are the slot's stated names: every formula needs them all, so the node
    saves them, and the VJP is given them in that order, whatever its own parameters
    are called (a VJP with fewer parameters is given the first ones)."""
    given = values[:_positional_parameters(vjp) - 1]

    def pick(i):
        def formula(grad, *found):
            grads = vjp(grad, *found[:len(given)])
            if not isinstance(grads, tuple):
                grads = (grads,)
            if len(grads) != len(input_names):
                raise ValueError(f"{vjp.__name__} must return {len(input_names)} gradient(s), one per "
                                 f"input {input_names}, but returned {len(grads)}")
            return grads[i]
        return formula
    return {name: (pick(i), tuple(values)) for i, name in enumerate(input_names)}


def _positional_parameters(fn):
    """How many positional arguments ``fn`` takes (any number with ``*args``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return sys.maxsize
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return sys.maxsize
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


SLOTS = {}


def _resolve(path):
    """The object that ``"module:name"`` names."""
    module_name, _, name = path.partition(":")
    return getattr(importlib.import_module(module_name), name)


_PLANS = "autograd_lib.recording:forget_save_plans"   # what a node saves follows its formulas


def _register(exercise_id, owner, attribute, summary, kind="function", guards=(), values=(), resets=()):
    if kind == "rule":                    # new formulas may name other values: plan saving again
        resets = resets + (_PLANS,)
    SLOTS[exercise_id] = Slot(exercise_id, owner, attribute, summary, kind, guards, values, resets)


_T = "autograd_lib.tensor:Tensor"
_register("01.result_requires_grad", "autograd_lib.recording", "result_requires_grad",
          "an op's result requires grad when grad mode is on and any input requires grad")
_register("01.result_type", "autograd_lib.dtypes", "result_type",
          "type promotion: the dtype of an op over tensors and Python numbers, in three tiers")
_register("01.is_leaf", _T, "is_leaf", "a tensor is a leaf when no operation recorded it", "property")
_register("01.requires_grad_", _T, "requires_grad_",
          "set requires_grad on a leaf; refuse non-floating dtypes and non-leaves")
_register("01.detach", _T, "detach", "a new leaf sharing storage and version counter")
_register("01.infer_dtype", "autograd_lib.creation", "infer_dtype",
          "the dtype tensor(data) gives Python data: each item's dtype, all of them promoted")
_register("01.nested_shape", "autograd_lib.creation", "nested_shape",
          "the shape of nested lists from their first elements; refuse ragged data as PyTorch does")
_register("02.gradient_edge", _T, "_gradient_edge",
          "where a tensor's gradient enters the graph: (grad_fn, output_nr) or AccumulateGrad")
_register("02.collect_next_functions", "autograd_lib.recording", "collect_next_functions",
          "a new node's next_functions: one edge per input, (None, 0) where no grad is needed")
_register("02.record_node", "autograd_lib.recording", "record_node",
          "an op's node: none without grad; else edges, input shapes and dtypes, grad_fn and output_nr per output")
_register("02.graph_nodes", "autograd_lib.viz.walk", "topological_nodes",
          "every node reachable from the roots, once each, a node before the nodes it feeds")
for _name, _node, _values in (("add", "AddBackward0", ()), ("mul", "MulBackward0", ("self", "other")),
                              ("pow", "PowBackward0", ("self", "exponent")),
                              ("mean", "MeanBackward0", ("self_shape",))):
    _register(f"03.{_name}_backward", "autograd_lib.derivatives", _node,
              f"the vector-Jacobian product of {_name}", "rule", values=_values)
_register("03.mm_backward", "autograd_lib.derivatives", "MmBackward0",
          "the vector-Jacobian product of mm", "rule", values=("self", "mat2"),
          guards=("autograd_lib.ops.backward_helpers:mm_mat1_backward",
                  "autograd_lib.ops.backward_helpers:mm_mat2_backward"))
_register("03.count_dependencies", "autograd_lib.engine", "count_dependencies",
          "how many edges point into each node reachable from the roots (iteratively)")
_register("03.execute", "autograd_lib.engine", "execute",
          "the backward loop: each node runs once all its gradients arrived, newest first; "
          "gradients summed per node output")
_register("03.initial_gradients", "autograd_lib.engine", "initial_gradients",
          "the gradients backward starts from: 1 for a scalar, the given ones checked")
_register("03.run_node", "autograd_lib.engine", "run_node",
          "one node of the pass: its hooks, its rule, its gradients fitted to its inputs, its saved values freed")
_register("03.run_backward", "autograd_lib.engine", "run_backward",
          "the driver of a backward pass: starting gradients, root edges, counts, the loop in the pass's grad mode")
_register("04.accumulate_grad", "autograd_lib.graph", "accumulate_grad",
          "add a gradient into a leaf's .grad: a copy the first time, then summed")
_register("04.retain_grad", _T, "retain_grad", "mark a non-leaf so backward stores its gradient")
_register("04.call_tensor_hooks", "autograd_lib.engine", "call_tensor_hooks",
          "before a node runs: its outputs' tensor hooks, chained, then the retained gradients")
_register("04.store_retained_grad", "autograd_lib.engine", "store_retained_grad",
          "store a retained non-leaf gradient: a copy first, then summed out of place")
_register("04.nodes_to_run", "autograd_lib.engine", "nodes_to_run",
          "backward(inputs=...) and autograd.grad: the nodes from which a wanted gradient can be reached")
_register("04.grad_results", "autograd_lib.autograd.functional", "grad_results",
          "what autograd.grad returns per input: the gradient, or for an unused one an error, None or zeros")
_register("05.sum_to", "autograd_lib.broadcasting", "sum_to",
          "sum a broadcast gradient back to an input's shape")
_register("05.validate_outputs", "autograd_lib.engine", "validate_outputs",
          "after each node: bring each input gradient to its input's shape (a broadcast sum) and "
          "dtype; refuse a shape that does not broadcast")
_register("05.sum_backward", "autograd_lib.derivatives", "SumBackward1",
          "the gradient of sum over dims, with and without keepdim", "rule",
          values=("self_shape", "dim", "keepdim"), guards=("autograd_lib.ops.backward_helpers:restore_reduced_dims",))
_register("05.exp_backward", "autograd_lib.derivatives", "ExpBackward0",
          "the gradient of exp, from its saved result", "rule", values=("result",))
_register("05.sigmoid_backward", "autograd_lib.ops.pointwise", "sigmoid_backward",
          "the gradient of sigmoid given its output")
_register("05.index_backward", "autograd_lib.derivatives", "IndexBackward0",
          "the gradient of x[indices]: repeated indices accumulate", "rule",
          values=("self_shape", "indices"), guards=("autograd_lib.ops.indexing:embed_in_zeros",))
_register("05.log_softmax_backward", "autograd_lib.ops.losses", "log_softmax_backward_data",
          "the gradient of log_softmax given its output")
_register("05.var_backward", "autograd_lib.ops.norms", "var_backward",
          "the gradient of x.var(dim, correction=, keepdim=); std's gradient goes through it too")
_register("05.amax_backward", "autograd_lib.ops.backward_helpers", "share_among_ties",
          "the gradient of amax/amin over dims: tied extremes share each gradient equally",
          guards=("autograd_lib.ops.backward_helpers:evenly_distribute",))
_register("06.plan_saves", "autograd_lib.recording", "plan_saves",
          "what a new node keeps: the values the formulas of its grad-requiring inputs name, "
          "each once, with where each comes from", resets=(_PLANS,))
_register("06.release_saved", "autograd_lib.graph:Node", "release_saved",
          "free a node's saved tensors after backward")
_register("06.saved_values", "autograd_lib.graph:Node", "saved_values",
          "unpack the values a formula needs; refuse once they were freed")
_register("06.unpack", "autograd_lib.graph:SavedTensor", "unpack",
          "a saved tensor back for backward: through its unpack hook (a tensor, not version-checked) or "
          "version-checked; a saved output attached to its node at its output number", "method")
_register("06.hvp", "autograd_lib.autograd.functional", "hvp",
          "a Hessian-vector product by differentiating a gradient again")
_CK = "autograd_lib.utils.checkpoint:CheckpointFunction"
_register("06.checkpoint_forward", _CK, "forward",
          "checkpoint's forward: run the function without recording, save only its tensor inputs", "method")
_register("06.checkpoint_backward", _CK, "backward",
          "checkpoint's backward: recompute on detached inputs while recording, back-propagate, "
          "return the inputs' gradients", "method")
_register("06.function_gradients", "autograd_lib.autograd.function", "function_gradients",
          "what a custom Function's node passes on from its backward: one gradient per tensor "
          "argument, refusing a wrong count, a gradient for a non-tensor, a non-tensor gradient")
_GM = "autograd_lib.grad_mode:_GradModeContext"
_register("07.grad_mode_enter", _GM, "__enter__",
          "entering a no_grad/enable_grad block, as PyTorch's", "method")
_register("07.grad_mode_exit", _GM, "__exit__",
          "leaving a grad-mode block, as PyTorch's, also when it raised", "method")
_register("07.grad_mode_decorator", "autograd_lib.grad_mode", "decorate",
          "a decorated function runs each call inside a fresh grad-mode context")
_register("07.set_grad_enabled", "autograd_lib.grad_mode:set_grad_enabled", "__init__",
          "set_grad_enabled(mode), as PyTorch's: a plain call, a block, a decorator", "method",
          guards=("autograd_lib.grad_mode:_type_name",))
_register("07.grad_mode_generator", "autograd_lib.grad_mode", "decorate_generator",
          "a decorated generator runs each step (next, send, throw, close) inside a fresh grad-mode "
          "context, and returns what it returns")
_register("07.data", _T, "data",
          "tensor.data, as PyTorch's", "property")
_register("07.detach_", _T, "detach_",
          "tensor.detach_(), as PyTorch's")
_register("08.increment_version", "autograd_lib.graph", "increment_version",
          "count an in-place write on the version counter shared by every alias of the storage")
_register("08.check_version", "autograd_lib.graph:SavedTensor", "check_version",
          "unpacking a saved tensor: refuse, with PyTorch's message, once its version moved on",
          "method")
_register("08.check_inplace", "autograd_lib.ops.inplace", "check_inplace",
          "the leaf rule: no in-place write, while recording, into a leaf that requires grad "
          "or a view of one")
_register("08.copy_slices_backward", "autograd_lib.ops.inplace:CopySlices", "apply",
          "the backward of a write through a view: the written cells' gradient through the op's "
          "node, the other cells' straight to the base's old history", "method")
_register("08.view_grad_fn", _T, "_view_grad_fn",
          "a view's grad_fn: a new node from its base's current history once the storage was written "
          "since it was set; refused for views made under no_grad or by unbind", "method",
          guards=("autograd_lib.views:regenerate_grad_fn",))
_register("08.overlap_status", "autograd_lib.ops.inplace", "overlap_status",
          "how a write's destination and an operand share memory: full, partial, no or too hard, "
          "from addresses, strides and sizes", guards=("autograd_lib.ops.inplace:_dense_bytes",))
_register("09.named_members", "autograd_lib.nn.module:Module", "_named_members",
          "Module._named_members: the (name, tensor) pairs of a module tree, as PyTorch's", "method")
_register("09.clear_grads", "autograd_lib.nn.module", "clear_grads",
          "what zero_grad does to every .grad, as PyTorch's")
_register("09.sgd_update", "autograd_lib.optim.sgd", "sgd_update",
          "one step of PyTorch's SGD for one parameter, every option")
_register("09.adam_update", "autograd_lib.optim.adam", "adam_update",
          "one Adam step for one parameter: the two moments, bias correction, AMSGrad, "
          "weight decay (L2 or decoupled), in place")
_register("09.clip_grad_norm", "autograd_lib.nn.utils", "_clip_grad_norm",
          "clip_grad_norm_: PyTorch's total norm and clipped gradients",
          guards=("autograd_lib.nn.utils:_total_norm", "autograd_lib.nn.utils:_scale_grads"))
_register("09.plateau_step", "autograd_lib.optim.lr_scheduler_base", "plateau_step",
          "ReduceLROnPlateau.step's decision: best, the counters and the groups' rates, as PyTorch's",
          guards=tuple(f"autograd_lib.optim.lr_scheduler_base:{name}" for name in ("_is_better", "_reduce_lr")))
_register("09.accumulate_gradients", "autograd_lib.optim", "accumulate_gradients",
          "a large batch's gradient and mean loss from its micro-batches")
_register("09.train_epoch", "autograd_lib.optim", "train_epoch",
          "one epoch of training; the mean loss per sample")
_register("09.evaluate", "autograd_lib.optim", "evaluate",
          "a classifier's mean loss per sample and accuracy, without training it")
_register("03.numerical_grad", "autograd_lib.autograd.gradcheck", "numerical_grad",
          "central finite differences of a scalar function")
_register("05.analytic_jacobian", "autograd_lib.autograd.gradcheck", "analytic_jacobian",
          "gradcheck's analytic side: the Jacobians from backward, a vector-Jacobian product per "
          "output element")


_ORIGINALS = {}     # exercise id -> the library's own implementation, taken before the first plug


def _originals():
    if not _ORIGINALS:
        _ORIGINALS.update((eid, slot.get()) for eid, slot in SLOTS.items())
    return _ORIGINALS


def reference(exercise_id):
    """The library's own implementation of an exercise (as it was before anything was plugged)."""
    _slot(exercise_id)
    return _originals()[exercise_id]


def _slot(exercise_id):
    try:
        return SLOTS[exercise_id]
    except KeyError:
        raise KeyError(f"no exercise {exercise_id!r}; known: {', '.join(sorted(SLOTS))}") from None


def plug(exercise_id, fn):
    """Make the library use ``fn`` for this exercise from now on.

    Returns None, so a notebook cell ending with ``exercises.plug(...)`` shows nothing."""
    slot = _slot(exercise_id)
    if not callable(fn) and not (isinstance(fn, dict) and slot.kind == "rule"):
        raise TypeError(f"plug({exercise_id!r}, fn) needs a function, got {type(fn).__name__}")
    if fn is not _originals()[exercise_id]:   # (remembers the references before replacing one)
        fn = _traced(exercise_id, fn)
    slot.set(fn)


_CALLS = {}         # exercise ids whose plugged function ran since forget_calls(), in order


def recent_calls():
    """The exercises whose plugged function ran since :func:`forget_calls`, last last."""
    return list(_CALLS)


def forget_calls():
    _CALLS.clear()


def _traced(exercise_id, fn):
    """``fn``, noting each call in :func:`recent_calls` and marking what it raises with the
    exercise id (``error._raised_in_exercise``); what it returns or raises is unchanged."""
    if not isinstance(fn, types.FunctionType) or getattr(fn, "_plugged_as", None) == exercise_id:
        return fn

    @functools.wraps(fn)
    def plugged_function(*args, **kwargs):
        _CALLS.pop(exercise_id, None)
        _CALLS[exercise_id] = True
        try:
            return fn(*args, **kwargs)
        except Exception as error:
            if getattr(error, "_raised_in_exercise", None) is None:
                try:
                    error._raised_in_exercise = exercise_id
                except AttributeError:           # an exception type without a __dict__
                    pass
            raise
    plugged_function._plugged_as = exercise_id
    return plugged_function


def unplug(exercise_id):
    """Put the reference implementation back."""
    SLOTS[exercise_id].set(reference(exercise_id))


def unplug_all():
    for exercise_id in SLOTS:
        unplug(exercise_id)


@contextlib.contextmanager
def plugged(exercise_id, fn):
    """Use ``fn`` for this exercise inside the ``with`` block only."""
    previous = SLOTS[exercise_id].get()
    plug(exercise_id, fn)
    try:
        yield fn
    finally:
        SLOTS[exercise_id].set(previous)


def exercises_of(assignment):
    """The exercise ids of one assignment ("01", "02", ...)."""
    return sorted(eid for eid, slot in SLOTS.items() if slot.assignment == assignment)
