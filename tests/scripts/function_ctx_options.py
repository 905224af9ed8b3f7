"""torch.autograd.Function's ctx options: needs_input_grad, set_materialize_grads,
mark_non_differentiable, mark_dirty, once_differentiable, the setup_context style,
saving non-tensors, and the errors for a backward that returns the wrong gradients."""
# tolerance: rtol=1e-6 atol=1e-8
import torch

import warnings

from _printing import attempt


print("== needs_input_grad")
seen = []


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, factor):
        ctx.save_for_backward(x, y)
        ctx.factor = factor
        return x * y * factor

    @staticmethod
    def backward(ctx, grad):
        seen.append(ctx.needs_input_grad)
        x, y = ctx.saved_tensors
        gx = grad * y * ctx.factor if ctx.needs_input_grad[0] else None
        gy = grad * x * ctx.factor if ctx.needs_input_grad[1] else None
        return gx, gy, None


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, -1.0, 2.0])
Scale.apply(a, b, 3.0).sum().backward()
print(seen[-1], a.grad)
b.requires_grad_()
Scale.apply(a, b, 2).sum().backward()
print(seen[-1], a.grad, b.grad)
out = Scale.apply(a.detach(), b, 1.0)
print(out.requires_grad, out.grad_fn.name(), out.is_leaf)
with torch.no_grad():
    out = Scale.apply(a, b, 1.0)
print("under no_grad:", out.requires_grad, out.grad_fn)

print("== set_materialize_grads")


class TwoOut(torch.autograd.Function):
    materialize = True

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(TwoOut.materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("  got:", g1 if g1 is None else g1.tolist(), g2 if g2 is None else g2.tolist())
        total = torch.zeros(2)
        if g1 is not None:
            total = total + 2 * g1
        if g2 is not None:
            total = total + 3 * g2
        return total


x = torch.tensor([1.0, -1.0], requires_grad=True)
p, q = TwoOut.apply(x)
p.sum().backward()
print(x.grad)
TwoOut.materialize = False
x.grad = None
p, q = TwoOut.apply(x)
q.sum().backward()
print(x.grad)

print("== mark_non_differentiable")


class SortWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, index = x.sort()
        ctx.mark_non_differentiable(index)
        ctx.save_for_backward(index)
        return values, index

    @staticmethod
    def backward(ctx, grad_values, grad_index):
        index, = ctx.saved_tensors
        print("  grad for the index:", grad_index)
        result = torch.zeros_like(grad_values)
        result[index] = grad_values
        return result


v = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
vals, idx = SortWithIndex.apply(v)
print(vals.requires_grad, idx.requires_grad, idx.dtype, idx.grad_fn)
(vals * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(v.grad)

print("== mark_dirty")


class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


leaf = torch.tensor([1.0, 2.0], requires_grad=True)
attempt("on a leaf:", lambda: AddOneInPlace.apply(leaf))
mid = leaf * 1
version = mid._version
res = AddOneInPlace.apply(mid)
print(res is mid, mid._version - version, mid.grad_fn.name(), mid)
(mid * mid).sum().backward()
print(leaf.grad)


class ForgetsDirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.mul_(2)

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


fm = leaf * 1
attempt("in-place without mark_dirty:", lambda: ForgetsDirty.apply(fm).sum().backward())

print("== once_differentiable")


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * grad


c = torch.tensor([1.0, 2.0], requires_grad=True)
g, = torch.autograd.grad(Cube.apply(c).sum(), c, create_graph=True)
print(g, g.requires_grad, g.grad_fn is not None)
attempt("second derivative:", lambda: torch.autograd.grad(g.sum(), c))
g2, = torch.autograd.grad(Cube.apply(c).sum(), c)
print("first only:", g2, g2.requires_grad)

print("== setup_context style")


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y = inputs
        ctx.save_for_backward(x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * y, grad * x


m1 = torch.tensor([2.0, 3.0], requires_grad=True)
m2 = torch.tensor([4.0, 5.0], requires_grad=True)
Mul.apply(m1, m2).sum().backward()
print(m1.grad, m2.grad)
gm1, = torch.autograd.grad(Mul.apply(m1, m2).sum(), m1, create_graph=True)
print("double backward through setup_context:", gm1, gm1.requires_grad)

print("== backward returning the wrong things")


def make(backward_result):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return backward_result(grad)
    return Bad


bx = torch.tensor([1.0, 2.0], requires_grad=True)
by = torch.tensor([3.0, 4.0], requires_grad=True)
attempt("too few:", lambda: make(lambda g: (g,)).apply(bx, by).sum().backward())
attempt("too many:", lambda: make(lambda g: (g, g, g)).apply(bx, by).sum().backward())
bx.grad = by.grad = None
make(lambda g: (g, g, None)).apply(bx, by).sum().backward()      # extra Nones are allowed
print("extra None:", bx.grad, by.grad)
attempt("wrong shape:", lambda: make(lambda g: (torch.ones(3), g)).apply(bx, by).sum().backward())
attempt("not a tensor:", lambda: make(lambda g: ("grad", g)).apply(bx, by).sum().backward())
bx.grad = by.grad = None
make(lambda g: (g.double(), g)).apply(bx, by).sum().backward()
print("float64 gradient is cast:", bx.grad, bx.grad.dtype)
bx.grad = by.grad = None
make(lambda g: (None, None)).apply(bx, by).sum().backward()
print("all None:", bx.grad, by.grad)

print("== saving")


class SavesIntermediate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        e = x.exp()
        ctx.save_for_backward(e)
        return e

    @staticmethod
    def backward(ctx, grad):
        e, = ctx.saved_tensors
        return grad * e


si = torch.tensor([0.0, 1.0], requires_grad=True)
out = SavesIntermediate.apply(si)
out.sum().backward(retain_graph=True)
print(si.grad)
out.sum().backward()
print(si.grad)
attempt("saved tensors freed:", lambda: out.sum().backward())


class SavesNumber(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, None)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        x, nothing = ctx.saved_tensors
        print("  saved None:", nothing)
        return grad


SavesNumber.apply(si).sum().backward()


class SavesString(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, "not a tensor")
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad


attempt("save a string:", lambda: SavesString.apply(si))

print("== outputs")


class ReturnsInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 5


ri = torch.tensor([1.0, 2.0], requires_grad=True)
ro = ReturnsInput.apply(ri)
print(ro is ri, ro.grad_fn.name(), ro.is_leaf)
ro.sum().backward()
print(ri.grad)


class ViewOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, grad):
        return grad.view(2, 2)


vo = ViewOut.apply(torch.ones(2, 2, requires_grad=True) * 1)
print(vo.grad_fn.name(), vo._base is not None, vo.shape)
attempt("in-place on a custom view:", lambda: vo.mul_(2))
attempt("apply with a keyword:", lambda: ReturnsInput.apply(x=ri))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")       # instantiating a Function warns first
    attempt("call forward directly:", lambda: ReturnsInput()(ri))
