package zoo_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/backofflab/backofflab/retry"
)

// resendCount is a RoundTripper for under otelhttp's: it adds
// OpenTelemetry's http.request.resend_count (the attempt number less one,
// set on resends only) to the span otelhttp started for the attempt, from
// the attempt number retry.Transport puts in the request's context.
type resendCount struct{ base http.RoundTripper }

func (r resendCount) RoundTrip(req *http.Request) (*http.Response, error) {
	if n := retry.AttemptFromContext(req.Context()); n > 1 {
		trace.SpanFromContext(req.Context()).SetAttributes(attribute.Int("http.request.resend_count", n-1))
	}
	return r.base.RoundTrip(req)
}

// A retrying client traced with OpenTelemetry: retry.Transport outside,
// so each attempt is a client span of its own (as OpenTelemetry's HTTP
// conventions ask), otelhttp's Transport inside it, and resendCount
// under that to number the resends. The server fails the first request.
func Example_openTelemetry() {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()

	spans := tracetest.NewSpanRecorder()
	tracing := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t, err := retry.NewTransport(retry.TransportConfig{
		Config: retry.Config{Policy: retry.Constant{Base: time.Millisecond}},
		Base:   otelhttp.NewTransport(resendCount{http.DefaultTransport}, otelhttp.WithTracerProvider(tracing)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := (&http.Client{Transport: t}).Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close() // ends the last attempt's span
	for _, s := range spans.Ended() {
		attrs := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes() {
			attrs[kv.Key] = kv.Value
		}
		resend, ok := attrs["http.request.resend_count"]
		if !ok {
			resend = attribute.IntValue(0)
		}
		fmt.Printf("span %q: status %d, resend_count %d\n", s.Name(), attrs["http.response.status_code"].AsInt64(), resend.AsInt64())
	}
	// Output:
	// span "HTTP GET": status 503, resend_count 0
	// span "HTTP GET": status 200, resend_count 1
}
