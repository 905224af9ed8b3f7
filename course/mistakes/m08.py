"""Realistic wrong answers for assignment 08 (in-place operations and the version counter).

Each mistake edits one answer cell of course/source/08_inplace/08_inplace.ipynb
(the format: autograd_course/mistakes.py), and names the rule of the exercise's
task text that it breaks.  The test cells of that exercise must fail with that
rule in their output, and the test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_SAFE = "08_safe_writes_answer"
_SLICES = "08_copy_slices_backward_answer"
_VIEW = "08_view_grad_fn_answer"
_OVERLAP = "08_overlap_status_answer"

_COUNT = "    tensor._version_counter.value += 1\n"
_PRODUCER = """        producer = node if self.is_output else tensor.grad_fn
        raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)
"""
_VIEW_RULE = """    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
"""

MISTAKES = [
    # ------------------------------------------------------------ 08.safe_writes
    # First: wrong in increment_version only, and it shows in each of the exercise's three
    # test cells (a constant written after it was saved, a detached tensor written).
    Mistake(_SAFE, "counts only writes into tensors that require grad",
            edits=[(_COUNT, "    if tensor.requires_grad:\n        tensor._version_counter.value += 1\n")],
            rule="count"),
    Mistake(_SAFE, "replaces the counter by a new one (views and detach() keep the old one)",
            edits=[(_COUNT, """    counter = type(tensor._version_counter)()
    counter.value = tensor._version + 1
    tensor._version_counter = counter
""")],
            rule="shared"),
    Mistake(_SAFE, "counts only in grad mode (an update under no_grad goes unnoticed)",
            edits=[(_COUNT, "    if ag.is_grad_enabled():\n        tensor._version_counter.value += 1\n")],
            rule="count"),
    Mistake(_SAFE, "compares the version with 0 instead of the version it was saved at",
            edits=[("if tensor._version != self.version:", "if tensor._version != 0:")],
            rule="unchanged"),
    Mistake(_SAFE, "always names the node that saved the tensor, also for a saved input",
            edits=[(_PRODUCER, "        raise ag.graph.modified_by_inplace_error(tensor, node, self.version)\n")],
            rule="names"),
    Mistake(_SAFE, "always names the tensor's grad_fn, also for a saved output",
            edits=[(_PRODUCER, "        raise ag.graph.modified_by_inplace_error(tensor, tensor.grad_fn, self.version)\n")],
            rule="names"),
    Mistake(_SAFE, "passes the current version as the one it was saved at",
            edits=[("raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)",
                    "raise ag.graph.modified_by_inplace_error(tensor, producer, tensor._version)")],
            rule="modified"),
    Mistake(_SAFE, "forgets grad mode: refuses the updates under no_grad too",
            edits=[("    if not ag.is_grad_enabled():\n        return\n", "")],
            rule="allowed"),
    Mistake(_SAFE, "forgets the view rule",
            edits=[(_VIEW_RULE, "")],
            rule="leaf"),
    Mistake(_SAFE, "refuses every tensor that requires grad, also non-leaves",
            edits=[("if t.requires_grad and t.grad_fn is None:", "if t.requires_grad:")],
            rule="allowed"),

    # ------------------------------------------------------------ 08.copy_slices_backward
    Mistake(_SLICES, "writes the result into the gradient it was given instead of a copy",
            edits=[("base_grad = grad.clone()", "base_grad = grad")],
            rule="keep-grad"),
    Mistake(_SLICES, "adds the op's gradient to the written cells instead of replacing theirs",
            edits=[("base_grad[self.key] = 0. if written[0] is None else written[0]",
                    "base_grad[self.key] = base_grad[self.key] + (0. if written[0] is None else written[0])")],
            rule="chain"),
    Mistake(_SLICES, "lets the whole gradient pass to the base's old history, the written cells too",
            edits=[("    base_grad[self.key] = 0. if written[0] is None else written[0]\n", "")],
            rule="chain"),
    Mistake(_SLICES, "returns every gradient of the op's node after the base's, the view's old values again",
            edits=[("list(written[1:])", "list(written)")],
            rule="others"),
    Mistake(_SLICES, "writes None into the written cells when the op's node gives no gradient there",
            edits=[("0. if written[0] is None else written[0]", "written[0]")],
            rule="chain"),
    Mistake(_SLICES, "indexes the gradient without asking whether one arrived",
            edits=[("""    if grad is None:
        return [None for _ in self.next_functions]
""", "")],
            rule="nothing"),
    Mistake(_SLICES, "returns None for the base's old values when the base itself needs no gradient",
            edits=[("    return [base_grad] + list(written[1:])\n",
                    "    if self.next_functions[0][0] is None:\n        base_grad = None\n"
                    "    return [base_grad] + list(written[1:])\n")],
            rule="others"),
    Mistake(_SLICES, "computes the base's gradient in NumPy: second derivatives lose their history",
            edits=[("    base_grad = grad.clone()\n", "    base_grad = ag.tensor(grad.numpy().copy())\n")],
            rule="differentiable"),

    # ------------------------------------------------------------ 08.view_grad_fn
    Mistake(_VIEW, "makes a new node at every read: never compares the versions",
            edits=[("""    if view._view_version == view._version:
        return view._grad_fn
""", "")],
            rule="keep"),
    Mistake(_VIEW, "links the new node to the view's old input instead of the base's current history",
            edits=[("node.next_functions = (base._gradient_edge(),)",
                    "node.next_functions = view._grad_fn.next_functions")],
            rule="node"),
    Mistake(_VIEW, "never refuses: regenerates views made under no_grad or by unbind too",
            edits=[("""    if view._creation_meta:
        raise ag.views.view_write_error(view, indirect=True)
""", "")],
            rule="written"),
    Mistake(_VIEW, "raises the error of a write through the view itself (indirect=False)",
            edits=[("raise ag.views.view_write_error(view, indirect=True)",
                    "raise ag.views.view_write_error(view, indirect=False)")],
            rule="written"),
    Mistake(_VIEW, "never accumulates: an expanded view's copies overwrite each other",
            edits=[("repeats = view.numel() > 0 and any(step == 0 and size > 1 for size, step in zip(view.shape, "
                    "view.stride()))", "repeats = False")],
            rule="accumulate"),
    Mistake(_VIEW, "reads the repeats off the strides alone: an expanded view without elements accumulates",
            edits=[("repeats = view.numel() > 0 and any(", "repeats = any(")],
            rule="accumulate"),
    Mistake(_VIEW, "does not record the version: the view regenerates at every read after a write",
            edits=[("view._grad_fn, view._view_version = node, view._version", "view._grad_fn = node")],
            rule="keep"),
    Mistake(_VIEW, "forgets the retained grad",
            edits=[("    ag.views.move_retained_grad(view, view._grad_fn, node)\n", "")],
            rule="retain"),
    Mistake(_VIEW, "gives a node to a view of a base that does not require grad",
            edits=[("""    if view._grad_fn is None and not base.requires_grad:
        return None
""", "")],
            rule="no-history"),
    Mistake(_VIEW, "puts the view's shape in self_shape instead of the base's",
            edits=[('"self_shape": base.shape', '"self_shape": view.shape')],
            rule="node"),

    # ------------------------------------------------------------ 08.overlap_status
    Mistake(_OVERLAP, "measures the blocks in elements, not bytes",
            edits=[("a_end, b_end = a_begin + a.numel() * a.itemsize, b_begin + b.numel() * b.itemsize",
                    "a_end, b_end = a_begin + a.numel(), b_begin + b.numel()")],
            rule="share"),
    Mistake(_OVERLAP, "calls the same block full whatever the strides",
            edits=[('return "full" if a.stride() == b.stride() else "partial"', 'return "full"')],
            rule="range"),
    Mistake(_OVERLAP, "counts blocks that only touch as overlapping",
            edits=[("if a_begin < b_end and b_begin < a_end:", "if a_begin <= b_end and b_begin <= a_end:")],
            rule="share"),
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
            rule="dense"),
    Mistake(_OVERLAP, "does not skip the dims of size 1 in the density test",
            edits=[("for st, n in zip(t.stride(), t.shape) if n != 1)", "for st, n in zip(t.stride(), t.shape))")],
            rule="dense"),
    Mistake(_OVERLAP, "forgets that a tensor fully overlaps itself",
            edits=[("""    if a is b:
        return "full"
""", "")],
            rule="same"),
    Mistake(_OVERLAP, "forgets the tensors without elements",
            edits=[("""    if a.numel() == 0 or b.numel() == 0:
        return "no"
""", "")],
            rule="empty"),
    Mistake(_OVERLAP, "compares the storages before the layouts: another storage is no even with gaps",
            edits=[("""    for t in (a, b):
        step = 1""", """    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return "no"
    for t in (a, b):
        step = 1""")],
            rule="dense"),
]
