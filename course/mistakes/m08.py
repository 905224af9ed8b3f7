"""Realistic wrong answers for assignment 08 (in-place operations and the version counter).

Each mistake edits one answer cell of course/source/08_inplace/08_inplace.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_VERSION = "08_increment_version_answer"
_CHECK = "08_check_version_answer"
_LEAF = "08_check_inplace_answer"
_SLICES = "08_copy_slices_backward_answer"

MISTAKES = [
    # ------------------------------------------------------------ 08.increment_version
    Mistake(_VERSION, "assigns to the read-only property _version",
            edits=[('tensor._version_counter.value += 1', 'tensor._version += 1')],
            rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "replaces the counter by a new one (views and detach() keep the old one)",
            edits=[
                ('    tensor._version_counter.value += 1\n',
                 '''    counter = type(tensor._version_counter)()
    counter.value = tensor._version + 1
    tensor._version_counter = counter
'''),
            ],
            rule="the version counter is shared by every alias of the storage"),
    Mistake(_VERSION, "counts only writes into tensors that require grad",
            edits=[
                ('    tensor._version_counter.value += 1\n',
                 '''    if tensor.requires_grad:
        tensor._version_counter.value += 1
'''),
            ],
            rule="every in-place write counts: also under no_grad, and for a tensor that does not require grad"),
    Mistake(_VERSION, "counts only in grad mode",
            edits=[
                ('    tensor._version_counter.value += 1\n',
                 '''    if ag.is_grad_enabled():
        tensor._version_counter.value += 1
'''),
            ],
            rule="every in-place write counts: also under no_grad"),
    Mistake(_VERSION, "adds two per write",
            edits=[('tensor._version_counter.value += 1', 'tensor._version_counter.value += 2')],
            rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "sets the version to 1 instead of adding one",
            edits=[('tensor._version_counter.value += 1', 'tensor._version_counter.value = 1')],
            rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "bumps the counter of tensor.data (a fresh counter)",
            edits=[('tensor._version_counter.value += 1', 'tensor.data._version_counter.value += 1')],
            rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "skips views: bumps only tensors that own their storage",
            edits=[
                ('    tensor._version_counter.value += 1\n',
                 '''    if tensor._base is None:
        tensor._version_counter.value += 1
'''),
            ],
            rule="the version counter is shared by every alias of the storage"),

    Mistake(_VERSION, "also bumps the base's counter for a view (the same counter: a view's write counts twice)",
            edits=[
                ('    tensor._version_counter.value += 1\n',
                 '''    tensor._version_counter.value += 1
    if tensor._base is not None:
        tensor._base._version_counter.value += 1
'''),
            ],
            rule="bumps the version by exactly one"),

    # ------------------------------------------------------------ 08.check_version
    Mistake(_CHECK, "compares the version with 0 instead of the saved version",
            edits=[('if tensor._version != self.version:', 'if tensor._version != 0:')],
            rule="compare with self.version, the version the tensor had when it was saved"),
    Mistake(_CHECK, "always names the node that saved the tensor",
            edits=[
                ('''        producer = node if self.is_output else tensor.grad_fn
        raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)
''',
                 '        raise ag.graph.modified_by_inplace_error(tensor, node, self.version)\n'),
            ],
            rule="a saved input is named after its current grad_fn"),
    Mistake(_CHECK, "always names the tensor's grad_fn, also for a saved output",
            edits=[
                ('''        producer = node if self.is_output else tensor.grad_fn
        raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)
''',
                 '        raise ag.graph.modified_by_inplace_error(tensor, tensor.grad_fn, self.version)\n'),
            ],
            rule="a saved output (is_output) is named after the node that saved it"),
    Mistake(_CHECK, "reads the version through .data, which has a fresh counter",
            edits=[('if tensor._version != self.version:', 'if tensor.data._version != self.version:')],
            rule="check_version refuses a saved tensor whose version moved on since it was saved"),
    Mistake(_CHECK, "raises ValueError instead of the RuntimeError",
            edits=[
                ('        raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)\n',
                 '''        error = ag.graph.modified_by_inplace_error(tensor, producer, self.version)
        raise ValueError(str(error))
'''),
            ],
            rule="raise the RuntimeError that ag.graph.modified_by_inplace_error"),
    Mistake(_CHECK, "returns the error instead of raising it",
            edits=[
                ('raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)',
                 'return ag.graph.modified_by_inplace_error(tensor, producer, self.version)'),
            ],
            rule="check_version refuses a saved tensor whose version moved on since it was saved"),
    Mistake(_CHECK, "checks only saved outputs",
            edits=[
                ('''    if tensor._version != self.version:
        producer = node if self.is_output else tensor.grad_fn
        raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)
''',
                 '''    if self.is_output and tensor._version != self.version:
        raise ag.graph.modified_by_inplace_error(tensor, node, self.version)
'''),
            ],
            rule="check_version refuses a saved tensor whose version moved on since it was saved"),
    Mistake(_CHECK, "passes the current version as the expected one",
            edits=[
                ('raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)',
                 'raise ag.graph.modified_by_inplace_error(tensor, producer, tensor._version)'),
            ],
            rule="the message gives the saved version as the expected one"),
    Mistake(_CHECK, "falls back to the node when the input has no grad_fn",
            edits=[
                ('producer = node if self.is_output else tensor.grad_fn',
                 'producer = node if self.is_output else (tensor.grad_fn or node)'),
            ],
            rule="or not at all when it has none"),
    Mistake(_CHECK, "refuses only versions below the saved one (comparison reversed)",
            edits=[('if tensor._version != self.version:', 'if tensor._version < self.version:')],
            rule="check_version refuses a saved tensor whose version moved on since it was saved"),

    # ------------------------------------------------------------ 08.check_inplace
    Mistake(_LEAF, "forgets grad mode: refuses updates under no_grad too",
            edits=[
                ('''    if not ag.is_grad_enabled():
        return
''',
                 ''),
            ],
            rule="under no_grad every in-place write is allowed"),
    Mistake(_LEAF, "refuses every leaf, also tensors that do not require grad",
            edits=[
                ('''    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
''',
                 '''    if t.is_leaf:
        raise RuntimeError('a leaf Variable that requires grad is being used in an in-place operation.')
'''),
            ],
            rule="a tensor that does not require grad may be written in place"),
    Mistake(_LEAF, "refuses every tensor that requires grad, also non-leaves",
            edits=[
                ('''    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
''',
                 '''    if t.requires_grad:
        raise RuntimeError('a leaf Variable that requires grad is being used in an in-place operation.')
'''),
            ],
            rule="a non-leaf may be written in place"),
    Mistake(_LEAF, "forgets the view rule",
            edits=[
                ('''        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
''',
                 "        raise RuntimeError('a leaf Variable that requires grad is being used in an in-place operation.')\n"),
            ],
            rule="a view of a leaf that requires grad is refused"),
    Mistake(_LEAF, "the view rule refuses views of non-leaves too",
            edits=[
                ('''        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
''',
                 '''        raise RuntimeError('a leaf Variable that requires grad is being used in an in-place operation.')
    if t._base is not None and t._base.requires_grad:
        raise RuntimeError('a view of a leaf Variable that requires grad is being used in an in-place operation.')
'''),
            ],
            rule="a non-leaf may be written in place"),
    Mistake(_LEAF, "uses the leaf message for views",
            edits=[
                ('''        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
''',
                 "        raise RuntimeError('a leaf Variable that requires grad is being used in an in-place operation.')\n"),
            ],
            rule="a view of a leaf that requires grad is refused with PyTorch's RuntimeError"),
    Mistake(_LEAF, "raises ValueError",
            edits=[
                ('raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")',
                 "raise ValueError('a leaf Variable that requires grad is being used in an in-place operation.')"),
                ('''        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
''',
                 "        raise ValueError('a view of a leaf Variable that requires grad is being used in an in-place operation.')\n"),
            ],
            rule="a leaf that requires grad is refused with PyTorch's RuntimeError"),
    Mistake(_LEAF, "skips the grad-mode check for the view rule",
            edits=[
                ('    """\n',
                 '''    """
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError('a view of a leaf Variable that requires grad is being used in an in-place operation.')
'''),
                ('''        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
''',
                 "        raise RuntimeError('a leaf Variable that requires grad is being used in an in-place operation.')\n"),
            ],
            rule="under no_grad every in-place write is allowed"),
    Mistake(_LEAF, "checks the grad mode the wrong way round",
            edits=[('if not ag.is_grad_enabled():', 'if ag.is_grad_enabled():')],
            rule="a leaf that requires grad is refused with PyTorch's RuntimeError"),
    Mistake(_LEAF, "the view rule looks at the view's own history instead of its base's",
            edits=[('if base is not None and base.requires_grad and base.grad_fn is None:',
                    'if base is not None and t.requires_grad and t.grad_fn is None:')],
            rule="a view of a leaf that requires grad is refused"),
    Mistake(_LEAF, "the view rule refuses a view of any leaf, also of a constant or a detached tensor",
            edits=[('if base is not None and base.requires_grad and base.grad_fn is None:',
                    'if base is not None and base.is_leaf:')],
            rule="a tensor that does not require grad may be written in place"),
    Mistake(_SLICES, "writes the result into the gradient it was given instead of a copy",
            edits=[("base_grad = grad.clone()", "base_grad = grad")],
            rule="the gradient you receive is not yours to change"),
    Mistake(_SLICES, "adds the op's gradient to the written cells instead of replacing theirs",
            edits=[("base_grad[self.key] = 0. if written[0] is None else written[0]",
                    "base_grad[self.key] = base_grad[self.key] + (0. if written[0] is None else written[0])")],
            rule="replaces the gradient in those cells"),
    Mistake(_SLICES, "lets the whole gradient pass to the base's old history, the written cells too",
            edits=[("    base_grad[self.key] = 0. if written[0] is None else written[0]\n", "")],
            rule="the written cells' gradient goes through the op's node"),
    Mistake(_SLICES, "returns every gradient of the op's node after the base's, the view's old values again",
            edits=[("list(written[1:])", "list(written)")],
            rule="after the base's gradient come the op's gradients for its other inputs"),
    Mistake(_SLICES, "writes None into the written cells when the op's node gives no gradient there",
            edits=[("0. if written[0] is None else written[0]", "written[0]")],
            rule="when the op's node gives None for the view's old values, those cells get zero gradient"),
]
