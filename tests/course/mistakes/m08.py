"""Realistic wrong answers for assignment 08 (in-place operations and the version counter).

Each mistake replaces one answer cell of course/source/08_inplace/08_inplace.ipynb.
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

import textwrap

from . import Mistake


def _cell(source):
    return textwrap.dedent(source).strip("\n")


_VERSION = "08_increment_version_answer"
_CHECK = "08_check_version_answer"
_LEAF = "08_check_inplace_answer"

_LEAF_MESSAGE = repr("a leaf Variable that requires grad is being used in an in-place operation.")
_VIEW_MESSAGE = repr("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _check_inplace(body):
    """An answer cell for check_inplace with ``body`` (LEAF_MESSAGE/VIEW_MESSAGE stand for the texts)."""
    body = textwrap.dedent(body).strip("\n").replace("LEAF_MESSAGE", _LEAF_MESSAGE)
    body = body.replace("VIEW_MESSAGE", _VIEW_MESSAGE)
    return ("def check_inplace(t):\n" + textwrap.indent(body, "    ")
            + '\n\nexercises.plug("08.check_inplace", check_inplace)')


MISTAKES = [
    # ------------------------------------------------------------ 08.increment_version
    Mistake(_VERSION, "assigns to the read-only property _version", _cell('''
        def increment_version(tensor):
            tensor._version += 1

        exercises.plug("08.increment_version", increment_version)
        '''), rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "replaces the counter by a new one (views and detach() keep the old one)", _cell('''
        def increment_version(tensor):
            counter = type(tensor._version_counter)()
            counter.value = tensor._version + 1
            tensor._version_counter = counter

        exercises.plug("08.increment_version", increment_version)
        '''), rule="the version counter is shared by every alias of the storage"),
    Mistake(_VERSION, "counts only writes into tensors that require grad", _cell('''
        def increment_version(tensor):
            if tensor.requires_grad:
                tensor._version_counter.value += 1

        exercises.plug("08.increment_version", increment_version)
        '''), rule="every in-place write counts: also under no_grad, and for a tensor that does not require grad"),
    Mistake(_VERSION, "counts only in grad mode", _cell('''
        def increment_version(tensor):
            if ag.is_grad_enabled():
                tensor._version_counter.value += 1

        exercises.plug("08.increment_version", increment_version)
        '''), rule="every in-place write counts: also under no_grad"),
    Mistake(_VERSION, "adds two per write", _cell('''
        def increment_version(tensor):
            tensor._version_counter.value += 2

        exercises.plug("08.increment_version", increment_version)
        '''), rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "sets the version to 1 instead of adding one", _cell('''
        def increment_version(tensor):
            tensor._version_counter.value = 1

        exercises.plug("08.increment_version", increment_version)
        '''), rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "bumps the counter of tensor.data (a fresh counter)", _cell('''
        def increment_version(tensor):
            tensor.data._version_counter.value += 1

        exercises.plug("08.increment_version", increment_version)
        '''), rule="increment_version adds exactly one to tensor._version_counter.value"),
    Mistake(_VERSION, "skips views: bumps only tensors that own their storage", _cell('''
        def increment_version(tensor):
            if tensor._base is None:
                tensor._version_counter.value += 1

        exercises.plug("08.increment_version", increment_version)
        '''), rule="the version counter is shared by every alias of the storage"),

    # ------------------------------------------------------------ 08.check_version
    Mistake(_CHECK, "compares the version with 0 instead of the saved version", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version != 0:
                producer = node if self.is_output else tensor.grad_fn
                raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="compare with self.version, the version the tensor had when it was saved"),
    Mistake(_CHECK, "always names the node that saved the tensor", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version != self.version:
                raise ag.graph.modified_by_inplace_error(tensor, node, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="a saved input is named after its current grad_fn"),
    Mistake(_CHECK, "always names the tensor's grad_fn, also for a saved output", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version != self.version:
                raise ag.graph.modified_by_inplace_error(tensor, tensor.grad_fn, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="a saved output (is_output) is named after the node that saved it"),
    Mistake(_CHECK, "reads the version through .data, which has a fresh counter", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor.data._version != self.version:
                producer = node if self.is_output else tensor.grad_fn
                raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="check_version refuses a saved tensor whose version moved on since it was saved"),
    Mistake(_CHECK, "raises ValueError instead of the RuntimeError", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version != self.version:
                producer = node if self.is_output else tensor.grad_fn
                error = ag.graph.modified_by_inplace_error(tensor, producer, self.version)
                raise ValueError(str(error))

        exercises.plug("08.check_version", check_version)
        '''), rule="raise the RuntimeError that ag.graph.modified_by_inplace_error"),
    Mistake(_CHECK, "returns the error instead of raising it", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version != self.version:
                producer = node if self.is_output else tensor.grad_fn
                return ag.graph.modified_by_inplace_error(tensor, producer, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="check_version refuses a saved tensor whose version moved on since it was saved"),
    Mistake(_CHECK, "checks only saved outputs", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if self.is_output and tensor._version != self.version:
                raise ag.graph.modified_by_inplace_error(tensor, node, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="check_version refuses a saved tensor whose version moved on since it was saved"),
    Mistake(_CHECK, "passes the current version as the expected one", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version != self.version:
                producer = node if self.is_output else tensor.grad_fn
                raise ag.graph.modified_by_inplace_error(tensor, producer, tensor._version)

        exercises.plug("08.check_version", check_version)
        '''), rule="the message gives the saved version as the expected one"),
    Mistake(_CHECK, "falls back to the node when the input has no grad_fn", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version != self.version:
                producer = node if self.is_output else (tensor.grad_fn or node)
                raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="or not at all when it has none"),
    Mistake(_CHECK, "refuses only versions below the saved one (comparison reversed)", _cell('''
        def check_version(self, node):
            tensor = self.tensor
            if tensor._version < self.version:
                producer = node if self.is_output else tensor.grad_fn
                raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)

        exercises.plug("08.check_version", check_version)
        '''), rule="check_version refuses a saved tensor whose version moved on since it was saved"),

    # ------------------------------------------------------------ 08.check_inplace
    Mistake(_LEAF, "forgets grad mode: refuses updates under no_grad too", _check_inplace('''
        if t.requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        base = t._base
        if base is not None and base.requires_grad and base.grad_fn is None:
            raise RuntimeError(VIEW_MESSAGE)
        '''), rule="under no_grad every in-place write is allowed"),
    Mistake(_LEAF, "refuses every leaf, also tensors that do not require grad", _check_inplace('''
        if not ag.is_grad_enabled():
            return
        if t.is_leaf:
            raise RuntimeError(LEAF_MESSAGE)
        base = t._base
        if base is not None and base.requires_grad and base.grad_fn is None:
            raise RuntimeError(VIEW_MESSAGE)
        '''), rule="a tensor that does not require grad may be written in place"),
    Mistake(_LEAF, "refuses every tensor that requires grad, also non-leaves", _check_inplace('''
        if not ag.is_grad_enabled():
            return
        if t.requires_grad:
            raise RuntimeError(LEAF_MESSAGE)
        '''), rule="a non-leaf may be written in place"),
    Mistake(_LEAF, "forgets the view rule", _check_inplace('''
        if not ag.is_grad_enabled():
            return
        if t.requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        '''), rule="a view of a leaf that requires grad is refused"),
    Mistake(_LEAF, "the view rule refuses views of non-leaves too", _check_inplace('''
        if not ag.is_grad_enabled():
            return
        if t.requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        if t._base is not None and t._base.requires_grad:
            raise RuntimeError(VIEW_MESSAGE)
        '''), rule="a non-leaf may be written in place"),
    Mistake(_LEAF, "uses the leaf message for views", _check_inplace('''
        if not ag.is_grad_enabled():
            return
        if t.requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        base = t._base
        if base is not None and base.requires_grad and base.grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        '''), rule="a view of a leaf that requires grad is refused with PyTorch's RuntimeError"),
    Mistake(_LEAF, "raises ValueError", _check_inplace('''
        if not ag.is_grad_enabled():
            return
        if t.requires_grad and t.grad_fn is None:
            raise ValueError(LEAF_MESSAGE)
        base = t._base
        if base is not None and base.requires_grad and base.grad_fn is None:
            raise ValueError(VIEW_MESSAGE)
        '''), rule="a leaf that requires grad is refused with PyTorch's RuntimeError"),
    Mistake(_LEAF, "skips the grad-mode check for the view rule", _check_inplace('''
        base = t._base
        if base is not None and base.requires_grad and base.grad_fn is None:
            raise RuntimeError(VIEW_MESSAGE)
        if not ag.is_grad_enabled():
            return
        if t.requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        '''), rule="under no_grad every in-place write is allowed"),
    Mistake(_LEAF, "checks the grad mode the wrong way round", _check_inplace('''
        if ag.is_grad_enabled():
            return
        if t.requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        base = t._base
        if base is not None and base.requires_grad and base.grad_fn is None:
            raise RuntimeError(VIEW_MESSAGE)
        '''), rule="a leaf that requires grad is refused with PyTorch's RuntimeError"),
]
