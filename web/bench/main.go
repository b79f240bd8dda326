// Command bench measures Go in the browser and prints a table: what each
// part of the download weighs, how long the worker takes to be ready from
// a cold cache and on a second visit (and what that visit fetches), and,
// warm, the p50 of a cell that prints numbers and of a chart cell, with
// compile, link and run timed apart; beside them the same cells on the
// native GoNB kernel. scripts/bench-wasm runs it.
//
//	go run ./web/bench [-n 7] [-notebook notebooks/01-waves.ipynb] [-skip-gonb]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
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
	runs     = flag.Int("n", 7, "warm runs of each cell (`n` from 3 to 50)")
	nbPath   = flag.String("notebook", "notebooks/01-waves.ipynb", "the lesson whose cells are timed: its first code cell that only prints, and its first cell that shows a PNG chart")
	skipGoNB = flag.Bool("skip-gonb", false, "leave out the native GoNB column (it needs scripts/setup's Jupyter)")
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("bench-wasm: ")
	flag.Parse()
	if *runs < 3 || *runs > 50 {
		log.Fatalf("-n must be from 3 to 50, got %d", *runs)
	}
	if err := bench(); err != nil {
		log.Fatal(err)
	}
}

type cellTiming struct {
	Status  string             `json:"status"`
	Timings map[string]float64 `json:"timings"`
}

func bench() error {
	repo, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(repo, "web", "bench")); err != nil {
		return errors.New("run it from the repository's root (scripts/bench-wasm does)")
	}
	nb, err := notebook.Read(filepath.Join(repo, *nbPath))
	if err != nil {
		return fmt.Errorf("-notebook: %w", err)
	}
	var code []string
	textCell, chartCell := -1, -1
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		code = append(code, string(c.Source))
		png, displays := false, false
		for _, o := range c.Outputs {
			if o.OutputType == "display_data" {
				displays = true
				if _, ok := o.Data["image/png"]; ok {
					png = true
				}
			}
		}
		if !displays && textCell < 0 && len(code) > 0 {
			textCell = len(code) - 1
		}
		if png && chartCell < 0 {
			chartCell = len(code) - 1
		}
	}
	if textCell < 0 || chartCell < 0 {
		return fmt.Errorf("-notebook %s: needs a code cell that only prints and one that shows a PNG", *nbPath)
	}

	site := filepath.Join(repo, ".cache", "wasm-site")
	build := exec.Command(filepath.Join(repo, "scripts", "build-wasm"), site)
	build.Stderr = os.Stderr
	sizes, err := build.Output()
	if err != nil {
		return fmt.Errorf("scripts/build-wasm: %w", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(site))}
	go srv.Serve(ln)
	defer srv.Close()
	page := fmt.Sprintf("http://%s/test/?notebook=%s", ln.Addr(), filepath.Base(*nbPath))

	browser, err := chromium.Path()
	if err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", "bench-wasm-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(profile),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if _, err := chromedp.Run(bctx, chromedp.Navigate("about:blank")); err != nil {
		return fmt.Errorf("starting Chromium: %w", err)
	}

	type visit struct {
		ready                 time.Duration
		fetched, fetchedBytes int
	}
	open := func() (visit, context.Context, context.CancelFunc, error) {
		tab, cancelTab := chromedp.NewContext(bctx)
		start := time.Now()
		if _, err := chromedp.Run(tab, chromedp.Navigate(page)); err != nil {
			return visit{}, nil, cancelTab, err
		}
		if _, err := chromium.Await[map[string]float64](tab, 5*time.Minute, "window.golabTest.ready"); err != nil {
			return visit{}, nil, cancelTab, fmt.Errorf("the worker did not start: %w", err)
		}
		v := visit{ready: time.Since(start)}
		f, err := chromium.Await[[]struct {
			Bytes     int  `json:"bytes"`
			FromCache bool `json:"fromCache"`
		}](tab, time.Minute, "window.golabTest.fetched")
		if err != nil {
			return v, tab, cancelTab, err
		}
		for _, x := range f {
			if !x.FromCache {
				v.fetched++
				v.fetchedBytes += x.Bytes
			}
		}
		return v, tab, cancelTab, nil
	}
	cold, tab, closeTab, err := open()
	if err != nil {
		return err
	}
	closeTab()
	warm, tab, closeTab, err := open()
	if err != nil {
		return err
	}
	defer closeTab()

	run := func(src string) (cellTiming, error) {
		q, _ := json.Marshal(src)
		c, err := chromium.Await[cellTiming](tab, 5*time.Minute, "window.golabTest.runSource("+string(q)+")")
		if err == nil && c.Status != "ok" {
			err = fmt.Errorf("cell failed in the browser: %s", strings.TrimSpace(src))
		}
		return c, err
	}
	for _, src := range code[:chartCell] {
		if _, err := run(src); err != nil {
			return err
		}
	}
	measure := func(src string) (map[string][]float64, error) {
		m := map[string][]float64{}
		for range *runs {
			c, err := run(src)
			if err != nil {
				return nil, err
			}
			for _, k := range []string{"merge", "compile", "link", "run", "total"} {
				m[k] = append(m[k], c.Timings[k])
			}
		}
		return m, nil
	}
	text, err := measure(code[textCell])
	if err != nil {
		return err
	}
	chart, err := measure(code[chartCell])
	if err != nil {
		return err
	}

	var gonbText, gonbChart []float64
	gonbNote := "(left out: -skip-gonb)"
	if !*skipGoNB {
		gonbText, gonbChart, err = gonb(repo, code[:chartCell], code[textCell], code[chartCell])
		if err != nil {
			gonbNote = "(failed: " + err.Error() + ")"
		} else {
			gonbNote = ""
		}
	}

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Go in the browser, headless Chromium, %s; load average %s\n\n", filepath.Base(*nbPath), strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("%s\n", sizes)
	fmt.Printf("%-46s %12s\n", "worker ready, cold cache (first visit)", seconds(cold.ready.Seconds()))
	fmt.Printf("%-46s %12s\n", "  fetched", fmt.Sprintf("%d files, %.1f MB", cold.fetched, float64(cold.fetchedBytes)/1e6))
	fmt.Printf("%-46s %12s\n", "worker ready, second visit", seconds(warm.ready.Seconds()))
	fmt.Printf("%-46s %12s\n\n", "  fetched", fmt.Sprintf("%d files, %.1f MB", warm.fetched, float64(warm.fetchedBytes)/1e6))
	fmt.Printf("warm p50 of %d runs (s)  %8s %8s %8s %8s %8s   %s\n", *runs, "merge", "compile", "link", "run", "total", "native GoNB "+gonbNote)
	row := func(name string, m map[string][]float64, native []float64) {
		nat := "-"
		if native != nil {
			nat = fmt.Sprintf("%.2f", p50(native))
		}
		fmt.Printf("%-24s %8.2f %8.2f %8.2f %8.2f %8.2f   %s\n", name, p50(m["merge"])/1000, p50(m["compile"])/1000, p50(m["link"])/1000, p50(m["run"])/1000, p50(m["total"])/1000, nat)
	}
	row(fmt.Sprintf("text cell (%d)", textCell+1), text, gonbText)
	row(fmt.Sprintf("chart cell (%d)", chartCell+1), chart, gonbChart)
	fmt.Printf("\ntargets: ready cold <= 20 s, text cell p50 <= 2 s, chart cell p50 <= 5 s, first visit <= 40 MB\n")
	return nil
}

func seconds(s float64) string { return fmt.Sprintf("%.1f s", s) }

func p50(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// gonbScript runs cells on the native kernel (scripts/setup's "Go (Backoff
// Lab)") through jupyter_client: the setup cells once, then each timed
// cell n times, printing each execution's seconds as JSON.
const gonbScript = `
import json, sys, time
from jupyter_client.manager import start_new_kernel
req = json.load(sys.stdin)
km, kc = start_new_kernel(kernel_name=req["kernel"])
def run(src):
    t = time.monotonic()
    msg_id = kc.execute(src)
    while True:
        m = kc.get_shell_msg(timeout=600)
        if m["parent_header"].get("msg_id") == msg_id:
            break
    if m["content"]["status"] != "ok":
        raise SystemExit("cell failed on the kernel: " + src[:80])
    return time.monotonic() - t
try:
    for src in req["setup"]:
        run(src)
    out = {k: [run(req[k]) for _ in range(req["n"])] for k in ("text", "chart")}
    print(json.dumps(out))
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
`

func gonb(repo string, setup []string, text, chart string) (textS, chartS []float64, err error) {
	python := filepath.Join(repo, ".cache", "venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		return nil, nil, errors.New("no .cache/venv: run scripts/setup")
	}
	req, _ := json.Marshal(map[string]any{"kernel": notebook.KernelName, "setup": setup, "text": text, "chart": chart, "n": *runs})
	cmd := exec.Command(python, "-c", gonbScript)
	cmd.Dir = repo
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var res struct{ Text, Chart []float64 }
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, nil, err
	}
	return res.Text, res.Chart, nil
}
