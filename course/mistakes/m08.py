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
_VIEW = "08_view_grad_fn_answer"
_OVERLAP = "08_overlap_status_answer"

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

    # ------------------------------------------------------------ 08.view_grad_fn
    Mistake(_VIEW, "makes a new node at every read: never compares the versions",
            edits=[("""    if view._view_version == view._version:
        return view._grad_fn
""", "")],
            rule="until the storage is written again, a view keeps its node"),
    Mistake(_VIEW, "links the new node to the view's old input instead of the base's current history",
            edits=[("node.next_functions = (base._gradient_edge(),)",
                    "node.next_functions = view._grad_fn.next_functions")],
            rule="the new node's one input is the base's gradient edge now"),
    Mistake(_VIEW, "never refuses: regenerates views made under no_grad or by unbind too",
            edits=[("""    if view._creation_meta:
        raise ag.views.view_write_error(view, indirect=True)
""", "")],
            rule="a view made under no_grad, by unbind or by a custom Function cannot follow a write"),
    Mistake(_VIEW, "raises the error of a write through the view itself (indirect=False)",
            edits=[("raise ag.views.view_write_error(view, indirect=True)",
                    "raise ag.views.view_write_error(view, indirect=False)")],
            rule="its base or another view of its base has been modified inplace"),
    Mistake(_VIEW, "never accumulates: an expanded view's copies overwrite each other",
            edits=[("repeats = any(step == 0 and size > 1 for size, step in zip(view.shape, view.stride()))",
                    "repeats = False")],
            rule="accumulate is True exactly when the view shows some cell of the base more than once"),
    Mistake(_VIEW, "does not record the version: the view regenerates at every read after a write",
            edits=[("view._grad_fn, view._view_version = node, view._version", "view._grad_fn = node")],
            rule="record the counter's value in view._view_version"),
    Mistake(_VIEW, "forgets the retained grad",
            edits=[("    ag.views.move_retained_grad(view, view._grad_fn, node)\n", "")],
            rule="a view that retains its grad goes on retaining it through its new node"),
    Mistake(_VIEW, "gives a node to a view of a base that does not require grad",
            edits=[("""    if view._grad_fn is None and not base.requires_grad:
        return None
""", "")],
            rule="whose base does not require grad, has no grad_fn: None"),
    Mistake(_VIEW, "puts the view's shape in self_shape instead of the base's",
            edits=[('"self_shape": base.shape', '"self_shape": view.shape')],
            rule="the base's shape as self_shape"),

    # ------------------------------------------------------------ 08.overlap_status
    Mistake(_OVERLAP, "measures the blocks in elements, not bytes",
            edits=[("a_end, b_end = a_begin + a.numel() * a.itemsize, b_begin + b.numel() * b.itemsize",
                    "a_end, b_end = a_begin + a.numel(), b_begin + b.numel()")],
            rule="ranges that share a byte are partial"),
    Mistake(_OVERLAP, "calls the same block full whatever the strides",
            edits=[('return "full" if a.stride() == b.stride() else "partial"', 'return "full"')],
            rule="the same range with other strides partial"),
    Mistake(_OVERLAP, "counts blocks that only touch as overlapping",
            edits=[("if a_begin < b_end and b_begin < a_end:", "if a_begin <= b_end and b_begin <= a_end:")],
            rule="ranges that only touch, or lie apart, are no"),
    Mistake(_OVERLAP, "takes is_contiguous() for non-overlapping and dense: a transposed tensor is too hard",
            edits=[("""    for t in (a, b):
        step = 1                            # the stride the next dim needs, in elements
        for stride, size in sorted((st, n) for st, n in zip(t.stride(), t.shape) if n != 1):
            if stride != step:
                return "too hard"
            step *= size
""", """    if not a.is_contiguous() or not b.is_contiguous():
        return "too hard"
""")],
            rule="a permuted contiguous layout (m.t()) is dense"),
    Mistake(_OVERLAP, "does not skip the dims of size 1 in the density test",
            edits=[("for st, n in zip(t.stride(), t.shape) if n != 1)", "for st, n in zip(t.stride(), t.shape))")],
            rule="a dim of size 1 is never stepped along"),
    Mistake(_OVERLAP, "forgets that a tensor fully overlaps itself",
            edits=[("""    if a is b:
        return "full"
""", "")],
            rule="a tensor and itself: full"),
    Mistake(_OVERLAP, "forgets the tensors without elements",
            edits=[("""    if a.numel() == 0 or b.numel() == 0:
        return "no"
""", "")],
            rule="a tensor without elements shares no memory: no"),
    Mistake(_OVERLAP, "compares the storages before the layouts: another storage is no even with gaps",
            edits=[("""    for t in (a, b):
        step = 1""", """    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return "no"
    for t in (a, b):
        step = 1""")],
            rule="is too hard, whatever the other tensor"),
]
