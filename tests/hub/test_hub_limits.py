"""The hub's limits on how many at once (deploy/jupyterhub: hubsettings.active_server_limit and
jupyterhub_config.py), checked without a hub: the load test (test_load.py, run 5) checks them on
a real one."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2] / "deploy" / "jupyterhub"
sys.path.insert(0, str(HERE))
import hubsettings  # noqa: E402

GIB = 1024 ** 3


def meminfo(tmp_path, gib):
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal:       {gib * 1024 * 1024} kB\nMemFree:        1000 kB\n")
    return path


@pytest.mark.parametrize("value, gib, expected", [
    ("auto", 24, (24 * GIB - 4 * GIB) // (320 * 1024 ** 2)),   # the defaults: 64 on 24 GiB
    ("auto", 4, 1),                                              # less than the reserve: still one
    ("12", 24, 12), ("0", 24, 0), ("", 24, 0),
])
def test_active_server_limit(tmp_path, value, gib, expected):
    settings = hubsettings.load(HERE / "hub.env.example", environ={"AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT": value})
    seen = hubsettings.active_server_limit(settings, meminfo=meminfo(tmp_path, gib))
    assert seen == expected, f"AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT={value!r} on {gib} GiB: expected {expected}, seen {seen}"


def test_a_wrong_limit_is_refused(tmp_path):
    with pytest.raises(ValueError, match="expected a number or auto, seen 'many'"):
        hubsettings.active_server_limit({"AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT": "many"}, meminfo=meminfo(tmp_path, 8))
    with pytest.raises(ValueError, match="needs AUTOGRAD_HUB_SERVER_MEMORY"):
        hubsettings.active_server_limit({"AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT": "auto", "AUTOGRAD_HUB_SERVER_MEMORY": ""},
                                        meminfo=meminfo(tmp_path, 8))


def test_the_configuration_sets_the_limits_and_keeps_servers_across_restarts(tmp_path, monkeypatch):
    traitlets = pytest.importorskip("traitlets.config.loader", reason="traitlets (Jupyter's) loads the hub's config")
    (tmp_path / "hub.env").write_text("AUTOGRAD_HUB_CONCURRENT_SPAWN_LIMIT=7\nAUTOGRAD_HUB_ACTIVE_SERVER_LIMIT=30\n"
                                      f"AUTOGRAD_HUB_ROSTER={tmp_path / 'none.csv'}\n"
                                      "AUTOGRAD_HUB_SPAWNER=systemd\n")   # (local imports JupyterHub's spawner)
    for name in ("jupyterhub_config.py", "hubsettings.py", "hub.env.example"):
        (tmp_path / name).write_text((HERE / name).read_text())
    monkeypatch.setenv("AUTOGRAD_HUB_CONFIG_DIR", str(tmp_path))
    config = traitlets.PyFileConfigLoader("jupyterhub_config.py", path=str(tmp_path)).load_config()
    seen = (config.JupyterHub.concurrent_spawn_limit, config.JupyterHub.active_server_limit,
            config.JupyterHub.cleanup_servers)
    assert seen == (7, 30, False), f"expected the limits from hub.env and cleanup_servers off, seen {seen}"
