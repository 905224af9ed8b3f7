"""Realistic wrong answers for assignment 01 (tensors and requires_grad).

Each mistake edits one answer cell of course/source/01_tensors/01_tensors.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_RRG = "01_result_requires_grad_answer"
_DETACH = "01_detach_answer"
_PROMOTE = "01_result_type_answer"

MISTAKES = [
    # ------------------------------------------------------------ 01.result_requires_grad (and is_leaf)
    Mistake(_RRG, "ignores grad mode",
            edits=[
                ('''    if not ag.is_grad_enabled():
        return False
    for t in inputs:
        if t is not None and t.requires_grad:
            return True
    return False
''',
                 '    return any(t is not None and t.requires_grad for t in inputs)\n'),
            ],
            rule="no-grad"),
    Mistake(_RRG, "all inputs must require grad instead of any",
            edits=[
                ('''    for t in inputs:
        if t is not None and t.requires_grad:
            return True
    return False
''',
                 '''    present = [t for t in inputs if t is not None]
    return bool(present) and all(t.requires_grad for t in present)
'''),
            ],
            rule="any"),
    Mistake(_RRG, "reads the leaf flag _requires_grad, missing non-leaf inputs",
            edits=[
                ('''    for t in inputs:
        if t is not None and t.requires_grad:
            return True
    return False
''',
                 '    return any(t is not None and t._requires_grad for t in inputs)\n'),
            ],
            rule="non-leaf"),
    Mistake(_RRG, "crashes on None inputs",
            edits=[
                ('''    for t in inputs:
        if t is not None and t.requires_grad:
            return True
    return False
''',
                 '    return any(t.requires_grad for t in inputs)\n'),
            ],
            rule="absent"),
    Mistake(_RRG, "falls off the end: returns None instead of False",
            edits=[
                ('    return False\n\n',
                 '\n'),
            ],
            rule="bool"),
    Mistake(_RRG, "looks at the first input only",
            edits=[
                ('if not ag.is_grad_enabled():',
                 'if not ag.is_grad_enabled() or not inputs or inputs[0] is None:'),
                ('''    for t in inputs:
        if t is not None and t.requires_grad:
            return True
    return False
''',
                 '    return inputs[0].requires_grad\n'),
            ],
            rule="any"),

    # is_leaf, in the same exercise
    Mistake(_RRG, "a leaf is a tensor that does not require grad",
            edits=[('return tensor.grad_fn is None', 'return not tensor.requires_grad')],
            rule="leaf"),
    Mistake(_RRG, "only tensors that require grad can be leaves",
            edits=[
                ('return tensor.grad_fn is None',
                 'return tensor.requires_grad and tensor.grad_fn is None'),
            ],
            rule="leaf"),
    Mistake(_RRG, "returns the grad_fn instead of a bool",
            edits=[('return tensor.grad_fn is None', 'return tensor.grad_fn')],
            rule="leaf"),
    Mistake(_RRG, "confuses the leaf flag _requires_grad with being a leaf",
            edits=[('return tensor.grad_fn is None', 'return tensor._requires_grad')],
            rule="leaf"),

    # ------------------------------------------------------------ 01.detach
    Mistake(_DETACH, "copies the storage",
            edits=[
                ('return ag.Tensor._make(tensor._data, tensor._version_counter)',
                 'return ag.Tensor._make(tensor._data.copy(), tensor._version_counter)'),
            ],
            rule="storage"),
    Mistake(_DETACH, "a fresh version counter, like .data",
            edits=[
                ('return ag.Tensor._make(tensor._data, tensor._version_counter)',
                 'return ag.Tensor._make(tensor._data)'),
            ],
            rule="version"),
    Mistake(_DETACH, "copies the version number instead of sharing the counter",
            edits=[
                ('    return ag.Tensor._make(tensor._data, tensor._version_counter)\n',
                 '''    new = ag.Tensor._make(tensor._data)
    new._version_counter.value = tensor._version
    return new
'''),
            ],
            rule="version"),
    Mistake(_DETACH, "keeps the grad_fn and the flag",
            edits=[
                ('    return ag.Tensor._make(tensor._data, tensor._version_counter)\n',
                 '''    new = ag.Tensor._make(tensor._data, tensor._version_counter)
    new.grad_fn = tensor.grad_fn
    new._requires_grad = tensor._requires_grad
    return new
'''),
            ],
            rule="new-leaf"),
    Mistake(_DETACH, "copies requires_grad onto the new leaf",
            edits=[
                ('    return ag.Tensor._make(tensor._data, tensor._version_counter)\n',
                 '''    new = ag.Tensor._make(tensor._data, tensor._version_counter)
    new._requires_grad = tensor.requires_grad
    return new
'''),
            ],
            rule="new-leaf"),
    Mistake(_DETACH, "cuts the original's history too",
            edits=[
                ('    return ag.Tensor._make(tensor._data, tensor._version_counter)\n',
                 '''    detached = ag.Tensor._make(tensor._data, tensor._version_counter)
    tensor.grad_fn = None
    return detached
'''),
            ],
            rule="original"),
    Mistake(_DETACH, "builds a new tensor from the values (a copy)",
            edits=[
                ('return ag.Tensor._make(tensor._data, tensor._version_counter)',
                 'return ag.tensor(tensor._data)'),
            ],
            rule="storage"),
    # requires_grad_, in the same exercise
    Mistake(_DETACH, "no leaf check: switches a non-leaf's flag off silently",
            edits=[
                ('''    if tensor.grad_fn is not None:
        if not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        return tensor
''',
                 ''),
            ],
            rule="non-leaf"),
    Mistake(_DETACH, "refuses every non-leaf, even requires_grad_(True)",
            edits=[
                ('''        if not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        return tensor
''',
                 '''        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
'''),
            ],
            rule="non-leaf"),
    Mistake(_DETACH, "no dtype check",
            edits=[
                ('''    if requires_grad and not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    tensor._requires_grad = bool(requires_grad)
''',
                 '    tensor._requires_grad = requires_grad\n'),
            ],
            rule="float-only"),
    Mistake(_DETACH, "forgets to return the tensor",
            edits=[
                ('''                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        return tensor
''',
                 '''                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        return
'''),
                ('''    tensor._requires_grad = bool(requires_grad)
    return tensor
''',
                 '    tensor._requires_grad = requires_grad\n'),
            ],
            rule="returns"),
    Mistake(_DETACH, "TypeError instead of RuntimeError for a non-floating dtype",
            edits=[
                ('''        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    tensor._requires_grad = bool(requires_grad)
''',
                 '''        raise TypeError("only Tensors of floating point dtype can require gradients")
    tensor._requires_grad = requires_grad
'''),
            ],
            rule="float-only"),
    Mistake(_DETACH, "checks the dtype when turning the flag off too",
            edits=[
                ('if requires_grad and not tensor.dtype.is_floating_point:',
                 'if not tensor.dtype.is_floating_point:'),
            ],
            rule="float-only"),
    Mistake(_DETACH, "goes through the requires_grad property setter",
            edits=[
                ('''    if tensor.grad_fn is not None:
        if not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        return tensor
    if requires_grad and not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    tensor._requires_grad = bool(requires_grad)
''',
                 '    tensor.requires_grad = requires_grad\n'),
            ],
            rule="float-only"),
    Mistake(_DETACH, "can only switch the flag on",
            edits=[
                ('''    if requires_grad and not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    tensor._requires_grad = bool(requires_grad)
''',
                 '''    if requires_grad:
        if not tensor.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        tensor._requires_grad = True
'''),
            ],
            rule="leaf-flag"),

    # ------------------------------------------------------------ 01.result_type
    Mistake(_PROMOTE, "asks whether a number is an int before asking whether it is a bool",
            edits=[("""        if isinstance(x, bool):
            dtype, tier = ag.bool, 2
        elif isinstance(x, int):
            dtype, tier = ag.int64, 2
""", """        if isinstance(x, int):
            dtype, tier = ag.int64, 2
        elif isinstance(x, bool):
            dtype, tier = ag.bool, 2
""")],
            rule="numbers"),
    Mistake(_PROMOTE, "puts 0-dim tensors in the tier of the tensors with dims",
            edits=[("dtype, tier = x.dtype, (1 if x.ndim == 0 else 0)", "dtype, tier = x.dtype, 0")],
            rule="tiers"),
    Mistake(_PROMOTE, "gives a Python float the dtype float32 whatever the default",
            edits=[("dtype, tier = ag.get_default_dtype(), 2", "dtype, tier = ag.float32, 2")],
            rule="numbers"),
    Mistake(_PROMOTE, "lets a later tier of the same category change the result",
            edits=[("category(dtype) > category(result)", "category(dtype) >= category(result)")],
            rule="tiers"),
    Mistake(_PROMOTE, "puts Python numbers in the tier of the 0-dim tensors",
            edits=[("            dtype, tier = ag.bool, 2", "            dtype, tier = ag.bool, 1"),
                   ("            dtype, tier = ag.int64, 2", "            dtype, tier = ag.int64, 1"),
                   ("            dtype, tier = ag.get_default_dtype(), 2", "            dtype, tier = ag.get_default_dtype(), 1")],
            rule="tiers"),
]

_INFER = "01_infer_dtype_answer"
_SHAPE = "01_nested_shape_answer"

MISTAKES += [
    # ------------------------------------------------------------ 01.infer_dtype
    Mistake(_INFER, "treats a NumPy scalar as the Python number it holds",
            edits=[("return ag.dtypes.from_numpy_dtype(data.dtype)",
                    "return infer_dtype(data.item())")],
            rule="own"),
    Mistake(_INFER, "asks whether an item is an int before asking whether it is a bool",
            edits=[("""    if isinstance(data, bool):
        return ag.bool
    if isinstance(data, int):
        return ag.int64
""", """    if isinstance(data, int):
        return ag.int64
    if isinstance(data, bool):
        return ag.bool
""")],
            rule="numbers"),
    Mistake(_INFER, "skips empty lists instead of counting them as the default dtype",
            edits=[("kinds = [infer_dtype(item) for item in data]",
                    "kinds = [infer_dtype(item) for item in data if item or not isinstance(item, list)] or [default]")],
            rule="empty"),
    Mistake(_INFER, "a bool anywhere makes the whole data bool (no promotion with ints)",
            edits=[("            combined = ag.promote_types(combined, kind)",
                    "            combined = ag.bool if ag.bool in (combined, kind) else ag.promote_types(combined, kind)")],
            rule="promote"),
    Mistake(_INFER, "a Python float is float32 whatever the default dtype",
            edits=[("""    if isinstance(data, float):
        return default
""", """    if isinstance(data, float):
        return ag.float32
""")],
            rule="numbers"),
    Mistake(_INFER, "a tensor inside the data counts as the Python number it holds",
            edits=[("        return data.dtype\n", "        return infer_dtype(data.item())\n")],
            rule="own"),

    # ------------------------------------------------------------ 01.nested_shape
    Mistake(_SHAPE, "takes each size from the longest element instead of the first",
            edits=[("        first = first[0]\n",
                    "        first = max(first, key=lambda x: len(x) if isinstance(x, (list, tuple)) else 0)\n")],
            rule="first"),
    Mistake(_SHAPE, "checks the lists of the top level only, never deeper",
            edits=[("""        for inner in item:
            walk(inner, dim + 1)
""", """        if dim == 0:
            for inner in item:
                walk(inner, dim + 1)
""")],
            rule="every"),
    Mistake(_SHAPE, "names the dim one too deep in the message",
            edits=[("at dim {dim} (got", "at dim {dim + 1} (got")],
            rule="every"),
    Mistake(_SHAPE, "checks every list even when the shape has a 0",
            edits=[("""    if 0 in shape:
        return shape
""", "")],
            rule="empty"),
    Mistake(_SHAPE, "ValueError instead of TypeError for a number where a list is expected",
            edits=[('raise TypeError("not a sequence")', 'raise ValueError("not a sequence")')],
            rule="number"),
    Mistake(_SHAPE, "returns the sizes as a list",
            edits=[("    walk(data, 0)\n    return shape\n", "    walk(data, 0)\n    return sizes\n")],
            rule="item"),
]
