package storm

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// The warm-up is bounded: a server that never answers makes it fail, not
// hang, after exactly its timeout (in virtual time: testing/synctest, on an
// in-memory network).
func TestWarmUpIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln, dial, err := listen(InMemory(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-done })}
		go srv.Serve(ln)
		defer srv.Close()
		defer close(done)
		var clients []*client
		for i := range 3 {
			c, err := newClient(Config{Policy: schedule.NameFull, Attempts: 1, Base: time.Millisecond}, i, "http://"+ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c.base.DialContext = dial
			defer c.base.CloseIdleConnections()
			clients = append(clients, c)
		}
		start := time.Now()
		err = warm(context.Background(), clients, "http://"+ln.Addr().String()+warmPath, 50*time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "opened 0 of 3 client connections within 50ms") {
			t.Fatalf("warm against a silent server = %v, want it to give up after 50ms", err)
		}
		if took := time.Since(start); took != 50*time.Millisecond {
			t.Errorf("warm gave up after %v, want its timeout, 50ms", took)
		}
	})
}
