"""Realistic wrong answers for assignment 06 (graph lifetime, retain_graph, higher-order gradients).

Each mistake edits one answer cell of course/source/06_lifetime/06_lifetime.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_PLAN = "06_plan_saves_answer"
_RELEASE = "06_release_saved_answer"
_VALUES = "06_saved_values_answer"
_UNPACK = "06_unpack_answer"
_HVP = "06_hvp_answer"
_CK_FORWARD = "06_checkpoint_forward_answer"
_CK_BACKWARD = "06_checkpoint_backward_answer"
_FG = "06_function_gradients_answer"

MISTAKES = [
    # ------------------------------------------------------------ 06.plan_saves
    Mistake(_PLAN, "keeps what every formula names, whether its input needs a gradient or not",
            edits=[('wanted = [i for i, needed in enumerate(needs_grad) if needed]',
                    'wanted = list(range(len(inputs)))')],
            rule="a node keeps the values that the formulas of its grad-requiring inputs name"),
    Mistake(_PLAN, "an input's source is its name instead of its position",
            edits=[('plan.setdefault(name, inputs.index(name))', 'plan.setdefault(name, name)')],
            rule="each value's source: an input's position (an int) for an input"),
    Mistake(_PLAN, "the result taken from the first input",
            edits=[('plan.setdefault(name, RESULT)', 'plan.setdefault(name, 0)')],
            rule="each value's source: an input's position (an int) for an input, RESULT for the result"),
    Mistake(_PLAN, "the values of node_cls.saves kept as plain values, never freed",
            edits=[('''            elif name in node_cls.saves:
                plan.setdefault(name, SAVED_PARAM)
''', '')],
            rule="SAVED_PARAM for a name in node_cls.saves"),
    Mistake(_PLAN, "drops the plain values of the inputs that need no gradient",
            edits=[('''    for i in others:
        for name in node_cls.formulas[inputs[i]][1]:
            is_plain = name != "result" and name not in inputs and name not in node_cls.saves
            if is_plain:
                plan.setdefault(name, PARAM_IF_GIVEN)
''', '')],
            rule="is kept as PARAM_IF_GIVEN"),
    Mistake(_PLAN, "walks the inputs in order, so a value another input names first becomes PARAM_IF_GIVEN",
            edits=[('''    for i in wanted:
        for name in node_cls.formulas[inputs[i]][1]:
            if name == "result":
''', '''    for i in range(len(inputs)):
        for name in node_cls.formulas[inputs[i]][1]:
            if i in others:
                if name != "result" and name not in inputs and name not in node_cls.saves:
                    plan.setdefault(name, PARAM_IF_GIVEN)
            elif name == "result":
''')],
            rule="is a PARAM, even when the formula of an input needing no gradient names it too"),

    # ------------------------------------------------------------ 06.release_saved
    Mistake(_RELEASE, "empties the dict, forgetting the saved names",
            edits=[('node._saved = {name: None for name in node._saved}', 'node._saved = {}')],
            rule="release_saved keeps every saved name (mapped to None)"),
    Mistake(_RELEASE, "only sets the flag: the saved tensors stay in memory",
            edits=[
                ('        node._saved = {name: None for name in node._saved}\n',
                 ''),
            ],
            rule="release_saved must drop the saved tensors"),
    Mistake(_RELEASE, "drops the tensors but never marks the node freed",
            edits=[
                ('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''',
                 '''    for name in node._saved:
        node._saved[name] = None
'''),
            ],
            rule="a node that dropped its saved tensors is marked freed (node._freed = True)"),
    Mistake(_RELEASE, "marks every node freed, even one that saved nothing",
            edits=[
                ('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''',
                 '''    node._saved = {name: None for name in node._saved}
    node._freed = True
'''),
            ],
            rule="a node that saved nothing is not marked freed"),
    Mistake(_RELEASE, "frees the plain values too",
            edits=[
                ('        node._saved = {name: None for name in node._saved}\n',
                 '''        node._saved = {name: None for name in node._saved}
        node._params = {}
'''),
            ],
            rule="plain values (node._params) are never freed"),
    Mistake(_RELEASE, "deletes the dict entries with del while iterating",
            edits=[
                ('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''',
                 '''    for name in node._saved:
        del node._saved[name]
    node._freed = True
'''),
            ],
            rule="release_saved runs without error and returns None"),

    # ------------------------------------------------------------ 06.saved_values
    Mistake(_VALUES, "never checks whether the node was freed",
            edits=[
                ('''    if node._freed and any(name in node._saved for name in names):
        raise RuntimeError(ag.graph.FREED_MESSAGE)
''',
                 ''),
            ],
            rule="a freed node refuses to hand out saved tensors"),
    Mistake(_VALUES, "refuses everything once freed, plain values too",
            edits=[
                ('if node._freed and any(name in node._saved for name in names):', 'if node._freed:'),
            ],
            rule="plain values (node._params) are never freed"),
    Mistake(_VALUES, "reads .tensor instead of unpack(node): no version check",
            edits=[
                ('values.append(node._saved[name].unpack(node))',
                 'values.append(node._saved[name].tensor)'),
            ],
            rule="saved tensors are unpacked with unpack(node), which checks their version"),
    Mistake(_VALUES, "a ValueError with a message of its own",
            edits=[
                ('        raise RuntimeError(ag.graph.FREED_MESSAGE)\n',
                 '        raise ValueError("the saved tensors of this node have been freed")\n'),
            ],
            rule="raise RuntimeError(ag.graph.FREED_MESSAGE)"),
    Mistake(_VALUES, "saved tensors first, then the plain values",
            edits=[
                ('''    values = []
    for name in names:
        if name in node._saved:
            values.append(node._saved[name].unpack(node))
        else:
            values.append(node._params[name])
''',
                 '''    values = [node._saved[name].unpack(node) for name in names if name in node._saved]
    values += [node._params[name] for name in names if name not in node._saved]
'''),
            ],
            rule="saved_values returns the values in the order of names"),
    Mistake(_VALUES, "forgets the plain values",
            edits=[
                ('''    values = []
    for name in names:
        if name in node._saved:
            values.append(node._saved[name].unpack(node))
        else:
            values.append(node._params[name])
    return values
''',
                 '    return [node._saved[name].unpack(node) for name in names if name in node._saved]\n'),
            ],
            rule="a name that is not a saved tensor is a plain value"),

    # ------------------------------------------------------------ 06.unpack
    Mistake(_UNPACK, "attaches a saved output only when grad mode is on (as the library once did)",
            edits=[("if not saved.is_output:", "if not saved.is_output or not ag.is_grad_enabled():")],
            rule="whatever the grad mode"),
    Mistake(_UNPACK, "attaches every saved output at output number 0",
            edits=[("    output._output_nr = saved.output_nr\n", "")],
            rule="output number it was saved at"),
    Mistake(_UNPACK, "checks the version of a hooked tensor too",
            edits=[("    if saved.unpack_hook is None:\n        saved.check_version(node)",
                    "    saved.check_version(node)\n    if saved.unpack_hook is None:")],
            rule="not version-checked"),
    Mistake(_UNPACK, "hands on whatever the unpack hook returned",
            edits=[("        if not isinstance(tensor, ag.Tensor):\n"
                    "            raise TypeError(UNPACK_HOOK_TYPE.format(type=type_name(tensor)))\n", "")],
            rule="refused with TypeError"),
    Mistake(_UNPACK, "returns a saved output as it was saved, without its node",
            edits=[("    if not saved.is_output:\n        return tensor\n", "    return tensor\n")],
            rule="comes back with the node as its grad_fn"),
    Mistake(_UNPACK, "returns a copy of a saved input instead of the tensor itself",
            edits=[("    if not saved.is_output:\n        return tensor\n",
                    "    if not saved.is_output:\n        return ag.Tensor._make(tensor._data.copy())\n")],
            rule="that very tensor"),
    # ------------------------------------------------------------ 06.hvp
    Mistake(_HVP, "first gradient without create_graph=True",
            edits=[
                ('(grad,) = ag.autograd.grad(output, x, create_graph=True)',
                 '(grad,) = ag.autograd.grad(output, x)'),
            ],
            rule="compute the gradient with create_graph=True"),
    Mistake(_HVP, "forgets v: returns H @ ones",
            edits=[
                ('(product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)',
                 '(product,) = ag.autograd.grad(grad.sum(), x, create_graph=create_graph)'),
            ],
            rule="hvp returns H @ v"),
    Mistake(_HVP, "returns the pair the wrong way round",
            edits=[
                ('''        return output.detach(), product.detach()
    return output, product
''',
                 '''        return product.detach(), output.detach()
    return product, output
'''),
            ],
            rule="the pair starts with the function's value"),
    Mistake(_HVP, "flags the caller's tensor instead of a detached copy",
            edits=[('x = inputs.detach().requires_grad_()', 'x = inputs.requires_grad_()')],
            rule="the caller's tensor is left untouched"),
    Mistake(_HVP, "never detaches the results",
            edits=[
                ('''        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
    if not create_graph:
        return output.detach(), product.detach()
''',
                 '        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=True)\n'),
            ],
            rule="without create_graph, both results are detached"),
    Mistake(_HVP, "always detaches, even with create_graph=True",
            edits=[
                ('''    if not create_graph:
        return output.detach(), product.detach()
    return output, product
''',
                 '    return output.detach(), product.detach()\n'),
            ],
            rule="with create_graph=True, H @ v keeps its graph"),
    Mistake(_HVP, "does not turn grad mode on: fails inside no_grad",
            edits=[
                ('''    with ag.enable_grad():
        output = func(x)
        (grad,) = ag.autograd.grad(output, x, create_graph=True)
        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
''',
                 '''    output = func(x)
    (grad,) = ag.autograd.grad(output, x, create_graph=True)
    (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
'''),
            ],
            rule="hvp turns grad mode on itself"),
    Mistake(_HVP, "two backward() calls: x.grad accumulates the gradient and H @ v",
            edits=[
                ('''        (grad,) = ag.autograd.grad(output, x, create_graph=True)
        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
    if not create_graph:
        return output.detach(), product.detach()
    return output, product
''',
                 '''        output.backward(create_graph=True)
        (x.grad * v).sum().backward()
    return output.detach(), x.grad.detach()
'''),
            ],
            rule="hvp returns H @ v"),
    # ------------------------------------------------------------ 06.checkpoint_forward
    Mistake(_CK_FORWARD, "saves the outputs instead of the inputs",
            edits=[
                ('''    ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
    with ag.no_grad():
        return run_function(*args)
''',
                 '''    with ag.no_grad():
        outputs = run_function(*args)
    ctx.save_for_backward(*(outputs if isinstance(outputs, tuple) else (outputs,)))
    return outputs
'''),
            ],
            rule="forward saves the tensor arguments, and only them, with ctx.save_for_backward"),
    Mistake(_CK_FORWARD, "saves the outputs too, as exp saves its result",
            edits=[
                ("""    ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
    with ag.no_grad():
        return run_function(*args)
""",
                 """    with ag.no_grad():
        outputs = run_function(*args)
    ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices],
                          *(outputs if isinstance(outputs, tuple) else (outputs,)))
    return outputs
"""),
            ],
            rule="forward saves the tensor arguments, and only them"),
    Mistake(_CK_FORWARD, "keeps the tensors in ctx.inputs as well",
            edits=[("ctx.inputs = [None if isinstance(arg, ag.Tensor) else arg for arg in args]",
                    "ctx.inputs = list(args)")],
            rule="ctx.inputs lists every argument, with None in place of each tensor"),
    Mistake(_CK_FORWARD, "takes the generator's state after running the function",
            edits=[
                ('    ctx.rng_state = get_rng_state() if preserve_rng_state else None\n', ''),
                ('''    with ag.no_grad():
        return run_function(*args)
''',
                 '''    with ag.no_grad():
        outputs = run_function(*args)
    ctx.rng_state = get_rng_state() if preserve_rng_state else None
    return outputs
'''),
            ],
            rule="forward keeps in ctx.rng_state the generator's state from before the function runs"),
    Mistake(_CK_FORWARD, "keeps the generator's state even without preserve_rng_state",
            edits=[("ctx.rng_state = get_rng_state() if preserve_rng_state else None",
                    "ctx.rng_state = get_rng_state()")],
            rule="(None without it)"),
    # ------------------------------------------------------------ 06.checkpoint_backward
    Mistake(_CK_BACKWARD, "recomputes on the saved tensors themselves, not on detached copies",
            edits=[("copies = detach_variable(tuple(inputs))", "copies = tuple(inputs)")],
            rule="backward recomputes on detached copies of the inputs"),
    Mistake(_CK_BACKWARD, "recomputes without turning grad mode on",
            edits=[
                ('''        with ag.enable_grad():
            outputs = ctx.run_function(*copies)
''',
                 '''        outputs = ctx.run_function(*copies)
'''),
            ],
            rule="backward recomputes with grad mode on"),
    Mistake(_CK_BACKWARD, "forgets the two Nones for run_function and preserve_rng_state",
            edits=[("return (None, None) + tuple(", "return tuple(")],
            rule="backward returns one gradient per argument of forward"),
    Mistake(_CK_BACKWARD, "returns gradients only for the tensor arguments",
            edits=[("tuple(c.grad if isinstance(c, ag.Tensor) else None for c in copies)",
                    "tuple(c.grad for c in copies if isinstance(c, ag.Tensor))")],
            rule="backward returns one gradient per argument of forward"),
    Mistake(_CK_BACKWARD, "sets the forward pass's random state without fork_rng: the caller's generator moves back",
            edits=[
                ('''    with fork_rng(enabled=ctx.rng_state is not None):
        if ctx.rng_state is not None:
            set_rng_state(ctx.rng_state)
        copies = detach_variable(tuple(inputs))
        with ag.enable_grad():
            outputs = ctx.run_function(*copies)
''',
                 '''    if ctx.rng_state is not None:
        set_rng_state(ctx.rng_state)
    copies = detach_variable(tuple(inputs))
    with ag.enable_grad():
        outputs = ctx.run_function(*copies)
'''),
            ],
            rule="leaves the caller's generator as it was"),
    Mistake(_CK_BACKWARD, "never restores the forward pass's random state",
            edits=[
                ('''        if ctx.rng_state is not None:
            set_rng_state(ctx.rng_state)
''', ''),
            ],
            rule="backward recomputes with the forward pass's random numbers"),
    Mistake(_CK_BACKWARD, "does not refuse autograd.grad",
            edits=[
                ('''    if not checkpoint_valid():
        raise RuntimeError(NOT_VALID_MESSAGE)
''', ''),
            ],
            rule="inside autograd.grad or backward(inputs=...), backward refuses"),
    # ------------------------------------------------------------ 06.function_gradients
    Mistake(_FG, "passes on None for an argument that is not a tensor",
            edits=[('''                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
''', '''                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
            passed_on.append(None)
''')],
            rule="a list of the gradients of the tensor arguments, in order"),
    Mistake(_FG, "refuses extra gradients even when they are None",
            edits=[('if len(grads) < expected or any(g is not None for g in grads[expected:]):',
                    'if len(grads) != expected:')],
            rule="unless every extra one is None"),
    Mistake(_FG, "takes a list for a tuple of gradients",
            edits=[('grads if isinstance(grads, tuple) else', 'grads if isinstance(grads, (tuple, list)) else')],
            rule="anything else (one tensor, None, a list) is a single gradient"),
    Mistake(_FG, "counts positions from 0",
            edits=[('enumerate(zip(grads, arg_is_tensor), start=1)', 'enumerate(zip(grads, arg_is_tensor))')],
            rule="any other gradient there is an error naming its position, counted from 1"),
    Mistake(_FG, "accepts extra gradients that are not None",
            edits=[('if len(grads) < expected or any(g is not None for g in grads[expected:]):',
                    'if len(grads) < expected:')],
            rule="and so are more"),
    Mistake(_FG, "asks for a tensor before asking whether the argument was one",
            edits=[('''        if not is_tensor:
            if grad is not None:
                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
        elif grad is not None and not isinstance(grad, ag.Tensor):
            raise RuntimeError(NOT_A_GRADIENT.format(type=type_name(grad)))
        else:
''', '''        if grad is not None and not isinstance(grad, ag.Tensor):
            raise RuntimeError(NOT_A_GRADIENT.format(type=type_name(grad)))
        if not is_tensor:
            if grad is not None:
                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
        else:
''')],
            rule="only 'is it None' is asked"),
    Mistake(_FG, "lets any gradient through",
            edits=[('''        elif grad is not None and not isinstance(grad, ag.Tensor):
            raise RuntimeError(NOT_A_GRADIENT.format(type=type_name(grad)))
''', '')],
            rule="neither a tensor nor None is refused"),
]
