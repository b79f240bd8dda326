package notebook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/backofflab/backofflab/internal/proctag"
)

// ExecOptions controls Execute.
type ExecOptions struct {
	// CellTimeout bounds each cell (nbconvert's own timeout); zero means 5 minutes.
	CellTimeout time.Duration
	// Timeout bounds the whole run; zero means 20 minutes.
	Timeout time.Duration
	// RunSkipped runs the cells tagged skip-execution too (Executor only). A test sets it so
	// that such a cell, whose outputs are not saved, still runs once: Check checks it, Compare
	// leaves it out.
	RunSkipped bool
}

// withDefaults returns opt with its zero durations replaced by their defaults.
func (opt ExecOptions) withDefaults() ExecOptions {
	if opt.CellTimeout <= 0 {
		opt.CellTimeout = 5 * time.Minute
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 20 * time.Minute
	}
	return opt
}

// Execute runs the notebook at in on the Backoff Lab kernel with `jupyter nbconvert --execute`,
// keeping going past errors so that Check can say which cell failed, and writes the executed
// notebook to out. Cells tagged skip-execution are not run. The working directory of the kernel
// is in's folder, as when a learner opens the notebook.
func Execute(ctx context.Context, in, out string, opt ExecOptions) error {
	opt = opt.withDefaults()
	jupyter, err := exec.LookPath("jupyter")
	if err != nil {
		return errors.New("jupyter is not on PATH: run scripts/setup first (it installs Jupyter and the kernel)")
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, jupyter, "nbconvert",
		"--to", "notebook", "--execute", "--allow-errors",
		fmt.Sprintf("--ExecutePreprocessor.timeout=%d", int(opt.CellTimeout.Seconds())),
		"--ExecutePreprocessor.kernel_name="+KernelName,
		"--ExecutePreprocessor.record_timing=False",
		"--output-dir", filepath.Dir(absOut),
		"--output", strings.TrimSuffix(filepath.Base(absOut), ".ipynb"),
		in)
	// Everything the run starts (the kernel, its gopls) carries a tag, so that it is stopped
	// afterwards even when nbconvert is killed before it could shut its kernel down.
	tag := proctag.New()
	cmd.Env = append(proctag.Env(os.Environ(), tag), "BACKOFFLAB_RAW_ERROR=1")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	defer proctag.Stop(tag, 5*time.Second)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: execution took longer than %v: %v\n%s", in, opt.Timeout, ctx.Err(), tail(stderr.String(), 40))
		}
		return fmt.Errorf("%s: nbconvert failed: %v\n%s", in, err, tail(stderr.String(), 40))
	}
	return nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var kept []string
	for _, l := range lines {
		if klogLine.MatchString(l) {
			continue // GoNB's own log lines
		}
		kept = append(kept, l)
	}
	if len(kept) > n {
		kept = kept[len(kept)-n:]
	}
	return strings.Join(kept, "\n")
}

var klogLine = regexp.MustCompile(`^[IWE]\d{4} \d\d:\d\d:\d\d`)

// Problem is something wrong with an executed notebook.
type Problem struct {
	Cell    int // 1-based
	Message string
}

func (p Problem) String() string { return fmt.Sprintf("cell %d: %s", p.Cell, p.Message) }

// Check returns what is wrong with an executed notebook: a cell that errored or printed a panic,
// a code cell that was not executed (unless tagged skip-execution), a cell tagged expect-chart
// with no chart among its outputs. A cell tagged skip-execution that a run did execute is
// checked as any other.
func Check(nb *Notebook) []Problem {
	var probs []Problem
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		n := i + 1
		if c.HasTag(TagSkipExecution) && c.ExecutionCount == nil {
			continue // not run, as saved; a run that executes it checks it as any other
		}
		if c.ExecutionCount == nil {
			probs = append(probs, Problem{n, "was not executed"})
		}
		chart := false
		for _, o := range c.Outputs {
			switch {
			case o.OutputType == "error":
				probs = append(probs, Problem{n, fmt.Sprintf("error %s: %s\n%s", o.EName, o.EValue, stripANSI(strings.Join(o.Traceback, "\n")))})
			case o.OutputType == "stream" && (strings.Contains(string(o.Text), "panic:") || strings.Contains(string(o.Text), "exit status ")):
				probs = append(probs, Problem{n, "printed a failure on " + o.Name + ":\n" + string(o.Text)})
			}
			if isChart(o) {
				chart = true
			}
		}
		if c.HasTag(TagExpectChart) && !chart {
			probs = append(probs, Problem{n, "is tagged expect-chart but displayed no chart (no image/png, image/svg+xml, or HTML with an <svg>, <img> or chart script)"})
		}
	}
	return probs
}

func isChart(o Output) bool {
	if o.OutputType != "display_data" && o.OutputType != "execute_result" {
		return false
	}
	if _, ok := o.Data["image/png"]; ok {
		return true
	}
	if _, ok := o.Data["image/svg+xml"]; ok {
		return true
	}
	h := string(o.Data["text/html"])
	return strings.Contains(h, "<svg") || strings.Contains(h, "<img") || strings.Contains(h, "echarts")
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }
