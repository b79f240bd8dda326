package notebook

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/backofflab/backofflab/internal/proctag"
)

//go:embed executor.py
var executorSource string

// An Executor runs notebooks as Execute does, but through one Python process (Jupyter's
// nbclient, the library nbconvert executes with) for all of them, and as many at once as it
// is asked to: starting `jupyter nbconvert` costs a couple of CPU seconds a notebook, a good
// part of a short lesson's run. Each notebook still gets a kernel of its own. Close stops the
// process and every kernel it started.
type Executor struct {
	opt   ExecOptions
	cmd   *exec.Cmd
	stdin io.WriteCloser
	tag   string

	mu      sync.Mutex
	next    int
	waiting map[int]chan error
	ended   chan struct{} // closed when the process's output ends
	stderr  bytes.Buffer  // under mu
}

// StartExecutor starts an Executor whose runs follow opt (its Timeout bounds each notebook).
// The kernels see the environment as it is now.
func StartExecutor(opt ExecOptions) (*Executor, error) {
	opt = opt.withDefaults()
	jupyter, err := exec.LookPath("jupyter")
	if err != nil {
		return nil, errors.New("jupyter is not on PATH: run scripts/setup first (it installs Jupyter and the kernel)")
	}
	python := "python3"
	for _, name := range []string{"python", "python3"} { // the Python that runs jupyter
		if p := filepath.Join(filepath.Dir(jupyter), name); isExecutable(p) {
			python = p
			break
		}
	}
	e := &Executor{opt: opt, tag: proctag.New(), waiting: map[int]chan error{}, ended: make(chan struct{})}
	e.cmd = exec.Command(python, "-c", executorSource)
	e.cmd.Env = append(proctag.Env(os.Environ(), e.tag), "BACKOFFLAB_RAW_ERROR=1")
	e.cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.stderr.Len() > 1<<20 { // keep the last of what the kernels log
			rest := append([]byte(nil), e.stderr.Bytes()[e.stderr.Len()/2:]...)
			e.stderr.Reset()
			e.stderr.Write(rest)
		}
		return e.stderr.Write(p)
	})
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := e.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the notebook executor (%s): %v", python, err)
	}
	go e.read(stdout)
	return e, nil
}

// read delivers each result line to the Execute waiting for it.
func (e *Executor) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var res struct {
			ID    int     `json:"id"`
			Error *string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &res) != nil {
			continue // not a result: something a library printed
		}
		e.mu.Lock()
		ch := e.waiting[res.ID]
		delete(e.waiting, res.ID)
		e.mu.Unlock()
		if ch != nil {
			if res.Error != nil {
				ch <- errors.New(*res.Error)
			} else {
				ch <- nil
			}
		}
	}
	close(e.ended)
}

// Execute runs the notebook at in and writes it, executed, to out, as the package's Execute
// does. It may be called from several goroutines at once; the notebooks then run side by side.
func (e *Executor) Execute(ctx context.Context, in, out string) error {
	absIn, err := filepath.Abs(in)
	if err != nil {
		return err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	defer cancel()
	ch := make(chan error, 1)
	e.mu.Lock()
	e.next++
	id := e.next
	e.waiting[id] = ch
	req, _ := json.Marshal(map[string]any{
		"id": id, "in": absIn, "out": absOut, "kernel": KernelName,
		"timeout": int(e.opt.CellTimeout.Seconds()), "run_skipped": e.opt.RunSkipped,
	})
	_, err = e.stdin.Write(append(req, '\n'))
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: the notebook executor has stopped: %v", in, err)
	}
	select {
	case err := <-ch:
		if err != nil {
			return fmt.Errorf("%s: execution failed:\n%s", in, tail(err.Error(), 40))
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: execution took longer than %v: %v", in, e.opt.Timeout, ctx.Err())
	case <-e.ended:
		e.mu.Lock()
		defer e.mu.Unlock()
		return fmt.Errorf("%s: the notebook executor ended before the notebook did:\n%s", in, tail(e.stderr.String(), 40))
	}
}

// Close lets the notebooks still running end for up to 10 seconds, then stops the executor and
// every process it started.
func (e *Executor) Close() error {
	e.stdin.Close()
	stopped := false
	select {
	case <-e.ended:
	case <-time.After(10 * time.Second):
		stopped = true
		proctag.Stop(e.tag, 5*time.Second) // the executor and its kernels
		<-e.ended
	}
	err := e.cmd.Wait()
	proctag.Stop(e.tag, 5*time.Second) // a kernel left behind
	switch {
	case stopped:
		return errors.New("the notebook executor was stopped: notebooks were still running 10 s after Close")
	case err != nil:
		e.mu.Lock()
		defer e.mu.Unlock()
		return fmt.Errorf("the notebook executor failed: %v\n%s", err, tail(e.stderr.String(), 40))
	}
	return nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// writerFunc is an io.Writer made of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
