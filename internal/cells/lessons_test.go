//go:build cellslessons

// TestLessonsBuildAsGoNB builds and runs every lesson's cells (several
// minutes): it builds only with -tags cellslessons, a suite of its own in
// scripts/test.

package cells

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/backofflab/backofflab/exercises/check"
	"github.com/backofflab/backofflab/internal/notebook"
)

// repo is the repository's root, from this package's directory.
func repo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// kernel is what GoNB is to a cell program, natively: a build folder in a
// Go workspace with the repository (GoNB's --go_work), a kernel directory
// (GONB_TMP_DIR) and the two display pipes, read as GoNB reads them.
type kernel struct {
	dir, tmp string
	known    map[string]bool // display ids seen: later ones update
}

func newKernel(t *testing.T, repoDir string, zoo bool) *kernel {
	t.Helper()
	k := &kernel{dir: t.TempDir(), tmp: t.TempDir(), known: map[string]bool{}}
	uses := fmt.Sprintf("\t.\n\t%q\n", repoDir)
	if zoo {
		uses += fmt.Sprintf("\t%q\n", filepath.Join(repoDir, "zoo"))
	}
	files := map[string]string{
		"go.mod":  "module gonb_cells_test\n\ngo 1.26\n",
		"go.work": "go 1.26.0\n\nuse (\n" + uses + ")\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(k.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// buildFlags are the go build flags of a cell program: those of the
// class's kernel (scripts/kernel), linked without symbol table and debug
// information, which changes nothing a program prints and takes a third
// of the linker's time.
var buildFlags = []string{"-ldflags=-s"}

// buildAll compiles the programs, each a package main of its own in the
// kernel's module, with one go build, and returns their executables in
// order. One build shares the go command's start and the packages' loading
// among all of a lesson's programs, and links two at a time. If that build
// fails, each program is built alone, in order, and the first that fails
// is named (its index, and go build's message).
func (k *kernel) buildAll(ctx context.Context, ps []*Program) ([]string, int, error) {
	bins, dirs := make([]string, len(ps)), make([]string, len(ps))
	out := filepath.Join(k.dir, "bin")
	for i, p := range ps {
		name := fmt.Sprintf("cell%03d", i+1)
		dirs[i], bins[i] = "./"+name, filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Join(k.dir, name), 0o755); err != nil {
			return nil, i, err
		}
		if err := os.WriteFile(filepath.Join(k.dir, name, "main.go"), []byte(p.Source), 0o644); err != nil {
			return nil, i, err
		}
	}
	if err := k.goBuild(ctx, out+string(filepath.Separator), dirs...); err == nil {
		return bins, 0, nil
	}
	for i := range ps {
		if err := k.goBuild(ctx, bins[i], dirs[i]); err != nil {
			return nil, i, err
		}
	}
	return nil, 0, errors.New("go build of every program failed, and of each alone did not")
}

// goBuild runs go build -o out pkgs... in the kernel's folder, as GoNB does.
func (k *kernel) goBuild(ctx context.Context, out string, pkgs ...string) error {
	cmd := exec.CommandContext(ctx, "go", append(append(append([]string{"build"}, buildFlags...), "-o", out), pkgs...)...)
	cmd.Dir = k.dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=", "GOPROXY=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// run runs a built cell and returns its outputs as Jupyter saves them:
// streams, display_data (an update_display_data changes the display it
// names in place).
func (k *kernel) run(ctx context.Context, bin string) ([]notebook.Output, error) {
	pipe, back := filepath.Join(k.dir, "pipe"), filepath.Join(k.dir, "pipe_back")
	for _, p := range []string{pipe, back} {
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return nil, err
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = k.dir
	cmd.Env = append(os.Environ(), protocol.GONB_PIPE_ENV+"="+pipe, protocol.GONB_PIPE_BACK_ENV+"="+back, protocol.GONB_TMP_DIR_ENV+"="+k.tmp, protocol.GONB_DIR_ENV+"="+k.dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var outs []notebook.Output
	var mu sync.Mutex
	var wg sync.WaitGroup
	// Opening a FIFO for reading or writing alone waits for the other end,
	// which a program that displays nothing never opens: open both ends
	// read-write (Linux opens that at once, and it never reads as EOF).
	r, err := os.OpenFile(pipe, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	w, err := os.OpenFile(back, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	wg.Go(func() {
		dec, enc := gob.NewDecoder(r), gob.NewEncoder(w)
		for {
			var d protocol.DisplayData
			if err := dec.Decode(&d); err != nil {
				return
			}
			if cv, ok := d.Data[protocol.MIMECommValue].(protocol.CommValue); ok {
				if cv.Address == protocol.GonbuiSyncAddress {
					enc.Encode(&protocol.CommValue{Address: protocol.GonbuiSyncAckAddress, Value: cv.Value})
				}
				continue
			}
			o := notebook.Output{OutputType: "display_data", Data: map[string]notebook.Text{}}
			for mime, v := range d.Data {
				switch v := v.(type) {
				case string:
					o.Data[string(mime)] = notebook.Text(v)
				case []byte:
					o.Data[string(mime)] = notebook.Text(base64.StdEncoding.EncodeToString(v))
				}
			}
			mu.Lock()
			if d.DisplayID != "" && k.known[d.DisplayID] {
				for i := range outs {
					if outs[i].Name == "display:"+d.DisplayID {
						outs[i].Data = o.Data
					}
				}
			} else {
				if d.DisplayID != "" {
					k.known[d.DisplayID] = true
					o.Name = "display:" + d.DisplayID // set apart below
				}
				outs = append(outs, o)
			}
			mu.Unlock()
		}
	})
	err = cmd.Wait()
	// What the program wrote before it exited is still in the pipe: read
	// it, then stop at the first wait.
	r.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	wg.Wait()
	r.Close()
	w.Close()
	for i := range outs {
		outs[i].Name = ""
	}
	// GoNB streams stdout and stderr as they come; a cell's streams are
	// compared as one text each, so order between them and the displays
	// does not matter beyond the displays' own order.
	var all []notebook.Output
	if stdout.Len() > 0 {
		all = append(all, notebook.Output{OutputType: "stream", Name: "stdout", Text: notebook.Text(stdout.String())})
	}
	if stderr.Len() > 0 {
		all = append(all, notebook.Output{OutputType: "stream", Name: "stderr", Text: notebook.Text(stderr.String())})
	}
	all = append(all, outs...)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		all = append(all, notebook.Output{OutputType: "error", EName: "ERROR", EValue: exit.Error()})
	} else if err != nil {
		return nil, err
	}
	return all, nil
}

// TestLessonsBuildAsGoNB merges every code cell of every lesson in order,
// as GoNB does, builds each merged program with the ordinary go build (in
// a workspace with the repository, as GoNB's kernel has), runs it with
// GoNB's display pipes, and checks that it shows what the saved notebook
// shows (notebook.Compare: stdout, stderr, displays, PNGs and charts by
// hash). The exercises, saved without outputs, are checked as
// exercises/solutions/notebooks checks them on the kernel: the
// instructor's version passes every check, the learner's says what is not
// written yet.
func TestLessonsBuildAsGoNB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every lesson's cells; run without -short")
	}
	root := repo(t)
	lessons, _ := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	exercises, _ := filepath.Glob(filepath.Join(root, "exercises", "notebooks", "*.ipynb"))
	if len(lessons) < 14 || len(exercises) < 3 {
		t.Fatalf("found %d lessons and %d exercises under %s", len(lessons), len(exercises), root)
	}
	// The real-time lessons first, two notebooks at a time.
	slices.SortStableFunc(lessons, func(a, b string) int {
		rank := func(p string) int {
			if strings.Contains(p, "/11-") || strings.Contains(p, "/13-") {
				return 0
			}
			return 1
		}
		return rank(a) - rank(b)
	})
	sem := make(chan struct{}, 2)
	for _, path := range lessons {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".ipynb"), func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			saved, fresh := runLesson(t, root, path)
			if code, ok := measured[filepath.Base(path)]; ok {
				for i, c := range saved.Cells {
					if c.CellType == "code" && strings.Contains(string(c.Source), code) && !c.HasTag(notebook.TagMeasured) {
						tags, _ := c.Metadata["tags"].([]any)
						c.Metadata = maps.Clone(c.Metadata)
						if c.Metadata == nil {
							c.Metadata = map[string]any{}
						}
						c.Metadata["tags"] = append(slices.Clone(tags), notebook.TagMeasured)
						saved.Cells[i] = c
					}
				}
			}
			for _, p := range notebook.Compare(saved, fresh) {
				if realTime[filepath.Base(path)] && sameButNumbers(saved, fresh, p.Cell) {
					t.Logf("cell %d differs only in the numbers of a real-time run (the machine's load sets them): %s", p.Cell, p.Message)
					continue
				}
				t.Errorf("%s", p)
			}
		})
	}
	for _, path := range exercises {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".ipynb"), func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, inst := runLesson(t, root, filepath.Join(root, "exercises", "solutions", "notebooks", name))
			for i, c := range inst.Cells {
				if c.IsGraded() && (!strings.Contains(c.Stream("stdout"), check.Passed) || c.Stream("stderr") != "" || c.HasError()) {
					t.Errorf("instructor's test cell %d does not pass cleanly with %q:\n%s%s", i+1, check.Passed, c.Stream("stdout"), c.Stream("stderr"))
				}
			}
			_, learner := runLesson(t, root, path)
			for i, c := range learner.Cells {
				if !c.IsGraded() {
					if c.HasError() || c.Stream("stderr") != "" {
						t.Errorf("learner's cell %d fails with the stubs (only the test cells may):\n%s", i+1, c.Stream("stderr"))
					}
				} else if out := c.Stream("stderr"); !strings.Contains(out, "not written yet") {
					t.Errorf("learner's test cell %d should say what is not written yet:\n%s", i+1, out)
				}
			}
		})
	}
}

// measured names, by lesson, a piece of the code of the cells whose charts
// draw a run that varies from run to run (real time, unseeded libraries),
// as the notebooks test does until the lesson sources tag them measured:
// their images are compared by kind and size.
var measured = map[string]string{
	"11-storm.ipynb":          "stormPanel(name, r)",
	"12-apply-it.ipynb":       "flaky.CompareCohorts(",
	"13-whose-defaults.ipynb": "zoo.Chart(",
}

// realTime lists the lessons whose cells run real clients and servers in
// real time (lesson 13 in one cell): how many retries land in a window
// and when the last client is served depend on the machine's load, as the
// notebooks test's fresh runs do.
var realTime = map[string]bool{"11-storm.ipynb": true, "12-apply-it.ipynb": true, "13-whose-defaults.ipynb": true}

var number = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// sameButNumbers reports whether notebook cell n (from 1) shows the same as
// saved with every number masked and its images compared by kind.
func sameButNumbers(saved, fresh *notebook.Notebook, n int) bool {
	return len(notebook.CompareCellShape(saved, fresh, n, func(text string) string {
		return strings.Join(strings.Fields(number.ReplaceAllString(text, "#")), " ")
	})) == 0
}

// runLesson runs the notebook at path cell by cell and returns it as saved
// and with the fresh outputs.
func runLesson(t *testing.T, root, path string) (saved, fresh *notebook.Notebook) {
	t.Helper()
	saved, err := notebook.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	zoo := false
	for _, c := range saved.Cells {
		if strings.Contains(string(c.Source), "backofflab/zoo") {
			zoo = true
		}
	}
	k := newKernel(t, root, zoo)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	out := *saved
	out.Cells = slices.Clone(saved.Cells)
	// Every cell merged first (a cell's program depends on the cells before
	// it, never on their outputs), all built at once, then run in order.
	var s State
	var progs []*Program
	var cells []int // progs[j] is the program of cell cells[j]
	id := 0
	start := time.Now()
	for i, c := range out.Cells {
		if c.CellType != "code" {
			continue
		}
		id++
		c.Outputs = nil
		out.Cells[i] = c
		p, err := s.Merge(id, string(c.Source))
		if err != nil {
			t.Fatalf("%s cell %d: %v", filepath.Base(path), i+1, err)
		}
		s.Commit(p)
		if !p.Empty {
			progs, cells = append(progs, p), append(cells, i)
		}
	}
	bins, bad, err := k.buildAll(ctx, progs)
	if err != nil {
		t.Fatalf("%s cell %d does not build:\n%v\n%s", filepath.Base(path), cells[bad]+1, err, progs[bad].Source)
	}
	built := time.Since(start)
	for j, bin := range bins {
		c := out.Cells[cells[j]]
		if c.Outputs, err = k.run(ctx, bin); err != nil {
			t.Fatalf("%s cell %d: %v", filepath.Base(path), cells[j]+1, err)
		}
		out.Cells[cells[j]] = c
	}
	t.Logf("%s: %d cells, %d programs built in %v, all run in %v", filepath.Base(path), id, len(progs), built.Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond))
	return saved, &out
}
