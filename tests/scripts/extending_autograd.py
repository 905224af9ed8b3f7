"""Extending autograd: a linear Function (both styles), checked with gradcheck, wrapped
in a Module; a Function with a constant argument; hooks and saved-tensor hooks."""
# tolerance: rtol=1e-6 atol=1e-8
import torch

import numpy as np


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class ScaleBy(torch.autograd.Function):
    """forward without ctx, then setup_context (PyTorch's newer style)."""

    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MyLinear(torch.nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = torch.nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        with torch.no_grad():
            self.weight.copy_(torch.linspace(-0.1, 0.1, self.weight.numel()).view_as(self.weight))
            if self.bias is not None:
                self.bias.fill_(0.05)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return f"input_features={self.input_features}, output_features={self.output_features}, " \
               f"bias={self.bias is not None}"


rng = np.random.default_rng(2)
inputs = (torch.tensor(rng.standard_normal((6, 4)), dtype=torch.double, requires_grad=True),
          torch.tensor(rng.standard_normal((3, 4)), dtype=torch.double, requires_grad=True))
print("gradcheck:", torch.autograd.gradcheck(LinearFunction.apply, inputs, eps=1e-6, atol=1e-4))
print("fast mode:", torch.autograd.gradcheck(LinearFunction.apply, inputs, fast_mode=True))
print("gradcheck ScaleBy:", torch.autograd.gradcheck(lambda t: ScaleBy.apply(t, 2.5), inputs[:1]))

layer = MyLinear(4, 3)
print(layer)
out = layer(inputs[0].float().detach())
out.sum().backward()
print(out.grad_fn.name(), layer.weight.grad, layer.bias.grad)

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * 2
y.retain_grad()
handle = y.register_hook(lambda grad: grad * 10)
z = (y ** 2).sum()
z.backward()
print(x.grad, y.grad)
handle.remove()

packed = []


def pack(tensor):
    packed.append(tuple(tensor.shape))
    return tensor.clone()


def unpack(tensor):
    return tensor


x.grad = None
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    w = (x.exp() * x).sin()
w.sum().backward()
print(packed, x.grad)

a = torch.tensor([0.5, 1.5], requires_grad=True)
b = a.exp()
b.add_(1)
try:
    b.sum().backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(":")[0])
c = a * 1
c.mul_(3)
c.sum().backward()
print(a.grad, c._version, c.grad_fn.name())
