"""The backward pass: walk the graph from the outputs to the leaves.

``run_backward`` is the whole engine, and its loop fits on one screen:

1. **Count dependencies.**  Walk the graph once from the roots (iteratively,
   so a million-node chain needs no recursion) and count, for every node,
   how many edges point into it (:func:`count_dependencies`).
2. **Execute in topological order** (:func:`execute`, the loop).  A node may
   run only when every gradient flowing into it has arrived, i.e. its count has
   dropped to zero.  Among ready nodes the newest runs first (PyTorch's order,
   ties such as leaves included).  Running a node
   applies its rule from ``derivatives.py`` (vector-Jacobian products: the
   Jacobian itself is never formed); each input gradient is checked against
   its input (:func:`validate_outputs`) and added into the next node's buffer.
3. **Deliver.**  ``AccumulateGrad`` nodes add into the leaves' ``.grad``;
   for ``autograd.grad`` the gradients are captured and returned instead.

After a node has run, its saved tensors are released unless
``retain_graph=True``: that is what makes a second backward fail.

With ``inputs=`` (``autograd.grad``, ``backward(inputs=...)``) only the part of
the graph that the requested gradients need runs, as in PyTorch: hooks, retained
gradients and ``.grad`` of everything else are left alone (:func:`_nodes_to_run`).

The extras live in named helpers below the loop: that pruning, the capture for
``autograd.grad`` (:func:`_capture`), tensor hooks and ``retain_grad``
(:func:`call_tensor_hooks`), node hooks (:func:`_run_node`).
"""

import heapq
import threading

from . import broadcasting
from .grad_mode import set_grad_enabled
from .graph import AccumulateGrad

__all__ = ["run_backward", "execute", "count_dependencies", "validate_outputs", "call_tensor_hooks",
           "store_retained_grad", "nodes_to_run", "current_pass", "queue_callback"]


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=(), accumulate=True):
    """Back-propagate ``root_grads`` from the ``roots`` (tensors) through the graph.

    ``accumulate=True`` (``Tensor.backward``) adds into ``.grad`` of the leaves,
    or of ``inputs`` only when given.  ``accumulate=False`` (``autograd.grad``)
    returns the gradients of ``inputs`` (None where unreachable) instead.
    """
    root_edges = [t._gradient_edge() for t in roots]
    # As PyTorch's engine validates the root gradients: each takes its root's dtype
    # (an integer or float64 gradient for a float32 output is cast, not refused).
    root_grads = [g if g.dtype is t.dtype else g.to(t.dtype) for t, g in zip(roots, root_grads)]
    targets = _targets(inputs)          # {(node, output_nr): positions in inputs}
    captured = [None] * len(inputs)

    # 1. Dependencies: how many edges point into each reachable node.
    dependencies = count_dependencies([node for node, _ in root_edges])
    # With inputs=, only what their gradients need (None: everything): the loop visits
    # only the nodes it has a count for.
    needed, reached = _nodes_to_run(dependencies, root_edges, targets, accumulate)
    if reached is not None:
        dependencies = {node: count for node, count in dependencies.items() if node in reached}
        kept = [(edge, grad) for edge, grad in zip(root_edges, root_grads) if edge[0] in reached]
        root_edges, root_grads = [edge for edge, _ in kept], [grad for _, grad in kept]

    def run_node(node, grads):
        """Run one node on the gradients that reached it (None: nothing did); return its
        input gradients, one per edge of ``next_functions``."""
        if needed is not None and node not in needed:   # reached only to capture a gradient
            _capture(targets, captured, node, call_tensor_hooks(node, grads))
            return [None] * len(node.next_functions)
        if targets:
            _capture(targets, captured, node, grads)    # as PyTorch: before the node's hooks
        if grads is None:                               # nothing flowed in: nothing to do
            return [None] * len(node.next_functions)
        grad_inputs = _run_node(node, grads)
        if not retain_graph:
            node.release_saved()
        return grad_inputs

    # 2. Execute, in topological order; then the callbacks queued meanwhile.
    this_pass = _Pass(bool(inputs), dependencies, [node for node, _ in root_edges])
    _passes.__dict__.setdefault("stack", []).append(this_pass)
    try:
        with set_grad_enabled(create_graph):
            execute(root_edges, root_grads, dependencies, run_node)
            while this_pass.callbacks:                 # a callback may queue another
                this_pass.callbacks.pop(0)()
    finally:
        _passes.stack.pop()

    # 3. Deliver: AccumulateGrad nodes have filled the leaves' .grad (the non-leaf
    # inputs of backward(inputs=...) retain their grad: see autograd.backward);
    # for autograd.grad the captured gradients are the result.
    return captured


_passes = threading.local()            # .stack: the backward passes running in this thread


class _Pass:
    """One running backward pass (PyTorch's graph task): whether it was given ``inputs=``,
    the nodes it visits, and the callbacks to run when it ends."""
    __slots__ = ("with_inputs", "dependencies", "roots", "callbacks")

    def __init__(self, with_inputs, dependencies, roots):
        self.with_inputs, self.dependencies, self.roots, self.callbacks = with_inputs, dependencies, roots, []

    def will_run(self, node):
        """Whether this pass visits ``node`` (PyTorch's ``_will_engine_execute_node``)."""
        return node in self.dependencies or node in self.roots


def current_pass():
    """The innermost backward pass running in this thread, or None."""
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
        slots = buffers.setdefault(node, [None] * node.num_outputs)
        slots[nr] = grad if slots[nr] is None else slots[nr] + grad

    for (node, nr), grad in zip(root_edges, root_grads):
        arrive(node, nr, grad)
    ready = []                          # pushed one by one, as PyTorch's GraphRoot pushes its edges
    for node in dict.fromkeys(node for node, _ in root_edges):
        if dependencies.get(node, 0) == 0:
            heapq.heappush(ready, _Ready(node))
    while ready:
        node = heapq.heappop(ready).node
        grad_inputs = run_node(node, buffers.pop(node, None))
        for (next_node, nr), grad in zip(node.next_functions, grad_inputs):
            if next_node not in dependencies:           # no node (None), or one not visited
                continue
            if grad is not None:
                arrive(next_node, nr, grad)
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:
                heapq.heappush(ready, _Ready(next_node))


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


def _run_node(node, grads):
    """Run one node: its tensor hooks and ``retain_grad``, its pre-hooks, its rule (or, for
    ``AccumulateGrad``, the addition into ``.grad``), its post-hooks; check its input gradients."""
    if node._pre_hooks or node._retains_grad:
        grads = call_tensor_hooks(node, grads)
    if node._node_prehooks:
        for hook in list(node._node_prehooks.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(result)
    if isinstance(node, AccumulateGrad):
        node.apply(grads)           # it runs only when its leaf's .grad is wanted
        return []
    if node.num_outputs > 1:
        grads = node.materialize_grads(grads)
    grad_inputs = list(node.apply(grads))
    if node._hooks:
        for hook in list(node._hooks.values()):
            hook(tuple(grad_inputs), tuple(grads))
    grad_inputs = validate_outputs(node, grad_inputs)
    for check in NODE_CHECKS:       # empty unless anomaly mode was ever turned on
        check(node, grad_inputs)
    return grad_inputs


# Checks run on every node's gradients, for debugging modes that live above the engine
# (autograd.anomaly_mode adds its NaN check here the first time it is turned on).
NODE_CHECKS = []


def validate_outputs(node, grad_inputs):
    """Bring each input gradient to its input's shape and dtype (as PyTorch's
    ``validate_outputs``): broadcasting in the forward pass becomes a sum here.

    (Exercise 05.validate_outputs: the engine runs it after every node.)"""
    out = []
    for i, (grad, (next_node, _), meta) in enumerate(zip(grad_inputs, node.next_functions,
                                                         node._input_meta)):
        if grad is not None and next_node is not None:
            shape, dtype = meta
            if grad._data.shape != shape:
                if not broadcasting.is_expandable_to(shape, grad._data.shape):
                    raise RuntimeError(
                        f"Function {node.name()} returned an invalid gradient at index {i} - got "
                        f"{list(grad.shape)} but expected shape compatible with {list(shape)}")
                grad = broadcasting.sum_to(grad, shape)
            if grad._data.dtype is not dtype and grad._data.dtype != dtype:   # `is`: cheap, usual
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
    outputs that received a gradient, in the order they were registered, each given what
    the previous one left and free to return a replacement (None keeps it); then
    ``retain_grad`` stores the result (it always comes last, so it sees the hooks' work).
    ``grads`` may be None (nothing arrived): then there is nothing to do.  Returns the
    gradients that flow on.  (Exercise 04.call_tensor_hooks.)"""
    if grads is None:
        return None
    if node._pre_hooks:
        grads = list(grads)
        for nr, hooks in node._pre_hooks.items():
            for hook in list(hooks.values()):
                if grads[nr] is None:
                    continue
                result = hook(grads[nr])
                if result is not None:
                    grads[nr] = result
    if node._retains_grad:
        for nr, ref in list(node._retains_grad.items()):
            t = ref()
            if t is not None and grads[nr] is not None and t._grad_fn is node:
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
