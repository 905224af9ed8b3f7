"""The backward pass: walk the graph from the outputs to the leaves.

The engine is four functions, and a student of assignment 03 writes each of them, so the
whole backward pass reads on one screen:

1. :func:`run_backward`, the driver: the starting gradients (:func:`initial_gradients`),
   where they enter the graph, how many edges point into each node
   (:func:`count_dependencies`, iterative, so a million-node chain needs no recursion),
   then the loop, in the grad mode the pass asked for.
2. :func:`execute`, the loop: a node runs when every gradient flowing into it has arrived
   (its count dropped to zero); among ready nodes the newest runs first (PyTorch's order,
   ties such as leaves included); what a node returns is summed into the buffers of the
   nodes its edges point to.
3. :func:`run_node`, one node: the hooks of its output tensors and ``retain_grad``
   (:func:`call_tensor_hooks`, assignment 04), its pre-hooks, its rule from
   ``derivatives/`` (vector-Jacobian products: a Jacobian is never formed), each input
   gradient fitted to its input (:func:`validate_outputs`, 05), its post-hooks (a hook may
   return replacement gradients, :func:`hook_result`), and freeing what it saved unless
   the graph is retained (``release_saved``, 06).

What one pass was asked for lives in its :class:`GraphTask` (PyTorch's name): the grad
modes, and with ``inputs=`` (``autograd.grad``, ``backward(inputs=...)``) which part of
the graph runs and the gradients captured on the way (:meth:`GraphTask.start`,
:meth:`GraphTask.runs`, assignment 04).  :func:`backward_pass` makes the task, runs the
driver, then the callbacks queued meanwhile.  ``AccumulateGrad`` nodes add into the
leaves' ``.grad``; for ``autograd.grad`` the captured gradients are the result.
"""

from heapq import heappop, heappush
import threading
import warnings

from . import broadcasting
from .creation import ones_like
from .grad_mode import set_grad_enabled
from .tensor import Tensor

__all__ = ["backward_pass", "GraphTask", "run_backward", "run_node", "hook_result", "initial_gradients", "execute",
           "count_dependencies", "validate_outputs", "call_tensor_hooks", "store_retained_grad",
           "nodes_to_run", "current_pass", "queue_callback"]


def backward_pass(roots, grad_outputs, retain_graph, create_graph, inputs=(), accumulate=True):
    """Back-propagate from the ``roots`` (tensors), starting from ``grad_outputs`` (a tensor
    or None per root), through the graph: what ``backward()`` and ``autograd.grad()`` call.

    ``accumulate=True`` (``Tensor.backward``) adds into ``.grad`` of the leaves, or of
    ``inputs`` only when given.  ``accumulate=False`` (``autograd.grad``) returns the
    gradients of ``inputs`` (None where unreachable) instead.
    """
    task = GraphTask(retain_graph, create_graph, inputs, accumulate)
    _passes.__dict__.setdefault("stack", []).append(task)
    try:
        try:
            run_backward(task, list(roots), list(grad_outputs))
        except Exception as error:
            for report in PASS_FAILURES:       # empty unless anomaly mode was ever turned on
                report(error)
            raise
        with set_grad_enabled(create_graph):
            while task.callbacks:                     # a callback may queue another
                task.callbacks.pop(0)()
    finally:
        _passes.stack.pop()
    return task.captured


def run_backward(task, roots, grad_outputs):
    """The driver of one backward pass: from the roots' starting gradients to every node
    run, in the grad mode the pass asked for.  Returns None.  (Exercise 03.run_backward.)"""
    root_grads = initial_gradients(roots, grad_outputs)
    root_edges = []
    for i, root in enumerate(roots):
        if not root.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        root_edges.append(root._gradient_edge())
    # Each starting gradient takes its root's dtype, as PyTorch's engine casts it
    # (an integer or float64 gradient for a float32 output is cast, not refused).
    root_grads = [g if g.dtype is root.dtype else g.to(root.dtype) for root, g in zip(roots, root_grads)]
    dependencies = count_dependencies([node for node, _ in root_edges])
    root_edges, root_grads, dependencies = task.start(root_edges, root_grads, dependencies)
    with set_grad_enabled(task.create_graph):
        execute(root_edges, root_grads, dependencies, lambda node, grads: run_node(task, node, grads))


def run_node(task, node, grads):
    """Run one node on the gradients summed at its outputs (None: none arrived) and return
    its input gradients, one per edge of ``node.next_functions`` (None where nothing
    flows).  A node that no gradient reached still runs, as in PyTorch, on a None per
    output: its hooks see the Nones, and its rule decides (a built-in node's gives None
    along every edge, a custom Function's backward is called).  (Exercise 03.run_node.)"""
    if grads is None:
        grads = [None] * node.num_outputs
    if not task.runs(node, grads):
        return [None] * len(node.next_functions)
    grads = call_tensor_hooks(node, grads)
    if node._node_prehooks:
        for hook in list(node._node_prehooks.values()):
            grads = hook_result(hook, hook(tuple(grads)), grads)
    grad_inputs = validate_outputs(node, list(node.apply(grads)))
    if node._hooks:
        for hook in list(node._hooks.values()):
            grad_inputs = hook_result(hook, hook(tuple(grad_inputs), tuple(grads)), grad_inputs)
    if not task.retain_graph:
        node.release_saved()
    for check in NODE_CHECKS:           # empty unless anomaly mode was ever turned on
        check(node, grad_inputs)
    return grad_inputs


def hook_result(hook, returned, grads):
    """The gradients to go on with after a node's pre-hook or post-hook returned
    ``returned``: ``grads`` for None, else the replacement, checked as PyTorch checks it
    (a tuple, one entry per gradient of ``grads``, None wherever ``grads`` has None)."""
    if returned is None:
        return grads
    if not isinstance(returned, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(returned).__name__}'")
    if len(returned) != len(grads):
        name = getattr(hook, "__name__", type(hook).__name__)
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(returned)}, "
                           f"but expected {len(grads)})")
    if any(old is None and new is not None for old, new in zip(grads, returned)):
        raise RuntimeError("can't replace a None gradient with a non-None value")
    return list(returned)


# Checks run on every node's gradients, for debugging modes that live above the engine
# (autograd.anomaly_mode adds its NaN check here the first time it is turned on).
NODE_CHECKS = []

# Told of an error that stops a pass, before it goes on to the caller (autograd.anomaly_mode
# adds its warning naming the failing node here the first time it is turned on).
PASS_FAILURES = []


def initial_gradients(outputs, grad_outputs):
    """The gradients backward starts from, one per output: the given tensor (checked
    against the output's shape), or an implicit 1 for a single-element output.

    (Exercise 03.initial_gradients.)"""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            # Only an output that requires grad is checked here: for any other, the driver
            # then says that it "does not require grad".
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ones_like(out))
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        # PyTorch refuses only a complex/real mismatch (autograd_lib has no complex dtype):
        # any other dtype is fine, the driver casts it to the output's.
        grads.append(g)
    return grads


# Warnings PyTorch gives once per process.
_warned = {"create_graph cycle": False}


class GraphTask:
    """One running backward pass (PyTorch's graph task): what it was asked for (grad modes,
    ``inputs=``), which nodes it visits, the gradients it captured for ``autograd.grad``,
    and the callbacks to run when it ends."""
    __slots__ = ("retain_graph", "create_graph", "inputs", "accumulate", "captured", "callbacks",
                 "dependencies", "roots", "_targets", "_needed")

    def __init__(self, retain_graph, create_graph, inputs=(), accumulate=True):
        self.retain_graph, self.create_graph = bool(retain_graph), bool(create_graph)
        self.inputs, self.accumulate = tuple(inputs), accumulate
        self.captured = [None] * len(self.inputs)
        self.callbacks, self.dependencies, self.roots = [], {}, []
        self._targets, self._needed = {}, None

    @property
    def with_inputs(self):
        return bool(self.inputs)

    def start(self, root_edges, root_grads, dependencies):
        """The pass begins: given where the starting gradients enter and the counts, returns
        ``(root_edges, root_grads, dependencies)`` for the loop.  Without ``inputs=`` they
        come back as they are; with it, only what the wanted gradients need (assignment 04:
        the nodes that lead to an input, :func:`nodes_to_run`)."""
        if not self.accumulate:
            for t in self.inputs:                          # (a GradientEdge has no requires_grad)
                if not getattr(t, "requires_grad", True):
                    raise RuntimeError("One of the differentiated Tensors does not require grad")
        else:
            # As PyTorch's engine, once the roots are checked: every input is retained (a
            # non-leaf input gets its .grad this way), which refuses one that does not
            # require grad before anything runs.
            for t in self.inputs:
                t.retain_grad()
        if self.accumulate and self.create_graph and not _warned["create_graph cycle"]:
            _warned["create_graph cycle"] = True        # once per process, as PyTorch's TORCH_WARN_ONCE
            warnings.warn(
                "Using backward() with create_graph=True will create a reference cycle between the "
                "parameter and its gradient which can cause a memory leak. We recommend using "
                "autograd.grad when creating the graph to avoid this. If you have to use this function, "
                "make sure to reset the .grad fields of your parameters to None after use to break the "
                "cycle and avoid the leak.", UserWarning, stacklevel=5)
        self._targets = _targets(self.inputs)
        self._needed, reached = _nodes_to_run(dependencies, root_edges, self._targets, self.accumulate)
        if reached is not None:
            dependencies = {node: count for node, count in dependencies.items() if node in reached}
            kept = [(edge, grad) for edge, grad in zip(root_edges, root_grads) if edge[0] in reached]
            root_edges, root_grads = [edge for edge, _ in kept], [grad for _, grad in kept]
        self.dependencies, self.roots = dependencies, [node for node, _ in root_edges]
        return root_edges, root_grads, dependencies

    def runs(self, node, grads):
        """Whether ``node`` runs in this pass.  On the way it keeps, for ``autograd.grad``,
        the gradients that reached an input's edge (assignment 04): a node visited only for
        that calls its tensor hooks first, and does not run.  ``grads`` None (nothing
        arrived) is a None per output, as for :func:`run_node`."""
        if grads is None:
            grads = [None for _ in range(node.num_outputs)]
        if self._needed is not None and node not in self._needed:
            _capture(self._targets, self.captured, node, call_tensor_hooks(node, grads))
            return False
        if self._targets:
            _capture(self._targets, self.captured, node, grads)    # as PyTorch: before the hooks
        return True

    def will_run(self, node):
        """Whether this pass visits ``node`` (PyTorch's ``_will_engine_execute_node``)."""
        return node in self.dependencies or node in self.roots


_passes = threading.local()            # .stack: the backward passes running in this thread


def current_pass():
    """The innermost backward pass running in this thread (a :class:`GraphTask`), or None."""
    stack = getattr(_passes, "stack", None)
    return stack[-1] if stack else None


def running_with_inputs():
    """Whether the innermost backward pass running in this thread was given ``inputs=``
    (``autograd.grad``, ``backward(inputs=...)``); a node that starts a backward pass of its
    own (a reentrant checkpoint) asks, as PyTorch's node asks its graph task."""
    running = current_pass()
    return running is not None and running.with_inputs


def queue_callback(callback):
    """Run ``callback()`` when the running backward pass has run its last node
    (``Variable._execution_engine.queue_callback``)."""
    running = current_pass()
    if running is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    running.callbacks.append(callback)


def execute(root_edges, root_grads, dependencies, run_node):
    """The loop of the backward pass: run every node once, as soon as all the gradients
    flowing into it have arrived.

    ``root_edges[i]`` is where ``root_grads[i]`` enters the graph, a ``(node, output_nr)``
    pair.  ``dependencies`` maps every node the loop may visit (besides the roots) to the
    number of edges pointing into it; it is used up.  ``run_node(node, grads)`` runs one
    node on the list of gradients summed at its outputs (None if none arrived) and returns
    its input gradients, one per edge of ``node.next_functions`` (None where nothing flows).
    Among ready nodes the newest (highest ``_sequence_nr``) runs first, as in PyTorch; a
    heap that compares the numbers alone leaves ties (every ``AccumulateGrad``) in
    PyTorch's order too (:class:`_Ready`).

    (Exercise 03.execute.)"""
    buffers = {}                        # node -> [the gradient summed so far at each output]

    def arrive(node, nr, grad):
        slots = buffers.get(node)
        if slots is None:
            slots = buffers[node] = [None] * node.num_outputs
        slots[nr] = grad if slots[nr] is None else slots[nr] + grad

    for (node, nr), grad in zip(root_edges, root_grads):
        arrive(node, nr, grad)
    ready = []                          # pushed one by one, as PyTorch's GraphRoot pushes its edges
    for node in dict.fromkeys(node for node, _ in root_edges):
        if dependencies.get(node, 0) == 0:
            heappush(ready, _Ready(node))
    while ready:
        node = heappop(ready).node
        grad_inputs = run_node(node, buffers.pop(node, None))
        for (next_node, nr), grad in zip(node.next_functions, grad_inputs):
            if next_node not in dependencies:           # no node (None), or one not visited
                continue
            if grad is not None:
                arrive(next_node, nr, grad)
            waiting = dependencies[next_node] - 1
            dependencies[next_node] = waiting
            if waiting == 0:
                heappush(ready, _Ready(next_node))


class _Ready:
    """An entry of the ready queue.  It compares by its node's sequence number alone, newest
    first: equal numbers (every ``AccumulateGrad``) stay in the order the heap leaves them,
    which is the order of PyTorch's C++ priority queue (``heapq`` and ``std::priority_queue``
    sift the same way)."""
    __slots__ = ("key", "node")

    def __init__(self, node):
        self.key, self.node = -node._sequence_nr, node

    def __lt__(self, other):
        return self.key < other.key


def count_dependencies(roots):
    """For every node reachable from the ``roots`` (nodes), the number of edges
    pointing into it: how many gradients it must receive before it can run.

    Walks the graph with an explicit stack rather than recursion, so a graph
    a million nodes deep is no problem.  (Exercise 03.count_dependencies.)"""
    dependencies = {}
    seen = set(roots)
    stack = list(seen)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def validate_outputs(node, grad_inputs):
    """Bring each input gradient to its input's shape and dtype (as PyTorch's
    ``validate_outputs``): broadcasting in the forward pass becomes a sum here.

    (Exercise 05.validate_outputs: the engine runs it after every node.)"""
    out = []
    for grad, (next_node, _), meta in zip(grad_inputs, node.next_functions, node._input_meta):
        if grad is not None and next_node is not None:
            shape, dtype = meta
            data = grad._data
            if data.shape != shape:
                if not broadcasting.is_expandable_to(shape, data.shape):
                    raise RuntimeError(
                        f"Function {node.name()} returned an invalid gradient at index {len(out)} - got "
                        f"{list(grad.shape)} but expected shape compatible with {list(shape)}")
                grad = broadcasting.sum_to(grad, shape)
                data = grad._data
            if data.dtype is not dtype and data.dtype != dtype:   # `is`: cheap, usual
                grad = grad.to(dtype)
        out.append(grad)
    return out


def _targets(inputs):
    """Where ``autograd.grad`` and ``backward(inputs=...)`` deliver: for the edge of each
    input, its positions in ``inputs`` (a tensor may be listed twice)."""
    targets = {}
    for i, t in enumerate(inputs):
        targets.setdefault(t._gradient_edge(), []).append(i)
    return targets


def _capture(targets, captured, node, grads):
    """Keep the gradients arriving at a target edge, summed, for ``autograd.grad``."""
    if grads is None:
        return
    for nr, grad in enumerate(grads):
        for i in targets.get((node, nr), ()):
            captured[i] = grad if captured[i] is None else captured[i] + grad


def call_tensor_hooks(node, grads):
    """Just before ``node`` runs: the tensor hooks (``t.register_hook``) of each of its
    outputs, in the order they were registered, each given what the previous one left and
    free to return a replacement (None keeps it); an output that received no gradient has
    its hooks called with None, which they cannot replace (as PyTorch); then
    ``retain_grad`` stores the result (it always comes last, so it sees the hooks' work;
    an output still without a gradient keeps its ``.grad`` None).  ``grads`` has one entry
    per output, even when no gradient reached the node at all (all None: each hook is
    called with None).  Returns the gradients that flow on.  (Exercise 04.call_tensor_hooks.)"""
    if node._pre_hooks:
        grads = list(grads)
        for nr, hooks in node._pre_hooks.items():
            for hook in list(hooks.values()):
                result = hook(grads[nr])
                if result is not None:
                    grads[nr] = result
    if node._retains_grad:
        for nr, ref in list(node._retains_grad.items()):
            t = ref()
            if t is not None and grads[nr] is not None:
                store_retained_grad(t, grads[nr])
    return grads


def store_retained_grad(t, grad):
    """Store a gradient in the ``.grad`` of a non-leaf that called ``retain_grad()``:
    a copy the first time, then summed out of place (never aliasing ``grad``).

    (Exercise 04.store_retained_grad.)"""
    if t._grad is None:
        t._grad = grad.clone() if grad.requires_grad else grad.detach().clone()
    else:
        t._grad = t._grad + grad


def _nodes_to_run(dependencies, root_edges, targets, accumulate):
    """What backward runs when only some gradients are wanted (``inputs=``), as PyTorch.

    Returns ``(needed, reached)``: the nodes that run (those from which a target's node
    can be reached; for ``backward(inputs=...)`` the targets' nodes too, which accumulate
    into ``.grad``), and those the engine visits at all (``needed`` plus, for
    ``autograd.grad``, the targets' nodes, where a gradient is captured after the tensor's
    hooks, without running the node).  Nothing else runs: no hook, no ``retain_grad``,
    no ``AccumulateGrad``.  ``(None, None)`` without targets: everything runs.

    One exception, PyTorch's: a single root's node is where the pass starts (there is no
    ``GraphRoot`` before it), so it is always visited; when not needed, it calls its tensor
    hooks (and ``retain_grad``) and stops."""
    if not targets:
        return None, None
    target_nodes = {node for node, _ in targets}
    needed = set(nodes_to_run(set(dependencies).union(node for node, _ in root_edges), target_nodes))
    if accumulate:
        needed |= target_nodes
    reached = needed | target_nodes
    if len(root_edges) == 1:
        reached.add(root_edges[0][0])
    return needed, reached


def nodes_to_run(nodes, targets):
    """The nodes among ``nodes`` from which a node of ``targets`` can be reached along
    ``next_functions`` (by one edge or more): those whose gradients lead to a target.

    Walks backwards from the targets, through each node's parents (the nodes with an
    edge into it), iteratively: a chain of thousands of nodes needs no recursion.
    (Exercise 04.nodes_to_run.)"""
    parents = {}
    for node in nodes:
        for next_node, _ in node.next_functions:
            if next_node is not None:
                parents.setdefault(next_node, []).append(node)
    needed = set()
    stack = list(targets)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed
