//go:build wasmbrowser

// The tests of Go in the browser (issue 23, web/README.md): they take
// five minutes or so (every lesson in Chromium, two at a time), so they build
// only with -tags wasmbrowser, and scripts/test runs them beside the other
// suites.

package browsercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/exercises/check"
	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// wasmSite builds Go in the browser (scripts/build-wasm) once per test
// binary into .cache/wasm-site (its files are named by content, so a
// rebuild rewrites only what changed) and serves it on 127.0.0.1.
var wasmSite = struct {
	once sync.Once
	dir  string
	err  error
}{}

func serveWasm(t *testing.T) *httptest.Server {
	t.Helper()
	wasmSite.once.Do(func() {
		dir := filepath.Join(jupytertest.Repo(), ".cache", "wasm-site")
		cmd := exec.Command(filepath.Join(jupytertest.Repo(), "scripts", "build-wasm"), dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			wasmSite.err = fmt.Errorf("scripts/build-wasm: %v\n%s", err, out)
			return
		}
		t.Logf("scripts/build-wasm:\n%s", out)
		wasmSite.dir = dir
	})
	if wasmSite.err != nil {
		t.Fatal(wasmSite.err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(wasmSite.dir)))
	t.Cleanup(srv.Close)
	return srv
}

// wasmOutput is a cell's output as the test page reports it (nbformat's
// shape).
type wasmOutput struct {
	OutputType string            `json:"output_type"`
	Name       string            `json:"name"`
	Text       string            `json:"text"`
	Data       map[string]string `json:"data"`
	EName      string            `json:"ename"`
	EValue     string            `json:"evalue"`
}

type wasmCell struct {
	Status         string             `json:"status"`
	ExecutionCount int                `json:"executionCount"`
	Timings        map[string]float64 `json:"timings"`
	Outputs        []wasmOutput       `json:"outputs"`
}

// openWasmPage opens the test page on notebook and waits until the
// toolchain is ready.
func openWasmPage(t *testing.T, b *Browser, srv *httptest.Server, notebook string) {
	t.Helper()
	if err := b.Do(2*time.Minute, chromedp.Navigate(srv.URL+"/test/?notebook="+notebook)); err != nil {
		t.Fatal(err)
	}
	if _, err := evalAwait[map[string]float64](b, 3*time.Minute, "window.golabTest.ready"); err != nil {
		t.Fatalf("the toolchain did not start: %v\n%s", err, strings.Join(b.Problems(), "\n"))
	}
}

// evalAwait evaluates an expression that yields a promise, waiting up to d.
func evalAwait[T any](b *Browser, d time.Duration, js string) (T, error) {
	var v T
	ctx, cancel := context.WithTimeout(b.Ctx, d)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf("(async () => JSON.stringify(await (%s)))()", js), chromedp.EvalAwaitPromise))
	if err != nil {
		return v, err
	}
	err = json.Unmarshal([]byte(raw), &v)
	return v, err
}

func runSource(t *testing.T, b *Browser, source string) wasmCell {
	t.Helper()
	src, _ := json.Marshal(source)
	c, err := evalAwait[wasmCell](b, 3*time.Minute, "window.golabTest.runSource("+string(src)+")")
	if err != nil {
		t.Fatalf("running %q: %v\n%s", source, err, strings.Join(b.Problems(), "\n"))
	}
	return c
}

// streamOf returns what a cell wrote on the named stream.
func streamOf(c wasmCell, name string) string {
	var s strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType == "stream" && o.Name == name {
			s.WriteString(o.Text)
		}
	}
	return s.String()
}

func stdout(c wasmCell) string { return streamOf(c, "stdout") }

func stderr(c wasmCell) string { return streamOf(c, "stderr") }

// helloWorld: a cell compiled, linked and run in the browser prints what it
// prints natively, and a later cell sees the declarations of an earlier one.
func helloWorld(t *testing.T, b *Browser) {
	c := runSource(t, b, "func greet(who string) string { return \"hello, \" + who }\n\n%%\nfmt.Println(greet(\"wasm\"))\n")
	if c.Status != "ok" || stdout(c) != "hello, wasm\n" {
		t.Fatalf("hello cell: %+v", c)
	}
	c = runSource(t, b, "%%\nfmt.Println(strings.ToUpper(greet(\"again\")))\n")
	if c.Status != "ok" || stdout(c) != "HELLO, AGAIN\n" {
		t.Fatalf("second cell: %+v", c)
	}
	t.Logf("timings: %v", c.Timings)
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("page problems:\n%s", strings.Join(p, "\n"))
	}
}

// withBrowserOutputs returns the saved notebook with each code cell's
// outputs replaced by the browser's, the browser's own notes taken out of
// stderr (and returned, by code cell).
func withBrowserOutputs(saved *notebook.Notebook, cells []wasmCell) (*notebook.Notebook, map[int][]string) {
	fresh := *saved
	fresh.Cells = slices.Clone(saved.Cells)
	notes := map[int][]string{}
	k := 0
	for i, c := range fresh.Cells {
		if c.CellType != "code" {
			continue
		}
		var outs []notebook.Output
		if k < len(cells) {
			for _, o := range cells[k].Outputs {
				text := o.Text
				if o.OutputType == "stream" && o.Name == "stderr" {
					var kept []string
					for _, l := range strings.SplitAfter(text, "\n") {
						if strings.HasPrefix(l, browserNote) {
							notes[k+1] = append(notes[k+1], strings.TrimSpace(l))
						} else if l != "" {
							kept = append(kept, l)
						}
					}
					text = strings.Join(kept, "")
					if text == "" {
						continue
					}
				}
				out := notebook.Output{OutputType: o.OutputType, Name: o.Name, Text: notebook.Text(text), EName: o.EName, EValue: o.EValue}
				if o.Data != nil {
					out.Data = map[string]notebook.Text{}
					for m, v := range o.Data {
						out.Data[m] = notebook.Text(v)
					}
				}
				outs = append(outs, out)
			}
		}
		c.Outputs = outs
		fresh.Cells[i] = c
		k++
	}
	return &fresh, notes
}

// Every lesson and exercise, run cell by cell in the browser's Go, shows
// what its saved notebook shows (the lessons the browser edition's suite
// runs in full, liteLessons, are compared there, as here), compared as the
// notebooks test compares a fresh run (notebook.Compare): stdout and stderr as text, every
// display's text exactly, its PNGs, interactive charts and explorables
// byte for byte (by hash), but in the cells tagged measured (real time,
// unseeded libraries). Beside that, stderr may carry the browser's own
// notes, each a line starting "in the browser: ". Before them, HelloWorld:
// the smallest cells, and a later cell using an earlier one's declaration.
func TestWasmLessonsMatchSavedNotebooks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every lesson in Chromium; run without -short")
	}
	srv := serveWasm(t)
	pages := newWasmPages(t, srv)
	// First, on one of the pages (the Chromium and toolchain a test of its
	// own would load again), the smallest program; the notebooks after it
	// each start from a restarted kernel.
	t.Run("HelloWorld", func(t *testing.T) { helloWorld(t, pages.take(t)) })
	// The longest first (lesson 13 compiles the zoo's libraries, a third of
	// the suite's page time), so that it is not the last still running while
	// the other page waits. Parallel subtests start in the order they are
	// made.
	lessons := notebooksIn(t, "notebooks/*.ipynb")
	slices.SortStableFunc(lessons, func(a, b string) int {
		first := func(p string) int {
			if strings.HasPrefix(filepath.Base(p), "13-") {
				return 0
			}
			return 1
		}
		return first(a) - first(b)
	})
	ran := 0
	for _, path := range lessons {
		name := filepath.Base(path)
		if slices.Contains(liteLessons, strings.TrimSuffix(name, ".ipynb")) {
			continue
		}
		ran++
		t.Run(strings.TrimSuffix(name, ".ipynb"), func(t *testing.T) {
			t.Parallel()
			b := pages.take(t)
			saved, cells := runWasmNotebook(t, b, filepath.Join(jupytertest.Repo(), path), name)
			tagMeasured(name, saved)
			fresh, notes := withBrowserOutputs(saved, cells)
			firstNote := -1 // the code cell that first ran clients and servers in real time
			for k, n := range notes {
				t.Logf("code cell %d: %s", k, strings.Join(n, "; "))
				if strings.Contains(strings.Join(n, " "), "in-memory network") && (firstNote < 0 || k < firstNote) {
					firstNote = k
				}
			}
			for _, p := range notebook.Compare(saved, fresh) {
				if why := realTimeShape(saved, fresh, p.Cell, firstNote); why != "" {
					t.Logf("cell %d compared by shape: %s", p.Cell, why)
					continue
				}
				t.Errorf("%s", p)
			}
		})
	}
	if ran+len(liteLessons) < 14 {
		t.Fatalf("%d lessons here and %d in the browser edition's suite: the course has 14", ran, len(liteLessons))
	}
	// The exercises are saved without outputs: in the browser, as on the
	// kernel (exercises/solutions/notebooks), the instructor's version
	// passes every check and the learner's says what is not written yet.
	exercises, _ := filepath.Glob(filepath.Join(jupytertest.Repo(), "exercises", "notebooks", "*.ipynb"))
	if len(exercises) < 3 {
		t.Fatalf("found %d exercise notebooks", len(exercises))
	}
	for _, path := range exercises {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".ipynb"), func(t *testing.T) {
			t.Parallel()
			b := pages.take(t)
			inst, cells := runWasmNotebook(t, b, filepath.Join(jupytertest.Repo(), "exercises", "solutions", "notebooks", name), "instructor-"+name)
			fresh, _ := withBrowserOutputs(inst, cells)
			for i, c := range fresh.Cells {
				if c.IsGraded() && (!strings.Contains(c.Stream("stdout"), check.Passed) || c.Stream("stderr") != "" || c.HasError()) {
					t.Errorf("instructor's test cell %d does not pass cleanly with %q:\n%s%s", i+1, check.Passed, c.Stream("stdout"), c.Stream("stderr"))
				}
			}
			learner, cells := runWasmNotebook(t, b, path, name)
			fresh, _ = withBrowserOutputs(learner, cells)
			for i, c := range fresh.Cells {
				if !c.IsGraded() {
					if c.HasError() || c.Stream("stderr") != "" {
						t.Errorf("learner's cell %d fails with the stubs (only the test cells may):\n%s", i+1, c.Stream("stderr"))
					}
					continue
				}
				out := c.Stream("stderr")
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					if !strings.HasPrefix(line, "✗ ") && !strings.HasSuffix(line, "run this cell again.") {
						t.Errorf("learner's test cell %d: %q is neither a ✗ item nor the closing line", i+1, line)
					}
				}
				if !strings.Contains(out, "not written yet") {
					t.Errorf("learner's test cell %d should say what is not written yet:\n%s", i+1, out)
				}
			}
		})
	}
}

// wasmPageCount is how many pages run the notebooks side by side: each
// page's toolchain runs on one thread, so two keep a two-core machine busy
// (web/README.md gives the times). BACKOFFLAB_WASM_PAGES (1 to 4) sets it,
// to measure.
var wasmPageCount = func() int {
	if v := os.Getenv("BACKOFFLAB_WASM_PAGES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 4 {
			panic(fmt.Sprintf("BACKOFFLAB_WASM_PAGES must be a whole number from 1 to 4, got %q", v))
		}
		return n
	}
	return min(2, runtime.NumCPU())
}()

// wasmPages are pages of the test site, each in a Chromium of its own, their
// toolchains loaded once: a notebook takes one, runs in it from a
// restarted kernel (golabTest.open, as the page's Restart button) and
// gives it back when it ends. A page whose notebook failed is reloaded
// before it is given to the next one, so that one failure stays one.
type wasmPages struct {
	srv  *httptest.Server
	free chan *Browser
}

func newWasmPages(t *testing.T, srv *httptest.Server) *wasmPages {
	t.Helper()
	p := &wasmPages{srv: srv, free: make(chan *Browser, wasmPageCount)}
	var pages []*Browser
	for range wasmPageCount {
		b := NewBrowser(t)
		if err := b.Do(2*time.Minute, chromedp.Navigate(srv.URL+"/test/?notebook=00-start-here.ipynb")); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	// The pages load their toolchains at the same time.
	for _, b := range pages {
		if _, err := evalAwait[map[string]float64](b, 3*time.Minute, "window.golabTest.ready"); err != nil {
			t.Fatalf("the toolchain did not start: %v\n%s", err, strings.Join(b.Problems(), "\n"))
		}
		p.free <- b
	}
	return p
}

// take returns a free page, given back when t ends.
func (p *wasmPages) take(t *testing.T) *Browser {
	t.Helper()
	b := <-p.free
	t.Cleanup(func() {
		defer func() { p.free <- b }() // even if reloading fails
		if t.Failed() {
			openWasmPage(t, b, p.srv, "00-start-here.ipynb")
		}
	})
	return b
}

// runWasmNotebook opens the notebook served as name in the test page b
// shows, from a restarted kernel, runs every code cell in order and returns
// the notebook at path (the saved one) and the browser's results.
func runWasmNotebook(t *testing.T, b *Browser, path, name string) (*notebook.Notebook, []wasmCell) {
	t.Helper()
	saved, err := notebook.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(name)
	if _, err := evalAwait[bool](b, time.Minute, "window.golabTest.open("+string(q)+").then(() => true)"); err != nil {
		t.Fatalf("opening %s: %v\n%s", name, err, strings.Join(b.Problems(), "\n"))
	}
	start := time.Now()
	cells, err := evalAwait[[]wasmCell](b, 15*time.Minute, "window.golabTest.runAll()")
	if err != nil {
		t.Fatalf("run all: %v\n%s", err, strings.Join(b.Problems(), "\n"))
	}
	var link, compile, run []float64
	for _, c := range cells {
		compile, link, run = append(compile, c.Timings["compile"]), append(link, c.Timings["link"]), append(run, c.Timings["run"])
	}
	t.Logf("%s: %d cells in %v (compile p50 %.0f ms, link p50 %.0f ms, run p50 %.0f ms)", name, len(cells), time.Since(start).Round(time.Second), percentile(compile, 50), percentile(link, 50), percentile(run, 50))
	if len(cells) > 0 && cells[0].ExecutionCount != 1 {
		t.Errorf("%s's first cell ran as execution %d: the kernel was not restarted", name, cells[0].ExecutionCount)
	}
	b.Screenshot(t, "#cells", "wasm-"+strings.TrimSuffix(name, ".ipynb"))
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("page problems:\n%s", strings.Join(p, "\n"))
	}
	return saved, cells
}

func errorOf(c wasmCell) string {
	for _, o := range c.Outputs {
		if o.OutputType == "error" {
			return o.EName + ": " + o.EValue
		}
	}
	return ""
}

// Errors a learner can act on: a compile error names the cell and line; a
// panic its message and the cell line of each frame of the cell's code;
// an endless loop stops on interrupt and the next cell runs; a cell that
// allocates without end ends with Go's out-of-memory error, and the page
// goes on.
func TestWasmErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go for the browser and starts Chromium; run without -short")
	}
	srv := serveWasm(t)
	b := NewBrowser(t)
	// A smaller memory cap than the default 2 GiB, so that the runaway
	// cell reaches it quickly; the pages of TestWasmLessonsMatchSavedNotebooks run
	// with the default.
	if err := b.Do(2*time.Minute, chromedp.Navigate(srv.URL+"/test/?notebook=00-start-here.ipynb&maxMemory=536870912")); err != nil {
		t.Fatal(err)
	}
	if _, err := evalAwait[map[string]float64](b, 3*time.Minute, "window.golabTest.ready"); err != nil {
		t.Fatalf("the toolchain did not start: %v\n%s", err, strings.Join(b.Problems(), "\n"))
	}

	c := runSource(t, b, "%%\nx := 1\nfmt.Println(y)")
	if c.Status != "error" || errorOf(c) != "CompileError: cell [1] line 2: declared and not used: x" {
		t.Errorf("compile error: status %s, %q", c.Status, errorOf(c))
	}
	if e := stderr(c); !strings.Contains(e, "cell [1] line 2:1: declared and not used: x") || !strings.Contains(e, "cell [1] line 3:13: undefined: y\n    fmt.Println(y)") {
		t.Errorf("compile error's stderr names cells and lines with the code:\n%s", e)
	}
	if strings.Contains(stderr(c), "main.go") {
		t.Errorf("a compile error names the generated file:\n%s", stderr(c))
	}

	c = runSource(t, b, "func pick(xs []int) int {\n\treturn xs[3]\n}\n\n%%\nfmt.Println(pick(nil))")
	e := stderr(c)
	if c.Status != "error" || errorOf(c) != "ERROR: exit status 2" {
		t.Errorf("panic: status %s, %q", c.Status, errorOf(c))
	}
	for _, want := range []string{"panic: runtime error: index out of range [3] with length 0", "[[ Cell [2] Line 2 ]]", "[[ Cell [2] Line 6 ]]"} {
		if !strings.Contains(e, want) {
			t.Errorf("panic's stderr lacks %q:\n%s", want, e)
		}
	}

	// An endless loop: start it, wait until it runs, stop it.
	if _, err := Eval[bool](b, `(window.loop = window.golabTest.runSource("%%\nfor {\n}"), true)`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		running, err := Eval[bool](b, `!!window.golabTest.session().running`)
		if err != nil {
			t.Fatal(err)
		}
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the endless loop did not start within 2 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if ok, err := Eval[bool](b, `window.golabTest.interrupt()`); err != nil || !ok {
		t.Fatalf("interrupt: %v %v", ok, err)
	}
	c, err := evalAwait[wasmCell](b, time.Minute, "window.loop")
	if err != nil || c.Status != "error" || !strings.HasPrefix(errorOf(c), "Interrupted") {
		t.Errorf("stopped loop: %+v %v", c, err)
	}
	c = runSource(t, b, "%%\nfmt.Println(pick([]int{1, 2, 3, 4}))")
	if c.Status != "ok" || stdout(c) != "4\n" {
		t.Errorf("the cell after a stopped one, with the declarations kept: %+v", c)
	}

	c = runSource(t, b, "%%\nvar keep [][]byte\nfor {\n\tkeep = append(keep, make([]byte, 16<<20))\n}")
	if c.Status != "error" || !strings.Contains(stderr(c), "out of memory") {
		t.Errorf("runaway allocation: status %s, stderr:\n%.2000s", c.Status, stderr(c))
	}
	c = runSource(t, b, "%%\nfmt.Println(\"still here\")")
	if c.Status != "ok" || stdout(c) != "still here\n" {
		t.Errorf("after running out of memory: %+v", c)
	}
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("page problems:\n%s", strings.Join(p, "\n"))
	}
}
