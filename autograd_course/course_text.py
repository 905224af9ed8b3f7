"""The course's source notebooks as plain text, for linters, duplicate finders and diffs.

Every ``<course>/source/NN_x/NN_x.ipynb`` is paired with ``<course>/text/NN_x.py``
in jupytext's percent format: one ``# %%`` line per cell, carrying the cell's
nbgrader metadata; markdown as comments.  The notebook stays what nbgrader
reads; the text is what a reviewer's diff, ``pyflakes`` or ``duplicates``
reads, hidden tests and solutions included.  The text lives outside
``source/`` because nbgrader releases every file of an assignment's folder.

    autograd-course text                  # text/ from source/ (after editing in Jupyter)
    autograd-course text --to-notebooks   # source/ from text/ (after editing the text)
    autograd-course check                 # ... fails when the two drift

Going from text back to a notebook keeps the notebook's own metadata
(kernelspec) and the id of every cell whose kind and source are unchanged; a
new or edited cell gets the stable id :func:`notebooks.normalize` gives it.
jupytext is imported when a command needs it.
"""

from pathlib import Path

from . import notebooks
from .layout import PipelineError, assignments, source_notebook_path

FORMAT = "py:percent"


def _jupytext():
    try:
        import jupytext
    except ImportError as error:
        raise PipelineError("the course's text forms need jupytext: pip install -e '.[course]' "
                            "(make venv) installs it") from error
    return jupytext


def text_dir(course):
    return Path(course) / "text"


def text_path(course, name):
    """Where assignment ``name``'s text form lives: ``<course>/text/<name>.py``."""
    return text_dir(course) / f"{name}.py"


def to_text(nb):
    """The percent-format text of a notebook: its cells only (no notebook metadata)."""
    import nbformat
    plain = nbformat.from_dict(nb)
    plain.metadata = {"jupytext": {"notebook_metadata_filter": "-all"}}
    return _jupytext().writes(plain, fmt=FORMAT)


def to_notebook(text, like):
    """The notebook of a text form: the cells of ``text``; the metadata of ``like`` (the
    notebook it pairs with), and its cell ids where a cell is unchanged."""
    nb = _jupytext().reads(text, fmt=FORMAT)
    nb.metadata = like.metadata
    nb.nbformat, nb.nbformat_minor = like.nbformat, like.nbformat_minor
    old_ids = {}
    for cell in like.cells:
        old_ids.setdefault((cell.cell_type, cell.source), cell.get("id"))
    for cell in nb.cells:
        cell.pop("id", None)
        known = old_ids.pop((cell.cell_type, cell.source), None)
        if known:
            cell["id"] = known
    return notebooks.normalize(nb)


def drift(course):
    """Messages, one per assignment whose text form is missing or differs from its notebook,
    and one per text file that pairs with no notebook ([] when all agree)."""
    course = Path(course)
    names = assignments(course)
    problems = []
    for name in names:
        path = text_path(course, name)
        if not path.exists():
            problems.append(f"{path} is missing: autograd-course text writes it")
        elif path.read_text() != to_text(notebooks.read_notebook(source_notebook_path(name, course))):
            problems.append(f"{path} differs from {source_notebook_path(name, course)}: run autograd-course text "
                            f"(the notebook was edited) or autograd-course text --to-notebooks (the text was)")
    for path in sorted(text_dir(course).glob("*.py")):
        if path.stem not in names:
            problems.append(f"{path} pairs with no notebook of {course / 'source'}")
    return problems


def write_texts(course):
    """Write ``text/`` from ``source/``; return the paths that changed."""
    changed = []
    text_dir(course).mkdir(exist_ok=True)
    for name in assignments(course):
        path, text = text_path(course, name), to_text(notebooks.read_notebook(source_notebook_path(name, course)))
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            changed.append(path)
    return changed


def write_notebooks(course):
    """Write ``source/`` from ``text/``; return the notebooks that changed."""
    changed = []
    for name in assignments(course):
        path, target = text_path(course, name), source_notebook_path(name, course)
        if not path.exists():
            raise PipelineError(f"{path} is missing: autograd-course text writes it from {target}")
        new = notebooks.dumps(to_notebook(path.read_text(), notebooks.read_notebook(target)))
        if target.read_text() != new:
            target.write_text(new)
            changed.append(target)
    return changed
