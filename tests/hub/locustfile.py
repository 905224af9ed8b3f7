"""The students of the load test (test_load.py), as locust users: each one a student of
the plan that load.py writes (AUTOGRAD_LOAD_PLAN, JSON), doing in one go what a
student does in a lecture, through the hub's pages and their server's REST API, as
JupyterLab does it:

1. the hub's login form (its _xsrf, the password), then the spawn page and the
   progress stream the spawn-pending page reads, then their JupyterLab page (the
   OAuth redirects that give their server's cookie): the server is *usable*;
   a 429 page (the hub's limits) is read, reported, and retried after its
   Retry-After (or 10 s);
2. the Assignments tab's list and Fetch;
3. for each of their attempts (a resubmission is a second attempt): their answers
   written into the notebook, a kernel session opened as JupyterLab opens a
   notebook, every code cell run over the kernel's websocket (outputs kept), the
   notebook saved with its outputs, read back and hashed (sha256: the harness
   finds exactly these bytes in the exchange), Validate, Submit;
4. optionally, Stop My Server (the hub's control panel) when done.

Everything each student did and saw goes to AUTOGRAD_LOAD_RESULTS (one JSON line
each), and its steps to locust's statistics; when the last student is done, locust
quits.  Faults are survived as a student would: a dropped connection or a 502/503
(the hub restarting) is retried after a pause; a kernel that died (its status
"restarting" or "dead", or its websocket closed) is restarted and the notebook run
again from the top; a Submit whose answer was lost is not repeated if the
Assignments tab already lists it.  Every wait is bounded by the plan's deadline.

Standard library, requests, websocket-client and locust only: locust loads this
file in its own process (gevent), which imports nothing of the tests.
"""

import copy
import hashlib
import json
import os
import random
import re
import time
import uuid
from pathlib import Path

import gevent
import requests
import websocket
from locust import HttpUser, events, task
from locust.exception import StopUser

PLAN = json.loads(Path(os.environ["AUTOGRAD_LOAD_PLAN"]).read_text(encoding="utf-8"))
RESULTS = Path(os.environ["AUTOGRAD_LOAD_RESULTS"])
SIGNALS = Path(PLAN["signals"])
WAITING = list(PLAN["students"])          # taken in order by the users locust starts
DONE = []
RETRY_STATUS = {502, 503, 504}            # the proxy or the hub restarting: retried until the deadline
# While a hub restarts, its new proxy answers 404 until the hub has put the routes back, and
# the hub may answer 404, 424 or 500 ("Redirect loop detected") for a server whose route is
# not back yet: a student reloads; retried TRANSIENT_TRIES times (about two minutes).
TRANSIENT_STATUS = {404, 424, 500}
TRANSIENT_TRIES = 40
CELL_TIMEOUT = PLAN.get("cell_timeout", 300)


class Trouble(Exception):
    """A step failed for good (after its retries): the student's result names it.
    ``transient``: it failed as a restarting hub fails (a request not retried, ``retry=False``)."""

    def __init__(self, message, transient=False):
        super().__init__(message)
        self.transient = transient


class KernelLost(Exception):
    """The kernel died or its websocket closed: restart it and run the notebook again."""


class Student(HttpUser):
    host = PLAN["hub"]
    wait_time = staticmethod(lambda: 0)

    def on_start(self):
        self.me = WAITING.pop(0)
        self.name = self.me["name"]
        self.deadline = PLAN["deadline"]
        self.record = {"name": self.name, "events": [], "attempts": [], "reconnects": 0, "kernel_restarts": 0,
                       "refusals": [], "spawn_requests": 0}
        self.base = f"/user/{self.name}"
        self.started = time.time()

    # ------------------------------------------------------------- plumbing

    def event(self, what, **extra):
        self.record["events"].append({"t": round(time.time() - self.started, 3), "what": what, **extra})
        with open(SIGNALS / "events.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"name": self.name, "what": what, "at": time.time()}) + "\n")

    def think(self):
        low, high = PLAN.get("think", [0.5, 2.0])
        gevent.sleep(random.uniform(low, high))

    def time_left(self):
        return self.deadline - time.time()

    def xsrf(self, path):
        return self.client.cookies.get("_xsrf", path=path) or ""

    def request(self, method, url, name, expect=(200,), retry=True, **kwargs):
        """One request of the student's, in locust's statistics under ``name``.  A dropped
        connection (locust's status 0) and 502/503/504 are retried after a pause until the
        deadline, 404/424/500 (a hub that is coming back) TRANSIENT_TRIES times; any other
        status than ``expect`` is a Trouble.  ``retry=False``: no retry, the Trouble says
        whether it was transient (the caller decides: Submit looks at the list first)."""
        kwargs.setdefault("timeout", 300)
        tries = 0
        while True:
            with self.client.request(method, url, name=name, catch_response=True, **kwargs) as answer:
                status = answer.status_code
                transient = not status or status in RETRY_STATUS or status in TRANSIENT_STATUS
                again = retry and (not status or status in RETRY_STATUS
                                   or (status in TRANSIENT_STATUS and tries < TRANSIENT_TRIES))
                if status in expect:
                    answer.success()
                else:
                    answer.failure(f"{status or answer.error}{' (retried)' if again else ''}")
            if status in expect:
                return answer
            if not again:
                raise Trouble(f"{method} {url}: expected {expect}, seen {status or answer.error}: "
                              f"{_page_text(answer.text or '')[:600]}", transient=transient)
            if self.time_left() < 0:
                raise Trouble(f"{method} {url}: no answer before the run's deadline ({status or answer.error})")
            tries += 1
            self.record["reconnects"] += 1
            gevent.sleep(2 + random.random() * 2)

    def measured(self, name, seconds, error=None):
        """A step that is not one request (the spawn, the cells), in locust's statistics."""
        events.request.fire(request_type="STEP", name=name, response_time=seconds * 1000, response_length=0,
                            exception=error, context={})

    # --------------------------------------------------------------- steps

    def log_in(self):
        page = self.request("GET", "/hub/login", "hub: login page")
        found = re.search(r'name="_xsrf" value="([^"]+)"', page.text)
        answer = self.request("POST", "/hub/login", "hub: login (form)", expect=(302,), allow_redirects=False, data={
            "username": self.name, "password": self.me["password"], **({"_xsrf": found.group(1)} if found else {})})
        if "jupyterhub-session-id" not in self.client.cookies:
            raise Trouble(f"the login form gave no session: {answer.status_code} {answer.headers}")
        self.event("logged in")

    def start_server(self):
        """The spawn page until the hub takes the request (429: read, wait, again), then
        the progress stream, then JupyterLab's page."""
        while True:
            self.record["spawn_requests"] += 1
            answer = self.request("GET", "/hub/spawn", "hub: spawn", expect=(200, 302, 429, 500),
                                  allow_redirects=False)
            if answer.status_code == 429:
                message = _page_text(answer.text)
                said = re.search(r"(Too many users[^.]*\.[^.]*\.|Active user limit exceeded[^.]*\.[^.]*\.)", message)
                wait = float(answer.headers.get("Retry-After") or PLAN.get("retry_after", 10))
                self.record["refusals"].append({"t": round(time.time() - self.started, 1),
                                                "message": said.group(1) if said else message[:300],
                                                "retry_after": answer.headers.get("Retry-After")})
                self.event("refused (429)")
                if self.time_left() < wait:
                    raise Trouble(f"the hub refused the start until the deadline: {message[:300]}")
                gevent.sleep(wait)
                continue
            if answer.status_code == 500:
                failures = self.record.setdefault("spawn_failures", [])
                failures.append(_page_text(answer.text)[:300])
                if len(failures) >= 3 or self.time_left() < 0:
                    raise Trouble(f"the spawn failed {len(failures)} times: {failures[-1]}")
                gevent.sleep(5)
                continue
            break
        location = answer.headers.get("Location", "")
        if answer.status_code == 302 and "/spawn-pending/" in location:
            self.wait_for_spawn()
        lab = self.request("GET", f"{self.base}/lab", "server: JupyterLab page")
        if f"{self.base}/lab" not in lab.url:
            raise Trouble(f"expected JupyterLab at {self.base}/lab, landed on {lab.url}")
        self.event("server usable")
        self.record["usable_after"] = round(time.time() - self.started, 3)
        self.measured("student: arrival to a usable JupyterLab", time.time() - self.started)

    def wait_for_spawn(self):
        """What the spawn-pending page does: read the hub's progress stream until ready or
        failed (outside locust's statistics: it is one long wait, measured as a step)."""
        start = time.time()
        while True:
            try:
                with requests.Session.request(self.client, "GET", f"{PLAN['hub']}/hub/api/users/{self.name}/server/progress",
                                              params={"_xsrf": self.xsrf("/hub/")}, stream=True,
                                              timeout=max(10, self.time_left())) as stream:
                    if stream.status_code == 200:
                        for line in stream.iter_lines():
                            if not line.startswith(b"data:"):
                                continue
                            data = json.loads(line[5:])
                            if data.get("ready"):
                                self.measured("hub: spawn, until ready", time.time() - start)
                                return
                            if data.get("failed"):
                                self.measured("hub: spawn, until ready", time.time() - start, Trouble("failed"))
                                raise Trouble(f"the spawn failed: {data.get('message')}")
                    elif stream.status_code not in (400, *RETRY_STATUS, *TRANSIENT_STATUS):
                        # 400 "... is not starting": a hub that has just restarted, still checking
                        # the servers it had, or a spawn it lost: the spawn page, below, says which
                        raise Trouble(f"the spawn's progress: {stream.status_code} {_page_text(stream.text)[:300]}")
            except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError):
                pass
            if self.time_left() < 0:
                raise Trouble("the server was not ready before the run's deadline")
            self.record["reconnects"] += 1
            gevent.sleep(2)
            # after a hub restart the spawn may be over, or gone: the spawn page says which
            state = self.request("GET", "/hub/spawn", "hub: spawn", expect=(200, 302, 429, 500), allow_redirects=False)
            if state.status_code == 302 and "/spawn-pending/" not in state.headers.get("Location", ""):
                return
            if state.status_code == 500:
                raise Trouble(f"after a lost spawn, the spawn page: {state.status_code} {_page_text(state.text)[:300]}")
            if state.status_code == 429:
                gevent.sleep(float(state.headers.get("Retry-After") or PLAN.get("retry_after", 10)))

    def server_call(self, method, path, name, expect=(200,), **kwargs):
        headers = dict(kwargs.pop("headers", {}))
        if method != "GET":
            headers["X-XSRFToken"] = self.xsrf(f"{self.base}/")
        return self.request(method, f"{self.base}{path}", name, expect=expect, headers=headers, **kwargs)

    def assignment(self):
        listed = self.server_call("GET", "/assignments", "server: assignment list",
                                  params={"course_id": PLAN["course_id"]}).json()
        if not listed.get("success"):
            raise Trouble(f"the assignment list failed: {str(listed.get('value'))[-600:]}")
        return [a for a in listed["value"] if a["assignment_id"] == PLAN["assignment"]]

    def fetch(self):
        if any(a["status"] in ("fetched", "submitted") for a in self.assignment()):
            return                                 # fetched before (an earlier round)
        done = self.server_call("POST", "/assignments/fetch", "server: fetch", data=self.action_data()).json()
        if not done.get("success") or not any(a["status"] == "fetched" for a in done["value"]
                                              if a["assignment_id"] == PLAN["assignment"]):
            if not any(a["status"] == "fetched" for a in self.assignment()):
                raise Trouble(f"fetch failed: {str(done.get('value'))[-600:]}")
        self.event("fetched")

    def action_data(self):
        return {"course_id": PLAN["course_id"], "assignment_id": PLAN["assignment"]}

    def submissions(self):
        return sorted(s["timestamp"] for a in self.assignment() if a["status"] == "submitted"
                      for s in a.get("submissions", []))

    def submit(self):
        """Submit, once: a request whose answer was lost (the hub restarting) is sent again
        only when the Assignments tab does not list a new submission."""
        before = self.submissions()
        for _ in range(TRANSIENT_TRIES):
            try:
                done = self.server_call("POST", "/assignments/submit", "server: submit", data=self.action_data(),
                                        retry=False).json()
                if not done.get("success"):
                    raise Trouble(f"submit failed: {str(done.get('value'))[-600:]}")
                break
            except Trouble as error:
                if len(self.submissions()) > len(before):
                    break                          # it landed; only its answer was lost
                if not error.transient or self.time_left() < 0:
                    raise
                self.record["reconnects"] += 1
                gevent.sleep(3)
        after = self.submissions()
        if len(after) != len(before) + 1:
            raise Trouble(f"expected one more submission in the Assignments tab, seen {before} -> {after}")
        return sorted(set(after) - set(before))[0]

    # ---------------------------------------------------------- the notebook

    def attempt(self, number, plan):
        path = PLAN["notebook"]
        nb = self.server_call("GET", f"/api/contents/{path}", "server: open notebook", params={"content": 1}).json()
        nb = nb["content"]
        for cell in nb["cells"]:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if gid in plan["answers"]:
                cell["source"] = plan["answers"][gid]
        self.think()
        start = time.time()
        while True:
            try:
                self.run_cells(nb, path)
                break
            except KernelLost as lost:
                self.record["kernel_restarts"] += 1
                self.event("kernel lost", why=str(lost)[:200])
                if self.time_left() < 0:
                    raise Trouble(f"the kernel was lost and the deadline passed: {lost}")
                gevent.sleep(2)
        ran = time.time() - start
        self.measured("kernel: every cell of the notebook", ran)
        self.server_call("PUT", f"/api/contents/{path}", "server: save", expect=(200, 201),
                         json={"type": "notebook", "format": "json", "content": nb})
        raw = self.server_call("GET", f"/api/contents/{path}", "server: read back",
                               params={"type": "file", "format": "text", "content": 1}).json()["content"]
        saved = hashlib.sha256(raw.encode("utf-8")).hexdigest()
        self.event("saved")
        self.think()
        start_validate = time.time()
        checked = self.server_call("POST", "/assignments/validate", "server: validate", data={"path": path}).json()
        validated = time.time() - start_validate
        verdict = ("error" if not checked.get("success") else
                   "passed" if not any(checked["value"].get(k) for k in ("failed", "changed", "type_changed"))
                   else "failed")
        self.think()
        start_submit = time.time()
        stamp = self.submit()
        self.event("submitted")
        self.record["attempts"].append({"number": number, "kind": plan["kind"], "sha256": saved, "timestamp": stamp,
                                        "validate": verdict, "run_seconds": round(ran, 2),
                                        "validate_seconds": round(validated, 2),
                                        "submit_seconds": round(time.time() - start_submit, 2)})

    def run_cells(self, nb, path):
        """JupyterLab's "Restart Kernel and Run All Cells": a session for the notebook, then
        every code cell in turn; the outputs go into ``nb``."""
        session = self.server_call("POST", "/api/sessions", "server: kernel session", expect=(200, 201), json={
            "path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}).json()
        kernel = session["kernel"]["id"]
        if self.record["kernel_restarts"] or self.record["attempts"]:
            self.server_call("POST", f"/api/kernels/{kernel}/restart", "server: kernel restart", expect=(200,))
        url = (self.client.base_url.replace("http://", "ws://") + f"{self.base}/api/kernels/{kernel}/channels"
               f"?session_id={uuid.uuid4().hex}")
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.client.cookies if c.path in ("/", f"{self.base}/"))
        try:
            channel = websocket.create_connection(url, header=[f"Cookie: {cookie}"], timeout=60)
        except Exception as error:                   # noqa: BLE001 - refused, reset, handshake: all "reconnect"
            raise KernelLost(f"the kernel's websocket did not open: {type(error).__name__}: {error}") from error
        victim = self.me.get("victim") and not self.record["kernel_restarts"]
        code_cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
        try:
            for number, cell in enumerate(code_cells):
                if victim and number == len(code_cells) // 2:
                    self.await_kill(kernel)
                cell["outputs"], cell["execution_count"] = self.execute(channel, "".join(cell["source"]))
        finally:
            channel.close()
        self.event("cells run")

    def await_kill(self, kernel):
        """The kernel-kill fault: tell the harness which kernel is running, wait until it killed it."""
        (SIGNALS / f"{self.name}.kernel").write_text(kernel)
        end = time.time() + 120
        while not (SIGNALS / f"{self.name}.killed").exists():
            if time.time() > end:
                raise Trouble("the harness did not kill the kernel within 120 s")
            gevent.sleep(0.5)

    def execute(self, channel, code):
        msg_id = uuid.uuid4().hex
        start = time.time()
        try:
            channel.send(json.dumps({
                "header": {"msg_id": msg_id, "username": self.name, "session": uuid.uuid4().hex,
                           "msg_type": "execute_request", "version": "5.3", "date": ""},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                            "allow_stdin": False, "stop_on_error": False}}))
        except Exception as error:                   # noqa: BLE001
            raise KernelLost(f"sending to the kernel: {type(error).__name__}: {error}") from error
        outputs, count, replied, idle = [], None, False, False
        while not (replied and idle):
            if time.time() - start > CELL_TIMEOUT:
                raise KernelLost(f"no answer from the kernel in {CELL_TIMEOUT} s")
            try:
                message = json.loads(channel.recv())
            except websocket.WebSocketTimeoutException:
                continue
            except Exception as error:               # noqa: BLE001 - closed: the hub or the kernel went away
                raise KernelLost(f"the kernel's websocket: {type(error).__name__}: {error}") from error
            kind, content = message.get("msg_type"), message.get("content", {})
            if kind == "status" and content.get("execution_state") in ("restarting", "dead"):
                raise KernelLost(f"the kernel is {content['execution_state']}")
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if kind == "stream":
                outputs.append({"output_type": "stream", "name": content["name"], "text": content["text"]})
            elif kind in ("execute_result", "display_data"):
                out = {"output_type": kind, "data": content["data"], "metadata": content.get("metadata", {})}
                if kind == "execute_result":
                    out["execution_count"] = content["execution_count"]
                outputs.append(out)
            elif kind == "error":
                outputs.append({"output_type": "error", "ename": content["ename"], "evalue": content["evalue"],
                                "traceback": content["traceback"]})
            elif kind == "execute_reply":
                replied, count = True, content.get("execution_count")
            elif kind == "status" and content.get("execution_state") == "idle":
                idle = True
        return outputs, count

    def stop_server(self):
        """Stop My Server (the hub's control panel)."""
        self.request("DELETE", f"/hub/api/users/{self.name}/server", "hub: stop my server", expect=(202, 204),
                     headers={"X-XSRFToken": self.xsrf("/hub/")})
        self.event("server stopped")

    # ---------------------------------------------------------------- the task

    @task
    def attend(self):
        try:
            step = "log in"
            self.log_in()
            step = "start the server"
            self.start_server()
            self.think()
            step = "fetch"
            self.fetch()
            for number, plan in enumerate(self.me["attempts"], 1):
                step = f"attempt {number}"
                self.attempt(number, copy.deepcopy(plan))
            if self.me.get("leave"):
                step = "stop the server"
                self.stop_server()
            self.record["outcome"] = "done"
        except (Trouble, KernelLost) as error:
            self.record.update(outcome="failed", step=step, error=str(error)[-2000:])
        except Exception as error:                   # noqa: BLE001 - a bug of the client: report it, with its student
            self.record.update(outcome="failed", step=step, error=f"{type(error).__name__}: {error}"[-2000:])
        self.record["seconds"] = round(time.time() - self.started, 3)
        with open(RESULTS, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(self.record) + "\n")
        DONE.append(self.name)
        if len(DONE) == len(PLAN["students"]):
            gevent.spawn_later(0.1, self.environment.runner.quit)
        raise StopUser()


def _page_text(html):
    """The words of an HTML page (the hub's error pages say what is wrong in them)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", html))).strip()
