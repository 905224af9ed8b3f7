"""Realistic wrong answers for assignment 07 (no_grad, enable_grad, set_grad_enabled, detach).

Each mistake edits one answer cell of course/source/07_no_grad/07_no_grad.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_ENTER = "07_grad_mode_enter_answer"
_EXIT = "07_grad_mode_exit_answer"
_SET = "07_set_grad_enabled_answer"
_DECORATE = "07_grad_mode_decorator_answer"
_GENERATOR = "07_grad_mode_generator_answer"
_DATA = "07_data_answer"
_DETACH = "07_detach_inplace_answer"

_TYPE_CHECK = '''    if type(mode) is not bool:
        raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
'''

# The part of decorate_generator's wrapper that drives the generator (some mistakes replace it whole).
_GENERATOR_BODY = '''        generator = fn(*args, **kwargs)
        try:
            with make_context():
                response = next(generator)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        generator.close()
                    raise
                except BaseException as error:
                    with make_context():
                        response = generator.throw(error)
                else:
                    with make_context():
                        response = generator.send(request)
        except StopIteration as stop:
            return stop.value
'''

MISTAKES = [
    # ------------------------------------------------------------ 07.grad_mode_enter
    Mistake(_ENTER, "switches without remembering the previous mode",
            edits=[
                ('    self._previous = ag.is_grad_enabled()\n',
                 ''),
            ],
            rule="__enter__ remembers the mode it replaces"),
    Mistake(_ENTER, "remembers the mode after switching",
            edits=[
                ('    grad mode to self.mode with ag.grad_mode._set_grad_enabled. Returns None."""\n',
                 '''    grad mode to self.mode with ag.grad_mode._set_grad_enabled. Returns None."""
    ag.grad_mode._set_grad_enabled(self.mode)
'''),
                ('    ag.grad_mode._set_grad_enabled(self.mode)\n\n',
                 '\n'),
            ],
            rule="(read before switching) in self._previous"),
    Mistake(_ENTER, "always switches recording off",
            edits=[
                ('ag.grad_mode._set_grad_enabled(self.mode)', 'ag.grad_mode._set_grad_enabled(False)'),
            ],
            rule="__enter__ switches grad mode to self.mode"),
    Mistake(_ENTER, "flips the current mode instead of using self.mode",
            edits=[
                ('ag.grad_mode._set_grad_enabled(self.mode)',
                 'ag.grad_mode._set_grad_enabled(not self._previous)'),
            ],
            rule="__enter__ switches grad mode to self.mode"),
    Mistake(_ENTER, "stores the previous mode on the class, shared by all its contexts",
            edits=[
                ('self._previous = ag.is_grad_enabled()',
                 'type(self)._previous = ag.is_grad_enabled()'),
            ],
            rule="each context object remembers its own previous mode"),
    Mistake(_ENTER, "remembers the function is_grad_enabled, not its value",
            edits=[('self._previous = ag.is_grad_enabled()', 'self._previous = ag.is_grad_enabled')],
            rule="__enter__ remembers the mode it replaces"),
    Mistake(_ENTER, "returns self, as many context managers do",
            edits=[
                ('''
exercises.plug("07.grad_mode_enter", grad_mode_enter)''',
                 '''
    return self
exercises.plug("07.grad_mode_enter", grad_mode_enter)'''),
            ],
            rule="__enter__ returns None, like PyTorch's"),
    Mistake(_ENTER, "remembers the opposite of the current mode",
            edits=[
                ('self._previous = ag.is_grad_enabled()', 'self._previous = not ag.is_grad_enabled()'),
            ],
            rule="__enter__ remembers the mode it replaces"),

    # ------------------------------------------------------------ 07.grad_mode_exit
    Mistake(_EXIT, "switches recording on, whatever was on before",
            edits=[
                ('ag.grad_mode._set_grad_enabled(self._previous)',
                 'ag.grad_mode._set_grad_enabled(True)'),
            ],
            rule="__exit__ restores the mode remembered in self._previous"),
    Mistake(_EXIT, "switches to the opposite of self.mode",
            edits=[
                ('ag.grad_mode._set_grad_enabled(self._previous)',
                 'ag.grad_mode._set_grad_enabled(not self.mode)'),
            ],
            rule="__exit__ restores the mode remembered in self._previous"),
    Mistake(_EXIT, "swallows the block's exception (returns True)",
            edits=[('return False', 'return True')],
            rule="__exit__ must not swallow the block's exception"),
    Mistake(_EXIT, "restores the mode only when the block did not raise",
            edits=[
                ('    ag.grad_mode._set_grad_enabled(self._previous)\n',
                 '''    if exc_type is None:
        ag.grad_mode._set_grad_enabled(self._previous)
'''),
            ],
            rule="__exit__ restores the previous mode even when the block raised"),
    Mistake(_EXIT, "returns whether there was an exception",
            edits=[('return False', 'return exc_type is not None')],
            rule="__exit__ must not swallow the block's exception"),
    Mistake(_EXIT, "sets self.mode again instead of the previous mode",
            edits=[
                ('ag.grad_mode._set_grad_enabled(self._previous)',
                 'ag.grad_mode._set_grad_enabled(self.mode)'),
            ],
            rule="__exit__ restores the mode remembered in self._previous"),
    Mistake(_EXIT, "re-raises the exception before restoring the mode",
            edits=[
                ('    block raised). Returns False, so that an exception from the block propagates."""\n',
                 '''    block raised). Returns False, so that an exception from the block propagates."""
    if exc_value is not None:
        raise exc_value
'''),
            ],
            rule="__exit__ restores the mode remembered in self._previous"),

    # ------------------------------------------------------------ 07.set_grad_enabled
    Mistake(_SET, "remembers the mode after switching to it",
            edits=[
                ('''    self._previous = ag.is_grad_enabled()
    ag.grad_mode._set_grad_enabled(mode)
''',
                 '''    ag.grad_mode._set_grad_enabled(mode)
    self._previous = ag.is_grad_enabled()
'''),
            ],
            rule="the constructor remembers the mode it replaces (read before switching)"),
    Mistake(_SET, "leaves the switching to __enter__: a plain call changes nothing",
            edits=[('    ag.grad_mode._set_grad_enabled(mode)\n', '')],
            rule="set_grad_enabled(mode) switches grad mode at once, in the constructor"),
    Mistake(_SET, "accepts any value",
            edits=[(_TYPE_CHECK, '')],
            rule="mode must be a bool"),
    Mistake(_SET, "checks for an int, which True, False and 1 all are",
            edits=[('type(mode) is not bool', 'not isinstance(mode, int)')],
            rule="mode must be a bool"),
    Mistake(_SET, "switches before checking the type",
            edits=[(_TYPE_CHECK, ''),
                   ('    ag.grad_mode._set_grad_enabled(mode)\n',
                    '    ag.grad_mode._set_grad_enabled(mode)\n' + _TYPE_CHECK)],
            rule="a refused mode changes nothing"),
    Mistake(_SET, "forgets self.mode",
            edits=[('    self.mode = mode\n', '')],
            rule="the constructor keeps mode in self.mode"),
    Mistake(_SET, "remembers the opposite of the new mode",
            edits=[('self._previous = ag.is_grad_enabled()', 'self._previous = not mode')],
            rule="the constructor remembers the mode it replaces"),
    Mistake(_SET, "a ValueError",
            edits=[('raise TypeError(', 'raise ValueError(')],
            rule="mode must be a bool: anything else (1, None, a NumPy bool, a tensor) is a TypeError"),
    Mistake(_SET, "remembers the previous mode on the class, shared by every object",
            edits=[('self._previous = ag.is_grad_enabled()', 'type(self)._previous = ag.is_grad_enabled()')],
            rule="a with block restores the mode that was on when the set_grad_enabled object was made"),

    # ------------------------------------------------------------ 07.grad_mode_decorator
    Mistake(_DECORATE, "one context, made once, shared by every call",
            edits=[
                ('    takes any arguments, returns fn\'s result, and keeps fn\'s name and docstring (functools.wraps)."""\n',
                 '''    takes any arguments, returns fn's result, and keeps fn's name and docstring (functools.wraps)."""
    context = make_context()
'''),
                ('with make_context():', 'with context:'),
            ],
            rule="each call runs in a fresh make_context()"),
    Mistake(_DECORATE, "forgets to return fn's result",
            edits=[('return fn(*args, **kwargs)', 'fn(*args, **kwargs)')],
            rule="the wrapper returns what fn returns"),
    Mistake(_DECORATE, "without functools.wraps: the name and docstring are lost",
            edits=[
                ('    @functools.wraps(fn)\n',
                 ''),
            ],
            rule="the wrapper keeps fn's name and docstring (functools.wraps)"),
    Mistake(_DECORATE, "uses the factory itself as the context (no call)",
            edits=[('with make_context():', 'with make_context:')],
            rule="each call runs fn(*args, **kwargs) inside `with make_context():`"),
    Mistake(_DECORATE, "passes on positional arguments only",
            edits=[
                ('def wrapper(*args, **kwargs):', 'def wrapper(*args):'),
                ('return fn(*args, **kwargs)', 'return fn(*args)'),
            ],
            rule="the wrapper passes on positional and keyword arguments"),
    Mistake(_DECORATE, "enters and leaves the context before calling fn",
            edits=[
                ('            return fn(*args, **kwargs)\n',
                 '''            pass
        return fn(*args, **kwargs)
'''),
            ],
            rule="and fn runs inside it (enter, call, exit)"),
    Mistake(_DECORATE, "copies the name of make_context instead of fn's",
            edits=[('@functools.wraps(fn)', '@functools.wraps(make_context)')],
            rule="the wrapper keeps fn's name and docstring (functools.wraps)"),

    # ------------------------------------------------------------ 07.grad_mode_generator
    Mistake(_GENERATOR, "a context around the call only, as decorate does",
            edits=[(_GENERATOR_BODY, '''        with make_context():
            return fn(*args, **kwargs)
''')],
            rule="each step of the generator (the first next, every send, a throw, close) runs inside a fresh "
                 "make_context()"),
    Mistake(_GENERATOR, "one context around the whole generator, with yield from",
            edits=[(_GENERATOR_BODY, '''        with make_context():
            return (yield from fn(*args, **kwargs))
''')],
            rule="between two steps the caller's own mode is back"),
    Mistake(_GENERATOR, "one context, made at the first step and entered at every step",
            edits=[
                ('        generator = fn(*args, **kwargs)\n',
                 '        generator = fn(*args, **kwargs)\n        context = make_context()\n'),
                ('with make_context():\n                response = next(generator)',
                 'with context:\n                response = next(generator)'),
                ('with make_context():\n                        generator.close()',
                 'with context:\n                        generator.close()'),
                ('with make_context():\n                        response = generator.throw(error)',
                 'with context:\n                        response = generator.throw(error)'),
                ('with make_context():\n                        response = generator.send(request)',
                 'with context:\n                        response = generator.send(request)'),
            ],
            rule="a fresh make_context() for every step"),
    Mistake(_GENERATOR, "resumes with next: the values sent in are lost",
            edits=[('response = generator.send(request)', 'response = next(generator)')],
            rule="a value sent in reaches the generator"),
    Mistake(_GENERATOR, "returns None instead of the generator's value",
            edits=[('return stop.value', 'return')],
            rule="what the generator returns, the wrapper returns"),
    Mistake(_GENERATOR, "does not pass thrown errors on",
            edits=[('''                except BaseException as error:
                    with make_context():
                        response = generator.throw(error)
''', '')],
            rule="an exception thrown in goes to the generator"),
    Mistake(_GENERATOR, "throws errors in outside the step's context",
            edits=[('''                    with make_context():
                        response = generator.throw(error)
''', '''                    response = generator.throw(error)
''')],
            rule="an exception thrown in goes to the generator, inside a fresh context"),
    Mistake(_GENERATOR, "leaves the generator open when the wrapper is closed",
            edits=[('''                    with make_context():
                        generator.close()
''', '')],
            rule="close() closes the generator inside a fresh context"),
    Mistake(_GENERATOR, "without functools.wraps",
            edits=[('    @functools.wraps(fn)\n', '')],
            rule="the wrapper keeps fn's name and docstring (functools.wraps)"),
    Mistake(_GENERATOR, "passes on positional arguments only",
            edits=[('def wrapper(*args, **kwargs):', 'def wrapper(*args):'),
                   ('generator = fn(*args, **kwargs)', 'generator = fn(*args)')],
            rule="the wrapper passes on positional and keyword arguments"),

    # ------------------------------------------------------------ 07.data
    Mistake(_DATA, "shares the version counter, like detach()",
            edits=[
                ('return ag.Tensor._make(tensor._data)',
                 'return ag.Tensor._make(tensor._data, tensor._version_counter)'),
            ],
            rule="tensor.data has a version counter of its own"),
    Mistake(_DATA, "calls detach()",
            edits=[('return ag.Tensor._make(tensor._data)', 'return tensor.detach()')],
            rule="tensor.data has a version counter of its own"),
    Mistake(_DATA, "copies the values",
            edits=[
                ('return ag.Tensor._make(tensor._data)', 'return ag.Tensor._make(tensor._data.copy())'),
            ],
            rule="tensor.data shares storage with the tensor"),
    Mistake(_DATA, "returns the NumPy array",
            edits=[('return ag.Tensor._make(tensor._data)', 'return tensor._data')],
            rule="tensor.data is a new Tensor"),
    Mistake(_DATA, "returns the tensor itself",
            edits=[('return ag.Tensor._make(tensor._data)', 'return tensor')],
            rule="tensor.data is a new Tensor"),
    Mistake(_DATA, "keeps the tensor's requires_grad",
            edits=[
                ('    return ag.Tensor._make(tensor._data)\n',
                 '''    result = ag.Tensor._make(tensor._data)
    result._requires_grad = tensor.requires_grad
    return result
'''),
            ],
            rule="tensor.data has no history: a leaf that does not require grad"),
    Mistake(_DATA, "a new tensor through ag.tensor (a float32 copy)",
            edits=[('return ag.Tensor._make(tensor._data)', 'return ag.tensor(tensor._data)')],
            rule="tensor.data shares storage with the tensor"),

    # ------------------------------------------------------------ 07.detach_
    Mistake(_DETACH, "forgets that views refuse",
            edits=[
                ('''    if self._base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
''',
                 ''),
            ],
            rule="a view cannot be detached in place"),
    Mistake(_DETACH, "leaves requires_grad on for a leaf",
            edits=[
                ('    self._requires_grad = False\n',
                 ''),
            ],
            rule="detach_() also turns requires_grad off on a leaf"),
    Mistake(_DETACH, "forgets to reset _output_nr",
            edits=[
                ('    self._output_nr = 0\n',
                 ''),
            ],
            rule="detach_() resets _output_nr to 0"),
    Mistake(_DETACH, "returns None",
            edits=[
                ('    return self\n',
                 ''),
            ],
            rule="detach_() returns the tensor itself"),
    Mistake(_DETACH, "returns a detached copy instead of changing self",
            edits=[
                ('''    self.grad_fn = None
    self._requires_grad = False
    self._output_nr = 0
    return self
''',
                 '    return self.detach()\n'),
            ],
            rule="detach_() cuts the tensor itself out of the graph"),
    Mistake(_DETACH, "a ValueError with a message of its own",
            edits=[
                ('raise RuntimeError("Can\'t detach views in-place. Use detach() instead.")',
                 'raise ValueError("cannot detach a view")'),
            ],
            rule="a view cannot be detached in place"),
    Mistake(_DETACH, "changes the view before refusing it",
            edits=[
                ('''    if self._base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
''',
                 ''),
                ('    self._output_nr = 0\n',
                 '''    self._output_nr = 0
    if self._base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
'''),
            ],
            rule="a refused detach_() leaves the view unchanged"),
    Mistake(_DETACH, "refuses every non-leaf instead of views",
            edits=[
                ('if self._base is not None:', 'if self.grad_fn is not None:'),
                ('    self.grad_fn = None\n',
                 ''),
            ],
            rule="detach_() cuts the tensor itself out of the graph"),
    Mistake(_DETACH, "gives the tensor a new version counter",
            edits=[
                ('    self._output_nr = 0\n',
                 '''    self._output_nr = 0
    self._version_counter = type(self._version_counter)()
'''),
            ],
            rule="detach_() keeps the storage and the version counter"),
]
