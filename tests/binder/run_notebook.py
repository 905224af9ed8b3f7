"""Run one notebook in the Binder environment and report what happened.

    python run_notebook.py NOTEBOOK REPORT.json [SKIP_INDEX ...]

``tests/binder/test_environment.py`` starts this with the Binder environment's
own python, so nbclient, the kernel and every library the notebook imports
come from that environment.  The code cells whose indices are given are not
run; the others run in order in one kernel started in the notebook's
directory, which carries on after an error.  A last cell, added here, reports
the kernel's peak resident memory (``ru_maxrss``: the high-water mark of the
kernel process, in KiB on Linux), its ``sys.prefix`` and where
``autograd_lib`` was imported from.

REPORT.json: ``{"seconds", "ran", "probe", "cells": [{"index", "errors", "stderr"}]}``,
with one entry in ``cells`` for each cell that ran and wrote an error or to stderr.
"""

import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

PROBE_MARK = "BINDER-PROBE "
PROBE = f"""\
import json as _json, resource as _resource, sys as _sys
import autograd_lib as _autograd_lib
print({PROBE_MARK!r} + _json.dumps({{
    "peak_kib": _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss,
    "prefix": _sys.prefix,
    "autograd_lib": _autograd_lib.__file__,
}}))
"""


def main(notebook, report, skip):
    notebook = Path(notebook)
    nb = nbformat.read(str(notebook), as_version=4)
    indices = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and i not in skip]
    nb.cells = [nb.cells[i] for i in indices] + [nbformat.v4.new_code_cell(PROBE)]
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True, record_timing=False,
                   resources={"metadata": {"path": str(notebook.parent)}}).execute()
    seconds = time.perf_counter() - start

    cells = []
    for index, cell in zip(indices, nb.cells):
        errors = [f"{out.ename}: {out.evalue}" for out in cell.outputs if out.output_type == "error"]
        stderr = "".join(out.text for out in cell.outputs
                         if out.output_type == "stream" and out.name == "stderr")
        if errors or stderr:
            cells.append({"index": index, "errors": errors, "stderr": stderr,
                          "tags": list(cell.metadata.get("tags", []))})
    probe = None
    for out in nb.cells[-1].outputs:
        if out.output_type == "stream" and PROBE_MARK in out.text:
            probe = json.loads(out.text.split(PROBE_MARK, 1)[1])
    Path(report).write_text(json.dumps({"seconds": seconds, "ran": len(indices), "probe": probe,
                                        "cells": cells, "probe_outputs": nb.cells[-1].outputs},
                                       indent=1, default=str))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], {int(i) for i in sys.argv[3:]})
