# Entry points; each works on a fresh machine (Python >= 3.11 on PATH):
#   make lab      set up, then open JupyterLab on the first assignment (course/release/01_tensors),
#                 with the nbgrader extensions students have on Binder (binder/student-extensions)
#   make demo     set up and run a tour of autograd_lib
#   make test     set up and run the whole test suite (library, PyTorch oracle, course pipeline)
# Instructor targets (see course/README.md):
#   make release          regenerate course/release/ from course/source/ (nbgrader generate_assignment)
#   make solutions        regenerate and execute solutions/
#   make course-check     fail when course/release/ or solutions/ drift from course/source/
#   make instructor-demo  generate, autograde example submissions, print the grade table
#   make grade-class      autograde every submission in course/submitted/ (parallel, sandboxed,
#                         incremental), write course/grades.csv, then the feedback
#                         (NO_SANDBOX=1: without bubblewrap, students' code running as you)
#   make edition STAGE=k  dist/edition-k/: the wheel for week k of a graded class, later answers
#                         sealed (bytecode only), release notebooks <= k, binder/ (SOLUTIONS=1: solutions < k)
#   make test-course      only the course pipeline tests (marker "course")
#   make test-hub         only the JupyterHub class test (marker "hub"; as root: it makes Unix
#                         accounts, a PostgreSQL server and a hub; see deploy/jupyterhub and course/README.md)
#   make test-load N=25   only the load test (marker "load"): N students at once on the class hub,
#                         with faults; figures to artifacts/load/ (as root, like test-hub)
#   make test-quick       the whole suite, grading only the first catalogued mistake per exercise
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test venv sandbox bench clean lab release solutions course-check instructor-demo \
        grade-class edition test-course test-hub test-load test-quick

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python
	$(BIN)/pip install --quiet -e ".[course,test]"
	@# bytecode for the editable packages, which pip does not compile: a sandboxed kernel
	@# cannot write it (read-only), so without it every kernel compiles them again
	$(BIN)/python -m compileall -q -j 0 autograd_lib autograd_course

demo: venv
	$(BIN)/python -m autograd_lib.demo

# Students' notebooks are graded in a bubblewrap sandbox (autograd_course/sandbox.py). What
# grades installs it first where this user can (root, or sudo: apt-get, dnf, ...), and says
# which command to run where it cannot; the tests then skip what needs the sandbox, while
# grade-class stops (NO_SANDBOX=1 grades without it).
sandbox: venv
	$(BIN)/python -m autograd_course.sandbox setup

# The suite runs in TEST_WORKERS parallel workers, slow groups first (tests/conftest.py);
# TEST_WORKERS=0 runs it in this one process.
TEST_WORKERS ?= 4

test: venv sandbox
	$(BIN)/python -m pytest -q --durations=25 -n $(TEST_WORKERS)

# The library's benchmarks, then grading a class against stock nbgrader (benchmarks/README.md).
bench: venv sandbox
	$(BIN)/pip install --quiet -e ".[bench]"
	status=0; $(BIN)/python -m benchmarks.run || status=$$?; \
	$(BIN)/python -m benchmarks.cnn || status=$$?; \
	$(BIN)/python -m benchmarks.grading || status=$$?; exit $$status

# Once per .venv: only the nbgrader extensions a student has on Binder (Validate).
$(VENV)/.student-extensions: binder/student-extensions | venv
	PATH="$(abspath $(BIN)):$$PATH" binder/student-extensions
	touch $@

lab: venv $(VENV)/.student-extensions
	$(BIN)/autograd-course lab

release: venv
	$(BIN)/autograd-course release

solutions: venv
	$(BIN)/autograd-course solutions

course-check: venv
	$(BIN)/autograd-course check

instructor-demo: venv sandbox
	$(BIN)/autograd-course demo

grade-class: venv
	$(if $(NO_SANDBOX),,$(BIN)/python -m autograd_course.sandbox setup --required)
	$(BIN)/autograd-course grade-class $(if $(NO_SANDBOX),--no-sandbox)

# make edition STAGE=3 [SOLUTIONS=1]: dist/edition-3/ for week 3 of a graded class
edition: venv
	@test -n "$(STAGE)" || { echo "usage: make edition STAGE=k [SOLUTIONS=1]  (k: the class's assignment, 1-9)"; exit 2; }
	$(BIN)/autograd-course edition --stage $(STAGE) $(if $(SOLUTIONS),--solutions)

test-course: venv sandbox
	$(BIN)/python -m pytest -q -m course

test-hub: venv
	$(BIN)/python -m pytest -q -m hub tests/hub

# make test-load [N=25]: N simulated students (4 by default, as in make test); RAMP=s spreads their arrival
test-load: venv
	AUTOGRAD_LOAD_STUDENTS=$(N) AUTOGRAD_LOAD_RAMP=$(RAMP) $(BIN)/python -m pytest -q -s -m load tests/hub/test_load.py

test-quick: venv sandbox
	COURSE_MISTAKES=1 $(BIN)/python -m pytest -q -n $(TEST_WORKERS)

clean:
	rm -rf $(VENV) artifacts benchmarks/results
