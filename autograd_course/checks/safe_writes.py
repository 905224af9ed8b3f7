"""Visible checks of assignment 08's exercise 1, ``safe_writes``: in-place writes made safe.

The exercise fills three slots at once (``increment_version``, ``check_version``,
``check_inplace``), so every check takes your three functions and grades them together
(``grading.checking`` with all three plugged), each failure naming the rule of the task
text it breaks.  ``autograd_course.checks.inplace`` (the notebook's ``check``) imports these
checks; each function is the visible part of one test cell, and its docstring says what
it tries.  The ``random_...`` and ``..._story`` functions build the hidden tests' random
cases; the small helpers at the top are shared with the notebook's demos.

Why one module of this length: it holds the three test cells of one exercise and the
random stories their hidden parts run, so that the rules they name stay in one place.
"""

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import outcome

__all__ = [
    "versions_counted", "saved_tensors_checked", "leaf_rule",
    "error_text", "versions", "without_hint", "iadd", "backward_error", "plugs", "blame",
    "version_story", "random_version_case", "write_story", "grad_versions",
    "saved_checks", "random_saved_case", "saved_case_text", "edited_graph", "written_constant",
    "leaf_outcomes", "random_leaf_case", "leaf_story", "expect_leaf_outcomes", "expect_random_leaves", "expect_refusal",
    "expect_version_stories", "expect_write_stories", "expect_saved_checks", "expect_edited_graphs",
    "expect_written_constants", "expect_leaf_stories", "VERSION_KINDS",
    "SAFE", "COUNT", "SHARED", "UNCHANGED", "MODIFIED", "NAMES", "LEAF",
    "ALLOWED", "COUNT_SHARED", "SAVED_RULES", "LEAF_RULES", "PREFIX", "LEAF_MESSAGE", "VIEW_MESSAGE",
]

SLOTS = ("08.increment_version", "08.check_version", "08.check_inplace")

SAFE = grading.rules("08.safe_writes")
COUNT = SAFE("count")
SHARED = SAFE("shared")
UNCHANGED = SAFE("unchanged")
MODIFIED = SAFE("modified")
NAMES = SAFE("names")
LEAF = SAFE("leaf")
ALLOWED = SAFE("allowed")
COUNT_SHARED = SAFE("count", "shared")
SAVED_RULES = SAFE("unchanged", "modified", "names")
LEAF_RULES = SAFE("leaf", "allowed")

PREFIX = ("RuntimeError: one of the variables needed for gradient computation has been modified by an "
          "inplace operation: ")
LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


# ------------------------------------------------------------------ helpers

def error_text(value):
    """The error text of an outcome, or None when there was no error."""
    return value if isinstance(value, str) else None


def versions(*tensors):
    """The _version of each tensor, as a tuple."""
    return tuple(t._version for t in tensors)


def without_hint(text):
    """An error text without its " Hint: ..." sentence (the part where PyTorch's text differs)."""
    return text.split(" Hint:")[0] if isinstance(text, str) else text


def iadd(t, value):
    """t += value, as a function (a lambda cannot contain +=)."""
    t += value
    return t


def backward_error(loss):
    """``loss.backward()``: the middle of its "modified by an inplace operation" message (between
    "inplace operation: " and the hint), another error as its text, or "no error"."""
    try:
        loss.backward()
    except RuntimeError as e:
        text = str(e)
        return text.split("inplace operation: ")[1].split(" Hint:")[0] if "inplace operation: " in text else text
    return "no error"


def plugs(increment_version, check_version, check_inplace):
    """The three functions of the exercise by their slots, for ``grading.checking``."""
    return dict(zip(SLOTS, (increment_version, check_version, check_inplace)))


def blame(seen, rule):
    """The rule a wrong outcome breaks: an unexpected refusal of a write is the leaf rule's,
    an unexpected "modified" error the saved-tensor check's, anything else ``rule``."""
    text = seen if isinstance(seen, str) else repr(seen)
    if LEAF_MESSAGE in text or VIEW_MESSAGE in text:
        return ALLOWED
    if "modified by an inplace operation" in text:
        return UNCHANGED
    return rule


def _expect(seen, expected, what, rule):
    """expect_equal, naming ``rule`` unless the difference is an error of another rule."""
    _equal(seen, expected, what, blame(seen, rule) if seen != expected else rule)


def _equal(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


# ---------------------------------------------------------- counting writes

def versions_counted(increment_version, check_version, check_inplace):
    """Your three functions, plugged together, counting writes.  ``increment_version``
    called directly: twice on a leaf (it returns None, adds one each time, leaves the values
    alone), on a constant, under ``no_grad``, and on a non-leaf, its view and its ``detach()``,
    which must all move together and keep their counter object (rules ``count``,
    ``shared``).  Then the library's writes: seven in-place writes count one each and
    ``x + 1`` none; writes through a view, ``detach()`` and ``.data``; an update under
    ``no_grad``; the in-place addition into ``.grad`` of a second ``backward()``."""
    with grading.checking(plugs(increment_version, check_version, check_inplace)):
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        grading.expect_equal(outcome(increment_version, w), None, what="increment_version(w) on a new leaf w",
                             rule=COUNT)
        grading.expect_equal(w._version, 1, what="w._version after one increment_version(w)", rule=COUNT)
        outcome(increment_version, w)
        grading.expect_equal(w._version, 2, what="w._version after two calls of increment_version(w)", rule=COUNT)
        grading.expect_equal(w.tolist(), [1.0, 2.0, 3.0], what="w's values after increment_version(w)",
                             rule=COUNT)
        c = ag.tensor([1.0, 2.0])
        outcome(increment_version, c)
        grading.expect_equal(c._version, 1, what="c._version after increment_version(c), c = ag.tensor([1., 2.])",
                             rule=COUNT)
        with ag.no_grad():
            outcome(increment_version, w)
        grading.expect_equal(w._version, 3, what="w._version after increment_version(w) under no_grad", rule=COUNT)

        h = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True) * 2
        counter = h._version_counter
        view, alias = h[1:3], h.detach()
        for n, (name, t) in enumerate((("h", h), ("h[1:3]", view), ("h.detach()", alias))):
            outcome(increment_version, t)
            grading.expect_equal(versions(h, view, alias), (n + 1,) * 3,
                                 what=f"(h, h[1:3], h.detach()) versions after increment_version({name})",
                                 rule=SHARED)
        grading.expect_true(h._version_counter is counter and view._version_counter is counter,
                            what="h and h[1:3] still hold their counter object", seen="a new counter object",
                            rule=SHARED)

        x = ag.zeros(3)
        seen = []
        for write in (lambda: x.add_(1), lambda: iadd(x, 1), lambda: x.__setitem__(0, 5.0), x.zero_,
                      lambda: x.fill_(2.0), lambda: x.copy_(ag.ones(3)), lambda: x.mul_(2)):
            seen.append(error_text(outcome(write)) or x._version)
        _expect(seen, [1, 2, 3, 4, 5, 6, 7], what="x._version after x.add_(1), x += 1, x[0] = 5., x.zero_(), "
                "x.fill_(2.), x.copy_(ones), x.mul_(2)", rule=COUNT)
        y = x + 1
        grading.expect_equal(versions(x, y), (7, 0), what="(x, y) versions after y = x + 1", rule=COUNT)

        base = ag.zeros(4)
        view, alias, data = base[1:3], base.detach(), base.data
        seen = [error_text(outcome(view.mul_, 10)), error_text(outcome(alias.add_, 1)),
                error_text(outcome(data.add_, 1))]
        _expect((seen, versions(base, view, alias, data)), ([None] * 3, (2, 2, 2, 1)),
                what="(errors, versions of base, base[1:3], base.detach(), base.data) after base[1:3].mul_(10), "
                     "base.detach().add_(1), base.data.add_(1)", rule=SHARED)

        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with ag.no_grad():
            error = error_text(outcome(lambda: iadd(w, -0.1)))
        _expect(error or w._version, 1, what="w._version after `w -= 0.1` under no_grad (w requires grad)",
                rule=COUNT)
        outcome(lambda: (w ** 2).sum().backward())
        grad = w.grad
        error = error_text(outcome(lambda: (w ** 2).sum().backward()))
        _expect(error or (None if grad is None else grad._version), 1,
                what="w.grad._version after a second backward (it adds into .grad in place, under no_grad)",
                rule=COUNT)


VERSION_KINDS = ("a constant", "a leaf that requires grad", "a non-leaf")
VERSION_ALIASES = {"t[1:]": lambda t: t[1:], "t[::2]": lambda t: t[::2], "t.t()": lambda t: t.t(),
                   "t.detach()": lambda t: t.detach(), "t.detach()[:1]": lambda t: t.detach()[:1]}


def random_version_case(rng, kind):
    """A random tensor of this kind (dtype, shape, values), two random aliases of it and
    ``t.data``, and random calls of increment_version: (which tensor, grad mode)."""
    dtype = (ag.float32, ag.float64, ag.int64)[int(rng.integers(3 if kind == "a constant" else 2))]
    shape = tuple(int(n) for n in rng.integers(2, 5, size=int(rng.integers(1, 3))))
    values = (rng.standard_normal(shape) * 5).astype(dtype.numpy)
    names = (["t"] + [list(VERSION_ALIASES)[int(i)] for i in rng.choice(len(VERSION_ALIASES), size=2,
                                                                         replace=False)] + ["t.data"])
    calls = [(names[int(rng.integers(len(names)))], bool(rng.integers(2))) for _ in range(int(rng.integers(2, 6)))]
    return kind, dtype, shape, values, names, calls


def version_story(fn, case):
    """``fn`` (an increment_version) called as a random case plans: after each call, (what it
    returned, every alias's version, whether every alias holds its counter object, t's values)."""
    kind, dtype, shape, values, names, calls = case
    t = ag.tensor(values.copy(), dtype=dtype, requires_grad=kind != "a constant")
    if kind == "a non-leaf":
        t = t * 2
    tensors = {name: t if name == "t" else t.data if name == "t.data" else VERSION_ALIASES[name](t)
               for name in names}
    counters = {name: alias._version_counter for name, alias in tensors.items()}
    story = []
    for name, grad_mode in calls:
        with ag.set_grad_enabled(grad_mode):
            returned = outcome(fn, tensors[name])
        story.append((repr(returned), {n: alias._version for n, alias in tensors.items()},
                      all(alias._version_counter is counters[n] for n, alias in tensors.items()),
                      grading.to_list(t)))
    return story


WRITES = (("add_", lambda t, r: t.add_(r)), ("mul_", lambda t, r: t.mul_(r)),
          ("sub_", lambda t, r: t.sub_(r, alpha=2)), ("div_", lambda t, r: t.div_(r)),
          ("+=", lambda t, r: iadd(t, r)), ("zero_", lambda t, r: t.zero_()), ("fill_", lambda t, r: t.fill_(r)),
          ("copy_", lambda t, r: t.copy_(ag.tensor(np.full(tuple(t.shape), r)))),
          ("clamp_", lambda t, r: t.clamp_(min=r)), ("t[0] = r", lambda t, r: t.__setitem__(0, r)),
          ("t[...] = r", lambda t, r: t.__setitem__(Ellipsis, r)),
          ("increment_version", lambda t, r: ag.graph.increment_version(t)))


def write_story(seed):
    """Random in-place writes through the library into one storage, through its aliases, in
    random grad modes: for each, (kind, alias, write, grad mode, error, every alias's version)."""
    rng = np.random.default_rng(seed)
    kind = ("plain", "non-leaf", "leaf")[int(rng.integers(3))]
    source = ag.tensor(rng.standard_normal(int(rng.integers(3, 7))), requires_grad=kind != "plain")
    base = source * 1.0 if kind == "non-leaf" else source
    aliases = {"base": base, "base[1:]": base[1:], "base[::2]": base[::2], "base.detach()": base.detach(),
               "base.data": base.data}
    story = []
    for _ in range(int(rng.integers(3, 10))):
        name = list(aliases)[int(rng.integers(len(aliases)))]
        write, fn = WRITES[int(rng.integers(len(WRITES)))]
        grad_mode = kind != "leaf" and bool(rng.integers(2))
        with ag.set_grad_enabled(grad_mode):
            result = outcome(fn, aliases[name], float(rng.uniform(0.5, 1.5)))
        story.append((kind, name, write, grad_mode, error_text(result), {k: t._version for k, t in aliases.items()}))
    return story


def grad_versions(seed):
    """The version of x.grad after each of several backward calls (each adds into .grad in place)."""
    rng = np.random.default_rng(seed)
    x = ag.tensor(rng.standard_normal(3), requires_grad=True)
    seen = []
    for _ in range(int(rng.integers(2, 6))):
        error = error_text(outcome(lambda: (x.sin() * float(rng.uniform(1, 2))).sum().backward()))
        seen.append(error or (None if x.grad is None else x.grad._version))
    return seen


# --------------------------------------------------------- checking saved tensors

def expect_refusal(seen, middle, what, rule):
    """``seen``, the outcome of a check_version call, must be PyTorch's error whose text between
    "inplace operation: " and the hint is ``middle``; ``rule`` names the producer's rule."""
    if not isinstance(seen, str):
        grading.expect_equal(seen, PREFIX + middle + " Hint: [...]", what=what, rule=MODIFIED)
    grading.expect_true(seen.startswith(PREFIX), what=what, seen=seen, rule=MODIFIED)
    seen_tensor, _, seen_versions = without_hint(seen)[len(PREFIX):].partition(" is at version ")
    tensor, _, expected_versions = middle.partition(" is at version ")
    grading.expect_equal(seen_tensor, tensor, what=f"the start of the message of {what}", rule=rule)
    grading.expect_equal("is at version " + seen_versions, "is at version " + expected_versions,
                         what=f"the end of the message of {what}", rule=MODIFIED)


def saved_tensors_checked(increment_version, check_version, check_inplace):
    """Your three functions, plugged together, checking saved tensors.  First that a write
    counts at all (rule ``count``).  Then ``check_version`` called directly: ``exp``'s saved
    output before and after a write (named after ``Exp``, the node that saved it), a saved
    non-leaf input and a saved constant after writes (named after their current ``grad_fn``,
    or nothing), an unmodified one, a tensor written before it was saved.  A refusal must be
    PyTorch's error, word for word up to the hint.  Then ``backward()``: a written ``sigmoid``
    output, an input written through ``h[0] = 0.``, a weight updated under ``no_grad`` between
    forward and backward are refused; a tensor written before it was saved, an ``add`` whose
    input was written (it saved nothing) and a second derivative go through."""
    with grading.checking(plugs(increment_version, check_version, check_inplace)):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        node = y.grad_fn
        saved = node._saved["result"]
        grading.expect_equal(outcome(check_version, saved, node), None,
                             what="check_version(saved, node) for y = x.exp() before any write", rule=UNCHANGED)
        error = error_text(outcome(y.add_, 1))
        _expect(error or y._version, 1, what="y._version after y = x.exp(); y.add_(1) (a write must count "
                "before it can be noticed)", rule=COUNT)
        expect_refusal(outcome(check_version, saved, node),
                       "[autograd_lib.FloatTensor [3]], which is output 0 of Exp, is at version 1; "
                       "expected version 0 instead.",
                       what="check_version(saved, node) for exp's saved output after y.add_(1)", rule=NAMES)

        w = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        h = x * 2
        z = h * w
        node = z.grad_fn
        outcome(h.add_, 1)
        expect_refusal(outcome(check_version, node._saved["self"], node),
                       "[autograd_lib.FloatTensor [3]], which is output 0 of Add, is at version 1; "
                       "expected version 0 instead.",
                       what="check_version for h, saved by z = h * w, after h.add_(1)", rule=NAMES)
        grading.expect_equal(outcome(check_version, node._saved["other"], node), None,
                             what="check_version for w, saved by z = h * w and never written", rule=UNCHANGED)

        c = ag.tensor([[4.0, 5.0], [6.0, 7.0]], dtype=ag.float64)
        x2 = ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ag.float64, requires_grad=True)
        z = x2 * c
        node = z.grad_fn
        outcome(c.mul_, 2)
        outcome(c.mul_, 2)
        expect_refusal(outcome(check_version, node._saved["other"], node),
                       "[autograd_lib.DoubleTensor [2, 2]] is at version 2; expected version 0 instead.",
                       what="check_version for the constant c (no grad_fn), saved by z = x * c, after two c.mul_(2)",
                       rule=NAMES)

        h = x * 2
        outcome(h.add_, 1)                           # written before it is saved: saved at version 1
        z = h.sin()
        node = z.grad_fn
        grading.expect_equal(outcome(check_version, node._saved["self"], node), None,
                             what="check_version for h, saved by h.sin() after h.add_(1) (saved at version 1)",
                             rule=UNCHANGED)
        outcome(h.mul_, 3)
        expect_refusal(outcome(check_version, node._saved["self"], node),
                       "[autograd_lib.FloatTensor [3]], which is output 0 of Mul, is at version 2; "
                       "expected version 1 instead.",
                       what="check_version for the same h after h.mul_(3)", rule=MODIFIED)

    expected, seen = grading.side_by_side(
        plugs(increment_version, check_version, check_inplace), None,
        lambda fns: {label: outcome(_STORIES[key]) for label, (key, _) in SAVED_STORIES.items()})
    for label, (_, rule) in SAVED_STORIES.items():
        _expect(seen[label], expected[label], label, rule)


SAVED_STORIES = {
    "y.sum().backward() after y = x.sigmoid(); y.mul_(2)": ("sigmoid", NAMES),
    "y.sum().backward() after h = x * 2; y = h.sin(); h[0] = 0.": ("input set", NAMES),
    "loss.backward() after loss = (w * w).sum(); w -= 0.1 under no_grad": ("weight updated", NAMES),
    "(error, x.grad) of (h * h).sum() after h = x * 2; h.mul_(3)": ("written before", UNCHANGED),
    "(error, x.grad) of (h + 1).sum() after h = x * 2; h.add_(1) (add saves nothing)": ("add input", UNCHANGED),
    "the second derivative of exp(x), nothing written": ("second order", UNCHANGED),
}


def _grad(t):
    return None if t.grad is None else np.round(t.grad.tolist(), 6).tolist()


def _sigmoid_written():
    x = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    return backward_error(y.sum()), _grad(x)


def _input_set():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    y = h.sin()
    h[0] = 0.0
    return backward_error(y.sum()), _grad(x)


def _weight_updated():
    w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (w * w).sum()
    with ag.no_grad():
        w -= 0.1
    return backward_error(loss), _grad(w), w._version


def _written_before():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    h.mul_(3)
    return backward_error((h * h).sum()), _grad(x)


def _add_input():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    y = h + 1
    h.add_(1)
    return backward_error(y.sum()), _grad(x)


def _second_order():
    x = ag.tensor([0.0, 1.0], requires_grad=True)
    (g,) = ag.autograd.grad(x.exp().sum(), x, create_graph=True)
    return np.round(ag.autograd.grad(g.sum(), x)[0].tolist(), 6).tolist()


_STORIES = {"sigmoid": _sigmoid_written, "input set": _input_set, "weight updated": _weight_updated,
            "written before": _written_before, "add input": _add_input, "second order": _second_order}


SAVING_OPS = {"h.exp()": lambda h, c: h.exp(), "h.sigmoid()": lambda h, c: h.sigmoid(),
              "h.tanh()": lambda h, c: h.tanh(), "h.sqrt()": lambda h, c: h.sqrt(), "h.sin()": lambda h, c: h.sin(),
              "h.log()": lambda h, c: h.log(), "h ** 2": lambda h, c: h ** 2, "h * c": lambda h, c: h * c,
              "h * h": lambda h, c: h * h}
EDITS = ("add_", "mul_", "t[0] = r", "detach().mul_", "data.mul_", "no_grad mul_")


def random_saved_case(rng):
    """A random case: dtype, shape, values, whether h is a leaf and c requires grad, the op
    that saves, writes into h before the op, and writes after it (target, edit, number)."""
    dtype = (ag.float32, ag.float64)[int(rng.integers(2))]
    shape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(1, 3))))
    values = rng.uniform(0.5, 1.5, size=(2,) + shape)
    h_leaf, c_grad = bool(rng.integers(4) == 0), bool(rng.integers(2))
    op = list(SAVING_OPS)[int(rng.integers(len(SAVING_OPS)))]
    before = [EDITS[int(rng.integers(3))] for _ in range(int(rng.integers(0, 3)))]
    targets = ["h", "y", "c"] if op == "h * c" else ["h", "y"]
    after = [(targets[int(rng.integers(len(targets)))], EDITS[int(rng.integers(len(EDITS)))],
              round(float(rng.uniform(1, 2)), 2)) for _ in range(int(rng.integers(0, 4)))]
    return dtype, shape, values, h_leaf, c_grad, op, before, after


def _edit(t, how, r):
    """An in-place write into t; a leaf that requires grad is written under no_grad (the leaf rule)."""
    grad_mode = how != "no_grad mul_" and not (t.requires_grad and t.grad_fn is None)
    with ag.set_grad_enabled(grad_mode):
        {"add_": lambda: t.add_(r), "mul_": lambda: t.mul_(r), "t[0] = r": lambda: t.__setitem__(0, r),
         "detach().mul_": lambda: t.detach().mul_(r), "data.mul_": lambda: t.data.mul_(r),
         "no_grad mul_": lambda: t.mul_(r)}[how]()


def saved_checks(fn, case):
    """Build a random case; ``fn`` (a check_version) on every tensor that y's node saved:
    (name, saved version, is_output, outcome)."""
    dtype, shape, values, h_leaf, c_grad, op, before, after = case
    x = ag.tensor(values[0], dtype=dtype, requires_grad=True)
    h = x if h_leaf else x * 1.5
    c = ag.tensor(values[1], dtype=dtype, requires_grad=c_grad)
    for how in before:
        _edit(h, how, 1.25)
    y = SAVING_OPS[op](h, c)
    node = y.grad_fn
    targets = {"h": h, "y": y, "c": c}
    for target, how, r in after:
        _edit(targets[target], how, r)
    return [(name, saved.version, saved.is_output, outcome(fn, saved, node))
            for name, saved in sorted(node._saved.items()) if saved is not None]


def saved_case_text(n, case):
    """The label of a random saved case, as a student would write it."""
    dtype, shape, _, h_leaf, c_grad, op, before, after = case

    def edit_text(target, how, r):
        return {"t[0] = r": f"{target}[0] = {r}", "no_grad mul_": f"{target}.mul_({r}) under no_grad"}.get(
            how, f"{target}.{how}({r})")
    h = "a leaf x" if h_leaf else "x * 1.5"
    c = f"c a {'leaf that requires grad' if c_grad else 'constant'}, " if "c" in op else ""
    writes = "".join(edit_text("h", how, 1.25) + ", " for how in before)
    edits = ", ".join(edit_text(target, how, r) for target, how, r in after) or "nothing"
    return f"random case #{n} ({dtype}, shape {shape}): h = {h}, {c}{writes}y = {op}, then written: {edits}"


UNARY = {"exp({})": lambda a: a.exp(), "sigmoid({})": lambda a: a.sigmoid(), "tanh({})": lambda a: a.tanh(),
         "sin({})": lambda a: a.sin(), "relu({})": lambda a: a.relu(), "sqrt(abs({}))": lambda a: a.abs().sqrt(),
         "({} + 1)": lambda a: a + 1.0, "({} * 2)": lambda a: a * 2.0, "({} ** 2)": lambda a: a ** 2,
         "cos({})": lambda a: a.cos()}
GRAPH_EDITS = (("add_", lambda t, r: t.add_(r)), ("mul_", lambda t, r: t.mul_(r)),
               ("detach().mul_", lambda t, r: t.detach().mul_(r)), ("t[0] = r", lambda t, r: t.__setitem__(0, r)),
               ("data.mul_", lambda t, r: t.data.mul_(r)), ("t[:1].mul_", lambda t, r: t[:1].mul_(r)))


def edited_graph(fn, seed):
    """A random graph on x and a constant c, then random in-place writes: ``fn`` (a
    check_version) on every saved tensor of every node, then backward of the sum of
    everything that requires grad: (writes, checks, backward's error, x.grad)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 4))
    x = ag.tensor(rng.uniform(0.5, 1.5, size=n), dtype=ag.float64, requires_grad=True)
    c = ag.tensor(rng.uniform(0.5, 1.5, size=n), dtype=ag.float64)
    pool, names = [x * 1.0, c], ["h", "c"]
    for _ in range(int(rng.integers(2, 7))):
        i, j = (int(k) for k in rng.integers(len(pool), size=2))
        if rng.integers(3) == 0:
            product = bool(rng.integers(2))
            pool.append(pool[i] * pool[j] if product else pool[i] + pool[j])
            names.append(f"({names[i]} {'*' if product else '+'} {names[j]})")
        else:
            k = int(rng.integers(len(UNARY)))
            pool.append(list(UNARY.values())[k](pool[i]))
            names.append(list(UNARY)[k].format(names[i]))
    loss = ag.stack([t.sum() for t in pool if t.requires_grad]).sum()
    edits = []
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(len(pool)))
        label, edit = GRAPH_EDITS[int(rng.integers(len(GRAPH_EDITS)))]
        edits.append((names[i], label, error_text(outcome(edit, pool[i], float(rng.uniform(0.5, 1.5))))))
    checks = [(node.name(), name, outcome(fn, s, node)) for node in ag.viz.graph_nodes(loss)
              for name, s in getattr(node, "_saved", {}).items() if s is not None]
    error = error_text(outcome(loss.backward))
    grad = None if x.grad is None else np.round(x.grad.numpy(), 10).tolist()
    return edits, checks, error, grad


def written_constant(seed):
    """A constant c saved by x * c, written a random number of times (in random grad modes,
    through c, a view of it or detach()), then backward: (the writes, c's version, backward's
    error, x.grad)."""
    rng = np.random.default_rng(seed)
    x = ag.tensor(rng.uniform(0.5, 1.5, size=3), requires_grad=True)
    c = ag.tensor(rng.uniform(0.5, 1.5, size=3))
    loss = (x * c).sum()
    writes = []
    for _ in range(int(rng.integers(1, 4))):
        how = ("c", "c[1:]", "c.detach()")[int(rng.integers(3))]
        grad_mode = bool(rng.integers(2))
        target = {"c": c, "c[1:]": c[1:], "c.detach()": c.detach()}[how]
        with ag.set_grad_enabled(grad_mode):
            writes.append((how, grad_mode, error_text(outcome(target.mul_, 2.0))))
    return writes, c._version, backward_error(loss), _grad(x)


# ------------------------------------------------------------------ the leaf rule

def expect_leaf_outcomes(fn, cases):
    """``fn`` (a check_inplace) on every case {label: (t, the outcome in grad mode, rule)}: in
    grad mode, then under no_grad, where everything is allowed."""
    for label, (t, expected, rule) in cases.items():
        _equal(outcome(fn, t), expected, f"check_inplace({label}) in grad mode", rule)
    with ag.no_grad():
        for label, (t, expected, rule) in cases.items():
            grading.expect_equal(outcome(fn, t), None, what=f"check_inplace({label}) under no_grad", rule=ALLOWED)


def leaf_rule(increment_version, check_version, check_inplace):
    """Your three functions, plugged together, on the leaf rule.  ``check_inplace`` called
    directly on nine tensors, in grad mode then under ``no_grad``: a leaf that requires grad
    and three views of such leaves are refused with PyTorch's errors while recording
    (``leaf``, ``view-of-leaf``); a non-leaf, its view, a constant, ``w.detach()`` and its view
    are allowed, and under ``no_grad`` everything is (``allowed``).  Then the library's writes:
    seven into a leaf and one into its view are refused and change nothing; an update under
    ``no_grad`` goes through (``w`` stays a leaf, at version 1); a non-leaf and a constant may
    be written, and backward still gives the right gradient."""
    with grading.checking(plugs(increment_version, check_version, check_inplace)):
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        m = ag.ones(2, 3, requires_grad=True)
        h = w * 2
        d = w.detach()
        expect_leaf_outcomes(check_inplace, {
            "w (a leaf that requires grad)": (w, "RuntimeError: " + LEAF_MESSAGE, LEAF),
            "h = w * 2 (a non-leaf)": (h, None, ALLOWED),
            "h[1:] (a view of a non-leaf)": (h[1:], None, ALLOWED),
            "c = ag.tensor([1., 2.]) (a constant)": (ag.tensor([1.0, 2.0]), None, ALLOWED),
            "w.detach()": (d, None, ALLOWED),
            "w.detach()[1:]": (d[1:], None, ALLOWED),
            "w[1:] (a view of w)": (w[1:], "RuntimeError: " + VIEW_MESSAGE, LEAF),
            "m.t() (a view of the leaf m)": (m.t(), "RuntimeError: " + VIEW_MESSAGE, LEAF),
            "m[0][1:] (a view of a view of the leaf m)": (m[0][1:], "RuntimeError: " + VIEW_MESSAGE, LEAF),
        })

        for label, write in (("w.add_(1)", lambda: w.add_(1)), ("w.mul_(2)", lambda: w.mul_(2)),
                             ("w.zero_()", w.zero_), ("w.fill_(0.)", lambda: w.fill_(0.0)),
                             ("w.copy_(ones)", lambda: w.copy_(ag.ones(3))), ("w += 1", lambda: iadd(w, 1)),
                             ("w[...] = 0.", lambda: w.__setitem__(Ellipsis, 0.0))):
            grading.expect_raises(write, RuntimeError, LEAF_MESSAGE, what=f"{label} for a leaf w that requires grad",
                                  rule=LEAF)
        grading.expect_raises(lambda: w[1:].add_(1), RuntimeError, VIEW_MESSAGE, what="w[1:].add_(1)",
                              rule=LEAF)
        grading.expect_equal((w.tolist(), w._version), ([1.0, 2.0, 3.0], 0),
                             what="(w's values, w._version) after the refused writes", rule=LEAF)

        w.grad = ag.tensor([1.0, 1.0, 1.0])
        with ag.no_grad():
            errors = (error_text(outcome(lambda: iadd(w, -0.5 * w.grad))), error_text(outcome(w[:1].mul_, 2)))
        grading.expect_equal(errors, (None, None), what="(w -= 0.5 * w.grad, w[:1].mul_(2)) under no_grad",
                             rule=ALLOWED)
        grading.expect_equal((w.tolist(), w.is_leaf, w.requires_grad), ([1.0, 1.5, 2.5], True, True),
                             what="(values, is_leaf, requires_grad) of w after the update under no_grad",
                             rule=ALLOWED)
        h = w * 2
        error = error_text(outcome(h.add_, 1))
        grading.expect_equal(error, None, what="h.add_(1) for h = w * 2", rule=ALLOWED)
        error = error_text(outcome(lambda: h.sum().backward()))
        _expect(error or _grad(w), [3.0, 3.0, 3.0], what="w.grad after (w * 2).add_(1).sum().backward() "
                "(it held [1., 1., 1.] before)", rule=ALLOWED)
        c = ag.zeros(3)
        grading.expect_equal((error_text(outcome(c.add_, w)), c.requires_grad), (None, True),
                             what="(error, c.requires_grad) for c.add_(w), c = ag.zeros(3)", rule=ALLOWED)


LEAF_KINDS = {"a leaf that requires grad": LEAF, "a view of a leaf that requires grad": LEAF,
              "a view of a view of a leaf that requires grad": LEAF, "a non-leaf": ALLOWED,
              "a view of a non-leaf": ALLOWED, "a constant": ALLOWED, "a view of a constant": ALLOWED,
              "a detached leaf": ALLOWED, "a view of a detached leaf": ALLOWED,
              "a result computed under no_grad": ALLOWED}
LEAF_VIEWS = {"[1:]": lambda t: t[1:], "[::2]": lambda t: t[::2], ".t()": lambda t: t.t(), "[0]": lambda t: t[0],
              "[..., :1]": lambda t: t[..., :1]}


def random_leaf_case(rng, kind):
    """A random tensor of this kind (dtype, shape, values and views random): (label, tensor)."""
    grad = "leaf that requires grad" in kind or "non-leaf" in kind or "detach" in kind or "no_grad" in kind
    dtype = (ag.float32, ag.float64, ag.int64)[int(rng.integers(2 if grad else 3))]
    shape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(1, 3))))
    w = ag.tensor((rng.standard_normal(shape) * 5).astype(dtype.numpy), requires_grad=grad)
    factor = int(rng.integers(2, 5))
    source, t = "w", w
    if "non-leaf" in kind:
        source, t = f"(w * {factor})", w * factor
    elif "detach" in kind:
        source, t = "w.detach()", w.detach()
    elif "no_grad" in kind:
        with ag.no_grad():
            source, t = f"(w * {factor})", w * factor
    for _ in range(kind.count("view of")):
        name = list(LEAF_VIEWS)[int(rng.integers(len(LEAF_VIEWS)))]
        source, t = source + name, LEAF_VIEWS[name](t)
    return f"{source} ({kind}; w: {dtype}, shape {shape}, requires_grad={grad})", t


def leaf_outcomes(fn, seed, count=20):
    """{label: (fn(t) in grad mode, fn(t) under no_grad, the rule of its kind)} for random
    tensors of every kind."""
    cases = {}
    for n, rng in enumerate(grading.random_cases(seed=seed, count=count)):
        kind = list(LEAF_KINDS)[n % len(LEAF_KINDS)]
        label, t = random_leaf_case(rng, kind)
        recording = outcome(fn, t)
        with ag.no_grad():
            cases[f"{label}, random case #{n}"] = (recording, outcome(fn, t), LEAF_KINDS[kind])
    return cases


def expect_random_leaves(seen, expected):
    """check_inplace on random tensors (``leaf_outcomes``), seen and expected: every tensor in
    grad mode first, then every one under no_grad."""
    for label, (wanted, _, rule) in expected.items():
        _equal(seen[label][0], wanted, f"check_inplace({label}) in grad mode", rule)
    for label, (_, wanted, _) in expected.items():
        _equal(seen[label][1], wanted, f"check_inplace({label}) under no_grad", ALLOWED)


STORY_KINDS = ("leaf", "view of leaf", "transposed leaf", "view of view of leaf", "non-leaf", "view of non-leaf",
               "constant", "view of constant", "detached leaf", "view of detached leaf")
STORY_WRITES = (("add_", lambda t, r: t.add_(r)), ("mul_", lambda t, r: t.mul_(r)),
                ("sub_", lambda t, r: t.sub_(r)), ("div_", lambda t, r: t.div_(r)),
                ("+=", lambda t, r: iadd(t, r)), ("clamp_", lambda t, r: t.clamp_(max=r)),
                ("zero_", lambda t, r: t.zero_()), ("fill_", lambda t, r: t.fill_(r)),
                ("copy_", lambda t, r: t.copy_(ag.full(tuple(t.shape), r))),
                ("t[...] = r", lambda t, r: t.__setitem__(Ellipsis, r)))


def _story_target(kind, rng):
    """A fresh tensor of the given kind (float32, 2-D)."""
    leaf = ag.tensor(rng.standard_normal((2, 3)).astype(np.float32), requires_grad=True)
    return {"leaf": lambda: leaf, "view of leaf": lambda: leaf[1:],
            "transposed leaf": lambda: leaf.t(), "view of view of leaf": lambda: leaf[0][1:],
            "non-leaf": lambda: leaf * 2, "view of non-leaf": lambda: (leaf * 2)[:, 1:],
            "constant": lambda: leaf.detach().clone(), "view of constant": lambda: leaf.detach().clone()[1:],
            "detached leaf": lambda: leaf.detach(), "view of detached leaf": lambda: leaf.detach()[:, :2]}[kind]()


def leaf_story(fn, seed):
    """Random targets, grad modes and writes through the library: for each, (kind, write, grad
    mode, fn(t), the write's error, t's version, (t.is_leaf, t.requires_grad))."""
    rng = np.random.default_rng(seed)
    story = []
    for _ in range(12):
        kind = STORY_KINDS[int(rng.integers(len(STORY_KINDS)))]
        label, write = STORY_WRITES[int(rng.integers(len(STORY_WRITES)))]
        grad_mode = bool(rng.integers(3))
        r = float(rng.uniform(0.5, 1.5))
        with ag.set_grad_enabled(grad_mode):
            direct = outcome(fn, _story_target(kind, rng))
            t = _story_target(kind, rng)
            result = error_text(outcome(write, t, r))
        # Read outside the grad mode of the write, as a user would: a view made under no_grad
        # then refuses to say (PyTorch's error), which the story records too.
        story.append((kind, label, grad_mode, direct, result, t._version,
                      outcome(lambda: (t.is_leaf, t.requires_grad))))
    return story


# ------------------------------------------------------- what the hidden tests compare

def expect_version_stories(seen_all, expected_all, cases):
    """increment_version called directly on random cases (``version_story``), seen and expected."""
    for n, (case, seen, wanted) in enumerate(zip(cases, seen_all, expected_all)):
        kind, dtype, shape, _, names, calls = case
        tensors = f"t {kind} ({dtype}, shape {shape}) and its aliases {', '.join(names[1:])}"
        for step, ((name, grad_mode), s, e) in enumerate(zip(calls, seen, wanted)):
            what = (f"random case #{n}, call {step + 1}: increment_version({name}) "
                    f"{'in grad mode' if grad_mode else 'under no_grad'}, {tensors}")
            grading.expect_equal(s[0], e[0], what=f"what {what} returned", rule=COUNT)
            grading.expect_equal(s[1][name], e[1][name], what=f"{name}._version after {what}", rule=COUNT)
            grading.expect_equal(s[1], e[1], what=f"the version of every alias after {what}", rule=SHARED)
            grading.expect_equal(s[2], e[2], what=f"every alias still holds its counter object after {what}",
                                 rule=SHARED)
            grading.expect_equal(s[3], e[3], what=f"t's values after {what}", rule=COUNT)


def expect_write_stories(seen_all, expected_all):
    """Random writes through the library (``write_story``, ``grad_versions``), seen and expected."""
    for i, (seen, wanted) in enumerate(zip(seen_all, expected_all)):
        for step, (s, e) in enumerate(zip(seen[0], wanted[0])):
            _expect(s, e, what=f"random story #{i}, write {step + 1}: (kind, alias written, write, grad mode, "
                    "error, versions of every alias)", rule=COUNT_SHARED)
        _expect(seen[1], wanted[1], what=f"random story #{i}: x.grad._version after each backward", rule=COUNT)


def expect_saved_checks(seen_all, expected_all, cases):
    """check_version called directly on random saved tensors (``saved_checks``), seen and expected."""
    for n, (case, seen, wanted) in enumerate(zip(cases, seen_all, expected_all)):
        for (name, version, is_output, s), (_, _, _, e) in zip(seen, wanted):
            what = f"check_version(saved, node) for the {name!r} saved by y's node, {saved_case_text(n, case)}"
            if e is None:
                grading.expect_equal(s, None, what=what, rule=UNCHANGED)
            else:
                expect_refusal(s, without_hint(e)[len(PREFIX):], what=what,
                               rule=NAMES)


def expect_edited_graphs(seen_all, expected_all):
    """Random graphs written in place (``edited_graph``), seen and expected."""
    for i, (seen, wanted) in enumerate(zip(seen_all, expected_all)):
        what = f"random graph #{i} with in-place writes {wanted[0]}"
        _expect(seen[0], wanted[0], what=f"{what}: the writes' errors", rule=COUNT)
        _expect(seen[1], wanted[1], what=f"{what}: check_version on every saved tensor (node, name, outcome)",
                rule=SAVED_RULES)
        _expect(seen[2:], wanted[2:], what=f"{what}: (backward's error, x.grad)", rule=SAVED_RULES)


def expect_written_constants(seen_all, expected_all):
    """A saved constant written in place (``written_constant``), seen and expected."""
    for i, (seen, wanted) in enumerate(zip(seen_all, expected_all)):
        what = f"random case #{i}: x * c with a constant c, then c written {wanted[0]}"
        _expect(seen[:2], wanted[:2], what=f"{what}: (the writes, c._version)", rule=COUNT_SHARED)
        _expect(seen[2:], wanted[2:], what=f"{what}: (backward's error, x.grad)", rule=NAMES)


def expect_leaf_stories(seen_all, expected_all):
    """Random writes into leaves, views and constants (``leaf_story``), seen and expected."""
    for i, (seen, wanted) in enumerate(zip(seen_all, expected_all)):
        for step, (s, e) in enumerate(zip(seen, wanted)):
            kind, write, grad_mode = e[:3]
            what = f"random case #{i}, write {step + 1}: {write} into a {kind} {'in grad mode' if grad_mode else 'under no_grad'}"
            rule = (LEAF if kind == "leaf" else LEAF if kind in ("view of leaf", "transposed leaf",
                                                                       "view of view of leaf") else ALLOWED)
            _expect(s[3], e[3], f"check_inplace(t), {what}", rule if grad_mode else ALLOWED)
            _expect(s[4], e[4], f"the write's error, {what}", rule if grad_mode else ALLOWED)
            grading.expect_equal(s[5], e[5], what=f"t._version after the write, {what}", rule=COUNT)
            grading.expect_equal(s[6], e[6], what=f"(t.is_leaf, t.requires_grad) after the write, {what}",
                                 rule=ALLOWED)
