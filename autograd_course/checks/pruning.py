"""Visible checks of assignment 04, exercise 4: ``nodes_to_run``, the nodes a pass runs (and the ones
``autograd.grad`` prunes).

``autograd_course.checks.leaves`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote, and its
docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the same
cells run: the same rules on random graphs and targets drawn from the generators the cell passes.
The constants are the rules the checks name (``grading.rules("04.nodes_to_run")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version, outcome, quietly

from .leaf_stories import _expect_equal

__all__ = ["nodes_to_run", "nodes_to_run_in_the_engine", "nodes_to_run_random", "nodes_to_run_in_the_engine_random",
           "named", "expect_pruned", "prune_cases", "section6_graph", "random_graph", "random_prune_case",
           "pruned_story", "deep_chain_grad", "PRUNE_ANCESTORS", "PRUNE_TARGETS", "PRUNE_OTHERS", "PRUNE_DEEP",
           "prune_rule"]

PRUNE = grading.rules("04.nodes_to_run")
PRUNE_ANCESTORS = PRUNE("ancestors")
PRUNE_TARGETS = PRUNE("targets")
PRUNE_OTHERS = PRUNE("others")
PRUNE_DEEP = PRUNE("deep")
PRUNE_SEEN = PRUNE("ancestors", "others", "targets")


def named(nodes, order):
    """The nodes of a set as sorted labels "#i Name", i their place in ``order``."""
    if not isinstance(nodes, (set, frozenset, list, tuple)):
        return f"an object of type {type(nodes).__name__}"
    place = {node: i for i, node in enumerate(order)}
    return sorted((f"#{place[n]} {n.name()}" if n in place else f"a node not in the graph ({n!r:.40})")
                  for n in set(nodes))


def prune_rule(seen, expected, target_labels):
    """The rule a wrong set breaks, judged from how it differs."""
    if not isinstance(seen, list):
        return PRUNE_ANCESTORS
    extra = [n for n in seen if n not in expected and n not in target_labels]
    if extra:
        return PRUNE_OTHERS
    if (set(seen) ^ set(expected)) & set(target_labels):
        return PRUNE_TARGETS
    return PRUNE_ANCESTORS


def expect_pruned(fn, cases):
    """fn (your nodes_to_run) on each case {label: (the graph's nodes in order, targets,
    expected labels)}; a target outside the graph is named after the graph's nodes."""
    for label, (order, targets, expected) in cases.items():
        names = order + [t for t in targets if t not in order]
        target_labels = named(targets, names)
        what = f"nodes_to_run(every node of {label}, targets {target_labels})"
        seen = named(call(fn, set(order), set(targets), what=what, rule=PRUNE_ANCESTORS), names)
        _expect_equal(seen, expected, what, prune_rule(seen, expected, target_labels))


def prune_cases():
    """{label: (the graph's nodes in order, the target nodes)} of six graphs and their targets."""
    edge = ag.autograd.graph.get_gradient_edge
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    bias = ag.tensor([0.5], requires_grad=True)
    h = w * 3
    loss = (h * w + bias).sum()
    order = ag.viz.graph_nodes(loss)       # the nodes in a fixed order, to name them "#3 MulBackward0"
    cases = {"loss = (h * w + bias).sum(), h = w * 3; the targets of inputs=[w]": (order, [edge(w).node]),
             "the same loss; inputs=[h]": (order, [edge(h).node]),
             "the same loss; inputs=[h, w]": (order, [edge(h).node, edge(w).node]),
             "the same loss; inputs=[h, bias]": (order, [edge(h).node, edge(bias).node])}
    other = ag.tensor([1.0], requires_grad=True)
    cases["the same loss; inputs=[other], a leaf it does not use"] = (order, [edge(other).node])
    a, b, c = ag.unbind(ag.tensor([[1.0], [2.0], [3.0]], requires_grad=True) * 2)
    out = (a * b).sum() + c.exp().sum()
    cases["out = (a * b).sum() + c.exp().sum(), a, b, c = unbind(m * 2); inputs=[c]"] = (
        ag.viz.graph_nodes(out), [edge(c).node])
    return cases


def _pruned_cases(cases):
    """The cases with the library's answer added."""
    reference = exercises.reference("04.nodes_to_run")
    return {label: (order, targets, named(reference(set(order), set(targets)),
                                          order + [t for t in targets if t not in order]))
            for label, (order, targets) in cases.items()}


def nodes_to_run(fn):
    """Your ``nodes_to_run`` called directly on the graph of section 6's loss with the
    targets of five ``inputs=`` lists (a leaf, a non-leaf, a non-leaf and the leaf below
    it, two branches, a leaf the loss does not use) and on a graph with ``unbind``: the
    set of nodes it returns (ancestors, targets, others)."""
    cases = _pruned_cases(prune_cases())
    with grading.checking("04.nodes_to_run", fn):
        expect_pruned(fn, cases)


def section6_graph():
    """The tensors of the engine check's graph: leaves w and v, h = w * 3, g = (h * v).tanh(),
    k = v.exp(), loss = (g * w).sum() + k.sum()."""
    w = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    v = ag.tensor([0.3, -0.1], dtype=ag.float64, requires_grad=True)
    h = w * 3
    g = (h * v).tanh()
    k = v.exp()
    return {"w": w, "v": v, "h": h, "g": g, "k": k, "loss": (g * w).sum() + k.sum()}


RANDOM_OPS = [("a * b", lambda a, b: a * b), ("a + b", lambda a, b: a + b),
              ("(a * 0.5).tanh() - b", lambda a, b: (a * 0.5).tanh() - b), ("a.exp() * 0.1", lambda a, b: a.exp() * 0.1)]


def random_graph(rng):
    """Leaves w and v, then three to eight tensors t0, t1, ..., each a random op of two earlier
    ones, and loss, the sum of all the t's."""
    tensors = {"w": ag.tensor(rng.standard_normal(2), requires_grad=True),
               "v": ag.tensor(rng.standard_normal(2), requires_grad=True)}
    for i in range(int(rng.integers(3, 9))):
        names = list(tensors)
        a, b = (tensors[names[int(rng.integers(len(names)))]] for _ in "ab")
        tensors[f"t{i}"] = RANDOM_OPS[int(rng.integers(len(RANDOM_OPS)))][1](a, b)
    tensors["loss"] = sum((t.sum() for n, t in tensors.items() if n.startswith("t")), ag.tensor(0.0))
    return tensors


def random_prune_case(seed):
    """A random graph and one to three of its tensors: (label, the graph's nodes, the targets)."""
    rng = np.random.default_rng(seed)
    tensors = random_graph(rng)
    names = [n for n in tensors if n != "loss"]
    wanted = [names[int(i)] for i in rng.choice(len(names), size=int(rng.integers(1, 4)), replace=False)]
    label = f"a random graph of {len(tensors) - 3} ops (seed {seed}), inputs={wanted}"
    return label, ag.viz.graph_nodes(tensors["loss"]), [ag.autograd.graph.get_gradient_edge(tensors[n]).node
                                                        for n in wanted]


def nodes_to_run_random(fn, rngs):
    """Your ``nodes_to_run`` on random graphs of three to eight ops and one to three random
    targets, against the library's version."""
    cases = {}
    for rng in rngs:
        label, order, targets = random_prune_case(int(rng.integers(2**32)))
        cases[label] = (order, targets)
    cases = _pruned_cases(cases)
    with grading.checking("04.nodes_to_run", fn):
        expect_pruned(fn, cases)


def pruned_story(seed=None):
    """What a user sees of the pruning: backward(inputs=...) and autograd.grad on a graph with
    a hook on every tensor, then the gradients, the .grad of every leaf and which hooks fired.
    Without a seed, five fixed calls on section6_graph(); with one, three on a random graph."""
    rng = np.random.default_rng(seed)
    tensors = section6_graph() if seed is None else random_graph(rng)
    fired = []
    for name, t in tensors.items():
        t.register_hook(lambda grad, name=name: fired.append(name))
    names = [n for n in tensors if n != "loss"]
    calls = ([("backward", ["w"]), ("backward", ["h"]), ("grad", ["h"]), ("grad", ["w", "h"]), ("grad", ["k"])]
             if seed is None else
             [("backward" if rng.integers(2) else "grad",
               [names[int(i)] for i in rng.choice(len(names), size=int(rng.integers(1, 3)), replace=False)])
              for _ in range(3)])
    leaves = [tensors["w"], tensors["v"]]
    story = []
    for kind, wanted in calls:
        fired.clear()
        inputs = [tensors[n] for n in wanted]
        for t in leaves:
            t.grad = None
        if kind == "backward":
            result = outcome(quietly, tensors["loss"].backward, inputs=inputs, retain_graph=True)
            grads = [t.grad for t in inputs]
        else:
            result = outcome(ag.autograd.grad, tensors["loss"], inputs, retain_graph=True, allow_unused=True)
            grads = list(result) if isinstance(result, tuple) else [result]
        story.append((f"{kind} of loss with inputs={wanted}",
                      [g if g is None or isinstance(g, str) else np.round(g.tolist(), 6).tolist() for g in grads],
                      [None if t.grad is None else np.round(t.grad.tolist(), 6).tolist() for t in leaves],
                      sorted(set(fired))))
    return story


def deep_chain_grad(length=3000, middle=1500):
    """autograd.grad through a chain of ``length`` additions, to the tensor after addition
    number ``middle``: its gradient, or the error."""
    t = ag.tensor([1.0], requires_grad=True)
    wanted = None
    for i in range(length):
        t = t + 1
        if i == middle:
            wanted = t
    return outcome(lambda: ag.autograd.grad(t.sum(), [wanted])[0].tolist())


def nodes_to_run_in_the_engine(fn):
    """Your ``nodes_to_run`` inside ``backward(inputs=...)`` and ``autograd.grad``, on a graph
    with a hook on every tensor: ``backward(inputs=[w])``, ``backward(inputs=[h])``,
    ``autograd.grad`` of ``h``, of ``w`` and ``h``, of a branch ``k``: the gradients, every
    leaf's ``.grad`` and which hooks fired; then ``autograd.grad`` halfway up a chain of 3000
    additions (deep)."""
    with library_version("04"):
        expected = pruned_story()
    with grading.checking("04.nodes_to_run", fn):
        seen = pruned_story()
        chain = deep_chain_grad()
    for s, e in zip(seen, expected):
        _expect_equal(s, e, f"{e[0]}: (the call, the gradients, (w.grad, v.grad), the hooks that fired)", PRUNE_SEEN)
    _expect_equal(chain, [1.0], "autograd.grad(chain.sum(), [the tensor halfway up a chain of 3000 additions])",
                  PRUNE_DEEP)


def nodes_to_run_in_the_engine_random(fn, rngs):
    """``backward(inputs=...)`` and ``autograd.grad`` on random graphs with a hook on every
    tensor, and ``autograd.grad`` up two chains of random length."""
    seeds = [int(rng.integers(2**32)) for rng in rngs]
    chains = [(int(rng.integers(1200, 2500)), int(rng.integers(0, 1200))) for rng in rngs[:2]]
    with library_version("04"):
        expected = [pruned_story(seed) for seed in seeds]
        expected_chains = [deep_chain_grad(n, m) for n, m in chains]
    with grading.checking("04.nodes_to_run", fn):
        seen = [pruned_story(seed) for seed in seeds]
        seen_chains = [deep_chain_grad(n, m) for n, m in chains]
    for seed, s, e in zip(seeds, seen, expected):
        _expect_equal(s, e, f"a random graph with a hook on every tensor (seed {seed}): for each call, the gradients, "
                            "(w.grad, v.grad) and the hooks that fired", PRUNE_SEEN)
    for (n, m), s, e in zip(chains, seen_chains, expected_chains):
        _expect_equal(s, e, f"autograd.grad through a chain of {n} additions, to the tensor after addition {m}",
                      PRUNE_DEEP)
