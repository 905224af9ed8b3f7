"""torch.autograd.functional's options and errors, torch.autograd.graph's hooks and
nodes, and the grad-mode switches used as functions, context managers and decorators."""
# tolerance: rtol=1e-6 atol=1e-8
import torch

import warnings

import numpy as np

F = torch.autograd.functional


def attempt(label, fn):
    """Run ``fn``; print its result, or the exception's class and first message line."""
    try:
        result = fn()
    except Exception as error:              # noqa: BLE001 - what is raised is what we print
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        print(label, type(error).__name__ + ":", first)
    else:
        print(label, result)


def node_name(node):
    """``node.name()`` without the ``torch::autograd::`` of PyTorch's C++-only nodes."""
    return node.name().split("::")[-1]


def shapes(result):
    """The nesting of a result (tuples of tuples) with each tensor's shape and requires_grad."""
    if isinstance(result, (tuple, list)):          # forward-mode gives lists
        return type(result)(shapes(r) for r in result)
    return (tuple(result.shape), result.requires_grad)


x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
y = torch.tensor([[1.0, 0.5], [-0.5, 2.0]], dtype=torch.float64)


def two_in(a, b):
    return (a[:2] * b.sum(0)).exp()


def two_out(a):
    return a ** 2, a.sum()


def two_in_two_out(a, b):
    return a * b[0, 0], (b ** 3).sum()


def scalar(a, b):
    return (a.sin() * b[0].sum()).sum() + (b ** 3).sum()


# ------------------------------------------------------------------ jacobian
print("== jacobian")
for label, fn, inp in [("1 in 1 out", lambda a: a.exp(), x), ("tuple of 1", lambda a: a.exp(), (x,)),
                       ("2 in 1 out", two_in, (x, y)), ("1 in 2 out", two_out, x),
                       ("2 in 2 out", two_in_two_out, (x, y))]:
    J = F.jacobian(fn, inp)
    print(label, shapes(J))
    print(" ", J)
    Jv = F.jacobian(fn, inp, vectorize=True)
    flat = lambda j: [j] if not isinstance(j, (tuple, list)) else [t for s in j for t in flat(s)]
    print("  vectorize same:", all(torch.allclose(a, b) for a, b in zip(flat(J), flat(Jv))),
          shapes(Jv) == shapes(J))
    Jf = F.jacobian(fn, inp, vectorize=True, strategy="forward-mode")
    print("  forward-mode same:", all(torch.allclose(a, b) for a, b in zip(flat(J), flat(Jf))),
          shapes(Jf))
xr = x.clone().requires_grad_()
print("create_graph:", shapes(F.jacobian(lambda a: a ** 2, xr, create_graph=True)),
      shapes(F.jacobian(lambda a: a ** 2, xr)))
print("create_graph, input without grad:", shapes(F.jacobian(lambda a: a ** 2, x, create_graph=True)))
print("independent output:", F.jacobian(lambda a, b: (a * 2, b.sum() * 0 + 1.0), (x, y)))
print("constant output:", F.jacobian(lambda a: torch.ones(2, dtype=torch.float64), x))
attempt("strict independent:", lambda: F.jacobian(lambda a, b: a * 2, (x, y), strict=True))
attempt("strict constant:", lambda: F.jacobian(lambda a: torch.ones(2), x, strict=True))
attempt("strict create_graph linear:", lambda: F.jacobian(lambda a: a * 2, xr, create_graph=True, strict=True))
print("strict create_graph square:", shapes(F.jacobian(lambda a: a ** 2, xr, create_graph=True, strict=True)))
attempt("strict vectorize:", lambda: F.jacobian(lambda a: a * 2, x, strict=True, vectorize=True))
attempt("forward-mode without vectorize:", lambda: F.jacobian(lambda a: a * 2, x, strategy="forward-mode"))
attempt("forward-mode create_graph:", lambda: F.jacobian(lambda a: a * 2, x, create_graph=True,
                                                          strategy="forward-mode", vectorize=True))
attempt("forward-mode strict:", lambda: F.jacobian(lambda a: a * 2, x, strict=True,
                                                    strategy="forward-mode", vectorize=True))
attempt("bad strategy:", lambda: F.jacobian(lambda a: a * 2, x, strategy="sideways"))
attempt("list input:", lambda: F.jacobian(lambda a: a * 2, [x]))
attempt("number in tuple:", lambda: F.jacobian(lambda a, b: a * b, (x, 2.0)))
attempt("number input:", lambda: F.jacobian(lambda a: a * 2, 3.0))
attempt("returns a number:", lambda: F.jacobian(lambda a: 3.0, x))
attempt("returns a list:", lambda: F.jacobian(lambda a: [a * 2], x))
attempt("returns a tuple with a number:", lambda: F.jacobian(lambda a: (a * 2, 1.0), x))
print("int output dims:", F.jacobian(lambda a: a.sum(), x))
print("scalar in, matrix out:", F.jacobian(lambda s: s * y, torch.tensor(2.0, dtype=torch.float64)))
with torch.no_grad():
    print("under no_grad:", shapes(F.jacobian(lambda a: a ** 2, x)), torch.is_grad_enabled())

# ------------------------------------------------------------------- hessian
print("== hessian")
H = F.hessian(scalar, (x, y))
print(shapes(H))
print(H[0][0], H[1][0])
print("single:", F.hessian(lambda a: (a ** 3).sum(), x))
print("tuple of one:", shapes(F.hessian(lambda a: (a ** 3).sum(), (x,))))
print("vectorize same:", torch.allclose(F.hessian(lambda a: (a ** 3).sum(), x, vectorize=True),
                                        F.hessian(lambda a: (a ** 3).sum(), x)))
Hf = F.hessian(scalar, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode")
print("forward-over-reverse:", shapes(Hf), all(torch.allclose(H[i][j], Hf[i][j])
                                              for i in range(2) for j in range(2)))
print("create_graph:", shapes(F.hessian(lambda a: (a ** 3).sum(), xr, create_graph=True)))
print("linear:", F.hessian(lambda a: a.sum() * 2, x))
print("keepdim scalar:", F.hessian(lambda a: (a ** 2).sum(0, keepdim=True), x))
attempt("strict linear:", lambda: F.hessian(lambda a: a.sum() * 2, x, strict=True))
attempt("strict constant:", lambda: F.hessian(lambda a: torch.ones(()), x, strict=True))
attempt("strict unused input:", lambda: F.hessian(lambda a, b: (a ** 3).sum(), (x, y), strict=True))
attempt("vector output:", lambda: F.hessian(lambda a: a ** 2, x))
attempt("tuple output:", lambda: F.hessian(lambda a: ((a ** 2).sum(),), x))
attempt("number output:", lambda: F.hessian(lambda a: 1.0, x))
attempt("forward-mode without vectorize:",
        lambda: F.hessian(lambda a: (a ** 3).sum(), x, outer_jacobian_strategy="forward-mode"))
attempt("bad strategy:", lambda: F.hessian(lambda a: (a ** 3).sum(), x, outer_jacobian_strategy="x"))
attempt("list input:", lambda: F.hessian(lambda a: (a ** 3).sum(), [x]))

# ------------------------------------------------------- vjp, jvp, vhp, hvp
print("== vjp jvp vhp hvp")
v2 = torch.tensor([1.0, -2.0], dtype=torch.float64)
v3 = torch.tensor([0.5, 1.0, -1.0], dtype=torch.float64)
vy = torch.tensor([[1.0, 0.0], [2.0, -1.0]], dtype=torch.float64)
out, res = F.vjp(two_in, (x, y), v2)
print("vjp:", out, res, shapes((out, res)))
print("vjp two outputs:", F.vjp(two_out, x, (v3, torch.tensor(2.0, dtype=torch.float64))))
print("vjp scalar no v:", F.vjp(lambda a: (a ** 2).sum(), x))
print("vjp create_graph:", shapes(F.vjp(lambda a: a ** 2, xr, v3, create_graph=True)),
      shapes(F.vjp(lambda a: a ** 2, xr, v3)))
print("vjp independent:", F.vjp(lambda a, b: a * 2, (x, y), v3))
out, res = F.jvp(two_in, (x, y), (v3, vy))
print("jvp:", out, res, shapes((out, res)))
print("jvp two outputs:", F.jvp(two_out, x, v3))
print("jvp scalar no v:", F.jvp(lambda a: a ** 2, torch.tensor(3.0)))
print("jvp create_graph:", shapes(F.jvp(lambda a: a ** 2, xr, v3, create_graph=True)))
print("jvp constant:", F.jvp(lambda a: torch.ones(2, dtype=torch.float64), x, v3))
out, res = F.vhp(scalar, (x, y), (v3, vy))
print("vhp:", out, res, shapes((out, res)))
out, res = F.hvp(scalar, (x, y), (v3, vy))
print("hvp:", out, res, shapes((out, res)))
print("vhp single:", F.vhp(lambda a: (a ** 3).sum(), x, v3))
print("hvp single:", F.hvp(lambda a: (a ** 3).sum(), x, v3))
print("vhp create_graph:", shapes(F.vhp(lambda a: (a ** 3).sum(), xr, v3, create_graph=True)))
print("hvp create_graph:", shapes(F.hvp(lambda a: (a ** 3).sum(), xr, v3, create_graph=True)))
print("vhp linear:", F.vhp(lambda a: a.sum(), x, v3))
print("hvp linear:", F.hvp(lambda a: a.sum(), x, v3))
# (hvp's own argument checks are left out: it is a course exercise, checked elsewhere.)
for name in ["vjp", "jvp", "vhp"]:
    fn = getattr(F, name)
    scalar_fn = lambda a: (a ** 3).sum()
    vector_fn = lambda a: a ** 3
    f_use = vector_fn if name in ("vjp", "jvp") else scalar_fn
    attempt(f"{name} v None:", lambda: fn(f_use, x))
    attempt(f"{name} v wrong size:", lambda: fn(f_use, x, torch.ones(4, dtype=torch.float64)))
    attempt(f"{name} v two for one:", lambda: fn(f_use, x, (v3, v3)))
    attempt(f"{name} v one for two:", lambda: fn(lambda a, b: (a ** 3).sum() + (b ** 3).sum(),
                                                 (x, x), v3))
    attempt(f"{name} v entry wrong size:", lambda: fn(lambda a, b: (a ** 3).sum() + (b ** 3).sum(),
                                                      (x, x), (v3, v2)))
    attempt(f"{name} v a list:", lambda: fn(f_use, x, [v3]))
    attempt(f"{name} returns a number:", lambda: fn(lambda a: 1.0, x, v3))
    attempt(f"{name} list input:", lambda: fn(f_use, [x], v3))
    attempt(f"{name} strict constant:", lambda: fn(lambda a: torch.ones(()), x, v3, strict=True))
    attempt(f"{name} strict independent:",
            lambda: fn(lambda a, b: (a ** 3).sum(), (x, x), (v3, v3), strict=True))
    attempt(f"{name} strict linear:", lambda: fn(lambda a: a.sum(), x, v3, strict=True))
    attempt(f"{name} strict create_graph linear:",
            lambda: fn(lambda a: a.sum() * 2, xr, v3, strict=True, create_graph=True))
for name in ["vhp"]:
    fn = getattr(F, name)
    attempt(f"{name} vector output:", lambda: fn(lambda a: a ** 2, x, v3))
    attempt(f"{name} tuple output:", lambda: fn(lambda a: ((a ** 3).sum(),), x, v3))
attempt("vjp strict vector output without v:", lambda: F.vjp(lambda a: a * 2, x))

# ------------------------------------------------------------------ graph
print("== graph")
gx = torch.tensor([1.0, 2.0], requires_grad=True)
gy = (gx * 3).exp().sum()
node = gy.grad_fn
print(node.name(), isinstance(node, torch.autograd.graph.Node), node.metadata)
node.metadata["tag"] = 5
print(node.metadata, gy.grad_fn.metadata)
print([(n.name(), i) for n, i in node.next_functions])
log = []
h_pre = node.register_prehook(lambda gout: log.append(("pre", len(gout))))
h_post = node.register_hook(lambda gin, gout: log.append(("post", len(gin), len(gout))))
gy.backward(retain_graph=True)
print(log)
h_pre.remove()
h_post.remove()
gy.backward()
print(len(log), gx.grad)
gz = (gx * 2).sum()
gz.grad_fn.register_prehook(lambda gout: (gout[0] * 10,))
gz.backward()
print("prehook replaces:", gx.grad)
acc = (gx * 2).grad_fn.next_functions[0][0]
print(node_name(acc), isinstance(acc, torch.autograd.graph.Node))

packed = []
def pack(t):
    packed.append(tuple(t.shape))
    return t.clone()
def unpack(t):
    return t
sa = torch.tensor([0.5, 1.5], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    sout = (sa * sa).sin().sum()
sout.backward()
print("saved_tensors_hooks:", packed, sa.grad)
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    cpu_out = (sa ** 3).sum()
print("save_on_cpu:", torch.autograd.grad(cpu_out, sa))
with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    attempt("disabled:", lambda: torch.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__())
    attempt("disabled save_on_cpu:", lambda: torch.autograd.graph.save_on_cpu().__enter__())

ma = torch.tensor([1.0, 2.0], requires_grad=True)
mb = torch.tensor([3.0], requires_grad=True)
seen = []
mh = torch.autograd.graph.register_multi_grad_hook(
    (ma, mb), lambda grads: seen.append([None if g is None else g.tolist() for g in grads]))
(ma.sum() * mb).sum().backward()
print("multi all:", seen)
mh.remove()
(ma.sum() * mb).sum().backward()
print("removed:", len(seen))
seen_any = []
mh = torch.autograd.graph.register_multi_grad_hook(
    (ma, mb), lambda g: seen_any.append(g.tolist()), mode="any")
(ma.sum() * mb).sum().backward()
print("multi any:", seen_any)
mh.remove()
attempt("bad mode:", lambda: torch.autograd.graph.register_multi_grad_hook((ma,), print, mode="some"))

vt = torch.zeros(3)
print("version:", vt._version)
torch.autograd.graph.increment_version(vt)
print("incremented:", vt._version)
torch.autograd.graph.increment_version([vt, vt[:1]])
print("a list, views share:", vt._version)
if hasattr(torch.autograd.graph, "get_gradient_edge"):
    ea = torch.tensor([1.0, 2.0], requires_grad=True)
    mid = ea * 3
    edge = torch.autograd.graph.get_gradient_edge(mid)
    print("edge:", edge.node.name(), edge.output_nr, isinstance(edge, torch.autograd.graph.GradientEdge))
    leaf_edge = torch.autograd.graph.get_gradient_edge(ea)
    print("leaf edge:", node_name(leaf_edge.node), leaf_edge.output_nr)
    print("grad wrt edge:", torch.autograd.grad((mid ** 2).sum(), edge))
    attempt("edge of a tensor without grad:", lambda: torch.autograd.graph.get_gradient_edge(torch.ones(2)))

# ---------------------------------------------------------------- grad modes
print("== grad modes")
gm = torch.tensor([1.0], requires_grad=True)


@torch.set_grad_enabled(False)
def off(t):
    return t * 2


print("set_grad_enabled decorator:", off(gm).requires_grad, torch.is_grad_enabled())
prev = torch.set_grad_enabled(False)
print("as a call:", torch.is_grad_enabled(), type(prev).__name__)
torch.set_grad_enabled(True)
with torch.no_grad():
    with torch.set_grad_enabled(True):
        print("nested:", torch.is_grad_enabled())
    print("restored:", torch.is_grad_enabled())
print(repr(torch.set_grad_enabled(True)))
attempt("set_grad_enabled(1):", lambda: torch.set_grad_enabled(1))
print("autograd names:", torch.autograd.set_grad_enabled is torch.set_grad_enabled,
      torch.autograd.no_grad is torch.no_grad)


@torch.no_grad()
def gen_no_grad():
    for i in range(2):
        yield torch.is_grad_enabled(), (gm * i).requires_grad


print("no_grad generator:", list(gen_no_grad()), torch.is_grad_enabled())


@torch.enable_grad()
def gen_enable():
    yield torch.is_grad_enabled()


with torch.no_grad():
    print("enable_grad generator in no_grad:", list(gen_enable()), torch.is_grad_enabled())
print("decorated name:", gen_no_grad.__name__, off.__name__)


@torch.inference_mode
def infer_bare(t):
    return t * 2


@torch.inference_mode(False)
def infer_off(t):
    return t * 2


with torch.inference_mode():
    print("inference_mode(False) inside:", infer_off(gm).requires_grad, torch.is_inference_mode_enabled())
print("bare decorator:", infer_bare(gm).is_inference(), infer_bare(gm).requires_grad)
with torch.inference_mode(mode=False):
    print("mode=False:", torch.is_inference_mode_enabled(), torch.is_grad_enabled())
with torch.no_grad():
    with torch.inference_mode(False):
        print("inference_mode(False) in no_grad:", torch.is_grad_enabled())


@torch.inference_mode()
def gen_infer():
    yield torch.is_inference_mode_enabled()


print("inference generator:", list(gen_infer()), torch.is_inference_mode_enabled())

print("multithreading:", torch.autograd.is_multithreading_enabled())
with torch.autograd.set_multithreading_enabled(False):
    print("  off:", torch.autograd.is_multithreading_enabled(), (gm * 2).sum().requires_grad)
print("  back:", torch.autograd.is_multithreading_enabled())

# ------------------------------------------------------------ anomaly mode
print("== anomaly")
na = torch.tensor([0.0, 1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        attempt("forward nan is fine:", lambda: torch.autograd.grad((na * 2).sum(), na))
print("warned:", sorted({type(w.message).__name__ for w in caught}),
      any("Anomaly Detection has been enabled" in str(w.message) for w in caught))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with torch.autograd.detect_anomaly(check_nan=False):
        na.grad = None
        (na / na).sum().backward()
        print("check_nan=False:", na.grad)
    torch.autograd.set_detect_anomaly(False)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")             # torch adds a warning with the forward traceback
    with torch.autograd.detect_anomaly():
        na.grad = None
        attempt("nan in backward:", lambda: (na / na).sum().backward())
print("anomaly switches:", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
torch.set_anomaly_enabled(True, check_nan=False)
print("  set:", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
torch.set_anomaly_enabled(False)

# ------------------------------------------------------------ what saved-tensor hooks pack
print("== packed")
packed = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
    pk = torch.ones(2, requires_grad=True)
    (pk * 2).sum()              # the 2 is not packed
    (pk * pk).sum()
print("packed shapes:", packed)
