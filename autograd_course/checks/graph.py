"""Visible checks of assignment 02: the computational graph.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  ``edge_name`` and ``edge_names``, which the
notebook's setup cell imports, show edges without memory addresses.
"""

import contextlib
import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version

__all__ = ["edge_name", "edge_names", "gradient_edge", "gradient_edge_in_the_engine",
           "collect_next_functions", "collect_next_functions_in_the_engine", "record_node",
           "record_node_in_the_engine", "graph_nodes", "graph_nodes_in_viz"]


def edge_name(edge):
    """An edge (node, output_nr) as (node class name or None, output_nr): no memory address."""
    node, output_nr = edge
    return (None if node is None else type(node).__name__, output_nr)


def edge_names(edges):
    """Every edge of a node's next_functions, as edge_name does it."""
    return tuple(edge_name(edge) for edge in edges)


def gradient_edge(fn):
    """Your ``gradient_edge`` called directly on each kind of tensor: non-leaves
    (``y = base * 2`` and the second output of ``base.unbind(0)``), a leaf that
    requires grad (called twice), and tensors that need no gradient (a constant, an
    integer tensor, ``w.detach()``).  The edge must be a tuple ``(node, output_nr)``;
    a leaf's ``AccumulateGrad`` is made once and held weakly in ``_accumulator``."""
    # The three cases, one tensor at a time.
    base = ag.randn(2, 3, requires_grad=True)
    with library_version("02"):                          # non-leaves, built with the library's code
        y = base * 2
        first, second = base.unbind(0)
    w = ag.randn(2, 3, requires_grad=True)            # a leaf that no graph uses yet

    with grading.checking("02.gradient_edge", fn):
        edge = fn(y)
        grading.expect_equal(type(edge).__name__, "tuple", what="type(gradient_edge(y))",
                             rule="an edge is a tuple (node, output_nr)")
        grading.expect_equal(len(edge), 2, what="len(gradient_edge(y))",
                             rule="an edge is a tuple (node, output_nr)")
        grading.expect_equal(edge_name(edge), ("MulBackward0", 0), what="gradient_edge(y) for y = w * 2",
                             rule="a non-leaf's gradient enters the graph at its grad_fn")
        grading.expect_true(edge[0] is y.grad_fn, what="`gradient_edge(y)[0] is y.grad_fn`",
                            seen="another node object", rule="a non-leaf's gradient enters the graph at its grad_fn")
        grading.expect_equal(edge_name(fn(second)), ("UnbindBackward0", 1),
                             what="gradient_edge(second) for first, second = base.unbind(0)",
                             rule="a non-leaf's edge is (grad_fn, output_nr): output_nr says which output of its node it is")

        edge = fn(w)
        grading.expect_equal(edge_name(edge), ("AccumulateGrad", 0), what="gradient_edge(w) for a leaf w",
                             rule="a leaf that requires grad enters the graph through an AccumulateGrad node")
        grading.expect_true(edge[0].variable is w, what="`gradient_edge(w)[0].variable is w`",
                            seen="another tensor", rule="an AccumulateGrad's variable is the leaf itself")
        grading.expect_true(fn(w)[0] is edge[0], what="`gradient_edge(w)[0] is gradient_edge(w)[0]` (two calls, same node)",
                            seen="two different AccumulateGrad objects",
                            rule="a leaf's AccumulateGrad is created once and reused while it is alive")
        grading.expect_equal(type(w._accumulator).__name__, "ReferenceType", what="type(w._accumulator)",
                             rule="the tensor holds its AccumulateGrad only weakly: tensor._accumulator = weakref.ref(node)")
        grading.expect_true(w._accumulator() is edge[0], what="`w._accumulator() is gradient_edge(w)[0]`",
                            seen="another object",
                            rule="the tensor holds its AccumulateGrad only weakly: tensor._accumulator = weakref.ref(node)")

        for name, t in [("a constant ag.randn(3)", ag.randn(3)), ("an integer tensor", ag.arange(3)),
                        ("w.detach()", w.detach())]:
            edge = fn(t)
            grading.expect_equal(edge_name(edge), (None, 0), what=f"gradient_edge of {name}",
                                 rule="a tensor that does not require grad has no edge: (None, 0)")
            grading.expect_true(t._accumulator is None, what=f"`t._accumulator is None` for t = {name}", seen=repr(t._accumulator),
                                rule="a tensor that does not require grad has no edge: (None, 0), and no AccumulateGrad is made")


def gradient_edge_in_the_engine(fn):
    """Your edges inside the engine: a weight ``w`` used twice (``w * 2`` and
    ``w.exp()``) must share one ``AccumulateGrad`` and get both gradients; once its
    graph is gone the old node must die (it is held weakly) and a new graph must get
    a new node; ``backward(inputs=[v])`` must work with your edges (they are dict keys)."""
    # Your edges inside the engine: a weight used twice, backward, and the node's lifetime.
    with grading.checking("02.gradient_edge", fn):
        w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = w * 2
        b = w.exp()
        acc_a, acc_b = a.grad_fn.next_functions[0][0], b.grad_fn.next_functions[0][0]
        grading.expect_equal(type(acc_a).__name__, "AccumulateGrad", what="type of (w * 2).grad_fn.next_functions[0][0]",
                             rule="a leaf that requires grad enters the graph through an AccumulateGrad node")
        grading.expect_true(acc_a is acc_b,
                            what="`a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]` (a = w * 2, b = w.exp())",
                            seen="two different AccumulateGrad objects",
                            rule="a leaf's AccumulateGrad is created once and reused while it is alive")
        grading.expect_true(acc_a.variable is w, what="`a.grad_fn.next_functions[0][0].variable is w`", seen="another tensor",
                            rule="an AccumulateGrad's variable is the leaf itself")

        (a.sum() + b.sum()).backward()
        grading.expect_close(w.grad, 2 + np.exp([0.5, -1.0, 2.0]), what="w.grad after (a.sum() + b.sum()).backward()",
                             rule="the gradients of both uses of w reach w.grad")

        probe = weakref.ref(acc_a)
        del a, b, acc_a, acc_b
        gc.collect()
        grading.expect_true(probe() is None, what="`probe() is None`: the old AccumulateGrad, once its graph is gone (probe is a weakref to it)",
                            seen="it is still alive",
                            rule="the tensor holds its AccumulateGrad only weakly (a strong reference makes a cycle tensor -> node -> tensor)")

        w.grad = None
        c = (w * 3).sum()                              # a new graph: w's old node is dead
        node = c.grad_fn.next_functions[0][0].next_functions[0][0]
        grading.expect_equal(type(node).__name__, "AccumulateGrad", what="w's node in a graph built after the old one died",
                             rule="when the weak reference is dead (it returns None), make a new AccumulateGrad")
        c.backward()
        grading.expect_close(w.grad, [3.0, 3.0, 3.0], what="w.grad after (w * 3).sum().backward()",
                             rule="when the weak reference is dead (it returns None), make a new AccumulateGrad")

        v = ag.tensor([1.0, 2.0], requires_grad=True)
        u = ag.tensor([3.0, 4.0], requires_grad=True)
        try:
            (v * u).sum().backward(inputs=[v])         # backward looks the edges of `inputs` up in a dict
        except Exception as error:                     # report a crash as a broken rule
            grading.expect_equal(f"{type(error).__name__}: {error}", "no error",
                                 what="(v * u).sum().backward(inputs=[v])",
                                 rule="an edge is a tuple (node, output_nr): backward uses edges as dict keys")
        grading.expect_close(v.grad, [3.0, 4.0], what="v.grad after (v * u).sum().backward(inputs=[v])",
                             rule="an edge is a tuple (node, output_nr)")
        grading.expect_true(u.grad is None, what="`u.grad is None` after backward(inputs=[v])", seen=repr(u.grad),
                            rule="backward(inputs=[v]) accumulates into v only")


def collect_next_functions(fn):
    """Your ``collect_next_functions`` called directly: two leaves, constants and
    integer tensors in either place, non-leaves (``x * 2``, ``unbind`` outputs),
    ``None``, the same tensor twice, and no input at all.  It must return a tuple
    with one edge per input, in input order, ``(None, 0)`` for an input that needs
    no gradient."""
    # One edge per input, in order, called directly.
    x = ag.randn(3, requires_grad=True)
    y = ag.randn(3, requires_grad=True)
    c = ag.randn(3)
    with library_version("02"):                          # non-leaves, built with the library's code
        h = x * 2
        first, second = ag.randn(2, 3, requires_grad=True).unbind(0)
        x_edge, y_edge = x._gradient_edge(), y._gradient_edge()

    with grading.checking("02.collect_next_functions", fn):
        edges = fn(x, y)
        grading.expect_equal(type(edges).__name__, "tuple", what="type(collect_next_functions(x, y))",
                             rule="next_functions is a tuple")
        grading.expect_equal(edge_names(edges), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                             what="collect_next_functions(x, y) for two leaves that require grad",
                             rule="a leaf that requires grad is reached through its AccumulateGrad node (its gradient edge)")
        grading.expect_true(edges[0][0] is x_edge[0] and edges[1][0] is y_edge[0],
                            what="the nodes of collect_next_functions(x, y): x's node first, then y's",
                            seen="the nodes in another order, or other nodes",
                            rule="edge i belongs to input i: edges follow the input order")

        for label, args, expected in [("(x, c)", (x, c), (("AccumulateGrad", 0), (None, 0))),
                                      ("(c, x)", (c, x), ((None, 0), ("AccumulateGrad", 0))),
                                      ("(c,)", (c,), ((None, 0),)),
                                      ("(i, x)", (ag.arange(3), x), ((None, 0), ("AccumulateGrad", 0)))]:
            grading.expect_equal(edge_names(fn(*args)), expected,
                                 what=f"collect_next_functions{label} (c: a float constant, i: an integer tensor)",
                                 rule="one edge per input, in input order: (None, 0) for an input that needs no gradient")

        edges = fn(h, c)
        grading.expect_equal(edge_names(edges), (("MulBackward0", 0), (None, 0)),
                             what="collect_next_functions(h, c) for h = x * 2",
                             rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")
        grading.expect_true(edges[0][0] is h.grad_fn, what="`collect_next_functions(h, c)[0][0] is h.grad_fn`",
                            seen="another node", rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")
        grading.expect_equal(edge_names(fn(second, first)),
                             (("UnbindBackward0", 1), ("UnbindBackward0", 0)),
                             what="collect_next_functions(second, first) for first, second = t.unbind(0)",
                             rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")

        try:
            edges = edge_names(fn(x, None, y))
        except Exception as error:                    # report a crash on None as a broken rule
            edges = f"{type(error).__name__}: {error}"
        grading.expect_equal(edges, (("AccumulateGrad", 0), (None, 0), ("AccumulateGrad", 0)),
                             what="collect_next_functions(x, None, y)",
                             rule="an absent optional input (None) gets the edge (None, 0)")

        edges = fn(x, x)
        grading.expect_equal(len(edges), 2, what="len(collect_next_functions(x, x))",
                             rule="one edge per input, even when the same tensor is passed twice")
        grading.expect_true(edges[0][0] is x_edge[0] and edges[1][0] is x_edge[0],
                            what="the nodes of collect_next_functions(x, x): x's AccumulateGrad, twice",
                            seen=repr(edge_names(edges)), rule="one edge per input, even when the same tensor is passed twice")
        grading.expect_equal(fn(), (), what="collect_next_functions() with no input",
                             rule="next_functions is a tuple")


def collect_next_functions_in_the_engine(fn):
    """Graphs built with your function: the ``next_functions`` of ``x * y``, ``2 * x``,
    ``where``, ``addmm``, ``clamp`` with an absent bound and a non-leaf input, then
    the gradients that ``backward`` finds by following your edges (``x @ w``,
    ``exp``, and ``x * x``, the same tensor twice)."""
    # Graphs built with your function: their next_functions and their gradients.
    with grading.checking("02.collect_next_functions", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        z = x * y
        grading.expect_equal(type(z.grad_fn.next_functions).__name__, "tuple", what="type((x * y).grad_fn.next_functions)",
                             rule="next_functions is a tuple")
        grading.expect_equal(edge_names(z.grad_fn.next_functions), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                             what="(x * y).grad_fn.next_functions for two leaves that require grad",
                             rule="a leaf that requires grad is reached through its AccumulateGrad node (its gradient edge)")
        grading.expect_true(z.grad_fn.next_functions[0][0].variable is x and z.grad_fn.next_functions[1][0].variable is y,
                            what="the nodes of (x * y).grad_fn.next_functions: x's node first, then y's", seen="another order",
                            rule="edge i belongs to input i: edges follow the input order")
        cond = ag.tensor([True, False, True])
        lo = ag.tensor([0.0, 3.0, 0.0], requires_grad=True)
        M = ag.ones(2, 3, requires_grad=True)
        m1, m2 = ag.ones(2, 4), ag.ones(4, 3, requires_grad=True)
        for label, build, expected, rule in [
                ("2 * x", lambda: 2 * x, (("AccumulateGrad", 0), (None, 0)),
                 "one edge per input, in input order: (None, 0) for an input that needs no gradient"),
                ("ag.where(cond, x, y)", lambda: ag.where(cond, x, y), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                 "one edge per input, in input order"),
                ("ag.addmm(M, m1, m2) with m1 constant", lambda: ag.addmm(M, m1, m2),
                 (("AccumulateGrad", 0), (None, 0), ("AccumulateGrad", 0)),
                 "one edge per input, in input order: (None, 0) for an input that needs no gradient"),
                ("ag.clamp(x, min=lo)", lambda: ag.clamp(x, min=lo), (("AccumulateGrad", 0), ("AccumulateGrad", 0), (None, 0)),
                 "an absent optional input (None) gets the edge (None, 0)"),
                ("(x * y).exp() * 2", lambda: z.exp() * 2, (("ExpBackward0", 0), (None, 0)),
                 "a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")]:
            try:
                seen = edge_names(build().grad_fn.next_functions)
            except Exception as error:                # report a crash as a broken rule
                seen = f"{type(error).__name__}: {error}"
            grading.expect_equal(seen, expected, what=f"the next_functions of {label}", rule=rule)

        ag.manual_seed(2)
        w = ag.randn(5, 3, requires_grad=True)
        data = ag.randn(1, 5)
        (data @ w).mean().backward()
        grading.expect_close(w.grad, np.repeat(data.numpy().T, 3, axis=1) / 3, what="w.grad for z = (x @ w).mean()",
                             rule="backward follows the edges you built: dz/dw = x.T @ ones(1, 3) / 3")
        c = ag.tensor([1.0, -1.0, 0.5])
        ((x * y).exp() * c).sum().backward()
        product = np.array([4.0, 10.0, 18.0])
        grading.expect_close(x.grad, np.exp(product) * [1.0, -1.0, 0.5] * [4.0, 5.0, 6.0], rtol=1e-4,
                             what="x.grad for ((x * y).exp() * c).sum()",
                             rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")
        x.grad = None
        (x * x).sum().backward()
        grading.expect_close(x.grad, [2.0, 4.0, 6.0], what="x.grad for (x * x).sum()",
                             rule="one edge per input, even when the same tensor is passed twice")


# ------------------------------------------------------------------ 02.record_node

NOTHING_RECORDED = ("no node when grad mode is off or no input requires grad: return None, leave the outputs alone "
                    "and make nothing (no edge, no AccumulateGrad)")
NOT_FLOAT = ("an integer or bool output cannot require grad: it gets no grad_fn, and with no floating-point output "
             "there is no node (return None)")
ONE_NODE = "make one node of class node_cls, return it, and make it the grad_fn of every floating-point output"
EDGES = "the node's next_functions: one edge per input, in input order, as collect_next_functions gives them"
INPUT_META = ("node._input_meta holds one entry per input: the (shape, NumPy dtype) of its array t._data, "
              "None for an absent input")
OUTPUT_NR = "output i is output number i of its node (its _output_nr); an integer output keeps its place"
NUM_OUTPUTS = "node.num_outputs is how many outputs the op has, integer ones included: the engine keeps a slot for each"


class HandMadeBackward0(ag.graph.Node):
    """The node class of a hand-made op with one input, for outputs of the checks' choosing."""
    input_names = ("self",)


def meta_names(meta):
    """A node's ``_input_meta`` as it can be printed and compared: per input ``None`` or
    ``(shape, "numpy.<dtype>")``; a dtype that is not NumPy's shows its type."""
    if not isinstance(meta, (tuple, list)):
        return f"not a tuple but a {type(meta).__name__}"
    names = []
    for entry in meta:
        if entry is None:
            names.append(None)
        elif isinstance(entry, (tuple, list)) and len(entry) == 2:
            shape, dtype = entry
            names.append((tuple(shape) if isinstance(shape, tuple) else f"{type(shape).__name__} {shape!r}",
                          f"numpy.{dtype}" if isinstance(dtype, np.dtype) else f"{type(dtype).__name__} {dtype}"))
        else:
            names.append(f"not a pair (shape, dtype): {entry!r}")
    return tuple(names)


def _hooked(node, outputs):
    """Per output: "the node" when its grad_fn is ``node``, None when it has none, else its class name."""
    return [None if t.grad_fn is None else "the node" if node is not None and t.grad_fn is node
            else type(t.grad_fn).__name__ for t in outputs]


def expect_record(node, outputs, inputs, expected_node, expected_outputs, what, fresh=()):
    """What a ``record_node`` did (it returned ``node`` and changed ``outputs``) against the
    library's result for the same call (``expected_node``, ``expected_outputs``), judged in the
    grad mode of the call.  ``fresh``: leaves requiring grad that had no AccumulateGrad before."""
    if expected_node is None:
        constant = not ag.is_grad_enabled() or not any(t is not None and t.requires_grad for t in inputs)
        rule = NOTHING_RECORDED if constant else NOT_FLOAT
        grading.expect_true(node is None, what=f"what {what} returned", seen=f"a {type(node).__name__}", rule=rule)
        grading.expect_equal(_hooked(None, outputs), [None] * len(outputs),
                             what=f"the outputs' grad_fn after {what}", rule=rule)
        grading.expect_equal([t._accumulator is None for t in fresh], [True] * len(fresh),
                             what=f"`t._accumulator is None` for the leaves given to {what}", rule=NOTHING_RECORDED)
        return
    grading.expect_equal(type(node).__name__, type(expected_node).__name__, what=f"the node {what} returned",
                         rule=ONE_NODE)
    floating = [t.dtype.is_floating_point for t in outputs]
    hooked = _hooked(node, outputs)
    grading.expect_equal([h for h, f in zip(hooked, floating) if not f], [None] * floating.count(False),
                         what=f"the grad_fn of the integer and bool outputs after {what}", rule=NOT_FLOAT)
    grading.expect_equal(hooked, _hooked(expected_node, expected_outputs),
                         what=f"the outputs' grad_fn after {what}", rule=ONE_NODE)
    grading.expect_equal([t._output_nr for t in outputs], [t._output_nr for t in expected_outputs],
                         what=f"the outputs' _output_nr after {what}", rule=OUTPUT_NR)
    grading.expect_equal(node.num_outputs, expected_node.num_outputs, what=f"node.num_outputs after {what}",
                         rule=NUM_OUTPUTS)
    edges = node.next_functions
    grading.expect_equal(edge_names(edges) if isinstance(edges, tuple) else f"a {type(edges).__name__}",
                         edge_names(expected_node.next_functions), what=f"node.next_functions after {what}",
                         rule=EDGES)
    grading.expect_true(all(s[0] is e[0] for s, e in zip(edges, expected_node.next_functions)),
                        what=f"the nodes in node.next_functions after {what}", seen="other node objects",
                        rule=EDGES + ": each input's own gradient edge")
    grading.expect_equal(meta_names(node._input_meta), meta_names(expected_node._input_meta),
                         what=f"node._input_meta after {what}", rule=INPUT_META)


def compare_record(fn, node_cls, inputs, make_outputs, what, grad_enabled=True):
    """``fn(node_cls, inputs, make_outputs())`` against the library's ``record_node`` on outputs
    made again, both with grad mode on or off (returns nothing: a test cell may end with it)."""
    fresh = [t for t in inputs if t is not None and t.is_leaf and t.requires_grad and t._accumulator is None]
    outputs, expected_outputs = make_outputs(), make_outputs()
    with contextlib.nullcontext() if grad_enabled else ag.no_grad():
        with grading.checking("02.record_node", fn):
            node = call(fn, node_cls, inputs, outputs, what=what, rule=ONE_NODE)
        with library_version("02"):               # the library's edges too, whatever you plugged
            expected_node = exercises.reference("02.record_node")(node_cls, inputs, expected_outputs)
        expect_record(node, outputs, inputs, expected_node, expected_outputs, what, fresh)


def record_node(fn):
    """Your ``record_node`` called directly, as ``record`` calls it: ``x * c`` (``x`` a float32
    leaf that requires grad, ``c`` a float64 constant of another shape), ``clamp(h, min=lo)``
    (a non-leaf input and an absent ``max``), the three rows of a matrix as the outputs of one
    node, an integer output before a floating one, integer outputs only, constant inputs, and
    ``x * c`` again under ``no_grad``.  Each time it looks at what you returned, the outputs'
    ``grad_fn`` and ``_output_nr``, and the node's ``next_functions``, ``_input_meta`` and
    ``num_outputs``."""
    rules = ag.recording.RULES
    x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
    c = ag.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]], dtype=ag.float64)
    lo = ag.tensor([0.0, 2.0, 0.0], requires_grad=True)
    m = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    with library_version("02"):
        h = x.exp()                                     # a non-leaf
        x_node, lo_node, m_node = x._gradient_edge()[0], lo._gradient_edge()[0], m._gradient_edge()[0]
    values = x.detach().numpy()

    with grading.checking("02.record_node", fn):
        out = ag.tensor(values * c.numpy())
        node = call(fn, rules["mul.Tensor"], (x, c), (out,), what="record_node(MulBackward0, (x, c), (out,))",
                    rule=ONE_NODE)
        what = "record_node(MulBackward0, (x, c), (out,)) for out = x * c"
        grading.expect_equal(type(node).__name__, "MulBackward0", what=f"what {what} returned", rule=ONE_NODE)
        grading.expect_true(out.grad_fn is node, what=f"`out.grad_fn is node` after {what}",
                            seen=repr(type(out.grad_fn).__name__), rule=ONE_NODE)
        grading.expect_equal((out._output_nr, out.requires_grad, out.is_leaf), (0, True, False),
                             what=f"(out._output_nr, out.requires_grad, out.is_leaf) after {what}", rule=OUTPUT_NR)
        grading.expect_equal(edge_names(node.next_functions), (("AccumulateGrad", 0), (None, 0)),
                             what=f"node.next_functions after {what}", rule=EDGES)
        grading.expect_true(node.next_functions[0][0] is x_node, what=f"`node.next_functions[0][0]` after {what}",
                            seen="another node than x's AccumulateGrad", rule=EDGES)
        grading.expect_equal(meta_names(node._input_meta), (((3,), "numpy.float32"), ((2, 3), "numpy.float64")),
                             what=f"node._input_meta after {what}", rule=INPUT_META)
        grading.expect_equal(node.num_outputs, 1, what=f"node.num_outputs after {what}", rule=NUM_OUTPUTS)

        out = ag.tensor(np.maximum(np.exp(values), lo.detach().numpy()))
        what = "record_node(ClampBackward0, (h, lo, None), (out,)) for out = clamp(h, min=lo), h = x.exp()"
        node = call(fn, rules["clamp.Tensor"], (h, lo, None), (out,), what=what, rule=ONE_NODE)
        grading.expect_equal(edge_names(node.next_functions), (("ExpBackward0", 0), ("AccumulateGrad", 0), (None, 0)),
                             what=f"node.next_functions after {what}", rule=EDGES)
        grading.expect_true(node.next_functions[0][0] is h.grad_fn and node.next_functions[1][0] is lo_node,
                            what=f"the nodes in node.next_functions after {what}", seen="other node objects", rule=EDGES)
        grading.expect_equal(meta_names(node._input_meta), (((3,), "numpy.float32"), ((3,), "numpy.float32"), None),
                             what=f"node._input_meta after {what}", rule=INPUT_META)

        rows = tuple(ag.tensor(row) for row in m.detach().numpy())
        what = "record_node(UnbindBackward0, (m,), rows) for the 3 rows of m"
        node = call(fn, rules["unbind.int"], (m,), rows, what=what, rule=ONE_NODE)
        grading.expect_equal(_hooked(node, rows), ["the node"] * 3, what=f"the rows' grad_fn after {what}",
                             rule=ONE_NODE)
        grading.expect_equal([row._output_nr for row in rows], [0, 1, 2], what=f"the rows' _output_nr after {what}",
                             rule=OUTPUT_NR)
        grading.expect_equal(node.num_outputs, 3, what=f"node.num_outputs after {what}", rule=NUM_OUTPUTS)
        grading.expect_true(node.next_functions[0][0] is m_node, what=f"node.next_functions[0][0] after {what}",
                            seen=repr(edge_names(node.next_functions)), rule=EDGES)

        indices, doubled = ag.tensor([2, 0, 1]), ag.tensor(values * 2)
        what = "record_node(HandMadeBackward0, (x,), (indices, doubled)): an int64 output, then a float32 one"
        node = call(fn, HandMadeBackward0, (x,), (indices, doubled), what=what, rule=ONE_NODE)
        grading.expect_equal((indices.grad_fn, indices.requires_grad), (None, False),
                             what=f"(indices.grad_fn, indices.requires_grad) after {what}", rule=NOT_FLOAT)
        grading.expect_equal(_hooked(node, (doubled,)), ["the node"], what=f"doubled.grad_fn after {what}",
                             rule=ONE_NODE)
        grading.expect_equal(doubled._output_nr, 1, what=f"doubled._output_nr after {what}", rule=OUTPUT_NR)
        grading.expect_equal(node.num_outputs, 2, what=f"node.num_outputs after {what}", rule=NUM_OUTPUTS)

        fresh = ag.tensor([1.0, 2.0], requires_grad=True)
        signs = ag.tensor([True, False])
        what = "record_node(HandMadeBackward0, (w,), (signs,)) for a leaf w and a bool output"
        grading.expect_true(call(fn, HandMadeBackward0, (fresh,), (signs,), what=what, rule=NOT_FLOAT) is None,
                            what=f"what {what} returned", seen="a node", rule=NOT_FLOAT)
        grading.expect_equal((signs.grad_fn, fresh._accumulator), (None, None),
                             what=f"(signs.grad_fn, w._accumulator) after {what}", rule=NOTHING_RECORDED)

        out = ag.tensor(c.numpy() * 2)
        what = "record_node(MulBackward0, (c, two), (out,)) for constants c and two"
        grading.expect_true(call(fn, rules["mul.Tensor"], (c, ag.tensor(2.0)), (out,), what=what,
                                 rule=NOTHING_RECORDED) is None,
                            what=f"what {what} returned", seen="a node", rule=NOTHING_RECORDED)
        grading.expect_equal((out.grad_fn, out.requires_grad), (None, False),
                             what=f"(out.grad_fn, out.requires_grad) after {what}", rule=NOTHING_RECORDED)

        fresh = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = ag.tensor(values * c.numpy())
        what = "record_node(MulBackward0, (w, c), (out,)) inside `with ag.no_grad():` (w a leaf that requires grad)"
        with ag.no_grad():
            node = call(fn, rules["mul.Tensor"], (fresh, c), (out,), what=what, rule=NOTHING_RECORDED)
        grading.expect_true(node is None, what=f"what {what} returned", seen=f"a {type(node).__name__}",
                            rule=NOTHING_RECORDED)
        grading.expect_equal((out.grad_fn, out.requires_grad, fresh._accumulator), (None, False, None),
                             what=f"(out.grad_fn, out.requires_grad, w._accumulator) after {what}",
                             rule=NOTHING_RECORDED)


def rows_of(m):
    """The rows of matrix ``m`` as new tensors, recorded as the outputs of one ``UnbindBackward0``
    through ``recording.record_node`` (a hand-made ``m.unbind(0)``)."""
    outputs = tuple(ag.tensor(row) for row in m.detach().numpy())
    node = ag.recording.record_node(ag.recording.RULES["unbind.int"], (m,), outputs)
    if node is not None:                        # what its formula needs: record's saving step keeps it
        node._params = {"self_shape": m.shape, "dim": 0}
    return outputs


def record_node_in_the_engine(fn):
    """Graphs recorded by your function: ``y = x * c`` (a float32 ``x`` of shape (3,), a float64
    ``c`` of shape (2, 3)) and the gradient backward gives ``x`` (its shape and dtype come from
    ``_input_meta``); ``x * 2`` under ``no_grad``; ``clamp`` with an absent bound; ``a * b`` for
    two outputs of ``unbind``; and the rows of a matrix recorded by hand as the three outputs of
    one node (``rows_of``), whose gradients must reach the right rows."""
    with grading.checking("02.record_node", fn):
        x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
        c = ag.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]], dtype=ag.float64)
        y = call(lambda: x * c, what="x * c", rule=ONE_NODE)
        grading.expect_equal((type(y.grad_fn).__name__, edge_names(y.grad_fn.next_functions)),
                             ("MulBackward0", (("AccumulateGrad", 0), (None, 0))),
                             what="y.grad_fn and its next_functions for y = x * c", rule=EDGES)
        call(lambda: (y * y).sum().backward(), what="(y * y).sum().backward()", rule=INPUT_META)
        grading.expect_equal((tuple(x.grad.shape), str(x.grad.dtype)), ((3,), "autograd_lib.float32"),
                             what="(x.grad.shape, x.grad.dtype) for (y * y).sum(), y = x * c",
                             rule=INPUT_META + ": backward sums and casts x's gradient to what it says")
        grading.expect_close(x.grad, (2 * np.array([1.0, -2.0, 3.0]) * c.numpy() ** 2).sum(0),
                             what="x.grad for (y * y).sum(), y = x * c", rule=INPUT_META)

        with ag.no_grad():
            z = x * 2
        grading.expect_equal((z.grad_fn, z.requires_grad), (None, False),
                             what="(z.grad_fn, z.requires_grad) for z = x * 2 under no_grad", rule=NOTHING_RECORDED)

        lo = ag.tensor([0.0, 5.0, 0.0], requires_grad=True)
        q = call(lambda: ag.clamp(x.exp(), min=lo), what="ag.clamp(x.exp(), min=lo)", rule=ONE_NODE)
        grading.expect_equal(edge_names(q.grad_fn.next_functions),
                             (("ExpBackward0", 0), ("AccumulateGrad", 0), (None, 0)),
                             what="the next_functions of ag.clamp(x.exp(), min=lo)", rule=EDGES)
        grading.expect_equal(meta_names(q.grad_fn._input_meta), (((3,), "numpy.float32"), ((3,), "numpy.float32"), None),
                             what="the _input_meta of ag.clamp(x.exp(), min=lo)", rule=INPUT_META)

        m = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        a, b = m[:2].unbind(0)
        call(lambda: (a * b).sum().backward(), what="(a * b).sum().backward() for a, b = m[:2].unbind(0)",
             rule=EDGES)
        grading.expect_close(m.grad, [[3.0, 4.0], [1.0, 2.0], [0.0, 0.0]],
                             what="m.grad for (a * b).sum(), a, b = m[:2].unbind(0)", rule=EDGES)

        m.grad = None
        top, middle, bottom = call(rows_of, m, what="rows_of(m)", rule=ONE_NODE)
        grading.expect_equal([t._output_nr for t in (top, middle, bottom)], [0, 1, 2],
                             what="the _output_nr of top, middle, bottom = rows_of(m)", rule=OUTPUT_NR)
        call(lambda: (top + 3 * bottom).sum().backward(), what="(top + 3 * bottom).sum().backward()",
             rule=NUM_OUTPUTS)
        grading.expect_close(m.grad, [[1.0, 1.0], [0.0, 0.0], [3.0, 3.0]],
                             what="m.grad for (top + 3 * bottom).sum(), top, middle, bottom = rows_of(m)",
                             rule=OUTPUT_NR)


def random_record_call(case, grad_enabled, floating=True):
    """A random call of ``record_node``: (node class, inputs, a function making new outputs, what).
    Inputs: leaves (float32 or float64) and constants, non-leaves, None, integer tensors, repeats;
    outputs: one to four tensors, floating or not (with ``floating=False``: integer and bool
    outputs only, and some input requiring grad)."""
    with library_version("02"):
        pool = [ag.tensor(case.standard_normal(tuple(int(n) for n in case.integers(1, 4, size=int(case.integers(0, 3))))),
                          dtype=[ag.float32, ag.float64][int(case.integers(2))], requires_grad=bool(case.integers(3)))
                for _ in range(3)]
        pool += [(pool[0] * 2).exp(), None, ag.tensor(case.integers(0, 5, size=2)),
                 ag.tensor(case.standard_normal((2, 2)), requires_grad=True).unbind(0)[1]]
    inputs = tuple(pool[int(i)] for i in case.integers(0, len(pool), size=int(case.integers(1, 5))))
    kinds = [int(k) for k in case.integers(0, 5, size=int(case.integers(1, 5)))]     # 0-2 float, 3 int, 4 bool
    if not floating:
        kinds = [3 + k % 2 for k in kinds]
        if not any(t is not None and t.requires_grad for t in inputs):
            inputs += (pool[6],)                          # an unbind output: it requires grad
    arrays = [case.standard_normal(int(case.integers(1, 4))).astype(["float32", "float64", "float32"][k]) if k < 3
              else case.integers(0, 5, size=2) if k == 3 else case.integers(0, 2, size=2).astype(bool) for k in kinds]
    classes = [c for c in ag.derivatives.NODES.values() if not c.variadic]
    node_cls = classes[int(case.integers(len(classes)))]

    def make_outputs():
        return tuple(ag.tensor(a.copy()) for a in arrays)
    labels = ["None" if t is None else f"{'leaf' if t.is_leaf else type(t.grad_fn).__name__} {tuple(t.shape)} "
              f"{str(t.dtype).split('.')[-1]}{'' if t.requires_grad else ' constant'}" for t in inputs]
    outs = [str(a.dtype) for a in arrays]
    what = (f"record_node({node_cls.__name__}, ({', '.join(labels)}), outputs of dtypes {outs})"
            f"{'' if grad_enabled else ' under no_grad'}")
    return node_cls, inputs, make_outputs, what


def random_recorded_graph(seed):
    """Build a random graph and differentiate it: broadcasts, float32 with float64, ``clamp`` with
    an absent bound, ``unbind``, ``rows_of`` and a part under ``no_grad``.  Returns its nodes (name,
    next_functions, _input_meta), what the ``no_grad`` parts require, and the leaves' gradients."""
    rng = np.random.default_rng(seed)
    a = ag.tensor(rng.standard_normal(3), requires_grad=True)
    b = ag.tensor(rng.standard_normal((2, 3)), dtype=ag.float64, requires_grad=True)
    c = ag.tensor(rng.standard_normal((2, 3)))
    m = ag.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    ops = [int(op) for op in rng.integers(0, 7, size=5)]
    ops.insert(int(rng.integers(0, 6)), 3)                 # always a part under no_grad
    h, flags = a, []
    for op in ops:
        if op == 0:
            h = h * b
        elif op == 1:
            h = (h + c).tanh() * 0.5
        elif op == 2:
            h = ag.clamp(h, min=a)
        elif op == 3:
            with ag.no_grad():
                k = h * 3
            flags.append((k.requires_grad, k.grad_fn is None))
            h = h + k
        elif op == 4:
            first, second = m.unbind(0)[1:]
            h = h * first - second
        elif op == 5:
            top, middle, bottom = rows_of(m)
            h = (h + top * 2) * bottom - middle
        else:
            h = h.sin() * h
    loss = (h * h).sum()
    structure = [(ag.viz.node_name(n), edge_names(n.next_functions), meta_names(n._input_meta))
                 for n in ag.viz.graph_nodes(loss)]
    loss.backward()
    return ops, structure, flags, [t.grad for t in (a, b, m)]


def compare_recorded_graph(fn, seed):
    """``random_recorded_graph(seed)`` recorded by ``fn`` against the same graph recorded by the
    library's ``record_node`` (returns nothing: a test cell may end with it)."""
    with library_version("02"):
        ops, expected, expected_flags, expected_grads = random_recorded_graph(seed)
    with grading.checking("02.record_node", fn):
        _, structure, flags, grads = call(random_recorded_graph, seed, what=f"a random graph (ops {ops})",
                                          rule=f"{ONE_NODE}; {NUM_OUTPUTS}")
    what = f"a random graph (ops {ops}: 0 mul, 1 add, 2 clamp, 3 no_grad, 4 unbind, 5 rows_of, 6 sin)"
    grading.expect_equal(flags, expected_flags, what=f"(k.requires_grad, k.grad_fn is None) for k = h * 3 under "
                                                     f"no_grad in {what}", rule=NOTHING_RECORDED)
    grading.expect_equal([(s[0], [n for n, _ in s[1]]) for s in structure], [(e[0], [n for n, _ in e[1]]) for e in expected],
                         what=f"the nodes of {what} and the nodes in their next_functions", rule=EDGES)
    grading.expect_equal([s[1] for s in structure], [e[1] for e in expected],
                         what=f"the next_functions of the nodes of {what}, with their output numbers", rule=OUTPUT_NR)
    grading.expect_equal([s[2] for s in structure], [e[2] for e in expected],
                         what=f"the _input_meta of the nodes of {what}", rule=INPUT_META)
    for name, seen, wanted in zip("abm", grads, expected_grads):
        grading.expect_equal(*[None if g is None else (tuple(g.shape), g.dtype) for g in (seen, wanted)],
                             what=f"the shape and dtype of {name}.grad in {what}", rule=INPUT_META)
        if wanted is not None:
            grading.expect_close(seen, wanted, rtol=1e-4, what=f"{name}.grad in {what}", rule=OUTPUT_NR)


# ------------------------------------------------------------------ 02.graph_nodes

EACH_ONCE = "each node once, however many edges or roots lead to it"
REACH_ALL = "every node reachable from any of the roots, through every entry of next_functions"
FORWARD = "a node comes before every node in its next_functions (roots first, leaves last)"
SKIP_NONE = "the (None, 0) entries of next_functions lead to no node: skip them"
NO_RECURSION = ("walk with an explicit stack (a list), not recursion: a chain of 5000 nodes is deeper than "
                "Python's recursion limit")


def _names(nodes):
    return [type(n).__name__ for n in nodes]


def expect_walk(seen, expected, what):
    """``seen``, what a walk returned, against ``expected`` (the same nodes, as the library
    orders them): a list, each reachable node once, nothing else, every edge pointing forward."""
    grading.expect_equal(type(seen).__name__, "list", what=f"the type of {what}", rule="return a list of nodes")
    grading.expect_true(all(n is not None for n in seen), what=f"`None not in {what}`",
                        seen=f"None among {_names(seen)}", rule=SKIP_NONE)
    position = {}
    for i, node in enumerate(seen):
        if id(node) in position:
            grading.expect_equal(f"more than once: at positions {position[id(node)]} and {i}", "once",
                                 what=f"how often one {type(node).__name__} node appears in {what}", rule=EACH_ONCE)
        position[id(node)] = i
    wanted = {id(n): n for n in expected}
    missing = [type(n).__name__ for k, n in wanted.items() if k not in position]
    extra = [type(n).__name__ for n in seen if id(n) not in wanted]
    grading.expect_equal(missing, [], what=f"the reachable nodes missing from {what}", rule=REACH_ALL)
    grading.expect_equal(extra, [], what=f"the nodes of {what} that the roots do not reach",
                         rule="only the nodes reachable from the roots")
    for node in seen:
        for child, _ in node.next_functions:
            if child is not None and position[id(child)] < position[id(node)]:
                grading.expect_equal(f"{type(child).__name__} (position {position[id(child)]}) before "
                                     f"{type(node).__name__} (position {position[id(node)]})",
                                     f"{type(node).__name__} before {type(child).__name__}, one of its next_functions",
                                     what=f"the order of {what}: {_names(seen)}", rule=FORWARD)


def walk_with(fn, roots, what, rule=REACH_ALL):
    """``fn(roots)`` graded against the library's walk of the same roots (returns nothing: a test
    cell may end with it)."""
    expected = exercises.reference("02.graph_nodes")(list(roots))
    with grading.checking("02.graph_nodes", fn):
        seen = call(fn, list(roots), what=what, rule=rule)
    expect_walk(seen, expected, what)


def shared_graph(data_a=(1.0, -2.0), data_b=(0.5, 3.0)):
    """``y = a * b; z = y * y + y.exp()``, built with the library's own code: (a, b, y, z)."""
    with library_version("02"):
        a = ag.tensor(list(data_a), requires_grad=True)
        b = ag.tensor(list(data_b), requires_grad=True)
        y = a * b
        z = y * y + y.exp()
    return a, b, y, z


def random_graph(case):
    """Root tensors of a random graph of ops on leaves and constants (built with the library's own
    code): a shared node, ``unbind`` and ``split`` outputs, numbers, sometimes several roots."""
    with library_version("02"):
        leaves = [ag.tensor(case.standard_normal((2, 3)), requires_grad=True) for _ in range(int(case.integers(1, 4)))]
        pool = leaves + [ag.tensor(case.standard_normal((2, 3))) for _ in range(int(case.integers(1, 3)))]

        def pick():
            return pool[int(case.integers(len(pool)))]
        shared = leaves[0] * pick()                      # two ops use it
        made = [shared * pick(), (shared + pick()).exp()]
        pool += [shared] + made
        for kind in case.integers(0, 6, size=int(case.integers(3, 10))):
            a = pick()
            if kind == 0:
                pool.append(a * pick())
            elif kind == 1:
                pool.append(a + pick().sin())
            elif kind == 2:
                pool.append((a * float(case.uniform(0.5, 2.0))).tanh() - pick())
            elif kind == 3:
                first, second = a.unbind(0)              # one node, two outputs
                pool.append(pick() * (first * second.exp()))
            elif kind == 4:
                top, bottom = a.split(1, dim=0)
                pool.append(pick() * top - bottom)
            else:
                pool.append(a * a)                       # two edges into one node
        roots = [(made[0] * made[1] + pool[-1] * pool[-2]).sum()]
        graded = [t for t in pool if t.grad_fn is not None]
        for i in case.integers(0, len(graded), size=int(case.integers(0, 3))):
            roots.append(graded[int(i)])                 # a root inside another root's graph
    return roots


def chain(length=5000):
    """A leaf, then ``h = h + c`` ``length`` times (built with the library's own code): the last h."""
    with library_version("02"):
        h = ag.tensor([1.0, 2.0], requires_grad=True)
        c = ag.tensor([0.5, -0.5])
        for _ in range(length):
            h = h + c
    return h


def graph_nodes(fn):
    """Your ``graph_nodes`` called on root nodes: ``z = y * y + y.exp()`` with ``y = a * b``
    (a shared node), ``Q = 3 * a**3 - b**2`` (``(None, 0)`` edges), two ``unbind`` outputs
    of one node, several roots (one reachable from another, one given twice), an
    ``AccumulateGrad`` alone, and no root at all.  Each result must be a list with every
    reachable node once, and each node before the nodes in its ``next_functions``."""
    a, b, y, z = shared_graph()
    walk_with(fn, [z.grad_fn], "graph_nodes([z.grad_fn]) for y = a * b; z = y * y + y.exp()")

    with library_version("02"):
        Q = 3 * a ** 3 - b ** 2
        p, q = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).unbind(0)
        r = p * q + p.exp()
        acc = y.grad_fn.next_functions[0][0]
    walk_with(fn, [Q.grad_fn], "graph_nodes([Q.grad_fn]) for Q = 3 * a**3 - b**2", rule=SKIP_NONE)
    walk_with(fn, [r.grad_fn], "graph_nodes([r.grad_fn]) for p, q = t.unbind(0); r = p * q + p.exp()")
    walk_with(fn, [y.grad_fn, z.grad_fn], "graph_nodes([y.grad_fn, z.grad_fn]): y's node is also below z's")
    walk_with(fn, [z.grad_fn, Q.grad_fn, z.grad_fn], "graph_nodes([z.grad_fn, Q.grad_fn, z.grad_fn])", rule=SKIP_NONE)
    walk_with(fn, [acc], "graph_nodes([acc]) for a's AccumulateGrad (it has no next_functions)")
    walk_with(fn, [], "graph_nodes([]) (no root: a drawing of a leaf)")


def _drawing(fig):
    """What a drawing shows, whatever the order of its boxes: {label: count} of boxes and arrows."""
    artists = [artist for ax in fig.axes for artist in ax.get_children()]     # not findobj: it makes ticks
    texts = {}
    for artist in artists:
        gid = artist.get_gid() or ""
        if gid.startswith("autograd-node-") and gid.endswith(":text"):
            texts.setdefault(gid[:-len(":text")], []).append(artist.get_text())
    label = {gid: " ".join(lines) for gid, lines in texts.items()}
    boxes = sorted(label.values())
    arrows = sorted(f"{label[src]} -> {label[dst]}" for src, dst in
                    (a.get_gid()[len("autograd-edge:"):].split("->") for a in artists
                     if (a.get_gid() or "").startswith("autograd-edge:")))
    return {"boxes": boxes, "arrows": arrows}


def compare_viz(fn, roots, what, names=None, draw=True, rule=REACH_ALL):
    """viz.graph_nodes, viz.graph_edges (and a drawing) of ``roots`` with ``fn`` plugged, against
    the same with the library's walk; ``rule`` is what a crash breaks."""
    with library_version("02"):
        expected = ag.viz.graph_nodes(*roots)
        expected_edges = sorted((id(a), id(b)) for a, b in ag.viz.graph_edges(*roots))
        expected_drawing = _drawing(ag.viz.draw_graph(*roots, names=names)) if draw else None
    with grading.checking("02.graph_nodes", fn):
        seen = call(ag.viz.graph_nodes, *roots, what=f"viz.graph_nodes({what})", rule=rule)
        expect_walk(seen, expected, f"viz.graph_nodes({what}) with your graph_nodes")
        edges = call(ag.viz.graph_edges, *roots, what=f"viz.graph_edges({what})", rule=rule)
        position = {id(n): i for i, n in enumerate(seen)}
        grading.expect_true(all(position[id(a)] < position[id(b)] for a, b in edges),
                            what=f"every (node, next_node) of viz.graph_edges({what}) in graph_nodes order",
                            seen="an edge pointing backwards", rule=FORWARD)
        grading.expect_true(sorted((id(a), id(b)) for a, b in edges) == expected_edges,
                            what=f"viz.graph_edges({what}) with your graph_nodes: the same edges as the library's",
                            seen=f"{len(edges)} edges instead of {len(expected_edges)}, or other ones", rule=REACH_ALL)
        if draw:
            drawing = _drawing(call(lambda: ag.viz.draw_graph(*roots, names=names), what=f"viz.draw_graph({what})",
                                    rule=rule))
            grading.expect_equal(drawing, expected_drawing,
                                 what=f"the boxes and arrows of viz.draw_graph({what}) with your graph_nodes",
                                 rule=f"{EACH_ONCE}; {REACH_ALL}")


def graph_nodes_in_viz(fn):
    """The visualiser with your ``graph_nodes`` plugged: ``viz.graph_nodes``, ``viz.graph_edges``
    and ``viz.draw_graph`` (the same boxes and arrows as with the library's walk) for
    ``z = y * y + y.exp()``, for two tensors ``y, z`` at once, for a graph with ``None`` edges
    and ``unbind``, and ``draw_graph`` of a lone leaf (no root node)."""
    a, b, y, z = shared_graph((0.25, 2.0), (-1.0, 1.5))
    compare_viz(fn, [z], "z", names={"a": a, "b": b, "y": y, "z": z})
    compare_viz(fn, [y, z], "y, z", names={"y": y, "z": z})
    with library_version("02"):
        p, q = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).unbind(0)
        loss = (3 * (p * q) - p.exp()).sum()
    compare_viz(fn, [loss], "loss", names={"loss": loss}, rule=SKIP_NONE)
    compare_viz(fn, [a], "a (a leaf: no grad_fn)", names={"a": a})
