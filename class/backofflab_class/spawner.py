"""ClassSpawner: JupyterHub's LocalProcessSpawner for a class, configured with traitlets.

    c.JupyterHub.spawner_class = "backofflab_class.spawner.ClassSpawner"
    c.ClassSpawner.zygote_socket = "/path/zygote.sock"   # "" starts servers with Popen instead
    c.ClassSpawner.python = "/path/venv/bin/python"
    c.ClassSpawner.log_dir = "/path/state/logs"

It is LocalProcessSpawner in everything JupyterHub sees (the pid to poll and signal, the state it
keeps) and differs in how a server starts and what it is given:

  - the server is forked from the class's zygote (zygote.py) when zygote_socket is set: thirty
    servers share the memory of their imported modules; else started with Popen as the learner;
  - its port is one the hub binds itself, as root, from port_range (ports below 1024, which no
    learner can bind), and the hub keeps its own copy of that listening socket until after the
    proxy forgot the route (post-stop): a port the proxy may still send a learner's requests to is
    never free for another learner to take;
  - its output is a pipe into that learner's own log file in log_dir (logrelay.py), not the hub's
    or the zygote's log, which its kernels would inherit;
  - the learner's limits (limits.py: processes, memory_mb, and the account's cgroup in
    cgroup_base when the machine has them) are set on it, and so on everything it starts; the
    server is polled and signalled through a pidfd, so a reused pid is never taken for it.

The hooks (hooks.py) copy the lessons into a learner's home as the learner before the server
starts, and end every process of the account when it stops.
"""

import asyncio
import inspect
import os
import pwd
import random
import select
import signal
import socket
import subprocess

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Dict, Integer, Tuple, Unicode, validate

from . import limits, logrelay, zygote


class ClassSpawner(LocalProcessSpawner):
    """Starts a learner's server for a class: forked from the zygote or started with Popen, on a
    socket the hub holds, writing to the learner's own log, within the learner's limits."""

    zygote_socket = Unicode("", help="The zygote's socket (root only); empty: start servers with Popen.").tag(config=True)
    python = Unicode(help="The Python that every account can run, with the class's Jupyter and this package.").tag(config=True)
    log_dir = Unicode(help="The root-only folder of the per-account logs.").tag(config=True)
    log_cap_mb = Integer(32, help="MiB of log kept per account and class (later lines are dropped).").tag(config=True)
    processes = Integer(limits.PROCESSES, help="Processes and threads an account may have (RLIMIT_NPROC).").tag(config=True)
    memory_mb = Integer(limits.MEMORY_MB, help="MiB of address space of each process of a server (RLIMIT_AS).").tag(config=True)
    cgroup_base = Unicode("", help="The class's cgroup v2 folder (limits.Cgroups); empty: rlimits only.").tag(config=True)
    port_range = Tuple(Integer(), Integer(), default_value=(600, 1000),
                       help="The ports [low, high) the hub binds servers on (below 1024: no learner can bind them).").tag(config=True)
    # What the hooks (hooks.py) read.
    repo = Unicode(help="The checkout the lessons are copied from.").tag(config=True)
    instructor = Unicode(help="The instructor's account (gets the course, not the lessons).").tag(config=True)
    server_config = Dict(help="A server's Jupyter environment (JUPYTER_CONFIG_PATH, ...), by role: learner, instructor.").tag(config=True)

    @validate("port_range")
    def _check_ports(self, proposal):
        low, high = proposal["value"]
        if not 1 <= low < high <= 65536:
            raise ValueError("ClassSpawner.port_range must be (low, high) with 1 <= low < high <= 65536, got %r" % (proposal["value"],))
        return proposal["value"]

    _listener = None  # the server's listening socket (the hub's copy)
    _pidfd = None
    _relay = None

    def _bind(self):
        ports = list(range(*self.port_range))
        random.shuffle(ports)
        for port in ports:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            s.listen(128)
            return s
        raise RuntimeError("no free port for %s's server in %d-%d (ClassSpawner.port_range)" % (self.user.name, *self.port_range))

    def _release(self):
        """Closes the hub's copy of the listening socket and the pidfd (after the proxy forgot the route)."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    async def start(self):
        if self.shell_cmd:
            raise RuntimeError("ClassSpawner starts the server itself: shell_cmd is not supported")
        if not self.python or not self.log_dir:
            raise RuntimeError("ClassSpawner needs python and log_dir (see the generated jupyterhub_config.py)")
        self._release()
        name = self.user.name
        pw = pwd.getpwnam(name)
        self._listener = self._bind()
        self.port = self._listener.getsockname()[1]
        self.ip = "127.0.0.1"
        env = self.get_env()
        args = self.get_args()
        r, w = os.pipe2(os.O_CLOEXEC)
        loop = asyncio.get_running_loop()
        log = logrelay.LogFile(os.path.join(self.log_dir, name + ".log"), "%s: " % name, self.log_cap_mb << 20)
        self._relay = logrelay.Relay(loop, r, log)
        try:
            if self.zygote_socket:
                self.log.info("Forking %s's server from the zygote on port %d", name, self.port)
                self.proc = None
                self.pid = await loop.run_in_executor(None, zygote.spawn, self.zygote_socket, name, args, env, [self._listener.fileno(), w])
            else:
                fd = self._listener.fileno()
                cmd = [self.python, "-m", "backofflab_class.singleuser", "--listen-fd", str(fd)] + args
                self.log.info("Starting %s's server on port %d", name, self.port)
                self.proc = subprocess.Popen(cmd, env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=w, stderr=w,
                                             pass_fds=(fd,), start_new_session=True, preexec_fn=self._preexec(pw))
                self.pid = self.proc.pid
        except BaseException:
            self._release()
            raise
        finally:
            os.close(w)
        self._pidfd = os.pidfd_open(self.pid)
        return (self.ip, self.port)

    def _preexec(self, pw):
        gids = os.getgrouplist(pw.pw_name, pw.pw_gid)
        processes, memory_mb, cgroup = self.processes, self.memory_mb, self.cgroup_base

        def become():
            if cgroup:
                try:
                    limits.Cgroups(cgroup).enter(pw.pw_name)
                except OSError as e:
                    os.write(2, ("%s's server is not in its cgroup (%s): the rlimits alone apply\n" % (pw.pw_name, e)).encode())
            os.setgroups(gids)
            os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
            os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
            limits.apply(processes, memory_mb)
            os.chdir(pw.pw_dir)

        return become

    async def poll(self):
        if self.proc is not None or self._pidfd is None:
            return await super().poll()
        if select.select([self._pidfd], [], [], 0)[0]:  # a pidfd turns readable when its process ends
            self.clear_state()
            return 0
        return None

    async def _signal(self, sig):
        if self._pidfd is None:
            return await super()._signal(sig)
        try:
            signal.pidfd_send_signal(self._pidfd, sig)
        except ProcessLookupError:
            return False
        return True

    def clear_state(self):
        super().clear_state()
        self.proc = None

    async def run_post_stop_hook(self):
        try:
            done = super().run_post_stop_hook()
            if inspect.isawaitable(done):
                await done
        except Exception:
            self.log.exception("post_stop_hook failed for %s", self._log_name)
        finally:
            self._release()
