"""A learner at a browser, as a program: logs in to the class's JupyterHub, starts the learner's
server, opens a notebook's kernel and runs cells through the Jupyter protocol (the websocket a
browser uses). scripts/class-bench and the class tests (internal/classroom) drive it.

    python client.py run URL USER PASSWORD NOTEBOOK      run a notebook (a path in the home) top to bottom
    python client.py cell URL USER PASSWORD CODE [SECS]  run one cell in a fresh scratch kernel (at most SECS, default 600)
    python client.py get URL USER PASSWORD PATH...       start the server, GET each path (as that learner), print the statuses
    python client.py stop URL USER PASSWORD              stop the learner's server (as the hub's page does), wait until it is gone
    python client.py bench URL ROSTER_CSV N NOTEBOOK     N learners at once: cell times, first chart, memory

Each prints one JSON object on standard output.
"""
import json
import os
import pwd
import random
import sys
import threading
import time
import uuid

import requests
import websocket


class Learner:
    """One logged-in account: a session with the hub's and the server's cookies."""

    def __init__(self, url, user, password):
        self.url, self.user = url.rstrip("/"), user
        self.s = requests.Session()
        self.s.get(self.url + "/hub/login", timeout=60)
        r = self.s.post(self.url + "/hub/login", timeout=120, allow_redirects=False,
                        data={"username": user, "password": password, "_xsrf": self.s.cookies.get("_xsrf", "")})
        if r.status_code != 302:
            raise RuntimeError("login of %s failed: HTTP %d" % (user, r.status_code))

    def xsrf(self, path="/hub/"):
        for c in self.s.cookies:
            if c.name == "_xsrf" and path.startswith(c.path or "/"):
                best = c.value
        return best

    def start_server(self, timeout=180):
        """Starts the learner's server (if it is not running) and waits until it answers."""
        api = self.url + "/hub/api/users/" + self.user
        h = {"X-XSRFToken": self.xsrf("/hub/")}
        r = self.s.post(api + "/server", headers=h, timeout=120)
        if r.status_code not in (201, 202, 400):  # 400: already running
            raise RuntimeError("starting %s's server: HTTP %d %s" % (self.user, r.status_code, r.text[:200]))
        deadline = time.time() + timeout
        while time.time() < deadline:
            info = self.s.get(api, headers=h, timeout=60).json()
            srv = info.get("servers", {}).get("")
            if srv and srv.get("ready"):
                break
            time.sleep(0.3)
        else:
            raise RuntimeError("%s's server did not start within %d s" % (self.user, timeout))
        # Opening a page of the server logs in to it (OAuth through the hub), as a browser does.
        self.s.get(self.server() + "lab", timeout=120)
        r = self.s.get(self.server() + "api/status", timeout=120)
        if r.status_code != 200:
            raise RuntimeError("%s's server: HTTP %d" % (self.user, r.status_code))

    def stop_server(self, timeout=120):
        """Stops the learner's server through the hub's API and waits until the hub says it is gone."""
        api = self.url + "/hub/api/users/" + self.user
        h = {"X-XSRFToken": self.xsrf("/hub/")}
        r = self.s.delete(api + "/server", headers=h, timeout=120)
        if r.status_code not in (202, 204, 400):
            raise RuntimeError("stopping %s's server: HTTP %d %s" % (self.user, r.status_code, r.text[:200]))
        deadline = time.time() + timeout
        while time.time() < deadline:
            if not self.s.get(api, headers=h, timeout=60).json().get("servers", {}).get(""):
                return
            time.sleep(0.3)
        raise RuntimeError("%s's server did not stop within %d s" % (self.user, timeout))

    def server(self, user=None):
        return "%s/user/%s/" % (self.url, user or self.user)

    def get(self, path):
        return self.s.get(self.url + path, timeout=60, allow_redirects=True)

    def open_kernel(self, path, kernel="backofflab-go"):
        h = {"X-XSRFToken": self.xsrf("/user/%s/" % self.user)}
        r = self.s.post(self.server() + "api/sessions", headers=h, timeout=120,
                        json={"path": path, "type": "notebook", "name": path.split("/")[-1], "kernel": {"name": kernel}})
        r.raise_for_status()
        return Kernel(self, r.json()["kernel"]["id"], r.json()["id"])

    def notebook(self, path):
        r = self.s.get(self.server() + "api/contents/" + path, timeout=60)
        r.raise_for_status()
        return r.json()["content"]


class Kernel:
    """A kernel's channels, over the server's websocket."""

    def __init__(self, learner, kid, session_id):
        self.l, self.kid, self.session_id = learner, kid, session_id
        ws_url = learner.server().replace("http", "ws", 1) + "api/kernels/%s/channels" % kid
        cookie = "; ".join("%s=%s" % (c.name, c.value) for c in learner.s.cookies)
        self.ws = websocket.create_connection(ws_url, cookie=cookie, timeout=600,
                                              header=["X-XSRFToken: " + learner.xsrf("/user/%s/" % learner.user)])
        self.session = uuid.uuid4().hex

    def execute(self, code, timeout=600):
        """Runs code; returns (seconds, outputs, status)."""
        mid = uuid.uuid4().hex
        msg = {"header": {"msg_id": mid, "username": self.l.user, "session": self.session, "msg_type": "execute_request", "version": "5.3"},
               "parent_header": {}, "metadata": {}, "channel": "shell",
               "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False, "stop_on_error": False}}
        start = time.time()
        self.ws.send(json.dumps(msg))
        outputs, status, idle, replied = [], None, False, False
        while not (idle and replied):
            left = timeout - (time.time() - start)
            if left <= 0:
                return time.time() - start, outputs, "timeout"
            self.ws.settimeout(left)
            try:
                m = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                return time.time() - start, outputs, "timeout"
            if m.get("parent_header", {}).get("msg_id") != mid:
                continue
            t = m["header"]["msg_type"]
            c = m["content"]
            if t == "stream":
                outputs.append({"type": "stream", "text": c["text"]})
            elif t in ("display_data", "execute_result") and 'data-mime-type="application/vnd.jupyter.stderr"' in str(c["data"].get("text/html", "")):
                outputs.append({"type": "stream", "text": html_text(c["data"]["text/html"])})  # (GoNB shows compile errors so)
            elif t in ("display_data", "execute_result"):
                outputs.append({"type": t, "mimes": sorted(c["data"]), "text": str(c["data"].get("text/plain", "")),
                                "chart": any(k in c["data"] for k in ("image/png", "image/svg+xml")) or "echarts" in str(c["data"].get("text/html", "")) or "<svg" in str(c["data"].get("text/html", "")) or "<img" in str(c["data"].get("text/html", ""))})
            elif t == "error":
                outputs.append({"type": "error", "text": c.get("ename", "") + ": " + c.get("evalue", "") + "\n" + "\n".join(c.get("traceback", []))})
            elif t == "execute_reply":
                status, replied = c["status"], True
            elif t == "status" and c["execution_state"] == "idle":
                idle = True
        return time.time() - start, outputs, status

    def close(self):
        try:
            self.ws.close()
        finally:
            h = {"X-XSRFToken": self.l.xsrf("/user/%s/" % self.l.user)}
            self.l.s.delete(self.l.server() + "api/sessions/" + self.session_id, headers=h, timeout=60)


def html_text(h):
    """The text an HTML output shows (its styles and tags dropped)."""
    import html
    import re
    h = re.sub(r"(?s)<style.*?</style>", "", h)
    return html.unescape(re.sub(r"<[^>]+>", "", h))


def failed(outputs, status):
    return status != "ok" or any(o["type"] == "error" or (o["type"] == "stream" and ("panic:" in o["text"] or "exit status " in o["text"])) for o in outputs)


def run_notebook(l, path, t0=None):
    """Runs every code cell of the notebook at path; returns a report."""
    t0 = t0 or time.time()
    nb = l.notebook(path)
    k = l.open_kernel(path)
    cells, first_chart = [], None
    try:
        for i, c in enumerate(nb["cells"]):
            if c["cell_type"] != "code" or "skip-execution" in c.get("metadata", {}).get("tags", []):
                continue
            src = c["source"] if isinstance(c["source"], str) else "".join(c["source"])
            secs, outs, status = k.execute(src)
            if first_chart is None and any(o.get("chart") for o in outs):
                first_chart = time.time() - t0
            cells.append({"cell": i + 1, "seconds": round(secs, 3), "failed": failed(outs, status),
                          "output": "".join(o["text"] for o in outs if o["type"] in ("stream", "error"))[-2000:]})
    finally:
        k.close()
    return {"user": l.user, "cells": cells, "first_chart": first_chart}


def used_memory():
    m = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            m[k] = int(v.split()[0]) * 1024
    return m["MemTotal"] - m["MemAvailable"]


def class_memory(uids, also=()):
    """The proportional set size (bytes) of every process owned by one of uids, and of the
    processes also names (the servers' zygote, root's): the class's own memory, which other work
    on the machine does not move; and the same split by program name (the process's comm:
    jupyterhub-sing, gonb, go, compile, link, a cell program, class-zygote...)."""
    total, by = 0, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/status" % pid) as f:
                lines = f.read().splitlines()
            uid = next(int(l.split()[1]) for l in lines if l.startswith("Uid:"))
            if uid not in uids and int(pid) not in also:
                continue
            name = next(l.split(None, 1)[1] for l in lines if l.startswith("Name:"))
            if name.startswith("gonb_"):
                name = "cell program"
            with open("/proc/%s/smaps_rollup" % pid) as f:
                pss = next(int(l.split()[1]) for l in f if l.startswith("Pss:")) * 1024
        except (OSError, StopIteration, ValueError, IndexError):
            continue
        total += pss
        by[name] = by.get(name, 0) + pss
    return total, by


def bench(url, roster, n, path):
    accounts = []
    with open(roster) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) >= 3 and parts[0] not in ("username", "user"):
                accounts.append((parts[0], parts[-1]))
    learners = [a for a in accounts if a[0] != "instructor"][:n]
    if len(learners) < n:
        raise SystemExit("bench: the class has %d learners, %d asked for" % (len(learners), n))
    idle = used_memory()
    peak = [idle, 0, {}]
    uids = {pwd.getpwnam(u).pw_uid for u, _ in learners}
    # The servers' zygote (root's; its pages are shared with every learner's server, whose PSS
    # counts only their share): scripts/class-bench names it in BACKOFFLAB_BENCH_ZYGOTE_PID.
    also = {int(p) for p in os.environ.get("BACKOFFLAB_BENCH_ZYGOTE_PID", "").split(",") if p.strip().isdigit()}
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], used_memory())
            total, by = class_memory(uids, also)
            if total > peak[1]:
                peak[1], peak[2] = total, by
            time.sleep(0.5)

    threading.Thread(target=sample, daemon=True).start()
    reports, errors = [], []
    rng = random.Random(1)
    delays = [rng.uniform(0, 2) for _ in learners]
    start = time.time()

    def one(user, pw, delay):
        time.sleep(delay)
        t0 = time.time()
        try:
            l = Learner(url, user, pw)
            l.start_server()
            reports.append(run_notebook(l, path, t0))
        except Exception as e:  # a learner who could not run at all counts as failed cells
            errors.append("%s: %s" % (user, e))

    threads = [threading.Thread(target=one, args=(u, p, d)) for (u, p), d in zip(learners, delays)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - start
    done.set()
    times = sorted(c["seconds"] for r in reports for c in r["cells"])
    charts = sorted(r["first_chart"] for r in reports if r["first_chart"] is not None)

    def pct(xs, p):
        return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else None

    return {"learners": n, "cells": len(times), "p50": pct(times, 50), "p95": pct(times, 95), "max": times[-1] if times else None,
            "first_chart_p50": pct(charts, 50), "first_chart_max": charts[-1] if charts else None,
            "failed_cells": sum(c["failed"] for r in reports for c in r["cells"]), "failed_learners": errors,
            "failed_outputs": [c["output"][-300:] for r in reports for c in r["cells"] if c["failed"]][:3],
            "peak_memory_above_idle": peak[0] - idle, "peak_learner_pss": peak[1],
            "peak_learner_pss_by_program": dict(sorted(peak[2].items(), key=lambda kv: -kv[1])), "wall": wall}


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    cmd = argv[1]
    if cmd == "bench":
        out = bench(argv[2], argv[3], int(argv[4]), argv[5])
    else:
        l = Learner(argv[2], argv[3], argv[4])
        if cmd == "get":
            l.start_server()
            out = {p: l.get(p).status_code for p in argv[5:]}
        elif cmd == "stop":
            l.stop_server()
            out = {"stopped": True}
        else:
            l.start_server()
            if cmd == "run":
                out = run_notebook(l, argv[5])
            elif cmd == "cell":
                path = "scratch-%s.ipynb" % uuid.uuid4().hex[:8]
                h = {"X-XSRFToken": l.xsrf("/user/%s/" % l.user)}
                l.s.put(l.server() + "api/contents/" + path, headers=h, timeout=60,
                        json={"type": "notebook", "content": {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}}).raise_for_status()
                k = l.open_kernel(path)
                try:
                    secs, outs, status = k.execute(argv[5], timeout=float(argv[6]) if len(argv) > 6 else 600)
                finally:
                    k.close()
                    l.s.delete(l.server() + "api/contents/" + path, headers=h, timeout=60)
                out = {"seconds": secs, "status": status, "failed": failed(outs, status),
                       "output": "".join(o["text"] for o in outs if o["type"] in ("stream", "error"))}
            else:
                raise SystemExit("unknown command %r\n%s" % (cmd, __doc__))
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv)
