"""Realistic wrong answers for assignment 06 (graph lifetime, retain_graph, higher-order gradients).

Each mistake edits one answer cell of course/source/06_lifetime/06_lifetime.ipynb
(the format: autograd_course/mistakes.py).  ``rule`` names the rule of the exercise's task
text that the mistake breaks: a failing test cell of that exercise must print it
(``rule <name>:``), and the test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_PLAN = "06_plan_saves_answer"
_FREE = "06_free_saved_answer"
_UNPACK = "06_unpack_answer"
_HVP = "06_hvp_answer"
_CK = "06_checkpoint_answer"
_FG = "06_function_gradients_answer"

_CK_RECOMPUTE = '''    with fork_rng(enabled=ctx.rng_state is not None):
        if ctx.rng_state is not None:
            set_rng_state(ctx.rng_state)
        copies = detach_variable(tuple(inputs))
        with ag.enable_grad():
            outputs = ctx.run_function(*copies)
'''

MISTAKES = [
    # ------------------------------------------------------------ 06.plan_saves
    Mistake(_PLAN, "keeps what every formula names, whether its input needs a gradient or not",
            edits=[('wanted = [i for i, needed in enumerate(needs_grad) if needed]',
                    'wanted = list(range(len(inputs)))')],
            rule="needed-only"),
    Mistake(_PLAN, "an input's source is its name instead of its position",
            edits=[('plan.setdefault(name, inputs.index(name))', 'plan.setdefault(name, name)')],
            rule="sources"),
    Mistake(_PLAN, "the result taken from the first input",
            edits=[('plan.setdefault(name, RESULT)', 'plan.setdefault(name, 0)')],
            rule="sources"),
    Mistake(_PLAN, "the values of node_cls.saves kept as plain values, never freed",
            edits=[('''            elif name in node_cls.saves:
                plan.setdefault(name, SAVED_PARAM)
''', '')],
            rule="sources"),
    Mistake(_PLAN, "drops the plain values of the inputs that need no gradient",
            edits=[('''    for i in others:
        for name in node_cls.formulas[inputs[i]][1]:
            is_plain = name != "result" and name not in inputs and name not in node_cls.saves
            if is_plain:
                plan.setdefault(name, PARAM_IF_GIVEN)
''', '')],
            rule="if-given"),
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
            rule="needed-first"),

    # ------------------------------------------------------------ 06.free_saved
    Mistake(_FREE, "forgets everything once freed: the saved names, and every later request",
            edits=[('node._saved = {name: None for name in node._saved}', 'node._saved = {}'),
                   ('if node._freed and any(name in node._saved for name in names):', 'if node._freed:')],
            rule="remembers"),
    Mistake(_FREE, "empties the dict, forgetting the saved names",
            edits=[('node._saved = {name: None for name in node._saved}', 'node._saved = {}')],
            rule="remembers"),
    Mistake(_FREE, "only sets the flag: the saved tensors stay in memory",
            edits=[('        node._saved = {name: None for name in node._saved}\n', '')],
            rule="frees"),
    Mistake(_FREE, "drops the tensors but never marks the node freed",
            edits=[('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''', '''    for name in node._saved:
        node._saved[name] = None
''')],
            rule="remembers"),
    Mistake(_FREE, "marks every node freed, and then refuses it everything",
            edits=[('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''', '''    node._saved = {name: None for name in node._saved}
    node._freed = True
'''), ('if node._freed and any(name in node._saved for name in names):', 'if node._freed:')],
            rule="nothing-saved"),
    Mistake(_FREE, "frees the plain values too",
            edits=[('        node._saved = {name: None for name in node._saved}\n',
                    '        node._saved = {name: None for name in node._saved}\n        node._params = {}\n')],
            rule="plain-kept"),
    Mistake(_FREE, "deletes the dict entries with del while iterating",
            edits=[('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''', '''    for name in node._saved:
        del node._saved[name]
    node._freed = True
''')],
            rule="frees"),
    Mistake(_FREE, "never checks whether the node was freed",
            edits=[('''    if node._freed and any(name in node._saved for name in names):
        raise RuntimeError(ag.graph.FREED_MESSAGE)
''', '')],
            rule="refuses"),
    Mistake(_FREE, "refuses everything once freed, plain values too",
            edits=[('if node._freed and any(name in node._saved for name in names):', 'if node._freed:')],
            rule="plain-kept"),
    Mistake(_FREE, "reads .tensor instead of unpack(node): no version check",
            edits=[('values.append(node._saved[name].unpack(node))', 'values.append(node._saved[name].tensor)')],
            rule="values"),
    Mistake(_FREE, "a ValueError with a message of its own",
            edits=[('        raise RuntimeError(ag.graph.FREED_MESSAGE)\n',
                    '        raise ValueError("the saved tensors of this node have been freed")\n')],
            rule="refuses"),
    Mistake(_FREE, "saved tensors first, then the plain values",
            edits=[('''    values = []
    for name in names:
        if name in node._saved:
            values.append(node._saved[name].unpack(node))
        else:
            values.append(node._params[name])
''', '''    values = [node._saved[name].unpack(node) for name in names if name in node._saved]
    values += [node._params[name] for name in names if name not in node._saved]
''')],
            rule="values"),
    Mistake(_FREE, "forgets the plain values",
            edits=[('''    values = []
    for name in names:
        if name in node._saved:
            values.append(node._saved[name].unpack(node))
        else:
            values.append(node._params[name])
    return values
''', '    return [node._saved[name].unpack(node) for name in names if name in node._saved]\n')],
            rule="values"),

    # ------------------------------------------------------------ 06.unpack
    Mistake(_UNPACK, "attaches a saved output only when grad mode is on (as the library once did)",
            edits=[("if not saved.is_output:", "if not saved.is_output or not ag.is_grad_enabled():")],
            rule="attached"),
    Mistake(_UNPACK, "attaches every saved output at output number 0",
            edits=[("    output._output_nr = saved.output_nr\n", "")],
            rule="attached"),
    Mistake(_UNPACK, "checks the version of a hooked tensor too",
            edits=[("    if saved.unpack_hook is None:\n        saved.check_version(node)",
                    "    saved.check_version(node)\n    if saved.unpack_hook is None:")],
            rule="hooked"),
    Mistake(_UNPACK, "hands on whatever the unpack hook returned",
            edits=[("        if not isinstance(tensor, ag.Tensor):\n"
                    "            raise TypeError(UNPACK_HOOK_TYPE.format(type=type_name(tensor)))\n", "")],
            rule="hook-type"),
    Mistake(_UNPACK, "returns a saved output as it was saved, without its node",
            edits=[("    if not saved.is_output:\n        return tensor\n", "    return tensor\n")],
            rule="attached"),
    Mistake(_UNPACK, "returns a copy of a saved input instead of the tensor itself",
            edits=[("    if not saved.is_output:\n        return tensor\n",
                    "    if not saved.is_output:\n        return ag.Tensor._make(tensor._data.copy())\n")],
            rule="itself"),
    Mistake(_UNPACK, "attaches a copy of the saved output's data",
            edits=[("output = ag.Tensor._make(tensor._data, tensor._version_counter)",
                    "output = ag.Tensor._make(tensor._data.copy())")],
            rule="attached"),

    # ------------------------------------------------------------ 06.hvp
    Mistake(_HVP, "first gradient without create_graph=True",
            edits=[('(grad,) = ag.autograd.grad(output, x, create_graph=True)',
                    '(grad,) = ag.autograd.grad(output, x)')],
            rule="h-times-v"),
    Mistake(_HVP, "forgets v: returns H @ ones",
            edits=[('ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)',
                    'ag.autograd.grad(grad.sum(), x, create_graph=create_graph)')],
            rule="h-times-v"),
    Mistake(_HVP, "returns the pair the wrong way round",
            edits=[('''        return output.detach(), product.detach()
    return output, product
''', '''        return product.detach(), output.detach()
    return product, output
''')],
            rule="pair"),
    Mistake(_HVP, "flags the caller's tensor instead of a detached copy",
            edits=[('x = inputs.detach().requires_grad_()', 'x = inputs.requires_grad_()')],
            rule="untouched"),
    Mistake(_HVP, "never detaches the results",
            edits=[('''    if not create_graph:
        return output.detach(), product.detach()
''', '')],
            rule="detached"),
    Mistake(_HVP, "always detaches, even with create_graph=True",
            edits=[('''    if not create_graph:
        return output.detach(), product.detach()
    return output, product
''', '    return output.detach(), product.detach()\n')],
            rule="create-graph"),
    Mistake(_HVP, "always works on a detached copy: with create_graph, H v is cut from the caller's input",
            edits=[('''        if create_graph and inputs.requires_grad:
            x = inputs.view(inputs.shape)     # keeps the history: the result stays connected
        else:
            x = inputs.detach().requires_grad_()
''', '''        x = inputs.detach().requires_grad_()
''')],
            rule="create-graph"),
    Mistake(_HVP, "does not turn grad mode on: fails inside no_grad",
            edits=[('    with ag.enable_grad():\n', '    if True:\n')],
            rule="any-mode"),
    Mistake(_HVP, "checks v=None only after calling func",
            edits=[('''    if v is None:
        if inputs.numel() != 1:
            raise RuntimeError(V_NONE)
        v = ag.ones_like(inputs)
''', ''), ('''        output = func(x)
''', '''        output = func(x)
        if v is None:
            if inputs.numel() != 1:
                raise RuntimeError(V_NONE)
            v = ag.ones_like(inputs)
''')],
            rule="v-none"),
    Mistake(_HVP, "never checks that func returned one element",
            edits=[('''        if output.numel() != 1:
            raise RuntimeError(NOT_ONE_ELEMENT)
''', '')],
            rule="one-element"),
    Mistake(_HVP, "differentiates the gradient even when it does not depend on x",
            edits=[('''        if grad.requires_grad:
            (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
        else:                                 # the gradient does not depend on x: H = 0
            product = ag.zeros_like(x)
''', '''        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
''')],
            rule="h-times-v"),

    # ------------------------------------------------------------ 06.checkpoint
    Mistake(_CK, "recomputes on the saved tensors themselves, not on detached copies",
            edits=[("copies = detach_variable(tuple(inputs))", "copies = tuple(inputs)")],
            rule="stops-at-inputs"),
    Mistake(_CK, "recomputes without turning grad mode on",
            edits=[('''        with ag.enable_grad():
            outputs = ctx.run_function(*copies)
''', '''        outputs = ctx.run_function(*copies)
''')],
            rule="grad-mode"),
    Mistake(_CK, "forgets the two Nones for run_function and preserve_rng_state",
            edits=[("return (None, None) + tuple(", "return tuple(")],
            rule="one-per-argument"),
    Mistake(_CK, "returns gradients only for the tensor arguments",
            edits=[("tuple(c.grad if isinstance(c, ag.Tensor) else None for c in copies)",
                    "tuple(c.grad for c in copies if isinstance(c, ag.Tensor))")],
            rule="one-per-argument"),
    Mistake(_CK, "always forks the generator, also with preserve_rng_state=False",
            edits=[("with fork_rng(enabled=ctx.rng_state is not None):", "with fork_rng():")],
            rule="rng-fresh"),
    Mistake(_CK, "sets the forward pass's random state without fork_rng: the caller's generator moves back",
            edits=[(_CK_RECOMPUTE, '''    if ctx.rng_state is not None:
        set_rng_state(ctx.rng_state)
    copies = detach_variable(tuple(inputs))
    with ag.enable_grad():
        outputs = ctx.run_function(*copies)
''')],
            rule="rng-same"),
    Mistake(_CK, "never restores the forward pass's random state",
            edits=[('''        if ctx.rng_state is not None:
            set_rng_state(ctx.rng_state)
''', '')],
            rule="rng-same"),
    Mistake(_CK, "takes the generator's state after running the function",
            edits=[('    ctx.rng_state = get_rng_state() if preserve_rng_state else None\n', ''),
                   ('''    return run_function(*args)
''', '''    outputs = run_function(*args)
    ctx.rng_state = get_rng_state() if preserve_rng_state else None
    return outputs
''')],
            rule="rng-same"),
    Mistake(_CK, "keeps the generator's state even without preserve_rng_state",
            edits=[("ctx.rng_state = get_rng_state() if preserve_rng_state else None",
                    "ctx.rng_state = get_rng_state()")],
            rule="rng-fresh"),
    Mistake(_CK, "does not refuse autograd.grad",
            edits=[('''    if not checkpoint_valid():
        raise RuntimeError(NOT_VALID_MESSAGE)
''', '')],
            rule="refuses-grad"),
    Mistake(_CK, "keeps the tensors in ctx.inputs as well",
            edits=[("ctx.inputs = [None if isinstance(arg, ag.Tensor) else arg for arg in args]",
                    "ctx.inputs = list(args)")],
            rule="keeps-inputs"),
    Mistake(_CK, "saves the outputs too, as exp saves its result",
            edits=[('''    ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
    return run_function(*args)
''', '''    outputs = run_function(*args)
    ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices],
                          *(outputs if isinstance(outputs, tuple) else (outputs,)))
    return outputs
''')],
            rule="keeps-inputs"),
    Mistake(_CK, "back-propagates nothing when no recomputed output requires grad, silently",
            edits=[('''    if not recomputed:
        raise RuntimeError(NO_OUTPUT_MESSAGE)
''', '''    if not recomputed:
        return (None, None) + (None,) * len(copies)
''')],
            rule="no-output"),

    # ------------------------------------------------------------ 06.function_gradients
    Mistake(_FG, "passes on None for an argument that is not a tensor",
            edits=[('''                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
''', '''                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
            passed_on.append(None)
''')],
            rule="passed-on"),
    Mistake(_FG, "refuses extra gradients even when they are None",
            edits=[('if len(grads) < expected or any(g is not None for g in grads[expected:]):',
                    'if len(grads) != expected:')],
            rule="count"),
    Mistake(_FG, "takes a list for a tuple of gradients",
            edits=[('grads if isinstance(grads, tuple) else', 'grads if isinstance(grads, (tuple, list)) else')],
            rule="tuple"),
    Mistake(_FG, "counts positions from 0",
            edits=[('enumerate(zip(grads, arg_is_tensor), start=1)', 'enumerate(zip(grads, arg_is_tensor))')],
            rule="not-a-tensor"),
    Mistake(_FG, "accepts extra gradients that are not None",
            edits=[('if len(grads) < expected or any(g is not None for g in grads[expected:]):',
                    'if len(grads) < expected:')],
            rule="count"),
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
            rule="order"),
    Mistake(_FG, "lets any gradient through",
            edits=[('''        elif grad is not None and not isinstance(grad, ag.Tensor):
            raise RuntimeError(NOT_A_GRADIENT.format(type=type_name(grad)))
''', '')],
            rule="type"),
]
