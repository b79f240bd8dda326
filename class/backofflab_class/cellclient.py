"""The client of the cell programs' daemon (cells.py), as class/bin/go runs it for `go build`:

  python -S -m backofflab_class.cellclient REALGO build ARGS...

For GoNB's `go build -o $GONB_TMP_DIR/gonb_ID` it sends the cell's sources and, when the daemon
serves the program, copies it to the output (with the daemon's build folder renamed to the
kernel's own in the program's file table, so that a panic's stack trace still points at the
kernel's main.go and GoNB marks the cell's line) and exits 0. Otherwise (other build flags or
settings than the class's, sources other than a cell's, cgo, a build that failed, whose errors the
learner's own build then shows), it takes a build slot and runs the real go command, which inherits
the slot's connection and so holds the slot until it ends.

It runs once for every cell of every learner, so it is a module of its own that imports only what
it uses (the daemon's modules took three times as long to import as the client's work).
"""

import io
import json
import os
import socket
import struct
import sys
import tarfile

PROTOCOL = "backofflab-cells-2"
NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
MODULE_FILES = {"go.mod", "go.sum", "go.work", "go.work.sum"}
# Files a build reads besides .go files: a kernel folder holding any of these is not a plain cell.
FOREIGN = (".s", ".S", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".m", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx")
# The environment that changes what `go build` makes: the client's must equal the daemon's.
BUILD_ENV = ("GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH", "GOEXPERIMENT", "GOAMD64", "GO386", "GOARM", "GOARM64",
             "CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "GOROOT", "GOTOOLCHAIN",
             "GOWORK", "GODEBUG", "GOFIPS140", "PKG_CONFIG", "GCCGO")


class Refused(Exception):
    """The request cannot be served (the client builds as usual, and says why when asked)."""


def valid_name(n):
    return 0 < len(n) <= 255 and n[0] not in ".-" and set(n) <= NAME_CHARS


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
            if not os.path.isfile(p) or os.path.islink(p) or not valid_name(n):
                raise Refused("%s is not a regular file" % n)
            with open(p, "rb") as f:
                b = f.read()
            info = tarfile.TarInfo(n)
            info.size = len(b)
            tar.addfile(info, io.BytesIO(b))
    return buf.getvalue()


def copy_renamed(src, dst_path, old, new):
    """Copies the open file src to dst_path with every occurrence of old replaced by new (as long
    as old), a megabyte at a time: thirty kernels served the same program at the same moment must
    not each hold a copy of it in memory."""
    keep = len(old) - 1  # bytes carried to the next round: a match may straddle two reads
    with open(dst_path, "wb") as fo:
        tail = b""
        while chunk := src.read(1 << 20):
            buf = (tail + chunk).replace(old, new)
            cut = max(0, len(buf) - keep)
            fo.write(buf[:cut])
            tail = buf[cut:]
        fo.write(tail)


def ask(sock_path, body, with_fd=False, timeout=900):
    """Sends a request; returns (the socket, its JSON answer, a descriptor it carried or None)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)  # (blocking: with a timeout, a full queue would refuse at once instead of waiting)
    s.settimeout(timeout)
    s.sendall(struct.pack(">I", len(body)) + body)
    data, fds = b"", []
    while not data.endswith(b"\n"):
        chunk, got, _, _ = socket.recv_fds(s, 65536, 1)
        fds += got
        if not chunk:
            break
        data += chunk
    for extra in fds[1:]:
        os.close(extra)
    try:
        reply = json.loads(data)
    except ValueError:
        for fd in fds[:1]:
            os.close(fd)
        s.close()
        raise Refused("the daemon's answer is not JSON: %r" % data[:100])
    return s, reply, (fds[0] if fds else None)


def serve_cell(sock, argv, verbose):
    """Serves GoNB's `go build -o OUT` from the cache; returns whether it did."""
    d = os.environ.get("GONB_TMP_DIR", "")
    if len(argv) != 4 or argv[1:3] != ["build", "-o"] or not d:
        return False
    out = os.path.abspath(argv[3])
    try:
        if os.path.realpath(os.getcwd()) != os.path.realpath(d) or os.path.dirname(out) != os.path.abspath(d):
            raise Refused("not a build in the kernel's folder")
        body = json.dumps({"protocol": PROTOCOL, "command": "build", "env": {k: os.environ.get(k, "") for k in BUILD_ENV}}).encode() + b"\n" + request_files(d, out)
        s, reply, fd = ask(sock, body)
        s.close()
        if reply.get("status") not in ("hit", "built") or fd is None:
            if fd is not None:
                os.close(fd)
            raise Refused(reply.get("reason", "refused"))
        # The program's file table names the daemon's build folder: the kernel's own, instead (the
        # same length, so nothing in the program moves), for GoNB's stack-trace mapping.
        src, dst = reply["builddir"].encode() + b"/", os.path.abspath(d).encode() + b"/"
        tmp = out + ".cellcache"
        with os.fdopen(fd, "rb") as f:
            copy_renamed(f, tmp, src, dst if len(src) == len(dst) else src)
        if os.path.getsize(tmp) != reply["size"]:
            raise Refused("the program arrived short")
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
        print("cellcache: %s %s" % (reply["status"], reply["key"][:12]), file=sys.stderr)
        return True
    except (Refused, OSError, ValueError, KeyError) as e:
        if verbose:  # (else GoNB would show it with a build's errors)
            print("cellcache: not from the cache: %s" % e, file=sys.stderr)
        return False


def take_slot(sock, verbose):
    """A build slot: the open connection that holds it, or None (no daemon, or refused)."""
    try:
        s, reply, fd = ask(sock, json.dumps({"protocol": PROTOCOL, "command": "slot"}).encode() + b"\n", timeout=None)
    except (OSError, Refused) as e:
        if verbose:
            print("cellcache: no build slot: %s" % e, file=sys.stderr)
        return None
    if reply.get("status") != "granted":
        if verbose:
            print("cellcache: no build slot: %s" % reply.get("reason"), file=sys.stderr)
        s.close()
        return None
    return s


def go(argv):
    """class/bin/go's `go build`: from the cache if it serves it, else the real go command (argv[0])
    holding a build slot."""
    sock = os.environ.get("BACKOFFLAB_CELLS_SOCKET", "")
    verbose = os.environ.get("BACKOFFLAB_CELLS_VERBOSE") == "1"
    if sock and serve_cell(sock, argv, verbose):
        return 0
    slot = take_slot(sock, verbose) if sock else None
    if slot is not None:
        os.set_inheritable(slot.fileno(), True)  # the go command holds the slot until it ends
    os.execv(argv[0], argv)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit("usage: python -m backofflab_class.cellclient REALGO ARGS... (class/bin/go runs it for go build)")
    sys.exit(go(sys.argv[1:]))
