"""The settings of the course's hub: ``hub.env`` (KEY=VALUE lines), read by
``install.py`` and by ``jupyterhub_config.py``.

Every key has its default in ``hub.env.example`` beside this file; a setting in
``hub.env`` overrides it, and an environment variable of the same name
overrides both (the test, tests/hub/, sets its ports and paths that way).
Standard library only: it runs in the hub's Python and in the installer's.
"""

import os
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE / "hub.env.example"
CONFIG_DIR_ENV = "AUTOGRAD_HUB_CONFIG_DIR"
DEFAULT_CONFIG_DIR = "/etc/autograd-course"
SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$", re.IGNORECASE)


def parse(text):
    """{KEY: value} of KEY=VALUE lines; blank lines and # comments are skipped."""
    values = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", key.strip()):
            raise ValueError(f"line {number}: expected KEY=VALUE, seen {line!r}")
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def config_dir(environ=None):
    environ = os.environ if environ is None else environ
    return Path(environ.get(CONFIG_DIR_ENV) or DEFAULT_CONFIG_DIR)


def load(path=None, environ=None):
    """The settings: hub.env.example, then ``path`` (default: <config dir>/hub.env,
    when it exists), then the environment."""
    environ = os.environ if environ is None else environ
    settings = parse(EXAMPLE.read_text(encoding="utf-8"))
    path = Path(path) if path else config_dir(environ) / "hub.env"
    if path.is_file():
        settings.update(parse(path.read_text(encoding="utf-8")))
    settings.update({k: v for k, v in environ.items() if k in settings})
    return settings


def size_bytes(text):
    """'2G' -> 2147483648 (K, M, G, T are powers of 1024); '' or '0' -> None (no limit)."""
    if not text or text.strip() in ("0", "none", "None"):
        return None
    match = SIZE.match(text)
    if not match:
        raise ValueError(f"expected a size such as 512M or 2G, seen {text!r}")
    number, unit = float(match.group(1)), match.group(2).upper()
    return int(number * 1024 ** " KMGT".index(unit or " "))


def memory_total(meminfo="/proc/meminfo"):
    """The machine's memory in bytes (MemTotal)."""
    match = re.search(r"^MemTotal:\s+(\d+)\s*kB", Path(meminfo).read_text(), re.MULTILINE)
    if not match:
        raise ValueError(f"no MemTotal in {meminfo}")
    return int(match.group(1)) * 1024


def active_server_limit(settings, meminfo="/proc/meminfo"):
    """JupyterHub's active_server_limit from AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT: a number
    (0: no limit), or ``auto``: the servers the machine's memory holds once
    AUTOGRAD_HUB_RESERVED_MEMORY is set aside (the hub, grading, the system), each
    counted at AUTOGRAD_HUB_SERVER_MEMORY; at least 1."""
    value = (settings.get("AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT") or "0").strip()
    if value.lower() != "auto":
        if not value.isdigit():
            raise ValueError(f"AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT: expected a number or auto, seen {value!r}")
        return int(value)
    per_server = size_bytes(settings.get("AUTOGRAD_HUB_SERVER_MEMORY", ""))
    if not per_server:
        raise ValueError("AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT=auto needs AUTOGRAD_HUB_SERVER_MEMORY (such as 400M)")
    reserved = size_bytes(settings.get("AUTOGRAD_HUB_RESERVED_MEMORY", "")) or 0
    return max(1, (memory_total(meminfo) - reserved) // per_server)


def roster(path):
    """[(username, full name)] of a roster file: one student a line, ``username[,full name]``;
    blank lines, # comments and a header line ``username,...`` are skipped."""
    students = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, full = (part.strip() for part in line.partition(","))
        if name.lower() == "username":
            continue
        if not re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", name):
            raise ValueError(f"{path}:{number}: {name!r} is not a valid Unix user name "
                             f"(lower-case letters, digits, - and _, at most 32)")
        students.append((name, full))
    return students
