"""What one learner may use of the machine: processes and memory, for everything they start.

This machine's choice, and why: the limits are rlimits, set on each learner's server (and so on
its terminals, kernels, builds and cell programs, which inherit them) and on the class's own
sandboxes.

  - processes: RLIMIT_NPROC counts every process and thread whose real user is the account, on
    the whole machine, so it is a per-learner limit: a fork bomb stops at it, with "Resource
    temporarily unavailable", and nobody else notices.
  - memory: RLIMIT_AS bounds each process's address space. It is per process, not per learner:
    a learner's total is at most processes x memory, which is why kernels also cap their CPU time
    (scripts/kernel) and the class stops a server's processes when it stops.

cgroups would give one total per learner. They need a cgroup v2 hierarchy with the memory and
pids controllers that the class may write; cgroup_v2_available() says whether the machine has one.
The machine these lessons are developed on does not (its memory and pids controllers are on cgroup
v1 hierarchies that belong to the sandbox it runs in), so the class uses rlimits everywhere, and
says so at start.
"""

import os
import resource

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


def describe(processes, memory_mb):
    """One line for the instructor: the limits, and how they are enforced here."""
    how = ("rlimits (this machine offers cgroup v2 with memory and pids, which the class does not use yet)"
           if cgroup_v2_available() else "rlimits (this machine has no writable cgroup v2 hierarchy with memory and pids)")
    return "each learner: at most %d processes and threads, %d MiB of address space a process; enforced by %s" % (processes, memory_mb, how)
