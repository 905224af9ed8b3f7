"""Small helpers that the assignments' test cells share.

A notebook imports the ones it uses in its setup cell, for example::

    from autograd_course.notebook import library_version, outcome

You do not need them for your answers, but reading them tells you exactly
what a test does when it runs your function.  Two rules hold for all of them:

* An error your code raises is part of what a test compares (``outcome``,
  ``error_of``) or reports (``call``): it is turned into the text
  ``"ErrorType: message"``; a bare ``NotImplementedError()``, the placeholder of
  an answer cell not written yet, fails the test with a line that says so.
* A ``DelegationError`` is never turned into text: it means that your
  function called the library's own implementation of the exercise, and the
  test stops there with that message.

When your notebook is graded, the grader imports these helpers again before
every test cell, and a test fails with ``TamperingError`` if they were changed
in this module: redefining or patching one changes nothing for your grade.
"""

import contextlib
import importlib.util
import warnings
from pathlib import Path

from autograd_lib import exercises
from autograd_lib.tensor import Tensor

from .checking import DelegationError
from .feedback import CheckFailure, failure_text, not_written

__all__ = ["outcome", "error_of", "call", "library_version", "quietly", "shown", "array_of", "load_digits",
           "reveal"]


def outcome(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, or the error it raised as the text ``"ErrorType: message"``.
    (A ``MemoryError`` goes through, as in the helpers below: the grader names the limit it hit.)"""
    try:
        return fn(*args, **kwargs)
    except (DelegationError, MemoryError):
        raise
    except Exception as error:
        raise_if_not_written(error)
        return f"{type(error).__name__}: {error}"


def error_of(fn, *args, **kwargs):
    """Run ``fn(*args, **kwargs)``: None if it worked, else the error it raised as the
    text ``"ErrorType: message"``."""
    try:
        fn(*args, **kwargs)
    except (DelegationError, MemoryError):
        raise
    except Exception as error:
        raise_if_not_written(error)
        return f"{type(error).__name__}: {error}"
    return None


def raise_if_not_written(error):
    """An answer cell not written yet raises a bare ``NotImplementedError()`` (nbgrader's
    placeholder): say so, instead of comparing its text with what PyTorch gives.  An error
    PyTorch raises always has a message, so one with a message is compared as usual."""
    failure = not_written(error)
    if failure is not None:
        raise failure


def call(fn, *args, what, rule):
    """``fn(*args)``; if it raises an error, the check fails with a message that names
    ``what`` was called, the error, and the ``rule`` the test checks."""
    try:
        return fn(*args)
    except (DelegationError, MemoryError):
        raise
    except NotImplementedError as error:
        raise_if_not_written(error)
        seen = f"NotImplementedError: {error}"
    except Exception as error:
        seen = f"{type(error).__name__}: {error}"
    raise CheckFailure(failure_text(f"{what} raised an error.", (("seen", seen),), rule), rule)


@contextlib.contextmanager
def library_version(assignment):
    """Inside this ``with`` block, every exercise of ``assignment`` (``"06"``, ...) runs
    the library's own code instead of yours: the tests compute their expected values
    in it.  What you plugged is back when the block ends."""
    with contextlib.ExitStack() as stack:
        for exercise_id in exercises.exercises_of(assignment):
            stack.enter_context(exercises.plugged(exercise_id, exercises.reference(exercise_id)))
        yield


def quietly(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` without the UserWarning that ``backward(create_graph=True)``
    gives (the notebooks show it once)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Using backward\(\) with create_graph=True")
        return fn(*args, **kwargs)


def shown(value):
    """``value``, or ``"a <type> object"`` when its repr could show a memory address
    (feedback stays the same from one run to the next)."""
    plain = value is None or isinstance(value, (bool, int, float, str))
    return value if plain else f"a {type(value).__name__} object"


def array_of(value):
    """A copy of a tensor's values as a NumPy array; anything else as it is."""
    return value._data.copy() if isinstance(value, Tensor) else value


def load_digits():
    """scikit-learn's handwritten digits as ``(images, labels)``: 1797 images of 8 x 8 pixels
    (grey levels 0 to 16, float64) and the digit each one shows (int64), the ``images`` and
    ``target`` of ``sklearn.datasets.load_digits()``.

    Read straight from the data file that scikit-learn ships, without importing
    scikit-learn: that import takes a second or two, paid again by every graded notebook."""
    import numpy as np
    spec = importlib.util.find_spec("sklearn")
    if spec is None:
        raise ModuleNotFoundError("the digits come with scikit-learn: pip install scikit-learn")
    path = Path(spec.submodule_search_locations[0]) / "datasets" / "data" / "digits.csv.gz"
    if not path.is_file():                  # a scikit-learn that keeps its data elsewhere
        from sklearn.datasets import load_digits as sklearn_digits
        digits = sklearn_digits()
        return digits.images, digits.target
    data = np.loadtxt(path, delimiter=",")
    return data[:, :-1].reshape(-1, 8, 8), data[:, -1].astype(np.int64)


def reveal(prediction, actual, why):
    """A "predict, then run" question: compare ``prediction`` (what you wrote before running
    the code; ``...`` if you wrote nothing) with ``actual`` (what the code gave), print the
    verdict and ``why``, and return whether the prediction was right.  Numbers, lists and
    tensors compare by value (to 1e-6); anything else, such as the name of an error,
    compares with ``==``.  No points depend on it: the answer is on the screen once the
    cell has run, so it is there to make you think first."""
    import numpy as np
    actual_shown = actual.tolist() if isinstance(actual, Tensor) else actual
    if prediction is Ellipsis:
        print(f"No prediction yet (the ... above). The code gives: {actual_shown!r}.")
        print(f"Why: {why}")
        return False
    guess = prediction.tolist() if isinstance(prediction, Tensor) else prediction
    try:
        right = bool(np.allclose(np.asarray(guess, dtype=float), np.asarray(actual_shown, dtype=float),
                                 rtol=1e-6, atol=1e-6)
                     and np.shape(guess) == np.shape(actual_shown))
    except (TypeError, ValueError):
        right = guess == actual_shown
    print(f"{'Right' if right else 'Not quite'}: you predicted {guess!r}; the code gives {actual_shown!r}.")
    print(f"Why: {why}")
    return right
