"""Type promotion (tensor with tensor, with Python numbers, 0-dim tensors, bool, int
division), the dtypes of gradients, backward through broadcasting, and the errors of
mismatched shapes and dtypes in matmul, cat and friends."""
# tolerance: rtol=1e-6 atol=1e-7
import torch

from _printing import attempt


print("== promotion")
i32 = torch.tensor([1, 2], dtype=torch.int32)
i64 = torch.tensor([3, 4])
f32 = torch.tensor([0.5, 1.5])
f64 = torch.tensor([0.25, 2.0], dtype=torch.float64)
b = torch.tensor([True, False])
zero_dim64 = torch.tensor(2.0, dtype=torch.float64)
zero_dim_int = torch.tensor(3)
pairs = [("i32+i64", lambda: i32 + i64), ("i32+f32", lambda: i32 + f32), ("f32+f64", lambda: f32 + f64),
         ("b+b", lambda: b + b), ("b+i32", lambda: b + i32), ("b*1.5", lambda: b * 1.5),
         ("i32*2", lambda: i32 * 2), ("i32*2.5", lambda: i32 * 2.5), ("f32*0-dim f64", lambda: f32 * zero_dim64),
         ("i32*0-dim f64", lambda: i32 * zero_dim64), ("i32+0-dim int64", lambda: i32 + zero_dim_int),
         ("i64/i64", lambda: i64 / i64), ("i64//2", lambda: i64 // 2), ("-i64//2", lambda: -i64 // 2),
         ("i64 % -3", lambda: i64 % -3), ("f32 % -1", lambda: f32 % -1.0), ("i64**2", lambda: i64 ** 2),
         ("i64**-1.0", lambda: i64 ** -1.0), ("2**i64", lambda: 2 ** i64), ("i64>f32", lambda: i64 > f32),
         ("b&b", lambda: b & torch.tensor([True, True])), ("~b", lambda: ~b), ("i64&1", lambda: i64 & 1),
         ("true_divide int", lambda: torch.true_divide(i64, 2)),
         ("div floor", lambda: torch.div(-i64, 2, rounding_mode="floor")),
         ("div trunc", lambda: torch.div(-i64, 2, rounding_mode="trunc")),
         ("div trunc float", lambda: torch.div(-f32 * 3, 2, rounding_mode="trunc")),
         ("where mixed", lambda: torch.where(b, i32, f64)), ("where scalar", lambda: torch.where(b, i64, 0.5)),
         ("sum of bool", lambda: b.sum()), ("mean of int", lambda: i64.float().mean()),
         ("cumsum of int32", lambda: i32.cumsum(0)), ("prod of bool", lambda: b.prod()),
         ("max of mixed", lambda: torch.maximum(i32, f32)), ("clamp int with float", lambda: i64.clamp(min=3.5)),
         ("result_type", lambda: torch.result_type(i32, 1.0)), ("promote_types", lambda: torch.promote_types(torch.int32, torch.float16)),
         ("can_cast", lambda: (torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float32))),
         ("abs of bool", lambda: torch.abs(torch.tensor([-1, 2]))), ("sqrt of int", lambda: torch.sqrt(i64)),
         ("exp of bool", lambda: torch.exp(b)), ("sign of int", lambda: torch.sign(-i64)),
         ("arange dtypes", lambda: (torch.arange(3).dtype, torch.arange(3.0).dtype, torch.arange(0, 1, 0.5).dtype)),
         ("full dtypes", lambda: (torch.full((1,), 2).dtype, torch.full((1,), True).dtype, torch.full((1,), 2.0).dtype)),
         ("tensor of mixed list", lambda: torch.tensor([1, 2.5, True]).dtype),
         ("default dtype", lambda: torch.get_default_dtype())]
for label, fn in pairs:
    attempt(label + ":", fn)
attempt("int in-place with float:", lambda: i64.mul_(1.5))
attempt("float in-place with int:", lambda: f32.clone().mul_(torch.tensor([2, 3])))
attempt("bitwise on float:", lambda: f32 & f32)
attempt("neg of bool:", lambda: -b)
attempt("sub bools:", lambda: b - b)

print("== gradient dtypes")
x32 = torch.tensor([1.0, 2.0], requires_grad=True)
x64 = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
y = (x32 * x64).sum()
print(y.dtype, y.grad_fn.name())
y.backward()
print(x32.grad, x32.grad.dtype, x64.grad, x64.grad.dtype)
x32.grad = None
z = (x32.double() ** 2).sum()
z.backward()
print(".double() in the graph:", x32.grad.dtype, x32.grad)
x32.grad = None
(x32 * torch.tensor([2, 3])).sum().backward()
print("times an int tensor:", x32.grad, x32.grad.dtype)
x32.grad = None
(x32.to(torch.float16).float() * 1).sum().backward()
print("through float16:", x32.grad, x32.grad.dtype)

print("== broadcasting in backward")
a = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)          # (3, 1)
row = torch.tensor([10.0, 20.0, 30.0, 40.0], requires_grad=True)     # (4,)
s = torch.tensor(0.5, requires_grad=True)                            # ()
out = (a * row + s) ** 2
out.sum().backward()
print(out.shape, a.grad, row.grad, s.grad)
c = torch.ones(2, 1, 3, requires_grad=True)
d = torch.ones(4, 1, requires_grad=True)
(c * d * torch.arange(12.0).reshape(4, 3)).sum().backward()
print(c.grad.shape, c.grad[0], d.grad.shape, d.grad.flatten())
e = torch.tensor([1.0, 2.0], requires_grad=True)
ex = e.expand(3, 2)
(ex * torch.tensor([[1.0], [2.0], [3.0]])).sum().backward()
print("expand:", e.grad)
e.grad = None
torch.broadcast_tensors(e, torch.zeros(2, 2))[0].sum().backward()
print("broadcast_tensors:", e.grad, torch.broadcast_shapes((2, 1), (3,)))
m = torch.ones(3, 2, 4, requires_grad=True)
w = torch.ones(4, 5, requires_grad=True)
(m @ w).sum().backward()
print("batched matmul:", m.grad.shape, w.grad.shape, w.grad[0, 0].item())
v = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
(m @ v).sum().backward()
print("matrix @ vector:", v.grad)

print("== errors")
attempt("add shapes:", lambda: torch.ones(2, 3) + torch.ones(3, 2))
attempt("mm inner:", lambda: torch.ones(2, 3).mm(torch.ones(2, 3)))
attempt("matmul inner:", lambda: torch.ones(2, 3) @ torch.ones(4))
attempt("matmul 0-dim:", lambda: torch.tensor(1.0) @ torch.ones(2))
attempt("mm 1-D:", lambda: torch.mm(torch.ones(3), torch.ones(3, 2)))
attempt("bmm batch:", lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2)))
attempt("mm dtypes:", lambda: torch.ones(2, 2).mm(torch.ones(2, 2, dtype=torch.float64)))
attempt("matmul int float:", lambda: torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 2))
attempt("dot sizes:", lambda: torch.dot(torch.ones(2), torch.ones(3)))
attempt("cat ranks:", lambda: torch.cat([torch.ones(2, 2), torch.ones(2)]))
attempt("cat sizes:", lambda: torch.cat([torch.ones(2, 2), torch.ones(3, 3)]))
print("cat dtypes promote:", torch.cat([torch.ones(1, dtype=torch.long), torch.ones(1)]).dtype)
attempt("stack sizes:", lambda: torch.stack([torch.ones(2), torch.ones(3)]))
attempt("view impossible:", lambda: torch.ones(2, 3).t().view(6))
attempt("reshape size:", lambda: torch.ones(2, 3).reshape(4, 2))
attempt("view two -1:", lambda: torch.ones(6).view(-1, -1))
attempt("dim out of range:", lambda: torch.ones(2, 3).sum(2))
attempt("squeeze bad dim:", lambda: torch.ones(2).unsqueeze(3))
attempt("index out of range:", lambda: torch.ones(3)[3])
attempt("gather dtype:", lambda: torch.ones(2, 2).gather(1, torch.tensor([[0.0, 1.0]])))
attempt("where cond dtype:", lambda: torch.where(torch.tensor([1, 0]), 1.0, 0.0))
attempt("item of many:", lambda: torch.ones(2).item())
attempt("bool of many:", lambda: bool(torch.ones(2)))
attempt("int of float one-element:", lambda: int(torch.tensor([2.7])))
attempt("len of 0-dim:", lambda: len(torch.tensor(1.0)))
attempt("iterate 0-dim:", lambda: list(torch.tensor(1.0)))
attempt("tensor of ragged:", lambda: torch.tensor([[1.0, 2.0], [3.0]]))
attempt("tensor of strings:", lambda: torch.tensor(["a"]))
attempt("numpy of requires_grad:", lambda: x32.numpy())
attempt("grad of int:", lambda: torch.autograd.grad(i64.sum(), i64))
