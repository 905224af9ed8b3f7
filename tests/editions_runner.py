"""Run notebooks inside an edition's virtual environment (tests/test_editions_stages.py).

Run by that environment's Python, so the kernel imports the edition installed there:

    <venv>/bin/python tests/editions_runner.py jobs.json results.json [workers]

``jobs.json`` lists ``{"name": ..., "notebook": <path>}``; every notebook runs to its end
in a fresh kernel, errors allowed.  ``results.json`` maps each name to its code cells'
``[grade_id or null, error ("Name: value") or null, the text the cell printed]``.
Only nbformat and nbclient (and ipykernel for the kernel) are needed.
"""

import json
import multiprocessing
import sys

import nbclient
import nbformat


def cell_result(cell):
    error, text = None, []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            error = f"{out.get('ename')}: {out.get('evalue')}"
            text.append(error)
        elif out.get("output_type") == "stream":
            text.append(out.get("text", ""))
        elif "data" in out:
            text.append(out["data"].get("text/plain", ""))
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return [grade_id, error, "".join(text)]


def run(job):
    nb = nbformat.read(job["notebook"], as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, allow_errors=True, kernel_name="python3",
                                     resources={"metadata": {"path": job.get("cwd", ".")}})
    client.execute()
    return job["name"], [cell_result(c) for c in nb.cells if c.cell_type == "code"]


def main(jobs_path, results_path, workers="2"):
    jobs = json.load(open(jobs_path))
    with multiprocessing.Pool(int(workers)) as pool:       # one kernel per notebook, two at a time
        results = dict(pool.map(run, jobs, chunksize=1))
    json.dump(results, open(results_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:])
