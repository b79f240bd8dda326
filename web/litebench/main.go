// Command litebench measures the browser edition (scripts/build-lite's site,
// in headless Chromium, served by a plain file server) and prints a table:
// the site's size; a learner's first minute, opening the site's address to
// lesson 00's first output, on a cold cache and on a warm one (a second
// visit), with the kernel's own record of each visit (its start, the cells
// whose programs came from the browser's cache, those compiled and
// linked); and each lesson's Run All in the browser, in a new tab, first
// with its programs not yet cached and again with them cached, beside the
// same notebook run on the server's GoNB kernel. scripts/bench-lite runs it.
//
//	go run ./web/litebench [-site DIR] [-lessons 00,03] [-skip-gonb]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/chromium"

	"github.com/backofflab/backofflab/internal/notebook"
)

var (
	lessons  = flag.String("lessons", "", "comma-separated lesson numbers to Run All (default: every lesson)")
	skipGoNB = flag.Bool("skip-gonb", false, "leave out the server kernel's column (it needs scripts/setup's Jupyter)")
	siteDir  = flag.String("site", "", "measure the site built in `DIR` (default: build .cache/lite-site with scripts/build-lite)")
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("bench-lite: ")
	flag.Parse()
	if err := bench(); err != nil {
		log.Fatal(err)
	}
}

const lesson00 = "notebooks/00-start-here.ipynb"

// The page's side: the open notebook's code cells, the first output shown
// since the bench cleared them, and the kernel's state.
const stateJS = `((path) => {
  const app = window.jupyterapp;
  const w = app && Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path);
  if (!w || !w.content || !w.content.model || !w.sessionContext || !w.sessionContext.session) return JSON.stringify({ready: false});
  const cells = Array.from(w.content.model.cells);
  const code = cells.filter(c => c.type === 'code');
  const kernel = w.sessionContext.session.kernel;
  return JSON.stringify({
    ready: true,
    kernel: kernel ? kernel.status : '',
    code: code.length,
    ran: code.filter(c => c.executionCount != null && c.executionState !== 'running').length,
    outputs: code.reduce((n, c) => n + c.outputs.length, 0),
    running: code.filter(c => c.executionState === 'running').length,
  });
})`

type pageState struct {
	Ready   bool
	Kernel  string
	Code    int
	Ran     int
	Outputs int
	Running int
}

func bench() error {
	repo, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(repo, "web", "litebench")); err != nil {
		return errors.New("run it from the repository's root (scripts/bench-lite does)")
	}
	site := *siteDir
	if site == "" {
		site = filepath.Join(repo, ".cache", "lite-site")
		build := exec.Command(filepath.Join(repo, "scripts", "build-lite"), site)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("scripts/build-lite: %w", err)
		}
	} else if _, err := os.Stat(filepath.Join(site, "go-web", "golab.js")); err != nil {
		return fmt.Errorf("-site %s: not a site scripts/build-lite wrote (%w)", site, err)
	}
	total, firstVisit, err := siteSize(site)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(site))}
	go srv.Serve(ln)
	defer srv.Close()
	base := fmt.Sprintf("http://%s/", ln.Addr())

	browser, err := chromium.Path()
	if err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", "bench-lite-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if _, err := chromedp.Run(bctx, chromedp.Navigate("about:blank")); err != nil {
		return fmt.Errorf("starting Chromium: %w", err)
	}

	// A learner's first minute: the site's address, then Run All as soon as
	// the notebook shows (its saved outputs cleared first, so that the
	// first output is the browser's own), until the first output shows.
	firstOutput := func() (time.Duration, error) {
		tab, closeTab := chromedp.NewContext(bctx)
		defer closeTab()
		start := time.Now()
		if _, err := chromedp.Run(tab, chromedp.Navigate(base)); err != nil {
			return 0, err
		}
		if _, err := waitState(tab, lesson00, 3*time.Minute, func(s pageState) bool { return s.Ready && s.Code > 0 }); err != nil {
			return 0, fmt.Errorf("lesson 00 did not open: %w", err)
		}
		if err := command(tab, lesson00, "notebook:clear-all-cell-outputs"); err != nil {
			return 0, err
		}
		if err := command(tab, lesson00, "notebook:run-all-cells"); err != nil {
			return 0, err
		}
		if _, err := waitState(tab, lesson00, 5*time.Minute, func(s pageState) bool { return s.Outputs > 0 }); err != nil {
			return 0, fmt.Errorf("no output: %w", err)
		}
		d := time.Since(start)
		// Let the run end before the tab closes, so the next visit starts clean.
		_, err := waitState(tab, lesson00, 10*time.Minute, func(s pageState) bool { return s.Kernel == "idle" && s.Ran == s.Code })
		if err == nil {
			log.Printf("first output in %v; %s", d.Round(100*time.Millisecond), kernelTimings(tab))
		}
		return d, err
	}
	cold, err := firstOutput()
	if err != nil {
		return fmt.Errorf("cold visit: %w", err)
	}
	warm, err := firstOutput()
	if err != nil {
		return fmt.Errorf("warm visit: %w", err)
	}

	paths, _ := filepath.Glob(filepath.Join(repo, "notebooks", "[0-9][0-9]-*.ipynb"))
	if *lessons != "" {
		want := strings.Split(*lessons, ",")
		paths = slices.DeleteFunc(paths, func(p string) bool { return !slices.Contains(want, filepath.Base(p)[:2]) })
		if len(paths) == 0 {
			return fmt.Errorf("-lessons %q: no such lesson (want numbers such as 00,03)", *lessons)
		}
	}
	type row struct {
		name                 string
		browser, again, gonb time.Duration
		note                 string
	}
	var rows []row
	for _, p := range paths {
		name := filepath.Base(p)
		r := row{name: strings.TrimSuffix(name, ".ipynb")}
		r.browser, err = browserRunAll(bctx, base, "notebooks/"+name)
		if err != nil {
			r.note = "browser: " + err.Error()
		} else if r.again, err = browserRunAll(bctx, base, "notebooks/"+name); err != nil {
			r.note = "browser, again: " + err.Error()
		}
		if !*skipGoNB {
			if r.gonb, err = gonbRunAll(repo, p); err != nil {
				r.note += " server: " + err.Error()
			}
		}
		rows = append(rows, r)
		log.Printf("%s: browser %v, again %v, server %v %s", r.name, r.browser.Round(100*time.Millisecond), r.again.Round(100*time.Millisecond), r.gonb.Round(100*time.Millisecond), r.note)
	}

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Backoff Lab in the browser (scripts/build-lite), headless Chromium, %s load average %s\n", cpus(), strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("site: %.0f MB on disk; a first visit fetches about %.0f MB (JupyterLite and the lessons, Go in the browser's first-visit assets)\n\n", total/1e6, firstVisit/1e6)
	fmt.Printf("%-34s %10s\n", "a learner's first minute", "seconds")
	fmt.Printf("%-34s %10.1f   (goal ≤ 30)\n", "address → lesson 00's first output, cold cache", cold.Seconds())
	fmt.Printf("%-34s %10.1f   (goal ≤ 5)\n\n", "address → lesson 00's first output, warm", warm.Seconds())
	fmt.Printf("Run All: browser, a new tab, the lesson's programs not yet in the browser's cache; again: a new tab, its programs cached\n")
	fmt.Printf("%-26s %12s %12s %12s %8s\n", "Run All (s)", "browser", "again", "server GoNB", "×")
	for _, r := range rows {
		ratio := "-"
		if r.browser > 0 && r.gonb > 0 {
			ratio = fmt.Sprintf("%.1f", r.browser.Seconds()/r.gonb.Seconds())
		}
		fmt.Printf("%-26s %12s %12s %12s %8s  %s\n", r.name, secs(r.browser), secs(r.again), secs(r.gonb), ratio, r.note)
	}
	return nil
}

// kernelTimings summarizes the browser kernel's own record of the tab's
// cells (window.backofflabGoTimings): its start, and how many cells ran a
// program from the browser's cache and how many were compiled and linked.
func kernelTimings(tab context.Context) string {
	raw, err := chromium.Await[string](tab, 30*time.Second, `JSON.stringify(window.backofflabGoTimings || [])`)
	if err != nil {
		return "no kernel timings: " + err.Error()
	}
	var cells []struct {
		Start, Began, At, Merge, Cached, Toolchain, Compile, Link, Run *float64
	}
	if err := json.Unmarshal([]byte(raw), &cells); err != nil {
		return "no kernel timings: " + err.Error()
	}
	var start, startAt, firstAsked, firstAt, build, run float64
	var cached, built int
	for _, c := range cells {
		if c.Began != nil && firstAsked == 0 {
			firstAsked = *c.Began
		}
		if c.Run != nil && firstAt == 0 {
			firstAt = *c.At
		}
		switch {
		case c.Start != nil:
			start, startAt = *c.Start, *c.At
		case c.Cached != nil:
			cached++
		case c.Compile != nil:
			built++
			build += *c.Compile
			if c.Link != nil {
				build += *c.Link
			}
		}
		if c.Run != nil {
			run += *c.Run
		}
	}
	return fmt.Sprintf("kernel start %.1f s, ready %.1f s after the address was opened; the first cell asked at %.1f s, the first program ended at %.1f s; %d programs from the browser's cache, %d compiled and linked (%.1f s); programs ran %.1f s", start/1000, startAt/1000, firstAsked/1000, firstAt/1000, cached, built, build/1000, run/1000)
}

func secs(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", d.Seconds())
}

func cpus() string {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return "? CPUs,"
	}
	return strings.TrimSpace(string(out)) + " CPUs,"
}

// siteSize returns the site's bytes on disk and what a first visit fetches:
// everything but Go in the browser's on-demand archives (go-web/assets/*.a.zst).
func siteSize(site string) (total, first float64, err error) {
	err = filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += float64(info.Size())
		rel, _ := filepath.Rel(site, p)
		if !(strings.HasPrefix(rel, "go-web/assets/") && strings.HasSuffix(rel, ".a.zst")) {
			first += float64(info.Size())
		}
		return nil
	})
	return total, first, err
}

// browserRunAll opens url (a lesson) in a new tab of the warm browser and
// times Run All from the toolbar's command until every cell has run.
func browserRunAll(bctx context.Context, base, path string) (time.Duration, error) {
	tab, closeTab := chromedp.NewContext(bctx)
	defer closeTab()
	url := base + "lab/index.html?path=" + path
	if _, err := chromedp.Run(tab, chromedp.Navigate(url)); err != nil {
		return 0, err
	}
	if _, err := waitState(tab, path, 3*time.Minute, func(s pageState) bool { return s.Ready && s.Code > 0 && s.Kernel == "idle" }); err != nil {
		return 0, fmt.Errorf("did not open: %w", err)
	}
	if err := command(tab, path, "notebook:clear-all-cell-outputs"); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := command(tab, path, "notebook:run-all-cells"); err != nil {
		return 0, err
	}
	if _, err := waitState(tab, path, 20*time.Minute, func(s pageState) bool { return s.Kernel == "idle" && s.Running == 0 && s.Ran == s.Code }); err != nil {
		return 0, fmt.Errorf("Run All did not finish: %w", err)
	}
	d := time.Since(start)
	log.Printf("%s: Run All in %v; %s", url, d.Round(100*time.Millisecond), kernelTimings(tab))
	return d, nil
}

// command runs a JupyterLab command on the notebook at path (the workspace
// may have others open), which first gets the
// focus (the notebook's commands act on the focused one: activated, its
// first cell active, the notebook's node focused; a click on a cell's
// prompt fails where the first cell's prompt has no box, as in lesson 03),
// without waiting for it to end.
func command(tab context.Context, path, id string) error {
	focus := fmt.Sprintf(`(() => {
  const app = window.jupyterapp;
  const w = Array.from(app.shell.widgets('main')).find(w => w.content && w.content.model && w.sessionContext && w.context.path === %q);
  if (!w) return false;
  app.shell.activateById(w.id);
  w.content.activeCellIndex = 0;
  w.content.mode = 'command';
  w.content.node.focus();
  return app.shell.currentWidget === w;
})()`, path)
	ok, err := chromium.Await[bool](tab, 30*time.Second, focus)
	if err != nil || !ok {
		return fmt.Errorf("focusing the notebook: %v (focused: %v)", err, ok)
	}
	_, err = chromium.Await[bool](tab, time.Minute, fmt.Sprintf("(window.jupyterapp.commands.execute(%q), true)", id))
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	return nil
}

// waitState waits until the notebook at path shows a state ok accepts.
func waitState(tab context.Context, path string, d time.Duration, ok func(pageState) bool) (pageState, error) {
	deadline := time.Now().Add(d)
	var s pageState
	for {
		raw, err := chromium.Await[string](tab, 30*time.Second, fmt.Sprintf("(%s)(%q)", stateJS, path))
		if err == nil {
			s = pageState{}
			err = json.Unmarshal([]byte(raw), &s)
		}
		if err == nil && ok(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("not within %v (the page shows %+v, %v)", d, s, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// gonbScript runs every code cell of a notebook, in order, on the server's
// kernel (scripts/setup's "Go (Backoff Lab)") through jupyter_client, and
// prints the seconds from the first cell's request to the last one's reply
// (the kernel started before, as a learner's is when they press Run All).
const gonbScript = `
import json, sys, time
from jupyter_client.manager import start_new_kernel
req = json.load(sys.stdin)
km, kc = start_new_kernel(kernel_name=req["kernel"], cwd=req["cwd"])
try:
    t = time.monotonic()
    for src in req["cells"]:
        msg_id = kc.execute(src)
        while True:
            m = kc.get_shell_msg(timeout=900)
            if m["parent_header"].get("msg_id") == msg_id:
                break
        if m["content"]["status"] != "ok":
            raise SystemExit("cell failed on the kernel: " + src[:80])
    print(json.dumps(time.monotonic() - t))
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
`

func gonbRunAll(repo, path string) (time.Duration, error) {
	nb, err := notebook.Read(path)
	if err != nil {
		return 0, err
	}
	var cells []string
	for _, c := range nb.Cells {
		if c.CellType == "code" {
			cells = append(cells, string(c.Source))
		}
	}
	python := filepath.Join(repo, ".cache", "venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		return 0, errors.New("no .cache/venv: run scripts/setup")
	}
	req, _ := json.Marshal(map[string]any{"kernel": notebook.KernelName, "cells": cells, "cwd": filepath.Dir(path)})
	cmd := exec.Command(python, "-c", gonbScript)
	cmd.Dir = repo
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, lastLine(stderr.String()))
	}
	var s float64
	if err := json.Unmarshal(out, &s); err != nil {
		return 0, err
	}
	return time.Duration(s * float64(time.Second)), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
