"""The source notebooks' text forms (course/text/, jupytext's percent format): committed, equal
to what the notebooks give, lossless both ways, and clean for pyflakes (fast)."""

import re
import shutil
import subprocess
import sys

import pytest

from autograd_course import course_text
from autograd_course.layout import assignments, source_notebook_path
from autograd_course.notebooks import dumps, read_notebook

from tests.course import COURSE

# A hidden test cell imports what it uses even when an earlier cell did: pyflakes calls that a
# redefinition; everything else it reports (an undefined name, an unused import) is a defect.
TOLERATED = re.compile(r"redefinition of unused '\w+' from line \d+")


def test_every_notebook_has_its_text_and_they_agree():
    problems = course_text.drift(COURSE)
    assert not problems, "expected course/text/ to match course/source/; seen:\n" + "\n".join(problems)


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_the_text_gives_back_the_notebook_byte_for_byte(assignment):
    path = source_notebook_path(assignment, COURSE)
    nb = read_notebook(path)
    back = dumps(course_text.to_notebook(course_text.to_text(nb), nb))
    assert back == path.read_text(), (
        f"{assignment}: expected text -> notebook to give {path} unchanged (cells, nbgrader metadata, "
        f"ids); it differs")


def test_an_edit_of_the_text_reaches_the_notebook_and_nothing_else(tmp_path):
    course = tmp_path / "course"
    name = assignments(COURSE)[0]
    shutil.copytree(COURSE / "source" / name, course / "source" / name)
    course_text.write_texts(course)
    text = course_text.text_path(course, name)
    before = read_notebook(source_notebook_path(name, course))
    marker = "# %% [markdown]\n"
    first, rest = text.read_text().split(marker, 2)[1:]
    text.write_text(marker + first.rstrip("\n") + "\n# An edit made in the text.\n\n" + marker + rest)

    changed = course_text.write_notebooks(course)
    after = read_notebook(source_notebook_path(name, course))
    assert changed == [source_notebook_path(name, course)], f"expected the one notebook rewritten, seen {changed}"
    assert after.cells[0].source.endswith("An edit made in the text."), (
        f"expected the first cell to end with the edit, seen ...{after.cells[0].source[-60:]!r}")
    kept = [(a.get("id"), a.source, a.metadata) == (b.get("id"), b.source, b.metadata)
            for a, b in zip(before.cells[1:], after.cells[1:])]
    assert len(after.cells) == len(before.cells) and all(kept), (
        f"expected every other cell unchanged with its id and metadata; {kept.count(False)} changed")
    assert course_text.drift(course) == [], course_text.drift(course)


def test_a_stale_or_stray_text_is_reported(tmp_path):
    course = tmp_path / "course"
    name = assignments(COURSE)[0]
    shutil.copytree(COURSE / "source" / name, course / "source" / name)
    assert course_text.drift(course) == [f"{course_text.text_path(course, name)} is missing: "
                                         f"autograd-course text writes it"]
    course_text.write_texts(course)
    text = course_text.text_path(course, name)
    text.write_text(text.read_text() + "\n# %%\nprint('added in the text only')\n")
    (course / "text" / "99_gone.py").write_text("# %%\n")
    seen = course_text.drift(course)
    assert len(seen) == 2 and "differs from" in seen[0] and "pairs with no notebook" in seen[1], (
        f"expected the edited text and the stray one reported, seen {seen}")


def test_pyflakes_finds_no_defect_in_the_course_sources():
    """Hidden tests and solutions included: an undefined name there would fail a student's
    grading, not the author's run."""
    texts = sorted(str(course_text.text_path(COURSE, name)) for name in assignments(COURSE))
    run = subprocess.run([sys.executable, "-m", "pyflakes", *texts], capture_output=True, text=True)
    defects = [line for line in run.stdout.splitlines() if line.strip() and not TOLERATED.search(line)]
    assert not defects, "expected pyflakes to find nothing in course/text/; seen:\n" + "\n".join(defects)
