"""A student's first session on Binder, in a real browser.

JupyterLab runs from the Binder environment (``binder_env``, conftest.py) on a
temporary copy of ``course/release``, and headless Chromium (Debian's
``chromium`` and ``chromium-driver``, driven by Selenium; apt-get installs
them when they are missing) opens the page the README's Binder badge opens,
``lab/tree/course/release/01_tensors/01_tensors.ipynb``.  The student:

1. sees the notebook toolbar's Validate button and no nbgrader menu (the
   instructor extensions are off);
2. types the correct answer into the first answer cell (``01.result_requires_grad``)
   and runs Run > Run All Cells.  What they must see: every cell up to the
   second exercise ran; the first exercise's visible test cells show no error;
   the figures are rendered images; the only error outputs come after the
   second exercise's answer cell, the first being the NotImplementedError of
   the stub the student has not replaced yet (JupyterLab's Run All stops
   there).  The screenshot ``artifacts/browser/01_tensors.png`` shows the
   first exercise's tests after the run;
3. clicks Validate (nbgrader's validate_assignment extension, which saves the
   notebook and runs it in a fresh kernel on the server).  With one exercise
   answered, Validate must list as failed exactly the test cells of the three
   others: a partial notebook never "passes".  The student then types the
   other three answers and clicks Validate again, which must report
   "Success! Your notebook passes all the tests."
   (``artifacts/browser/01_tensors_validated.png``).  The saved notebook then
   holds exactly the typed answers.

Typing goes through the browser's input pipeline (Chrome's
``Input.insertText``, as a paste or an input method does): sent key by key,
CodeMirror's auto-indent and bracket closing would change the text.
"""

import contextlib
import os
import re
import secrets
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from .binder_env import FIRST_ASSIGNMENT, FIRST_NOTEBOOK, REPO, run
from autograd_course.notebooks import grade_id, is_answer_cell, is_test_cell, read_notebook
from tests.course import SOLUTIONS

pytestmark = [pytest.mark.binder, pytest.mark.browser]

ASSIGNMENT, NOTEBOOK_PATH = FIRST_ASSIGNMENT, FIRST_NOTEBOOK         # the Binder badge's urlpath
ARTIFACTS = REPO / "artifacts" / "browser"
APT_PACKAGES = ["chromium", "chromium-driver"]
BROWSERS = ["chromium", "chromium-browser"]
DRIVERS = ["chromedriver"]
TIMEOUT = 120                # seconds for one step: kernel start, a run, a validation

# Every cell of the open notebook, in order; for each: its prompt, its error and
# stderr outputs (JupyterLab renders both as application/vnd.jupyter.stderr),
# its rendered images.
CELL_STATES = """
return Array.from(document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')).map(cell => ({
    code: cell.classList.contains('jp-CodeCell'),
    prompt: (cell.querySelector('.jp-InputArea-prompt') || {}).textContent || '',
    errors: Array.from(cell.querySelectorAll(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')).map(o => o.textContent),
    images: Array.from(cell.querySelectorAll('.jp-OutputArea-output img'))
        .filter(img => img.complete && img.naturalWidth > 0).length,
}));
"""
KERNEL_STATUS = """
const indicator = document.querySelector('.jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator');
return indicator ? indicator.getAttribute('data-status') : null;
"""


# ----------------------------------------------------------------- set-up

def find_chromium():
    browser = next(filter(None, map(shutil.which, BROWSERS)), None)
    driver = next(filter(None, map(shutil.which, DRIVERS)), None)
    return (browser, driver) if browser and driver else None


def chromium():
    """(browser, driver): Debian's chromium and chromedriver, installed with apt-get when missing."""
    found = find_chromium()
    if found:
        return found
    install = f"apt-get install -y --no-install-recommends {' '.join(APT_PACKAGES)}"
    if not shutil.which("apt-get"):
        pytest.skip(f"the browser test needs Chromium and chromedriver on PATH, and this machine has "
                    f"no apt-get to install them (Debian: {install})")
    if os.geteuid() != 0:
        pytest.skip(f"the browser test needs Chromium and chromedriver on PATH; installing them needs "
                    f"root: sudo {install}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(install.split(), env=env, capture_output=True).returncode != 0:
        run(["apt-get", "update"], "apt-get update", env=env)          # an empty or stale package list
        run(install.split(), install, env=env)
    found = find_chromium()
    assert found, f"{install} succeeded, but {BROWSERS} and {DRIVERS} are still not on PATH"
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A JupyterLab server from the Binder environment on a copy of the release."""

    def __init__(self, env, root):
        self.root = root
        self.token = secrets.token_hex(16)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        shutil.copytree(REPO / "course" / "release", root / "course" / "release")
        command = [env.bin / "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                   f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
                   f"--ServerApp.token={self.token}", f"--ServerApp.root_dir={root}"]
        if os.geteuid() == 0:
            command.append("--allow-root")        # Binder runs as a user; CI may run as root
        self.log = root.parent / "jupyterlab.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen([str(c) for c in command], cwd=root, env=env.environ(),
                                            stdout=log, stderr=subprocess.STDOUT)

    def log_tail(self):
        return self.log.read_text(errors="replace")[-3000:]

    def wait_ready(self):
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            if self.process.poll() is not None:
                pytest.fail(f"JupyterLab exited with status {self.process.returncode}:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=5) as answer:
                    if answer.status == 200:
                        return self
            time.sleep(0.5)
        pytest.fail(f"JupyterLab did not answer on {self.url} within {TIMEOUT} s:\n{self.log_tail()}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def lab(binder_env, tmp_path_factory):
    server = Lab(binder_env, tmp_path_factory.mktemp("lab") / "student")
    try:
        yield server.wait_ready()
    finally:
        server.stop()


@contextlib.contextmanager
def chrome(*arguments):
    """Debian's Chromium under Selenium with these command-line arguments (tests/hub uses it too)."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="the browser test drives Chromium with Selenium: pip install -e '.[test]'")
    from selenium.webdriver.chrome.service import Service
    browser_path, driver_path = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for argument in arguments:
        options.add_argument(argument)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")       # Selenium Manager must never download a driver
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def browser():
    with chrome("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1800") as driver:
        yield driver


# ----------------------------------------------------------- the student

def wait_for(condition, what, timeout=TIMEOUT):
    """Poll ``condition()`` until it returns something true; fail naming ``what`` and the last value."""
    end = time.monotonic() + timeout
    seen = None
    while time.monotonic() < end:
        seen = condition()
        if seen:
            return seen
        time.sleep(0.25)
    raise AssertionError(f"waited {timeout} s for {what}; last seen: {seen!r}"[:3000])


def squeeze(text):
    """``text`` without whitespace: the page's textContent drops the line breaks of
    an editor's lines and of the Validate dialog's <pre> blocks."""
    return "".join(text.split())


def exercise_of(grade_id):
    """'01_result_requires_grad' for its answer cell and every one of its test cells."""
    return re.sub(r"_(answer|test\d*)$", "", grade_id or "")


class Student:
    """What a student does in the notebook, through the browser."""

    def __init__(self, driver, lab):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        self.By, self.Keys = By, Keys
        self.driver, self.lab = driver, lab
        self.release = read_notebook(REPO / NOTEBOOK_PATH)
        solutions = {grade_id(c): c.source for c in read_notebook(
            SOLUTIONS / f"{ASSIGNMENT}.ipynb").cells if grade_id(c)}
        self.answers = [(index, solutions[grade_id(cell)]) for index, cell in enumerate(self.release.cells)
                        if is_answer_cell(cell)]
        self.tests = {index: grade_id(cell) for index, cell in enumerate(self.release.cells)
                      if is_test_cell(cell)}

    def open(self):
        self.driver.get(f"{self.lab.url}/lab/tree/{NOTEBOOK_PATH}?token={self.lab.token}")
        wait_for(lambda: self.driver.execute_script(KERNEL_STATUS) == "idle", "the kernel to start (idle)")

    def cells(self, count):
        """The cells, once at least ``count`` are in the page (JupyterLab attaches them a few at a time)."""
        def enough():
            states = self.driver.execute_script(CELL_STATES)
            return states if len(states) >= count else None
        return wait_for(enough, f"{count} cells in the page")

    def labels(self, selector):
        return [e.text.strip() for e in self.driver.find_elements(self.By.CSS_SELECTOR, selector)]

    def answer(self, index, text):
        """Replace the answer cell's text with ``text``, as a student pasting it would."""
        self.cells(index + 1)
        cell = self.driver.find_elements(self.By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Notebook .jp-Cell")[index]
        stub = self.release.cells[index].source
        seen = cell.find_element(self.By.CSS_SELECTOR, ".jp-InputArea-editor").get_attribute("textContent")
        assert squeeze(seen) == squeeze(stub), \
            f"cell {index}: expected the release's answer cell\n{stub}\nseen in the page:\n{seen}"
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
        cell.find_element(self.By.CSS_SELECTOR, ".cm-content").click()
        self.key("a", self.Keys.CONTROL)                          # select the whole cell
        self.driver.execute_cdp_cmd("Input.insertText", {"text": text})
        typed = cell.find_element(self.By.CSS_SELECTOR, ".jp-InputArea-editor").get_attribute("textContent")
        assert squeeze(typed) == squeeze(text), \
            f"cell {index}: expected the typed answer in the editor\n{text}\nseen:\n{typed}"
        self.key(self.Keys.ESCAPE)                                # back to command mode

    def key(self, key, modifier=None):
        from selenium.webdriver.common.action_chains import ActionChains
        actions = ActionChains(self.driver)
        if modifier:
            actions.key_down(modifier)
        actions.send_keys(key)
        if modifier:
            actions.key_up(modifier)
        actions.perform()

    def menu(self, menu, command):
        self.driver.find_element(self.By.XPATH, f"//div[contains(@class, 'lm-MenuBar-itemLabel') "
                                                f"and normalize-space()='{menu}']").click()
        wait_for(lambda: self.driver.find_elements(self.By.CSS_SELECTOR, f".lm-Menu-item[data-command='{command}']"),
                 f"the menu item {command} under {menu}")[0].click()

    def run_all(self):
        """Run > Run All Cells; returns the cells once the kernel is idle and none is queued."""
        self.menu("Run", "runmenu:run-all")
        first = self.answers[0][0]

        def finished():
            states = self.driver.execute_script(CELL_STATES)
            done = (self.driver.execute_script(KERNEL_STATUS) == "idle"
                    and len(states) == len(self.release.cells)
                    and re.search(r"\[\d+\]", states[first]["prompt"])
                    and not any("*" in s["prompt"] for s in states))
            return states if done else None
        wait_for(finished, "Run All Cells to finish (kernel idle, no cell queued)")
        time.sleep(1)                                             # outputs of the last message
        return wait_for(finished, "Run All Cells to stay finished")

    def dismiss_notifications(self):
        for button in self.driver.find_elements(self.By.CSS_SELECTOR, ".Toastify button"):
            if button.text.strip() in ("No", "Dismiss"):
                with contextlib.suppress(Exception):
                    button.click()

    def screenshot(self, cell_index, name):
        """A screenshot with cell ``cell_index`` at the top of the notebook."""
        cell = self.driver.find_elements(self.By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Notebook .jp-Cell")[cell_index]
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", cell)
        return self.save_screenshot(name)

    def save_screenshot(self, name):
        self.dismiss_notifications()
        time.sleep(0.5)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        assert self.driver.save_screenshot(str(path)), f"Chromium could not write {path}"
        return path

    def validate(self):
        """Click Validate; returns (class of the result, failed test sources, text) and closes the dialog."""
        self.driver.find_element(self.By.CSS_SELECTOR, "jp-button.validate-button").click()
        message = wait_for(lambda: self.driver.find_elements(self.By.CSS_SELECTOR, ".jp-Dialog #validation-message"),
                           "nbgrader's Validation Results dialog")[0]
        kind = next((c for c in message.get_attribute("class").split() if c.startswith("validation-")), None)
        blocks = [pre.get_attribute("textContent") for pre in message.find_elements(self.By.CSS_SELECTOR, "pre")]
        return kind, blocks[0::2], message.get_attribute("textContent")

    def close_dialog(self):
        self.driver.find_element(self.By.CSS_SELECTOR, ".jp-Dialog .jp-Dialog-button.jp-mod-accept").click()
        wait_for(lambda: not self.driver.find_elements(self.By.CSS_SELECTOR, ".jp-Dialog"), "the dialog to close", 30)


def check_png(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: expected a PNG file"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) >= (800, 600) and len(data) > 20_000, \
        f"{path}: expected a screenshot of at least 800x600 and 20 kB, seen {width}x{height}, {len(data)} bytes"


def test_student_answers_runs_and_validates_assignment_01(browser, lab):
    student = Student(browser, lab)
    try:
        student_session(student, lab)
    except Exception:
        with contextlib.suppress(Exception):               # what the page showed, for the failure report
            print(f"screenshot: {student.save_screenshot(f'{ASSIGNMENT}_failure.png')}")
        print(f"JupyterLab's log (end):\n{lab.log_tail()}")
        raise


def student_session(student, lab):
    """Steps 1 to 3 of the module docstring."""
    student.open()
    first, first_answer = student.answers[0]
    first_exercise = exercise_of(grade_id(student.release.cells[first]))
    second = student.answers[1][0]

    # 1. The student's JupyterLab: Validate in the toolbar, no instructor menu.
    assert "Validate" in student.labels(".jp-NotebookPanel-toolbar .jp-ToolbarButtonComponent-label"), \
        "expected nbgrader's Validate button in the notebook toolbar"
    menus = student.labels(".lm-MenuBar-itemLabel")
    assert "Nbgrader" not in menus, f"expected no nbgrader (instructor) menu, seen the menus {menus}"

    # 2. One answer, Run All Cells, what the student sees.
    student.answer(first, first_answer)
    states = student.run_all()
    ran = [i for i, s in enumerate(states) if s["code"] and re.search(r"\[\d+\]", s["prompt"])]
    not_run = [i for i, s in enumerate(states[:second]) if s["code"] and i not in ran]
    assert not not_run, f"expected Run All to run every code cell up to the second answer cell ({second}); not run: {not_run}"
    own_tests = [i for i, gid in student.tests.items() if exercise_of(gid) == first_exercise]
    assert own_tests and all(i in ran and not states[i]["errors"] for i in own_tests), \
        (f"expected the visible tests of {first_exercise} (cells {own_tests}) to run without an error; seen "
         + "; ".join(f"cell {i}: prompt {states[i]['prompt']!r}, {states[i]['errors']}" for i in own_tests))
    images = [i for i, s in enumerate(states) if s["images"]]
    assert images, "expected at least one figure rendered as an image (autograd_lib.viz.draw_graph)"
    errors = [i for i, s in enumerate(states) if s["errors"]]
    assert errors and min(errors) > second, \
        (f"expected error outputs only after the second answer cell ({second}), from exercises not answered yet; "
         f"seen errors in cells {errors}: {states[min(errors)]['errors'][0][:800] if errors else ''}")
    first_error = states[errors[0]]["errors"][0]
    assert "is not written yet" in first_error and "exercises.unplug(" in first_error, \
        ("expected the first error to be the kernel's one line for an unanswered exercise "
         f"('Exercise ... is not written yet ... exercises.unplug(...)'), seen:\n{first_error[:800]}")
    # The last figure before the first visible test, then the test cells with their execution counts.
    check_png(student.screenshot(max((i for i in images if i < own_tests[0]), default=own_tests[0]),
                                 f"{ASSIGNMENT}.png"))

    # 3. Validate: first with one exercise answered, then with all of them.
    kind, failed_sources, text = student.validate()
    student.save_screenshot(f"{ASSIGNMENT}_validate_partial.png")
    student.close_dialog()
    by_source = {squeeze(student.release.cells[i].source): gid for i, gid in student.tests.items()}
    failed = sorted(by_source.get(squeeze(source), f"<unknown cell: {source[:80]}>") for source in failed_sources)
    expected = sorted(gid for gid in student.tests.values() if exercise_of(gid) != first_exercise)
    assert kind == "validation-failed" and failed == expected, \
        (f"expected Validate to list as failed exactly the tests of the unanswered exercises {expected}; "
         f"seen {kind} with failed cells {failed}:\n{text[:1500]}")

    for index, answer in student.answers[1:]:
        student.answer(index, answer)
    kind, failed_sources, text = student.validate()
    check_png(student.save_screenshot(f"{ASSIGNMENT}_validated.png"))
    student.close_dialog()
    assert kind == "validation-success" and "Success! Your notebook passes all the tests." in text, \
        f"expected Validate to report success with every exercise answered; seen {kind}:\n{text[:1500]}"

    saved = read_notebook(lab.root / NOTEBOOK_PATH)
    wrong = [index for index, answer in student.answers if saved.cells[index].source != answer]
    assert not wrong, (f"expected the saved notebook to hold the typed answers exactly; cells {wrong} differ, e.g.\n"
                       f"{saved.cells[wrong[0]].source if wrong else ''}")
