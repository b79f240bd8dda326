package lab_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab"
)

// counting returns a compute function that counts its calls.
func counting(calls *int, v []int) func() ([]int, error) {
	return func() ([]int, error) {
		*calls++
		return v, nil
	}
}

func TestRememberComputesOncePerKernel(t *testing.T) {
	t.Setenv(lab.KernelDirEnv, t.TempDir())
	calls := 0
	for i := range 3 {
		v, err := lab.Remember("sweep-3", counting(&calls, []int{1, 2, 3}))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(v) != "[1 2 3]" {
			t.Fatalf("call %d: got %v, want [1 2 3]", i, v)
		}
	}
	if calls != 1 {
		t.Errorf("compute ran %d times in one kernel, want once", calls)
	}
	if _, err := lab.Remember("sweep-4", counting(&calls, []int{4})); err != nil || calls != 2 {
		t.Errorf("another name: error %v, %d computations; want a second computation", err, calls)
	}
}

func TestRememberOutsideAKernelComputesEachTime(t *testing.T) {
	t.Setenv(lab.KernelDirEnv, "")
	calls := 0
	for range 2 {
		if _, err := lab.Remember("sweep", counting(&calls, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Errorf("compute ran %d times outside a kernel, want 2", calls)
	}
}

func TestRememberKeepsNoError(t *testing.T) {
	t.Setenv(lab.KernelDirEnv, t.TempDir())
	boom := errors.New("boom")
	calls := 0
	for range 2 {
		_, err := lab.Remember("failing", func() (int, error) { calls++; return 0, boom })
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want %v", err, boom)
		}
	}
	if calls != 2 {
		t.Errorf("a failed computation was remembered: %d calls, want 2", calls)
	}
}

func TestRememberRecomputesWhatNoLongerDecodes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(lab.KernelDirEnv, dir)
	if _, err := lab.Remember("value", func() (string, error) { return "text", nil }); err != nil {
		t.Fatal(err)
	}
	v, err := lab.Remember("value", func() (int, error) { return 7, nil }) // the cell changed its type
	if err != nil || v != 7 {
		t.Fatalf("got %v, %v; want 7 computed again", v, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "backofflab-remember", "value.gob"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, err := lab.Remember("value", func() (int, error) { return 8, nil }); err != nil || v != 8 {
		t.Fatalf("after a corrupt file: got %v, %v; want 8 computed again", v, err)
	}
}

func TestRememberErrors(t *testing.T) {
	t.Setenv(lab.KernelDirEnv, t.TempDir())
	for _, name := range []string{"", "Sweep", "a/b", "../x", "a--b", "-a", "a b"} {
		if _, err := lab.Remember(name, func() (int, error) { return 1, nil }); err == nil || !strings.Contains(err.Error(), "name") {
			t.Errorf("name %q: error %v, want one naming the name", name, err)
		}
	}
	// A func cannot be gob-encoded: the value comes back with the error.
	f, err := lab.Remember("func", func() (func(), error) { return func() {}, nil })
	if err == nil || f == nil {
		t.Errorf("unencodable value: got nil value %v, error %v; want the value and an error", f == nil, err)
	}
}

// A notebook cell keeps an expensive result for the cells after it.
func ExampleRemember() {
	sweep := func() ([]float64, error) {
		fmt.Println("sweeping")
		return []float64{1.5, 2.5}, nil
	}
	dir, err := os.MkdirTemp("", "kernel")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv(lab.KernelDirEnv, dir) // GoNB sets it in a notebook
	defer os.Unsetenv(lab.KernelDirEnv)
	for range 2 { // two cells
		ms, err := lab.Remember("example-sweep", sweep)
		if err != nil {
			panic(err)
		}
		fmt.Println(ms)
	}
	// Output:
	// sweeping
	// [1.5 2.5]
	// [1.5 2.5]
}
