import random

import pytest

from backofflab_class import gosrc


@pytest.mark.parametrize("src, imports", [
    ('package main\nimport "fmt"\nfunc main() {}', ["fmt"]),
    ('package main\n\nimport (\n\t"fmt"\n\tx "os"\n\t. `strings`\n\t_ "embed"\n)\n', ["fmt", "os", "strings", "embed"]),
    ('package main; import "a"; import ("b"; "c")', ["a", "b", "c"]),
    ('// import "C"\npackage main\n/* import "C" */\nimport "fmt"\nvar s = `import "C"`', ["fmt"]),
    ('package main\nimport "\\x43"\nimport "\\103"\nimport "\\u0043"', ["C", "C", "C"]),
    ("package main\n\nfunc main() { import_ := 1; _ = import_ }", []),
])
def test_imports(src, imports):
    assert gosrc.imports(src) == imports


@pytest.mark.parametrize("src", ['package main\nimport "C"', 'package main\nimport C "C"', "package main\nimport (`C`)",
                                 'package main\n/*\n#include <stdio.h>\n*/\nimport "C"', 'package main\nimport _ "\\x43"'])
def test_every_spelling_of_cgo(src):
    assert gosrc.uses_cgo(src)


@pytest.mark.parametrize("src, message", [
    ("import \"fmt\"", "no package clause"),
    ('package main\nimport "fmt', "never ends"),
    ("package main\n/* open", "never ends"),
    ("package main\nimport (\n\"fmt\"\n", "never ends"),
    ('package main\nimport "\\q"', "unknown escape"),
    ("package main\nimport x", "without a path"),
])
def test_bad_sources_say_why(src, message):
    with pytest.raises(gosrc.SourceError, match=message):
        gosrc.imports(src)


def test_random_sources_never_crash():
    # A fuzz of the scanner: any text gives imports or a SourceError, never another exception,
    # and an import of "C" among valid ones is always found.
    rng = random.Random(21)
    pieces = ['package main\n', 'import ', '"C"', '"fmt"', '`C`', '(', ')', ';', '\n', '/*', '*/', '//', ' x ', '"\\x43"', "'", '"', '\\']
    for _ in range(3000):
        src = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        try:
            gosrc.imports(src)
        except gosrc.SourceError:
            pass
    for _ in range(300):
        specs = [rng.choice(['"fmt"', '"os"', 'x "strings"', '_ "embed"']) for _ in range(rng.randint(0, 4))]
        specs.insert(rng.randint(0, len(specs)), rng.choice(['"C"', 'C "C"', '`C`', '"\\x43"']))
        src = "package main\nimport (\n%s\n)\nfunc main() {}\n" % "\n".join(specs)
        assert gosrc.uses_cgo(src), src


def test_module_checks():
    allowed = lambda p: p == "/repo" or p.startswith("/repo/")  # noqa: E731
    gosrc.check_module({"Replace": [{"Old": {"Path": "m"}, "New": {"Path": "/repo/lab"}}, {"Old": {"Path": "n"}, "New": {"Path": "x", "Version": "v1.0.0"}}]}, allowed)
    for path in ("/tmp/x", "../repo", "/repo/../etc"):
        with pytest.raises(gosrc.ModuleError, match="must be inside the checkout"):
            gosrc.check_module({"Replace": [{"Old": {"Path": "m"}, "New": {"Path": path}}]}, allowed)
    gosrc.check_work({"Use": [{"DiskPath": "."}, {"DiskPath": "/repo"}]}, allowed)
    with pytest.raises(gosrc.ModuleError, match="only the cell's folder and the checkout"):
        gosrc.check_work({"Use": [{"DiskPath": "/home/other"}]}, allowed)
