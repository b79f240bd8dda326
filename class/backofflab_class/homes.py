"""What the class puts into a home, and takes out of it, always as the home's own account.

Nothing privileged opens a path inside a learner's home: a learner owns every name in it and can
point any of them anywhere (root following a learner's link once created files under /etc). So
the lessons are copied by a process that already is the learner (`python -m backofflab_class.homes
lessons`, started by the hub's pre-spawn hook with the learner's user and groups), the
instructor's course by the instructor, and --stop archives a home by running tar as its owner,
root only writing what tar prints into a file of its own. Outside the homes, clean_tmp removes an
account's files from the machine's shared temporary folders without following any link.

    python -m backofflab_class.homes lessons REPO      (as the learner, in their home)
    python -m backofflab_class.homes course REPO       (as the instructor, in their home)
"""

import os
import shutil
import stat
import sys

# What a learner gets: the checkout's path, and where it goes in the home.
LESSONS = [
    ("notebooks", "notebooks"),
    ("exercises/notebooks", "exercises/notebooks"),
    ("exercises/README.md", "exercises/README.md"),
    ("retry/COMPARISON.md", "retry/COMPARISON.md"),
    ("README.md", "README.md"),
]
STAMP = ".backofflab-lessons"


def copy_lessons(repo, home, lessons=LESSONS):
    """Copies the lessons into home once (a stamp file says it is done): each one that is not
    there yet. Runs as the home's owner; returns what it copied."""
    if os.geteuid() == 0:
        raise PermissionError("copy_lessons runs as the learner, never as root")
    if os.path.lexists(os.path.join(home, STAMP)):
        return []
    copied = []
    for src, dst in lessons:
        s, d = os.path.join(repo, src), os.path.join(home, dst)
        if not os.path.exists(s) or os.path.lexists(d):
            continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.isdir(s):
            shutil.copytree(s, d, symlinks=True, ignore=shutil.ignore_patterns("src", "*_test.go", "*.go"))
        else:
            shutil.copy2(s, d)
        copied.append(dst)
    with open(os.path.join(home, STAMP), "w") as f:
        f.write("the lessons were copied here once; remove this file to get the missing ones again\n")
    return copied


def make_course(repo, home):
    """The instructor's nbgrader course: ~/course with the assignment "waves" from the instructor's
    notebooks, once. Runs as the instructor."""
    if os.geteuid() == 0:
        raise PermissionError("make_course runs as the instructor, never as root")
    course = os.path.join(home, "course")
    source = os.path.join(course, "source", "waves")
    if os.path.isdir(source):
        return False
    os.makedirs(source)
    solutions = os.path.join(repo, "exercises", "solutions", "notebooks")
    for n in sorted(os.listdir(solutions)):
        if n.endswith(".ipynb"):
            shutil.copy(os.path.join(solutions, n), source)
    shutil.copy(os.path.join(repo, "class", "nbgrader_config.py"), os.path.join(course, "nbgrader_config.py"))
    return True


# Folders every account may write into: an account's files there outlive the account (and the
# next class's account with the same uid would own them).
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")


def clean_tmp(uid, tops=SHARED_TMP):
    """Removes what uid owns in the shared temporary folders (and in the world-writable folders
    inside them), never following a link; returns how many entries it removed. Root only."""
    if uid == 0:
        raise ValueError("clean_tmp: refusing to remove root's files")
    removed = 0

    def walk(dir_fd, depth):
        nonlocal removed
        for name in os.listdir(dir_fd):
            try:
                st = os.lstat(name, dir_fd=dir_fd)
            except FileNotFoundError:
                continue
            if st.st_uid == uid:
                if stat.S_ISDIR(st.st_mode):
                    _rmtree_at(dir_fd, name)
                else:
                    os.unlink(name, dir_fd=dir_fd)
                removed += 1
            elif stat.S_ISDIR(st.st_mode) and st.st_mode & 0o002 and depth < 4:
                try:
                    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
                except OSError:
                    continue
                try:
                    walk(fd, depth + 1)
                finally:
                    os.close(fd)

    for top in tops:
        try:
            fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            walk(fd, 0)
        finally:
            os.close(fd)
    return removed


def _rmtree_at(dir_fd, name):
    """Removes the folder name in dir_fd and everything in it, through directory descriptors only
    (a link inside is removed, never followed)."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    try:
        for entry in os.listdir(fd):
            try:
                st = os.lstat(entry, dir_fd=fd)
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(st.st_mode):
                _rmtree_at(fd, entry)
            else:
                os.unlink(entry, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


def main(argv):
    if len(argv) != 2 or argv[0] not in ("lessons", "course"):
        raise SystemExit("usage: python -m backofflab_class.homes lessons|course REPO (as the home's owner)")
    home = os.path.expanduser("~")
    if argv[0] == "lessons":
        copied = copy_lessons(argv[1], home)
        print("copied: %s" % (", ".join(copied) or "nothing"))
    else:
        print("course: %s" % ("made" if make_course(argv[1], home) else "there already"))


if __name__ == "__main__":
    main(sys.argv[1:])
