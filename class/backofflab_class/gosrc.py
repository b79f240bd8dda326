"""What the cell programs' daemon reads of a cell's Go sources: its imports, and its go.mod and
go.work as the go command itself parses them.

imports() follows the Go specification's lexical rules (comments, interpreted and raw strings and
their escapes, rune literals) as far as the import declarations that open a file, so that a cell
cannot hide `import "C"` from it (`import "\\x43"` and `import C "C"` are cgo too); the daemon
refuses such a cell and builds every cell with CGO_ENABLED=0 besides, so a cgo preamble is never
compiled. Module files are parsed by `go mod edit -json` and `go work edit -json` (module_files), not by
hand: a `replace(` block or a quoted path means to those what it means to the build.
"""

import json
import os
import subprocess


class SourceError(ValueError):
    """The source cannot be read as Go."""


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"'}


def unquote(lit):
    """The value of a Go string literal (interpreted or raw), as strconv.Unquote gives it."""
    if len(lit) >= 2 and lit[0] == lit[-1] == "`":
        return lit[1:-1].replace("\r", "")
    if len(lit) < 2 or lit[0] != '"' or lit[-1] != '"':
        raise SourceError("not a string literal: %r" % lit[:40])
    s, out, i = lit[1:-1], [], 0
    while i < len(s):
        c = s[i]
        if c == "\n":
            raise SourceError("a newline in a string literal")
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= len(s):
            raise SourceError("a string literal ends in a backslash")
        e = s[i + 1]
        if e in _ESCAPES and e != "'":
            out.append(_ESCAPES[e])
            i += 2
        elif e in "01234567":
            digits = s[i + 1:i + 4]
            if len(digits) != 3 or any(d not in "01234567" for d in digits) or int(digits, 8) > 255:
                raise SourceError("a bad octal escape")
            out.append(chr(int(digits, 8)))  # (a byte: for an import path, the same test)
            i += 4
        elif e in "xuU":
            n = {"x": 2, "u": 4, "U": 8}[e]
            digits = s[i + 2:i + 2 + n]
            try:
                if len(digits) != n:
                    raise ValueError
                out.append(chr(int(digits, 16)))
            except ValueError:
                raise SourceError("a bad \\%s escape" % e)
            i += 2 + n
        else:
            raise SourceError("an unknown escape \\%s" % e)
    return "".join(out)


def _literal_end(src, i, what):
    """The end (one past the closing quote) of the string or rune literal opening at src[i]."""
    quote, j = src[i], i + 1
    while j < len(src) and src[j] != quote:
        if src[j] == "\n":
            raise SourceError("a newline in a %s literal" % what)
        j += 2 if src[j] == "\\" else 1
    if j >= len(src):
        raise SourceError("a %s literal that never ends" % what)
    return j + 1


def tokens(src):
    """Yields the tokens of Go source text: ("ident", name), ("string", literal), ("op", char),
    ("other", text) for numbers and runes, ("nl", "") at each newline outside a token. Comments
    vanish (a comment with a newline counts as a newline)."""
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "\n":
            yield "nl", ""
            i += 1
        elif c in " \t\r":
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            if j < 0:
                raise SourceError("a comment that never ends")
            if "\n" in src[i:j]:
                yield "nl", ""
            i = j + 2
        elif c == '"':
            j = _literal_end(src, i, "string")
            yield "string", src[i:j]
            i = j
        elif c == "`":
            j = src.find("`", i + 1)
            if j < 0:
                raise SourceError("a raw string that never ends")
            yield "string", src[i:j + 1]
            i = j + 1
        elif c == "'":
            j = _literal_end(src, i, "rune")
            yield "other", src[i:j]
            i = j
        elif c.isalpha() or c == "_" or ord(c) > 127:
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_" or ord(src[j]) > 127):
                j += 1
            yield "ident", src[i:j]
            i = j
        elif c.isdigit():
            j = i
            while j < n and (src[j].isalnum() or src[j] in "._"):
                j += 1
            yield "other", src[i:j]
            i = j
        else:
            yield "op", c
            i += 1


def imports(src):
    """The import paths of a Go file, from the import declarations that follow its package
    clause. Raises SourceError when the file does not start like Go."""
    toks = [t for t in tokens(src) if t[0] != "nl"]
    toks = [t for t in toks if t != ("op", ";")]
    if len(toks) < 2 or toks[0] != ("ident", "package") or toks[1][0] != "ident":
        raise SourceError("no package clause")
    out, i = [], 2

    def spec(i):
        if i < len(toks) and (toks[i][0] == "ident" or toks[i] == ("op", ".")):
            i += 1  # a package name, ".", or "_"
        if i >= len(toks) or toks[i][0] != "string":
            raise SourceError("an import declaration without a path")
        out.append(unquote(toks[i][1]))
        return i + 1

    while i < len(toks) and toks[i] == ("ident", "import"):
        i += 1
        if i < len(toks) and toks[i] == ("op", "("):
            i += 1
            while i < len(toks) and toks[i] != ("op", ")"):
                i = spec(i)
            if i >= len(toks):
                raise SourceError("an import block that never ends")
            i += 1
        else:
            i = spec(i)
    return out


def uses_cgo(src):
    """Whether a Go file imports "C" (in any spelling)."""
    return "C" in imports(src)


# --- module files ---


class ModuleError(ValueError):
    """A go.mod or go.work the daemon does not build from."""


def _go(go, args, cwd, env):
    p = subprocess.run([go] + args, cwd=cwd, capture_output=True, text=True, timeout=30, env=env)
    if p.returncode != 0:
        raise ModuleError("%s: %s" % (args[-1], p.stderr.strip()[:300] or "the go command could not parse it"))
    return p.stdout


def module_files(gomod, gowork, allowed, module_name, go="go", tmp=None):
    """Parses a cell's go.mod text (and go.work text, or None) with the go command itself
    (`go mod edit -json`, `go work edit -json`), refuses the folders allowed(path) refuses, and returns the
    go.mod with its module renamed module_name, as `go mod edit` formats it."""
    import tempfile
    with tempfile.TemporaryDirectory(dir=tmp) as d:
        with open(os.path.join(d, "go.mod"), "w") as f:
            f.write(gomod)
        env = dict(os.environ, GOFLAGS="", GOWORK="off", GOTOOLCHAIN="local")
        _go(go, ["mod", "edit", "-module", module_name, "go.mod"], d, env)
        check_module(json.loads(_go(go, ["mod", "edit", "-json", "go.mod"], d, env)), allowed)
        if gowork is not None:
            with open(os.path.join(d, "go.work"), "w") as f:
                f.write(gowork)
            env["GOWORK"] = os.path.join(d, "go.work")
            check_work(json.loads(_go(go, ["work", "edit", "-json", "go.work"], d, env)), allowed)
        with open(os.path.join(d, "go.mod")) as f:
            return f.read()


def check_module(mod, allowed):
    """Refuses a parsed go.mod whose replace points at a folder allowed(path) refuses (it is
    given absolute paths only)."""
    for r in mod.get("Replace") or []:
        new = r.get("New") or {}
        if not new.get("Version"):  # a folder, not a module version
            path = new.get("Path", "")
            if not os.path.isabs(path) or not allowed(os.path.normpath(path)):
                raise ModuleError("go.mod: replace %s => %s: a replacement folder must be inside the checkout" % (r.get("Old", {}).get("Path", "?"), path))


def check_work(work, allowed):
    """Refuses a parsed go.work that uses or replaces with a folder allowed(path) refuses (the
    cell's own folder, ".", is always allowed)."""
    for u in work.get("Use") or []:
        path = u.get("DiskPath", "")
        if path != "." and (not os.path.isabs(path) or not allowed(os.path.normpath(path))):
            raise ModuleError("go.work: use %s: only the cell's folder and the checkout" % path)
    check_module({"Replace": work.get("Replace")}, allowed)
