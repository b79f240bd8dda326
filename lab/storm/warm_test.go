package storm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// The warm-up is bounded: a server that never answers makes it fail, not
// hang.
func TestWarmUpIsBounded(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-done }))
	defer srv.Close()
	defer close(done)
	var clients []*client
	for i := range 3 {
		c, err := newClient(Config{Policy: schedule.NameFull, Attempts: 1, Base: time.Millisecond}, i, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer c.base.CloseIdleConnections()
		clients = append(clients, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // safety net
	defer cancel()
	err := warm(ctx, clients, srv.URL+warmPath, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "opened 0 of 3 client connections within 50ms") {
		t.Fatalf("warm against a silent server = %v, want it to give up after 50ms", err)
	}
}
