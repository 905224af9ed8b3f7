"""What the scripts of this folder share: printing a call's result or the error it raised.

Not a script itself (tests/test_scripts.py runs the files whose names do not start with
"_"); a script imports it as ``from _printing import attempt``, which works under plain
``python tests/scripts/<name>.py`` and under the harness.
"""


def attempt(label, fn):
    """Run ``fn``; print its result, or the exception's class and first message line."""
    try:
        result = fn()
    except Exception as error:              # noqa: BLE001 - what is raised is what we print
        text = str(error).strip()
        print(label, type(error).__name__ + ":", text.splitlines()[0] if text else "")
    else:
        print(label, result)
