"""The class's roster: a CSV file, one learner a line (username,display name).

A header line ("username,..." or "user,...") and lines starting with # are skipped; a display name
may hold commas when it is quoted, and defaults to the user name.
"""

import csv
import re

NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,30}$")
NAME_RULE = "lower-case letters, digits, - and _ (at most 31, starting with a letter)"


class RosterError(ValueError):
    """The roster cannot be used as it is; the message names the line and what to change."""


def check_name(name, what):
    """Raises RosterError unless name is a user name the class can create."""
    if not NAME_RE.match(name):
        raise RosterError("%s must be a user name of %s, got %r" % (what, NAME_RULE, name))
    return name


def parse(text, instructor, reserved=()):
    """Returns [(username, display name)] from the roster's text. instructor is the instructor's
    name (no learner may take it); reserved are the class's own accounts' names."""
    learners, seen = [], set()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            fields = next(csv.reader([line], skipinitialspace=True))
        except csv.Error as e:
            raise RosterError("roster line %d: not CSV (%s)" % (n, e))
        user = "".join(fields[0].split()) if fields else ""
        display = ",".join(fields[1:]).strip().strip('"').strip()
        if n == 1 and user.lower() in ("username", "user"):
            continue
        if not NAME_RE.match(user):
            raise RosterError("roster line %d: username %r must be %s" % (n, user, NAME_RULE))
        if any(c in display for c in ":\n") or any(ord(c) < 32 for c in display):
            raise RosterError("roster line %d: the display name may not contain ':' or control characters" % n)
        if user == instructor:
            raise RosterError("roster line %d: %r is the instructor's name" % (n, user))
        if user in reserved:
            raise RosterError("roster line %d: %r is one of the class's own accounts: rename it" % (n, user))
        if user in seen:
            raise RosterError("roster line %d: %r appears twice" % (n, user))
        seen.add(user)
        learners.append((user, display or user))
    if not learners:
        raise RosterError("the roster names no learner")
    return learners
