"""Finished cell programs, shared between the learners of a class who run the same cell.

GoNB names each kernel's module after the kernel (gonb_1a2b3c4d), so no two learners' kernels link
the same program, and linking is most of a cell's CPU time. This file is both halves of a cache of
finished programs:

  cellcache.py serve --socket S --cache DIR --repo REPO [--slots N] [--cpu SECONDS] [--memory MB]
      the daemon scripts/class starts under an account of its own (blc-CLASS), which no learner
      can log in as. It listens on the Unix socket S, and for each request it receives the cell's
      sources (a tar of the kernel's *.go, go.mod, go.sum, go.work, go.work.sum), checks them,
      normalises the kernel's module name, and builds them itself, in a folder of its own, with
      its own go flags; the program is kept in DIR/programs/KEY, read-only to everyone, where KEY
      hashes everything that determines the binary: the sources (module name normalised), the go
      version and the build settings, and the state of every file of the checkout (the packages
      cells import: lab/, retry/, zoo/, ...). A second request with the same KEY gets the program
      at once; requests for a KEY being built wait for that one build.

  cellcache.py build -o OUT
      the client: class/bin/go runs it for GoNB's `go build -o $GONB_TMP_DIR/gonb_ID` in class
      mode. It sends the sources, copies the program to OUT (with the daemon's build folder
      renamed to the kernel's own in the program's file table, so that a panic's stack trace still
      points at the kernel's main.go and GoNB marks the cell's line), and exits 0. It exits 3, and
      the wrapper builds as usual, when the cache cannot serve the build: other build flags or
      settings than the class's, sources other than a cell's, the daemon not running, or the
      build failing (the learner's own build then prints the errors GoNB shows in the cell).

Why a learner cannot put code into another learner's program: only the daemon's account writes
the cache, and it writes only programs it built itself, from the sources it received, under the
hash of those very sources (a learner can choose what to build, never what is stored under a key
they did not build from). Learners only read the cache. The daemon runs no learner code: it only
compiles it, with fixed flags (no -toolexec, no -ldflags=-extld from a learner), from the read-only
module cache and the root-owned checkout (go.mod/go.work may point nowhere else), and its account
can read only what every learner can read (so a compile error cannot show a file a learner could
not read anyway).
"""

import argparse
import hashlib
import io
import json
import os
import re
import resource
import secrets
import shutil
import socket
import socketserver
import struct
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

PROTOCOL = "backofflab-cellcache-1"
MAX_REQUEST = 8 << 20  # bytes of sources in one request
MAX_FILE = 2 << 20
NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
MODULE_FILES = {"go.mod", "go.sum", "go.work", "go.work.sum"}
# Files a build reads besides .go files: a kernel folder holding any of these is not a plain cell.
FOREIGN = (".s", ".S", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".m", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx")
# The environment that changes what `go build` makes: the client's must equal the daemon's.
BUILD_ENV = ("GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH", "GOEXPERIMENT", "GOAMD64", "GO386", "GOARM", "GOARM64",
             "CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "GOROOT", "GOTOOLCHAIN",
             "GOWORK", "GODEBUG", "GOFIPS140", "PKG_CONFIG", "GCCGO")
MODULE_NAME = "gonb_cell"  # every cell's module, as the daemon builds it
BUILD_PREFIX = "gcell"  # the daemon's build folders: as long as GoNB's "gonb_"


SKIP = (".git", ".cache", "node_modules")  # the checkout's folders that are not its packages


class Refused(Exception):
    """The request cannot be served from the cache (the client builds as usual)."""


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


def within(path, repo):
    """Whether path is the checkout or a folder of it that repo_state hashes."""
    rel = os.path.relpath(os.path.normpath(path), repo)
    if rel == ".":
        return True
    first = rel.split(os.sep)[0]
    return first != ".." and not first.startswith(".") and first not in SKIP


def check_module_file(name, text, repo):
    """Refuses go.mod/go.work lines that would build code from outside the checkout and the module
    cache (a replace or use of another folder); returns the text with the module name normalised."""
    out = []
    block = None
    for line in text.splitlines():
        s = line.split("//", 1)[0].strip()
        words = s.split()
        if block and s == ")":
            block = None
        elif words and words[-1] == "(" and len(words) == 2:
            block = words[0]
        else:
            directive = block or (words[0] if words else "")
            args = words if block else words[1:]
            if name == "go.mod" and directive == "module" and args:
                line = "module " + MODULE_NAME
            elif directive == "use" and args:
                if args[0] != "." and not (os.path.isabs(args[0]) and within(args[0], repo)):
                    raise Refused("%s: use %s: only the cell's folder and the checkout" % (name, args[0]))
            elif directive == "replace" and "=>" in args:
                target = args[args.index("=>") + 1:]
                if target and (target[0].startswith(".") or target[0].startswith("/")):
                    if not (os.path.isabs(target[0]) and within(target[0], repo)):
                        raise Refused("%s: replace with %s: only the checkout" % (name, target[0]))
        out.append(line)
    return "\n".join(out) + "\n"


def read_request(data, repo):
    """Parses a request (a JSON line, then a tar of the sources): the build settings and the
    normalised sources, by name."""
    nl = data.find(b"\n")
    if nl < 0:
        raise Refused("no header")
    try:
        header = json.loads(data[:nl])
    except ValueError:
        raise Refused("the header is not JSON")
    if not isinstance(header, dict) or header.get("protocol") != PROTOCOL or not isinstance(header.get("env"), dict):
        raise Refused("not a %s request" % PROTOCOL)
    files = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data[nl + 1:]), mode="r:") as tar:
            for m in tar:
                if not m.isreg():
                    raise Refused("%s: not a regular file" % m.name)
                if not NAME_RE.match(m.name) or not (m.name.endswith(".go") or m.name in MODULE_FILES):
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
    for n in ("go.mod", "go.work"):
        if n in files:
            try:
                files[n] = check_module_file(n, files[n].decode(), repo).encode()
            except UnicodeDecodeError:
                raise Refused("%s is not text" % n)
    return header, files


class Cache:
    """The programs folder and the builds in flight."""

    def __init__(self, root, repo, slots, cpu, memory, max_bytes, log):
        self.root, self.repo = root, os.path.normpath(os.path.abspath(repo))
        self.programs = os.path.join(root, "programs")
        os.makedirs(self.programs, exist_ok=True)
        os.chmod(root, 0o755)
        os.chmod(self.programs, 0o755)
        self.slots = threading.BoundedSemaphore(max(1, slots))
        self.cpu, self.memory, self.max_bytes = cpu, memory, max_bytes
        self.lock = threading.Lock()
        self.flight = {}  # key -> threading.Event
        self.log = log
        self.env = {k: os.environ.get(k, "") for k in BUILD_ENV}
        self.goversion = subprocess.run(["go", "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED"], capture_output=True, text=True, check=True).stdout

    def state(self):
        return repo_state(self.repo)  # (a few milliseconds: every request sees the checkout as it is)

    def key(self, files):
        h = hashlib.sha256()
        h.update(PROTOCOL.encode() + b"\0" + self.goversion.encode() + b"\0")
        h.update(json.dumps(self.env, sort_keys=True).encode() + b"\0" + self.repo.encode() + b"\0" + self.state().encode() + b"\0")
        for n in sorted(files):
            h.update(b"%s\0%d\0" % (n.encode(), len(files[n])) + files[n])
        return h.hexdigest()

    def serve(self, data):
        header, files = read_request(data, self.repo)
        for k, v in self.env.items():
            if header["env"].get(k, "") != v:
                raise Refused("%s differs from the class's (%r, not %r)" % (k, header["env"].get(k, ""), v))
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
                self.build(key, files, path)
            finally:
                with self.lock:
                    self.flight.pop(key).set()
        with open(path + ".dir") as f:
            builddir = f.read().strip()
        reply = {"status": status, "key": key, "program": path, "builddir": builddir}
        if status == "built":  # (what it was made of, to see why two kernels' cells differed)
            reply["made_of"] = " ".join("%s=%s" % (n, hashlib.sha256(files[n]).hexdigest()[:8]) for n in sorted(files))
        return reply

    def build(self, key, files, path):
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
                os.setsid()
                resource.setrlimit(resource.RLIMIT_CPU, (self.cpu, self.cpu))
                resource.setrlimit(resource.RLIMIT_AS, (self.memory << 20, self.memory << 20))

            with self.slots:
                p = subprocess.run(["go", "build", "-o", out], cwd=d, capture_output=True, preexec_fn=limits, timeout=600)
            if p.returncode != 0:
                raise Refused("the build failed (the kernel builds it again and shows why): " + p.stderr.decode(errors="replace")[-400:])
            tmpfile = os.path.join(self.programs, ".new-" + secrets.token_hex(8))
            shutil.copyfile(out, tmpfile)
            os.chmod(tmpfile, 0o555)
            with open(tmpfile + ".dir", "w") as f:
                f.write(d + "\n")
            os.chmod(tmpfile + ".dir", 0o444)
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


class Handler(socketserver.StreamRequestHandler):
    timeout = 120  # seconds to send a request or take the answer (a build in flight may take longer)

    def handle(self):
        start = time.monotonic()
        cred = self.request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        uid = struct.unpack("3i", cred)[1]
        data = self.rfile.read(MAX_REQUEST + 1)
        try:
            if len(data) > MAX_REQUEST:
                raise Refused("more than %d bytes of sources" % MAX_REQUEST)
            reply = self.server.cache.serve(data)
        except Refused as e:
            reply = {"status": "refused", "reason": str(e)}
        except Exception as e:  # the client builds as usual; the daemon keeps serving
            reply = {"status": "refused", "reason": "daemon error: %r" % e}
        self.wfile.write(json.dumps(reply).encode() + b"\n")
        self.server.cache.log("uid=%d %s %s %.2fs%s" % (uid, reply["status"], reply.get("key", "-")[:12], time.monotonic() - start,
                                                         " (" + reply["reason"].splitlines()[0][:200] + ")" if reply["status"] == "refused" else
                                                         " " + reply["made_of"] if "made_of" in reply else ""))


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 256  # a class's kernels ask at the same moment (socketserver's 5 refused some)


def serve(args):
    logf = open(args.log, "a", buffering=1) if args.log else sys.stderr
    lock = threading.Lock()

    def log(msg):
        with lock:
            logf.write("%s %s\n" % (time.strftime("%H:%M:%S"), msg))

    os.umask(0o022)
    cache = Cache(args.cache, args.repo, args.slots, args.cpu, args.memory, args.max_mb << 20, log)
    if os.path.exists(args.socket):
        os.remove(args.socket)
    srv = Server(args.socket, Handler)
    os.chmod(args.socket, 0o666)  # every learner may ask; only this account writes the cache
    srv.cache = cache
    log("serving %s, programs in %s, %d builds at once" % (args.socket, cache.programs, args.slots))
    srv.serve_forever()


# --- the client ---


def request_files(d, out):
    """The cell's sources in the kernel's folder d, as a tar; Refused if the folder holds anything a
    build would read besides them."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if p == out or n == "gopls_socket":
                continue
            if os.path.isdir(p) or n.endswith(FOREIGN):
                raise Refused("the kernel's folder has %s: not a plain cell" % n)
            if not (n.endswith(".go") or n in MODULE_FILES) or n.endswith("_test.go"):
                continue
            if not os.path.isfile(p) or os.path.islink(p) or not NAME_RE.match(n):
                raise Refused("%s is not a regular file" % n)
            with open(p, "rb") as f:
                b = f.read()
            info = tarfile.TarInfo(n)
            info.size = len(b)
            tar.addfile(info, io.BytesIO(b))
    return buf.getvalue()


def copy_renamed(src_path, dst_path, old, new):
    """Copies the file src_path to dst_path with every occurrence of old replaced by new (as long
    as old), a megabyte at a time: thirty kernels served the same program at the same moment must
    not each hold a copy of it in memory."""
    keep = len(old) - 1  # bytes carried to the next round: a match may straddle two reads
    with open(src_path, "rb") as fi, open(dst_path, "wb") as fo:
        tail = b""
        while chunk := fi.read(1 << 20):
            buf = (tail + chunk).replace(old, new)
            cut = max(0, len(buf) - keep)
            fo.write(buf[:cut])
            tail = buf[cut:]
        fo.write(tail)


def client(argv):
    """Serves `go build -o OUT` from the cache; returns the exit code (3: build as usual)."""
    sock = os.environ.get("BACKOFFLAB_CELLS_SOCKET", "")
    d = os.environ.get("GONB_TMP_DIR", "")
    if len(argv) != 2 or argv[0] != "-o" or not sock or not d:
        return 3
    out = os.path.abspath(argv[1])
    try:
        if os.path.realpath(os.getcwd()) != os.path.realpath(d) or os.path.dirname(out) != os.path.abspath(d):
            raise Refused("not a build in the kernel's folder")
        body = json.dumps({"protocol": PROTOCOL, "env": {k: os.environ.get(k, "") for k in BUILD_ENV}}).encode() + b"\n" + request_files(d, out)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock)  # (blocking: with a timeout, a full queue would refuse at once instead of waiting)
        s.settimeout(900)
        s.sendall(body)
        s.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        s.close()
        reply = json.loads(data)
        if reply.get("status") not in ("hit", "built"):
            raise Refused(reply.get("reason", "refused"))
        # The program's file table names the daemon's build folder: the kernel's own, instead (the
        # same length, so nothing in the program moves), for GoNB's stack-trace mapping.
        src, dst = reply["builddir"].encode() + b"/", os.path.abspath(d).encode() + b"/"
        tmp = out + ".cellcache"
        copy_renamed(reply["program"], tmp, src, dst if len(src) == len(dst) else src)
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
        print("cellcache: %s %s" % (reply["status"], reply["key"][:12]), file=sys.stderr)
        return 0
    except (Refused, OSError, ValueError) as e:
        if os.environ.get("BACKOFFLAB_CELLS_VERBOSE") == "1":  # (else GoNB would show it with a build's errors)
            print("cellcache: not from the cache: %s" % e, file=sys.stderr)
        return 3


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "build":
        sys.exit(client(sys.argv[2:]))
    ap = argparse.ArgumentParser(prog="cellcache.py serve")
    ap.add_argument("command", choices=["serve"])
    ap.add_argument("--socket", required=True)
    ap.add_argument("--cache", required=True, help="the folder of the finished programs")
    ap.add_argument("--repo", required=True, help="the checkout the kernels' go.work uses")
    ap.add_argument("--slots", type=int, default=2, help="builds at once (>= 1)")
    ap.add_argument("--cpu", type=int, default=120, help="CPU seconds per build (>= 5)")
    ap.add_argument("--memory", type=int, default=2048, help="MiB of address space per build (>= 512)")
    ap.add_argument("--max-mb", type=int, default=2048, help="MiB of programs kept (>= 64)")
    ap.add_argument("--log", default="")
    args = ap.parse_args()
    for name, v, lo in (("--slots", args.slots, 1), ("--cpu", args.cpu, 5), ("--memory", args.memory, 512), ("--max-mb", args.max_mb, 64)):
        if v < lo:
            ap.error("%s must be at least %d, got %d" % (name, lo, v))
    serve(args)


if __name__ == "__main__":
    main()
