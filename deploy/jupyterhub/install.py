#!/usr/bin/env python3
"""Set up the course's JupyterHub on this machine (as root; Debian or Ubuntu).

    sudo python3 deploy/jupyterhub/install.py all            # every step, in this order:
    sudo python3 deploy/jupyterhub/install.py packages [--with-postgresql]
                                              env proxy accounts exchange instructor
                                              gradebook config service

Settings come from /etc/autograd-course/hub.env (AUTOGRAD_HUB_CONFIG_DIR
moves it; hub.env.example lists them with their defaults).  Every step can
run again: it brings the machine to the state it describes and keeps what is
already right (existing accounts, the instructor's course directory).

packages    apt-get: bubblewrap, git, make, python3-venv, Node.js and npm (and PostgreSQL)
env         <prefix>/env: the hub, JupyterLab, nbgrader and the course (pip install <repository>),
            with the students' nbgrader extensions and the exchange's settings
proxy       <prefix>/proxy: configurable-http-proxy from npm (package.json beside this file)
accounts    Unix accounts of the instructor and of every roster student, homes 0700; a new
            account gets a random password, written to <state>/initial-passwords.csv (0600)
exchange    nbgrader's exchange: the root world-writable with the sticky bit, the course's
            outbound, inbound and feedback owned by the instructor (inbound: the graders' group)
instructor  the course directory in the instructor's home (a copy of this repository, with its
            .venv), formgrader switched on for the instructor, nbgrader's settings
gradebook   with a PostgreSQL AUTOGRAD_COURSE_DB_URL: its role and database on the local server,
            the password in the instructor's ~/.pgpass (nothing to do for sqlite)
config      jupyterhub_config.py, hubsettings.py and hub.env in the configuration directory
service     a systemd unit autograd-course-hub, enabled and started (where systemd runs)
"""

import argparse
import csv
import grp
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import hubsettings  # noqa: E402

STEPS = ["packages", "env", "proxy", "accounts", "exchange", "instructor", "gradebook", "config", "service"]
COURSE_CHECKOUT = "autograd-course"             # the instructor's copy of the repository, in their home
UNIT = "autograd-course-hub"
# Lab plugins and server extensions of nbgrader that only the instructor gets.
INSTRUCTOR_PLUGINS = ["formgrader", "create-assignment", "course-list"]
INSTRUCTOR_SERVER_EXTENSIONS = ["nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list"]


def say(message):
    print(f"install: {message}", flush=True)


def run(command, **kwargs):
    say("$ " + " ".join(map(str, command)))
    return subprocess.run([str(c) for c in command], check=True, **kwargs)


def as_user(user, command, **kwargs):
    """``command`` as the Unix account ``user``, in its home, with a plain environment."""
    entry = pwd.getpwnam(user)
    env = {"HOME": entry.pw_dir, "USER": user, "LOGNAME": user, "SHELL": "/bin/bash",
           "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": os.environ.get("LANG", "C.UTF-8")}
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})   # the site's pip settings
    env.update(kwargs.pop("env", {}))
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    return run([runuser, "-u", user, "--", *command], env=env, cwd=kwargs.pop("cwd", entry.pw_dir), **kwargs)


class Installer:
    def __init__(self, settings):
        self.s = settings
        self.prefix = Path(settings["AUTOGRAD_HUB_PREFIX"])
        self.env = self.prefix / "env"
        self.state = Path(settings["AUTOGRAD_HUB_STATE"])
        self.config_dir = hubsettings.config_dir()
        self.course_id = settings["AUTOGRAD_HUB_COURSE_ID"]
        self.exchange = Path(settings["AUTOGRAD_HUB_EXCHANGE"])
        self.instructor = settings["AUTOGRAD_HUB_INSTRUCTOR"]
        self.graders = settings["AUTOGRAD_HUB_GRADERS_GROUP"]

    # ------------------------------------------------------------ packages

    def packages(self, with_postgresql=False):
        wanted = {"bwrap": "bubblewrap", "git": "git", "make": "make", "runuser": "util-linux"}
        if not shutil.which("node") or not shutil.which("npm"):
            wanted.update(node="nodejs", npm="npm")
        missing = sorted({package for tool, package in wanted.items() if not shutil.which(tool)})
        python = self.s["AUTOGRAD_HUB_PYTHON"]
        if subprocess.run([python, "-c", "import ensurepip, venv"], capture_output=True).returncode:
            missing.append("python3-venv")
        if with_postgresql and not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
            missing += ["postgresql", "postgresql-client"]
        if missing:
            env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
            install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing]
            if subprocess.run(install, env=env).returncode:
                run(["apt-get", "update", "-qq"], env=env)
                run(install, env=env)
        version = subprocess.run([python, "-c", "import sys; print(sys.version_info >= (3, 11))"],
                                 capture_output=True, text=True).stdout.strip()
        if version != "True":
            raise SystemExit(f"{python} must be Python >= 3.11 (nbgrader 0.9.6 needs it): "
                             f"set AUTOGRAD_HUB_PYTHON in hub.env")

    # ----------------------------------------------------------------- env

    def env_(self):
        python = self.s["AUTOGRAD_HUB_PYTHON"]
        if not (self.env / "bin" / "python").exists():
            self.prefix.mkdir(parents=True, exist_ok=True)
            run([python, "-m", "venv", self.env])
        pip = [self.env / "bin" / "python", "-m", "pip", "--quiet", "--disable-pip-version-check"]
        run([*pip, "install", "--no-compile", "-r", HERE / "requirements.txt"])
        # The course itself, not editable: the students' servers read nothing of this checkout.
        run([*pip, "install", "--no-compile", "--no-deps", "--force-reinstall", self.s.get("AUTOGRAD_HUB_PACKAGE") or REPO])
        jupyter = self.env / "bin" / "jupyter"
        plugins = [f"@jupyter/nbgrader:{name}" for name in INSTRUCTOR_PLUGINS]
        run([jupyter, "labextension", "disable", "--level=sys_prefix", *plugins])
        run([jupyter, "server", "extension", "disable", "--sys-prefix", *INSTRUCTOR_SERVER_EXTENSIONS])
        run([jupyter, "server", "extension", "enable", "--sys-prefix",
             "nbgrader.server_extensions.assignment_list", "nbgrader.server_extensions.validate_assignment"])
        config = self.env / "etc" / "jupyter" / "nbgrader_config.py"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            '"""nbgrader settings of every user of the class environment (install.py env writes it)."""\n'
            "c = get_config()  # noqa: F821\n"
            f"c.Exchange.root = {str(self.exchange)!r}\n"
            f"c.CourseDirectory.course_id = {self.course_id!r}\n"
            "# Submissions readable by the student and the graders' group only (autograd_course/exchange.py).\n"
            'c.ExchangeFactory.submit = "autograd_course.exchange.PrivateSubmit"\n', encoding="utf-8")
        for path in (self.prefix, self.env):
            path.chmod(0o755)

    # --------------------------------------------------------------- proxy

    def proxy(self):
        target = self.prefix / "proxy"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(HERE / "package.json", target / "package.json")
        run(["npm", "install", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"], cwd=target)
        if not (target / "node_modules" / ".bin" / "configurable-http-proxy").exists():
            raise SystemExit(f"npm did not install configurable-http-proxy into {target}")

    # ------------------------------------------------------------ accounts

    def roster(self):
        path = Path(self.s["AUTOGRAD_HUB_ROSTER"])
        if not path.is_file():
            raise SystemExit(f"no roster at {path}: one student a line, username[,full name] "
                             f"(see {HERE / 'roster.example.csv'})")
        return hubsettings.roster(path)

    def accounts(self):
        self.state.mkdir(parents=True, exist_ok=True)
        self.state.chmod(0o700)
        if not _group_exists(self.graders):
            run(["groupadd", "--system", self.graders])
        people = [(self.instructor, f"{self.course_id} instructor")] + \
                 [(name, full or f"{self.course_id} student") for name, full in self.roster()]
        created = []
        for name, full in people:
            if not _user_exists(name):
                run(["useradd", "--create-home", "--shell", "/bin/bash", "--comment", full.replace(":", " "), name])
                password = secrets.token_urlsafe(12)
                run(["chpasswd"], input=f"{name}:{password}\n", text=True)
                created.append((name, password))
            Path(pwd.getpwnam(name).pw_dir).chmod(0o700)         # nobody else reads a home
        run(["usermod", "--append", "--groups", self.graders, self.instructor])
        if created:
            passwords = self.state / "initial-passwords.csv"
            new = not passwords.exists()
            with open(os.open(passwords, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "w", newline="") as fh:
                writer = csv.writer(fh)
                if new:
                    writer.writerow(["username", "initial password"])
                writer.writerows(created)
            say(f"{len(created)} new account(s); their initial passwords are in {passwords}")

    # ------------------------------------------------------------ exchange

    def exchange_(self):
        """nbgrader's layout, created ahead so that no student can take a name first."""
        instructor = pwd.getpwnam(self.instructor)
        graders = grp.getgrnam(self.graders).gr_gid
        self.exchange.mkdir(parents=True, exist_ok=True)
        os.chown(self.exchange, 0, 0)
        self.exchange.chmod(0o1777)         # nbgrader wants it writable by all; the sticky bit keeps names
        course = self.exchange / self.course_id
        layout = [(course, 0o755, instructor.pw_gid), (course / "outbound", 0o755, instructor.pw_gid),
                  (course / "inbound", 0o3733, graders),    # students add, nobody lists, group inherited
                  (course / "feedback", 0o711, instructor.pw_gid)]
        for path, mode, gid in layout:
            path.mkdir(exist_ok=True)
            os.chown(path, instructor.pw_uid, gid)
            path.chmod(mode)

    # ---------------------------------------------------------- instructor

    def checkout(self):
        return Path(pwd.getpwnam(self.instructor).pw_dir) / COURSE_CHECKOUT

    def instructor_(self):
        user = pwd.getpwnam(self.instructor)
        home, checkout = Path(user.pw_dir), self.checkout()
        if not checkout.exists():
            _copy_repository(checkout)
            run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", checkout])
        as_user(self.instructor, ["make", "-C", checkout, "venv"])
        if self.s["AUTOGRAD_COURSE_DB_URL"].startswith("postgresql"):
            requirement = next(line.split("#")[0].strip() for line in (HERE / "requirements.txt").read_text().splitlines()
                               if line.startswith("psycopg["))
            as_user(self.instructor, [checkout / ".venv" / "bin" / "pip", "install", "--quiet", requirement])
        course = checkout / "course"
        files = {
            ".jupyter/nbgrader_config.py":
                '"""The instructor\'s nbgrader: the course directory and the exchange (install.py instructor)."""\n'
                "c = get_config()  # noqa: F821\n"
                f"load_subconfig({str(course / 'nbgrader_config.py')!r})  # noqa: F821\n"
                f"c.Exchange.root = {str(self.exchange)!r}\n",
            # formgrader, the course list and Create Assignment: switched off for the class, on here.
            ".jupyter/jupyter_server_config.d/autograd-course-instructor.json":
                _json({"ServerApp": {"jpserver_extensions": {e: True for e in INSTRUCTOR_SERVER_EXTENSIONS}}}),
            ".jupyter/labconfig/page_config.json":
                _json({"disabledExtensions": {f"@jupyter/nbgrader:{n}": False for n in INSTRUCTOR_PLUGINS}}),
        }
        for relative, text in files.items():
            path = home / relative
            as_user(self.instructor, ["mkdir", "-p", path.parent])
            as_user(self.instructor, ["tee", path], input=text, text=True, stdout=subprocess.DEVNULL)

    # ----------------------------------------------------------- gradebook

    def gradebook(self):
        url = self.s["AUTOGRAD_COURSE_DB_URL"]
        if not url.startswith("postgresql"):
            say("the gradebook is sqlite (course/gradebook.db in the instructor's course directory): nothing to do")
            return
        parts = urllib.parse.urlsplit(url)
        role, database = parts.username, parts.path.lstrip("/")
        host, port = parts.hostname or "localhost", parts.port or 5432
        if parts.password:
            raise SystemExit("AUTOGRAD_COURSE_DB_URL must not hold the password (it goes to ~/.pgpass)")
        password = secrets.token_urlsafe(18)
        admin = [shutil.which("runuser") or "/usr/sbin/runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1",
                 "-h", self.s.get("AUTOGRAD_HUB_PGADMIN_HOST") or "/var/run/postgresql", "-p", str(port)]
        sql = (f"SELECT 'CREATE ROLE \"{role}\" LOGIN' WHERE NOT EXISTS "
               f"(SELECT FROM pg_roles WHERE rolname = '{role}') \\gexec\n"
               f"ALTER ROLE \"{role}\" PASSWORD '{password}';\n"
               f"SELECT 'CREATE DATABASE \"{database}\" OWNER \"{role}\"' WHERE NOT EXISTS "
               f"(SELECT FROM pg_database WHERE datname = '{database}') \\gexec\n"
               f"REVOKE ALL ON DATABASE \"{database}\" FROM PUBLIC;\n")
        say(f"role {role} and database {database} on {host}:{port}")
        subprocess.run([*admin, "-d", "postgres"], input=sql, text=True, check=True, cwd="/")
        line = f"{host}:{port}:{database}:{role}:{password}\n"
        home = Path(pwd.getpwnam(self.instructor).pw_dir)
        as_user(self.instructor, ["sh", "-c", f"umask 077 && cat > {home / '.pgpass'}"], input=line, text=True)

    # -------------------------------------------------------------- config

    def config(self):
        self.config_dir.mkdir(parents=True, exist_ok=True)
        self.config_dir.chmod(0o755)
        for name in ("jupyterhub_config.py", "hubsettings.py", "hub.env.example"):
            shutil.copy2(HERE / name, self.config_dir / name)
        if not (self.config_dir / "hub.env").exists():
            shutil.copy2(HERE / "hub.env.example", self.config_dir / "hub.env")
        (self.config_dir / "jupyterhub_config.d").mkdir(exist_ok=True)
        self.state.mkdir(parents=True, exist_ok=True)
        self.state.chmod(0o700)

    def command(self):
        return [str(self.env / "bin" / "jupyterhub"), "-f", str(self.config_dir / "jupyterhub_config.py")]

    # ------------------------------------------------------------- service

    def service(self):
        if not Path("/run/systemd/system").is_dir():
            say("systemd does not run this machine: start the hub as root with\n    "
                f"cd {self.state} && {' '.join(self.command())}")
            return
        unit = (f"[Unit]\nDescription=JupyterHub of {self.course_id}\nAfter=network.target\n\n"
                f"[Service]\nUser=root\nWorkingDirectory={self.state}\n"
                f"Environment={hubsettings.CONFIG_DIR_ENV}={self.config_dir}\n"
                f"ExecStart={' '.join(self.command())}\nRestart=on-failure\n\n"
                f"[Install]\nWantedBy=multi-user.target\n")
        Path(f"/etc/systemd/system/{UNIT}.service").write_text(unit, encoding="utf-8")
        run(["systemctl", "daemon-reload"])
        run(["systemctl", "enable", "--now", UNIT])
        run(["systemctl", "restart", UNIT])


def _json(value):
    import json
    return json.dumps(value, indent=1) + "\n"


def _user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def _group_exists(name):
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def _copy_repository(dest):
    """The repository's files (git's tracked and untracked-but-not-ignored ones in
    a checkout, so local changes come along) into ``dest``."""
    if (REPO / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=REPO, capture_output=True, check=True).stdout.decode()
        files = [REPO / name for name in listed.split("\0") if name and (REPO / name).is_file()]
    else:
        skip = {".git", ".venv", "artifacts", "__pycache__", "build", "dist"}
        files = [p for p in REPO.rglob("*") if p.is_file() and not skip & set(p.relative_to(REPO).parts)]
    for path in files:
        target = dest / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    say(f"copied the repository ({len(files)} files) to {dest}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("steps", nargs="+", choices=["all", *STEPS], metavar="STEP")
    parser.add_argument("--with-postgresql", action="store_true", help="packages: also Debian's PostgreSQL")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("install.py makes accounts and directories: run it as root (sudo)")
    settings = hubsettings.load()
    installer = Installer(settings)
    steps = STEPS if "all" in args.steps else [s for s in STEPS if s in args.steps]
    for step in steps:
        say(f"--- {step}")
        if step == "packages":
            installer.packages(args.with_postgresql or settings["AUTOGRAD_COURSE_DB_URL"].startswith("postgresql"))
        else:
            getattr(installer, {"env": "env_", "exchange": "exchange_", "instructor": "instructor_"}.get(step, step))()
    return 0


if __name__ == "__main__":
    sys.exit(main())
