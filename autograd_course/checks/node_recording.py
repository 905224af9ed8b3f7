"""Visible checks of assignment 02, exercise 2: ``record_node``, which puts a node in the
graph and marks the outputs (the checks of the node's edges, which call
``collect_next_functions`` directly too, are in ``next_functions.py``).

``autograd_course.checks.graph`` (the notebook's ``check``) shows them; ``record_node`` calls
your function (with your ``collect_next_functions``) on a hand-made op,
``record_node_in_the_engine`` runs both inside the library's ops and a backward pass.
``compare_record``, ``random_record_call`` and ``compare_recorded_graph`` are what the hidden
parts run.
"""

import contextlib

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version

from .graph_labels import edge_names

__all__ = ["HandMadeBackward0", "meta_names", "expect_record", "compare_record", "record_node", "rows_of",
           "record_node_in_the_engine", "random_record_call", "random_recorded_graph", "compare_recorded_graph"]

NODE = grading.rules("02.record_node")


def _plugs(collect, record):
    return {"02.collect_next_functions": collect, "02.record_node": record}


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
        grading.expect_true(node is None, what=f"what {what} returned", seen=f"a {type(node).__name__}",
                            rule=NODE("when"))
        grading.expect_equal(_hooked(None, outputs), [None] * len(outputs),
                             what=f"the outputs' grad_fn after {what}", rule=NODE("no-trace"))
        grading.expect_equal([t._accumulator is None for t in fresh], [True] * len(fresh),
                             what=f"`t._accumulator is None` for the leaves given to {what}", rule=NODE("no-trace"))
        return
    grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
    grading.expect_equal(type(node).__name__, type(expected_node).__name__, what=f"the node {what} returned",
                         rule=NODE("one-node"))
    floating = [t.dtype.is_floating_point for t in outputs]
    hooked = _hooked(node, outputs)
    grading.expect_equal([h for h, f in zip(hooked, floating) if not f], [None] * floating.count(False),
                         what=f"the grad_fn of the integer and bool outputs after {what}", rule=NODE("output-nr"))
    grading.expect_equal(hooked, _hooked(expected_node, expected_outputs),
                         what=f"the outputs' grad_fn after {what}", rule=NODE("one-node"))
    grading.expect_equal([t._output_nr for t in outputs], [t._output_nr for t in expected_outputs],
                         what=f"the outputs' _output_nr after {what}", rule=NODE("output-nr"))
    grading.expect_equal(node.num_outputs, expected_node.num_outputs, what=f"node.num_outputs after {what}",
                         rule=NODE("num-outputs"))
    edges = node.next_functions
    grading.expect_equal(edge_names(edges) if isinstance(edges, tuple) else f"a {type(edges).__name__}",
                         edge_names(expected_node.next_functions), what=f"node.next_functions after {what}",
                         rule=NODE("edges", "no-edge"))
    grading.expect_true(all(s[0] is e[0] for s, e in zip(edges, expected_node.next_functions)),
                        what=f"the nodes in node.next_functions after {what}", seen="other node objects",
                        rule=NODE("edges"))
    grading.expect_equal(meta_names(node._input_meta), meta_names(expected_node._input_meta),
                         what=f"node._input_meta after {what}", rule=NODE("input-meta"))


def compare_record(collect, record, node_cls, inputs, make_outputs, what, grad_enabled=True):
    """``record(node_cls, inputs, make_outputs())`` against the library's ``record_node`` on outputs
    made again, both with grad mode on or off (returns nothing: a test cell may end with it)."""
    fresh = [t for t in inputs if t is not None and t.is_leaf and t.requires_grad and t._accumulator is None]
    outputs, expected_outputs = make_outputs(), make_outputs()
    with contextlib.nullcontext() if grad_enabled else ag.no_grad():
        with grading.checking(_plugs(collect, record)):
            node = call(record, node_cls, inputs, outputs, what=what, rule=NODE("one-node"))
        with library_version("02"):               # the library's edges too, whatever you plugged
            expected_node = exercises.reference("02.record_node")(node_cls, inputs, expected_outputs)
        expect_record(node, outputs, inputs, expected_node, expected_outputs, what, fresh)


def record_node(collect, record):
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

    with grading.checking(_plugs(collect, record)):
        out = ag.tensor(values * c.numpy())
        what = "record_node(MulBackward0, (x, c), (out,)) for out = x * c"
        node = call(record, rules["mul.Tensor"], (x, c), (out,), what=what, rule=NODE("one-node"))
        grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
        grading.expect_equal(type(node).__name__, "MulBackward0", what=f"what {what} returned", rule=NODE("one-node"))
        grading.expect_true(out.grad_fn is node, what=f"`out.grad_fn is node` after {what}",
                            seen=repr(type(out.grad_fn).__name__), rule=NODE("one-node"))
        grading.expect_equal((out._output_nr, out.requires_grad, out.is_leaf), (0, True, False),
                             what=f"(out._output_nr, out.requires_grad, out.is_leaf) after {what}",
                             rule=NODE("output-nr"))
        grading.expect_equal(edge_names(node.next_functions), (("AccumulateGrad", 0), (None, 0)),
                             what=f"node.next_functions after {what}", rule=NODE("edges", "no-edge"))
        grading.expect_true(node.next_functions[0][0] is x_node, what=f"`node.next_functions[0][0]` after {what}",
                            seen="another node than x's AccumulateGrad", rule=NODE("edges"))
        grading.expect_equal(meta_names(node._input_meta), (((3,), "numpy.float32"), ((2, 3), "numpy.float64")),
                             what=f"node._input_meta after {what}", rule=NODE("input-meta"))
        grading.expect_equal(node.num_outputs, 1, what=f"node.num_outputs after {what}", rule=NODE("num-outputs"))

        out = ag.tensor(np.maximum(np.exp(values), lo.detach().numpy()))
        what = "record_node(ClampBackward0, (h, lo, None), (out,)) for out = clamp(h, min=lo), h = x.exp()"
        node = call(record, rules["clamp.Tensor"], (h, lo, None), (out,), what=what, rule=NODE("no-edge"))
        grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
        grading.expect_equal(edge_names(node.next_functions), (("ExpBackward0", 0), ("AccumulateGrad", 0), (None, 0)),
                             what=f"node.next_functions after {what}", rule=NODE("no-edge"))
        grading.expect_true(node.next_functions[0][0] is h.grad_fn and node.next_functions[1][0] is lo_node,
                            what=f"the nodes in node.next_functions after {what}", seen="other node objects",
                            rule=NODE("edges"))
        grading.expect_equal(meta_names(node._input_meta), (((3,), "numpy.float32"), ((3,), "numpy.float32"), None),
                             what=f"node._input_meta after {what}", rule=NODE("input-meta"))

        rows = tuple(ag.tensor(row) for row in m.detach().numpy())
        what = "record_node(UnbindBackward0, (m,), rows) for the 3 rows of m"
        node = call(record, rules["unbind.int"], (m,), rows, what=what, rule=NODE("one-node"))
        grading.expect_equal(_hooked(node, rows), ["the node"] * 3, what=f"the rows' grad_fn after {what}",
                             rule=NODE("one-node"))
        grading.expect_equal([row._output_nr for row in rows], [0, 1, 2], what=f"the rows' _output_nr after {what}",
                             rule=NODE("output-nr"))
        grading.expect_equal(node.num_outputs, 3, what=f"node.num_outputs after {what}", rule=NODE("num-outputs"))
        grading.expect_true(node.next_functions[0][0] is m_node, what=f"node.next_functions[0][0] after {what}",
                            seen=repr(edge_names(node.next_functions)), rule=NODE("edges"))

        indices, doubled = ag.tensor([2, 0, 1]), ag.tensor(values * 2)
        what = "record_node(HandMadeBackward0, (x,), (indices, doubled)): an int64 output, then a float32 one"
        node = call(record, HandMadeBackward0, (x,), (indices, doubled), what=what, rule=NODE("output-nr"))
        grading.expect_equal((indices.grad_fn, indices.requires_grad), (None, False),
                             what=f"(indices.grad_fn, indices.requires_grad) after {what}", rule=NODE("output-nr"))
        grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
        grading.expect_equal(_hooked(node, (doubled,)), ["the node"], what=f"doubled.grad_fn after {what}",
                             rule=NODE("one-node"))
        grading.expect_equal(doubled._output_nr, 1, what=f"doubled._output_nr after {what}", rule=NODE("output-nr"))
        grading.expect_equal(node.num_outputs, 2, what=f"node.num_outputs after {what}", rule=NODE("num-outputs"))

        fresh = ag.tensor([1.0, 2.0], requires_grad=True)
        signs = ag.tensor([True, False])
        what = "record_node(HandMadeBackward0, (w,), (signs,)) for a leaf w and a bool output"
        grading.expect_true(call(record, HandMadeBackward0, (fresh,), (signs,), what=what, rule=NODE("when")) is None,
                            what=f"what {what} returned", seen="a node", rule=NODE("when"))
        grading.expect_equal((signs.grad_fn, fresh._accumulator), (None, None),
                             what=f"(signs.grad_fn, w._accumulator) after {what}", rule=NODE("no-trace"))

        out = ag.tensor(c.numpy() * 2)
        what = "record_node(MulBackward0, (c, two), (out,)) for constants c and two"
        grading.expect_true(call(record, rules["mul.Tensor"], (c, ag.tensor(2.0)), (out,), what=what,
                                 rule=NODE("when")) is None,
                            what=f"what {what} returned", seen="a node", rule=NODE("when"))
        grading.expect_equal((out.grad_fn, out.requires_grad), (None, False),
                             what=f"(out.grad_fn, out.requires_grad) after {what}", rule=NODE("no-trace"))

        fresh = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = ag.tensor(values * c.numpy())
        what = "record_node(MulBackward0, (w, c), (out,)) inside `with ag.no_grad():` (w a leaf that requires grad)"
        with ag.no_grad():
            node = call(record, rules["mul.Tensor"], (fresh, c), (out,), what=what, rule=NODE("when"))
        grading.expect_true(node is None, what=f"what {what} returned", seen=f"a {type(node).__name__}",
                            rule=NODE("when"))
        grading.expect_equal((out.grad_fn, out.requires_grad, fresh._accumulator), (None, False, None),
                             what=f"(out.grad_fn, out.requires_grad, w._accumulator) after {what}",
                             rule=NODE("no-trace"))


def rows_of(m):
    """The rows of matrix ``m`` as new tensors, recorded as the outputs of one ``UnbindBackward0``
    through ``recording.record_node`` (a hand-made ``m.unbind(0)``)."""
    outputs = tuple(ag.tensor(row) for row in m.detach().numpy())
    node = ag.recording.record_node(ag.recording.RULES["unbind.int"], (m,), outputs)
    if node is not None:                        # what its formula needs: record's saving step keeps it
        node._params = {"self_shape": m.shape, "dim": 0}
    return outputs


def record_node_in_the_engine(collect, record):
    """Graphs recorded by your functions: ``y = x * c`` (a float32 ``x`` of shape (3,), a float64
    ``c`` of shape (2, 3)) and the gradient backward gives ``x`` (its shape and dtype come from
    ``_input_meta``); ``x * 2`` under ``no_grad``; ``clamp`` with an absent bound; ``a * b`` for
    two outputs of ``unbind``; and the rows of a matrix recorded by hand as the three outputs of
    one node (``rows_of``), whose gradients must reach the right rows."""
    with grading.checking(_plugs(collect, record)):
        x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
        c = ag.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]], dtype=ag.float64)
        y = call(lambda: x * c, what="x * c", rule=NODE("one-node"))
        grading.expect_true(y.grad_fn is not None, what="(x * c).grad_fn is a node", seen="None", rule=NODE("when"))
        grading.expect_equal((type(y.grad_fn).__name__, edge_names(y.grad_fn.next_functions)),
                             ("MulBackward0", (("AccumulateGrad", 0), (None, 0))),
                             what="y.grad_fn and its next_functions for y = x * c", rule=NODE("edges", "no-edge"))
        call(lambda: (y * y).sum().backward(), what="(y * y).sum().backward()", rule=NODE("input-meta"))
        grading.expect_equal((tuple(x.grad.shape), str(x.grad.dtype)), ((3,), "autograd_lib.float32"),
                             what="(x.grad.shape, x.grad.dtype) for (y * y).sum(), y = x * c", rule=NODE("input-meta"))
        grading.expect_close(x.grad, (2 * np.array([1.0, -2.0, 3.0]) * c.numpy() ** 2).sum(0),
                             what="x.grad for (y * y).sum(), y = x * c", rule=NODE("input-meta"))

        with ag.no_grad():
            z = call(lambda: x * 2, what="x * 2 under no_grad", rule=NODE("when"))
        grading.expect_equal((z.grad_fn, z.requires_grad), (None, False),
                             what="(z.grad_fn, z.requires_grad) for z = x * 2 under no_grad", rule=NODE("when"))

        lo = ag.tensor([0.0, 5.0, 0.0], requires_grad=True)
        q = call(lambda: ag.clamp(x.exp(), min=lo), what="ag.clamp(x.exp(), min=lo)", rule=NODE("one-node"))
        grading.expect_equal(edge_names(q.grad_fn.next_functions),
                             (("ExpBackward0", 0), ("AccumulateGrad", 0), (None, 0)),
                             what="the next_functions of ag.clamp(x.exp(), min=lo)", rule=NODE("no-edge"))
        grading.expect_equal(meta_names(q.grad_fn._input_meta), (((3,), "numpy.float32"), ((3,), "numpy.float32"), None),
                             what="the _input_meta of ag.clamp(x.exp(), min=lo)", rule=NODE("input-meta"))

        m = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        a, b = m[:2].unbind(0)
        call(lambda: (a * b).sum().backward(), what="(a * b).sum().backward() for a, b = m[:2].unbind(0)",
             rule=NODE("output-nr"))
        grading.expect_close(m.grad, [[3.0, 4.0], [1.0, 2.0], [0.0, 0.0]],
                             what="m.grad for (a * b).sum(), a, b = m[:2].unbind(0)", rule=NODE("output-nr"))

        m.grad = None
        top, middle, bottom = call(rows_of, m, what="rows_of(m)", rule=NODE("one-node"))
        grading.expect_equal([t._output_nr for t in (top, middle, bottom)], [0, 1, 2],
                             what="the _output_nr of top, middle, bottom = rows_of(m)", rule=NODE("output-nr"))
        call(lambda: (top + 3 * bottom).sum().backward(), what="(top + 3 * bottom).sum().backward()",
             rule=NODE("num-outputs"))
        grading.expect_close(m.grad, [[1.0, 1.0], [0.0, 0.0], [3.0, 3.0]],
                             what="m.grad for (top + 3 * bottom).sum(), top, middle, bottom = rows_of(m)",
                             rule=NODE("output-nr"))


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
    # By name, so that a seed picks the same class whatever order the rule table's modules
    # declare them in.
    classes = sorted((c for c in ag.derivatives.NODES.values() if not c.variadic), key=lambda c: c.__name__)
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


def compare_recorded_graph(collect, record, seed):
    """``random_recorded_graph(seed)`` recorded by your functions against the same graph recorded
    by the library's (returns nothing: a test cell may end with it)."""
    with library_version("02"):
        ops, expected, expected_flags, expected_grads = random_recorded_graph(seed)
    with grading.checking(_plugs(collect, record)):
        _, structure, flags, grads = call(random_recorded_graph, seed, what=f"a random graph (ops {ops})",
                                          rule=NODE("one-node", "num-outputs"))
    what = f"a random graph (ops {ops}: 0 mul, 1 add, 2 clamp, 3 no_grad, 4 unbind, 5 rows_of, 6 sin)"
    grading.expect_equal(flags, expected_flags, what=f"(k.requires_grad, k.grad_fn is None) for k = h * 3 under "
                                                     f"no_grad in {what}", rule=NODE("when"))
    grading.expect_equal([(s[0], [n for n, _ in s[1]]) for s in structure], [(e[0], [n for n, _ in e[1]]) for e in expected],
                         what=f"the nodes of {what} and the nodes in their next_functions", rule=NODE("edges", "no-edge"))
    grading.expect_equal([s[1] for s in structure], [e[1] for e in expected],
                         what=f"the next_functions of the nodes of {what}, with their output numbers",
                         rule=NODE("output-nr"))
    grading.expect_equal([s[2] for s in structure], [e[2] for e in expected],
                         what=f"the _input_meta of the nodes of {what}", rule=NODE("input-meta"))
    for name, seen, wanted in zip("abm", grads, expected_grads):
        grading.expect_equal(*[None if g is None else (tuple(g.shape), g.dtype) for g in (seen, wanted)],
                             what=f"the shape and dtype of {name}.grad in {what}", rule=NODE("input-meta"))
        if wanted is not None:
            grading.expect_close(seen, wanted, rtol=1e-4, what=f"{name}.grad in {what}", rule=NODE("output-nr"))
