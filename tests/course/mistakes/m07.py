"""Realistic wrong answers for assignment 07 (no_grad, enable_grad, set_grad_enabled, detach).

Each mistake replaces one answer cell of course/source/07_no_grad/07_no_grad.ipynb.
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

import textwrap

from . import Mistake


def _cell(source):
    return textwrap.dedent(source).strip("\n")


_ENTER = "07_grad_mode_enter_answer"
_EXIT = "07_grad_mode_exit_answer"
_DECORATE = "07_grad_mode_decorator_answer"
_DATA = "07_data_answer"
_DETACH = "07_detach_inplace_answer"


def _answer(header, slot, name, body):
    """The full answer cell: header, the body indented under it, the plug line."""
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    return f'{header}\n{body}\n\nexercises.plug("{slot}", {name})'


def _enter(body):
    return _answer("def grad_mode_enter(self):", "07.grad_mode_enter", "grad_mode_enter", body)


def _exit(body):
    return _answer("def grad_mode_exit(self, exc_type, exc_value, traceback):", "07.grad_mode_exit",
                   "grad_mode_exit", body)


def _decorate(body):
    return _answer("import functools\n\n\ndef decorate(make_context, fn):", "07.grad_mode_decorator",
                   "decorate", body)


def _data(body):
    return _answer("def data(tensor):", "07.data", "data", body)


def _detach(body):
    return _answer("def detach_(self):", "07.detach_", "detach_", body)


MISTAKES = [
    # ------------------------------------------------------------ 07.grad_mode_enter
    Mistake(_ENTER, "switches without remembering the previous mode", _enter('''
        ag.grad_mode._set_grad_enabled(self.mode)
        '''), rule="__enter__ remembers the mode it replaces"),
    Mistake(_ENTER, "remembers the mode after switching", _enter('''
        ag.grad_mode._set_grad_enabled(self.mode)
        self._previous = ag.is_grad_enabled()
        '''), rule="(read before switching) in self._previous"),
    Mistake(_ENTER, "always switches recording off", _enter('''
        self._previous = ag.is_grad_enabled()
        ag.grad_mode._set_grad_enabled(False)
        '''), rule="__enter__ switches grad mode to self.mode"),
    Mistake(_ENTER, "flips the current mode instead of using self.mode", _enter('''
        self._previous = ag.is_grad_enabled()
        ag.grad_mode._set_grad_enabled(not self._previous)
        '''), rule="__enter__ switches grad mode to self.mode"),
    Mistake(_ENTER, "stores the previous mode on the class, shared by all its contexts", _enter('''
        type(self)._previous = ag.is_grad_enabled()
        ag.grad_mode._set_grad_enabled(self.mode)
        '''), rule="each context object remembers its own previous mode"),
    Mistake(_ENTER, "remembers the function is_grad_enabled, not its value", _enter('''
        self._previous = ag.is_grad_enabled
        ag.grad_mode._set_grad_enabled(self.mode)
        '''), rule="__enter__ remembers the mode it replaces"),
    Mistake(_ENTER, "returns self, as many context managers do", _enter('''
        self._previous = ag.is_grad_enabled()
        ag.grad_mode._set_grad_enabled(self.mode)
        return self
        '''), rule="__enter__ returns None, like PyTorch's"),
    Mistake(_ENTER, "remembers the opposite of the current mode", _enter('''
        self._previous = not ag.is_grad_enabled()
        ag.grad_mode._set_grad_enabled(self.mode)
        '''), rule="__enter__ remembers the mode it replaces"),

    # ------------------------------------------------------------ 07.grad_mode_exit
    Mistake(_EXIT, "switches recording on, whatever was on before", _exit('''
        ag.grad_mode._set_grad_enabled(True)
        return False
        '''), rule="__exit__ restores the mode remembered in self._previous"),
    Mistake(_EXIT, "switches to the opposite of self.mode", _exit('''
        ag.grad_mode._set_grad_enabled(not self.mode)
        return False
        '''), rule="__exit__ restores the mode remembered in self._previous"),
    Mistake(_EXIT, "swallows the block's exception (returns True)", _exit('''
        ag.grad_mode._set_grad_enabled(self._previous)
        return True
        '''), rule="__exit__ must not swallow the block's exception"),
    Mistake(_EXIT, "restores the mode only when the block did not raise", _exit('''
        if exc_type is None:
            ag.grad_mode._set_grad_enabled(self._previous)
        return False
        '''), rule="__exit__ restores the previous mode even when the block raised"),
    Mistake(_EXIT, "returns whether there was an exception", _exit('''
        ag.grad_mode._set_grad_enabled(self._previous)
        return exc_type is not None
        '''), rule="__exit__ must not swallow the block's exception"),
    Mistake(_EXIT, "sets self.mode again instead of the previous mode", _exit('''
        ag.grad_mode._set_grad_enabled(self.mode)
        return False
        '''), rule="__exit__ restores the mode remembered in self._previous"),
    Mistake(_EXIT, "re-raises the exception before restoring the mode", _exit('''
        if exc_value is not None:
            raise exc_value
        ag.grad_mode._set_grad_enabled(self._previous)
        return False
        '''), rule="__exit__ restores the mode remembered in self._previous"),

    # ------------------------------------------------------------ 07.grad_mode_decorator
    Mistake(_DECORATE, "one context, made once, shared by every call", _decorate('''
        context = make_context()

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with context:
                return fn(*args, **kwargs)
        return wrapper
        '''), rule="each call runs in a fresh make_context()"),
    Mistake(_DECORATE, "forgets to return fn's result", _decorate('''
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_context():
                fn(*args, **kwargs)
        return wrapper
        '''), rule="the wrapper returns what fn returns"),
    Mistake(_DECORATE, "without functools.wraps: the name and docstring are lost", _decorate('''
        def wrapper(*args, **kwargs):
            with make_context():
                return fn(*args, **kwargs)
        return wrapper
        '''), rule="the wrapper keeps fn's name and docstring (functools.wraps)"),
    Mistake(_DECORATE, "uses the factory itself as the context (no call)", _decorate('''
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_context:
                return fn(*args, **kwargs)
        return wrapper
        '''), rule="each call runs fn(*args, **kwargs) inside `with make_context():`"),
    Mistake(_DECORATE, "passes on positional arguments only", _decorate('''
        @functools.wraps(fn)
        def wrapper(*args):
            with make_context():
                return fn(*args)
        return wrapper
        '''), rule="the wrapper passes on positional and keyword arguments"),
    Mistake(_DECORATE, "enters and leaves the context before calling fn", _decorate('''
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_context():
                pass
            return fn(*args, **kwargs)
        return wrapper
        '''), rule="and fn runs inside it (enter, call, exit)"),
    Mistake(_DECORATE, "copies the name of make_context instead of fn's", _decorate('''
        @functools.wraps(make_context)
        def wrapper(*args, **kwargs):
            with make_context():
                return fn(*args, **kwargs)
        return wrapper
        '''), rule="the wrapper keeps fn's name and docstring (functools.wraps)"),

    # ------------------------------------------------------------ 07.data
    Mistake(_DATA, "shares the version counter, like detach()", _data('''
        return ag.Tensor._make(tensor._data, tensor._version_counter)
        '''), rule="tensor.data has a version counter of its own"),
    Mistake(_DATA, "calls detach()", _data('''
        return tensor.detach()
        '''), rule="tensor.data has a version counter of its own"),
    Mistake(_DATA, "copies the values", _data('''
        return ag.Tensor._make(tensor._data.copy())
        '''), rule="tensor.data shares storage with the tensor"),
    Mistake(_DATA, "returns the NumPy array", _data('''
        return tensor._data
        '''), rule="tensor.data is a new Tensor"),
    Mistake(_DATA, "returns the tensor itself", _data('''
        return tensor
        '''), rule="tensor.data is a new Tensor"),
    Mistake(_DATA, "keeps the tensor's requires_grad", _data('''
        result = ag.Tensor._make(tensor._data)
        result._requires_grad = tensor.requires_grad
        return result
        '''), rule="tensor.data has no history: a leaf that does not require grad"),
    Mistake(_DATA, "a new tensor through ag.tensor (a float32 copy)", _data('''
        return ag.tensor(tensor._data)
        '''), rule="tensor.data shares storage with the tensor"),

    # ------------------------------------------------------------ 07.detach_
    Mistake(_DETACH, "forgets that views refuse", _detach('''
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self
        '''), rule="a view cannot be detached in place"),
    Mistake(_DETACH, "leaves requires_grad on for a leaf", _detach('''
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._output_nr = 0
        return self
        '''), rule="detach_() also turns requires_grad off on a leaf"),
    Mistake(_DETACH, "forgets to reset _output_nr", _detach('''
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self
        '''), rule="detach_() resets _output_nr to 0"),
    Mistake(_DETACH, "returns None", _detach('''
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        '''), rule="detach_() returns the tensor itself"),
    Mistake(_DETACH, "returns a detached copy instead of changing self", _detach('''
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        return self.detach()
        '''), rule="detach_() cuts the tensor itself out of the graph"),
    Mistake(_DETACH, "a ValueError with a message of its own", _detach('''
        if self._base is not None:
            raise ValueError("cannot detach a view")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self
        '''), rule="a view cannot be detached in place"),
    Mistake(_DETACH, "changes the view before refusing it", _detach('''
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        return self
        '''), rule="a refused detach_() leaves the view unchanged"),
    Mistake(_DETACH, "refuses every non-leaf instead of views", _detach('''
        if self.grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._requires_grad = False
        self._output_nr = 0
        return self
        '''), rule="detach_() cuts the tensor itself out of the graph"),
    Mistake(_DETACH, "gives the tensor a new version counter", _detach('''
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        self._version_counter = type(self._version_counter)()
        return self
        '''), rule="detach_() keeps the storage and the version counter"),
]
