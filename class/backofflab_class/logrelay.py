"""Each learner's server writes its output into a pipe, and root copies it into that learner's own
log file, which no learner can open.

Before, every server (and so every kernel, which inherits the server's output) wrote straight into
the class's one log file: a learner's kernel could read every other learner's lines through
/proc/self/fd/1 and write into the instructor's log. A pipe gives a learner's processes nothing
but a way to write their own lines: reading it back returns only their own server's, and the file
behind it is root's (mode 0600, in the class's root-only state folder).

A learner who writes without end only fills their own log up to its cap (LogFile: later lines are
dropped, once saying so) and slows only their own server (Relay reads at most rate bytes a second
from a pipe: past that, the writer waits).
"""

import os
import sys
import threading
import time


def stderr_log(prefix=""):
    """A daemon's log function: one timestamped line to standard error per call, from any thread."""
    lock = threading.Lock()

    def log(msg):
        with lock:
            sys.stderr.write("%s %s%s\n" % (time.strftime("%H:%M:%S"), prefix, msg))
            sys.stderr.flush()

    return log


class LogFile:
    """A root-only log file for one account, kept under cap bytes; each line is prefixed."""

    def __init__(self, path, prefix, cap=32 << 20):
        self.prefix, self.cap = prefix.encode(), cap
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.fchmod(self.fd, 0o600)
        self.size = os.fstat(self.fd).st_size
        self.partial = b""
        self.full = self.size >= cap

    def write(self, data):
        """Adds data (bytes, any part of a line) to the log."""
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        if len(self.partial) > 4096:  # a line without end: cut it
            lines.append(self.partial)
            self.partial = b""
        self._emit(lines)

    def close(self):
        if self.partial:
            self._emit([self.partial])
            self.partial = b""
        os.close(self.fd)

    def _emit(self, lines):
        if not lines or self.full:
            return
        out = b"".join(self.prefix + line[:4096] + b"\n" for line in lines)
        if self.size + len(out) > self.cap:
            out = out[:max(0, self.cap - self.size)]
            out = out[:out.rfind(b"\n") + 1] + self.prefix + b"(log cap of %d bytes reached: later lines are dropped)\n" % self.cap
            self.full = True
        os.write(self.fd, out)
        self.size += len(out)


class Relay:
    """Copies what arrives on the read end of a pipe into a LogFile, on an asyncio loop, until the
    pipe's every writer has closed it."""

    def __init__(self, loop, fd, logfile, rate=1 << 20, on_close=None):
        self.loop, self.fd, self.log, self.rate = loop, fd, logfile, rate
        self.window, self.used = time.monotonic(), 0
        self.on_close = on_close
        os.set_blocking(fd, False)
        loop.add_reader(fd, self._read)
        self.open = True

    def _read(self):
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.close()
            return
        self.log.write(data)
        now = time.monotonic()
        if now - self.window >= 1:
            self.window, self.used = now, 0
        self.used += len(data)
        if self.used > self.rate:  # more than rate bytes this second: the writer waits
            self.loop.remove_reader(self.fd)
            self.loop.call_later(max(0.0, 1 - (now - self.window)), self._resume)

    def _resume(self):
        if self.open:
            self.window, self.used = time.monotonic(), 0
            self.loop.add_reader(self.fd, self._read)

    def close(self):
        if not self.open:
            return
        self.open = False
        self.loop.remove_reader(self.fd)
        os.close(self.fd)
        self.log.close()
        if self.on_close:
            self.on_close()
