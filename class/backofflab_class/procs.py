"""Finding and ending processes by account or by mark, without ever signalling the wrong one.

A process is signalled through a pidfd opened before its account is checked: if the pid was
reused in between, the pidfd names the process that ended (the signal fails) or the check reads
the new process and refuses it. So a learner's processes that exit and hand their pids on as fast
as they can never make root signal someone else's.
"""

import os
import signal
import time


def pids():
    """Every process id in /proc."""
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def status(pid):
    """The fields of /proc/PID/status, or None once the process is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
    except (OSError, ValueError):
        return None


def real_uid(st):
    """The real user id in a status map."""
    return int(st["Uid"].split()[0])


def running(st):
    """Whether a status map is of a process that may still run (not a zombie, not dead)."""
    return st["State"][:1] not in ("Z", "X")


def has_env(pid, key, value):
    """Whether the process's environment holds key=value."""
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            return ("%s=%s" % (key, value)).encode() in f.read().split(b"\0")
    except OSError:
        return False


def signal_if(pid, sig, check):
    """Sends sig to pid if check(status) holds for the process the pid names now; returns whether
    it was sent."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:  # gone already
        return False
    try:
        st = status(pid)  # read after the pidfd is open: it can only describe that process or a later one
        if st is None or not check(st):
            return False
        try:
            signal.pidfd_send_signal(fd, sig)
        except OSError:  # it ended between the check and the signal: its pidfd says so
            return False
        return True
    finally:
        os.close(fd)


def of_uid(uid):
    """The processes whose real user is uid, still running."""
    out = []
    for pid in pids():
        st = status(pid)
        if st is not None and real_uid(st) == uid and running(st):
            out.append(pid)
    return out


def kill_uid(uid, timeout=10.0):
    """Ends every process whose real user is uid (SIGKILL, again and again while new ones appear);
    returns the pids still running after timeout seconds (empty: none is left)."""
    if uid == 0:
        raise ValueError("kill_uid: refusing to end root's processes")
    deadline = time.monotonic() + timeout
    while True:
        left = of_uid(uid)
        if not left:
            return []
        if time.monotonic() > deadline:
            return left
        for pid in left:
            signal_if(pid, signal.SIGKILL, lambda st: real_uid(st) == uid)
        time.sleep(0.05)


def with_mark(key, value, exclude=()):
    """The processes whose environment holds key=value (the class's run mark)."""
    return [p for p in pids() if p not in exclude and p != os.getpid() and has_env(p, key, value)]


def end_marked(key, value, grace=2.0, timeout=10.0):
    """SIGTERM, then after grace seconds SIGKILL, every process marked key=value; returns those
    still running after timeout seconds."""
    check = lambda st: running(st)  # noqa: E731 (the mark is checked again below, after the pidfd)

    def send(sig):
        for pid in with_mark(key, value):
            signal_if(pid, sig, lambda st, pid=pid: check(st) and has_env(pid, key, value))

    send(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and with_mark(key, value):
        time.sleep(0.1)
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in with_mark(key, value) if (status(p) or {}).get("State", "Z")[:1] not in ("Z", "X")]
        if not left or time.monotonic() > deadline:
            return left
        send(signal.SIGKILL)
        time.sleep(0.1)
