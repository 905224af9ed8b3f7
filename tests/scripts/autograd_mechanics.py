"""Autograd mechanics: hooks, retain_grad, inputs=, autograd.grad's options, double
backward, the errors backward raises, in-place checks and version counters, grad
modes, custom Functions, the graph's structure, and how requires_grad propagates."""
# tolerance: rtol=1e-6 atol=1e-8
import torch

import warnings

import numpy as np


def attempt(label, fn):
    """Run ``fn``; print its result, or the exception's class and first message line."""
    try:
        result = fn()
    except Exception as error:              # noqa: BLE001 - what is raised is what we print
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        # The hint after the version-counter error names PyTorch's anomaly mode, which
        # autograd_lib does not have: it gives its own hint (a known difference).
        first = first.split(" Hint:")[0]
        print(label, type(error).__name__ + ":", first)
    else:
        print(label, result)


def quietly(fn):
    """Run ``fn`` with warnings silenced (a warning is not part of what we compare)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def node_name(node):
    """``node.name()``, without the ``torch::autograd::`` that PyTorch's C++-only nodes
    (AccumulateGrad, CopySlices) carry: autograd_lib names them like their class."""
    return node.name().split("::")[-1]


values = np.linspace(-1.0, 2.0, 4)

# ------------------------------------------------------------------ tensor hooks
print("== hooks")
x = torch.tensor(values, requires_grad=True)
h1 = x.register_hook(lambda g: g * 2)
h2 = x.register_hook(lambda g: g + 1)
calls = []
h3 = x.register_hook(lambda g: calls.append(g.tolist()))        # returns None: keeps g
(x * x).sum().backward()
print("two hooks in order:", x.grad, calls)
h1.remove()
x.grad = None
(x * 3).sum().backward()
print("after removing the first:", x.grad, len(calls))
h2.remove()
h3.remove()
x.grad = None
(x * 3).sum().backward()
print("all removed:", x.grad, len(calls))

# A non-leaf: retain_grad before or after register_hook decides what .grad sees.
a = torch.tensor(values, requires_grad=True)
y = a * 2
y.retain_grad()
y.register_hook(lambda g: g * 10)
(y * y).sum().backward()
print("retain_grad then hook:", y.grad, a.grad)
a.grad = None
y = a * 2
y.register_hook(lambda g: g * 10)
y.retain_grad()
(y * y).sum().backward()
print("hook then retain_grad:", y.grad, a.grad)
a.grad = None
y = a * 2
seen = []
y.register_hook(lambda g: seen.append(g.sum().item()))
y.register_hook(lambda g: g * 0)
z = y.exp()
z.retain_grad()
z.sum().backward()
print("zeroing hook:", seen, a.grad, z.grad)
print("retains_grad:", z.retains_grad, y.retains_grad, a.retains_grad)
attempt("hook on a tensor without grad:", lambda: torch.ones(2).register_hook(lambda g: g))

# A hook that negates a non-leaf's gradient: the leaf sees the negated one.
b = torch.tensor([1.0, 2.0], requires_grad=True)
c = b * 1
handle = c.register_hook(lambda g: g * -1)
c.sum().backward()
print("negating hook on non-leaf:", b.grad)
handle.remove()

# What a hook may return: None, or a tensor like the gradient (checked).
for label, bad_hook in [("hook changes the size:", lambda g: torch.ones(3)),
                        ("hook returns a number:", lambda g: 5),
                        ("hook changes the dtype:", lambda g: g.double())]:
    hb = torch.tensor([1.0, 2.0], requires_grad=True)
    hc = hb * 2
    hc.register_hook(bad_hook)
    attempt(label, lambda: hc.sum().backward())
hb = torch.tensor([1.0, 2.0], requires_grad=True)
hb.register_hook(lambda g: g.mul_(3))           # in place on the leaf's incoming gradient
(hb * 1).sum().backward()
print("in-place hook on a leaf:", hb.grad)
print("hook with autograd.grad on a leaf:", torch.autograd.grad((hb * 2).sum(), hb))

# register_post_accumulate_grad_hook
if hasattr(torch.Tensor, "register_post_accumulate_grad_hook"):
    print("== post accumulate grad hooks")
    p = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
    log = []

    def after(param):
        log.append(param.grad.tolist())
        with torch.no_grad():
            param -= 0.1 * param.grad

    handle = p.register_post_accumulate_grad_hook(after)
    for _ in range(2):
        (p ** 2).sum().backward()
    print(log, p, p.grad)
    handle.remove()
    (p ** 2).sum().backward()
    print(len(log), p.grad)
    attempt("on a non-leaf:", lambda: (p * 2).register_post_accumulate_grad_hook(after))

# ---------------------------------------------------------- backward(inputs=...)
print("== backward(inputs=)")
u = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([3.0, -1.0], requires_grad=True)
w = u * v
out = (w * u).sum()
out.backward(inputs=[u], retain_graph=True)
print(u.grad, v.grad)
out.backward(inputs=[v, w])
print(u.grad, v.grad, w.grad, w.retains_grad)
attempt("empty inputs:", lambda: (u * 2).sum().backward(inputs=[]))
u.grad = None
torch.autograd.backward([(u * 2).sum(), (u * v).sum()], inputs=u)
print("torch.autograd.backward two roots:", u.grad)

# -------------------------------------------------------------- autograd.grad
print("== autograd.grad")
s = torch.tensor([0.5, -1.5], requires_grad=True)
t = torch.tensor([2.0, 4.0], requires_grad=True)
unused = torch.tensor([9.0], requires_grad=True)
f = (s * t).sum()
attempt("unused input:", lambda: torch.autograd.grad(f, [s, unused], retain_graph=True))
print("allow_unused:", torch.autograd.grad(f, [s, unused], retain_graph=True, allow_unused=True))
print("materialize_grads:", torch.autograd.grad(f, [s, unused], retain_graph=True,
                                                 materialize_grads=True))
attempt("materialize with allow_unused=False:",
        lambda: torch.autograd.grad(f, [unused], retain_graph=True, allow_unused=False,
                                    materialize_grads=True))
vec = s * t
print("grad_outputs:", torch.autograd.grad(vec, s, grad_outputs=torch.tensor([1.0, -2.0]),
                                            retain_graph=True))
print("two outputs:", torch.autograd.grad([vec.sum(), (s ** 2).sum()], [s, t]))
print(".grad untouched:", s.grad, t.grad)
attempt("input without grad:", lambda: torch.autograd.grad((s * 2).sum(), torch.ones(2)))
attempt("output without grad:", lambda: torch.autograd.grad(torch.ones(2).sum(), s))
attempt("grad_outputs shape:", lambda: torch.autograd.grad(s * 2, s, grad_outputs=torch.ones(3)))
m = torch.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
lin = m.sum(1) * torch.tensor([1.0, 3.0])
print("is_grads_batched:", torch.autograd.grad(lin, m, grad_outputs=torch.eye(2), is_grads_batched=True))

# ----------------------------------------------------------- double backward
print("== double backward")
q = torch.tensor([0.5, 1.0, -2.0], requires_grad=True)
cube = q ** 3
g1, = torch.autograd.grad(cube.sum(), q, create_graph=True)
print("d/dq q^3:", g1, g1.requires_grad, g1.grad_fn.name())
g2, = torch.autograd.grad(g1.sum(), q, create_graph=True)
print("d2/dq2 q^3:", g2)
g3, = torch.autograd.grad(g2.sum(), q)
print("d3/dq3 q^3:", g3)
r = torch.tensor([0.0, 0.7, 2.0], requires_grad=True)
d1, = torch.autograd.grad(torch.sin(r).sum(), r, create_graph=True)
d2, = torch.autograd.grad(d1.sum(), r)
print("sin:", d1, d2)
r2 = torch.tensor([0.3, -0.4], requires_grad=True)
quietly(lambda: (r2 ** 4).sum().backward(create_graph=True))
first = r2.grad.clone()
print("backward create_graph:", r2.grad, r2.grad.requires_grad)
grad_sum = r2.grad.sum()
r2.grad = None
grad_sum.backward()
print("second derivative through .grad:", first, r2.grad)

# ------------------------------------------------------------- backward errors
print("== errors")
e = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (e.exp() * e).sum()
loss.backward()
attempt("backward twice:", lambda: loss.backward())
attempt("non-scalar:", lambda: (e * 2).backward())
attempt("no grad at all:", lambda: torch.ones(2).sum().backward())
attempt("gradient of the wrong shape:", lambda: (e * 2).backward(torch.ones(3)))
e.grad = None
(e * 2).backward(torch.tensor([1, 2]))             # an integer gradient is cast
e.backward(torch.tensor([1.0, 1.0], dtype=torch.float64))
print("integer and float64 gradients:", e.grad, e.grad.dtype)
attempt("integer requires_grad:", lambda: torch.tensor([1, 2], requires_grad=True))
attempt("integer requires_grad_:", lambda: torch.arange(3).requires_grad_())
k = torch.arange(3)
attempt("integer .requires_grad =:", lambda: setattr(k, "requires_grad", True))
nonleaf = e * 2
print("non-leaf .grad:", quietly(lambda: nonleaf.grad), nonleaf.is_leaf)
attempt("requires_grad off on a non-leaf:", lambda: nonleaf.requires_grad_(False))
attempt("retain_grad without grad:", lambda: torch.ones(2).retain_grad())
print("add of two ones:", torch.ones(2).add(e).requires_grad)
# backward through a freed graph, partially: the shared part was freed
shared = e.exp()
(shared * 2).sum().backward()
attempt("shared part freed:", lambda: (shared * 3).sum().backward())
print("retain_graph=True then twice:")
e.grad = None
loss = (e ** 2).sum()
loss.backward(retain_graph=True)
print(e.grad)
loss.backward()
print(e.grad)

# ------------------------------------------------- in-place and version counters
print("== in-place")
leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
attempt("leaf add_:", lambda: leaf.add_(1))
attempt("leaf view mul_:", lambda: leaf[1:].mul_(2))
attempt("leaf setitem:", lambda: leaf.__setitem__(0, 5.0))
with torch.no_grad():
    leaf.add_(1)
print("under no_grad:", leaf, leaf._version, leaf.is_leaf, leaf.requires_grad)

saved = leaf.sigmoid()
doubled = saved * 3
saved.mul_(2)
attempt("saved output changed:", lambda: doubled.sum().backward())
sq_in = leaf * 1
sq = sq_in ** 2
sq_in.add_(1)
attempt("saved input changed:", lambda: sq.sum().backward())
print("versions:", sq_in._version, saved._version)

# in-place on a view of a non-leaf: CopySlices, and the base sees it
leaf.grad = None
base = leaf * 1
view = base[1:]
view.mul_(10)
print("view of non-leaf:", base, node_name(base.grad_fn), view.grad_fn.name(), base._version, view._version)
base.sum().backward()
print(leaf.grad)

# .data vs .detach(): .data hides the change from autograd, detach() does not
leaf.grad = None
source = leaf * 1
out = source.sin()                      # sin saves its input
source.data.mul_(0)
print("after .data change:", source._version)
out.sum().backward()
print("backward used the changed values:", leaf.grad)
leaf.grad = None
source = leaf * 1
out = source.sin()
source.detach().mul_(0)
print("after detach() change:", source._version)
attempt("backward:", lambda: out.sum().backward())
d = leaf.detach()
print("detach shares version:", d._version, leaf._version, d.requires_grad, d.is_leaf)
dd = leaf.data
print(".data:", dd._version, dd.requires_grad, dd.is_leaf)

vc = torch.zeros(4)
vview = vc[:2]
vt = vc.t() if vc.dim() == 2 else vc.view(2, 2)
print("versions start:", vc._version, vview._version, vt._version)
vview.add_(1)
vc.mul_(2)
vt[0, 0] = 7.0
vc += 1
print("versions after:", vc._version, vview._version, vt._version, vc)
other = vc.clone()
print("clone has its own counter:", other._version)
other.zero_()
print(other._version, vc._version)

# --------------------------------------------------------------- grad modes
print("== grad modes")
gm = torch.tensor([1.0], requires_grad=True)
torch.set_grad_enabled(False)
print("set_grad_enabled(False):", torch.is_grad_enabled(), (gm * 2).requires_grad)
torch.set_grad_enabled(True)
print("set_grad_enabled(True):", torch.is_grad_enabled(), (gm * 2).requires_grad)
with torch.set_grad_enabled(False):
    inside = gm * 2
print("context:", inside.requires_grad, torch.is_grad_enabled())
with torch.no_grad():
    with torch.enable_grad():
        again = gm * 2
    with torch.set_grad_enabled(True):
        again2 = gm * 2
print("enable_grad inside no_grad:", again.requires_grad, again2.requires_grad)


@torch.no_grad()
def doubled_no_grad(t):
    return t * 2


@torch.no_grad
def tripled_no_grad(t):
    return t * 3


@torch.enable_grad()
def doubled_enable_grad(t):
    return t * 2


print("decorators:", doubled_no_grad(gm).requires_grad, tripled_no_grad(gm).requires_grad,
      torch.is_grad_enabled())
with torch.no_grad():
    print("enable_grad decorator in no_grad:", doubled_enable_grad(gm).requires_grad)
with torch.inference_mode():
    inf = torch.ones(2) * 3
    print("in inference_mode:", torch.is_inference_mode_enabled(), torch.is_grad_enabled(),
          inf.is_inference(), (gm * 2).requires_grad)
print("inference tensor:", inf.is_inference(), inf.requires_grad, gm.is_inference())
attempt("inference tensor in autograd:", lambda: (inf * gm).sum().backward())
attempt("inference tensor requires_grad:", lambda: inf.requires_grad_())
attempt("inference tensor in-place:", lambda: inf.add_(1))
attempt("inference tensor _version:", lambda: inf._version)
print("inference + normal:", (inf + torch.ones(2)).is_inference(), inf.clone().is_inference())
with torch.inference_mode(False):
    print("inference_mode(False):", torch.is_inference_mode_enabled(), torch.is_grad_enabled())

# ---------------------------------------------------------------- Functions
print("== custom Functions")


class Cube(torch.autograd.Function):
    """x^3, with a backward written in differentiable ops (so double backward works)."""

    @staticmethod
    def forward(ctx, input, scale):
        ctx.save_for_backward(input)
        ctx.scale = scale
        return input ** 3 * scale

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        print("  needs_input_grad:", ctx.needs_input_grad)
        return grad_output * 3 * input ** 2 * ctx.scale, None


cx = torch.tensor([1.0, -2.0], requires_grad=True)
cy = Cube.apply(cx, 2.0)
print(cy.grad_fn.name(), cy.requires_grad)
cg, = torch.autograd.grad(cy.sum(), cx, create_graph=True)
print("first:", cg, cg.requires_grad)
cgg, = torch.autograd.grad(cg.sum(), cx)
print("second:", cgg)


class MulPair(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        print("  needs_input_grad:", ctx.needs_input_grad)
        return grad_output * b, grad_output * a


pa = torch.tensor([1.0, 2.0], requires_grad=True)
pb = torch.tensor([3.0, 4.0])
MulPair.apply(pa, pb).sum().backward()
print("grad of a only:", pa.grad, pb.grad)


class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.add_(1)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


leafd = torch.tensor([1.0, 2.0], requires_grad=True)
attempt("mark_dirty on a leaf:", lambda: AddOneInPlace.apply(leafd))
nl = leafd * 1
before = nl._version
res = AddOneInPlace.apply(nl)
print("mark_dirty:", res is nl, nl, nl._version - before, nl.grad_fn.name())
res.sum().backward()
print(leafd.grad)


class SortWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        values, order = t.sort()
        ctx.mark_non_differentiable(order)
        ctx.save_for_backward(order)
        return values, order

    @staticmethod
    def backward(ctx, grad_values, grad_order):
        order, = ctx.saved_tensors
        print("  grad_order:", grad_order)
        grad = torch.zeros_like(grad_values)
        grad[order] = grad_values
        return grad


st = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
sv, so = SortWithIndex.apply(st)
print("non-differentiable:", sv.requires_grad, so.requires_grad, so.dtype)
(sv * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(st.grad)


class FloatNonDiff(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        doubled = t * 2
        half = t / 2
        ctx.mark_non_differentiable(half)
        return doubled, half

    @staticmethod
    def backward(ctx, g1, g2):
        print("  g2 materialized:", g2)
        return g1 * 2


ft = torch.tensor([1.0, 4.0], requires_grad=True)
fd, fh = FloatNonDiff.apply(ft)
print("float non-differentiable:", fd.requires_grad, fh.requires_grad, fh.is_leaf)
fd.sum().backward()
print(ft.grad)


class ReturnsNone(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


na = torch.tensor([1.0], requires_grad=True)
nb = torch.tensor([2.0], requires_grad=True)
ReturnsNone.apply(na, nb).sum().backward()
print("None grad:", na.grad, nb.grad)


class TooFew(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


attempt("too few grads:", lambda: TooFew.apply(na, nb).sum().backward())


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 1

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones(3)


attempt("wrong grad shape:", lambda: WrongShape.apply(torch.ones(2, requires_grad=True)).sum().backward())


class Saved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.exp()

    @staticmethod
    def backward(ctx, grad_output):
        a, = ctx.saved_tensors
        return grad_output * a.exp()


sa = na * 1
so_out = Saved.apply(sa)
sa.mul_(2)
attempt("Function saved input changed:", lambda: so_out.sum().backward())
so_out = Saved.apply(na)
so_out.sum().backward()
attempt("Function backward twice:", lambda: so_out.sum().backward())
print("no grad required:", Saved.apply(torch.ones(1)).requires_grad,
      Saved.apply(torch.ones(1)).grad_fn)

class DoubleInPlace(torch.autograd.Function):
    """Doubles its input in place, with a backward that says so."""

    @staticmethod
    def forward(ctx, t):
        t.mul_(2)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


dx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
dbase = dx * 1
dview = dbase[1:]
dout = DoubleInPlace.apply(dview)
print("mark_dirty on a view:", dout is dview, dbase, node_name(dbase.grad_fn), dview.grad_fn.name(),
      dbase._version)
dview.add_(1)                               # still an ordinary view: writing it is allowed
dbase.sum().backward()
print(dx.grad)


class WithCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2, 5

    @staticmethod
    def backward(ctx, grad_output, grad_count):
        print("  grad of the non-tensor output:", grad_count)
        return grad_output * 2


wt, count = WithCount.apply(na)
print("non-tensor output:", count, wt.grad_fn.name())
wt.sum().backward()
legacy = quietly(lambda: Saved())
print("instance:", isinstance(legacy, torch.autograd.Function))
attempt("calling an instance:", lambda: legacy(na))

# ------------------------------------------------------------- graph structure
print("== graph structure")
gx = torch.tensor([1.0, 2.0], requires_grad=True)
gw = torch.tensor([0.5, -0.5], requires_grad=True)
const = torch.tensor([3.0, 3.0])
gy = (gx * gw + const).exp().sum()


def names(node, depth=0):
    if node is None:
        print("  " * depth + "None")
        return
    print("  " * depth + node_name(node))
    for child, nr in node.next_functions:
        names(child, depth + 1)


names(gy.grad_fn)
print([(node_name(n) if n is not None else None, nr)
       for n, nr in gy.grad_fn.next_functions[0][0].next_functions[0][0].next_functions])
acc = gy.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(node_name(acc), acc.variable is gx)
mul_node = (gx * gw).grad_fn
print("_saved_self:", mul_node._saved_self, mul_node._saved_other)
pow_node = (gx ** 3).grad_fn
print("pow:", pow_node.name(), pow_node._saved_self, pow_node._saved_exponent)
exp_node = gx.exp().grad_fn
print("exp result:", exp_node._saved_result)
sum_node = gx.sum(0).grad_fn
print(sum_node.name(), sum_node._saved_dim, sum_node._saved_keepdim)
one = (gx * gw).sum()
mul_grad_fn = one.grad_fn.next_functions[0][0]
one.backward()
attempt("saved after backward:", lambda: mul_grad_fn._saved_self)

# -------------------------------------------------- requires_grad propagation
print("== propagation and leaves")
ra = torch.tensor([1.0, 2.0], requires_grad=True)
rb = torch.tensor([3.0, 4.0])
print((ra + rb).requires_grad, (rb * 2).requires_grad, (ra.detach() + rb).requires_grad)
print(torch.cat([ra, rb]).requires_grad, torch.stack([rb, rb]).requires_grad)
print((ra > 1).requires_grad, ra.argmax().requires_grad, (ra * 2).long().requires_grad)
print("is_leaf:", ra.is_leaf, rb.is_leaf, (ra * 2).is_leaf, (rb * 2).is_leaf)
print(".float() on float:", ra.float() is ra, ra.float().is_leaf)
print(".double():", ra.double().is_leaf, ra.double().grad_fn.name())
print(".to(float32):", ra.to(torch.float32) is ra, ra.to(torch.float64).is_leaf)
print("clone:", ra.clone().is_leaf, ra.clone().grad_fn.name(), rb.clone().is_leaf)
print("view of leaf:", ra[0].is_leaf, ra[0].grad_fn.name(), ra.view(2, 1)._base is ra)
print("detach:", ra.detach().is_leaf, ra.detach().requires_grad)
print("requires_grad_():", rb.clone().requires_grad_().is_leaf)
na2 = torch.tensor([1.0, 2.0], requires_grad=True).double()
print("double of leaf is not a leaf:", na2.is_leaf, quietly(lambda: na2.grad))
with torch.no_grad():
    ng = ra * 2
print("made under no_grad:", ng.is_leaf, ng.requires_grad)
