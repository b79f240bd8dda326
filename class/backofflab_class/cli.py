"""scripts/class: a class on this machine. Standard library only: it runs before the class's
Python environment exists (it makes it).

    scripts/class --roster FILE [--ip ADDR] [--port N] [--instructor NAME] [options]
    scripts/class --stop [--instance NAME]

See `scripts/class --help` and README's "A class on one machine".
"""

import argparse
import hashlib
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from . import configgen, homes, limits, procs, roster

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_GOCACHE = "/var/cache/backofflab/gocache"
INSTANCE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,30}$")
COURSE = "backofflab"
MARKS = ("BACKOFFLAB_PROC_TAG", "BACKOFFLAB_TEST_RUN")  # what finds the processes a test started
SERVER_PORTS = (600, 900)  # the learners' servers (below 1024: no learner can bind them)
HUB_PORTS = (900, 1000)  # the hub's own API and the proxy's API

HELP = """\
Gives a class the lessons on this machine: JupyterHub with one private system account per learner.
Needs root (it creates the accounts). It

  - creates an account for every line of the roster (CSV: username,display name; a header line
    "username,..." and lines starting with # are skipped), with a home directory only its owner
    can read, and a fresh password, printed at the end (and kept in
    .cache/class/NAME/state/passwords.csv, readable by root only);
  - creates the instructor's account (--instructor, default: instructor) with an nbgrader course in
    ~/course: the three exercise notebooks as the assignment "waves", the formgrader at
    /user/NAME/formgrader; autograde runs each submission's kernel in a sandbox account of its own
    (blg-NAME), never as the instructor;
  - starts JupyterHub and configurable-http-proxy in the background, on 127.0.0.1:8000 (--ip,
    --port); the hub's own API and the learners' servers listen on 127.0.0.1 only;
  - on a learner's first login copies the lessons into their home, as the learner.

Every server runs the kernel "Go (Backoff Lab)" in class mode (scripts/kernel: no gopls, lean
links, CPU and memory limits per process, no cgo); "Go (Backoff Lab, completion)" keeps gopls.
Each learner may have at most --processes processes and --memory-mb MiB a process (rlimits; see
class/backofflab_class/limits.py). Finished cell programs are shared (class/backofflab_class/cells.py:
a daemon under an account of its own, blc-NAME, builds each cell once), and every account builds
against one read-only build cache (class/gocacheprog). The servers are forked from one preloaded
process (class/backofflab_class/zygote.py).

--stop stops the hub, the proxy, every server and kernel, archives each home to
.cache/class/NAME/archive/STAMP/USER.tar.gz (root only; without caches; as the learner, holes of
sparse files kept as holes, at most --archive-mb each), removes each account's files from the
shared temporary folders, and removes the accounts this command created.
"""


def say(msg):
    print("class: %s" % msg, file=sys.stderr, flush=True)


class Fail(Exception):
    """The command cannot go on; the message says what to do."""


def run(cmd, check=True, quiet=False, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE if quiet else None, stderr=subprocess.STDOUT if quiet else None, **kw)
    if check and p.returncode != 0:
        raise Fail("%s failed (exit %d)%s" % (" ".join(cmd[:4]), p.returncode, (":\n" + p.stdout.decode(errors="replace")[-2000:]) if quiet and p.stdout else ""))
    return p


def runuser(user, cmd, env=None, **kw):
    """cmd as the account user, with only env (and a fresh login's HOME, USER, LOGNAME)."""
    pw = pwd.getpwnam(user)
    base = {"HOME": pw.pw_dir, "USER": user, "LOGNAME": user, "LANG": "C.UTF-8", "PATH": "/usr/local/bin:/usr/bin:/bin",
            "PYTHONDONTWRITEBYTECODE": "1"}
    base.update(env or {})
    return run(["runuser", "-u", user, "--", "env", "-i"] + ["%s=%s" % kv for kv in base.items()] + list(cmd), cwd="/", **kw)


def free_port(port, host="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def pick_port(low, high, taken=()):
    for p in range(low, high):
        if p not in taken and free_port(p):
            return p
    raise Fail("no free port from %d to %d on 127.0.0.1" % (low, high - 1))


def write_private(path, text, mode=0o600):
    """Writes a file of root's (never through a link), atomically."""
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


class Class:
    """One class on this machine: its folders, its accounts and its processes."""

    def __init__(self, instance):
        if not INSTANCE_RE.match(instance):
            raise Fail("--instance must be lower-case letters, digits, - and _ (at most 31, starting with a letter or digit), got %r" % instance)
        self.instance = instance
        self.shared = os.path.join(REPO, ".cache", "class")  # readable by every account: Python, caches, configuration
        self.dir = os.path.join(self.shared, instance)  # this class's configuration and nbgrader exchange
        self.state = os.path.join(self.dir, "state")  # root only: the hub's database and secrets, passwords, logs
        self.logs = os.path.join(self.state, "logs")
        self.venv = os.path.join(self.shared, "venv")
        self.python = os.path.join(self.venv, "bin", "python")
        self.gocache = DEFAULT_GOCACHE  # --gocache: the build cache every account builds against, read-only but to root
        self.gocacheprog = os.path.join(self.shared, "bin", "gocacheprog")
        self.cells_user = "blc-" + instance[:27]
        self.grader_user = "blg-" + instance[:27]
        self.cells_dir = "/var/cache/backofflab/cells-" + instance
        self.grader_dir = "/var/cache/backofflab/grader-" + instance
        self.exchange = os.path.join(self.dir, "exchange")
        self.config = os.path.join(self.dir, "config")
        self.info_path = os.path.join(self.state, "class.json")

    # --- state ---

    def info(self):
        try:
            with open(self.info_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            pass
        info = {"accounts": []}
        # (a class started by the shell script this command replaced: its accounts and run mark)
        for name, key in (("accounts", "accounts"), ("run", "run")):
            try:
                with open(os.path.join(self.state, name)) as f:
                    lines = [l.strip() for l in f if l.strip()]
            except OSError:
                continue
            info[key] = lines if key == "accounts" else (lines[0] if lines else "")
        return info

    def save(self, info):
        write_private(self.info_path, json.dumps(info, indent=1) + "\n")

    def make_dirs(self):
        for d, mode in ((self.shared, 0o755), (self.dir, 0o755), (self.state, 0o700)):
            os.makedirs(d, exist_ok=True)
            st = os.lstat(d)
            if not os.path.isdir(d) or os.path.islink(d) or st.st_uid != 0:
                raise Fail("%s must be a folder of root's" % d)
            os.chmod(d, mode)

    # --- start ---

    def start(self, a):
        self.make_dirs()
        info = self.info()
        hub = info.get("hub_pid")
        if hub and procs.status(hub) and procs.has_env(hub, "BACKOFFLAB_CLASS_RUN", info.get("run", "")):
            raise Fail("a class %r is already running (hub pid %d): scripts/class --stop%s first" % (
                self.instance, hub, "" if self.instance == "main" else " --instance " + self.instance))
        with open(a.roster) as f:
            learners = roster.parse(f.read(), a.instructor, reserved=(self.cells_user, self.grader_user))
        names = [u for u, _ in learners]
        for u in names + [a.instructor, self.cells_user, self.grader_user]:
            try:
                pwd.getpwnam(u)
            except KeyError:
                continue
            if u not in info["accounts"]:
                raise Fail("an account named %r already exists on this machine and was not made by this command: rename it in the roster" % u)
        probe = run(["runuser", "-u", "nobody", "--", "test", "-r", os.path.join(REPO, "scripts", "kernel")], check=False, quiet=True)
        if probe.returncode != 0:
            raise Fail("the checkout %s is not readable by other accounts (a parent folder is private, e.g. /root): clone it somewhere "
                       "like /srv/backofflab, or chmod o+rx each parent folder" % REPO)
        if not free_port(a.port, "0.0.0.0" if a.ip in ("0.0.0.0", "::") else ("127.0.0.1" if ":" in a.ip else a.ip)):
            raise Fail("port %d is taken: choose another with --port" % a.port)

        run([os.path.join(REPO, "scripts", "setup")])
        if not os.access(os.path.join(REPO, "node_modules", ".bin", "configurable-http-proxy"), os.X_OK):
            if not shutil.which("npm"):
                raise Fail("npm is needed to fetch configurable-http-proxy: apt-get install npm")
            say("fetching configurable-http-proxy from the npm registry")
            run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=REPO, quiet=True)
        os.umask(0o022)
        self.make_venv(a.python)
        self.gocache = a.gocache
        self.warm(a.gomodcache)

        # Fresh for this run: the logs, the exchange, the configuration.
        shutil.rmtree(self.logs, ignore_errors=True)
        os.mkdir(self.logs, 0o700)
        for d in (self.exchange, self.config, self.cells_dir, self.grader_dir):
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(self.exchange)
        os.chmod(self.exchange, 0o1777)  # nbgrader wants it writable by all; the course folder in it is the instructor's
        self.write_config(a)

        # The accounts.
        passwords = []
        for u, display in learners:
            self.make_account(info, u, display)
            passwords.append((u, display, self.set_password(u)))
        self.make_account(info, a.instructor, "Instructor")
        passwords.append((a.instructor, "Instructor", self.set_password(a.instructor)))
        for u, what in ((self.cells_user, "Backoff Lab cell programs"), (self.grader_user, "Backoff Lab grading sandbox")):
            self.make_account(info, u, what, login=False)
        import csv
        import io
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(passwords)
        write_private(os.path.join(self.state, "passwords.csv"), buf.getvalue())
        for u, _ in learners:  # the saved lessons' charts draw when opened
            runuser(u, [os.path.join(self.venv, "bin", "jupyter"), "trust"] + sorted(
                os.path.join(REPO, "notebooks", n) for n in os.listdir(os.path.join(REPO, "notebooks")) if n.endswith(".ipynb")), check=False, quiet=True)
        self.make_course(a.instructor, learners)
        cgroups, why = None, "--no-cgroups" if not a.cgroups else ""
        if a.cgroups and limits.cgroup_v2_available():
            try:
                cgroups = limits.Cgroups.create("/sys/fs/cgroup", self.instance, names + [a.instructor, self.grader_user],
                                                a.learner_memory_mb, a.processes)
                info["cgroup"] = cgroups.base
            except OSError as e:
                why = "the cgroup v2 hierarchy refused the class's groups: %s" % e
        say(limits.describe(a.processes, a.memory_mb, cgroups, a.learner_memory_mb, why))
        cgroup_base = cgroups.base if cgroups else ""

        run_id = "%d-%d" % (time.time(), os.getpid())
        info.update(run=run_id, instructor=a.instructor, learners=names)
        self.save(info)
        env = self.daemon_env(run_id)
        cpu, mem = a.cpu_seconds, a.memory_mb
        kernel_env = self.kernel_env(a)
        path = self.path()

        # The cell programs' daemon, under an account of its own (see cells.py).
        os.makedirs(self.cells_dir)
        cells = pwd.getpwnam(self.cells_user)
        os.chown(self.cells_dir, cells.pw_uid, cells.pw_gid)
        os.chmod(self.cells_dir, 0o711)
        cells_sock = os.path.join(self.cells_dir, "cells.sock")
        slots = a.build_slots_per_core * os.cpu_count() if a.build_slots_per_core else 0
        cells_env = dict(env, HOME=cells.pw_dir, USER=self.cells_user, GOMODCACHE=a.gomodcache, GOPROXY="off", GOSUMDB="off",
                         GOTOOLCHAIN="local", GOFLAGS="-ldflags=-s", GOTELEMETRY="off", CGO_ENABLED="0", MALLOC_ARENA_MAX="2",
                         GOCACHEPROG=kernel_env["GOCACHEPROG"], PATH=path)
        # Ahead of the learners' own processes (nice -5): one build of the cache serves every learner.
        info["cells_pid"] = self.daemon(
            ["nice", "-n", "-5", "runuser", "-u", self.cells_user, "--", "env", "-i"] + ["%s=%s" % kv for kv in cells_env.items()] +
            [self.python, "-m", "backofflab_class.cells", "serve", "--socket", cells_sock, "--cache", self.cells_dir, "--repo", REPO,
             "--programs", "on" if a.cell_cache else "off", "--slots", str(slots), "--cpu", str(cpu), "--memory", str(mem)],
            "cells.log", cells_sock, "the cell programs' daemon")

        # The grading sandbox's daemon (root; see grader.py).
        os.makedirs(self.grader_dir)
        os.chmod(self.grader_dir, 0o755)
        grader_sock = os.path.join(self.grader_dir, "grader.sock")
        info["grader_pid"] = self.daemon(
            [self.python, "-m", "backofflab_class.grader", "serve", "--socket", grader_sock, "--instructor", a.instructor,
             "--account", self.grader_user, "--repo", REPO, "--cpu", str(cpu), "--memory-mb", str(mem), "--processes", str(a.processes),
             "--cgroup", cgroup_base] +
            ["--kernel-env=%s=%s" % kv for kv in dict(kernel_env, PATH=path, LANG="C.UTF-8", BACKOFFLAB_CELLS_SOCKET=cells_sock,
                                                       BACKOFFLAB_CELLS_PYTHON=self.python, PYTHONDONTWRITEBYTECODE="1",
                                                       **self.marks(run_id)).items()],
            "grader.log", grader_sock, "the grading sandbox", env=env)
        spec_dir = os.path.join(self.config, "instructor", "data", "kernels", "backofflab-go-grader")
        os.makedirs(spec_dir)
        with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
            f.write(configgen.kernel_spec([self.python, "-m", "backofflab_class.grader", "kernel", "{connection_file}", "--socket", grader_sock],
                                          "Go (Backoff Lab, grading sandbox)", {"PYTHONDONTWRITEBYTECODE": "1"}))

        # The servers' zygote (root; see zygote.py): thirty servers share their modules' memory.
        zygote_sock = ""
        if a.zygote:
            zygote_sock = os.path.join(self.state, "zygote.sock")
            info["zygote_pid"] = self.daemon(
                [self.python, "-m", "backofflab_class.zygote", "serve", "--socket", zygote_sock, "--preload",
                 os.path.join(REPO, "class", "preload.txt"), "--users", ",".join(names + [a.instructor]),
                 "--processes", str(a.processes), "--memory-mb", str(mem), "--cgroup", cgroup_base],
                "zygote.log", zygote_sock, "the servers' zygote", timeout=120,
                env=dict(env, HOME="/nonexistent/backofflab-zygote", USER="backofflab-zygote"))
        self.save(info)

        # The hub.
        hub_port = pick_port(*HUB_PORTS)
        proxy_port = pick_port(*HUB_PORTS, taken=(hub_port,))
        server_env = dict(kernel_env, PATH=path, LANG="C.UTF-8",
                          BACKOFFLAB_CLASS="1" if a.kernel == "class" else "0", BACKOFFLAB_CPU_SECONDS=str(cpu), BACKOFFLAB_MEMORY_MB=str(mem),
                          BACKOFFLAB_CELLS_SOCKET=cells_sock if a.kernel == "class" else "", BACKOFFLAB_CELLS_PYTHON=self.python,
                          PYTHONDONTWRITEBYTECODE="1", **self.marks(run_id))
        text = configgen.hub_config({
            "instance": self.instance, "ip": a.ip, "port": a.port, "hub_port": hub_port,
            "db_url": "sqlite:///" + os.path.join(self.state, "jupyterhub.sqlite"),
            "cookie_secret": os.path.join(self.state, "cookie_secret"), "pid_file": os.path.join(self.state, "jupyterhub.pid"),
            "proxy_command": [os.path.join(REPO, "node_modules", ".bin", "configurable-http-proxy")],
            "proxy_api_url": "http://127.0.0.1:%d" % proxy_port, "proxy_pid_file": os.path.join(self.state, "proxy.pid"),
            "learners": names, "instructor": a.instructor, "zygote_socket": zygote_sock, "python": self.python,
            "log_dir": self.logs, "processes": a.processes, "memory_mb": mem, "port_range": SERVER_PORTS, "repo": REPO, "cgroup_base": cgroup_base,
            "server_config": {"learner": {"JUPYTER_CONFIG_PATH": os.path.join(self.config, "learner")},
                              "instructor": {"JUPYTER_CONFIG_PATH": os.path.join(self.config, "instructor"),
                                             "JUPYTER_PATH": os.path.join(self.config, "instructor", "data")}},
            "environment": server_env})
        hub_config = os.path.join(self.state, "jupyterhub_config.py")
        write_private(hub_config, text)
        say("starting JupyterHub on %s:%d (%s kernel)" % (a.ip, a.port, a.kernel))
        hub_env = dict(env)
        info["hub_pid"] = self.daemon([os.path.join(self.venv, "bin", "jupyterhub"), "-f", hub_config], "hub.log", None, "JupyterHub",
                                      env=hub_env, cwd=self.state)
        self.save(info)
        host = "127.0.0.1" if a.ip in ("0.0.0.0", "::") else a.ip
        url = "http://%s:%d" % ("[%s]" % host if ":" in host else host, a.port)
        self.wait_hub(url, info["hub_pid"])

        print()
        print("  Backoff Lab class: %s/hub/login   (stop it with: scripts/class --stop%s)" % (url, "" if self.instance == "main" else " --instance " + self.instance))
        if a.ip in ("127.0.0.1", "::1"):
            print("  (this machine only; --ip ADDR opens it to the classroom network)")
        print()
        print("  %-20s %-28s %s" % ("user name", "display name", "password"))
        for u, d, p in passwords:
            print("  %-20s %-28s %s" % (u, d, p))
        print()
        print("  The instructor's formgrader: %s/user/%s/formgrader" % (url, a.instructor))
        print()

    def marks(self, run_id):
        m = {"BACKOFFLAB_CLASS_RUN": run_id}
        for k in MARKS:
            if os.environ.get(k):
                m[k] = os.environ[k]
        return m

    def path(self):
        """The PATH of the class's processes: its Python, Go, the system's."""
        return "%s:%s:/usr/local/bin:/usr/bin:/bin" % (os.path.join(self.venv, "bin"), os.path.dirname(shutil.which("go")))

    def daemon_env(self, run_id):
        return dict(LANG="C.UTF-8", MALLOC_ARENA_MAX="2", PYTHONDONTWRITEBYTECODE="1", PATH=self.path(), **self.marks(run_id))

    def kernel_env(self, a):
        """What every class-mode kernel gets (the servers pass it on; the grading sandbox sets it)."""
        return {"BACKOFFLAB_GOMODCACHE": a.gomodcache, "GOTELEMETRY": "off",
                "GOCACHEPROG": "%s -shared %s" % (self.gocacheprog, self.gocache)}

    def daemon(self, cmd, log, sock, what, timeout=30, env=None, cwd="/"):
        """Starts cmd in a session of its own, its output appended to logs/LOG (root only), and
        waits up to timeout seconds for sock to appear (if any); returns its pid."""
        fd = os.open(os.path.join(self.logs, log), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, env=env if env is not None else dict(os.environ),
                                 cwd=cwd, start_new_session=True)
        finally:
            os.close(fd)
        if sock:
            deadline = time.monotonic() + timeout
            while not os.path.exists(sock):
                if p.poll() is not None or time.monotonic() > deadline:
                    raise Fail("%s did not start (log: %s):\n%s" % (what, os.path.join(self.logs, log), tail(os.path.join(self.logs, log))))
                time.sleep(0.1)
        return p.pid

    def wait_hub(self, url, pid):
        import urllib.request
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/hub/api/", timeout=10).read()
                return
            except OSError:
                pass
            if not procs.status(pid) or time.monotonic() > deadline:
                raise Fail("JupyterHub did not start (log: %s):\n%s" % (os.path.join(self.logs, "hub.log"), tail(os.path.join(self.logs, "hub.log"))))
            time.sleep(0.2)

    def make_venv(self, py):
        """A Python environment every account can run (the set-up's may sit under a private home),
        with this package on its path."""
        probe = run(["runuser", "-u", "nobody", "--", py, "-c", "import sys; sys.exit(sys.version_info < (3, 11))"], check=False, quiet=True)
        if probe.returncode != 0:
            raise Fail("the learners' servers need a Python 3.11 or newer that every account can run; %r is not one: use --python" % py)
        lock = os.path.join(REPO, "requirements", "jupyter.lock")
        with open(lock, "rb") as f:
            want = digest(run([py, "-c", "import sys; print(sys.version)"], quiet=True).stdout, f.read(), REPO)
        stamp = os.path.join(self.venv, ".stamp")
        try:
            with open(stamp) as f:
                if f.read().strip() == want:
                    return
        except OSError:
            pass
        say("installing the learners' Jupyter into .cache/class/venv from requirements/jupyter.lock (first time: about a minute)")
        shutil.rmtree(self.venv, ignore_errors=True)
        run([py, "-m", "venv", self.venv])
        run([self.python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input", "--require-hashes",
             "--no-deps", "--only-binary=:all:", "-r", lock])
        site = run([self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], quiet=True).stdout.decode().strip()
        with open(os.path.join(site, "backofflab_class.pth"), "w") as f:  # (what pip install -e would write)
            f.write(os.path.join(REPO, "class") + "\n")
        with open(stamp, "w") as f:
            f.write(want + "\n")

    def warm(self, gomod):
        """The module cache and the shared build cache, filled as root with what cells import, and
        the build cache's program (gocacheprog). Both caches read-only to every other account."""
        for flag, path in (("--gomodcache", gomod), ("--gocache", self.gocache)):
            if not os.path.isabs(path) or os.path.normpath(path) in ("/", REPO) or os.path.normpath(path).startswith(REPO + "/"):
                raise Fail("%s must be an absolute path outside the checkout, got %r" % (flag, path))
        a, b = os.path.normpath(gomod) + "/", os.path.normpath(self.gocache) + "/"
        if a.startswith(b) or b.startswith(a):
            raise Fail("--gocache and --gomodcache must be two folders, neither inside the other, got %r and %r" % (self.gocache, gomod))
        for top in (gomod, self.gocache):
            os.makedirs(top, exist_ok=True)
            os.chmod(os.path.dirname(top), os.stat(os.path.dirname(top)).st_mode | 0o055)
        go = shutil.which("go")
        files = []
        for p in ("go.mod", "go.sum", "zoo/go.mod", "zoo/go.sum"):
            try:
                with open(os.path.join(REPO, p), "rb") as f:
                    files.append(f.read())
            except OSError:
                pass
        tree = run(["git", "ls-files", "-s", "lab", "retry", "zoo", "class/gocacheprog"], cwd=REPO, quiet=True).stdout
        want = digest(run([go, "env", "GOVERSION"], quiet=True).stdout, tree, b"cgo=0", b"workspaces: the checkout, then with zoo", self.gocache, *files)
        stamp = os.path.join(self.shared, ".warm")
        try:
            with open(stamp) as f:
                fresh = f.read().strip() == want
        except OSError:
            fresh = False
        if fresh and os.path.isdir(os.path.join(gomod, "cache", "download")) and os.path.isfile(os.path.join(self.gocache, "README")) \
                and os.access(self.gocacheprog, os.X_OK):
            return
        say("warming the class's module and build caches in %s and %s (first time on this machine: a few minutes)" % (gomod, self.gocache))
        env = dict(os.environ, GOMODCACHE=gomod, GOCACHE=self.gocache, GOPROXY="file://" + os.path.join(REPO, ".cache", "goproxy"),
                   GOSUMDB="off", GOFLAGS="", GOTOOLCHAIN="local", CGO_ENABLED="0")
        env.pop("GOCACHEPROG", None)
        run([go, "mod", "download"], cwd=REPO, env=env, check=False, quiet=True)  # (the tools' own requirements need not all be there)
        if os.path.isfile(os.path.join(REPO, "zoo", "go.mod")):
            run([go, "build", "./..."], cwd=os.path.join(REPO, "zoo"), env=env)
        ws = tempfile.mkdtemp()
        try:
            # The workspaces cells build in, each built once: a kernel's go.work uses its folder and
            # the checkout (GoNB's --go_work), and lesson 13 adds zoo, whose requirements select
            # newer versions of modules the lab imports too (golang.org/x/text, k8s.io/klog/v2, ...).
            # A package built in one is a different package in the other (its dependencies' versions
            # are in its action id): warmed with zoo alone, every cell that imports lab/show
            # compiled a dozen packages again (in the cell daemon, while every learner waited).
            run([go, "mod", "init", "gonb_warm"], cwd=ws, env=env, quiet=True)
            run([go, "work", "init", ".", REPO], cwd=ws, env=env)
            pkgs = run([go, "list", "-f", '_ "{{.ImportPath}}"', "./lab/..."], cwd=REPO, env=env, quiet=True).stdout.decode().split("\n")
            pkgs += [l for l in run([go, "list", "-f", '_ "{{.ImportPath}}"', "./..."], cwd=os.path.join(REPO, "retry"), env=env,
                                     quiet=True).stdout.decode().split("\n") if "/internal/" not in l]
            with open(os.path.join(ws, "main.go"), "w") as f:
                f.write("package main\nimport (\n%s\n_ \"github.com/janpfeifer/gonb/gonbui\"\n)\nfunc main() {}\n" % "\n".join(p for p in pkgs if p))
            run([go, "mod", "graph"], cwd=ws, env=env, quiet=True)
            run([go, "get"], cwd=ws, env=env, check=False, quiet=True)
            run([go, "build", "-o", os.devnull, "."], cwd=ws, env=env)
            if os.path.isfile(os.path.join(REPO, "zoo", "go.mod")):
                run([go, "work", "use", os.path.join(REPO, "zoo")], cwd=ws, env=env)
                run([go, "mod", "graph"], cwd=ws, env=env, quiet=True)
                run([go, "build", "-o", os.devnull, "."], cwd=ws, env=env)
        finally:
            shutil.rmtree(ws, ignore_errors=True)
        try:
            os.remove(os.path.join(self.gocache, "trim.txt"))
        except FileNotFoundError:
            pass
        os.makedirs(os.path.dirname(self.gocacheprog), exist_ok=True)
        run([go, "build", "-o", self.gocacheprog, "./class/gocacheprog"], cwd=REPO, env=dict(os.environ, CGO_ENABLED="0", GOFLAGS=""))
        for top in (gomod, self.gocache, os.path.dirname(self.gocacheprog)):
            run(["chown", "-R", "root:root", top])
            run(["chmod", "-R", "u+rwX,go+rX,go-w", top])
        with open(stamp, "w") as f:
            f.write(want + "\n")

    def write_config(self, a):
        """The servers' and nbgrader's configuration, by role; the kernels the class registers."""
        for role in ("learner", "instructor"):
            d = os.path.join(self.config, role)
            os.makedirs(d)
            with open(os.path.join(d, "jupyter_server_config.json"), "w") as f:
                f.write(configgen.server_config(role))
            with open(os.path.join(d, "nbgrader_config.py"), "w") as f:
                f.write(configgen.nbgrader_config(COURSE, self.exchange, role, course_root="/home/%s/course" % a.instructor))
        for k, gopls, display in (("backofflab-go", "0", "Go (Backoff Lab)"), ("backofflab-go-complete", "1", "Go (Backoff Lab, completion)")):
            d = os.path.join(self.venv, "share", "jupyter", "kernels", k)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "kernel.json"), "w") as f:
                f.write(configgen.kernel_spec(["/usr/bin/env", "bash", os.path.join(REPO, "scripts", "kernel"), "{connection_file}"], display,
                                              {"BACKOFFLAB_GOPLS": gopls}))
            src = os.path.join(REPO, ".cache", "venv", "share", "jupyter", "kernels", "backofflab-go")
            for logo in ("logo-32x32.png", "logo-64x64.png", "logo-svg.svg"):
                if os.path.isfile(os.path.join(src, logo)):
                    shutil.copy(os.path.join(src, logo), d)
        nogopls = os.path.join(REPO, ".cache", "bin-nogopls")
        os.makedirs(nogopls, exist_ok=True)
        for t in ("gonb", "goimports"):
            link = os.path.join(nogopls, t)
            if os.path.lexists(link):
                os.remove(link)
            os.symlink(os.path.join("..", "bin", t), link)
        shutil.rmtree(os.path.join(self.shared, "slots"), ignore_errors=True)  # (an earlier version's lock files)

    def make_account(self, info, user, display, login=True):
        """A new account with a private home (or the one this command made before)."""
        try:
            pwd.getpwnam(user)
        except KeyError:
            run(["useradd", "--create-home", "--shell", "/bin/bash" if login else "/usr/sbin/nologin", "--user-group",
                 "--comment", "%s (Backoff Lab class)" % display, user], quiet=True)
            info["accounts"].append(user)
            self.save(info)
        pw = pwd.getpwnam(user)
        fd = os.open(pw.pw_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            st = os.fstat(fd)
            if st.st_uid != pw.pw_uid:
                raise Fail("%s's home %s is not theirs" % (user, pw.pw_dir))
            os.fchmod(fd, 0o700)
        finally:
            os.close(fd)

    def set_password(self, user):
        pw = secrets.token_hex(6)
        run(["chpasswd"], input=("%s:%s\n" % (user, pw)).encode(), quiet=True)
        return pw

    def make_course(self, instructor, learners):
        """The instructor's course and the exchange's course folder, made by the instructor; the
        learners in nbgrader's gradebook."""
        venv_bin = os.path.join(self.venv, "bin")
        env = {"PATH": venv_bin + ":/usr/bin:/bin", "JUPYTER_CONFIG_PATH": os.path.join(self.config, "instructor")}
        runuser(instructor, [self.python, "-m", "backofflab_class.homes", "course", REPO], env=env, quiet=True)
        runuser(instructor, ["mkdir", "-m", "0755", os.path.join(self.exchange, COURSE)], quiet=True)
        students = os.path.join(self.config, "instructor", "students.csv")
        import csv
        with open(students, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "first_name", "last_name"])
            w.writerows((u, d, "") for u, d in learners)
        p = runuser(instructor, ["sh", "-c", 'cd "$HOME/course" && exec nbgrader db student import "$1"', "sh", students], env=env,
                    check=False, quiet=True)
        if p.returncode != 0:
            say("warning: could not add the learners to nbgrader's gradebook (autograde adds learners as it meets them)")

    # --- stop ---

    def stop(self, archive_mb):
        info = self.info()
        run_id = info.get("run", "")
        hub = info.get("hub_pid")
        if hub and run_id and procs.status(hub) and procs.has_env(hub, "BACKOFFLAB_CLASS_RUN", run_id):
            say("stopping JupyterHub (pid %d), which stops the servers and the proxy" % hub)
            procs.signal_if(hub, 15, lambda st: procs.has_env(hub, "BACKOFFLAB_CLASS_RUN", run_id))
            deadline = time.monotonic() + 30
            while procs.status(hub) and procs.running(procs.status(hub) or {"State": "X"}) and time.monotonic() < deadline:
                time.sleep(0.1)
        if run_id:
            left = procs.end_marked("BACKOFFLAB_CLASS_RUN", run_id)
            if left:
                say("warning: processes of the class still running: %s" % left)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        archive = os.path.join(self.dir, "archive", stamp)
        for user in info.get("accounts", []):
            try:
                pw = pwd.getpwnam(user)
            except KeyError:
                continue
            left = procs.kill_uid(pw.pw_uid)
            if left:
                say("warning: %s still has processes: %s" % (user, left))
            if user not in (self.cells_user, self.grader_user) and os.path.isdir(pw.pw_dir):
                os.makedirs(archive, exist_ok=True)
                os.chmod(os.path.join(self.dir, "archive"), 0o700)
                note = self.archive_home(pw, os.path.join(archive, user + ".tar.gz"), archive_mb)
                procs.kill_uid(pw.pw_uid)
            else:
                note = ""
            homes.clean_tmp(pw.pw_uid)
            p = run(["userdel", "-r", user], check=False, quiet=True)
            if p.returncode != 0 and pwd_exists(user):
                run(["userdel", user], quiet=True)
            say("removed account %s%s" % (user, note))
        if info.get("cgroup"):
            try:
                limits.Cgroups(info["cgroup"]).remove()
            except OSError as e:
                say("warning: could not remove the class's cgroups in %s: %s" % (info["cgroup"], e))
        for d in (self.exchange, self.cells_dir, self.grader_dir):
            shutil.rmtree(d, ignore_errors=True)
        for f in ("passwords.csv", "jupyterhub.sqlite", "jupyterhub.pid", "proxy.pid", "zygote.sock", "cookie_secret", "class.json",
                  "accounts", "run", "zygote.pid"):
            try:
                os.remove(os.path.join(self.state, f))
            except FileNotFoundError:
                pass
        say("stopped: no class process and no class account is left")

    def archive_home(self, pw, out, cap_mb):
        """Archives pw's home into out, running tar as pw (root only writes what tar prints):
        without caches, sparse files' holes kept as holes, at most cap_mb MiB, in at most 5
        minutes. Returns a note for the instructor."""
        base = os.path.basename(pw.pw_dir)
        cmd = ["runuser", "-u", pw.pw_name, "--", "env", "-i", "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
               "tar", "-C", os.path.dirname(pw.pw_dir), "--sparse", "--one-file-system", "--warning=no-file-changed",
               "--exclude=%s/.cache" % base, "--exclude=%s/.npm" % base, "--exclude=%s/.local" % base, "-czf", "-", base]
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        n, cut, deadline = 0, False, time.monotonic() + 300
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/")
        try:
            import select
            while True:
                if not select.select([p.stdout], [], [], max(0, deadline - time.monotonic()))[0]:
                    cut = True
                    break
                chunk = os.read(p.stdout.fileno(), 1 << 20)
                if not chunk:
                    break
                n += len(chunk)
                if n > cap_mb << 20:
                    cut = True
                    break
                os.write(fd, chunk)
        finally:
            os.close(fd)
            if p.poll() is None:
                p.kill()
            p.wait()
        rel = os.path.relpath(out, REPO)
        if cut:
            return " (home archived in %s, cut at %d MiB or 5 minutes: the archive is incomplete)" % (rel, cap_mb)
        if p.returncode > 1:  # (1: a file changed while tar read it)
            return " (home archived in %s, but tar failed with exit %d: the archive may be incomplete)" % (rel, p.returncode)
        return " (home archived in %s)" % rel


def pwd_exists(user):
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def tail(path, n=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def parser():
    ap = argparse.ArgumentParser(prog="scripts/class", description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--roster", help="the class's roster (CSV: username,display name; one learner a line)")
    ap.add_argument("--ip", default="127.0.0.1", help="the address the hub listens on (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=int, default=8000, help="the hub's port (default 8000)")
    ap.add_argument("--instructor", default="instructor", help="the instructor's user name (default instructor)")
    ap.add_argument("--instance", default="main",
                    help="the class's name, for more than one class on a machine (default main): its own accounts, port and state")
    ap.add_argument("--stock-kernel", dest="kernel", action="store_const", const="stock", default="class",
                    help="run the kernel as scripts/start does (gopls, full links), for benchmarks")
    ap.add_argument("--cpu-seconds", type=int, default=120, help="CPU seconds of each process a kernel starts (>= 5; default 120)")
    ap.add_argument("--memory-mb", type=int, default=limits.MEMORY_MB,
                    help="MiB of address space of each process of a learner's server, terminals and kernels (>= 512; default %d)" % limits.MEMORY_MB)
    ap.add_argument("--processes", type=int, default=limits.PROCESSES,
                    help="processes and threads each learner may have at once (64 to 65536; default %d)" % limits.PROCESSES)
    ap.add_argument("--learner-memory-mb", type=int, default=4096,
                    help="MiB of memory for all of a learner's processes together, where the machine has cgroup v2 (>= 512; default 4096)")
    ap.add_argument("--no-cgroups", dest="cgroups", action="store_false", help="rlimits only, even where the machine has cgroup v2")
    ap.add_argument("--build-slots-per-core", type=int, default=2, help="cell builds at once, per core (0: no limit; at most 64; default 2)")
    ap.add_argument("--no-cell-cache", dest="cell_cache", action="store_false", help="do not share finished cell programs")
    ap.add_argument("--no-zygote", dest="zygote", action="store_false", help="start each server as JupyterHub does, not forked")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python (3.11 or newer, that every account can run) for the servers")
    ap.add_argument("--gomodcache", default="/var/cache/backofflab/gomod",
                    help="the learners' read-only module cache, outside the checkout (default /var/cache/backofflab/gomod)")
    ap.add_argument("--gocache", default=DEFAULT_GOCACHE,
                    help="the build cache every account builds against, read-only but to root, outside the checkout, kept from one class "
                         "to the next and shared by checkouts (default %s)" % DEFAULT_GOCACHE)
    ap.add_argument("--archive-mb", type=int, default=512, help="--stop: MiB at most of each home's archive (>= 1; default 512)")
    ap.add_argument("--stop", action="store_true", help="stop the class, archive the homes, remove the accounts")
    return ap


def check_args(a):
    if not 1 <= a.port <= 65535:
        raise Fail("--port must be a port number from 1 to 65535, got %d" % a.port)
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in a.ip else socket.AF_INET, a.ip)
    except OSError:
        raise Fail("--ip must be an IPv4 or IPv6 address (e.g. 127.0.0.1, 0.0.0.0, 192.168.1.20), got %r" % a.ip)
    roster.check_name(a.instructor, "--instructor")
    if a.cpu_seconds < 5:
        raise Fail("--cpu-seconds must be a whole number of seconds >= 5, got %d" % a.cpu_seconds)
    if not 0 <= a.build_slots_per_core <= 64:
        raise Fail("--build-slots-per-core must be a whole number from 0 to 64, got %d" % a.build_slots_per_core)
    if a.archive_mb < 1:
        raise Fail("--archive-mb must be at least 1, got %d" % a.archive_mb)
    limits.check(a.processes, a.memory_mb)
    if a.learner_memory_mb < 512:
        raise Fail("--learner-memory-mb must be a whole number of MiB >= 512, got %d" % a.learner_memory_mb)
    if not a.stop:
        if not a.roster:
            raise Fail("--roster FILE is needed (CSV: username,display name; one learner a line)")
        if not os.access(a.roster, os.R_OK):
            raise Fail("--roster: cannot read %r" % a.roster)


def main(argv=None):
    a = parser().parse_args(argv)
    try:
        check_args(a)
        if os.geteuid() != 0:
            raise Fail("the class command creates system accounts, so it must run as root (sudo scripts/class ...)")
        # The caller's own Jupyter folders are not the class's (scripts/test exports one).
        for k in ("JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_CONFIG_PATH", "JUPYTER_PATH", "JUPYTER_RUNTIME_DIR", "JUPYTER_PREFER_ENV_PATH"):
            os.environ.pop(k, None)
        c = Class(a.instance)
        if a.stop:
            c.stop(a.archive_mb)
        else:
            c.start(a)
    except (Fail, roster.RosterError, ValueError) as e:
        print("class: error: %s" % e, file=sys.stderr)
        sys.exit(1)
