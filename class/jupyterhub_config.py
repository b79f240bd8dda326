# JupyterHub configuration of `scripts/class` (read it there first): one system account per learner,
# each with a private home, the lessons copied in on first login, the "Go (Backoff Lab)" kernel in
# class mode, and an instructor whose server carries nbgrader's formgrader.
#
# scripts/class writes everything this file reads into the environment; nothing here is meant to
# be edited for one class (use the command's flags).
import os
import shutil
import subprocess

c = get_config()  # noqa: F821 (JupyterHub's config loader defines it)

env = os.environ
repo = env["BACKOFFLAB_REPO"]
state = env["BACKOFFLAB_CLASS_STATE"]  # root-only: database, secrets, logs
shared = env["BACKOFFLAB_CLASS_SHARED"]  # readable by every account: venv, module cache
instructor = env["BACKOFFLAB_CLASS_INSTRUCTOR"]
learners = [u for u in env["BACKOFFLAB_CLASS_LEARNERS"].split(",") if u]

c.JupyterHub.ip = env["BACKOFFLAB_CLASS_IP"]
c.JupyterHub.port = int(env["BACKOFFLAB_CLASS_PORT"])
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env["BACKOFFLAB_CLASS_HUB_PORT"])
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "cookie_secret")
c.JupyterHub.pid_file = os.path.join(state, "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every learner's server
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.shutdown_on_logout = False
c.JupyterHub.template_vars = {"announcement_login": "Backoff Lab: log in with the name and password your instructor gave you."}
c.ConfigurableHTTPProxy.command = [os.path.join(repo, "node_modules", ".bin", "configurable-http-proxy")]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%s" % env["BACKOFFLAB_CLASS_PROXY_API_PORT"]
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, "proxy.pid")

# Accounts: the system's own passwords (PAM), only the roster and the instructor may log in.
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.open_sessions = False
c.Authenticator.allowed_users = set(learners) | {instructor}
c.Authenticator.admin_users = set()  # nobody may open another person's server

# Every server: this class's Python (readable by the accounts), JupyterLab, and the kernels
# scripts/class registered in that Python (class mode, or stock with --stock-kernel).
c.Spawner.cmd = [os.path.join(shared, "venv", "bin", "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "BACKOFFLAB_PROC_TAG", "BACKOFFLAB_TEST_RUN", "BACKOFFLAB_CLASS_RUN",
                      # the kernel's class mode and its limits (see scripts/kernel)
                      "BACKOFFLAB_CLASS", "BACKOFFLAB_CPU_SECONDS", "BACKOFFLAB_MEMORY_MB",
                      # the shared cell programs (see class/cellcache.py, class/bin/go)
                      "BACKOFFLAB_CELLS_SOCKET", "BACKOFFLAB_CELLS_PYTHON"]

# The servers, forked from one preloaded process (class/zygote.py; scripts/class starts it as root
# unless BACKOFFLAB_CLASS_ZYGOTE=0): thirty servers share the pages of their imported modules
# instead of holding thirty copies. The spawner is JupyterHub's LocalProcessSpawner in all but how
# the process starts: the same command line and environment, the same pid to poll and signal.
if env.get("BACKOFFLAB_CLASS_ZYGOTE_SOCKET"):
    import asyncio
    import sys

    from jupyterhub.spawner import LocalProcessSpawner
    from jupyterhub.utils import random_port

    sys.path.insert(0, os.path.join(repo, "class"))
    sys.dont_write_bytecode, write = True, sys.dont_write_bytecode  # (no __pycache__ in the checkout)
    import zygote
    sys.dont_write_bytecode = write

    class ForkSpawner(LocalProcessSpawner):
        """Starts the server by asking the class's zygote to fork it as the user."""

        async def start(self):
            if self.port == 0:
                self.port = random_port()
            if list(self.cmd) != c.Spawner.cmd or self.shell_cmd:
                raise RuntimeError("the zygote runs %s only, not %s" % (c.Spawner.cmd, self.cmd))
            args = self.get_args()
            self.log.info("Forking %s's server from the zygote: %s", self.user.name, " ".join(args))
            self.proc = None
            self.pid = await asyncio.get_running_loop().run_in_executor(
                None, zygote.spawn, env["BACKOFFLAB_CLASS_ZYGOTE_SOCKET"], self.user.name, args, self.get_env())
            return (self.ip or "127.0.0.1", self.port)

    c.JupyterHub.spawner_class = ForkSpawner


def copy_lessons(home, uid, gid):
    """Copies the lessons and the exercise notebooks into a learner's home, once."""
    stamp = os.path.join(home, ".backofflab-lessons")
    if os.path.exists(stamp):
        return
    pairs = [
        ("notebooks", "notebooks"),
        ("exercises/notebooks", "exercises/notebooks"),
        ("exercises/README.md", "exercises/README.md"),
        ("retry/COMPARISON.md", "retry/COMPARISON.md"),
        ("README.md", "README.md"),
    ]
    for src, dst in pairs:
        s, d = os.path.join(repo, src), os.path.join(home, dst)
        if not os.path.exists(s) or os.path.exists(d):
            continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.isdir(s):
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("src", "*_test.go", "*.go"))
        else:
            shutil.copy2(s, d)
    open(stamp, "w").close()
    subprocess.run(["chown", "-R", "%d:%d" % (uid, gid), home], check=True)


def pre_spawn(spawner):
    import pwd

    name = spawner.user.name
    pw = pwd.getpwnam(name)
    # glibc gives each of a server's threads its own malloc arena, and keeps what they freed: two
    # arenas hold a server at about two thirds of the memory (thirty servers share the machine).
    # (glibc reads it when a process starts: a forked server has it from the zygote, which
    # scripts/class starts with it; this reaches the kernels, and servers started without it.)
    spawner.environment["MALLOC_ARENA_MAX"] = "2"
    spawner.environment["JUPYTER_CONFIG_PATH"] = os.path.join(env["BACKOFFLAB_CLASS_CONFIG"], "instructor" if name == instructor else "learner")
    if name != instructor:
        copy_lessons(pw.pw_dir, pw.pw_uid, pw.pw_gid)


c.Spawner.pre_spawn_hook = pre_spawn

# nbgrader: the instructor reaches the formgrader through the hub's menu (Services would need a
# shared account; the formgrader runs in the instructor's own server instead, at /user/<name>/formgrader).
c.JupyterHub.load_groups = {"instructors": {"users": [instructor]}, "learners": {"users": learners}}
