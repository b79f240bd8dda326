"""What one learner may use of the machine: processes and memory, for everything they start.

Two mechanisms, and the class says at start which one this machine gets:

rlimits, always, set on each learner's server (and so on its terminals, kernels, builds and cell
programs, which inherit them) and on the class's own sandboxes:

  - processes: RLIMIT_NPROC counts every process and thread whose real user is the account, on
    the whole machine, so it is a per-learner limit: a fork bomb stops at it, with "Resource
    temporarily unavailable", and nobody else notices.
  - memory: RLIMIT_AS bounds each process's address space. It is per process, not per learner:
    a learner's total is at most processes x memory, which is why kernels also cap their CPU time
    (scripts/kernel) and the class stops a server's processes when it stops.

cgroups v2, besides, when the machine offers a hierarchy with the memory and pids controllers
that root may write (cgroup_v2_available: a Debian or Ubuntu with systemd does): one group per
account, ROOT/backofflab-CLASS/ACCOUNT, with memory.max (a total for all the account's processes,
--learner-memory-mb) and pids.max, entered by each server before it drops root (Cgroups). A
group that cannot be made or entered leaves the rlimits, and the class says so.

The machine these lessons are developed on has no such hierarchy (its memory and pids controllers
are on cgroup v1 hierarchies that belong to the sandbox it runs in): there, and in the class tests
run there, the limits are the rlimits alone. The cgroup code is tested against a folder shaped
like a cgroup hierarchy (class/tests), not against a kernel's.
"""

import os
import resource
import time

# The defaults: thirty learners on 24 GiB, each with a server (about 20 threads), kernels (about
# 15 threads each), builds (the go command, compile and link, 10 to 20 threads each) and a
# terminal or two.
PROCESSES = 512
MEMORY_MB = 2048


def check(processes, memory_mb):
    """Raises ValueError naming the parameter unless the limits can run a learner's server."""
    if not isinstance(processes, int) or not 64 <= processes <= 65536:
        raise ValueError("--processes must be a whole number from 64 to 65536 (processes and threads per learner), got %r" % (processes,))
    if not isinstance(memory_mb, int) or not 512 <= memory_mb <= 1 << 20:
        raise ValueError("--memory-mb must be a whole number of MiB from 512 to 1048576, got %r" % (memory_mb,))


def apply(processes, memory_mb):
    """Sets the limits on the calling process (after it became the learner: an rlimit can only be
    lowered without privilege, and RLIMIT_NPROC counts the real user's processes)."""
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # (a core file of a server holds its tokens)


def cgroup_v2_available(root="/sys/fs/cgroup"):
    """Whether root is a cgroup v2 hierarchy whose memory and pids controllers the class could
    delegate to per-learner groups (the controllers listed, and its subtree control writable)."""
    try:
        with open(os.path.join(root, "cgroup.controllers")) as f:
            controllers = f.read().split()
    except OSError:
        return False
    return "memory" in controllers and "pids" in controllers and os.access(os.path.join(root, "cgroup.subtree_control"), os.W_OK)


def describe(processes, memory_mb, cgroups=None, total_mb=None, why=""):
    """One line for the instructor: the limits, and how they are enforced here."""
    line = "each learner: at most %d processes and threads, %d MiB of address space a process" % (processes, memory_mb)
    if cgroups is not None:
        return line + ", %d MiB in all; enforced by rlimits and cgroup v2 groups in %s" % (total_mb, cgroups.base)
    return line + "; enforced by rlimits (%s)" % (why or "this machine has no writable cgroup v2 hierarchy with memory and pids")


class Cgroups:
    """One cgroup v2 group per account, under ROOT/backofflab-CLASS: a total of memory and of
    processes for everything the account's server (and so its terminals and kernels) starts, and a
    way to end all of it at once (cgroup.kill).

    Made at class start (scripts/class) when cgroup_v2_available(); the zygote (or the spawner's
    Popen, or the grading daemon) moves each server into its account's group before it drops root;
    a server's stop ends the group's processes; --stop removes the groups."""

    def __init__(self, base):
        self.base = base

    @classmethod
    def create(cls, root, instance, accounts, memory_mb, processes):
        """Makes ROOT/backofflab-INSTANCE/ACCOUNT for each account, with memory.max and pids.max;
        returns the Cgroups. Raises OSError when the hierarchy refuses."""
        base = os.path.join(root, "backofflab-" + instance)
        os.makedirs(base, exist_ok=True)
        enabled = _read(os.path.join(root, "cgroup.subtree_control")).split()
        missing = [c for c in ("memory", "pids") if c not in enabled]
        if missing:
            _write(os.path.join(root, "cgroup.subtree_control"), " ".join("+" + c for c in missing))
        _write(os.path.join(base, "cgroup.subtree_control"), "+memory +pids")
        self = cls(base)
        for a in accounts:
            d = self.dir(a)
            os.makedirs(d, exist_ok=True)
            _write(os.path.join(d, "memory.max"), str(memory_mb << 20))
            if os.path.exists(os.path.join(d, "memory.swap.max")):
                _write(os.path.join(d, "memory.swap.max"), "0")
            _write(os.path.join(d, "pids.max"), str(processes))
        return self

    def dir(self, account):
        if not account or "/" in account or account in (".", ".."):
            raise ValueError("not an account name: %r" % account)
        return os.path.join(self.base, account)

    def enter(self, account, pid=0):
        """Moves pid (0: the calling process) into the account's group."""
        _write(os.path.join(self.dir(account), "cgroup.procs"), str(pid))

    def kill(self, account):
        """Ends every process in the account's group (cgroup.kill; SIGKILL one by one on a kernel
        before 5.14); returns how many there were."""
        d = self.dir(account)
        try:
            pids = [int(p) for p in _read(os.path.join(d, "cgroup.procs")).split()]
        except FileNotFoundError:
            return 0
        if os.path.exists(os.path.join(d, "cgroup.kill")):
            _write(os.path.join(d, "cgroup.kill"), "1")
        else:
            for p in pids:
                try:
                    os.kill(p, 9)
                except ProcessLookupError:
                    pass
        return len(pids)

    def remove(self, timeout=10.0):
        """Ends every group's processes and removes the groups and their parent."""
        for name in sorted(os.listdir(self.base)):
            d = os.path.join(self.base, name)
            if not os.path.isdir(d):
                continue
            deadline = time.monotonic() + timeout
            while True:
                self.kill(name)
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        os.rmdir(self.base)


def _read(path):
    with open(path) as f:
        return f.read()


def _write(path, text):
    # (O_CREAT: a cgroup's files exist already, and one that does not is refused by the kernel;
    # a folder shaped like a hierarchy, as the tests use, gets it)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
