"""deploy/z2jh/: the Zero to JupyterHub values, checked as far as this machine allows.

The chart itself (and its values.schema.yaml) is not on PyPI, npm or Debian,
and helm is not either, so nothing here renders it.  What is checked:

* values.yaml and exchange.yaml parse, and values.yaml has the shape the chart
  expects for every key the course sets (types, the keys' places), against a
  schema of those keys (below);
* the values agree with the one-machine hub: the exchange is mounted where
  deploy/jupyterhub puts it, the layout Job gives the instructor's uid and
  the graders' gid that hub.extraConfig assigns;
* hub.extraConfig runs: every roster name gets its own uid, the instructor
  the graders' gid, the gradebook URL, two guaranteed cores and an
  unconfined seccomp profile (grading's sandbox), students none of that;
* with ``AUTOGRAD_Z2JH_CHART`` naming a checkout of the chart's directory
  (``jupyterhub/`` of zero-to-jupyterhub-k8s), the values merged over the
  chart's defaults validate against the chart's own values.schema.yaml.
"""

import os
import re
import types
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML (a dependency of nbgrader) reads the values")
jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (a dependency of Jupyter) checks the values")

REPO = Path(__file__).resolve().parents[2]
Z2JH = REPO / "deploy" / "z2jh"
HUB_ENV = REPO / "deploy" / "jupyterhub" / "hub.env.example"

_STRING, _NUMBER, _INT = {"type": "string"}, {"type": "number"}, {"type": "integer"}
_SIZE = {"type": "string", "pattern": r"^\d+(\.\d+)?[KMGT]i?$"}


def _object(required=None, **properties):
    return {"type": "object", "properties": properties, "required": list(required or properties)}


# The keys the course sets, in the places and with the types of the chart's schema.
COURSE_KEYS = _object(
    hub=_object(
        config=_object(Authenticator=_object(admin_users={"type": "array", "items": _STRING, "minItems": 1})),
        db=_object(type={"enum": ["sqlite-pvc", "sqlite-memory", "mysql", "postgres", "other"]}, url=_STRING),
        extraFiles={"type": "object", "additionalProperties": _object(
            required=["mountPath", "stringData"], mountPath=_STRING, stringData=_STRING)},
        extraConfig={"type": "object", "additionalProperties": _STRING, "minProperties": 1}),
    singleuser=_object(
        required=["image", "uid", "memory", "cpu", "storage", "defaultUrl"],
        image=_object(name=_STRING, tag=_STRING),
        uid=_INT, fsGid=_INT, defaultUrl=_STRING, cmd=_STRING,
        memory=_object(guarantee=_SIZE, limit=_SIZE), cpu=_object(guarantee=_NUMBER, limit=_NUMBER),
        storage=_object(required=["type", "extraVolumes", "extraVolumeMounts"], type={"enum": ["dynamic", "static", "none"]},
                        capacity=_SIZE, homeMountPath=_STRING,
                        extraVolumes={"type": "array", "items": {"type": "object", "required": ["name"]}},
                        extraVolumeMounts={"type": "array", "items": _object(name=_STRING, mountPath=_STRING)})),
    cull=_object(required=["enabled", "timeout"], enabled={"type": "boolean"}, timeout=_INT, every=_INT),
)


@pytest.fixture(scope="module")
def values():
    return yaml.safe_load((Z2JH / "values.yaml").read_text())


def exchange_path():
    return re.search(r"^AUTOGRAD_HUB_EXCHANGE=(\S+)", HUB_ENV.read_text(), re.M).group(1)


def test_the_values_have_the_charts_shape_for_the_courses_keys(values):
    errors = [f"{'.'.join(map(str, e.path))}: {e.message}" for e in jsonschema.Draft7Validator(COURSE_KEYS).iter_errors(values)]
    assert not errors, "deploy/z2jh/values.yaml:\n" + "\n".join(errors)


def test_the_exchange_is_mounted_where_the_one_machine_hub_has_it(values):
    storage = values["singleuser"]["storage"]
    claims = {v["name"]: v.get("persistentVolumeClaim", {}).get("claimName") for v in storage["extraVolumes"]}
    mounts = {m["name"]: m["mountPath"] for m in storage["extraVolumeMounts"]}
    documents = list(yaml.safe_load_all((Z2JH / "exchange.yaml").read_text()))
    pvc = next(d for d in documents if d["kind"] == "PersistentVolumeClaim")
    assert "ReadWriteMany" in pvc["spec"]["accessModes"], "the exchange must be shared by every user's pod"
    volume = next(name for name, claim in claims.items() if claim == pvc["metadata"]["name"])
    assert mounts[volume] == exchange_path(), \
        f"expected the exchange at {exchange_path()} (hub.env.example), seen {mounts[volume]}"


def extra_config(values, roster):
    """Run hub.extraConfig with a stand-in ``c``; (config, pre-spawn hook)."""
    source = next(iter(values["hub"]["extraConfig"].values()))
    source = source.replace("/usr/local/etc/jupyterhub/roster.csv", str(roster))
    c = types.SimpleNamespace(Authenticator=types.SimpleNamespace(), KubeSpawner=types.SimpleNamespace())
    exec(compile(source, "hub.extraConfig", "exec"), {"c": c})
    return c, c.KubeSpawner.pre_spawn_hook


def spawn(hook, name):
    spawner = types.SimpleNamespace(user=types.SimpleNamespace(name=name), environment={},
                                    cpu_guarantee=None, mem_limit=None, extra_container_config={})
    hook(spawner)
    return spawner


def test_extra_config_gives_every_user_a_uid_and_the_instructor_grading(values, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("# comment\nusername,full name\nada,Ada\nalan\n\nada\n")
    c, hook = extra_config(values, roster)
    assert c.Authenticator.allowed_users == {"instructor", "ada", "alan"}
    people = {name: spawn(hook, name) for name in ("instructor", "ada", "alan")}
    uids = {name: s.environment["NB_UID"] for name, s in people.items()}
    assert len(set(uids.values())) == 3, f"expected a uid per user, seen {uids}"
    instructor, ada = people["instructor"], people["ada"]
    assert instructor.environment["AUTOGRAD_COURSE_DB_URL"].startswith("postgresql://") and \
        "AUTOGRAD_COURSE_DB_URL" not in ada.environment, "only the instructor's pod gets the gradebook's URL"
    assert instructor.cpu_guarantee == 2 and ada.cpu_guarantee is None
    assert instructor.extra_container_config["securityContext"]["seccompProfile"]["type"] == "Unconfined"
    assert ada.environment["NB_GID"] == ada.environment["NB_UID"] != instructor.environment["NB_GID"]
    # The layout Job gives the exchange to the same instructor and graders' group.
    job = (Z2JH / "exchange.yaml").read_text()
    assert f"chown {uids['instructor']}:{instructor.environment['NB_GID']} autograd-course/inbound" in job
    assert f"chown {uids['instructor']}:{uids['instructor']} autograd-course " in job


def test_the_values_validate_against_the_charts_own_schema(values):
    chart = os.environ.get("AUTOGRAD_Z2JH_CHART")
    if not chart:
        pytest.skip("the Zero to JupyterHub chart is not on PyPI, npm or Debian: set AUTOGRAD_Z2JH_CHART to a "
                    "checkout of its jupyterhub/ directory to validate against its values.schema.yaml")
    schema = yaml.safe_load((Path(chart) / "values.schema.yaml").read_text())
    merged = _merge(yaml.safe_load((Path(chart) / "values.yaml").read_text()), values)
    errors = [f"{'.'.join(map(str, e.path))}: {e.message}" for e in jsonschema.Draft7Validator(schema).iter_errors(merged)]
    assert not errors, "deploy/z2jh/values.yaml against the chart's schema:\n" + "\n".join(errors)


def _merge(base, over):
    """helm's merge of values: maps merge key by key, anything else replaces, null removes."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        elif value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out
