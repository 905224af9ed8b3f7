"""A short tour of autograd_lib: ``python -m autograd_lib.demo`` (or ``make demo``).

Each step prints what PyTorch would print for the same code, so the output
doubles as a check that the library behaves like the real thing.
"""

import pathlib
import warnings

import autograd_lib as ag


def section(title):
    print(f"\n=== {title} " + "=" * max(0, 66 - len(title)))


def main(out_dir="artifacts"):
    ag.manual_seed(0)

    section("1. The five attributes of a tensor")
    x = ag.tensor(1.0, requires_grad=True)
    y = ag.tensor(2.0)
    z = x * y
    for name, t in zip("xyz", (x, y, z)):
        print(f"{name}: data={t.data}  requires_grad={t.requires_grad}  grad={t._grad}  "
              f"grad_fn={type(t.grad_fn).__name__ if t.grad_fn else None}  is_leaf={t.is_leaf}")

    section("2. backward: d(x**3)/dx at x = 1")
    x = ag.tensor(1.0, requires_grad=True)
    (x ** 3).backward()
    print("x.grad =", x.grad, "  (3 x**2 = 3)")

    section("3. Gradients add up along every path")
    x = ag.tensor([2.0], requires_grad=True)
    y = 2 * x + 5.0
    L = y + x
    L.backward()
    print("L = (2x + 5) + x  ->  x.grad =", x.grad)

    section("4. retain_grad and a vector-Jacobian product")
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = 3 * a ** 3
    c = b * a
    b.retain_grad()
    c.backward(gradient=ag.tensor([1.0, 1.0]))
    print("a.grad =", a.grad, "  b.grad =", b.grad)

    section("5. The graph PyTorch would record")
    w = ag.randn(5, 3, requires_grad=True)
    x = ag.randn(1, 5)
    z = (x @ w).mean()
    print("z.grad_fn:", type(z.grad_fn).__name__, "->",
          [type(n).__name__ if n else None for n, _ in z.grad_fn.next_functions])
    from autograd_lib import viz
    print(viz.format_graph(z, names={"w": w, "x": x, "z": z}))
    fig = viz.draw_graph(z, names={"w": w, "x": x, "z": z}, title="z = (x @ w).mean()")
    out = pathlib.Path(out_dir)
    out.mkdir(exist_ok=True)
    fig.savefig(out / "demo_graph.png", dpi=120)
    print(f"(figure saved to {out / 'demo_graph.png'})")

    section("6. In-place changes are caught; changes through .data are not")
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", str(e).split(" Hint")[0])
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.data.mul_(0)                  # invisible to autograd
    y.sum().backward()
    print("after y.data.mul_(0): x.grad =", x.grad, " (silently wrong: exp(x) was saved and zeroed)")

    section("7. no_grad: inference without a graph")
    with ag.no_grad():
        p = w * 2
    print("under no_grad: requires_grad =", p.requires_grad, " grad_fn =", p.grad_fn)

    section("8. Non-leaf .grad is None, with PyTorch's warning")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        print("z.grad ->", z.grad)
    print("warning:", str(caught[0].message)[:78] + "...")


if __name__ == "__main__":
    main()
