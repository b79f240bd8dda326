"""The learners' Jupyter servers, forked from one preloaded Python process (a "zygote").

A learner's server (jupyterhub-singleuser: Jupyter Server, JupyterLab, Notebook 7, nbgrader's
assignment list) holds about 120 MiB of Python objects, nearly all of them made by importing its
modules, the same in every server. Thirty servers started the usual way hold thirty copies. Forked
from one process that has imported them already, the servers share those pages copy-on-write, and
the memory counts them once.

  python -m backofflab_class.zygote serve --socket S --preload FILE --users NAME,NAME,...
                                         [--processes N --memory-mb MB]
      the daemon scripts/class starts as root, before the hub, with a clean environment. It
      imports every module named in FILE (one a line; # comments), moves what it made out of the
      garbage collector's reach (gc.freeze(), so collections in the servers do not write to the
      shared pages), and listens on the Unix socket S, which only root may use (the hub). For each
      request it forks at once; the parent reads nothing of the request (so no learner's token
      ever sits in the memory later servers inherit), and reaps its children. The child reads the
      request, with the two file descriptors the hub sends along it (SCM_RIGHTS): the server's
      listening socket, which the hub bound and keeps (see spawner.py), and the write end of the
      pipe that is the server's output (see logrelay.py). Before it touches anything of the
      learner's it:
        - checks the user is one of --users, not root, and exists;
        - closes every file descriptor but standard input (/dev/null), the request's socket and
          the two it received, and makes the pipe its standard output and error (the daemon's own
          log is never a learner's);
        - starts a session of its own (the hub's signals are not forwarded, as with Popen);
        - drops every privilege: the learner's group, their supplementary groups exactly
          (os.getgrouplist), their user id (real, effective and saved), and checks all of it,
          including that it holds no capability and cannot become root again;
        - enters the account's cgroup (--cgroup, when the machine has them) and takes the
          learner's limits (limits.py: --processes, --memory-mb);
        - then changes to the learner's home and replaces the whole environment with the one the
          hub sent (JupyterHub's for that server: HOME, USER, the API token, ...);
      answers the pid, and runs jupyterhub-singleuser (singleuser.py) on the listening socket.

  zygote.spawn(S, user, args, env, fds) -> pid
      what the hub's spawner (spawner.py) calls instead of Popen.

Modules imported at class start rather than at a learner's first login: a module that computed a
user's path or a secret when imported would carry the daemon's into every server. The daemon runs
with HOME and USER of its own (ZYGOTE_HOME, ZYGOTE_USER: no real account's), and each server, once
it is the learner, points whatever a module made of them at the learner's home and name (rehome;
found by importing the modules under two different HOMEs and comparing every module global and
traitlets default). Nothing secret is in the daemon's memory; random, uuid, secrets and ssl
reseed or read the kernel's randomness after a fork. The class tests and a browser test run
servers made this way.

To refresh FILE after an upgrade of the lock file: run a learner's server with an atexit hook that
writes sorted(sys.modules), open /lab, /tree and a kernel in it, and keep, in that order, the names
that a fresh interpreter had not imported already (class/preload.txt says how it was made). A
module missing from FILE is imported by the server that needs it: slower and bigger, never wrong.
"""

import argparse
import gc
import grp
import importlib
import json
import os
import pwd
import signal
import socket
import stat
import struct
import sys
import time

from . import limits

PROTOCOL = "backofflab-zygote-1"
MAX_REQUEST = 1 << 20
# The daemon's HOME and USER (scripts/class sets them): nobody's, and unlike any real one, so that
# what a module computed from them when imported is found and pointed at the learner's (rehome).
ZYGOTE_HOME = "/nonexistent/backofflab-zygote"
ZYGOTE_USER = "backofflab-zygote"


def log(msg):
    # (one write, unbuffered: it is also called from the SIGCHLD handler)
    os.write(2, ("%s zygote: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), msg)).encode())


# --- the hub's side ---------------------------------------------------------------------------

def spawn(sock_path, user, args, env, fds, timeout=60):
    """Asks the zygote at sock_path to start jupyterhub-singleuser with args for user, in exactly
    the environment env, listening on the socket fds[0] and writing its output to fds[1]; returns
    the server's pid. Raises RuntimeError with the zygote's reason."""
    req = json.dumps({"protocol": PROTOCOL, "user": user, "args": list(args), "env": dict(env)}).encode()
    if len(req) > MAX_REQUEST:
        raise RuntimeError("zygote: the request for %s is %d bytes, more than %d" % (user, len(req), MAX_REQUEST))
    if len(fds) != 2:
        raise ValueError("zygote.spawn: fds must be the listening socket and the output pipe")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(sock_path)
        socket.send_fds(s, [struct.pack(">I", len(req))], list(fds))
        s.sendall(req)
        s.shutdown(socket.SHUT_WR)
        data = b""
        while len(data) < 65536:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    try:
        answer = json.loads(data or b"{}")
    except ValueError:
        answer = {}
    if "pid" not in answer:
        raise RuntimeError("zygote: could not start %s's server: %s" % (user, answer.get("error", "no answer (see the zygote's log)")))
    return int(answer["pid"])


# --- the daemon -------------------------------------------------------------------------------

def preload(path):
    """Imports every module named in the file at path; returns (imported, failed names)."""
    done, failed = 0, []
    with open(path) as f:
        names = [l.split("#", 1)[0].strip() for l in f]
    for name in filter(None, names):
        if name in sys.modules:
            continue
        if name.startswith("_"):  # (a private module comes with its package: _asyncio imported
            failed.append(name + " (private)")  # before asyncio breaks asyncio.current_task)
            continue
        try:
            importlib.import_module(name)
            done += 1
        except Exception as e:  # a module this Python lacks: the server imports what it needs
            failed.append("%s (%s)" % (name, type(e).__name__))
    return done, failed


def reap(*_):
    """Collects every child that ended (the hub polls servers by pid: a zombie would look alive)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        log("server %d ended (%s)" % (pid, ("exit %d" % os.waitstatus_to_exitcode(status))))


def serve(args):
    limits.check(args.processes, args.memory_mb)
    if os.geteuid() != 0:
        raise SystemExit("zygote: it starts servers as other accounts, so it must run as root")
    if os.environ.get("HOME") != ZYGOTE_HOME or os.environ.get("USER") != ZYGOTE_USER:
        raise SystemExit("zygote: run it with HOME=%s USER=%s (what modules compute from them is pointed at each learner's)" % (ZYGOTE_HOME, ZYGOTE_USER))
    users = {u for u in args.users.split(",") if u}
    if not users:
        raise SystemExit("zygote: --users names nobody")
    t0 = time.time()
    done, failed = preload(args.preload)
    import threading
    if threading.active_count() != 1:  # fork copies only the calling thread: no other may exist
        raise SystemExit("zygote: importing the modules started %d threads; it must stay single-threaded" % (threading.active_count() - 1))
    gc.collect()
    gc.freeze()
    log("imported %d modules in %.1f s (%d not found: %s), %d objects frozen" % (done, time.time() - t0, len(failed), ", ".join(failed[:8]), gc.get_freeze_count()))
    name_process("class-zygote")
    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        os.unlink(args.socket)
    except FileNotFoundError:
        pass
    old = os.umask(0o077)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(args.socket)
    os.umask(old)
    os.chmod(args.socket, 0o600)
    srv.listen(64)
    log("listening on %s for %d accounts" % (args.socket, len(users)))
    while True:
        conn, _ = srv.accept()
        uid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[1]
        if uid != 0:
            log("refused a request from uid %d (only root, the hub, may ask)" % uid)
            conn.close()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                srv.close()
                code = child(conn, users, args)
            except BaseException as e:  # noqa: BLE001 (a child must never return into the loop)
                try:
                    log("server %d: %s: %s" % (os.getpid(), type(e).__name__, e))
                    conn.sendall(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}).encode())
                except BaseException:  # noqa: BLE001
                    pass
            finally:
                os._exit(code)
        conn.close()
        reap()


def read_request(conn):
    """Reads a request and the file descriptors sent with its first bytes; returns both."""
    conn.settimeout(30)
    head, fds = b"", []
    while len(head) < 4:
        chunk, got, _, _ = socket.recv_fds(conn, 4 - len(head), 4)
        fds += got
        if not chunk:
            raise ValueError("the request ended early")
        head += chunk
    try:
        return _read_body(conn, head), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _read_body(conn, head):
    n = struct.unpack(">I", head)[0]
    if n > MAX_REQUEST:
        raise ValueError("a request of %d bytes (at most %d)" % (n, MAX_REQUEST))
    body = b""
    while len(body) < n:
        chunk = conn.recv(min(65536, n - len(body)))
        if not chunk:
            raise ValueError("the request ended early")
        body += chunk
    req = json.loads(body)
    if req.get("protocol") != PROTOCOL:
        raise ValueError("protocol %r, want %r" % (req.get("protocol"), PROTOCOL))
    if not isinstance(req.get("user"), str) or not isinstance(req.get("args"), list) or not isinstance(req.get("env"), dict):
        raise ValueError("a request needs user (a string), args (a list) and env (an object)")
    if not all(isinstance(a, str) for a in req["args"]) or not all(isinstance(k, str) and isinstance(v, str) for k, v in req["env"].items()):
        raise ValueError("args and env must hold strings only")
    return req


def rehome(home, user):
    """Points what a module computed from the daemon's HOME or USER when it was imported at the
    learner's home and name instead; returns what it changed. Found so far: JupyterLab's
    workspaces and user-settings folders (traitlets defaults made when the class is defined),
    jupyter_client's Session.username, send2trash's trash folder, site.USER_BASE/USER_SITE."""
    def fix(v):
        if isinstance(v, str):
            if v == ZYGOTE_HOME or v.startswith(ZYGOTE_HOME + "/"):
                return home + v[len(ZYGOTE_HOME):]
            if v == ZYGOTE_USER:
                return user
        return None

    this = sys.modules[__name__]  # (its own constants stay: fix compares with them)

    changed = []
    traitlets = sys.modules.get("traitlets")
    if traitlets is not None:
        stack, seen = [traitlets.HasTraits], set()
        while stack:
            cls = stack.pop()
            for sub in cls.__subclasses__():
                if sub not in seen:
                    seen.add(sub)
                    stack.append(sub)
            for name, trait in cls.class_own_traits().items():
                new = fix(getattr(trait, "default_value", None))
                if new is not None:
                    trait.default_value = new
                    changed.append("%s.%s" % (cls.__qualname__, name))
            initial = cls.__dict__.get("_static_immutable_initial_values")  # (traitlets' copy of them)
            for name, value in list((initial or {}).items()):
                new = fix(value)
                if new is not None:
                    initial[name] = new
    for mod_name, mod in list(sys.modules.items()):
        if mod is this:
            continue
        d = getattr(mod, "__dict__", None) or {}
        for k, v in list(d.items()):
            new = fix(v)
            if new is not None:
                d[k] = new
                changed.append("%s.%s" % (mod_name, k))
    return changed


def name_process(name):
    """Sets the name ps, top and /proc/PID/status show (at most 15 bytes are kept)."""
    try:
        with open("/proc/self/comm", "w") as f:
            f.write(name[:15])
    except OSError:
        pass


def drop_privileges(pw):
    """Becomes pw's account for good: groups, user ids, capabilities; checks each."""
    gids = os.getgrouplist(pw.pw_name, pw.pw_gid)
    os.setgroups(gids)
    os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
    os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
    if os.getresuid() != (pw.pw_uid,) * 3 or os.getresgid() != (pw.pw_gid,) * 3:
        raise PermissionError("the user or group ids did not change")
    if sorted(set(os.getgroups())) != sorted(set(gids)):
        raise PermissionError("supplementary groups %s, want %s" % (os.getgroups(), gids))
    with open("/proc/self/status") as f:
        caps = {l.split(":")[0]: int(l.split()[1], 16) for l in f if l.startswith("Cap")}
    if caps.get("CapPrm") or caps.get("CapEff") or caps.get("CapAmb"):
        raise PermissionError("capabilities remain: %s" % caps)
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise PermissionError("the server could become root again")


def child(conn, users, args):
    """The forked server: reads its request, becomes the learner, runs jupyterhub-singleuser."""
    os.setsid()  # a session of its own: the hub's and the daemon's signals are not forwarded
    name_process("jupyterhub-singleuser")  # (ps and top show what it is, as if it were exec'd)
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # (as a fresh Python has it)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    # Standard input from /dev/null, nothing of root's but the request's socket; then the two
    # descriptors the hub sent: the listening socket, and the pipe for output and error.
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    keep = conn.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)
    req, fds = read_request(conn)
    name = req["user"]
    if name not in users:
        raise PermissionError("%r is not one of this class's accounts" % name)
    pw = pwd.getpwnam(name)
    if pw.pw_uid == 0 or pw.pw_gid == 0:
        raise PermissionError("%r is root's user or group" % name)
    if len(fds) != 2 or not stat.S_ISSOCK(os.fstat(fds[0]).st_mode) or not stat.S_ISFIFO(os.fstat(fds[1]).st_mode):
        raise ValueError("a request comes with two file descriptors: the listening socket and the output pipe")
    listen_fd, out_fd = fds
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.close(out_fd)
    if args.cgroup:  # the account's group (limits.py), entered while root may still move it
        try:
            limits.Cgroups(args.cgroup).enter(name)
        except OSError as e:
            log("server %d for %s: not in its cgroup (%s): the rlimits alone apply" % (os.getpid(), name, e))
    drop_privileges(pw)
    limits.apply(args.processes, args.memory_mb)
    # Only now, as the learner: their home, the environment the hub made for this server.
    os.chdir(pw.pw_dir)
    os.umask(0o022)
    os.environ.clear()
    os.environ.update(req["env"])
    os.environ["HOME"], os.environ["USER"] = pw.pw_dir, pw.pw_name
    rehomed = rehome(pw.pw_dir, pw.pw_name)
    conn.sendall(json.dumps({"pid": os.getpid()}).encode())
    conn.close()
    log("server %d for %s (uid %d, groups %s; pointed at their home: %s)" % (
        os.getpid(), name, pw.pw_uid, ",".join(grp.getgrgid(g).gr_name for g in os.getgroups()), ", ".join(rehomed) or "nothing"))
    from . import singleuser
    try:
        code = singleuser.run(req["args"], listen_fd)
    except SystemExit as e:
        code = e.code
    import atexit
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    return code if isinstance(code, int) else (0 if code is None else 1)


def main(argv):
    ap = argparse.ArgumentParser(prog="zygote.py", description="The learners' servers, forked from one preloaded process.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run the daemon (root)")
    s.add_argument("--socket", required=True, help="the Unix socket to listen on (root only)")
    s.add_argument("--preload", required=True, help="a file naming the modules to import, one a line")
    s.add_argument("--users", required=True, help="the accounts it may start servers for, comma-separated")
    s.add_argument("--processes", type=int, default=limits.PROCESSES, help="processes and threads a learner may have (RLIMIT_NPROC)")
    s.add_argument("--memory-mb", type=int, default=limits.MEMORY_MB, help="MiB of address space of each process of a server (RLIMIT_AS)")
    s.add_argument("--cgroup", default="", help="the class's cgroup v2 folder: each server enters its account's group in it (limits.Cgroups)")
    args = ap.parse_args(argv)
    serve(args)


if __name__ == "__main__":
    main(sys.argv[1:])
