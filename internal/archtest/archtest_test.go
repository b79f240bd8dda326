package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/backofflab/backofflab"

// Layers of the lab/ and retry/ packages, as ARCHITECTURE.md lists them. A
// new package must be added here (and there): TestEveryPackageHasALayer
// fails until it is.
const (
	primitive = "primitive"
	runtime   = "notebook runtime"
	model     = "model"
	renderer  = "renderer"
	lesson    = "lesson"
	service   = "retry"
)

var layers = map[string]string{
	"lab":                   primitive,
	"lab/lcg":               primitive,
	"lab/schedule":          primitive,
	"lab/metrics":           primitive,
	"lab/table":             primitive,
	"lab/table/tabletest":   primitive,
	"lab/figure":            primitive,
	"lab/figure/figuretest": primitive,
	"lab/show":              runtime,
	"lab/static":            renderer,
	"lab/interactive":       renderer,
	"lab/cohort":            model,
	"lab/contention":        model,
	"lab/deadline":          model,
	"lab/overload":          model,
	"lab/flaky":             model,
	"lab/storm":             model,
	"lab/synchrony":         model,
	"lab/synchronisers":     model,
	"lab/layered":           model,
	"lab/crashloop":         model,
	"lab/waves":             model,
	"lab/explore":           lesson,
	"retry":                 service,
	"retry/backoff":         service,
	"retry/breaker":         service,
	"retry/budget":          service,
	"retry/internal/rng":    service,
}

// modelImports lists the models a model may import, beside the primitives,
// the notebook runtime and retry. ARCHITECTURE.md lists the same; keep it
// short.
var modelImports = map[string][]string{
	// The synchronisers, the two layers and the crash loop are populations
	// of synchrony.Cohort: they are built on the open-loop cohort, not
	// beside it.
	"lab/synchronisers": {"lab/synchrony"},
	"lab/layered":       {"lab/synchrony"},
	"lab/crashloop":     {"lab/synchrony"},
}

// mayImport reports whether a package of layer from may depend on the
// package to (both relative to the module path), directly or not.
func mayImport(from, fromLayer, to string) bool {
	toLayer, ok := layers[to]
	if !ok { // cmd/, internal/, exercises/, ...: never from lab/ or retry/
		return false
	}
	switch fromLayer {
	case service:
		return toLayer == service
	case primitive:
		return toLayer == primitive || toLayer == service
	case runtime:
		return toLayer == primitive
	case model:
		return toLayer == primitive || toLayer == runtime || toLayer == service ||
			(toLayer == model && slices.Contains(modelImports[from], to))
	case renderer:
		return toLayer == primitive || toLayer == runtime
	case lesson:
		return toLayer != lesson || from == to
	}
	return false
}

// pkg is the part of `go list -json` these tests read.
type pkg struct {
	ImportPath   string
	Dir          string
	Deps         []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// repoRoot is the checkout: two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goCmd returns a go command run in dir, offline, that leaves go.mod and
// go.sum as they are.
func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly")
	return cmd
}

// consumerCmd is goCmd for the scratch consumer module, which may write its
// own go.mod and go.sum.
func consumerCmd(dir string, args ...string) *exec.Cmd {
	cmd := goCmd(dir, args...)
	cmd.Env = append(cmd.Env, "GOFLAGS=-mod=mod")
	return cmd
}

// list runs `go list -e -json ./...` in dir and returns the packages.
func list(t *testing.T, dir string) []pkg {
	t.Helper()
	cmd := goCmd(dir, "list", "-e", "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// ours returns the import paths in paths that belong to this project,
// relative to the module path ("lab/lcg", "retry", "cmd/backofflab").
func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rel, ok := strings.CutPrefix(p, module+"/"); ok {
			out = append(out, rel)
		}
	}
	return out
}

// libraries returns the lab/ and retry/ packages of both modules.
func libraries(t *testing.T) []pkg {
	t.Helper()
	root := repoRoot(t)
	var out []pkg
	for _, p := range append(list(t, root), list(t, filepath.Join(root, "retry"))...) {
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		rel = strings.TrimPrefix(rel, "/")
		if !ok || !(rel == "retry" || rel == "lab" || strings.HasPrefix(rel, "retry/") || strings.HasPrefix(rel, "lab/")) {
			continue
		}
		p.ImportPath = rel
		out = append(out, p)
	}
	if len(out) < len(layers) {
		t.Fatalf("go list found %d library packages, fewer than the %d with a layer", len(out), len(layers))
	}
	return out
}

func TestEveryPackageHasALayer(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range libraries(t) {
		if _, ok := layers[p.ImportPath]; !ok {
			t.Errorf("%s has no layer: add it to ARCHITECTURE.md and to layers in this test", p.ImportPath)
		}
		if !bytes.Contains(doc, []byte("`"+p.ImportPath+"`")) && !strings.Contains(p.ImportPath, "/internal/") {
			t.Errorf("ARCHITECTURE.md does not name `%s`", p.ImportPath)
		}
	}
}

// The rules apply to what a package's non-test code imports, directly or
// not: that is what a program importing it gets.
func TestImportRules(t *testing.T) {
	for _, p := range libraries(t) {
		layer, ok := layers[p.ImportPath]
		if !ok {
			continue // TestEveryPackageHasALayer reports it
		}
		t.Run(p.ImportPath, func(t *testing.T) {
			if p.Error != nil {
				t.Logf("go list: %s (the rules are checked on the imports it found)", p.Error.Err)
			}
			for _, d := range ours(p.Deps) {
				if !mayImport(p.ImportPath, layer, d) {
					t.Errorf("%s (%s) depends on %s (%s): not allowed by ARCHITECTURE.md", p.ImportPath, layer, d, orNone(layers[d]))
				}
			}
		})
	}
}

// talksHTTP lists the library packages that may link net/http: retry (its
// Transport), the models whose clients and servers talk HTTP (lab/storm,
// lab/flaky), lab/deadline (retry.Fits, as lesson 08 shows it) and
// lab/explore (every model). A lesson's program that only simulates links
// no HTTP client, TLS or certificates: a quarter of what the browser's
// linker would otherwise read for each cell.
var talksHTTP = []string{"retry", "lab/storm", "lab/flaky", "lab/deadline", "lab/explore"}

// Every other library package, the policies (retry/backoff) and the
// primitives that name them (lab/schedule) included, links no net/http.
func TestOnlyHTTPPackagesLinkNetHTTP(t *testing.T) {
	checked, libs := 0, libraries(t)
	for _, p := range libs {
		if slices.Contains(talksHTTP, p.ImportPath) {
			continue
		}
		checked++
		if slices.Contains(p.Deps, "net/http") {
			t.Errorf("%s (%s) links net/http: only %s may (see talksHTTP)", p.ImportPath, orNone(layers[p.ImportPath]), strings.Join(talksHTTP, ", "))
		}
	}
	for _, must := range []string{"retry/backoff", "lab/schedule", "lab/waves"} {
		if !slices.ContainsFunc(libs, func(p pkg) bool { return p.ImportPath == must }) {
			t.Errorf("%s is not among the library packages", must)
		}
	}
	if checked < 10 {
		t.Errorf("checked %d packages: the list of packages is wrong", checked)
	}
}

// drawing lists the modules that draw figures, and the renderer that may
// link each: no other library package links them, so a cell that only
// prints numbers and tables (a model, lab/table, lab/show) links neither.
var drawing = map[string]string{
	"gonum.org/v1/plot":                "lab/static",
	"github.com/go-echarts/go-echarts": "lab/interactive",
}

// A model, a primitive and the notebook runtime link no renderer and no
// drawing module; each renderer links its own drawing module and not the
// other's.
func TestOnlyRenderersDraw(t *testing.T) {
	for _, p := range libraries(t) {
		layer := layers[p.ImportPath]
		if layer == lesson {
			continue // lab/explore builds explorables: figures and models together
		}
		for _, d := range p.Deps {
			for mod, owner := range drawing {
				if (d == mod || strings.HasPrefix(d, mod+"/")) && p.ImportPath != owner {
					t.Errorf("%s (%s) links %s: only %s may draw with %s", p.ImportPath, layer, d, owner, mod)
					break
				}
			}
		}
		if layer != renderer && layer != lesson {
			for _, d := range ours(p.Deps) {
				if layers[d] == renderer {
					t.Errorf("%s (%s) imports the renderer %s: a %s returns figure data (lab/figure) for a renderer to draw", p.ImportPath, layer, d, layer)
				}
			}
		}
	}
}

// retry's tests run in retry's own module, which requires nothing: they must
// not import the lessons either.
func TestRetryTestsImportNothingFromTheLessons(t *testing.T) {
	for _, p := range libraries(t) {
		if layers[p.ImportPath] != service {
			continue
		}
		for _, d := range ours(append(p.TestImports, p.XTestImports...)) {
			if layers[d] != service {
				t.Errorf("a test of %s imports %s", p.ImportPath, d)
			}
		}
	}
}

func orNone(layer string) string {
	if layer == "" {
		return "no layer: not a library package"
	}
	return layer
}

// A program that imports only retry (and its breaker and budget) builds
// with nothing but the standard library and retry itself: `go list -m all`
// lists the program and retry, no GoNB, gopls or plotting module.
func TestRetryConsumerBuildList(t *testing.T) {
	dir := t.TempDir()
	retryDir := filepath.Join(repoRoot(t), "retry")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/consumer\n\ngo 1.26\n\n"+
		"require "+module+"/retry v0.0.0-00010101000000-000000000000\n\n"+
		"replace "+module+"/retry => "+retryDir+"\n")
	write("main.go", `package main

import (
	"context"

	"`+module+`/retry"
	"`+module+`/retry/breaker"
	"`+module+`/retry/budget"
)

func main() {
	_, _ = breaker.New(breaker.Config{})
	_, _ = budget.New(budget.Config{})
	_ = retry.Do(context.Background(), func(context.Context) error { return nil })
}
`)
	out, err := consumerCmd(dir, "list", "-m", "all").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	mods := strings.Fields(string(out))
	want := []string{"example.com/consumer", module + "/retry", "v0.0.0-00010101000000-000000000000", "=>", retryDir}
	if !slices.Equal(mods, want) {
		t.Errorf("go list -m all of a program importing only retry:\n%s\nwant the program and retry only", out)
	}
	out, err = consumerCmd(dir, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "example.com/consumer" && !strings.HasPrefix(p, module+"/retry") {
			t.Errorf("the program depends on %s", p)
		}
	}
}

// The kernel's gonbui (root go.mod) talks to the GoNB that scripts/setup
// builds from tools/go.mod: the two pins must be the same version.
func TestGoNBPinsAgree(t *testing.T) {
	root := repoRoot(t)
	re := regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/janpfeifer/gonb (v\S+)`)
	var versions []string
	for _, f := range []string{"go.mod", "tools/go.mod"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s does not require github.com/janpfeifer/gonb", f)
		}
		versions = append(versions, string(m[1]))
	}
	if versions[0] != versions[1] {
		t.Errorf("go.mod pins gonb %s, tools/go.mod %s: want the same", versions[0], versions[1])
	}
}

// Every go.mod of the checkout declares a language version, not a patch
// release, except where a dependency needs a release (zoo's need 1.26.0),
// and no module but tools/ has tool directives.
func TestGoModFiles(t *testing.T) {
	root := repoRoot(t)
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`)
	for _, f := range []string{"go.mod", "retry/go.mod", "tools/go.mod", "zoo/go.mod"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		want := "1.26"
		if f == "zoo/go.mod" {
			want = "1.26.0"
		}
		if m := goLine.FindSubmatch(b); m == nil || string(m[1]) != want {
			t.Errorf("%s: go line %q, want go %s", f, m, want)
		}
		if f != "tools/go.mod" && regexp.MustCompile(`(?m)^tool\b`).Match(b) {
			t.Errorf("%s has tool directives: tools belong in tools/go.mod", f)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "retry/go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("require")) {
		t.Errorf("retry/go.mod requires modules: retry must need only the standard library\n%s", b)
	}
}

// The rules themselves: what each layer may and may not depend on.
func TestMayImport(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"lab/waves", "lab/static", false},      // a model does not import a renderer
		{"lab/waves", "lab/interactive", false}, // either of them
		{"lab/waves", "lab/figure", true},       // it returns figure data
		{"lab/waves", "lab/table", true},
		{"lab/waves", "lab/show", true}, // a progress bar
		{"lab/waves", "lab/cohort", false},
		{"lab/layered", "lab/synchrony", true}, // the listed exception
		{"lab/layered", "lab/waves", false},
		{"lab/static", "lab/waves", false}, // a renderer knows figures, not models
		{"lab/static", "lab/interactive", false},
		{"lab/static", "lab/show", true},
		{"lab/show", "lab/static", false}, // the runtime draws nothing
		{"lab/figure", "lab/show", false},
		{"lab/table", "lab/show", false},
		{"lab/explore", "lab/interactive", true},
		{"retry", "lab/schedule", false},
		{"lab/schedule", "retry", true},
		{"lab/schedule", "retry/backoff", true},
		{"retry", "retry/backoff", true},
	} {
		if got := mayImport(c.from, layers[c.from], c.to); got != c.want {
			t.Errorf("%s (%s) may import %s: %v, want %v", c.from, layers[c.from], c.to, got, c.want)
		}
	}
}
