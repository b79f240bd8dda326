package classroom

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// TestClassPackage runs the class package's own tests (class/tests, pytest from the lock file
// requirements/jupyter.lock, in the environment scripts/setup makes): the roster, the Go-source
// and module-file checks the cell daemon applies to what learners send (with a fuzz of the
// scanner), the generated configuration, the log relay, the slots, the limits and the
// temporary-folder cleaning.
func TestClassPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest in the Jupyter environment scripts/setup makes; run without -short")
	}
	repo := jupytertest.Repo()
	py := filepath.Join(repo, ".cache", "venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("no Python environment at %s: run scripts/setup first", py)
	}
	cmd := exec.Command(py, "-m", "pytest", "-q", "-p", "no:cacheprovider", filepath.Join(repo, "class", "tests"))
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pytest class/tests: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
