"""The class's cell programs' daemon: finished cell programs shared between learners who run the
same cell, and the build slots every kernel takes turns for.

GoNB names each kernel's module after the kernel (gonb_1a2b3c4d), so no two learners' kernels link
the same program, and linking is most of a cell's CPU time. This module is both halves:

  python -m backofflab_class.cells serve --socket S --cache DIR --repo REPO [options]
      the daemon scripts/class starts under an account of its own (blc-CLASS), which no learner
      can log in as. It listens on the Unix socket S and serves two requests:

      build: the cell's sources (a tar of the kernel's *.go, go.mod, go.sum, go.work, go.work.sum).
          It checks them (plain files with plain names; no cgo: `import "C"` in any spelling is
          refused, and every build runs with CGO_ENABLED=0; go.mod and go.work as `go mod edit
          -json` and `go work edit -json` read them, with no folder outside the checkout),
          normalises the kernel's module name, and builds them itself, in a folder of its own, with
          its own go flags. The program is kept in DIR/programs/KEY, a folder only the daemon's
          account can open, where KEY hashes everything that determines the binary: the sources,
          the go version and build settings, and the state of every file of the checkout a build
          can read. The answer carries the program as an open file descriptor (SCM_RIGHTS): a
          learner receives the one program whose sources they sent, and can neither list nor open
          any other (before, the folder was world-readable: another learner's exercise solution
          could be listed, read and run).
      slot: one of the class's build slots, held as long as the connection is open (at most
          --build-seconds): a kernel's own `go build` (a cell the cache did not serve) takes one
          first, so that thirty kernels link a few programs at a time.

      Every learner is a possible attacker, so each account has limits of its own: at most
      --requests requests open at once (others are refused at once: the kernel builds without the
      cache), at most one build slot at a time (a learner cannot hold every slot: before, slots
      were lock files any account could flock for ever), each build at most --build-seconds of
      wall-clock time and --memory MiB of address space and --cpu seconds; a request must arrive
      whole within --request-seconds (30) and be at most 1 MiB.

  python -S -m backofflab_class.cellclient REALGO ARGS...
      the client (cellclient.py): class/bin/go runs it for `go build` in class mode. For GoNB's
      `go build -o $GONB_TMP_DIR/gonb_ID` it sends the sources and, when the daemon serves the
      program, copies it to the output; otherwise it takes a build slot and runs the real go
      command, which holds the slot until it ends. (`python -m backofflab_class.cells go REALGO
      ARGS...` runs the same client.)

Why a learner cannot put code into another learner's program: only the daemon's account writes
the cache, and it writes only programs it built itself, from the sources it received, under the
hash of those very sources. The daemon runs no learner code: it only compiles it, without cgo,
with fixed flags (no -toolexec, no -ldflags=-extld from a learner), from the read-only module cache
and the root-owned checkout, and its account can read only what every learner can read.
"""

import argparse
import hashlib
import io
import json
import os
import resource
import secrets
import shutil
import signal
import socket
import socketserver
import struct
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

from . import gosrc, logrelay
from .cellclient import BUILD_ENV, MODULE_FILES, PROTOCOL, Refused, valid_name

MAX_REQUEST = 1 << 20  # bytes of a request (a cell's sources are a few kilobytes)
MAX_FILE = 512 << 10
REQUEST_SECONDS = 30  # to send a whole request
MODULE_NAME = "gonb_cell"  # every cell's module, as the daemon builds it
BUILD_PREFIX = "gcell"  # the daemon's build folders: as long as GoNB's "gonb_"
SKIP = (".git", ".cache", "node_modules")  # the checkout's folders that are not its packages


# --- the daemon ---


def repo_state(repo, skip=SKIP):
    """A hash of the checkout's files a cell's build can read (path, size, modification time): every
    .go, go.mod, go.sum and go.work file, and every file of a package's folder and the folders below
    it (what //go:embed may embed). Lessons, notes and caches are not hashed: editing them builds
    nothing again."""
    h = hashlib.sha256()
    in_package = {}
    for root, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if not (root == repo and d in skip) and not d.startswith("."))
        pkg = root != repo and (in_package.get(os.path.dirname(root), False) or
                                any(f.endswith(".go") and not f.endswith("_test.go") for f in files))
        in_package[root] = pkg
        for f in sorted(files):
            if not (pkg or f.endswith(".go") or f in MODULE_FILES):
                continue
            p = os.path.join(root, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            h.update(("%s\0%d\0%d\n" % (os.path.relpath(p, repo), st.st_size, st.st_mtime_ns)).encode())
    return h.hexdigest()


def in_checkout(repo):
    """A predicate: whether an absolute, normalised path is the checkout or a folder of it that
    repo_state hashes (not its caches)."""
    def allowed(path):
        rel = os.path.relpath(path, repo)
        if rel == ".":
            return True
        first = rel.split(os.sep)[0]
        return first != ".." and not first.startswith(".") and first not in SKIP
    return allowed


def parse_header(line):
    try:
        header = json.loads(line)
    except ValueError:
        raise Refused("the header is not JSON")
    if not isinstance(header, dict) or header.get("protocol") != PROTOCOL or header.get("command") not in ("build", "slot"):
        raise Refused("not a %s request" % PROTOCOL)
    if header["command"] == "build" and not (isinstance(header.get("env"), dict) and all(isinstance(v, str) for v in header["env"].values())):
        raise Refused("a build request needs env (an object of strings)")
    return header


def read_sources(tar_bytes, repo, go="go", modules=None):
    """The cell's sources from a tar, checked, with go.mod normalised: {name: bytes}. modules, a
    ModuleMemo or None, keeps what earlier go.mod and go.work texts were read as."""
    files = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:") as tar:
            for m in tar:
                if not m.isreg():
                    raise Refused("%s: not a regular file" % m.name)
                if not valid_name(m.name) or not (m.name.endswith(".go") or m.name in MODULE_FILES):
                    raise Refused("%s: a cell has only .go files and its module files" % m.name)
                if m.name.endswith("_test.go"):
                    continue
                if m.size > MAX_FILE or m.name in files:
                    raise Refused("%s: too large, or twice" % m.name)
                files[m.name] = tar.extractfile(m).read()
    except tarfile.TarError as e:
        raise Refused("the sources are not a tar: %s" % e)
    if "go.mod" not in files or not any(n.endswith(".go") for n in files):
        raise Refused("no go.mod, or no .go file")
    for n, b in files.items():
        if n.endswith(".go"):
            try:
                if gosrc.uses_cgo(b.decode()):
                    raise Refused('%s imports "C": cgo is off in the class (CGO_ENABLED=0)' % n)
            except (UnicodeDecodeError, gosrc.SourceError) as e:
                raise Refused("%s is not Go source: %s" % (n, e))
    def read():
        try:
            work = files["go.work"].decode() if "go.work" in files else None
            return gosrc.module_files(files["go.mod"].decode(), work, in_checkout(repo), MODULE_NAME, go=go).encode()
        except UnicodeDecodeError:
            raise Refused("go.mod or go.work is not text")
        except gosrc.ModuleError as e:
            raise Refused(str(e))

    key = (files["go.mod"], files.get("go.work"))
    files["go.mod"] = modules.get(key, read) if modules is not None else read()
    return files


class ModuleMemo:
    """What go.mod and go.work texts were read as (the normalised go.mod, or the refusal), for the
    same texts again: every kernel of a class sends the same two files with each cell, and reading
    them takes three go commands (tens of milliseconds each on a busy machine, in every request).
    The answer depends on the texts alone (the go command, the module name and the checkout are
    the daemon's own), so a kept answer is the one reading them again would give. At most size
    answers are kept, the oldest dropped first."""

    def __init__(self, size=256):
        self.size, self.lock, self.kept = size, threading.Lock(), {}

    def get(self, key, read):
        with self.lock:
            kept = self.kept.get(key)
        if kept is None:
            try:
                kept = (read(), None)
            except Refused as e:
                kept = (None, str(e))
            with self.lock:
                self.kept[key] = kept
                while len(self.kept) > self.size:
                    del self.kept[next(iter(self.kept))]
        if kept[1] is not None:
            raise Refused(kept[1])
        return kept[0]


class Slots:
    """The class's build slots: total at once (0: no limit), at most per_uid of them held by one
    account, granted in the order they were asked for among the accounts that may take one."""

    def __init__(self, total, per_uid=1):
        self.total, self.per_uid = total, per_uid
        self.cond = threading.Condition()
        self.held = {}  # uid -> slots held
        self.queue = []  # tickets waiting, oldest first
        self.ticket = 0

    def _may(self, uid, me):
        if self.total and sum(self.held.values()) >= self.total:
            return False
        if self.held.get(uid, 0) >= self.per_uid:
            return False
        for t, u in self.queue:  # an older waiter who may take it goes first
            if t == me:
                return True
            if self.held.get(u, 0) < self.per_uid:
                return False
        return True

    def acquire(self, uid, timeout):
        """Waits up to timeout seconds for a slot for uid; returns whether it got one."""
        with self.cond:
            self.ticket += 1
            me = self.ticket
            self.queue.append((me, uid))
            try:
                ok = self.cond.wait_for(lambda: self._may(uid, me), timeout)
                if ok:
                    self.held[uid] = self.held.get(uid, 0) + 1
                return ok
            finally:
                self.queue.remove((me, uid))
                self.cond.notify_all()

    def release(self, uid):
        with self.cond:
            self.held[uid] -= 1
            if not self.held[uid]:
                del self.held[uid]
            self.cond.notify_all()


class Cache:
    """The programs folder, the builds in flight, the slots and each account's open requests."""

    def __init__(self, root, repo, slots, cpu, memory, max_bytes, build_seconds, requests, programs_on, log):
        self.root, self.repo = root, os.path.normpath(os.path.abspath(repo))
        self.programs = os.path.join(root, "programs")
        os.makedirs(self.programs, exist_ok=True)
        os.chmod(root, 0o711)  # (the socket is here; nobody lists or opens anything else)
        os.chmod(self.programs, 0o700)
        self.slots = Slots(slots)
        self.cpu, self.memory, self.max_bytes, self.build_seconds = cpu, memory, max_bytes, build_seconds
        self.requests, self.programs_on = requests, programs_on
        self.request_seconds = REQUEST_SECONDS
        self.lock = threading.Lock()
        self.flight = {}  # key -> threading.Event
        self.modules = ModuleMemo()
        self.open = {}  # uid -> requests open
        self.log = log
        self.env = {k: os.environ.get(k, "") for k in BUILD_ENV}
        if self.env["CGO_ENABLED"] != "0":
            raise SystemExit("cells: the daemon builds without cgo: run it with CGO_ENABLED=0")
        self.goversion = subprocess.run(["go", "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED"], capture_output=True, text=True, check=True).stdout

    def enter(self, uid):
        with self.lock:
            if self.open.get(uid, 0) >= self.requests:
                raise Refused("%d requests of this account are open already (at most %d at once)" % (self.open[uid], self.requests))
            self.open[uid] = self.open.get(uid, 0) + 1

    def leave(self, uid):
        with self.lock:
            self.open[uid] -= 1
            if not self.open[uid]:
                del self.open[uid]

    def key(self, files):
        h = hashlib.sha256()
        h.update(PROTOCOL.encode() + b"\0" + self.goversion.encode() + b"\0")
        h.update(json.dumps(self.env, sort_keys=True).encode() + b"\0" + self.repo.encode() + b"\0" + repo_state(self.repo).encode() + b"\0")
        for n in sorted(files):
            h.update(b"%s\0%d\0" % (n.encode(), len(files[n])) + files[n])
        return h.hexdigest()

    def build_request(self, uid, header, tar_bytes):
        """Serves a build; returns (reply, an open descriptor of the program)."""
        if not self.programs_on:
            raise Refused("this class does not share cell programs")
        for k, v in self.env.items():
            if header["env"].get(k, "") != v:
                raise Refused("%s differs from the class's (%r, not %r)" % (k, header["env"].get(k, ""), v))
        files = read_sources(tar_bytes, self.repo, modules=self.modules)
        key = self.key(files)
        path = os.path.join(self.programs, key)
        while True:
            with self.lock:
                if os.path.exists(path):
                    status = "hit"
                    break
                ev = self.flight.get(key)
                if ev is None:
                    ev = self.flight[key] = threading.Event()
                    status = "built"
                    break
            ev.wait()
            if not os.path.exists(path):  # that build failed: this one builds it again
                continue
        if status == "hit":
            try:
                os.utime(path + ".dir")
            except OSError:
                pass
        else:
            try:
                self.build(uid, files, path)
            finally:
                with self.lock:
                    self.flight.pop(key).set()
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        with open(path + ".dir") as f:
            builddir = f.read().strip()
        reply = {"status": status, "key": key, "builddir": builddir, "size": os.fstat(fd).st_size}
        if status == "built":  # (what it was made of, to see why two kernels' cells differed)
            reply["made_of"] = " ".join("%s=%s" % (n, hashlib.sha256(files[n]).hexdigest()[:8]) for n in sorted(files))
        return reply, fd

    def build(self, uid, files, path):
        tmp = tempfile.gettempdir()
        while True:
            d = os.path.join(tmp, BUILD_PREFIX + secrets.token_hex(4))
            try:
                os.mkdir(d, 0o700)  # ours alone: a folder someone else made is never used
                break
            except FileExistsError:
                continue
        try:
            for n, b in files.items():
                with open(os.path.join(d, n), "xb") as f:
                    f.write(b)
            out = os.path.join(d, MODULE_NAME)

            def limits():
                resource.setrlimit(resource.RLIMIT_CPU, (self.cpu, self.cpu))
                resource.setrlimit(resource.RLIMIT_AS, (self.memory << 20, self.memory << 20))

            if not self.slots.acquire(uid, 2 * self.build_seconds):
                raise Refused("no build slot free within %d s" % (2 * self.build_seconds))
            try:
                p = subprocess.Popen(["go", "build", "-o", out], cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, preexec_fn=limits, start_new_session=True)
                try:
                    output, _ = p.communicate(timeout=self.build_seconds)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.communicate()
                    raise Refused("the build took longer than %d s (--build-seconds)" % self.build_seconds)
                finally:
                    try:
                        os.killpg(p.pid, signal.SIGKILL)  # (anything it left behind)
                    except ProcessLookupError:
                        pass
            finally:
                self.slots.release(uid)
            if p.returncode != 0:
                raise Refused("the build failed (the kernel builds it again and shows why): " + output.decode(errors="replace")[-400:])
            tmpfile = os.path.join(self.programs, ".new-" + secrets.token_hex(8))
            shutil.copyfile(out, tmpfile)
            os.chmod(tmpfile, 0o500)
            with open(tmpfile + ".dir", "w") as f:
                f.write(d + "\n")
            os.chmod(tmpfile + ".dir", 0o400)
            os.rename(tmpfile + ".dir", path + ".dir")
            os.rename(tmpfile, path)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        self.trim()

    def trim(self):
        """Keeps the programs under max_bytes, dropping the least recently used."""
        entries = []
        for n in os.listdir(self.programs):
            if len(n) == 64 and "." not in n:
                p = os.path.join(self.programs, n)
                try:
                    entries.append((os.stat(p + ".dir").st_mtime, os.stat(p).st_size, p))
                except OSError:
                    pass
        total = sum(e[1] for e in entries)
        for _, size, p in sorted(entries):
            if total <= self.max_bytes:
                break
            for q in (p, p + ".dir"):
                try:
                    os.remove(q)
                except OSError:
                    pass
            total -= size


def read_request(sock, limit, seconds):
    """A request: its length (4 bytes, big-endian), then that many bytes, at most limit, all
    within seconds; raises Refused otherwise."""
    deadline = time.monotonic() + seconds

    def read(n):
        chunks = []
        while n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Refused("the request did not arrive within %d s" % seconds)
            sock.settimeout(left)
            try:
                chunk = sock.recv(min(n, 65536))
            except socket.timeout:
                raise Refused("the request did not arrive within %d s" % seconds)
            if not chunk:
                raise Refused("the request ended early")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    n = struct.unpack(">I", read(4))[0]
    if n > limit:
        raise Refused("a request of %d bytes (at most %d)" % (n, limit))
    return read(n)


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        start = time.monotonic()
        sock = self.request
        cache = self.server.cache
        uid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[1]
        fd, command, reply = None, "-", None
        try:
            cache.enter(uid)
        except Refused as e:
            reply = {"status": "refused", "reason": str(e)}
        else:
            try:
                data = read_request(sock, MAX_REQUEST, cache.request_seconds)
                nl = data.find(b"\n")
                header = parse_header(data[:nl] if nl >= 0 else data)
                command = header["command"]
                if command == "slot":
                    self.slot(uid, cache, start)
                    return
                reply, fd = cache.build_request(uid, header, data[nl + 1:])
            except Refused as e:
                reply = {"status": "refused", "reason": str(e)}
            except Exception as e:  # the client builds as usual; the daemon keeps serving
                reply = {"status": "refused", "reason": "daemon error: %r" % e}
            finally:
                cache.leave(uid)
        try:
            body = json.dumps(reply).encode() + b"\n"
            sock.settimeout(30)
            if fd is not None:
                socket.send_fds(sock, [body], [fd])
            else:
                sock.sendall(body)
        except OSError:
            pass
        finally:
            if fd is not None:
                os.close(fd)
        cache.log("uid=%d %s %s %s %.2fs%s" % (uid, command, reply["status"], reply.get("key", "-")[:12], time.monotonic() - start,
                                                 " (" + reply["reason"].splitlines()[0][:200] + ")" if reply["status"] == "refused" else
                                                 " " + reply["made_of"] if "made_of" in reply else ""))

    def slot(self, uid, cache, start):
        sock = self.request
        wait = 2 * cache.build_seconds  # (two slots' longest lease: a slot is sure to have come free)
        if not cache.slots.acquire(uid, wait):
            sock.sendall(json.dumps({"status": "refused", "reason": "no build slot free within %d s" % wait}).encode() + b"\n")
            return
        try:
            waited = time.monotonic() - start
            sock.sendall(json.dumps({"status": "granted", "seconds": cache.build_seconds}).encode() + b"\n")
            sock.settimeout(cache.build_seconds)  # held until the client's side closes, or for this long
            try:
                while sock.recv(4096):
                    pass
            except (socket.timeout, OSError):
                pass
        finally:
            cache.slots.release(uid)
        cache.log("uid=%d slot granted after %.2fs, held %.2fs" % (uid, waited, time.monotonic() - start - waited))


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 256  # a class's kernels ask at the same moment (socketserver's 5 refused some)


def serve(args):
    log = logrelay.stderr_log('')

    os.umask(0o077)
    cache = Cache(args.cache, args.repo, args.slots, args.cpu, args.memory, args.max_mb << 20, args.build_seconds,
                  args.requests, args.programs == "on", log)
    cache.request_seconds = args.request_seconds
    if os.path.exists(args.socket):
        os.remove(args.socket)
    srv = Server(args.socket, Handler)
    os.chmod(args.socket, 0o666)  # every learner may ask; each answer is theirs alone
    srv.cache = cache
    log("serving %s: programs %s, %s builds at once, each account at most %d requests and one build at a time, %d s a build" % (
        args.socket, "in " + cache.programs if cache.programs_on else "off", args.slots or "any number of", args.requests, args.build_seconds))
    srv.serve_forever()


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "go":  # (the client: cellclient.py)
        from .cellclient import go
        sys.exit(go(sys.argv[2:]))
    ap = argparse.ArgumentParser(prog="python -m backofflab_class.cells serve")
    ap.add_argument("command", choices=["serve"])
    ap.add_argument("--socket", required=True)
    ap.add_argument("--cache", required=True, help="the folder of the finished programs")
    ap.add_argument("--repo", required=True, help="the checkout the kernels' go.work uses")
    ap.add_argument("--programs", choices=["on", "off"], default="on", help="share finished cell programs (off: slots only)")
    ap.add_argument("--slots", type=int, default=2, help="builds at once, the daemon's and the kernels' (0: no limit)")
    ap.add_argument("--requests", type=int, default=4, help="requests one account may have open at once (>= 1)")
    ap.add_argument("--build-seconds", type=int, default=300, help="wall-clock seconds a build or a slot may take (>= 1)")
    ap.add_argument("--request-seconds", type=int, default=REQUEST_SECONDS, help="seconds to send a whole request (>= 1)")
    ap.add_argument("--cpu", type=int, default=120, help="CPU seconds per build (>= 5)")
    ap.add_argument("--memory", type=int, default=2048, help="MiB of address space per build (>= 512)")
    ap.add_argument("--max-mb", type=int, default=2048, help="MiB of programs kept (>= 64)")
    args = ap.parse_args()
    for name, v, lo in (("--slots", args.slots, 0), ("--requests", args.requests, 1), ("--build-seconds", args.build_seconds, 1),
                        ("--request-seconds", args.request_seconds, 1),
                        ("--cpu", args.cpu, 5), ("--memory", args.memory, 512), ("--max-mb", args.max_mb, 64)):
        if v < lo:
            ap.error("%s must be at least %d, got %d" % (name, lo, v))
    serve(args)


if __name__ == "__main__":
    main()
