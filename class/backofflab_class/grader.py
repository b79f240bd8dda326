"""Grading in a sandbox: the kernels nbgrader's autograde starts run as an account of their own,
never as the instructor, with time and memory limits.

autograde executes every learner's submitted notebook. Run as the instructor, a submission could
rewrite the gradebook, the course or the other learners' submissions. So the instructor's
nbgrader (the course's nbgrader_config.py names the kernel "backofflab-go-grader") starts this
module's launcher instead of a kernel:

  python -m backofflab_class.grader kernel CONNECTION_FILE      (the instructor's, as kernel.json's argv)
      sends the connection file (ports and key the instructor's nbgrader chose) to the grading
      daemon, forwards SIGINT (nbgrader's interrupt, on a cell's timeout) to the kernel, and lives
      as long as the kernel does: nbgrader sees an ordinary kernel process.

  python -m backofflab_class.grader serve --socket S --instructor NAME --account SANDBOX ...
      the daemon (root, started by scripts/class). It answers the instructor only (the peer's uid,
      SO_PEERCRED), one kernel at a time, each in the sandbox account (no login, no password, a
      home of its own), after ending every process the account still has and emptying its home and
      its files in the shared temporary folders: nothing of one submission's run is left for the
      next. The kernel is scripts/kernel in class mode (every process at most --cpu seconds of CPU
      and --memory-mb MiB; the account at most --processes processes), for at most --seconds of
      wall-clock time; its output goes to the daemon's log. When the kernel ends, or the launcher
      does, or the time is up, the account's processes end.

The sandbox can read what every account can read (the checkout, the module cache) and write only
its home and the shared temporary folders; it cannot open the instructor's home (the gradebook,
the course, the collected submissions) or any learner's.
"""

import argparse
import json
import os
import pwd
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

from . import homes, limits, logrelay, procs

PROTOCOL = "backofflab-grader-1"
MAX_REQUEST = 64 << 10


def _frame(obj):
    b = json.dumps(obj).encode()
    return struct.pack(">I", len(b)) + b


def _read_frame(sock, timeout=30):
    sock.settimeout(timeout)
    data = b""
    while len(data) < 4:
        chunk = sock.recv(4 - len(data))
        if not chunk:
            raise EOFError("the connection ended")
        data += chunk
    n = struct.unpack(">I", data)[0]
    if n > MAX_REQUEST:
        raise ValueError("a message of %d bytes (at most %d)" % (n, MAX_REQUEST))
    body = b""
    while len(body) < n:
        chunk = sock.recv(n - len(body))
        if not chunk:
            raise EOFError("the connection ended")
        body += chunk
    return json.loads(body)


def check_connection(info):
    """The connection file's fields a kernel needs, checked: a kernel on this machine only."""
    if not isinstance(info, dict):
        raise ValueError("the connection file is not a JSON object")
    if info.get("transport", "tcp") != "tcp" or info.get("ip") not in ("127.0.0.1", "localhost"):
        raise ValueError("a grading kernel listens on 127.0.0.1 over tcp only, not %r %r" % (info.get("transport"), info.get("ip")))
    out = {"transport": "tcp", "ip": "127.0.0.1"}
    for k in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"):
        v = info.get(k)
        if not isinstance(v, int) or not 1024 <= v <= 65535:
            raise ValueError("%s must be a port from 1024 to 65535, got %r" % (k, v))
        out[k] = v
    for k in ("key", "signature_scheme", "kernel_name"):
        if not isinstance(info.get(k, ""), str):
            raise ValueError("%s must be a string" % k)
        out[k] = info.get(k, "")
    if out["signature_scheme"] not in ("", "hmac-sha256"):
        raise ValueError("signature_scheme %r is not hmac-sha256" % out["signature_scheme"])
    return out


# --- the daemon ---


class Sandbox:
    def __init__(self, args, log):
        self.args, self.log = args, log
        self.pw = pwd.getpwnam(args.account)
        self.instructor_uid = pwd.getpwnam(args.instructor).pw_uid
        if self.pw.pw_uid == 0 or self.pw.pw_uid == self.instructor_uid:
            raise SystemExit("grader: the sandbox account must be neither root nor the instructor")
        self.lock = threading.Lock()
        self.env = dict(kv.split("=", 1) for kv in args.kernel_env)

    def reset(self):
        """Ends every process of the sandbox account and empties its home and temporary files."""
        if self.args.cgroup:
            limits.Cgroups(self.args.cgroup).kill(self.pw.pw_name)
        left = procs.kill_uid(self.pw.pw_uid, 10)
        if left:
            raise RuntimeError("the sandbox account still has processes: %s" % left)
        homes.clean_tmp(self.pw.pw_uid)
        home = self.pw.pw_dir
        if os.path.lexists(home):
            shutil.rmtree(home)  # (fd-based on Linux: a link inside is removed, never followed)
        os.mkdir(home, 0o700)
        os.chown(home, self.pw.pw_uid, self.pw.pw_gid)

    def run(self, conn, info):
        pw, a = self.pw, self.args
        if not self.lock.acquire(timeout=120):
            raise RuntimeError("another notebook has been grading for 2 minutes; try again")
        try:
            self.reset()
            home = pw.pw_dir
            fd = os.open(os.path.join(home, "kernel.json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(info, f)
                os.fchown(f.fileno(), pw.pw_uid, pw.pw_gid)
            env = dict(self.env, HOME=home, USER=pw.pw_name, LOGNAME=pw.pw_name,
                       BACKOFFLAB_CPU_SECONDS=str(a.cpu), BACKOFFLAB_MEMORY_MB=str(a.memory_mb), BACKOFFLAB_CLASS="1")
            gids = os.getgrouplist(pw.pw_name, pw.pw_gid)

            def become():
                if a.cgroup:
                    try:
                        limits.Cgroups(a.cgroup).enter(pw.pw_name)
                    except OSError as e:
                        os.write(2, ("not in the sandbox's cgroup (%s): the rlimits alone apply\n" % e).encode())
                os.setgroups(gids)
                os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
                os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
                limits.apply(a.processes, a.memory_mb)
                os.chdir(home)

            r, w = os.pipe()
            p = subprocess.Popen(["/usr/bin/env", "bash", os.path.join(a.repo, "scripts", "kernel"), os.path.join(home, "kernel.json")],
                                 env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=w, stderr=w, start_new_session=True, preexec_fn=become)
            os.close(w)
            threading.Thread(target=self._copy_output, args=(r,), daemon=True).start()
            conn.sendall(_frame({"pid": p.pid}))
            self.log("kernel %d in %s for the instructor (at most %d s)" % (p.pid, pw.pw_name, a.seconds))
            code = self._wait(conn, p)
            try:
                conn.sendall(_frame({"exit": code}))
            except OSError:
                pass
        finally:
            try:
                procs.kill_uid(pw.pw_uid, 10)
                homes.clean_tmp(pw.pw_uid)
            finally:
                self.lock.release()

    def _wait(self, conn, p):
        """Until the kernel ends, the launcher goes, or the time is up; forwards interrupts."""
        deadline = time.monotonic() + self.args.seconds
        pidfd = os.pidfd_open(p.pid)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.log("kernel %d: %d s of wall-clock time: ended" % (p.pid, self.args.seconds))
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
                    return -signal.SIGKILL
                ready = select.select([conn, pidfd], [], [], left)[0]
                if pidfd in ready:
                    return p.wait()
                if conn in ready:
                    try:
                        msg = conn.recv(64)
                    except OSError:
                        msg = b""
                    if not msg:  # the launcher ended: so does its kernel
                        os.killpg(p.pid, signal.SIGKILL)
                        p.wait()
                        return -signal.SIGKILL
                    if b"i" in msg:
                        try:
                            os.killpg(p.pid, signal.SIGINT)
                        except ProcessLookupError:
                            pass
        finally:
            os.close(pidfd)

    def _copy_output(self, fd, cap=32 << 20):
        """Copies the kernel's output into the daemon's log, up to cap bytes a kernel."""
        n = 0
        try:
            while chunk := os.read(fd, 65536):
                n += len(chunk)
                if n <= cap:
                    for line in chunk.decode(errors="replace").splitlines():
                        self.log("sandbox: " + line[:2000])
        finally:
            os.close(fd)


def serve(args):
    log = logrelay.stderr_log('grader: ')

    if os.geteuid() != 0:
        raise SystemExit("grader: it runs kernels as the sandbox account, so it must run as root")
    limits.check(args.processes, args.memory_mb)
    sandbox = Sandbox(args, log)
    sandbox.reset()
    try:
        os.unlink(args.socket)
    except FileNotFoundError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(args.socket)
    os.chown(args.socket, sandbox.instructor_uid, 0)
    os.chmod(args.socket, 0o600)  # the instructor's (and the uid is checked besides)
    srv.listen(16)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    log("grading kernels for %s run as %s, listening on %s" % (args.instructor, args.account, args.socket))

    def handle(conn):
        with conn:
            uid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[1]
            try:
                if uid != sandbox.instructor_uid:
                    raise PermissionError("only the instructor may start grading kernels (uid %d asked)" % uid)
                req = _read_frame(conn)
                if not isinstance(req, dict) or req.get("protocol") != PROTOCOL:
                    raise ValueError("not a %s request" % PROTOCOL)
                sandbox.run(conn, check_connection(req.get("connection")))
            except Exception as e:  # noqa: BLE001 (the launcher says why, and nbgrader shows it)
                log("refused uid %d: %s" % (uid, e))
                try:
                    conn.sendall(_frame({"error": str(e)}))
                except OSError:
                    pass

    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


# --- the launcher ---


def kernel(connection_file, sock_path):
    """The instructor's side: a kernel process for nbgrader, whose kernel runs in the sandbox."""
    with open(connection_file) as f:
        info = json.load(f)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sock_path)
    except OSError as e:
        raise SystemExit("grader: the grading daemon does not answer at %s (%s): is the class running?" % (sock_path, e))
    s.sendall(_frame({"protocol": PROTOCOL, "connection": info}))
    answer = _read_frame(s, timeout=180)
    if "pid" not in answer:
        raise SystemExit("grader: %s" % answer.get("error", "no kernel"))
    signal.signal(signal.SIGINT, lambda *_: s.sendall(b"i"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        end = _read_frame(s, timeout=None)
    except (EOFError, OSError, ValueError):
        return 1
    code = end.get("exit", 1)
    return code if isinstance(code, int) and code >= 0 else 1


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m backofflab_class.grader")
    sub = ap.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kernel", help="the instructor's kernel launcher (kernel.json's argv)")
    k.add_argument("connection_file")
    k.add_argument("--socket", default=os.environ.get("BACKOFFLAB_GRADER_SOCKET", ""))
    s = sub.add_parser("serve", help="the grading daemon (root)")
    s.add_argument("--socket", required=True)
    s.add_argument("--instructor", required=True, help="the only account that may start grading kernels")
    s.add_argument("--account", required=True, help="the sandbox account the kernels run as")
    s.add_argument("--repo", required=True, help="the checkout (scripts/kernel)")
    s.add_argument("--kernel-env", action="append", default=[], metavar="KEY=VALUE", help="the kernel's environment (class mode)")
    s.add_argument("--seconds", type=int, default=900, help="wall-clock seconds a grading kernel may live (>= 30)")
    s.add_argument("--cpu", type=int, default=120, help="CPU seconds of each process of a kernel (>= 5)")
    s.add_argument("--memory-mb", type=int, default=limits.MEMORY_MB, help="MiB of address space of each process")
    s.add_argument("--processes", type=int, default=256, help="processes and threads of the sandbox account")
    s.add_argument("--cgroup", default="", help="the class's cgroup v2 folder: the sandbox's kernels enter the account's group")
    args = ap.parse_args(argv)
    if args.cmd == "kernel":
        if not args.socket:
            ap.error("kernel: --socket (or BACKOFFLAB_GRADER_SOCKET) must name the grading daemon's socket")
        sys.exit(kernel(args.connection_file, args.socket))
    for name, v, lo in (("--seconds", args.seconds, 30), ("--cpu", args.cpu, 5)):
        if v < lo:
            ap.error("%s must be at least %d, got %d" % (name, lo, v))
    if any("=" not in kv for kv in args.kernel_env):
        ap.error("--kernel-env takes KEY=VALUE")
    serve(args)


if __name__ == "__main__":
    main(sys.argv[1:])
