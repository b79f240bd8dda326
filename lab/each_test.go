package lab

import (
	"errors"
	"strings"
	"testing"
)

type row struct {
	name string
	n    int
}

func TestOf(t *testing.T) {
	rows := []row{{"a", 1}, {"b", 2}, {"a", 3}}
	name := func(r row) string { return r.name }
	if got := Of(rows, name, "a"); got != (row{"a", 1}) {
		t.Errorf("Of a = %v, want the first a", got)
	}
	if got := Of(rows, name, "c"); got != (row{}) {
		t.Errorf("Of c = %v, want the zero row", got)
	}
	if got := Of([]row(nil), name, "a"); got != (row{}) {
		t.Errorf("Of of none = %v, want the zero row", got)
	}
}

type config int

func (c config) Validate() error {
	if c < 0 {
		return errors.New("negative")
	}
	return nil
}

func TestRunEach(t *testing.T) {
	var ran []config
	double := func(c config) (int, error) {
		ran = append(ran, c)
		if c == 7 {
			return 0, errors.New("seven")
		}
		return 2 * int(c), nil
	}
	got, err := RunEach([]config{1, 2, 3}, double)
	if err != nil || len(got) != 3 || got[2] != 6 {
		t.Fatalf("RunEach = %v, %v", got, err)
	}
	ran = nil
	if _, err := RunEach([]config{1, 2, -1}, double); err == nil || !strings.Contains(err.Error(), "run 3 of 3: negative") || ran != nil {
		t.Errorf("a bad last config: error %v after runs %v; want an error naming run 3 and no run", err, ran)
	}
	ran = nil
	if _, err := RunEach([]config{1, 7, 2}, double); err == nil || !strings.Contains(err.Error(), "run 2 of 3: seven") || len(ran) != 2 {
		t.Errorf("a failed run: error %v after runs %v; want run 2 named and no run after it", err, ran)
	}
}
