import os
import threading
import time

import pytest

from backofflab_class import cells, grader, homes, limits, procs


def test_limits_name_the_parameter():
    limits.check(512, 2048)
    with pytest.raises(ValueError, match="--processes must be a whole number from 64"):
        limits.check(10, 2048)
    with pytest.raises(ValueError, match="--memory-mb must be a whole number of MiB from 512"):
        limits.check(512, 100)


def test_cgroup_v2_detection(tmp_path):
    assert not limits.cgroup_v2_available(str(tmp_path))
    (tmp_path / "cgroup.controllers").write_text("cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    assert limits.cgroup_v2_available(str(tmp_path))
    (tmp_path / "cgroup.controllers").write_text("hugetlb\n")
    assert not limits.cgroup_v2_available(str(tmp_path))


def test_slots_one_per_account_in_order():
    slots = cells.Slots(2, per_uid=1)
    assert slots.acquire(1, 1)
    assert not slots.acquire(1, 0.2), "an account got a second slot"
    got = []

    def ask(uid):
        if slots.acquire(uid, 5):
            got.append(uid)

    threads = [threading.Thread(target=ask, args=(u,)) for u in (1, 2)]
    threads[0].start()
    time.sleep(0.1)
    threads[1].start()
    threads[1].join(2)
    assert got == [2], "account 2 waited behind account 1, which holds a slot: %r" % got
    slots.release(1)
    threads[0].join(2)
    assert got == [2, 1]
    slots.release(1)
    slots.release(2)
    assert slots.held == {}


def test_slots_unlimited():
    slots = cells.Slots(0, per_uid=1)
    assert slots.acquire(1, 1) and slots.acquire(2, 1) and slots.acquire(3, 1)


def test_checkout_folders():
    allowed = cells.in_checkout("/repo")
    assert allowed("/repo") and allowed("/repo/lab/waves")
    assert not allowed("/repo/.cache/x") and not allowed("/repo/node_modules/y") and not allowed("/repox") and not allowed("/tmp")


def test_valid_names():
    assert cells.valid_name("main.go") and cells.valid_name("go.mod")
    for n in ("", "../main.go", "a/b.go", ".hidden.go", "-x.go", "a b.go", "x" * 300):
        assert not cells.valid_name(n), n


def test_grader_connection_checked():
    ok = {"transport": "tcp", "ip": "127.0.0.1", "shell_port": 5001, "iopub_port": 5002, "stdin_port": 5003,
          "control_port": 5004, "hb_port": 5005, "key": "k", "signature_scheme": "hmac-sha256", "extra": "dropped"}
    out = grader.check_connection(ok)
    assert "extra" not in out and out["key"] == "k"
    for bad, message in ((dict(ok, ip="10.0.0.1"), "127.0.0.1 over tcp only"), (dict(ok, transport="ipc"), "tcp only"),
                         (dict(ok, shell_port=22), "shell_port must be a port"), (dict(ok, key=1), "key must be a string"),
                         (dict(ok, signature_scheme="none"), "is not hmac-sha256"), ([], "not a JSON object")):
        with pytest.raises(ValueError, match=message):
            grader.check_connection(bad)


def test_kill_uid_refuses_root():
    with pytest.raises(ValueError, match="refusing"):
        procs.kill_uid(0)


def test_signal_if_checks_the_process():
    # A check that refuses: the process is not signalled.
    assert not procs.signal_if(os.getpid(), 0, lambda st: False)
    assert procs.signal_if(os.getpid(), 0, lambda st: procs.real_uid(st) == os.getuid())
    assert not procs.signal_if(2 ** 22 + 12345, 0, lambda st: True)  # (no such process)


@pytest.mark.skipif(os.geteuid() != 0, reason="clean_tmp removes another account's files: it needs root (the class tests run as root)")
def test_clean_tmp_removes_the_account_files_only(tmp_path):
    uid = 65534
    top = tmp_path / "tmp"
    top.mkdir()
    (top / "mine").write_text("x")
    os.chown(top / "mine", uid, uid)
    (top / "root's").write_text("y")
    (top / "dir").mkdir()
    (top / "dir" / "f").write_text("z")
    os.chown(top / "dir", uid, uid)
    shared = top / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o1777)
    (shared / "deep").write_text("w")
    os.chown(shared / "deep", uid, uid)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("k")
    os.chown(outside / "keep", uid, uid)
    os.symlink(outside, top / "link")
    os.lchown(top / "link", uid, uid)
    assert homes.clean_tmp(uid, tops=[str(top)]) == 4
    assert sorted(os.listdir(top)) == ["root's", "shared"]
    assert os.listdir(shared) == []
    assert (outside / "keep").exists(), "a link was followed"


def fake_hierarchy(tmp_path, controllers="cpu io memory pids"):
    (tmp_path / "cgroup.controllers").write_text(controllers + "\n")
    (tmp_path / "cgroup.subtree_control").write_text("cpu\n")
    return tmp_path


def test_cgroups_made_per_account(tmp_path):
    root = fake_hierarchy(tmp_path)
    cg = limits.Cgroups.create(str(root), "t1", ["ada", "blg-t1"], 4096, 300)
    assert cg.base == str(root / "backofflab-t1")
    assert (root / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (root / "backofflab-t1" / "cgroup.subtree_control").read_text() == "+memory +pids"
    for a in ("ada", "blg-t1"):
        assert (root / "backofflab-t1" / a / "memory.max").read_text() == str(4096 << 20)
        assert (root / "backofflab-t1" / a / "pids.max").read_text() == "300"
    cg.enter("ada", 1234)
    assert (root / "backofflab-t1" / "ada" / "cgroup.procs").read_text() == "1234"
    import pytest
    for bad in ("", "..", "a/b"):
        with pytest.raises(ValueError, match="not an account name"):
            cg.dir(bad)


def test_cgroup_kill_ends_the_group(tmp_path, monkeypatch):
    import subprocess
    root = fake_hierarchy(tmp_path)
    cg = limits.Cgroups.create(str(root), "t2", ["ada"], 1024, 100)
    p = subprocess.Popen(["sleep", "30"])
    (root / "backofflab-t2" / "ada" / "cgroup.procs").write_text("%d\n" % p.pid)
    assert cg.kill("ada") == 1  # (no cgroup.kill: one by one)
    assert p.wait(5) == -9
    (root / "backofflab-t2" / "ada" / "cgroup.kill").write_text("")
    cg.kill("ada")
    assert (root / "backofflab-t2" / "ada" / "cgroup.kill").read_text() == "1"
    rmdir = os.rmdir

    def remove_group(d):  # (a real group's folder holds only the kernel's files, and rmdir takes it)
        for f in os.listdir(d):
            if not os.path.isdir(os.path.join(d, f)):
                os.unlink(os.path.join(d, f))
        rmdir(d)

    monkeypatch.setattr(limits.os, "rmdir", remove_group)
    cg.remove()
    assert not (root / "backofflab-t2").exists()


def test_limits_described():
    assert "enforced by rlimits (--no-cgroups)" in limits.describe(512, 2048, why="--no-cgroups")
    line = limits.describe(512, 2048, limits.Cgroups("/sys/fs/cgroup/backofflab-main"), 4096)
    assert "4096 MiB in all" in line and "cgroup v2 groups in /sys/fs/cgroup/backofflab-main" in line
