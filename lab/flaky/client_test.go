package flaky

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/retry"
)

func TestGetAndOutcome(t *testing.T) {
	s := New(1)
	defer s.Close()
	if err := Get(context.Background(), http.DefaultClient, s.URL); err == nil || err.Error() != "status 503" {
		t.Errorf("first Get: %v, want status 503", err)
	}
	if err := Get(context.Background(), http.DefaultClient, s.URL); err != nil {
		t.Errorf("second Get: %v, want nil", err)
	}
	if err := Get(context.Background(), http.DefaultClient, "http://bad host/"); err == nil {
		t.Error("Get of a bad URL: no error")
	}
	if got := Outcome(http.Get(s.URL)); got != "200 OK" {
		t.Errorf("Outcome of a 200 = %q", got)
	}

	down := New(Always)
	defer down.Close()
	tr, err := retry.NewTransport(retry.TransportConfig{Config: retry.Config{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: tr}
	var last string
	for range 6 {
		last = Outcome(client.Get(down.URL))
	}
	if !strings.HasPrefix(last, "refused: ") || strings.Contains(last, down.URL) {
		t.Errorf("Outcome once the breaker is open = %q, want the retry error without the URL", last)
	}
	if got := Outcome(http.Get("http://bad host/")); got == "" || strings.HasPrefix(got, "refused") {
		t.Errorf("Outcome of a bad URL = %q, want the error", got)
	}
}

func TestCompareCohorts(t *testing.T) {
	if testing.Short() {
		t.Skip("two cohorts, over a second each")
	}
	lineup := []schedule.Named{{Name: "exact", Policy: schedule.Constant{}}, {Name: "jittered"}}
	cmp, err := CompareCohorts(20, 1, lineup)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := cmp.Table()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(tb.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "exact") || !strings.Contains(lines[1], "1s") || !strings.HasSuffix(lines[2], "true") {
		t.Errorf("table:\n%s", tb)
	}
	fig, err := cmp.Figure()
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 2 || !strings.Contains(fig.Title, "20 first requests") {
		t.Errorf("figure: %d panels, title %q", len(fig.Panels), fig.Title)
	}
	if _, err := CompareCohorts(0, 1, lineup); err == nil {
		t.Error("CompareCohorts with no clients: no error")
	}
}
