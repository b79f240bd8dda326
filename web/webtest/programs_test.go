package webtest

import (
	"strings"
	"testing"
)

// TestProgramCache runs web/test/programs.mjs: the browser's cache of built
// programs (web/src/programs.js) keys a program by everything that decides
// it (source, universe, manifest, the worker's scripts), returns what was
// kept byte for byte, drops a damaged entry instead of returning it, and
// keeps at most MAX_PROGRAMS.
func TestProgramCache(t *testing.T) {
	if out := strings.TrimSpace(string(node(t, nil, "programs.mjs"))); out != "ok" {
		t.Errorf("web/test/programs.mjs:\n%s", out)
	}
}
