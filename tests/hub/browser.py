"""One student's path through the hub in real Chromium (Debian's chromium and
chromedriver, driven by Selenium, as in tests/binder/test_browser.py, whose
notebook-editing steps it reuses): the hub's login page, JupyterLab's
Nbgrader > Assignment List (the Assignments tab), Fetch, the notebook opened
from the list, the four answers typed in, Validate (which must report
success), back to the Assignments tab, Submit.  Screenshots of each stage go
to artifacts/hub/."""

import contextlib
import shutil
import tempfile
import time

from tests.binder.test_browser import Student, check_png, chrome, wait_for

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic", "--window-size=1400,1000")


@contextlib.contextmanager
def browser():
    """Headless Chromium with a fresh profile, kept off the network but for loopback."""
    profile = tempfile.mkdtemp(prefix="hub-chromium-")
    try:
        with chrome(*FLAGS, f"--user-data-dir={profile}") as driver:
            yield driver
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class HubStudent(Student):
    """The binder test's student (typing answers, Validate), on the hub."""

    def __init__(self, driver, artifacts, name):
        super().__init__(driver, lab=None)
        self.artifacts, self.name = artifacts, name

    def save_screenshot(self, name):
        self.dismiss_notifications()
        time.sleep(0.5)
        self.artifacts.mkdir(parents=True, exist_ok=True)
        path = self.artifacts / name
        assert self.driver.save_screenshot(str(path)), f"Chromium could not write {path}"
        return path

    def find(self, xpath, what, timeout=None):
        return wait_for(lambda: [e for e in self.driver.find_elements(self.By.XPATH, xpath) if e.is_displayed()],
                        what, **({"timeout": timeout} if timeout else {}))[0]

    def log_in(self, url, password):
        self.driver.get(f"{url}/hub/login")
        self.find("//input[@id='username_input']", "the hub's login form").send_keys(self.name)
        self.driver.find_element(self.By.ID, "password_input").send_keys(password)
        self.save_screenshot("1_login.png")
        self.driver.find_element(self.By.ID, "login_submit").click()
        self.find("//div[contains(@class, 'lm-MenuBar-itemLabel') and normalize-space()='Nbgrader']",
                  "JupyterLab with the Nbgrader menu, after logging in and the server's start")
        assert f"/user/{self.name}/lab" in self.driver.current_url, \
            f"expected {self.name}'s own JupyterLab, seen {self.driver.current_url}"

    def assignments_tab(self):
        self.menu("Nbgrader", "nbgrader:open-assignment-list")
        self.find("//div[contains(@class, 'lm-TabBar-tabLabel') and normalize-space()='Assignments']",
                  "the Assignments tab")

    def fetch(self, assignment):
        self.find(f"//div[@id='released_assignments_list']//div[contains(@class, 'list_item')]"
                  f"[.//span[normalize-space()='{assignment}']]//button[normalize-space()='Fetch']",
                  f"{assignment} under Released assignments, with Fetch").click()
        link = self.find("//div[@id='fetched_assignments_list']//a[contains(@class, 'assignment-notebooks-link')]"
                         f"[normalize-space()='{assignment}']", f"{assignment} under Downloaded assignments")
        self.save_screenshot("2_fetched.png")
        link.click()
        self.find(f"//div[@id='fetched_assignments_list']//div[contains(@class, 'nested_list_item')]"
                  f"//a[normalize-space()='{assignment}']", "the notebook's link in the downloaded assignment").click()
        wait_for(lambda: self.driver.execute_script(
            "const i = document.querySelector('.jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator');"
            "return i ? i.getAttribute('data-status') : null;") == "idle", "the notebook's kernel to start (idle)")

    def submit(self, assignment):
        self.driver.find_element(
            self.By.XPATH, "//div[contains(@class, 'lm-TabBar-tabLabel') and normalize-space()='Assignments']").click()
        self.find("//div[@id='fetched_assignments_list']//div[contains(@class, 'list_item')]"
                  f"[.//a[normalize-space()='{assignment}']]//button[normalize-space()='Submit']",
                  f"Submit beside {assignment}").click()
        self.find(f"//div[@id='submitted_assignments_list']//div[contains(@class, 'list_item')]"
                  f"[.//span[normalize-space()='{assignment}']]", f"{assignment} under Submitted assignments")
        return self.save_screenshot("5_submitted.png")


def student_path(room, hub_browser, name, artifacts):
    """The path of the module's docstring, for the account ``name``; fails with a screenshot."""
    from .test_classroom import ASSIGNMENT
    student = HubStudent(hub_browser, artifacts, name)
    try:
        student.log_in(room.url, room.passwords[name])
        student.assignments_tab()
        student.fetch(ASSIGNMENT)
        for index, answer in student.answers:
            student.answer(index, answer)
        check_png(student.save_screenshot("3_answered.png"))
        kind, failed, text = student.validate()
        check_png(student.save_screenshot("4_validated.png"))
        student.close_dialog()
        assert kind == "validation-success" and "Success! Your notebook passes all the tests." in text, \
            f"expected Validate to report success with every answer typed in; seen {kind}:\n{text[:1500]}"
        check_png(student.submit(ASSIGNMENT))
    except Exception:
        with contextlib.suppress(Exception):
            print(f"screenshot: {student.save_screenshot('failure.png')}")
        print(f"JupyterHub's log (end):\n{room.hub_tail()}")
        raise
