package lab

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// KernelDirEnv names the environment variable that holds a GoNB kernel's
// temporary directory. GoNB sets it for every cell it runs and removes the
// directory when the kernel stops.
const KernelDirEnv = "GONB_TMP_DIR"

// rememberName is what a name given to Remember must look like.
var rememberName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Remember returns what compute returns, computing it at most once per
// notebook kernel. GoNB runs each cell as a fresh program, so a cell that
// shows an earlier cell's result would otherwise compute it again: a sweep
// that takes seconds, or a storm that runs in real time.
//
// In a GoNB kernel (KernelDirEnv is set), the first call saves the value,
// gob-encoded, under name in the kernel's temporary directory; later calls,
// from any cell of the same kernel, decode it instead of calling compute.
// A kernel restart forgets every value. Outside a kernel Remember simply
// calls compute.
//
// The name, lower-case letters and digits in dash-separated words, must
// identify everything the value depends on: put the parameters in it
// ("brooker-sweep-100-runs"), because a cell that changes compute but not
// the name gets the remembered value until the kernel restarts. The value
// must be gob-encodable: register the concrete types of any interface
// fields with gob.Register. An error from compute is returned and nothing is
// saved; a value that cannot be saved is returned with the error; a saved
// value that no longer decodes into T is computed and saved again.
func Remember[T any](name string, compute func() (T, error)) (T, error) {
	var v T
	if !rememberName.MatchString(name) {
		return v, fmt.Errorf("lab: remember: name %q is not lower-case letters and digits in dash-separated words, such as brooker-sweep-100-runs", name)
	}
	dir := os.Getenv(KernelDirEnv)
	if dir == "" {
		return compute()
	}
	path := filepath.Join(dir, "backofflab-remember", name+".gob")
	if b, err := os.ReadFile(path); err == nil && gob.NewDecoder(bytes.NewReader(b)).Decode(&v) == nil {
		return v, nil
	}
	v, err := compute()
	if err != nil {
		return v, err
	}
	if err := save(path, v); err != nil {
		return v, fmt.Errorf("lab: remember %s: %w", name, err)
	}
	return v, nil
}

// save writes v, gob-encoded, to path, atomically: a reader sees the old
// file or the whole new one.
func save(path string, v any) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(buf.Bytes())
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
