package zoo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// moduleDir is where the module cache holds path at the version go.mod pins.
func moduleDir(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", path, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		t.Fatalf("%s is not in the module cache", path)
	}
	return dir
}

// The Google API clients' retry settings are read from their source, not
// run from an import: the google.golang.org/api row runs gax-go's Pause with
// the settings pinned here. If an upgrade changes them, this test says so.
func TestGoogleAPISettingsMatchTheirSource(t *testing.T) {
	for _, c := range []struct{ module, file, line string }{
		{"google.golang.org/api", "internal/gensupport/retry.go", "return &gax.Backoff{Initial: 100 * time.Millisecond}"},
		{"github.com/googleapis/gax-go/v2", "call_option.go", "bo.Initial = time.Second"},
		{"github.com/googleapis/gax-go/v2", "call_option.go", "bo.Max = 30 * time.Second"},
	} {
		src, err := os.ReadFile(filepath.Join(moduleDir(t, c.module), c.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), c.line) {
			t.Errorf("%s %s %s no longer contains %q: update the zoo's entry", c.module, Version(c.module), c.file, c.line)
		}
	}
}
