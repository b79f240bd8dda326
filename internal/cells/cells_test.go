package cells

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// run merges the cells in order, committing each (as if it compiled), and
// returns the last program.
func run(t *testing.T, sources ...string) *Program {
	t.Helper()
	var s State
	var p *Program
	for i, src := range sources {
		var err error
		p, err = s.Merge(i+1, src)
		if err != nil {
			t.Fatalf("cell %d: %v", i+1, err)
		}
		s.Commit(p)
	}
	return p
}

func TestMainFromPercentPercent(t *testing.T) {
	p := run(t, "%%\nfmt.Println(\"hi\")")
	want := "package main\n\nimport (\n\t\"flag\"\n\t\"fmt\"\n)\n\n\nfunc main() {\n\tflag.Parse()\nfmt.Println(\"hi\")\n\n}\n"
	if p.Source != want {
		t.Errorf("got\n%s\nwant\n%s", p.Source, want)
	}
	if !slices.Equal(p.Imports, []string{"flag", "fmt"}) {
		t.Errorf("imports %v", p.Imports)
	}
	// The line fmt.Println is cell 1 line 2; func main() is line 1 (%%).
	for i, l := range strings.Split(p.Source, "\n") {
		if i >= len(p.Lines) {
			break
		}
		switch strings.TrimSpace(l) {
		case `fmt.Println("hi")`:
			if p.Lines[i] != (Origin{1, 2}) {
				t.Errorf("fmt.Println maps to %+v", p.Lines[i])
			}
		case "func main() {":
			if p.Lines[i] != (Origin{1, 1}) {
				t.Errorf("func main maps to %+v", p.Lines[i])
			}
		case `"flag"`:
			if p.Lines[i] != (Origin{}) {
				t.Errorf("an added import maps to %+v", p.Lines[i])
			}
		}
	}
}

func TestDeclarationsPersistAndAreReplaced(t *testing.T) {
	p := run(t,
		"func f() int { return 1 }\n\ntype T struct{ A int }\n\nvar v = 3\n\nconst c = 4",
		"func f() int { return 2 }\n\nfunc (t T) M() int { return t.A }\n\n%%\nfmt.Println(f(), v, c, T{5}.M())",
	)
	if n := strings.Count(p.Source, "func f()"); n != 1 {
		t.Fatalf("func f rendered %d times:\n%s", n, p.Source)
	}
	for _, want := range []string{"return 2", "type T struct{ A int }", "\tv = 3\n", "const c = 4", "func (t T) M() int"} {
		if !strings.Contains(p.Source, want) {
			t.Errorf("missing %q in\n%s", want, p.Source)
		}
	}
	if strings.Contains(p.Source, "return 1") {
		t.Errorf("the replaced func f is still there:\n%s", p.Source)
	}
}

func TestMainIsNotKept(t *testing.T) {
	p := run(t, "%%\nfmt.Println(1)", "func g() {}")
	if strings.Contains(p.Source, "fmt.Println(1)") {
		t.Errorf("an earlier cell's main was kept:\n%s", p.Source)
	}
	if !strings.Contains(p.Source, "func main() { flag.Parse() }") {
		t.Errorf("a cell without %%%% gets GoNB's stub main:\n%s", p.Source)
	}
}

func TestImportsKeptOnlyWhereUsed(t *testing.T) {
	p := run(t,
		"import \"strconv\"\n\n%%\nfmt.Println(strconv.Itoa(1))",
		"%%\nfmt.Println(2)",
	)
	if strings.Contains(p.Source, "strconv") {
		t.Errorf("an unused import from an earlier cell is rendered:\n%s", p.Source)
	}
	p = run(t, "import \"strconv\"", "%%\nfmt.Println(strconv.Itoa(3))")
	if !strings.Contains(p.Source, `"strconv"`) {
		t.Errorf("a kept import used later is missing:\n%s", p.Source)
	}
	p = run(t, "import _ \"embed\"\nimport . \"math\"\n\n%%\nfmt.Println(Pi)")
	for _, want := range []string{`_ "embed"`, `. "math"`} {
		if !strings.Contains(p.Source, want) {
			t.Errorf("blank and dot imports are kept as goimports keeps them: no %s in\n%s", want, p.Source)
		}
	}
}

func TestStdlibImportsAsGoimports(t *testing.T) {
	cases := []struct{ code, want string }{
		{"rand.IntN(3)", "math/rand/v2"},
		{"rand.Intn(3)", "math/rand"},
		{"_ = rand.Reader", "crypto/rand"},
		{"tabwriter.NewWriter(os.Stdout, 0, 0, 1, ' ', 0)", "text/tabwriter"},
		{"_ = http.StatusOK", "net/http"},
		{"_ = slices.Sorted(maps.Keys(map[int]int{}))", "maps"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			p := run(t, "%%\n"+c.code)
			if !slices.Contains(p.Imports, c.want) {
				t.Errorf("%s: imports %v, want %s", c.code, p.Imports, c.want)
			}
		})
	}
	// A local variable named like a package is not a package.
	p := run(t, "%%\nstrings := []string{\"a\"}\n_ = strings\nvar b bytes.Buffer\n_ = b.Len()")
	if slices.Contains(p.Imports, "strings") || !slices.Contains(p.Imports, "bytes") {
		t.Errorf("imports %v", p.Imports)
	}
}

func TestTupleVariables(t *testing.T) {
	p := run(t, "var a, b = pair()\n\nfunc pair() (int, int) { return 1, 2 }")
	if !strings.Contains(p.Source, "\ta, b = pair()\n") || strings.Count(p.Source, "pair()\n") != 1 {
		t.Errorf("tuple rendered wrong:\n%s", p.Source)
	}
	p = run(t, "var a, b = pair()\n\nfunc pair() (int, int) { return 1, 2 }", "var b = 7")
	if strings.Contains(p.Source, "a, b") || !strings.Contains(p.Source, "\tb = 7") {
		t.Errorf("redeclaring a member replaces the whole tuple, as GoNB does:\n%s", p.Source)
	}
}

func TestConstantBlocksKeepTheirOrder(t *testing.T) {
	p := run(t, "const (\n\tZ = iota\n\tY\n\tX\n)")
	i, j, k := strings.Index(p.Source, "\tZ = iota"), strings.Index(p.Source, "\tY\n"), strings.Index(p.Source, "\tX\n")
	if i < 0 || !(i < j && j < k) {
		t.Errorf("const block out of order:\n%s", p.Source)
	}
}

func TestInitFunctions(t *testing.T) {
	p := run(t, "func init_setup() { fmt.Println(\"init\") }")
	if !strings.Contains(p.Source, "func init() {") {
		t.Errorf("init_ function not renamed:\n%s", p.Source)
	}
}

func TestParseErrorNamesTheCellLine(t *testing.T) {
	var s State
	_, err := s.Merge(4, "import \"fmt\"\n\n%%\nfmt.Println(\"a\"\nx := 1")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if e.Cell != 4 || e.Line != 4 || e.Column != 16 {
		t.Errorf("error at cell %d line %d, want cell 4 line 4 (the unclosed call): %v", e.Cell, e.Line, e)
	}
	if !strings.HasPrefix(e.Error(), "cell [4] line 4:16: missing") {
		t.Errorf("message %q", e.Error())
	}
}

func TestStateUnchangedUntilCommit(t *testing.T) {
	var s State
	p, err := s.Merge(1, "func f() {}")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Decls.Functions) != 0 {
		t.Errorf("Merge changed the state")
	}
	s.Commit(p)
	if len(s.Decls.Functions) != 1 {
		t.Errorf("Commit kept %d functions, want 1", len(s.Decls.Functions))
	}
	if _, err := s.Merge(0, ""); err == nil || !strings.Contains(err.Error(), "cell id") {
		t.Errorf("cell id 0: got %v, want an error naming the cell id", err)
	}
}

func TestSpecialLines(t *testing.T) {
	var s State
	p, err := s.Merge(1, "!echo hi \\\n  there\n%goflags -race\n//gonb:%%\nfmt.Println(1)")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Shell, []string{"!echo hi    there"}) || !slices.Equal(p.Commands, []string{"%goflags -race"}) {
		t.Errorf("shell %q, commands %q", p.Shell, p.Commands)
	}
	if p.Empty || !strings.Contains(p.Source, "fmt.Println(1)") {
		t.Errorf("//gonb:%%%% starts main:\n%s", p.Source)
	}
	p, err = s.Merge(2, "!*go work use ../zoo\n\n")
	if err != nil || !p.Empty {
		t.Errorf("a cell of special lines only is empty: %+v %v", p, err)
	}
}
