"""Realistic wrong answers for assignment 07 (no_grad, enable_grad, set_grad_enabled, detach).

Each mistake edits one answer cell of course/source/07_no_grad/07_no_grad.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail naming ``rule`` (a rule its task text states),
and the test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_CONTEXT = "07_grad_mode_context_answer"
_DECORATORS = "07_grad_mode_decorators_answer"
_OUT = "07_detach_and_data_answer"

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

_VIEW_CHECK = '''    if self._base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
'''

_DATA = 'return ag.Tensor._make(tensor._data, type(tensor._version_counter)())'

_HOOKS = '''    node = self.grad_fn
    if node is not None and node._pre_hooks and self._output_nr in node._pre_hooks:
        self._hooks = node._pre_hooks[self._output_nr]
'''

MISTAKES = [
    # ------------------------------------------------------------ 07.grad_mode_context
    Mistake(_CONTEXT, "remembers the mode after switching",
            edits=[('    self._previous = ag.is_grad_enabled()\n    ag.grad_mode._set_grad_enabled(self.mode)\n',
                    '    ag.grad_mode._set_grad_enabled(self.mode)\n    self._previous = ag.is_grad_enabled()\n')],
            rule="restore"),
    Mistake(_CONTEXT, "always switches recording off on entry",
            edits=[('ag.grad_mode._set_grad_enabled(self.mode)', 'ag.grad_mode._set_grad_enabled(False)')],
            rule="switch"),
    Mistake(_CONTEXT, "stores the previous mode on the class, shared by all its contexts",
            edits=[('    self._previous = ag.is_grad_enabled()\n    ag.grad_mode._set_grad_enabled(self.mode)\n',
                    '    type(self)._previous = ag.is_grad_enabled()\n    ag.grad_mode._set_grad_enabled(self.mode)\n')],
            rule="previous"),
    Mistake(_CONTEXT, "remembers only the first entry of an object",
            edits=[('    self._previous = ag.is_grad_enabled()\n    ag.grad_mode._set_grad_enabled(self.mode)\n',
                    '    if "_previous" not in vars(self):\n        self._previous = ag.is_grad_enabled()\n'
                    '    ag.grad_mode._set_grad_enabled(self.mode)\n')],
            rule="previous"),
    Mistake(_CONTEXT, "__enter__ returns self, as many context managers do",
            edits=[('    ag.grad_mode._set_grad_enabled(self.mode)\n\n\ndef grad_mode_exit',
                    '    ag.grad_mode._set_grad_enabled(self.mode)\n    return self\n\n\ndef grad_mode_exit')],
            rule="as-none"),
    Mistake(_CONTEXT, "__exit__ switches recording on, whatever was on before",
            edits=[('ag.grad_mode._set_grad_enabled(self._previous)', 'ag.grad_mode._set_grad_enabled(True)')],
            rule="restore"),
    Mistake(_CONTEXT, "__exit__ swallows the block's exception (returns True)",
            edits=[('return False', 'return True')],
            rule="raised"),
    Mistake(_CONTEXT, "restores the mode only when the block did not raise",
            edits=[('    ag.grad_mode._set_grad_enabled(self._previous)\n',
                    '    if exc_type is None:\n        ag.grad_mode._set_grad_enabled(self._previous)\n')],
            rule="raised"),
    Mistake(_CONTEXT, "set_grad_enabled leaves the switching to __enter__: a plain call changes nothing",
            edits=[('    self._previous = ag.is_grad_enabled()\n    ag.grad_mode._set_grad_enabled(mode)\n',
                    '    self._previous = ag.is_grad_enabled()\n')],
            rule="at-once"),
    Mistake(_CONTEXT, "set_grad_enabled accepts any value",
            edits=[(_TYPE_CHECK, '')],
            rule="bool-only"),
    Mistake(_CONTEXT, "set_grad_enabled checks for an int, which True, False and 1 all are",
            edits=[('type(mode) is not bool', 'not isinstance(mode, int)')],
            rule="bool-only"),
    Mistake(_CONTEXT, "set_grad_enabled switches before checking the type",
            edits=[(_TYPE_CHECK, ''),
                    ('    ag.grad_mode._set_grad_enabled(mode)\n',
                     '    ag.grad_mode._set_grad_enabled(mode)\n' + _TYPE_CHECK)],
            rule="refuses-first"),
    Mistake(_CONTEXT, "set_grad_enabled forgets its mode (the class's mode, None, is entered)",
            edits=[('    self.mode = mode\n', '')],
            rule="switch"),
    Mistake(_CONTEXT, "set_grad_enabled remembers the mode after switching to it",
            edits=[('    self._previous = ag.is_grad_enabled()\n    ag.grad_mode._set_grad_enabled(mode)\n',
                    '    ag.grad_mode._set_grad_enabled(mode)\n    self._previous = ag.is_grad_enabled()\n')],
            rule="restore"),

    # ------------------------------------------------------------ 07.grad_mode_decorators: functions
    Mistake(_DECORATORS, "one context, made once, shared by every call",
            edits=[('        return ag.grad_mode.decorate_generator(make_context, fn)\n\n',
                    '        return ag.grad_mode.decorate_generator(make_context, fn)\n    context = make_context()\n\n'),
                   ('        with make_context():\n            return fn(*args, **kwargs)',
                    '        with context:\n            return fn(*args, **kwargs)')],
            rule="fresh"),
    Mistake(_DECORATORS, "forgets to return fn's result",
            edits=[('return fn(*args, **kwargs)', 'fn(*args, **kwargs)')],
            rule="returns"),
    Mistake(_DECORATORS, "without functools.wraps: the name and docstring are lost",
            edits=[('    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n        with make_context():',
                    '    def wrapper(*args, **kwargs):\n        with make_context():')],
            rule="wraps"),
    Mistake(_DECORATORS, "copies the name and docstring by hand, not __qualname__, __module__ or __wrapped__",
            edits=[('    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n        with make_context():\n'
                    '            return fn(*args, **kwargs)\n    return wrapper\n',
                    '    def wrapper(*args, **kwargs):\n        with make_context():\n'
                    '            return fn(*args, **kwargs)\n    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__\n'
                    '    return wrapper\n')],
            rule="wraps"),
    Mistake(_DECORATORS, "uses the factory itself as the context (no call)",
            edits=[('        with make_context():\n            return fn(*args, **kwargs)',
                    '        with make_context:\n            return fn(*args, **kwargs)')],
            rule="inside"),
    Mistake(_DECORATORS, "passes on positional arguments only",
            edits=[('    def wrapper(*args, **kwargs):\n        with make_context():\n            return fn(*args, **kwargs)',
                    '    def wrapper(*args):\n        with make_context():\n            return fn(*args)')],
            rule="arguments"),
    Mistake(_DECORATORS, "enters and leaves the context before calling fn",
            edits=[('            return fn(*args, **kwargs)\n',
                    '            pass\n        return fn(*args, **kwargs)\n')],
            rule="inside"),
    Mistake(_DECORATORS, "decorates a class without PyTorch's warning",
            edits=[('        warnings.warn("Decorating classes is deprecated and will be disabled in future versions.",\n'
                    '                      FutureWarning, stacklevel=3)\n', '')],
            rule="classes"),
    Mistake(_DECORATORS, "warns for a class with a DeprecationWarning, not PyTorch's FutureWarning",
            edits=[('FutureWarning, stacklevel=3)', 'DeprecationWarning, stacklevel=3)')],
            rule="classes"),

    # ------------------------------------------------------------ 07.grad_mode_decorators: generators
    Mistake(_DECORATORS, "a context around the call of a generator function, as for any function",
            edits=[('    if inspect.isgeneratorfunction(fn):\n        return ag.grad_mode.decorate_generator(make_context, fn)\n', '')],
            rule="steps"),
    Mistake(_DECORATORS, "one context around the whole generator, with yield from",
            edits=[(_GENERATOR_BODY, '        with make_context():\n            return (yield from fn(*args, **kwargs))\n')],
            rule="between"),
    Mistake(_DECORATORS, "one context, made at the first step and entered at every step",
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
            rule="fresh"),
    Mistake(_DECORATORS, "resumes with next: the values sent in are lost",
            edits=[('response = generator.send(request)', 'response = next(generator)')],
            rule="send"),
    Mistake(_DECORATORS, "returns None instead of the generator's value",
            edits=[('return stop.value', 'return')],
            rule="returns"),
    Mistake(_DECORATORS, "does not pass thrown errors on",
            edits=[('                except BaseException as error:\n                    with make_context():\n'
                    '                        response = generator.throw(error)\n', '')],
            rule="throw"),
    Mistake(_DECORATORS, "throws errors in outside the step's context",
            edits=[('                    with make_context():\n                        response = generator.throw(error)\n',
                    '                    response = generator.throw(error)\n')],
            rule="throw"),
    Mistake(_DECORATORS, "leaves the generator open when the wrapper is closed",
            edits=[('                    with make_context():\n                        generator.close()\n', '')],
            rule="close"),
    Mistake(_DECORATORS, "a plain function that returns the stepping generator: not a generator function",
            edits=[('    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n        generator = fn(*args, **kwargs)\n',
                    '    def steps(generator):\n'),
                   ('        except StopIteration as stop:\n            return stop.value\n    return wrapper\n',
                    '        except StopIteration as stop:\n            return stop.value\n\n'
                    '    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n'
                    '        return steps(fn(*args, **kwargs))\n    return wrapper\n')],
            rule="lazy"),

    # ------------------------------------------------------------ 07.detach_and_data
    Mistake(_OUT, ".data shares the version counter, like detach()",
            edits=[(_DATA, 'return ag.Tensor._make(tensor._data, tensor._version_counter)')],
            rule="own-counter"),
    Mistake(_OUT, ".data copies the values",
            edits=[(_DATA, 'return ag.Tensor._make(tensor._data.copy(), type(tensor._version_counter)())')],
            rule="shares"),
    Mistake(_OUT, ".data returns the tensor itself",
            edits=[(_DATA, 'return tensor')],
            rule="new"),
    Mistake(_OUT, ".data takes the counter _make gives: an inference tensor when read inside inference_mode",
            edits=[(_DATA, 'return ag.Tensor._make(tensor._data)')],
            rule="inference"),
    Mistake(_OUT, "detach_() forgets that views refuse",
            edits=[(_VIEW_CHECK, '')],
            rule="views-refuse"),
    Mistake(_OUT, "detach_() leaves requires_grad on for a leaf",
            edits=[('    self._requires_grad = False\n', '')],
            rule="cuts"),
    Mistake(_OUT, "detach_() forgets to reset _output_nr",
            edits=[('    self._output_nr = 0\n', '')],
            rule="cuts"),
    Mistake(_OUT, "detach_() returns None",
            edits=[('    return self\n', '')],
            rule="returns-self"),
    Mistake(_OUT, "detach_() gives the tensor a new version counter",
            edits=[('    self._output_nr = 0\n',
                    '    self._output_nr = 0\n    self._version_counter = type(self._version_counter)()\n')],
            rule="keeps"),
    Mistake(_OUT, "detach_() leaves a non-leaf's hooks on its old node",
            edits=[(_HOOKS, '')],
            rule="hooks"),
    Mistake(_OUT, "detach_() copies a non-leaf's hooks: those registered later miss the old graph",
            edits=[('        self._hooks = node._pre_hooks[self._output_nr]\n',
                    '        self._hooks = type(node._pre_hooks[self._output_nr])(node._pre_hooks[self._output_nr])\n')],
            rule="hooks"),
]
