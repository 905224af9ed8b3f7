"""What the scripts of this folder share: printing a call's result or the error it raised,
and a loss under each reduction.

Not a script itself (tests/test_scripts.py runs the files whose names do not start with
"_"); a script imports it as ``from _printing import attempt``, which works under plain
``python tests/scripts/<name>.py`` and under the harness.
"""
import warnings


def attempt(label, fn):
    """Run ``fn``; print its result, or the exception's class and first message line."""
    try:
        result = fn()
    except Exception as error:              # noqa: BLE001 - what is raised is what we print
        text = str(error).strip()
        print(label, type(error).__name__ + ":", text.splitlines()[0] if text else "")
    else:
        print(label, result)


def show_reductions(label, loss_fn, *args, node_names=False):
    """Print the loss ``loss_fn(x, *args[1:], reduction=...)`` under each reduction (with
    the name of its last node if ``node_names``), and the gradient of ``x`` (a copy of
    ``args[0]``) for "mean"; warnings (kl_div's "mean") are not compared."""
    parts = []
    for reduction in ("mean", "sum", "none"):
        x = args[0].detach().clone().requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = loss_fn(x, *args[1:], reduction=reduction)
        out.sum().backward() if reduction == "none" else out.backward()
        values = [round(v, 5) for v in out.detach().flatten().tolist()]
        parts.append((reduction, type(out.grad_fn).__name__, values) if node_names else (reduction, values))
        if reduction == "mean":
            grad = [round(v, 5) for v in x.grad.flatten().tolist()]
    print(label, parts, "grad(mean):", grad)
