"""Realistic wrong answers for assignment 04 (leaves, retain_grad and accumulation).

Each mistake edits one answer cell of course/source/04_leaves/04_leaves.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail naming ``rule`` (a rule its task text states),
and the test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_ACC = "04_accumulate_grad_answer"
_RETAIN = "04_retain_grad_answer"
_HOOKS = "04_tensor_hooks_answer"       # store_retained_grad and call_tensor_hooks, one exercise
_PRUNE = "04_nodes_to_run_answer"
_RESULTS = "04_grad_results_answer"

MISTAKES = [
    # ------------------------------------------------------------ 04.accumulate_grad
    Mistake(_ACC, "overwrites .grad instead of adding",
            edits=[
                ('''    if variable._grad is None:
        variable._grad = new_grad.clone()
    elif ag.is_grad_enabled():
        variable._grad = variable._grad + new_grad
    else:
        variable._grad.add_(new_grad)
''',
                 '    variable._grad = new_grad.clone()\n'),
            ],
            rule="adds"),
    Mistake(_ACC, "stores the incoming gradient itself (no copy)",
            edits=[('variable._grad = new_grad.clone()', 'variable._grad = new_grad')],
            rule="copy"),
    Mistake(_ACC, "stores new_grad.detach(), which shares its memory",
            edits=[('variable._grad = new_grad.clone()', 'variable._grad = new_grad.detach()')],
            rule="copy"),
    Mistake(_ACC, "always adds out of place, also in a normal backward",
            edits=[
                ('elif ag.is_grad_enabled():', 'else:'),
                ('''    else:
        variable._grad.add_(new_grad)
''',
                 ''),
            ],
            rule="later"),
    Mistake(_ACC, "adds into the NumPy array without bumping the version counter",
            edits=[('variable._grad.add_(new_grad)', 'variable._grad._data += new_grad._data')],
            rule="later"),
    Mistake(_ACC, "ignores grad mode: adds in place with create_graph=True too",
            edits=[
                ('''    elif ag.is_grad_enabled():
        variable._grad = variable._grad + new_grad
''',
                 ''),
            ],
            rule="later"),
    Mistake(_ACC, "copies with detach().clone(), dropping the graph of create_graph=True",
            edits=[('variable._grad = new_grad.clone()', 'variable._grad = new_grad.detach().clone()')],
            rule="later"),
    Mistake(_ACC, "forgets the first gradient: adds to a .grad that is None",
            edits=[
                ('''    if variable._grad is None:
        variable._grad = new_grad.clone()
    elif ag.is_grad_enabled():
''',
                 '    if ag.is_grad_enabled():\n'),
            ],
            rule="copy"),

    # ------------------------------------------------------------ 04.retain_grad
    Mistake(_RETAIN, "no requires_grad check: a constant is treated like a leaf",
            edits=[
                ('''    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
''',
                 ''),
            ],
            rule="cases"),
    Mistake(_RETAIN, "raises ValueError instead of RuntimeError",
            edits=[
                ('raise RuntimeError("can\'t retain_grad on Tensor that has requires_grad=False")',
                 'raise ValueError("can\'t retain_grad on Tensor that has requires_grad=False")'),
            ],
            rule="cases"),
    Mistake(_RETAIN, "marks leaves as retaining their grad too",
            edits=[
                ('''    if tensor.grad_fn is None:
        return
''',
                 ''),
                ('    node = tensor.grad_fn\n',
                 '''    node = tensor.grad_fn
    if node is None:
        return
'''),
            ],
            rule="cases"),
    Mistake(_RETAIN, "only sets the flag, never registers with the node",
            edits=[
                ('''    node = tensor.grad_fn
    if node._retains_grad is None:
        node._retains_grad = {}
    node._retains_grad[tensor._output_nr] = weakref.ref(tensor)
''',
                 ''),
            ],
            rule="register"),
    Mistake(_RETAIN, "assumes the node's dict already exists",
            edits=[
                ('''    node = tensor.grad_fn
    if node._retains_grad is None:
        node._retains_grad = {}
    node._retains_grad[tensor._output_nr] = weakref.ref(tensor)
''',
                 '    tensor.grad_fn._retains_grad[tensor._output_nr] = weakref.ref(tensor)\n'),
            ],
            rule="register"),
    Mistake(_RETAIN, "replaces the node's dict, dropping the other outputs",
            edits=[
                ('''    node = tensor.grad_fn
    if node._retains_grad is None:
        node._retains_grad = {}
    node._retains_grad[tensor._output_nr] = weakref.ref(tensor)
''',
                 '    tensor.grad_fn._retains_grad = {tensor._output_nr: weakref.ref(tensor)}\n'),
            ],
            rule="register"),
    Mistake(_RETAIN, "registers every tensor under output 0",
            edits=[
                ('node._retains_grad[tensor._output_nr] = weakref.ref(tensor)',
                 'node._retains_grad[0] = weakref.ref(tensor)'),
            ],
            rule="register"),
    Mistake(_RETAIN, "the node holds the tensor strongly (a lambda, not a weak reference)",
            edits=[
                ('node._retains_grad[tensor._output_nr] = weakref.ref(tensor)',
                 'node._retains_grad[tensor._output_nr] = lambda: tensor'),
            ],
            rule="weak"),

    # ------------------------------------------------------------ 04.tensor_hooks
    Mistake(_HOOKS, "adds a later retained gradient in place with +=",
            edits=[('        tensor._grad = tensor._grad + grad\n', '        tensor._grad += grad\n')],
            rule="adds"),
    Mistake(_HOOKS, "stores the retained gradient before the hooks run",
            edits=[('''    grads = list(grads)
    for nr, hooks in (node._pre_hooks or {}).items():
        for hook in list(hooks.values()):
            replaced = hook(grads[nr])
            if replaced is not None:
                grads[nr] = replaced
    for nr, ref in (node._retains_grad or {}).items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None:
            store_retained_grad(tensor, grads[nr])
''', '''    grads = list(grads)
    for nr, ref in (node._retains_grad or {}).items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None:
            store_retained_grad(tensor, grads[nr])
    for nr, hooks in (node._pre_hooks or {}).items():
        for hook in list(hooks.values()):
            replaced = hook(grads[nr])
            if replaced is not None:
                grads[nr] = replaced
''')],
            rule="retain"),
    Mistake(_HOOKS, "stores the incoming gradient itself (no copy)",
            edits=[('tensor._grad = grad.clone()', 'tensor._grad = grad')],
            rule="copy"),
    Mistake(_HOOKS, "ignores what a hook returns",
            edits=[('''            replaced = hook(grads[nr])
            if replaced is not None:
                grads[nr] = replaced
''', '''            hook(grads[nr])
''')],
            rule="chain"),
    Mistake(_HOOKS, "overwrites the stored gradient instead of adding",
            edits=[('''    if tensor._grad is None:
        tensor._grad = grad.clone()
    else:
        tensor._grad = tensor._grad + grad
''', '    tensor._grad = grad.clone()\n')],
            rule="adds"),
    Mistake(_HOOKS, "gives every hook the gradient that arrived",
            edits=[('''        for hook in list(hooks.values()):
            replaced = hook(grads[nr])
            if replaced is not None:
                grads[nr] = replaced
''', '''        arrived = grads[nr]
        for hook in list(hooks.values()):
            replaced = hook(arrived)
            if replaced is not None:
                grads[nr] = replaced
''')],
            rule="chain"),
    Mistake(_HOOKS, "copies with detach().clone(), dropping the graph of create_graph=True",
            edits=[('tensor._grad = grad.clone()', 'tensor._grad = grad.detach().clone()')],
            rule="copy"),
    Mistake(_HOOKS, "skips the hooks of an output that received nothing (PyTorch calls them with None)",
            edits=[('''            replaced = hook(grads[nr])''', '''            replaced = hook(grads[nr]) if grads[nr] is not None else None''')],
            rule="no-gradient"),
    Mistake(_HOOKS, "returns at once when no gradient reached the node at all (PyTorch still calls the hooks)",
            edits=[('    grads = list(grads)\n',
                    '    if all(g is None for g in grads):\n        return list(grads)\n    grads = list(grads)\n')],
            rule="no-gradient"),
    # ------------------------------------------------------------ 04.nodes_to_run
    Mistake(_PRUNE, "starts the walk with the targets already in the set",
            edits=[("    needed = set()\n", "    needed = set(targets)\n")],
            rule="targets"),
    Mistake(_PRUNE, "follows next_functions down from the targets instead of back up to the roots",
            edits=[("parents.setdefault(next_node, []).append(node)", "parents.setdefault(node, []).append(next_node)")],
            rule="ancestors"),
    Mistake(_PRUNE, "keeps only the targets' direct parents",
            edits=[("                stack.append(parent)\n", "")],
            rule="ancestors"),
    Mistake(_PRUNE, "walks with recursion",
            edits=[("""    needed = set()
    stack = list(targets)
    while stack:
        node = stack.pop()
        for parent in parents.get(node, []):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
""", """    needed = set()

    def visit(node):
        for parent in parents.get(node, []):
            if parent not in needed:
                needed.add(parent)
                visit(parent)
    for target in targets:
        visit(target)
""")],
            rule="deep"),
    Mistake(_PRUNE, "returns every node",
            edits=[("    return needed\n", "    return set(nodes)\n")],
            rule="others"),
    # ------------------------------------------------------------ 04.grad_results
    Mistake(_RESULTS, "makes the zeros with ag.zeros(shape): always float32",
            edits=[("grad = ag.zeros_like(tensor)", "grad = ag.zeros(tuple(tensor.shape))")],
            rule="zeros"),
    Mistake(_RESULTS, "ignores the default: allow_unused=None counts as false",
            edits=[("unused_ok = materialize_grads if allow_unused is None else allow_unused",
                    "unused_ok = allow_unused")],
            rule="unused"),
    Mistake(_RESULTS, "counts the inputs from 1 in the error",
            edits=[("at index {index} appears", "at index {index + 1} appears")],
            rule="unused"),
    Mistake(_RESULTS, "refuses the contradictory flags only when an input is unused",
            edits=[('''    if allow_unused is False and materialize_grads:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
''', ""),
                   ("            if not unused_ok:\n", '''            if allow_unused is False and materialize_grads:
                raise ValueError("Expected allow_unused to be True or not passed when "
                                 "materialize_grads=True, but got: allow_unused=False.")
            if not unused_ok:
''')],
            rule="flags"),
    Mistake(_RESULTS, "gives zeros to every allowed unused input, materialize_grads or not",
            edits=[('''            if materialize_grads:
                grad = ag.zeros_like(tensor)
''', '''            grad = ag.zeros_like(tensor)
''')],
            rule="unused"),
    Mistake(_RESULTS, "returns the list itself",
            edits=[("    return tuple(grads)\n", "    return grads\n")],
            rule="tuple"),
    Mistake(_RESULTS, "makes the zeros by zeroing a detached input in place",
            edits=[("grad = ag.zeros_like(tensor)", "grad = tensor.detach().zero_()")],
            rule="zeros"),
]
