// Package chromium finds Debian's Chromium and evaluates promises in a
// chromedp tab: the two things the browser tests and the benchmark commands
// (web/bench, web/litebench) share.
package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
)

// ErrMissing says that no Chromium is installed, and how to install one.
var ErrMissing = errors.New("no Chromium: install Debian's chromium (apt-get install chromium, as root)")

// Path returns the browser binary: /usr/bin/chromium, or chromium or
// chromium-browser on PATH; ErrMissing if there is none (no tool of this
// project downloads a browser).
func Path() (string, error) {
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrMissing
}

// Await evaluates the JavaScript expression js in the tab ctx, waits up to d
// for the promise it gives (or its value), and decodes the result, passed
// through JSON.stringify, into a T.
func Await[T any](ctx context.Context, d time.Duration, js string) (T, error) {
	var v T
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf("(async () => JSON.stringify(await (%s)))()", js), chromedp.EvalAwaitPromise))
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal([]byte(raw), &v)
}
